"""Structured control flow: cond (switch), while_loop, fori_loop and scan, as primitives over Programs.

The user's functions are traced (dynamic staging) into Programs held in the primitives' params; values the
functions close over become explicit leading operands, so the Programs are plain data. Their rules transform
those Programs (paddle_fn.core.program_transforms):

- JVP: the body's JVP is split by partial evaluation into a *known* part (primal outputs + residuals) and a
  *linear* part (tangents from residuals). The primitive is bound twice, once per part, so under linearize
  the staged tangent program holds only linear operations and reverse mode is linearize + transpose.
- Transpose: a linear scan transposes to a scan in the opposite direction over the transposed body; a
  linear cond to a cond of transposed branches. while_loop has no transpose (its trip count is dynamic).
- Batching: bodies are batched with batch_program; a batched predicate turns cond into a select and makes a
  while loop run until every lane is done, keeping finished lanes' carries.
- Lowering: stablehlo.case / stablehlo.while; scan is a while over a counter with dynamic_slice of the xs and
  dynamic_update_slice into the ys buffers (no unrolling). Region bodies read outer values directly.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, instantiate, is_differentiable, is_undefined, zeros_like_aval
from paddle_fn.core.batching import batch_size, bdim_at_front, moveaxis, vmap_flat
from paddle_fn.core.errors import DTypeError, ShapeError, TransformError, UnsupportedError
from paddle_fn.core.ir import Program, ShapedArray
from paddle_fn.core.primitive import Primitive, symbolic_zeros, unsupported
from paddle_fn.core.program_transforms import (batch_program, closed_program, jvp_program, linearize_program,
                                               transpose_program, unused_vars, with_inputs)
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.config import config
from paddle_fn.core.staging import dce_program, eval_program, trace_to_program
from paddle_fn.core.trace import Tensor, find_top_trace, get_aval, is_concrete
from paddle_fn.lowering.emitter import tensor_type
from paddle_fn.prims.base import broadcast_in_dim, reduce_sum, reshape
from paddle_fn.prims.elementwise import add, clamp, convert_element_type, eq, lt, ne, select
from paddle_fn.prims.host_callback import LoopCallbacks
from paddle_fn.prims.slicing import dynamic_update_slice

_I32 = ShapedArray((), dtypes.int32)


# ---------------------------------------------------------------------------------------------- shared helpers

def _is_nonzero(tangent, primal) -> bool:
    return not isinstance(tangent, Zero) and is_differentiable(get_aval(primal))


def _split(xs, *sizes):
    out, start = [], 0
    for n in sizes:
        out.append(list(xs[start:start + n]))
        start += n
    out.append(list(xs[start:]))
    return out


def _types(avals) -> str:
    return ", ".join(tensor_type(a) for a in avals)


def _results(ctx, n):
    """The result binding of an n-result op and the names of its results."""
    name = ctx.fresh()
    if n == 1:
        return name, [name]
    return f"{name}:{n}", [f"{name}#{i}" for i in range(n)]


def _region(ctx, emit_body) -> str:
    """A region `{ ... stablehlo.return }` whose body `emit_body()` emits; it returns (names, avals) to return."""
    saved_lines, saved_indent = ctx.lines, ctx.indent
    ctx.lines, ctx.indent = [], saved_indent + 4
    names, avals = emit_body()
    ctx.line(f"stablehlo.return {', '.join(names)} : {_types(avals)}")
    body = "\n".join(ctx.lines)
    ctx.lines, ctx.indent = saved_lines, saved_indent
    return f"{{\n{body}\n{' ' * (saved_indent + 2)}}}"


def _program_region(ctx, prog, args) -> str:
    return _region(ctx, lambda: (ctx.inline(prog, args), prog.out_avals))


def _lane_select(pred, on_true, on_false):
    """Per batch lane (axis 0 of everything), pick on_true where pred[lane] else on_false."""
    shape = get_aval(on_true).shape
    return select(broadcast_in_dim(pred, shape=shape, broadcast_dimensions=(0,)), on_true, on_false)


def _as_operand(x):
    """Python scalars and numpy arrays become Tensors whose dtype is the one their traced aval has."""
    if isinstance(x, Tensor):
        return x
    return Tensor(np.asarray(x, dtype=get_aval(x).dtype.np))


class _AvalLeaf:
    """A pytree leaf that prints as its aval's short form (`f32[3]`), to show a structure of avals in messages."""

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return self.aval.str_short()


def _describe(tree, avals) -> str:
    return repr(tree_unflatten(tree, [_AvalLeaf(a) for a in avals]))


def _trace(fun, in_tree, in_avals, what, loop_callbacks=None):
    """Trace fun(*unflattened args) -> pytree into (program, consts, out_tree); consts lead the inputs. A loop body
    passes `loop_callbacks` (host_callback.LoopCallbacks): its host callbacks' values follow the outputs."""
    out_trees = []

    def flat_fun(*leaves):
        out_leaves, out_tree = tree_flatten(fun(*tree_unflatten(in_tree, list(leaves))))
        out_trees.append(out_tree)
        return out_leaves + (loop_callbacks.values() if loop_callbacks is not None else [])

    prog, consts = trace_to_program(flat_fun, in_avals, transform=what, dynamic=True,
                                    callbacks=None if loop_callbacks is None else loop_callbacks.staged)
    return prog, consts, out_trees[0]


# ---------------------------------------------------------------------------------------------- cond

