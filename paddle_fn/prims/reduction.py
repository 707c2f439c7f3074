"""Reductions, scans, sorting, index reductions and dot_general. Each block gives every rule of one primitive."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import LINEAR, Primitive
from paddle_fn.core.trace import get_aval
from paddle_fn.prims._rules import fmt, scalar_like


def _check_axes(name, x, axes):
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {list(axes)} must be distinct and in range for {fmt(x)}")


def _reduce_shape(name):
    def rule(x, *, axes):
        _check_axes(name, x, axes)
        return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)
    return rule


def _shift_axes(axes, d):
    """Axes of the unbatched operand -> axes of the operand batched at d; and the output batch dim."""
    new_axes = tuple(a + 1 if a >= d else a for a in axes)
    out_d = d - sum(1 for a in axes if a < d)
    return new_axes, out_d


def _lower_reduce(hlo, init):
    def lower(ctx, x, *, axes):
        a_in, a_out = ctx.avals_in[0], ctx.avals_out[0]
        scalar = ShapedArray((), a_in.dtype)
        c = ctx.constant(init(a_in.dtype), scalar)
        res = ctx.fresh()
        from paddle_fn.lowering.emitter import tensor_type
        ctx.line(f"{res} = stablehlo.reduce({x} init: {c}) applies {hlo} across dimensions = {list(axes)} : "
                 f"({tensor_type(a_in)}, {tensor_type(scalar)}) -> {tensor_type(a_out)}")
        return res
    return lower


# ---------------------------------------------------------------------------------------------- reduce_sum

def _reduce_sum_transpose(ct, x, *, axes):
    from paddle_fn.prims.structural import broadcast_in_dim
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [broadcast_in_dim(ct, shape=shape, broadcast_dimensions=kept)]


def _reduce_sum_batch(vals, dims, *, axes):
    (x,), (d,) = vals, dims
    new_axes, out_d = _shift_axes(axes, d)
    return reduce_sum(x, axes=new_axes), out_d


def _reduce_sum_impl(x, *, axes):
    if x.dtype == np.bool_:
        return np.any(x, axis=axes)
    return np.sum(x, axis=axes, dtype=x.dtype)


reduce_sum_p = Primitive("reduce_sum", _reduce_shape("reduce_sum"), _reduce_sum_impl, LINEAR, _reduce_sum_transpose,
                         _reduce_sum_batch,
                         lambda ctx, x, *, axes: _lower_reduce(
                             "stablehlo.or" if ctx.avals_in[0].dtype.kind == "b" else "stablehlo.add",
                             lambda d: 0)(ctx, x, axes=axes))


def reduce_sum(x, *, axes):
    axes = tuple(sorted(int(a) for a in axes))
    if not axes:
        return x
    return reduce_sum_p.bind(x, axes=axes)


del scalar_like
