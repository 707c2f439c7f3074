"""Lowering rules written as programs of other primitives: an override stages a small function over the
equation's operand types (shape-checked as it is built) and inlines the program in place of the equation, so
every primitive in it lowers by its own rule (or its override for the target, which may recurse).

The lowering layer sits below the primitives, so it applies them by name, looked up in the registry at each use:
a primitive registered after the first lowering (a user's) is found as well as the built-in ones. The helpers
below are the structural operations the staged rules share, each skipping the identity case as the primitive
wrappers do.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.batching import vmap_flat
from paddle_fn.core.primitive import get_primitive
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval


def bind(name: str, *args, **params):
    """Apply the primitive named `name`."""
    return get_primitive(name).bind(*args, **params)


def generic_rule(name: str):
    """The own lowering rule of the primitive named `name` (what an override falls back to)."""
    return get_primitive(name).lower


def stage(fun, avals):
    """(program, consts) of `fun(*tracers) -> list of values` over arguments of types `avals`."""
    return trace_to_program(fun, list(avals), check=True)


def inline(ctx, prog, consts, operands) -> list:
    """Emit `prog` into `ctx` with its inputs bound to the constants `consts` and then `operands` (SSA names);
    return its output names."""
    names = [ctx.constant(c.concrete_value(), get_aval(c)) for c in consts]
    return ctx.inline(prog, names + list(operands))


def lower_by_expansion(expansion, *, core_ndim=2, multiple_results=False):
    """The lowering rule of a primitive written as `expansion(*operands, **params)`, other primitives applied to one
    problem whose operands have `core_ndim` dimensions: the dimensions before those are batch dimensions, which
    the expansion is vmapped over; the program is staged and inlined. The decompositions, which StableHLO has no
    operation for (or IREE does not compile), lower this way."""
    def lower(ctx, *operands, **params):
        n_out = len(ctx.avals_out)

        def one(*xs):
            out = expansion(*xs, **params)
            return list(out) if multiple_results else [out]

        fun = one
        for size in reversed(ctx.avals_in[0].shape[:-core_ndim]):
            fun = (lambda f, size: lambda *xs: vmap_flat(f, list(xs), [0] * len(xs), size, [0] * n_out))(fun, size)
        prog, consts = trace_to_program(fun, list(ctx.avals_in), transform="lowering")
        outs = inline(ctx, prog, consts, operands)
        return outs if multiple_results else outs[0]
    return lower


def materialized(ctx, name: str, aval):
    """The SSA value `name` (of type `aval`) computed once into a buffer of its own when an equation of the program
    produced it: an optimization barrier keeps IREE from fusing its producer into each consumer. An argument or a
    constant as it is."""
    if ctx.producer(name) is None:
        return name
    return ctx.apply(generic_rule("optimization_barrier"), [name], [aval], [aval])


def shape_of(x) -> tuple:
    return get_aval(x).shape


def transpose(x, perm):
    perm = tuple(int(p) for p in perm)
    return x if perm == tuple(range(len(perm))) else bind("transpose", x, permutation=perm)


def reshape(x, shape):
    shape = tuple(int(s) for s in shape)
    return x if shape_of(x) == shape else bind("reshape", x, new_sizes=shape)


def slice_(x, start, limit, strides=None):
    """x[start:limit:strides] (static bounds)."""
    strides = (1,) * len(start) if strides is None else strides
    if tuple(start) == (0,) * len(start) and tuple(limit) == shape_of(x) and set(strides) <= {1}:
        return x
    return bind("slice", x, start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(strides))


def broadcast(x, shape, dims):
    """x's axes placed at `dims` of a result of `shape` (broadcast_in_dim)."""
    shape, dims = tuple(int(s) for s in shape), tuple(int(d) for d in dims)
    if shape_of(x) == shape and dims == tuple(range(len(shape))):
        return x
    return bind("broadcast_in_dim", x, shape=shape, broadcast_dimensions=dims)


def filled(value, shape, dtype):
    """A constant of `shape` and `dtype` filled with `value` (a broadcast 0-d constant)."""
    return broadcast(Tensor(np.asarray(value, dtype.np)), shape, ())