def _cond_shape(index, *operands, branches):
    if index.dtype != dtypes.int32 or index.shape != ():
        raise DTypeError(f"cond: the branch index must be an int32 scalar, got {index.str_short()}")
    for i, branch in enumerate(branches):
        if branch.in_avals != list(operands):
            raise ShapeError(f"cond: branch {i} takes {[a.str_short() for a in branch.in_avals]} but the operands "
                             f"are {[a.str_short() for a in operands]}")
        if branch.out_avals != branches[0].out_avals:
            raise ShapeError(f"cond: branch {i} returns {[a.str_short() for a in branch.out_avals]} but branch 0 "
                             f"returns {[a.str_short() for a in branches[0].out_avals]}")
    return branches[0].out_avals


def _branch_number(index, n):
    """Out-of-range indices take the last branch, as stablehlo.case does."""
    i = int(index)
    return i if 0 <= i < n else n - 1


def _cond_impl(index, *operands, branches):
    branch = branches[_branch_number(index, len(branches))]
    return [np.asarray(o) for o in eval_program(branch, [], [Tensor(x) for x in operands])]


@symbolic_zeros
def _cond_jvp(primals, tangents, *, branches):
    index, operands = primals[0], primals[1:]
    nonzero = [_is_nonzero(t, p) for p, t in zip(operands, tangents[1:])]
    n_out = len(branches[0].out_vars)
    out_nonzero = [False] * n_out
    for branch in branches:
        out_nonzero = [a or b for a, b in zip(out_nonzero, jvp_program(branch, nonzero)[1])]
    if not any(out_nonzero):
        return cond_p.bind(index, *operands, branches=branches), [None] * n_out
    splits = [linearize_program(branch, nonzero, instantiate_outputs=out_nonzero)[:3] for branch in branches]
    # Each branch has its own residuals; the joint residual list is their concatenation, and a branch
    # fills the other branches' slots with zeros.
    res_avals = [known.out_avals[n_out:] for known, _, _ in splits]
    known_branches, linear_branches = [], []
    for i, (known, linear, n_res) in enumerate(splits):
        def known_fun(*xs, known=known, i=i):
            outs = eval_program(known, [], xs)
            res = []
            for j, avals in enumerate(res_avals):
                res += outs[n_out:] if j == i else [zeros_like_aval(a) for a in avals]
            return outs[:n_out] + res
        known_branches.append(closed_program(known_fun, [get_aval(x) for x in operands], transform="jvp"))
        before = [a for avals in res_avals[:i] for a in avals]
        after = [a for avals in res_avals[i + 1:] for a in avals]
        linear_branches.append(with_inputs(linear, unused_vars(before) + list(linear.in_vars[:n_res]) +
                                           unused_vars(after) + list(linear.in_vars[n_res:])))
    outs = cond_p.bind(index, *operands, branches=tuple(known_branches))
    primal_out, residuals = outs[:n_out], outs[n_out:]
    live_tangents = [instantiate(t) for t, nz in zip(tangents[1:], nonzero) if nz]
    tangent_out = iter(cond_p.bind(index, *residuals, *live_tangents, branches=tuple(linear_branches)))
    return primal_out, [next(tangent_out) if nz else None for nz in out_nonzero]


def _cond_transpose(cts, index, *operands, branches):
    if is_undefined(index):
        raise UnsupportedError("cond: the branch index cannot be a linear input")
    linear = [is_undefined(x) for x in operands]
    transposed = tuple(transpose_program(branch, linear) for branch in branches)
    known_operands = [x for x, lin in zip(operands, linear) if not lin]
    in_cts = iter(cond_p.bind(index, *known_operands, *cts, branches=transposed))
    return [None] + [next(in_cts) if lin else None for lin in linear]


def _cond_batch(vals, dims, *, branches):
    index, operands = vals[0], vals[1:]
    operand_dims = dims[1:]
    size = batch_size(vals, dims)
    n_out = len(branches[0].out_vars)
    if dims[0] is not None:
        # Lanes disagree on the branch: run every branch on every lane and select per lane.
        index = moveaxis(index, dims[0], 0)
        per_branch = [vmap_flat(lambda *xs, branch=branch: eval_program(branch, [], xs), operands, operand_dims,
                                size, [0] * n_out) for branch in branches]
        outs = per_branch[-1]
        for i in reversed(range(len(branches) - 1)):
            taken = eq(index, broadcast_in_dim(Tensor(np.int32(i)), shape=(size,), broadcast_dimensions=()))
            outs = [_lane_select(taken, a, b) for a, b in zip(per_branch[i], outs)]
        return outs, [0] * n_out
    out_batched = [False] * n_out
    for branch in branches:
        out_dims = batch_program(branch, operand_dims, size)[1]
        out_batched = [b or d is not None for b, d in zip(out_batched, out_dims)]
    batched = tuple(batch_program(branch, operand_dims, size, force_batched=out_batched)[0] for branch in branches)
    outs = cond_p.bind(index, *operands, branches=batched)
    return outs, [0 if b else None for b in out_batched]


def _cond_lower(ctx, index, *operands, branches):
    out_avals = ctx.avals_out
    if not out_avals:
        return []
    regions = [_program_region(ctx, branch, list(operands)) for branch in branches]
    binding, names = _results(ctx, len(out_avals))
    ctx.line(f'{binding} = "stablehlo.case"({index}) ({", ".join(regions)}) : '
             f"({tensor_type(_I32)}) -> ({_types(out_avals)})")
    return names


cond_p = Primitive("cond", shape_rule=_cond_shape, impl=_cond_impl, jvp=_cond_jvp, transpose=_cond_transpose,
                   batch=_cond_batch, lower=_cond_lower, multiple_results=True)


