"""Staging: tracing Python into a `Program`.

`StagingTrace` records every primitive applied to its tracers as an equation. Values from outside (concrete
arrays, tracers of lower levels) become leading constant inputs of the program; `trace_to_program` returns
the program together with those constants so callers pass them in again (closure conversion).
"""
from __future__ import annotations

import contextlib
import sys
import threading

import numpy as np

from paddle_fn.core.errors import ConcretizationError
from paddle_fn.core.ir import Eqn, Literal, Program, ShapedArray, SourceLine, Var, typecheck_program
from paddle_fn.core.trace import Tensor, Trace, Tracer, get_aval, grad_mode, live_mains, new_main, user_frames


class _Attribution(threading.local):
    """The user's line that equations staged now are attributed to while a transform re-evaluates a program (each
    equation it stages descends from the equation being evaluated); None: find it by walking the stack."""
    source = None


_attribution = _Attribution()


def attribute_to(source):
    """Attribute the equations staged from now on to `source` (an equation's; None keeps the current one) and
    return the previous attribution, for `restore_attribution`."""
    previous = _attribution.source
    if source is not None:
        _attribution.source = source
    return previous


def restore_attribution(previous) -> None:
    _attribution.source = previous


def _staging_source():
    """The `SourceLine` of the innermost user frame (outside paddle_fn) staging an equation now."""
    source = _attribution.source
    if source is None:
        frame = next(user_frames(sys._getframe(1)), None)
        source = None if frame is None else SourceLine(frame.f_code, frame.f_lasti)
    return source


class _Scopes(threading.local):
    def __init__(self):
        self.names: list = []


_scopes = _Scopes()


