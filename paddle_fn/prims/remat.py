"""checkpoint / remat: differentiate a function without keeping its intermediate values for the backward pass.

`checkpoint(f)` traces `f` to a Program held by the primitive `checkpoint`. Its JVP rule computes the outputs
and emits `remat_lin`, linear in the tangents, whose residuals are the inputs only (and, under a policy, the
values the policy saves). Reverse mode transposes `remat_lin` by linearizing the Program again at the inputs: the
forward computation runs a second time, inside the backward pass, instead of its intermediates staying alive
between the passes. Forward mode evaluates `remat_lin` as the JVP of the Program.

A policy says which intermediates to keep anyway (JAX's ``jax.checkpoint_policies``): `nothing_saveable`
(recompute everything, the default), `dots_saveable` (keep the matrix products' results: recomputing skips them
and the cheap elementwise work around them is redone), `everything_saveable` (plain differentiation).
"""
from __future__ import annotations

import functools

from paddle_fn.core.autodiff import JVPTracer, Zero, instantiate, is_undefined, jvp_flat, linearize_flat
from paddle_fn.core.batching import batch_size, bdim_at_front, vmap_flat
from paddle_fn.core.errors import UnsupportedError
from paddle_fn.core.ir import Literal
from paddle_fn.core.primitive import NONLINEAR, Primitive
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims.custom_derivatives import _leaf
from paddle_fn.prims.elementwise import add
from paddle_fn.prims.structural import optimization_barrier


# ---------------------------------------------------------------------------------------------- policies

def nothing_saveable(prim) -> bool:
    """Recompute every intermediate value in the backward pass (the default policy)."""
    return False


def everything_saveable(prim) -> bool:
    """Keep every intermediate value (no recomputation: the same as not using checkpoint)."""
    return True


def dots_saveable(prim) -> bool:
    """Keep the results of matrix products (``dot_general``), recompute the rest."""
    return prim.name == "dot_general"


checkpoint_dots = dots_saveable  # JAX's other name for it


# ---------------------------------------------------------------------------------------------- evaluation

def _eval(prog, args, saved=None, policy=nothing_saveable):
    """Evaluate `prog`; the outputs of the equations `policy` saves come from `saved` (a list, in program order)
    when given, else they are collected into a list returned second."""
    env = dict(zip(prog.in_vars, args))
    collected = [] if saved is None else None
    saved = iter(saved or ())

    def read(v):
        return Tensor(v.val) if isinstance(v, Literal) else env[v]

    for eqn in prog.eqns:
        ins = [read(v) for v in eqn.inputs]
        if collected is None and policy(eqn.prim):
            outs = _with_saved_primals(eqn, ins, next(saved))
        else:
            outs = eqn.prim.bind(*ins, **eqn.params)
            outs = outs if eqn.prim.multiple_results else [outs]
            if collected is not None and policy(eqn.prim):
                collected.append(outs)
        env.update(zip(eqn.outputs, outs))
    return [read(v) for v in prog.out_vars], collected


def _with_saved_primals(eqn, ins, saved_outs):
    """The equation's outputs when its primal results were saved: under the JVP trace of a recomputation only the
    tangents are computed (a bilinear product's two terms), the primal products are not redone."""
    tracers = [x for x in ins if isinstance(x, JVPTracer)]
    if not tracers:
        return saved_outs
    if not eqn.prim.bilinear:  # no way to get its tangent without its primal: computed again
        outs = eqn.prim.bind(*ins, **eqn.params)
        return outs if eqn.prim.multiple_results else [outs]
    trace = tracers[0]._trace
    ins = [trace.full_raise(x) for x in ins]
    x, y = ins
    terms = []
    if not isinstance(x.tangent, Zero):
        terms.append(eqn.prim.bind(x.tangent, y.primal, **eqn.params))
    if not isinstance(y.tangent, Zero):
        terms.append(eqn.prim.bind(x.primal, y.tangent, **eqn.params))
    if not terms:
        return saved_outs
    tangent = terms[0] if len(terms) == 1 else add(*terms)
    return [JVPTracer(trace, saved_outs[0], tangent)]