def _as_scalar(x):
    """A one-element [1] Tensor counts as a scalar predicate, as in Paddle (old code reduces to shape [1])."""
    x = _as_operand(x)
    return reshape(x, new_sizes=()) if get_aval(x).shape == (1,) else x


def _branch_index(pred):
    pred = _as_scalar(pred)
    aval = get_aval(pred)
    if aval.shape != ():
        raise ShapeError(f"cond: the predicate must be a scalar, got shape {list(aval.shape)}; reduce it first "
                         "(e.g. .all() or .any())")
    if aval.dtype.kind == "b":
        return convert_element_type(pred, new_dtype=dtypes.int32)
    if aval.dtype.kind in "iu":
        return convert_element_type(ne(pred, Tensor(np.zeros((), aval.dtype.np))), new_dtype=dtypes.int32)
    raise DTypeError(f"cond: the predicate must be a bool or integer scalar, got {aval.dtype.name}; compare it "
                     "first (e.g. x > 0)")


def _switch(index, branches, names, operands):
    leaves, in_tree = tree_flatten(tuple(operands))
    leaves = [_as_operand(x) for x in leaves]
    avals = [get_aval(x) for x in leaves]
    traced = [_trace(fn, in_tree, avals, "cond") for fn in branches]
    _, _, tree0 = traced[0]
    for (prog, _, tree), name in zip(traced[1:], names[1:]):
        if tree != tree0 or prog.out_avals != traced[0][0].out_avals:
            raise TransformError(
                f"cond: {names[0]} and {name} must return the same structure, shapes and dtypes, but {names[0]} "
                f"returns {_describe(tree0, traced[0][0].out_avals)} and {name} returns "
                f"{_describe(tree, prog.out_avals)}; make both branches return matching values (cast with "
                ".astype() where the dtypes differ)")
    # Every branch takes every branch's closed-over values; each reads only its own.
    consts = [c for _, cs, _ in traced for c in cs]
    const_avals = [[get_aval(c) for c in cs] for _, cs, _ in traced]
    programs = []
    for i, (prog, cs, _) in enumerate(traced):
        before = [a for avals in const_avals[:i] for a in avals]
        after = [a for avals in const_avals[i + 1:] for a in avals]
        programs.append(with_inputs(prog, unused_vars(before) + list(prog.in_vars[:len(cs)]) + unused_vars(after) +
                                    list(prog.in_vars[len(cs):])))
    outs = cond_p.bind(index, *consts, *leaves, branches=tuple(programs))
    return tree_unflatten(tree0, outs)


def cond(pred, true_fn, false_fn, *operands):
    """Return ``true_fn(*operands)`` if `pred` else ``false_fn(*operands)``, with `pred` a traced value.

    Both branches are traced and must return the same pytree of shapes and dtypes. `pred` is a bool or
    integer scalar (nonzero = true). Differentiable in both modes and batchable (a batched `pred` computes
    both branches and selects per example).
    """
    return _switch(_branch_index(pred), (false_fn, true_fn), ("false_fn", "true_fn"), operands)


def switch(index, branches, *operands):
    """Return ``branches[index](*operands)``; `index` is an integer scalar, clamped into range."""
    branches = tuple(branches)
    if not branches:
        raise TransformError("switch: branches is empty; give at least one function")
    index = _as_scalar(index)
    aval = get_aval(index)
    if aval.shape != () or aval.dtype.kind not in "iu":
        raise DTypeError(f"switch: the index must be an integer scalar, got {aval.str_short()}")
    index = convert_element_type(index, new_dtype=dtypes.int32)
    index = clamp(Tensor(np.int32(0)), index, Tensor(np.int32(len(branches) - 1)))
    return _switch(index, branches, tuple(f"branch {i}" for i in range(len(branches))), operands)


# ---------------------------------------------------------------------------------------------- while

def _while_shape(*avals, cond_prog, body_prog, cond_nconsts, body_nconsts):
    cond_consts, body_consts, carry = _split(avals, cond_nconsts, body_nconsts)
    if cond_prog.in_avals != cond_consts + carry:
        raise ShapeError(f"while: cond takes {[a.str_short() for a in cond_prog.in_avals]} but gets "
                         f"{[a.str_short() for a in cond_consts + carry]}")
    if cond_prog.out_avals != [ShapedArray((), dtypes.bool_)]:
        raise DTypeError(f"while: cond must return one bool scalar, got {[a.str_short() for a in cond_prog.out_avals]}")
    if body_prog.in_avals != body_consts + carry or body_prog.out_avals != carry:
        raise ShapeError(f"while: body maps {[a.str_short() for a in body_prog.in_avals]} -> "
                         f"{[a.str_short() for a in body_prog.out_avals]} but the carry is "
                         f"{[a.str_short() for a in carry]}")
    return carry


def _while_impl(*args, cond_prog, body_prog, cond_nconsts, body_nconsts):
    cond_consts, body_consts, carry = _split([Tensor(a) for a in args], cond_nconsts, body_nconsts)
    while bool(eval_program(cond_prog, [], cond_consts + carry)[0]):
        carry = eval_program(body_prog, [], body_consts + carry)
    return [np.asarray(c) for c in carry]


