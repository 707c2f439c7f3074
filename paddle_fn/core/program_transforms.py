"""Transformations of whole `Program`s: JVP, partial evaluation, transposition, batching, dead-code removal.

Control-flow primitives hold their bodies as Programs, so their JVP, transpose and batching rules transform
those bodies rather than Python functions. Every helper here re-traces the program under the matching
interpreter (`eval_program` under a JVP / batching trace, or `backward_pass`) into a new closed Program:
constants the trace captured are folded in as Literals, so results can be stored in primitive params.
"""
from __future__ import annotations


from paddle_fn.core.autodiff import Zero, backward_pass, instantiate, is_differentiable, jvp_flat
from paddle_fn.core.batching import BatchTrace, BatchTracer, bdim_at_front, not_mapped
from paddle_fn.core.ir import Literal, Program, ShapedArray, Var
from paddle_fn.core.staging import dce_program, eval_program, trace_to_program
from paddle_fn.core.trace import Tracer, new_main


def closed_program(fun, in_avals, *, transform: str) -> Program:
    """Trace `fun(*tracers) -> list` into a Program whose captured constants are inlined as Literals."""
    prog, consts = trace_to_program(fun, in_avals, transform=transform, dynamic=True)
    if not consts:
        return prog
    if any(isinstance(c, Tracer) for c in consts):
        raise AssertionError(f"{transform}: a program transformation captured a traced value; the program being "
                             "transformed is not closed")
    n = len(consts)
    literals = {v: Literal(c.concrete_value(), v.aval) for v, c in zip(prog.in_vars[:n], consts)}
    return _substitute(Program(prog.in_vars[n:], prog.eqns, prog.out_vars), literals)


def _substitute(prog: Program, mapping) -> Program:
    def sub(x):
        return mapping.get(x, x) if isinstance(x, Var) else x
    eqns = tuple(e.with_inputs(sub(x) for x in e.inputs) for e in prog.eqns)
    return Program(prog.in_vars, eqns, tuple(sub(x) for x in prog.out_vars))


def _per_output(flag, n):
    return [flag] * n if isinstance(flag, bool) else list(flag)


def with_inputs(prog: Program, in_vars) -> Program:
    """`prog` with its inputs replaced by `in_vars`: a reordering of them, possibly with extra unused Vars."""
    return Program(tuple(in_vars), prog.eqns, prog.out_vars)


def unused_vars(avals) -> list:
    return [Var(a) for a in avals]


# ----------------------------------------------------------------------------------------------- JVP

def jvp_program(prog: Program, nonzero_tangents, instantiate_outputs=False):
    """The JVP of `prog`: inputs [*primals, *tangents of the nonzero inputs] -> [*primal outs, *nonzero tangents].

    A tangent is treated as zero where `nonzero_tangents` is False or the input is not floating point.
    `instantiate_outputs` (bool or one per output) forces zero output tangents to be materialised.
    Returns (jvp_program, out_nonzero).
    """
    in_avals = prog.in_avals
    nonzero = [bool(nz) and is_differentiable(a) for nz, a in zip(nonzero_tangents, in_avals)]
    force = _per_output(instantiate_outputs, len(prog.out_vars))
    out_nonzero: list = []

    def jvp_fun(*args):
        primals, tangents = list(args[:len(in_avals)]), iter(args[len(in_avals):])
        tangents_in = [next(tangents) if nz else Zero(a) for a, nz in zip(in_avals, nonzero)]
        p_out, t_out = jvp_flat(lambda *xs: eval_program(prog, [], xs), primals, tangents_in,
                                instantiate_zeros=False)
        out_nonzero[:] = [is_differentiable(a) and (f or not isinstance(t, Zero))
                          for a, t, f in zip(prog.out_avals, t_out, force)]
        return p_out + [instantiate(t) for t, nz in zip(t_out, out_nonzero) if nz]

    tangent_avals = [a for a, nz in zip(in_avals, nonzero) if nz]
    return closed_program(jvp_fun, in_avals + tangent_avals, transform="jvp"), out_nonzero


# ----------------------------------------------------------------------------------------------- partial eval