# ---------------------------------------------------------------------------------------------- checkpoint

def _checkpoint_impl(*vals, prog, policy, prevent_cse):
    return [o.concrete_value() for o in _eval(prog, [Tensor(v) for v in vals])[0]]


def _checkpoint_jvp(primals, tangents, *, prog, policy, prevent_cse):
    outs, saved = _eval(prog, list(primals), policy=policy)
    saved_flat = [o for outs_of_eqn in saved for o in outs_of_eqn]
    t_outs = remat_lin_p.bind(*primals, *saved_flat, *[instantiate(t) for t in tangents], prog=prog, policy=policy,
                              prevent_cse=prevent_cse, num_saved=len(saved_flat))
    return outs, t_outs


def _batched(prog, vals, dims):
    size = batch_size(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    n_out = len(prog.out_vars)
    batched, consts = trace_to_program(
        lambda *xs: vmap_flat(lambda *ys: eval_program(prog, [], ys), list(xs), [0] * len(xs), size, [0] * n_out),
        [get_aval(v) for v in vals], transform="vmap")
    return batched, consts, vals


def _checkpoint_batch(vals, dims, *, prog, policy, prevent_cse):
    batched, consts, vals = _batched(prog, vals, dims)
    outs = checkpoint_p.bind(*consts, *vals, prog=batched, policy=policy, prevent_cse=prevent_cse)
    return outs, [0] * len(outs)


def _inline(ctx, *args, prog, **_):
    return ctx.inline(prog, list(args))


checkpoint_p = Primitive("checkpoint", shape_rule=lambda *avals, prog, **_: prog.out_avals, impl=_checkpoint_impl,
                         jvp=_checkpoint_jvp, transpose=NONLINEAR, batch=_checkpoint_batch, lower=_inline,
                         multiple_results=True)


# ---------------------------------------------------------------------------------------------- remat_lin

def _split(args, prog, num_saved):
    n = len(prog.in_vars)
    return list(args[:n]), list(args[n:n + num_saved]), list(args[n + num_saved:])


def _regroup(prog, policy, flat):
    """The flat saved values grouped per saved equation, as `_eval` consumes them."""
    it = iter(flat)
    return [[next(it) for _ in eqn.outputs] for eqn in prog.eqns if policy(eqn.prim)]


def _tangents_of(prog, policy, primals, saved, tangents):
    return jvp_flat(lambda *xs: _eval(prog, list(xs), _regroup(prog, policy, saved), policy)[0], primals, tangents,
                    transform="remat")[1]


def _remat_lin_impl(*vals, prog, policy, prevent_cse, num_saved):
    primals, saved, tangents = _split([Tensor(v) for v in vals], prog, num_saved)
    return [t.concrete_value() for t in _tangents_of(prog, policy, primals, saved, tangents)]


def _remat_lin_jvp(primals, tangents, *, prog, policy, prevent_cse, num_saved):
    # second order (a Hessian): differentiate the tangent computation itself, without rematerializing it
    return jvp_flat(_tangent_map(prog, policy, num_saved), list(primals), [instantiate(t) for t in tangents],
                    transform="remat")


def _remat_lin_transpose(cts, *args, prog, policy, prevent_cse, num_saved):
    primals, saved, tangents = _split(args, prog, num_saved)
    if any(is_undefined(x) for x in primals + saved):
        raise UnsupportedError("remat_lin: the inputs of a checkpointed function cannot be linear")
    if prevent_cse:  # keep the compiler from merging the recomputation with the forward pass it repeats
        primals = [optimization_barrier(p) for p in primals]
    _, lin = linearize_flat(lambda *xs: _eval(prog, list(xs), _regroup(prog, policy, saved), policy)[0], primals,
                            transform="remat")
    in_cts = lin.transpose([instantiate(c) for c in cts])
    return [None] * (len(primals) + len(saved)) + [None if isinstance(c, Zero) else c for c in in_cts]


def _tangent_map(prog, policy, num_saved):
    """The tangent outputs as a function of (inputs, saved values, tangents): remat_lin's meaning, unrematerialized."""
    def tangent_map(*args):
        p, s, t = _split(args, prog, num_saved)
        return _tangents_of(prog, policy, p, s, t)
    return tangent_map


def _remat_lin_batch(vals, dims, *, prog, policy, prevent_cse, num_saved):
    # forward mode under vmap: computed as it is meant (nothing is kept for a backward pass here)
    size = batch_size(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    n_out = len(prog.out_vars)
    outs = vmap_flat(_tangent_map(prog, policy, num_saved), vals, [0] * len(vals), size, [0] * n_out)
    return outs, [0] * n_out


def _remat_lin_lower(ctx, *args, prog, policy, prevent_cse, num_saved):
    tangent_prog, consts = trace_to_program(_tangent_map(prog, policy, num_saved), list(ctx.avals_in), transform="remat")
    assert not consts
    return ctx.inline(tangent_prog, list(args))


remat_lin_p = Primitive("remat_lin", shape_rule=lambda *avals, prog, **_: prog.out_avals, impl=_remat_lin_impl,
                        jvp=_remat_lin_jvp, transpose=_remat_lin_transpose, batch=_remat_lin_batch,
                        lower=_remat_lin_lower, multiple_results=True)


# ---------------------------------------------------------------------------------------------- the decorator

def checkpoint(fun=None, *, prevent_cse=True, policy=None, static_argnums=()):
    """`fun` whose intermediate values are recomputed in the backward pass instead of being kept (``jax.checkpoint``,
    also named ``remat``): less memory between the forward and backward passes for one more forward computation.
    Works under grad, vjp, jvp, vmap and jit, nested in any order.

    Args:
        fun: the function (pytrees of Tensors in and out); ``@checkpoint`` and ``@checkpoint(policy=...)`` both work.
        prevent_cse: keep the compiler from merging the recomputation with the forward pass (as JAX's).
        policy: which intermediates to keep anyway: `nothing_saveable` (default), `dots_saveable`,
            `everything_saveable` (``paddle_fn.checkpoint_policies``).
        static_argnums: arguments passed through as Python values (not traced).

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.checkpoint
        ... def block(x):
        ...     return paddle.sin(paddle.sin(x))
        >>> round(paddle.grad(block)(paddle.to_tensor(0.5)).item(), 5)
        0.77864
    """
    if fun is None:
        return functools.partial(checkpoint, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)
    policy = nothing_saveable if policy is None else policy
    if policy is everything_saveable:  # nothing to recompute: plain differentiation
        return fun
    statics = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums)

    @functools.wraps(fun)
    def rematerialized(*args):
        dyn = [a for i, a in enumerate(args) if i not in statics]
        leaves, in_tree = tree_flatten(dyn)
        vals = [_leaf(x) for x in leaves]
        store = {}

        def flat(*xs):
            it = iter(tree_unflatten(in_tree, list(xs)))
            out = fun(*[a if i in statics else next(it) for i, a in enumerate(args)])
            out_leaves, store["tree"] = tree_flatten(out)
            return [_leaf(o) for o in out_leaves]

        prog, consts = trace_to_program(flat, [get_aval(v) for v in vals], transform="checkpoint")
        # closed-over Tensors (a Layer's parameters) are inputs like the arguments: they are differentiated too
        outs = checkpoint_p.bind(*consts, *vals, prog=prog, policy=policy, prevent_cse=bool(prevent_cse))
        return tree_unflatten(store["tree"], outs)

    return rematerialized


remat = checkpoint