@symbolic_zeros
def _while_jvp(primals, tangents, *, cond_prog, body_prog, cond_nconsts, body_nconsts):
    cond_consts, body_consts, carry = _split(primals, cond_nconsts, body_nconsts)
    _, body_consts_t, carry_t = _split(tangents, cond_nconsts, body_nconsts)
    consts_nz = [_is_nonzero(t, p) for p, t in zip(body_consts, body_consts_t)]
    carry_nz = [_is_nonzero(t, p) for p, t in zip(carry, carry_t)]
    while True:  # a carry's tangent is nonzero if it starts so or the body makes it so: iterate to a fixed point
        out_nz = jvp_program(body_prog, consts_nz + carry_nz)[1]
        grown = [a or b for a, b in zip(carry_nz, out_nz)]
        if grown == carry_nz:
            break
        carry_nz = grown
    if not any(carry_nz):
        return while_p.bind(*primals, cond_prog=cond_prog, body_prog=body_prog, cond_nconsts=cond_nconsts,
                            body_nconsts=body_nconsts), [None] * len(carry)
    jvp_body, _ = jvp_program(body_prog, consts_nz + carry_nz, instantiate_outputs=carry_nz)
    # jvp_body takes [consts, carry, consts', carry']; the loop wants [consts, consts', carry, carry'].
    nb, nk, ncz = len(body_consts), len(carry), sum(consts_nz)
    v_consts, v_carry, v_consts_t, v_carry_t = _split(jvp_body.in_vars, nb, nk, ncz)
    new_body = with_inputs(jvp_body, v_consts + v_consts_t + v_carry + v_carry_t)
    carry_t_avals = [get_aval(c) for c, nz in zip(carry, carry_nz) if nz]
    new_cond = with_inputs(cond_prog, list(cond_prog.in_vars) + unused_vars(carry_t_avals))
    live_consts_t = [instantiate(t) for t, nz in zip(body_consts_t, consts_nz) if nz]
    live_carry_t = [instantiate(t) for t, nz in zip(carry_t, carry_nz) if nz]
    outs = while_p.bind(*cond_consts, *body_consts, *live_consts_t, *carry, *live_carry_t, cond_prog=new_cond,
                        body_prog=new_body, cond_nconsts=cond_nconsts, body_nconsts=nb + ncz)
    primal_out, tangent_out = outs[:nk], iter(outs[nk:])
    if find_top_trace(live_consts_t + live_carry_t + primals).main is not find_top_trace(primals).main:
        # The tangents belong to a higher trace (linearize stages them), which took the joint loop's primal
        # outputs along; the trip count is not known ahead, so no residuals can be saved: run the primal loop
        # again on its own, so the primal outputs stay values of the primals' trace.
        primal_out = while_p.bind(*primals, cond_prog=cond_prog, body_prog=body_prog, cond_nconsts=cond_nconsts,
                                  body_nconsts=body_nconsts)
    return primal_out, [next(tangent_out) if nz else None for nz in carry_nz]


