"""Forward mode (JVP trace), linearize (JVP with staged tangents) and transposition of linear programs.

Reverse mode is linearize + transpose: `linearize_flat` runs the function on JVP tracers whose tangents are
staged into a linear `Program`, while primal values stay concrete (eagerly) or belong to the enclosing
transform. `backward_pass` evaluates the transposed program, calling each linear primitive's transpose
rule; the rules call public ops, so the transposition is itself differentiable (grad of grad).

`add` and `zeros` come from the primitive layer through `paddle_fn.core.hooks` (core may not import it).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import UnsupportedError
from paddle_fn.core.hooks import OPS
from paddle_fn.core.ir import Literal, Program, ShapedArray, Var
from paddle_fn.core.primitive import LINEAR, NONLINEAR, ZERO_TANGENT, unsupported
from paddle_fn.core.staging import (ProgramBuilder, StagingTrace, attribute_to, eval_program, restore_attribution,
                                    scope_of)
from paddle_fn.core.trace import Tensor, Trace, Tracer, bind, get_aval, new_main

def add_any(a, b):
    return OPS["add"](a, b)


def zeros_like_aval(aval: ShapedArray):
    return OPS["zeros"](aval.shape, aval.dtype)


def is_differentiable(aval: ShapedArray) -> bool:
    return aval.dtype.kind in "fc"


class Zero:
    """A symbolic zero tangent/cotangent of a given abstract value."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"Zero({self.aval.str_short()})"


def instantiate(t, aval=None):
    if isinstance(t, Zero):
        return zeros_like_aval(t.aval)
    return t


# ----------------------------------------------------------------------------------------------- JVP

class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace, primal, tangent):
        super().__init__(trace)
        self.primal = primal
        self.tangent = tangent

    @property
    def _own_aval(self):
        return get_aval(self.primal)

    def _own_concrete_value(self):
        p = self.primal
        return p.concrete_value() if isinstance(p, Tensor) else np.asarray(p)


class JVPTrace(Trace):
    def pure(self, val):
        return JVPTracer(self, val, Zero(get_aval(val)))

    lift = pure

    def process_primitive(self, prim, tracers, params):
        primals = [t.primal for t in tracers]
        tangents = [t.tangent for t in tracers]
        rule = prim.jvp
        if rule is ZERO_TANGENT or all(isinstance(t, Zero) for t in tangents):
            outs = bind(prim, *primals, **params)
            outs = outs if prim.multiple_results else [outs]
            return [JVPTracer(self, o, Zero(get_aval(o))) for o in outs]
        if isinstance(rule, unsupported):
            rule()
        if getattr(rule, "symbolic_zeros", False):
            p_out, t_out = rule(primals, tangents, **params)
        elif rule is LINEAR:
            p_out = bind(prim, *primals, **params)
            # integer operands of a linear primitive (indices, sizes) are not linear inputs: pass them unchanged
            t_out = bind(prim, *[instantiate(t) if is_differentiable(get_aval(p)) else p
                                 for p, t in zip(primals, tangents)], **params)
        else:
            p_out, t_out = rule(primals, [instantiate(t) for t in tangents], **params)
        if not prim.multiple_results:
            p_out, t_out = [p_out], [t_out]
        res = []
        for p, t in zip(p_out, t_out):
            aval = get_aval(p)
            if t is None or isinstance(t, Zero) or not is_differentiable(aval):
                t = Zero(aval)
            res.append(JVPTracer(self, p, t))
        return res


def jvp_flat(fun, primals, tangents, *, instantiate_zeros=True, transform="jvp"):
    """Push tangents through `fun(*primals) -> list`; returns (primals_out, tangents_out)."""
    with new_main(JVPTrace, transform=transform) as main:
        trace = JVPTrace(main)
        ins = [JVPTracer(trace, p, t) for p, t in zip(primals, tangents)]
        outs = [trace.full_raise(o) for o in fun(*ins)]
        p_out = [o.primal for o in outs]
        t_out = [o.tangent for o in outs]
    if instantiate_zeros:
        t_out = [instantiate(t) for t in t_out]
    return p_out, t_out


# ----------------------------------------------------------------------------------------------- linearize

class LinearFunction:
    """The staged tangent map of `linearize`: a linear `Program` plus its constants (primal residuals)."""

    def __init__(self, program: Program, consts, in_avals, out_avals, zero_in, zero_out):
        self.program = program
        self.consts = consts
        self.in_avals = in_avals      # avals of all tangent inputs (float primals)
        self.out_avals = out_avals
        self.zero_in = zero_in        # inputs that are not differentiable (ints): tangent ignored
        self.zero_out = zero_out      # outputs whose tangent is identically zero

    def __call__(self, *tangents):
        live = [t for t, z in zip(tangents, self.zero_in) if not z]
        outs = iter(eval_program(self.program, self.consts, live))
        return [zeros_like_aval(a) if z else next(outs) for a, z in zip(self.out_avals, self.zero_out)]

    def transpose(self, cts):
        """Map output cotangents to input cotangents (Zero where an input is not differentiable)."""
        live_cts = [ct for ct, z in zip(cts, self.zero_out) if not z]
        in_cts = iter(backward_pass(self.program, self.consts, live_cts))
        return [Zero(a) if z else next(in_cts) for a, z in zip(self.in_avals, self.zero_in)]


