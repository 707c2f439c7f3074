"""Shape-changing primitives: broadcast_in_dim, reshape, transpose, squeeze, expand_dims, slicing, gathers,
scatters, concatenate, pad, rev, iota. Each block gives every rule of one primitive."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import LINEAR, Primitive
from paddle_fn.core.trace import get_aval
from paddle_fn.prims._rules import fmt


def _moveaxis_to_front(x, d):
    return x if d == 0 else transpose(x, permutation=(d,) + tuple(i for i in range(get_aval(x).ndim) if i != d))


# ---------------------------------------------------------------------------------------------- broadcast_in_dim

def _broadcast_in_dim_shape(x, *, shape, broadcast_dimensions):
    bd = tuple(broadcast_dimensions)
    if len(bd) != x.ndim:
        raise ShapeError(f"broadcast_in_dim: operand {fmt(x)} has rank {x.ndim} but broadcast_dimensions {bd} "
                         f"has {len(bd)} entries")
    if any(not 0 <= d < len(shape) for d in bd) or list(bd) != sorted(set(bd)):
        raise ShapeError(f"broadcast_in_dim: broadcast_dimensions {bd} must be strictly increasing and within "
                         f"the target rank {len(shape)}")
    for i, d in enumerate(bd):
        if x.shape[i] not in (1, shape[d]):
            raise ShapeError(f"broadcast_in_dim: cannot broadcast operand {fmt(x)} to {list(shape)}: dimension {i} "
                             f"has size {x.shape[i]} but target dimension {d} has size {shape[d]}")
    return ShapedArray(shape, x.dtype)


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    from paddle_fn.prims.reduction import reduce_sum
    in_shape = x.aval.shape
    bd = broadcast_dimensions
    summed = tuple(d for d in range(len(shape)) if d not in bd)
    kept_ones = tuple(i for i, d in enumerate(bd) if in_shape[i] == 1 and shape[d] != 1)
    axes = tuple(sorted(summed + tuple(bd[i] for i in kept_ones)))
    out = reduce_sum(ct, axes=axes) if axes else ct
    return [reshape(out, new_sizes=in_shape) if get_aval(out).shape != tuple(in_shape) else out]


def _broadcast_in_dim_batch(vals, dims, *, shape, broadcast_dimensions):
    (x,), (d,) = vals, dims
    x = _moveaxis_to_front(x, d)
    size = get_aval(x).shape[0]
    return broadcast_in_dim(x, shape=(size,) + tuple(shape),
                            broadcast_dimensions=(0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


def _broadcast_in_dim_lower(ctx, x, *, shape, broadcast_dimensions):
    return ctx.op("stablehlo.broadcast_in_dim", [x], attrs=f", dims = {list(broadcast_dimensions)}")


broadcast_in_dim_p = Primitive("broadcast_in_dim", _broadcast_in_dim_shape, _broadcast_in_dim_impl, LINEAR,
                               _broadcast_in_dim_transpose, _broadcast_in_dim_batch, _broadcast_in_dim_lower)


def broadcast_in_dim(x, *, shape, broadcast_dimensions):
    """Broadcast `x` to `shape`; operand dimension i maps to output dimension broadcast_dimensions[i]."""
    shape, bd = tuple(int(s) for s in shape), tuple(int(b) for b in broadcast_dimensions)
    if get_aval(x).shape == shape and bd == tuple(range(len(shape))):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)


# ---------------------------------------------------------------------------------------------- reshape

def _reshape_shape(x, *, new_sizes):
    if int(np.prod(new_sizes, dtype=np.int64)) != x.size:
        raise ShapeError(f"reshape: cannot reshape {fmt(x)} ({x.size} elements) to {list(new_sizes)} "
                         f"({int(np.prod(new_sizes, dtype=np.int64))} elements)")
    return ShapedArray(new_sizes, x.dtype)


def _reshape_batch(vals, dims, *, new_sizes):
    (x,), (d,) = vals, dims
    x = _moveaxis_to_front(x, d)
    return reshape(x, new_sizes=(get_aval(x).shape[0],) + tuple(new_sizes)), 0


reshape_p = Primitive("reshape", _reshape_shape, lambda x, *, new_sizes: np.reshape(x, new_sizes), LINEAR,
                      lambda ct, x, *, new_sizes: [reshape(ct, new_sizes=x.aval.shape)], _reshape_batch,
                      lambda ctx, x, *, new_sizes: ctx.op("stablehlo.reshape", [x]))


def reshape(x, *, new_sizes):
    new_sizes = tuple(int(s) for s in new_sizes)
    if get_aval(x).shape == new_sizes:
        return x
    return reshape_p.bind(x, new_sizes=new_sizes)


# ---------------------------------------------------------------------------------------------- transpose

def _transpose_shape(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise ShapeError(f"transpose: permutation {list(permutation)} is not a permutation of the {x.ndim} axes of "
                         f"{fmt(x)}")
    return ShapedArray(tuple(x.shape[p] for p in permutation), x.dtype)


def _transpose_transpose(ct, x, *, permutation):
    return [transpose(ct, permutation=tuple(int(i) for i in np.argsort(permutation)))]


def _transpose_batch(vals, dims, *, permutation):
    (x,), (d,) = vals, dims
    x = _moveaxis_to_front(x, d)
    return transpose(x, permutation=(0,) + tuple(p + 1 for p in permutation)), 0


transpose_p = Primitive("transpose", _transpose_shape, lambda x, *, permutation: np.transpose(x, permutation), LINEAR,
                        _transpose_transpose, _transpose_batch,
                        lambda ctx, x, *, permutation: ctx.op("stablehlo.transpose", [x],
                                                              attrs=f", dims = {list(permutation)}"))


def transpose(x, *, permutation):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))):
        return x
    return transpose_p.bind(x, permutation=permutation)