def partial_eval_program(prog: Program, unknown_inputs, instantiate_outputs=False):
    """Split `prog` into what can run now (the known inputs) and what must wait for the unknown inputs.

    Returns (known_prog, unknown_prog, num_residuals, out_unknowns):
      known_prog:   known inputs -> [*known outputs, *residuals]
      unknown_prog: [*residuals, *unknown inputs] -> unknown outputs
    An equation is unknown when any of its inputs is. `instantiate_outputs` (bool or one per output) makes
    a known output unknown (it is passed through as a residual). Applied to a JVP program with the tangents
    unknown, unknown_prog is the linear part: every equation in it is linear in the tangents.
    """
    unknown = {v for v, u in zip(prog.in_vars, unknown_inputs) if u}
    known_eqns, unknown_eqns = [], []
    for eqn in prog.eqns:
        if any(isinstance(v, Var) and v in unknown for v in eqn.inputs):
            unknown.update(eqn.outputs)
            unknown_eqns.append(eqn)
        else:
            known_eqns.append(eqn)
    force = _per_output(instantiate_outputs, len(prog.out_vars))
    out_unknowns = [f or (isinstance(v, Var) and v in unknown) for v, f in zip(prog.out_vars, force)]

    residuals: dict = {}  # ordered set of known Vars the unknown side reads
    for eqn in unknown_eqns:
        residuals.update((v, None) for v in eqn.inputs if isinstance(v, Var) and v not in unknown)
    residuals.update((v, None) for v, u in zip(prog.out_vars, out_unknowns)
                     if u and isinstance(v, Var) and v not in unknown)
    residuals = list(residuals)

    known_prog = Program(tuple(v for v, u in zip(prog.in_vars, unknown_inputs) if not u), tuple(known_eqns),
                         tuple(v for v, u in zip(prog.out_vars, out_unknowns) if not u) + tuple(residuals))
    unknown_prog = Program(tuple(residuals) + tuple(v for v, u in zip(prog.in_vars, unknown_inputs) if u),
                           tuple(unknown_eqns), tuple(v for v, u in zip(prog.out_vars, out_unknowns) if u))
    return dce_program(known_prog), dce_program(unknown_prog), len(residuals), out_unknowns


def linearize_program(prog: Program, nonzero_tangents, instantiate_outputs=False):
    """JVP `prog`, then split the JVP into a known part (run on the primals) and a linear part (on the tangents).

    Returns (known, linear, num_residuals, out_nonzero):
      known:  primals -> [*primal outputs, *residuals]
      linear: [*residuals, *nonzero input tangents] -> nonzero output tangents (linear in the tangents)
    `nonzero_tangents` and `instantiate_outputs` are those of `jvp_program`; every nonzero output tangent is an
    output of `linear`, even one that does not depend on the input tangents.
    """
    jvp_prog, out_nonzero = jvp_program(prog, nonzero_tangents, instantiate_outputs=instantiate_outputs)
    n_in, n_tangents = len(prog.in_vars), len(jvp_prog.in_vars) - len(prog.in_vars)
    known, linear, n_res, _ = partial_eval_program(
        jvp_prog, [False] * n_in + [True] * n_tangents,
        instantiate_outputs=[False] * len(prog.out_vars) + [True] * sum(out_nonzero))
    return known, linear, n_res, out_nonzero


# ----------------------------------------------------------------------------------------------- transpose

def transpose_program(linear_prog: Program, linear_inputs) -> Program:
    """The transpose of a program linear in the inputs marked by `linear_inputs`.

    The result maps [*non-linear inputs, *output cotangents] -> [cotangent of each linear input] (zeros where
    an input does not reach any output).
    """
    nonlinear_vars = [v for v, lin in zip(linear_prog.in_vars, linear_inputs) if not lin]
    linear_vars = [v for v, lin in zip(linear_prog.in_vars, linear_inputs) if lin]
    reordered = with_inputs(linear_prog, nonlinear_vars + linear_vars)
    n_nonlinear = len(nonlinear_vars)

    def transposed(*args):
        cts_in = backward_pass(reordered, list(args[:n_nonlinear]), list(args[n_nonlinear:]))
        return [instantiate(ct) for ct in cts_in]

    in_avals = [v.aval for v in nonlinear_vars] + linear_prog.out_avals
    return closed_program(transposed, in_avals, transform="transpose")


# ----------------------------------------------------------------------------------------------- batching

def batch_program(prog: Program, in_dims, axis_size: int, force_batched=False):
    """Vectorise `prog` over a batch axis: input i is batched along in_dims[i] (None = not batched).

    Batched outputs come out with their batch axis at 0; `force_batched` (bool or one per output) also
    broadcasts unbatched outputs. Returns (batched_program, out_dims) with out_dims[i] in (0, None).
    """
    force = _per_output(force_batched, len(prog.out_vars))
    out_dims: list = []

    def batched(*args):
        with new_main(BatchTrace, {"axis_size": axis_size, "axis_name": None}, transform="vmap") as main:
            trace = BatchTrace(main)
            ins = [x if d is not_mapped else BatchTracer(trace, x, d) for x, d in zip(args, in_dims)]
            outs = [trace.full_raise(o) for o in eval_program(prog, [], ins)]
            results = []
            out_dims.clear()
            for o, f in zip(outs, force):
                if o.batch_dim is not_mapped and not f:
                    results.append(o.val)
                    out_dims.append(not_mapped)
                else:
                    results.append(bdim_at_front(o.val, o.batch_dim, axis_size))
                    out_dims.append(0)
        return results

    in_avals = [a if d is not_mapped else _insert_axis(a, d, axis_size) for a, d in zip(prog.in_avals, in_dims)]
    return closed_program(batched, in_avals, transform="vmap"), out_dims


def _insert_axis(aval: ShapedArray, axis: int, size: int) -> ShapedArray:
    shape = list(aval.shape)
    shape.insert(axis, size)
    return ShapedArray(shape, aval.dtype)