def linearize_flat(fun, primals, *, transform="grad"):
    """Return (primals_out, LinearFunction) for `fun(*primals) -> list`."""
    in_avals = [get_aval(p) for p in primals]
    zero_in = [not is_differentiable(a) for a in in_avals]
    with new_main(StagingTrace, ProgramBuilder(), transform=transform) as smain:
        strace = StagingTrace(smain)
        tan_in = [Zero(a) if z else strace.new_arg(a) for a, z in zip(in_avals, zero_in)]
        with new_main(JVPTrace, transform=transform) as jmain:
            jtrace = JVPTrace(jmain)
            outs = [jtrace.full_raise(o) for o in fun(*[JVPTracer(jtrace, p, t) for p, t in zip(primals, tan_in)])]
            p_out = [o.primal for o in outs]
            t_out = [o.tangent for o in outs]
        zero_out = [isinstance(t, Zero) for t in t_out]
        live_out = [strace.full_raise(t) for t in t_out if not isinstance(t, Zero)]
        live_in = [t for t in tan_in if not isinstance(t, Zero)]
        prog, consts = smain.global_data.build(live_in, live_out)
    out_avals = [get_aval(p) for p in p_out]
    return p_out, LinearFunction(prog, consts, in_avals, out_avals, zero_in, zero_out)


# ----------------------------------------------------------------------------------------------- transpose

class UndefinedPrimal:
    """Marks a linear input of a primitive during transposition: its value is unknown, its cotangent wanted."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined(x) -> bool:
    return isinstance(x, UndefinedPrimal)


def backward_pass(prog: Program, consts, cts_out):
    """Transpose the linear program `prog` (inputs [*consts, *linear_inputs]) at output cotangents `cts_out`."""
    n_consts = len(consts)
    linear_vars = set(prog.in_vars[n_consts:])
    env = {v: c for v, c in zip(prog.in_vars[:n_consts], consts)}

    def read(v):
        return Tensor(v.val) if isinstance(v, Literal) else env[v]

    linear_eqns = []
    for eqn in prog.eqns:
        if any(isinstance(v, Var) and v in linear_vars for v in eqn.inputs):
            linear_vars.update(eqn.outputs)
            linear_eqns.append(eqn)
        else:  # a non-linear computation on residuals staged by accident (e.g. under jit): recompute it
            previous = attribute_to(eqn.source)
            try:
                with scope_of(eqn.scope, transposed=False):
                    outs = eqn.prim.bind(*[read(v) for v in eqn.inputs], **eqn.params)
            finally:
                restore_attribution(previous)
            for v, o in zip(eqn.outputs, outs if eqn.prim.multiple_results else [outs]):
                env[v] = o

    ct_env: dict = {}

    def write_ct(v, ct):
        if ct is None or isinstance(ct, Zero) or not isinstance(v, Var) or v not in linear_vars:
            return
        ct_env[v] = add_any(ct_env[v], ct) if v in ct_env else ct

    for v, ct in zip(prog.out_vars, cts_out):
        write_ct(v, ct)

    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(v, None) for v in eqn.outputs]
        if all(c is None for c in cts):
            continue
        cts = [Zero(v.aval) if c is None else c for v, c in zip(eqn.outputs, cts)]
        rule = eqn.prim.transpose
        if rule is NONLINEAR or isinstance(rule, unsupported):
            if isinstance(rule, unsupported):
                rule()
            raise UnsupportedError(f"reverse-mode differentiation reached {eqn.prim.name}, which is not linear "
                                   "in its tangent inputs; this is a bug in its JVP rule")
        args = [UndefinedPrimal(v.aval) if isinstance(v, Var) and v in linear_vars else read(v) for v in eqn.inputs]
        ct_arg = cts if eqn.prim.multiple_results else instantiate(cts[0])
        if eqn.prim.multiple_results:
            ct_arg = [instantiate(c) for c in cts]
        previous = attribute_to(eqn.source)  # the transposed equations keep the user's line and scope
        try:
            with scope_of(eqn.scope, transposed=True):
                in_cts = rule(ct_arg, *args, **eqn.params)
        finally:
            restore_attribution(previous)
        for v, ct in zip(eqn.inputs, in_cts):
            write_ct(v, ct)

    return [instantiate(ct_env[v]) if v in ct_env else Zero(v.aval) for v in prog.in_vars[n_consts:]]