def _while_batch(vals, dims, *, cond_prog, body_prog, cond_nconsts, body_nconsts):
    size = batch_size(vals, dims)
    vals = [v if d is None else moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    cond_consts, body_consts, carry = _split(vals, cond_nconsts, body_nconsts)
    cond_dims, body_dims, carry_dims = _split([None if d is None else 0 for d in dims], cond_nconsts, body_nconsts)
    carry_batched = [d is not None for d in carry_dims]
    while True:  # a carry is batched if it starts so or the body makes it so
        out_dims = batch_program(body_prog, body_dims + [0 if b else None for b in carry_batched], size)[1]
        grown = [b or d is not None for b, d in zip(carry_batched, out_dims)]
        if grown == carry_batched:
            break
        carry_batched = grown
    pred_batched = batch_program(cond_prog, cond_dims + [0 if b else None for b in carry_batched], size)[1][0] == 0
    if pred_batched:
        carry_batched = [True] * len(carry)
    carry = [bdim_at_front(c, d, size) if b else c for c, d, b in zip(carry, carry_dims, carry_batched)]
    carry_dims = [0 if b else None for b in carry_batched]
    batched_body = batch_program(body_prog, body_dims + carry_dims, size, force_batched=carry_batched)[0]
    batched_cond = batch_program(cond_prog, cond_dims + carry_dims, size)[0]
    if not pred_batched:
        outs = while_p.bind(*cond_consts, *body_consts, *carry, cond_prog=batched_cond, body_prog=batched_body,
                            cond_nconsts=cond_nconsts, body_nconsts=body_nconsts)
        return outs, carry_dims
    # Lanes finish at different trips: loop while any lane runs; a finished lane keeps its carry.
    cond_avals, body_avals = batched_cond.in_avals, batched_body.in_avals
    nc, nb = cond_nconsts, body_nconsts

    def any_lane(*args):
        return [reduce_sum(eval_program(batched_cond, [], args)[0], axes=(0,))]

    def step_running_lanes(*args):
        cc, bc, old = _split(list(args), nc, nb)
        running = eval_program(batched_cond, [], cc + old)[0]
        new = eval_program(batched_body, [], bc + old)
        return [_lane_select(running, n, o) for n, o in zip(new, old)]

    outs = while_p.bind(*cond_consts, *cond_consts, *body_consts, *carry,
                        cond_prog=closed_program(any_lane, cond_avals, transform="vmap"),
                        body_prog=closed_program(step_running_lanes, cond_avals[:nc] + body_avals, transform="vmap"),
                        cond_nconsts=nc, body_nconsts=nc + nb)
    return outs, carry_dims


def _while_lower(ctx, *args, cond_prog, body_prog, cond_nconsts, body_nconsts):
    cond_consts, body_consts, carry = _split(list(args), cond_nconsts, body_nconsts)
    carry_avals = ctx.avals_out
    block = [ctx.fresh() for _ in carry]
    cond_region = _program_region(ctx, cond_prog, cond_consts + block)
    body_region = _program_region(ctx, body_prog, body_consts + block)
    binding, names = _results(ctx, len(carry))
    header = ", ".join(f"{b} = {c}" for b, c in zip(block, carry))
    ctx.line(f"{binding} = stablehlo.while({header}) : {_types(carry_avals)}")
    ctx.line(f"  cond {cond_region} do {body_region}")
    return names


while_p = Primitive(
    "while", shape_rule=_while_shape, impl=_while_impl, jvp=_while_jvp,
    transpose=unsupported("while_loop: reverse-mode differentiation (grad, vjp, jacrev) of a loop whose trip count "
                          "is only known at run time is not supported; use paddle_fn.scan, or paddle_fn.fori_loop "
                          "with concrete (Python int) bounds, which lowers to scan. Forward mode (jvp, jacfwd) works."),
    batch=_while_batch, lower=_while_lower, multiple_results=True, slow_op_by_op=True)


def while_loop(cond_fun, body_fun, init_val):
    """Repeat ``val = body_fun(val)`` while ``cond_fun(val)``; return the final `val` (any pytree).

    `cond_fun` returns a bool scalar; `body_fun` returns a value of the same structure, shapes and dtypes
    as `init_val`. Forward-mode differentiable and batchable; for reverse mode use `scan` or `fori_loop`
    with concrete bounds.
    """
    leaves, tree = tree_flatten(init_val)
    leaves = [_as_operand(x) for x in leaves]
    avals = [get_aval(x) for x in leaves]
    args_tree = tree_flatten((init_val,))[1]
    cond_prog, cond_consts, cond_tree = _trace(lambda *a: _as_scalar(cond_fun(*a)), args_tree, avals, "while_loop")
    if cond_tree.num_leaves != 1 or cond_prog.out_avals[0] != ShapedArray((), dtypes.bool_):
        raise DTypeError(f"while_loop: cond_fun must return a bool scalar, got "
                         f"{_describe(cond_tree, cond_prog.out_avals)}; compare (e.g. i < n) or reduce with .all()")
    loop_callbacks = LoopCallbacks()
    body_prog, body_consts, body_tree = _trace(body_fun, args_tree, avals, "while_loop", loop_callbacks)
    if body_tree != tree or body_prog.out_avals[:len(avals)] != avals:
        raise TransformError(f"while_loop: body_fun must return a value with the structure, shapes and dtypes of "
                             f"init_val {_describe(tree, avals)}, but it returns "
                             f"{_describe(body_tree, body_prog.out_avals[:body_tree.num_leaves])}; cast with "
                             ".astype() where dtypes differ")
    if loop_callbacks:
        return tree_unflatten(tree, _while_recording(cond_fun, init_val, leaves, body_prog, body_consts,
                                                     loop_callbacks))
    outs = while_p.bind(*cond_consts, *body_consts, *leaves, cond_prog=cond_prog, body_prog=body_prog,
                        cond_nconsts=len(cond_consts), body_nconsts=len(body_consts))
    return tree_unflatten(tree, outs)


def _while_recording(cond_fun, init_val, leaves, body_prog, body_consts, loop_callbacks):
    """A while loop whose body calls back: it also carries an iteration count and, for each value its callbacks
    take, a buffer of `config.debug_loop_capacity` rows that iteration i writes row i of; after the loop the
    callbacks replay the recorded rows. Returns the loop's final leaves."""
    capacity = config.debug_loop_capacity
    n = len(leaves)
    buffers = [Tensor(np.zeros((capacity,) + a.shape, a.dtype.np)) for a in body_prog.out_avals[n:]]
    zero = Tensor(np.zeros((), np.int32))

    def body(state):
        carry, count, bufs = state
        outs = eval_program(body_prog, body_consts, list(carry))
        recorded = lt(count, Tensor(np.asarray(capacity, np.int32)))
        bufs = [select(broadcast_in_dim(recorded, shape=get_aval(b).shape, broadcast_dimensions=()),
                       dynamic_update_slice(b, reshape(v, new_sizes=(1,) + get_aval(v).shape), count,
                                            *[zero] * get_aval(v).ndim), b)
                for b, v in zip(bufs, outs[n:])]
        return outs[:n], add(count, Tensor(np.ones((), np.int32))), bufs

    tree = tree_flatten(init_val)[1]
    carry, count, bufs = while_loop(lambda state: cond_fun(tree_unflatten(tree, list(state[0]))), body,
                                    (list(leaves), zero, buffers))
    loop_callbacks.replay(bufs, count=count, capacity=capacity)
    return carry


def fori_loop(lower, upper, body_fun, init_val):
    """Return the value of ``for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete bounds (Python ints, or Tensors with values) this is a `scan`, so reverse mode works;
    with traced bounds it is a `while_loop`. The counter `i` has the bounds' dtype (int64 for Python ints).
    """
    index_dtype = next((get_aval(b).dtype for b in (lower, upper) if not isinstance(b, int)), dtypes.int64)
    for b, what in ((lower, "lower"), (upper, "upper")):
        a = get_aval(b)
        if a.shape != () or a.dtype.kind not in "iu":
            raise DTypeError(f"fori_loop: {what} must be an integer scalar, got {a.str_short()}")
    one = Tensor(np.ones((), index_dtype.np))
    if is_concrete(lower) and is_concrete(upper):
        lo, hi = int(lower), int(upper)

        def step(carry, _):
            i, val = carry
            return (add(i, one), body_fun(i, val)), None

        (_, val), _ = scan(step, (Tensor(np.asarray(lo, index_dtype.np)), init_val), None, length=max(hi - lo, 0))
        return val
    lower = convert_element_type(lower, new_dtype=index_dtype)
    upper = convert_element_type(upper, new_dtype=index_dtype)
    _, _, val = while_loop(lambda c: lt(c[0], c[1]), lambda c: (add(c[0], one), c[1], body_fun(c[0], c[2])),
                           (lower, upper, init_val))
    return val


# ---------------------------------------------------------------------------------------------- scan

def _scan_shape(*avals, body, num_consts, num_carry, length, reverse, linear):
    consts, carry, xs = _split(avals, num_consts, num_carry)
    for x in xs:
        if x.ndim == 0 or x.shape[0] != length:
            raise ShapeError(f"scan: every xs operand must have leading dimension {length}, got {x.str_short()}")
    slices = [ShapedArray(x.shape[1:], x.dtype) for x in xs]
    if body.in_avals != consts + carry + slices:
        raise ShapeError(f"scan: body takes {[a.str_short() for a in body.in_avals]} but gets "
                         f"{[a.str_short() for a in consts + carry + slices]}")
    if body.out_avals[:num_carry] != carry:
        raise ShapeError(f"scan: body returns carry {[a.str_short() for a in body.out_avals[:num_carry]]} but the "
                         f"carry is {[a.str_short() for a in carry]}")
    return carry + [ShapedArray((length,) + y.shape, y.dtype) for y in body.out_avals[num_carry:]]


def _scan_impl(*args, body, num_consts, num_carry, length, reverse, linear):
    consts, carry, xs = _split([Tensor(a) for a in args], num_consts, num_carry)
    xs = [x.concrete_value() for x in xs]
    ys = []
    for i in (reversed(range(length)) if reverse else range(length)):
        outs = eval_program(body, [], consts + carry + [Tensor(x[i]) for x in xs])
        carry = outs[:num_carry]
        ys.append([np.asarray(y) for y in outs[num_carry:]])
    if reverse:
        ys.reverse()
    y_avals = body.out_avals[num_carry:]
    stacked = [np.stack([y[j] for y in ys]) if ys else np.zeros((0,) + a.shape, a.dtype.np)
               for j, a in enumerate(y_avals)]
    return [np.asarray(c) for c in carry] + stacked


@symbolic_zeros
def _scan_jvp(primals, tangents, *, body, num_consts, num_carry, length, reverse, linear):
    nc, nk = num_consts, num_carry
    n_in, n_out = len(primals), len(body.out_vars)
    nonzero = [_is_nonzero(t, p) for p, t in zip(primals, tangents)]
    consts_nz, carry_nz, xs_nz = _split(nonzero, nc, nk)
    while True:  # a carry's tangent is nonzero if it starts so or the body makes it so: iterate to a fixed point
        out_nz = jvp_program(body, consts_nz + carry_nz + xs_nz)[1]
        grown = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
        if grown == carry_nz:
            break
        carry_nz = grown
    nonzero = consts_nz + carry_nz + xs_nz
    known, lin, n_res, out_nz = linearize_program(body, nonzero,
                                                  instantiate_outputs=carry_nz + [False] * (n_out - nk))
    if not any(out_nz):
        return scan_p.bind(*primals, body=body, num_consts=nc, num_carry=nk, length=length, reverse=reverse,
                           linear=(False,) * n_in), [None] * n_out

    # Residuals vary per iteration and are stacked as extra ys of the known scan, except those that are a
    # const (passed to the linear scan as a const) or an x slice (the xs operand itself is passed).
    residuals = known.out_vars[n_out:]
    const_pos = {v: i for i, v in enumerate(known.in_vars[:nc])}
    xs_pos = {v: i for i, v in enumerate(known.in_vars[nc + nk:])}
    res_consts = [r for r in residuals if r in const_pos]
    res_xs = [r for r in residuals if r in xs_pos]
    res_stacked = [r for r in residuals if r not in const_pos and r not in xs_pos]
    known = dce_program(Program(known.in_vars, known.eqns, known.out_vars[:n_out] + tuple(res_stacked)))
    outs = scan_p.bind(*primals, body=known, num_consts=nc, num_carry=nk, length=length, reverse=reverse,
                       linear=(False,) * n_in)
    primal_out, stacked = outs[:n_out], outs[n_out:]

    consts, _, xs = _split(primals, nc, nk)
    t_consts, t_carry, t_xs = _split([instantiate(t) for t, nz in zip(tangents, nonzero) if nz],
                                     sum(consts_nz), sum(carry_nz))
    # The residual Vars are shared by known's outputs and lin's inputs, so lin's inputs can be reordered by them.
    lin_t_consts, lin_t_carry, lin_t_xs = _split(lin.in_vars[n_res:], len(t_consts), len(t_carry))
    lin_body = with_inputs(lin, res_consts + lin_t_consts + lin_t_carry + res_stacked + res_xs + lin_t_xs)
    lin_operands = ([consts[const_pos[r]] for r in res_consts] + t_consts + t_carry + stacked +
                    [xs[xs_pos[r]] for r in res_xs] + t_xs)
    lin_flags = ((False,) * len(res_consts) + (True,) * (len(t_consts) + len(t_carry)) +
                 (False,) * (len(stacked) + len(res_xs)) + (True,) * len(t_xs))
    tangent_out = iter(scan_p.bind(*lin_operands, body=lin_body, num_consts=len(res_consts) + len(t_consts),
                                   num_carry=len(t_carry), length=length, reverse=reverse, linear=lin_flags))
    return primal_out, [next(tangent_out) if nz else None for nz in out_nz]


def _scan_transpose(cts, *args, body, num_consts, num_carry, length, reverse, linear):
    nc, nk = num_consts, num_carry
    is_linear = [lin or is_undefined(a) for a, lin in zip(args, linear)]
    consts_lin, carry_lin, xs_lin = _split(is_linear, nc, nk)
    if not all(carry_lin):
        raise UnsupportedError("scan: cannot transpose a scan whose carry is not entirely linear (a carry that "
                               "mixes primal and tangent values); this is a bug in the rule that built the scan")
    consts, carry, xs = _split(list(args), nc, nk)
    ct_carry, ct_ys = cts[:nk], cts[nk:]
    res_consts = [c for c, lin in zip(consts, consts_lin) if not lin]
    res_xs = [x for x, lin in zip(xs, xs_lin) if not lin]
    lin_consts_avals = [a.aval if is_undefined(a) else get_aval(a) for a, lin in zip(consts, consts_lin) if lin]
    body_t = transpose_program(body, is_linear)  # [res consts, res x, ct carry, ct y] -> [ct consts, ct carry, ct x]

    n_rc, n_lc, n_rx = len(res_consts), len(lin_consts_avals), len(res_xs)

    def transposed_step(*a):
        rc, acc, ctc, rx, cty = _split(list(a), n_rc, n_lc, nk, n_rx)
        ct_lc, ct_c, ct_lx = _split(eval_program(body_t, [], rc + rx + ctc + cty), n_lc, nk)
        return [add(s, c) for s, c in zip(acc, ct_lc)] + ct_c + ct_lx

    slice_avals = [ShapedArray(get_aval(x).shape[1:], get_aval(x).dtype) for x in res_xs]
    step_avals = ([get_aval(c) for c in res_consts] + lin_consts_avals + body.out_avals[:nk] + slice_avals +
                  body.out_avals[nk:])
    step = closed_program(transposed_step, step_avals, transform="transpose")
    flags = (False,) * n_rc + (True,) * (n_lc + nk) + (False,) * n_rx + (True,) * len(ct_ys)
    outs = scan_p.bind(*res_consts, *[zeros_like_aval(a) for a in lin_consts_avals], *ct_carry, *res_xs, *ct_ys,
                       body=step, num_consts=n_rc, num_carry=n_lc + nk, length=length, reverse=not reverse,
                       linear=flags)
    ct_consts, ct_init, ct_xs = _split(outs, n_lc, nk)
    ct_consts, ct_xs = iter(ct_consts), iter(ct_xs)
    return ([next(ct_consts) if lin else None for lin in consts_lin] +
            [ct if is_undefined(c) else None for c, ct in zip(carry, ct_init)] +
            [next(ct_xs) if lin else None for lin in xs_lin])


def _scan_batch(vals, dims, *, body, num_consts, num_carry, length, reverse, linear):
    nc, nk = num_consts, num_carry
    size = batch_size(vals, dims)
    consts, carry, xs = _split(vals, nc, nk)
    consts_d, carry_d, xs_d = _split(dims, nc, nk)
    in_consts = [None if d is None else 0 for d in consts_d]
    in_xs = [None if d is None else 0 for d in xs_d]
    carry_batched = [d is not None for d in carry_d]
    while True:  # a carry is batched if it starts so or the body makes it so
        out_dims = batch_program(body, in_consts + [0 if b else None for b in carry_batched] + in_xs, size)[1]
        grown = [b or d is not None for b, d in zip(carry_batched, out_dims[:nk])]
        if grown == carry_batched:
            break
        carry_batched = grown
    in_carry = [0 if b else None for b in carry_batched]
    n_ys = len(body.out_vars) - nk
    batched_body, out_dims = batch_program(body, in_consts + in_carry + in_xs, size,
                                           force_batched=carry_batched + [False] * n_ys)
    consts = [c if d is None else moveaxis(c, d, 0) for c, d in zip(consts, consts_d)]
    carry = [bdim_at_front(c, d, size) if b else c for c, d, b in zip(carry, carry_d, carry_batched)]
    xs = [x if d is None else moveaxis(x, d, 1) for x, d in zip(xs, xs_d)]  # axis 0 stays the scanned one
    outs = scan_p.bind(*consts, *carry, *xs, body=batched_body, num_consts=nc, num_carry=nk, length=length,
                       reverse=reverse, linear=linear)
    return outs, in_carry + [None if d is None else 1 for d in out_dims[nk:]]


def _scan_lower(ctx, *args, body, num_consts, num_carry, length, reverse, linear):
    if not ctx.avals_out:
        return []
    consts, carry, xs = _split(list(args), num_consts, num_carry)
    xs_avals = ctx.avals_in[num_consts + num_carry:]
    carry_avals, ys_avals = ctx.avals_out[:num_carry], ctx.avals_out[num_carry:]
    loop_avals = [_I32] + carry_avals + ys_avals
    init = [ctx.constant(0, _I32)] + carry + [ctx.constant(0, a) for a in ys_avals]
    block = [ctx.fresh() for _ in loop_avals]
    counter, carry_block, ys_block = block[0], block[1:1 + num_carry], block[1 + num_carry:]

    def emit_cond():
        limit = ctx.constant(length, _I32)
        running = ctx.fresh()
        ctx.line(f"{running} = stablehlo.compare LT, {counter}, {limit}, SIGNED : "
                 f"({tensor_type(_I32)}, {tensor_type(_I32)}) -> tensor<i1>")
        return [running], [ShapedArray((), dtypes.bool_)]

    def emit_body():
        if reverse:
            last = ctx.constant(length - 1, _I32)
            index = ctx.op("stablehlo.subtract", [last, counter], _I32, in_avals=[_I32, _I32])
        else:
            index = counter
        zero = ctx.constant(0, _I32)
        slices = []
        for x, a in zip(xs, xs_avals):
            row = a.update(shape=(1,) + a.shape[1:])
            starts = [index] + [zero] * (a.ndim - 1)
            s = ctx.op("stablehlo.dynamic_slice", [x] + starts, row, attrs=f", sizes = {list(row.shape)}",
                       in_avals=[a] + [_I32] * a.ndim, sep="")
            slices.append(ctx.op("stablehlo.reshape", [s], a.update(shape=a.shape[1:]), in_avals=[row]))
        outs = ctx.inline(body, consts + carry_block + slices)
        new_ys = []
        for buf, y, a in zip(ys_block, outs[num_carry:], ys_avals):
            row = a.update(shape=(1,) + a.shape[1:])
            y_row = ctx.op("stablehlo.reshape", [y], row, in_avals=[a.update(shape=a.shape[1:])])
            starts = [index] + [zero] * (a.ndim - 1)
            new_ys.append(ctx.op("stablehlo.dynamic_update_slice", [buf, y_row] + starts, a,
                                 in_avals=[a, row] + [_I32] * a.ndim))
        one = ctx.constant(1, _I32)
        next_counter = ctx.op("stablehlo.add", [counter, one], _I32, in_avals=[_I32, _I32])
        return [next_counter] + outs[:num_carry] + new_ys, loop_avals

    cond_region = _region(ctx, emit_cond)
    body_region = _region(ctx, emit_body)
    binding, names = _results(ctx, len(loop_avals))
    header = ", ".join(f"{b} = {v}" for b, v in zip(block, init))
    ctx.line(f"{binding} = stablehlo.while({header}) : {_types(loop_avals)}")
    ctx.line(f"  cond {cond_region} do {body_region}")
    return names[1:]


scan_p = Primitive("scan", shape_rule=_scan_shape, impl=_scan_impl, jvp=_scan_jvp, transpose=_scan_transpose,
                   batch=_scan_batch, lower=_scan_lower, multiple_results=True)


def scan(f, init, xs, length=None, reverse=False):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of `xs`; return ``(carry, ys)`` with ys stacked.

    `init`, `xs` and the results may be pytrees; `xs=None` scans `length` times with ``x = None``. With
    ``reverse=True`` the loop runs from the last slice to the first (ys keep their positions).
    Differentiable in both modes (reverse mode runs a scan backwards over the transposed body) and batchable.
    """
    carry_leaves, carry_tree = tree_flatten(init)
    carry_leaves = [_as_operand(x) for x in carry_leaves]
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [_as_operand(x) for x in x_leaves]
    x_avals = [get_aval(x) for x in x_leaves]
    lengths = {a.shape[0] if a.ndim else None for a in x_avals}
    if None in lengths:
        raise ShapeError(f"scan: every leaf of xs must have a leading axis to scan over, got "
                         f"{_describe(x_tree, x_avals)}")
    if length is not None:
        lengths.add(int(length))
    if not lengths:
        raise TransformError("scan: xs is None (or has no leaves), so the number of steps is unknown; pass length=")
    if len(lengths) != 1:
        raise ShapeError(f"scan: the leading axes of xs and `length` disagree: xs is {_describe(x_tree, x_avals)}"
                         + (f" and length={length}" if length is not None else "") +
                         "; give every xs leaf the same leading size")
    (length,) = lengths
    carry_avals = [get_aval(c) for c in carry_leaves]
    slice_avals = [ShapedArray(a.shape[1:], a.dtype) for a in x_avals]
    out_trees = []
    loop_callbacks = LoopCallbacks()  # host callbacks' values: extra ys, replayed after the scan

    def flat_step(*leaves):
        carry = tree_unflatten(carry_tree, list(leaves[:len(carry_leaves)]))
        x = tree_unflatten(x_tree, list(leaves[len(carry_leaves):]))
        out = f(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            got = "a single Tensor" if isinstance(out, Tensor) else type(out).__name__
            raise TransformError(f"scan: f must return a pair (new_carry, y), got {got}")
        new_carry, new_tree = tree_flatten(out[0])
        y, y_tree = tree_flatten(out[1])
        out_trees.append((new_tree, y_tree))
        return new_carry + y + loop_callbacks.values()

    body, consts = trace_to_program(flat_step, carry_avals + slice_avals, transform="scan", dynamic=True,
                                    callbacks=loop_callbacks.staged)
    new_tree, y_tree = out_trees[0]
    if new_tree != carry_tree or body.out_avals[:len(carry_leaves)] != carry_avals:
        raise TransformError(f"scan: f must return a carry with the structure, shapes and dtypes of init "
                             f"{_describe(carry_tree, carry_avals)}, but it returns "
                             f"{_describe(new_tree, body.out_avals[:new_tree.num_leaves])}; cast with .astype() "
                             "where dtypes differ")
    operands = list(consts) + carry_leaves + x_leaves
    outs = scan_p.bind(*operands, body=body, num_consts=len(consts), num_carry=len(carry_leaves), length=length,
                       reverse=bool(reverse), linear=(False,) * len(operands))
    ys = outs[len(carry_leaves):len(carry_leaves) + y_tree.num_leaves]
    if loop_callbacks:
        loop_callbacks.replay(outs[len(carry_leaves) + y_tree.num_leaves:], length=length, reverse=bool(reverse))
    return tree_unflatten(carry_tree, outs[:len(carry_leaves)]), tree_unflatten(y_tree, ys)
