"""The base primitives every other family's rules are written with: broadcast_in_dim, reshape, transpose and
reduce_sum (broadcast_in_dim and reduce_sum are each other's transpose), and constants shaped like a tensor.

The other families (elementwise, structural, slicing, reduction, ...) import this module at the top; it imports
no other family, so the primitive modules form no import cycle. Each block gives every rule of one primitive.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.batching import moveaxis
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import LINEAR, Primitive
from paddle_fn.core.trace import Tensor, concrete_full, current_dynamic_main, get_aval
from paddle_fn.lowering.emitter import tensor_type
from paddle_fn.prims._rules import fmt, normalize_axis, require_kind


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
    x = x.reshape(expanded)
    if math.prod(shape) > _BROADCAST_VIEW_SIZE:
        return np.broadcast_to(x, shape)  # a read-only view: no copy of a large result
    out = np.empty(shape, x.dtype)
    out[...] = x
    return out


# Results of up to this many elements are filled copies: np.broadcast_to's view costs ~3.5 us to make, a copy of a
# small array ~1 us (eager code broadcasts biases, scalars and learning rates on every step)
_BROADCAST_VIEW_SIZE = 4096


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions):
    in_shape = x.aval.shape
    bd = broadcast_dimensions
    summed = tuple(d for d in range(len(shape)) if d not in bd)
    kept_ones = tuple(i for i, d in enumerate(bd) if in_shape[i] == 1 and shape[d] != 1)
    axes = tuple(sorted(summed + tuple(bd[i] for i in kept_ones)))
    out = reduce_sum(ct, axes=axes) if axes else ct
    return [reshape(out, new_sizes=in_shape) if get_aval(out).shape != tuple(in_shape) else out]


def _broadcast_in_dim_batch(vals, dims, *, shape, broadcast_dimensions):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    size = get_aval(x).shape[0]
    return broadcast_in_dim(x, shape=(size,) + tuple(shape),
                            broadcast_dimensions=(0,) + tuple(b + 1 for b in broadcast_dimensions)), 0


def _broadcast_in_dim_lower(ctx, x, *, shape, broadcast_dimensions):
    return ctx.op("stablehlo.broadcast_in_dim", [x], attrs=f", dims = {list(broadcast_dimensions)}")


broadcast_in_dim_p = Primitive("broadcast_in_dim", shape_rule=_broadcast_in_dim_shape, impl=_broadcast_in_dim_impl,
                               jvp=LINEAR, transpose=_broadcast_in_dim_transpose, batch=_broadcast_in_dim_batch,
                               lower=_broadcast_in_dim_lower)


def broadcast_in_dim(x, *, shape, broadcast_dimensions):
    """Broadcast `x` to `shape`; operand dimension i maps to output dimension broadcast_dimensions[i]."""
    shape, bd = tuple(int(s) for s in shape), tuple(int(b) for b in broadcast_dimensions)
    if get_aval(x).shape == shape and bd == tuple(range(len(shape))):
        return x
    return broadcast_in_dim_p.bind(x, shape=shape, broadcast_dimensions=bd)


# ---------------------------------------------------------------------------------------------- reshape

def _reshape_shape(x, *, new_sizes):
    if math.prod(new_sizes) != x.size:
        raise ShapeError(f"reshape: cannot reshape {fmt(x)} ({x.size} elements) to {list(new_sizes)} "
                         f"({math.prod(new_sizes)} elements)")
    return ShapedArray(new_sizes, x.dtype)


def _reshape_batch(vals, dims, *, new_sizes):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    return reshape(x, new_sizes=(get_aval(x).shape[0],) + tuple(new_sizes)), 0


reshape_p = Primitive("reshape", shape_rule=_reshape_shape, impl=lambda x, *, new_sizes: np.reshape(x, new_sizes),
                      jvp=LINEAR, transpose=lambda ct, x, *, new_sizes: [reshape(ct, new_sizes=x.aval.shape)],
                      batch=_reshape_batch, lower=lambda ctx, x, *, new_sizes: ctx.op("stablehlo.reshape", [x]))


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
    x = moveaxis(x, d, 0)
    return transpose(x, permutation=(0,) + tuple(p + 1 for p in permutation)), 0


transpose_p = Primitive("transpose", shape_rule=_transpose_shape,
                        impl=lambda x, *, permutation: np.transpose(x, permutation), jvp=LINEAR,
                        transpose=_transpose_transpose, batch=_transpose_batch,
                        lower=lambda ctx, x, *, permutation: ctx.op("stablehlo.transpose", [x],
                                                                    attrs=f", dims = {list(permutation)}"))


def transpose(x, *, permutation):
    permutation = tuple(int(p) for p in permutation)
    if permutation == tuple(range(len(permutation))):
        return x
    return transpose_p.bind(x, permutation=permutation)



# ---------------------------------------------------------------------------------------------- reduce_sum


# ---------------------------------------------------------------------------------------------- reduce_sum
# The helpers up to reduce_sum serve every reduction (reduce_max/min/prod, the cumulative ops in reduction.py).

def _check_axes(name, x, axes):
    if len(set(axes)) != len(axes) or any(not 0 <= a < x.ndim for a in axes):
        raise ShapeError(f"{name}: axes {list(axes)} must be distinct and in range for {fmt(x)}")


def reduce_shape_rule(name, kinds=None):
    """The shape rule of a reduction over `axes` (they are dropped); `kinds`, if given, the dtype kinds it takes."""
    def rule(x, *, axes):
        if kinds is not None:
            require_kind(name, x, kinds, "a real (not complex)")
        _check_axes(name, x, axes)
        return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in axes), x.dtype)
    return rule


def shift_axes(axes, d):
    """Axes of the unbatched operand -> axes of the operand batched at d; and the output batch dim."""
    new_axes = tuple(a + 1 if a >= d else a for a in axes)
    out_d = d - sum(1 for a in axes if a < d)
    return new_axes, out_d


def reduction_identity(op, dtype):
    """The identity of the binary `op` ('add', 'mul', 'max', 'min') over `dtype`."""
    if op in ("add", "mul"):
        return int(op == "mul")
    lowest = op == "max"
    if dtype.kind == "b":
        return not lowest
    if dtype.kind == "f":
        return -np.inf if lowest else np.inf
    info = np.iinfo(dtype.np)
    return info.min if lowest else info.max


_HLO_BINOP = {"add": "stablehlo.add", "mul": "stablehlo.multiply", "max": "stablehlo.maximum",
              "min": "stablehlo.minimum"}
_HLO_BOOL_BINOP = {"add": "stablehlo.or", "mul": "stablehlo.and", "max": "stablehlo.or", "min": "stablehlo.and"}


def hlo_binop(op, dtype):
    """The StableHLO op combining two elements for `op` ('add', 'mul', 'max', 'min'); bool uses or/and."""
    return (_HLO_BOOL_BINOP if dtype.kind == "b" else _HLO_BINOP)[op]


def reduce_lower_rule(op):
    """The lowering of a reduction over `axes` with the binary `op`: one stablehlo.reduce from its identity."""
    def lower(ctx, x, *, axes):
        a_in, a_out = ctx.avals_in[0], ctx.avals_out[0]
        scalar = ShapedArray((), a_in.dtype)
        init = ctx.constant(reduction_identity(op, a_in.dtype), scalar)
        res = ctx.fresh()
        ctx.line(f"{res} = stablehlo.reduce({x} init: {init}) applies {hlo_binop(op, a_in.dtype)} across "
                 f"dimensions = {list(axes)} : ({tensor_type(a_in)}, {tensor_type(scalar)}) -> {tensor_type(a_out)}")
        return res
    return lower


def reduce_batch_rule(reducer):
    """The batching rule of a reduction over `axes`: the same reduction over the shifted axes."""
    def batch(vals, dims, *, axes):
        (x,), (d,) = vals, dims
        new_axes, out_d = shift_axes(axes, d)
        return reducer(x, axes=new_axes), out_d
    return batch


def _normalize_axes(name, x, axes):
    """`axes` of x, negatives counted from the end, sorted; an out-of-range axis is an error naming `name`."""
    nd = get_aval(x).ndim
    return tuple(sorted(normalize_axis(name, int(a), nd) for a in axes))


def _reduce_sum_transpose(ct, x, *, axes):
    shape = x.aval.shape
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return [broadcast_in_dim(ct, shape=shape, broadcast_dimensions=kept)]


def _reduce_sum_impl(x, *, axes):
    if x.dtype == np.bool_:
        return np.logical_or.reduce(x, axis=axes)
    return np.add.reduce(x, axis=axes, dtype=x.dtype)  # np.sum's argument handling costs more than a small sum


reduce_sum_p = Primitive("reduce_sum", shape_rule=reduce_shape_rule("reduce_sum"), impl=_reduce_sum_impl, jvp=LINEAR,
                         transpose=_reduce_sum_transpose,
                         batch=reduce_batch_rule(lambda x, axes: reduce_sum(x, axes=axes)),
                         lower=reduce_lower_rule("add"))


def bind_reduction(prim, x, axes):
    """`prim` (a reduction) over `axes` of x, normalized; x itself when there are none."""
    axes = _normalize_axes(prim.name, x, axes)
    return prim.bind(x, axes=axes) if axes else x


def reduce_sum(x, *, axes):
    """Sum over `axes` (over bool it is `any`)."""
    return bind_reduction(reduce_sum_p, x, axes)


# ---------------------------------------------------------------------------------------------- constants

def _fill_value(value, dtype) -> np.ndarray:
    """`value` as a 0-d array of `dtype`, rounded once; a value beyond the dtype's range becomes inf, as in numpy's
    conversion and Paddle, silently (an int out of an int dtype's range is numpy's OverflowError)."""
    np_dtype = dtypes.as_dtype(dtype).np
    if type(value) in (float, int, bool) and -_FLOAT16_MAX <= value <= _FLOAT16_MAX:
        return np.asarray(value, np_dtype)  # no float overflow to silence: np.errstate costs more than converting
    with np.errstate(over="ignore"):
        return np.asarray(value, np_dtype)


_FLOAT16_MAX = 65504.0  # the smallest largest-finite-value of the float dtypes


def full(shape, value, dtype):
    """A constant of `shape` and `dtype` filled with `value`: a broadcast 0-d constant, cheap in the IR; outside
    jit, where the broadcast would be evaluated at once, the filled array itself."""
    fill = _fill_value(value, dtype)
    if current_dynamic_main().level == 0:
        return concrete_full(tuple(shape), fill)
    return broadcast_in_dim(Tensor(fill), shape=shape, broadcast_dimensions=())


def full_like(x, value, shape=None):
    """A constant of x's dtype filled with `value`, of x's shape (or `shape`); x is a Tensor, tracer or aval."""
    aval = x if isinstance(x, ShapedArray) else get_aval(x)
    return full(aval.shape if shape is None else shape, value, aval.dtype)