@contextlib.contextmanager
def named_scope(name: str):
    """Name the operations traced inside (JAX's ``jax.named_scope``): each equation of the IR records the scopes
    it was traced in, ``outer/inner``; ``make_ir`` prints them and the lowered StableHLO carries them as the
    operations' locations. Scopes nest; eager operations are not traced and keep no name.

    Example:
        >>> import paddle_fn as paddle
        >>> def f(x):
        ...     with paddle.named_scope("layer1"):
        ...         y = paddle.sin(x)
        ...     return paddle.exp(y)
        >>> print(paddle.make_ir(f)(paddle.ones([2])))
        { lambda ; a:f32[2]. let
            b:f32[2] = sin a  # layer1
            c:f32[2] = exp b
          in (c) }
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"named_scope: the name must be a non-empty string, got {name!r}")
    _scopes.names.append(name)
    try:
        yield
    finally:
        _scopes.names.pop()


@contextlib.contextmanager
def scope_of(scope: str, *, transposed: bool):
    """Stage the equations made for an equation traced in `scope` (its ``outer/inner`` named_scope path) under
    that scope: a backward pass's operations (`transposed`) as ``transpose(jvp(inner))``, as JAX names them, and
    recomputed forward ones as `inner`, each below the scopes open now (the part of `scope` they share is not
    repeated)."""
    current = "/".join(_scopes.names)
    if not scope or (scope == current and not transposed):
        yield
        return
    inner = scope[len(current) + 1:] if current and scope.startswith(current + "/") else scope
    before = _scopes.names
    _scopes.names = before + [f"transpose(jvp({inner}))" if transposed else inner]
    try:
        yield
    finally:
        _scopes.names = before


class StagingTracer(Tracer):
    __slots__ = ("_aval", "provenance")

    def __init__(self, trace, aval, provenance=frozenset()):
        super().__init__(trace)
        self._aval = aval
        self.provenance = provenance  # names of the traced arguments this value depends on

    @property
    def _own_aval(self):
        return self._aval


class ProgramBuilder:
    def __init__(self):
        self.eqns: list[Eqn] = []
        self.tracer_to_var: dict[int, Var] = {}
        self.const_tracers: dict[int, Tracer] = {}   # id(value) -> tracer, so a constant is captured once
        self.const_vals: dict[int, object] = {}       # id(tracer) -> captured value
        self.tracers: list[Tracer] = []               # keeps ids alive
        self.input_vars: dict[int, Var] = {}          # id(input tracer) -> its Var, even if later rebound in place
        self.captured: list = []                      # (handle, snapshot) of every concrete Tensor captured
        self.grads_before: dict = {}                  # id(captured trainable leaf) -> its .grad before the trace
        # host callbacks (paddle_fn.debug) to run with traced values after each call: (callback, values); None when
        # the caller runs no effects (control-flow bodies, make_ir), where a callback cannot be staged
        self.callbacks: list | None = None

    def new_var(self, tracer) -> Var:
        v = Var(tracer.aval)
        self.tracer_to_var[id(tracer)] = v
        self.tracers.append(tracer)
        return v

    def getvar(self, tracer) -> Var:
        return self.tracer_to_var[id(tracer)]

    def collect_effects(self, main):
        """What the traced function left behind on Tensors it closed over, as Paddle's in-place updates do: handles
        rebound to a value of this trace (``p._rebind(new)`` in an optimizer step) and trainable leaves whose
        ``.grad`` holds one (``loss.backward()``), or that a gradient they had was reset while tracing. Returns
        [(kind, handle, value)] with kind "value" or "grad" and restores every such handle to its state before the
        trace, so no tracer escapes."""
        effects, seen = [], set()
        for handle, _ in self.captured:
            if id(handle) in seen:
                continue
            seen.add(id(handle))
            alias = handle._alias
            if isinstance(alias, Tracer) and alias._trace.main is main:
                effects.append(("value", handle, alias.resolve()))
                handle._alias = None
        for handle, before in self.grads_before.values():
            grad = handle._grad
            if isinstance(grad, Tensor):
                grad = grad.resolve()
            if isinstance(grad, Tracer) and grad._trace.main is main:
                effects.append(("grad", handle, grad))
                handle._grad = before
            elif grad is not None and before is not None and grad is not before:
                # reset while tracing (clear_grad's zeros) after the program read the gradient it had: each call
                # must leave the reset value, not the gradient it was given (gradient accumulation relies on it)
                effects.append(("grad", handle, grad))
                handle._grad = before
        for callback, values in self.callbacks or ():
            effects.extend(("callback", callback, v) for v in values)
        return effects

    def build(self, in_tracers, out_tracers, keep_consts=()):
        """Return (program, consts): program inputs are [*constants, *in_tracers]. The constants whose captured
        handles are in `keep_consts` (ids: state a later call passes in anew) stay inputs even when scalars."""
        in_vars = [self.input_vars.get(id(t)) or self.tracer_to_var[id(t)] for t in in_tracers]
        const_vars, consts = [], []
        for tid, val in self.const_vals.items():
            const_vars.append(self.tracer_to_var[tid])
            consts.append(val)
        out_vars = [self.tracer_to_var[id(t)] for t in out_tracers]
        prog = Program(tuple(const_vars + in_vars), tuple(self.eqns), tuple(out_vars))
        keep = {id(snap) for handle, snap in self.captured if id(handle) in set(keep_consts)}
        return _inline_literals(dce_program(prog), consts, keep)


def dce_program(prog: Program) -> Program:
    """Drop equations whose results are never used (every primitive is pure, so this is always safe)."""
    live = {v for v in prog.out_vars if isinstance(v, Var)}
    kept = []
    for eqn in reversed(prog.eqns):
        if any(v in live for v in eqn.outputs):
            kept.append(eqn)
            live.update(v for v in eqn.inputs if isinstance(v, Var))
    if len(kept) == len(prog.eqns):
        return prog
    return Program(prog.in_vars, tuple(reversed(kept)), prog.out_vars)


def _inline_literals(prog: Program, consts, keep=frozenset()):
    """Turn captured concrete scalars into Literals so printed programs stay readable (except those in `keep`:
    state that a later call passes in with a new value)."""
    keep_vars, keep_vals, literals = [], [], {}
    n_consts = len(consts)
    for v, c in zip(prog.in_vars[:n_consts], consts):
        if not isinstance(c, Tracer) and id(c) not in keep and np.ndim(_val(c)) == 0:
            literals[v] = Literal(_val(c), v.aval)
        else:
            keep_vars.append(v)
            keep_vals.append(c)
    if not literals:
        return prog, consts

    def sub(x):
        return literals.get(x, x) if isinstance(x, Var) else x

    eqns = tuple(e.with_inputs(sub(x) for x in e.inputs) for e in prog.eqns)
    outs = tuple(sub(x) for x in prog.out_vars)
    return Program(tuple(keep_vars) + prog.in_vars[n_consts:], eqns, outs), keep_vals


def _val(c):
    return c.concrete_value() if isinstance(c, Tensor) else np.asarray(c)


class StagingTrace(Trace):
    @property
    def builder(self) -> ProgramBuilder:
        return self.main.global_data

    def new_arg(self, aval: ShapedArray, name: str | None = None) -> StagingTracer:
        t = StagingTracer(self, aval, frozenset([name]) if name else frozenset())
        self.builder.input_vars[id(t)] = self.builder.new_var(t)
        return t

    def pure(self, val):
        b = self.builder
        key = id(val)
        if key in b.const_tracers:
            return b.const_tracers[key]
        t = StagingTracer(self, get_aval(val))
        b.new_var(t)
        b.const_tracers[key] = t
        # a concrete Tensor is captured as a snapshot: an in-place update of it later rebinds the caller's handle,
        # never the value this program was traced with (jit checks the handles to notice such updates)
        if isinstance(val, Tensor) and not isinstance(val, Tracer):
            snap = val.snapshot()
            b.captured.append((val, snap))
            if snap._leaf is not None:  # a trainable leaf: a backward() inside the program accumulates into it
                t.stop_gradient, t._leaf = False, snap._leaf
                b.grads_before.setdefault(id(snap._leaf), (snap._leaf, snap._leaf._grad))
        else:
            snap = val if isinstance(val, Tensor) else Tensor(np.asarray(val))
        b.const_vals[id(t)] = snap
        b.tracers.append(val)
        return t

    lift = pure

    def rebind(self, tracer, new):
        super().rebind(tracer, new)
        b = self.builder
        b.tracer_to_var[id(tracer)] = b.tracer_to_var[id(new)]

    def process_primitive(self, prim, tracers, params):
        b = self.builder
        out_avals = prim.abstract_eval_list([t.aval for t in tracers], params)
        provenance = frozenset().union(*[t.provenance for t in tracers])
        outs = [StagingTracer(self, a, provenance) for a in out_avals]
        b.eqns.append(Eqn(prim, tuple(b.getvar(t) for t in tracers), params, tuple(b.new_var(o) for o in outs),
                          _staging_source(), "/".join(_scopes.names)))
        if grad_mode.recording and any(not t.stop_gradient for t in tracers):
            grad_mode.recorder(prim, params, tracers, outs)  # the eager tape, inside a compiled Paddle train step
        return outs

    def concretize(self, tracer):
        names = sorted(getattr(tracer, "provenance", ()))
        source = f", derived from argument {', '.join(names)}," if names else ""
        what = self.main.transform or "staging"
        raise ConcretizationError(
            f"a value traced by {what} (abstract value {tracer.aval.str_short()}{source}) has no concrete value: "
            f"only its shape and dtype are known {_when_traced(what)}. Use paddle_fn.cond / paddle_fn.where instead "
            f"of Python `if` on it, paddle_fn.while_loop instead of `while`{_static_hint()}")


def _compiling_transform() -> str | None:
    """The outermost live transform that compiles the function (jit, to_static, pmap), if any."""
    return next((m.transform for m in live_mains() if m.transform and m.transform.startswith(_COMPILING)), None)


_COMPILING = ("jit", "to_static", "pmap")


def _when_traced(what: str) -> str:
    return "while the function is compiled" if _compiling_transform() else f"while {what} traces the function"


def _static_hint() -> str:
    """How to make an argument static, for the transform that compiles (pmap's knob differs from jit's); none
    outside them, where static arguments do not exist."""
    compiling = _compiling_transform()
    if compiling is None:
        return ""
    if compiling.startswith("pmap"):
        return ", or mark the argument static (pmap's static_broadcasted_argnums)"
    return ", or mark the argument static (jit's static_argnums)"


def trace_to_program(fun, in_avals, *, transform="make_ir", dynamic=True, check=False, arg_names=None,
                     captured=None, effects=None, callbacks=None):
    """Trace `fun(*tracers) -> list of values` into (program, consts).

    With `dynamic=True` every operation is staged, even on constants (what jit and make_ir want); with
    `dynamic=False` operations on values that do not depend on the inputs run eagerly. A list passed as
    `captured` receives (handle, snapshot) for every concrete Tensor the function closed over. A list passed as
    `effects` receives (kind, handle) for each in-place update the function made to a Tensor it closed over (see
    `ProgramBuilder.collect_effects`) and ("callback", callback) for each value a host callback takes
    (paddle_fn.debug); their values become extra outputs after the function's own. Without `effects`, a list
    passed as `callbacks` receives the host callbacks the function staged, for a caller that runs them its own way.
    """
    with new_main(StagingTrace, ProgramBuilder(), transform=transform, dynamic=dynamic) as main:
        trace = StagingTrace(main)
        builder = main.global_data
        builder.callbacks = [] if effects is not None else callbacks
        names = arg_names or [None] * len(in_avals)
        in_tracers = [trace.new_arg(a, n) for a, n in zip(in_avals, names)]
        outs = fun(*in_tracers)
        out_tracers = [trace.full_raise(o) for o in outs]
        found = builder.collect_effects(main) if effects is not None else []
        if found:
            effects.extend((kind, handle) for kind, handle, _ in found)
            out_tracers += [trace.full_raise(t) for _, _, t in found]
        state = [id(h) for kind, h, _ in found if kind == "value"] + \
            [id(h) for h, _ in builder.captured if h.persistable]
        prog, consts = builder.build(in_tracers, out_tracers, keep_consts=state)
        if captured is not None:
            captured.extend(main.global_data.captured)
    if check:
        typecheck_program(prog)
    return prog, consts


def eval_program(prog: Program, consts, args):
    """Evaluate a program by binding its primitives to the given values (so it runs under any transform); what a
    transform stages meanwhile keeps the user's line of the equation it came from."""
    env = {}
    for v, x in zip(prog.in_vars, list(consts) + list(args)):
        env[v] = x

    def read(v):
        return Tensor(v.val) if isinstance(v, Literal) else env[v]

    outer = _attribution.source
    try:
        for eqn in prog.eqns:
            _attribution.source = eqn.source or outer
            outs = eqn.prim.bind(*[read(v) for v in eqn.inputs], **eqn.params)
            if not eqn.prim.multiple_results:
                outs = [outs]
            for v, o in zip(eqn.outputs, outs):
                env[v] = o
    finally:
        _attribution.source = outer
    return [read(v) for v in prog.out_vars]
