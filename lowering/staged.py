"""Lowering rules written as programs of other primitives: an override stages a small function over the
equation's operand types (shape-checked as it is built) and inlines the program in place of the equation, so
every primitive in it lowers by its own rule (or its override for the target, which may recurse)."""
from __future__ import annotations

from paddle_fn.core.primitive import all_primitives
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import get_aval

_PRIMS: dict = {}


def bind(name: str, *args, **params):
    """Apply the primitive named `name` (the lowering layer sees primitives by name: it sits below them)."""
    if not _PRIMS:
        _PRIMS.update(all_primitives())
    return _PRIMS[name].bind(*args, **params)


def generic_rule(name: str):
    """The own lowering rule of the primitive named `name` (what an override falls back to)."""
    return all_primitives()[name].lower


def stage(fun, avals):
    """(program, consts) of `fun(*tracers) -> list of values` over arguments of types `avals`."""
    return trace_to_program(fun, list(avals), check=True)


def inline(ctx, prog, consts, operands) -> list:
    """Emit `prog` into `ctx` with its inputs bound to the constants `consts` and then `operands` (SSA names);
    return its output names."""
    names = [ctx.constant(c.concrete_value(), get_aval(c)) for c in consts]
    return ctx.inline(prog, names + list(operands))
