"""Shape-changing primitives: squeeze, expand_dims, slice, concatenate, pad, rev, optimization_barrier, iota;
broadcast_in_dim, reshape and transpose are defined in `base` and re-exported here, so that this module names the
whole shape family. Gathers, scatters and dynamic slices are in `slicing`. Each block gives every rule of one
primitive."""
from __future__ import annotations

import builtins

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front, moveaxis
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import ELEMENTWISE, LINEAR, NONLINEAR, ZERO_TANGENT, Primitive, unsupported
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.emitter import i64_array
from paddle_fn.prims._rules import check_dims, fmt, normalize_axis, scalar_like, shift_dims
from paddle_fn.prims.base import (  # noqa: F401 - re-exported as part of the shape family
    broadcast_in_dim, broadcast_in_dim_p, full, full_like, reduce_sum, reshape, reshape_p, transpose, transpose_p)
from paddle_fn.prims.elementwise import convert_element_type, eq, select, sub


# ---------------------------------------------------------------------------------------------- squeeze

def _squeeze_shape(x, *, dimensions):
    check_dims("squeeze", "dimensions", dimensions, x.ndim)
    if any(x.shape[d] != 1 for d in dimensions):
        raise ShapeError(f"squeeze: dimensions {list(dimensions)} of {fmt(x)} must all have size 1")
    return ShapedArray(tuple(s for i, s in enumerate(x.shape) if i not in dimensions), x.dtype)


def _squeeze_batch(vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    in_batched = tuple(a + (a >= d) for a in dimensions)
    return squeeze(x, dimensions=in_batched), d - sum(a < d for a in in_batched)


squeeze_p = Primitive("squeeze", shape_rule=_squeeze_shape,
                      impl=lambda x, *, dimensions: np.squeeze(x, axis=dimensions), jvp=LINEAR,
                      transpose=lambda ct, x, *, dimensions: [reshape(ct, new_sizes=x.aval.shape)],
                      batch=_squeeze_batch, lower=lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", [x]))


def squeeze(x, *, dimensions):
    """Remove the size-1 axes `dimensions` (negative counts from the end)."""
    ndim = get_aval(x).ndim
    dimensions = tuple(sorted({normalize_axis("squeeze", int(d), ndim) for d in dimensions}))
    if not dimensions:
        return x
    return squeeze_p.bind(x, dimensions=dimensions)


# ---------------------------------------------------------------------------------------------- expand_dims

def _expand_dims_shape(x, *, dimensions):
    rank = x.ndim + len(dimensions)
    check_dims("expand_dims", "dimensions (positions in the output)", dimensions, rank)
    sizes = iter(x.shape)
    return ShapedArray(tuple(1 if i in dimensions else next(sizes) for i in range(rank)), x.dtype)


def _expand_dims_batch(vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return expand_dims(moveaxis(x, d, 0), dimensions=shift_dims(dimensions)), 0


expand_dims_p = Primitive("expand_dims", shape_rule=_expand_dims_shape,
                          impl=lambda x, *, dimensions: np.expand_dims(x, axis=dimensions), jvp=LINEAR,
                          transpose=lambda ct, x, *, dimensions: [reshape(ct, new_sizes=x.aval.shape)],
                          batch=_expand_dims_batch,
                          lower=lambda ctx, x, *, dimensions: ctx.op("stablehlo.reshape", [x]))


def expand_dims(x, *, dimensions):
    """Insert size-1 axes at `dimensions`, positions in the output (negative counts from the output's end)."""
    rank = get_aval(x).ndim + len(dimensions)
    dimensions = tuple(sorted(normalize_axis("expand_dims", int(d), rank) for d in dimensions))
    if not dimensions:
        return x
    return expand_dims_p.bind(x, dimensions=dimensions)


# ---------------------------------------------------------------------------------------------- slice

def _slice_shape(x, *, start_indices, limit_indices, strides):
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise ShapeError(f"slice: operand {fmt(x)} has rank {x.ndim} but start_indices {list(start_indices)}, "
                         f"limit_indices {list(limit_indices)} and strides {list(strides)} must have one entry per "
                         "axis")
    for i, (lo, hi, st, n) in enumerate(zip(start_indices, limit_indices, strides, x.shape)):
        if not 0 <= lo <= hi <= n or st < 1:
            raise ShapeError(f"slice: axis {i} of {fmt(x)}: need 0 <= start ({lo}) <= limit ({hi}) <= size ({n}) and "
                             f"stride ({st}) >= 1")
    return ShapedArray(tuple(-(-(hi - lo) // st) for lo, hi, st in zip(start_indices, limit_indices, strides)),
                       x.dtype)


def _slice_impl(x, *, start_indices, limit_indices, strides):
    return x[tuple(builtins.slice(lo, hi, st) for lo, hi, st in zip(start_indices, limit_indices, strides))]


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    in_shape, out_shape = x.aval.shape, get_aval(ct).shape
    if 0 in out_shape:
        return [full_like(x.aval, 0)]
    # Strided elements go back to their places; the gaps between them are interior padding.
    config = tuple((lo, n - (lo + (k - 1) * st + 1), st - 1)
                   for lo, st, n, k in zip(start_indices, strides, in_shape, out_shape))
    return [pad(ct, scalar_like(ct, 0), padding_config=config)]


def _slice_batch(vals, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = vals, dims
    size = get_aval(x).shape[d]

    def at_d(params, value):
        return params[:d] + (value,) + params[d:]
    return slice(x, start_indices=at_d(start_indices, 0), limit_indices=at_d(limit_indices, size),
                 strides=at_d(strides, 1)), d


def _slice_lower(ctx, x, *, start_indices, limit_indices, strides):
    return ctx.generic_op("stablehlo.slice", [x], attrs=f"start_indices = {i64_array(start_indices)}, "
                          f"limit_indices = {i64_array(limit_indices)}, strides = {i64_array(strides)}")


slice_p = Primitive("slice", shape_rule=_slice_shape, impl=_slice_impl, jvp=LINEAR, transpose=_slice_transpose,
                    batch=_slice_batch, lower=_slice_lower)


def slice(x, *, start_indices, limit_indices, strides=None):  # noqa: A001 - lax's name
    """x[start:limit:stride] along every axis (static bounds, within the operand)."""
    ndim = get_aval(x).ndim
    start_indices, limit_indices = tuple(int(i) for i in start_indices), tuple(int(i) for i in limit_indices)
    strides = (1,) * ndim if strides is None else tuple(int(s) for s in strides)
    if start_indices == (0,) * ndim and limit_indices == get_aval(x).shape and strides == (1,) * ndim:
        return x
    return slice_p.bind(x, start_indices=start_indices, limit_indices=limit_indices, strides=strides)



# ---------------------------------------------------------------------------------------------- concatenate

def _concatenate_shape(*operands, dimension):
    if not operands:
        raise ShapeError("concatenate: needs at least one operand")
    first = operands[0]
    if not 0 <= dimension < first.ndim:
        raise ShapeError(f"concatenate: dimension {dimension} is out of range for operands of rank {first.ndim}")
    for o in operands[1:]:
        if o.dtype != first.dtype:
            raise DTypeError(f"concatenate: operand dtypes differ: {', '.join(fmt(o) for o in operands)}; cast them "
                             "to one dtype")
        if o.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(zip(o.shape, first.shape)) if i != dimension):
            raise ShapeError(f"concatenate: operands {', '.join(fmt(o) for o in operands)} must have equal sizes on "
                             f"every axis but dimension {dimension}")
    shape = list(first.shape)
    shape[dimension] = sum(o.shape[dimension] for o in operands)
    return ShapedArray(shape, first.dtype)


def _concatenate_transpose(ct, *operands, dimension):
    cts, begin = [], 0
    ct_shape = get_aval(ct).shape
    for o in operands:
        size = o.aval.shape[dimension]
        if is_undefined(o):
            start = tuple(begin if i == dimension else 0 for i in range(len(ct_shape)))
            limit = tuple(begin + size if i == dimension else n for i, n in enumerate(ct_shape))
            cts.append(slice(ct, start_indices=start, limit_indices=limit))
        else:
            cts.append(None)
        begin += size
    return cts


def _concatenate_batch(vals, dims, *, dimension):
    size = batch_size(vals, dims)
    return concatenate(*[bdim_at_front(v, d, size) for v, d in zip(vals, dims)], dimension=dimension + 1), 0


concatenate_p = Primitive("concatenate", shape_rule=_concatenate_shape,
                          impl=lambda *operands, dimension: np.concatenate(operands, axis=dimension), jvp=LINEAR,
                          transpose=_concatenate_transpose, batch=_concatenate_batch,
                          lower=lambda ctx, *operands, dimension: ctx.op("stablehlo.concatenate", list(operands),
                                                                         attrs=f"dim = {dimension}", sep=", "))


def concatenate(*operands, dimension: int):
    """Join tensors of one dtype and equal sizes except along `dimension`."""
    if not operands:
        raise ShapeError("concatenate: needs at least one operand")
    dimension = normalize_axis("concatenate", int(dimension), get_aval(operands[0]).ndim)
    if len(operands) == 1:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=dimension)


# ---------------------------------------------------------------------------------------------- pad

def _pad_shape(x, padding_value, *, padding_config):
    if padding_value.ndim != 0 or padding_value.dtype != x.dtype:
        raise DTypeError(f"pad: padding_value must be a 0-d Tensor of the operand's dtype {x.dtype.name}, got "
                         f"{fmt(padding_value)}")
    if len(padding_config) != x.ndim:
        raise ShapeError(f"pad: padding_config has {len(padding_config)} entries but operand {fmt(x)} has rank "
                         f"{x.ndim}; give one (low, high, interior) per axis")
    shape = []
    for i, ((lo, hi, interior), n) in enumerate(zip(padding_config, x.shape)):
        size = lo + hi + n + max(n - 1, 0) * interior
        if interior < 0 or size < 0:
            raise ShapeError(f"pad: axis {i} of {fmt(x)} with (low, high, interior) = ({lo}, {hi}, {interior}): "
                             "interior must be >= 0 and negative padding may remove at most the whole axis")
        shape.append(size)
    return ShapedArray(shape, x.dtype)


def _pad_impl(x, padding_value, *, padding_config):
    # Pad with the non-negative parts first, then crop where low/high are negative.
    grown = [max(lo, 0) + max(hi, 0) + n + max(n - 1, 0) * interior
             for (lo, hi, interior), n in zip(padding_config, x.shape)]
    out = np.full(grown, padding_value, dtype=x.dtype)
    out[tuple(builtins.slice(max(lo, 0), max(lo, 0) + n + max(n - 1, 0) * interior, interior + 1)
              for (lo, hi, interior), n in zip(padding_config, x.shape))] = x
    return out[tuple(builtins.slice(max(-lo, 0), g - max(-hi, 0))
                     for (lo, hi, _), g in zip(padding_config, grown))]


def _pad_transpose(ct, x, padding_value, *, padding_config):
    # Undo the cropping (zeros where operand elements were cut off), then step over the interior padding.
    uncropped = pad(ct, scalar_like(ct, 0), padding_config=tuple((-lo, -hi, 0) for lo, hi, _ in padding_config))
    uncropped_shape = get_aval(uncropped).shape
    ct_x = slice(uncropped, start_indices=(0,) * len(uncropped_shape), limit_indices=uncropped_shape,
                 strides=tuple(interior + 1 for _, _, interior in padding_config))
    ct_padding_value = None
    if is_undefined(padding_value):
        every_axis = tuple(range(len(uncropped_shape)))
        ct_padding_value = sub(reduce_sum(ct, axes=every_axis), reduce_sum(ct_x, axes=every_axis))
    return [ct_x if is_undefined(x) else None, ct_padding_value]


def _pad_batch(vals, dims, *, padding_config):
    (x, padding_value), (xd, pd) = vals, dims
    if pd is None:
        return pad(x, padding_value, padding_config=padding_config[:xd] + ((0, 0, 0),) + padding_config[xd:]), xd
    # One padding value per example: pad with zeros, then select each example's value where padding landed.
    size = batch_size(vals, dims)
    x = bdim_at_front(x, xd, size)
    example_shape = get_aval(x).shape[1:]
    padded = pad(x, scalar_like(x, 0), padding_config=((0, 0, 0),) + padding_config)
    out_shape = get_aval(padded).shape
    from_x = pad(full(example_shape, True, dtypes.bool_), Tensor(np.array(False)), padding_config=padding_config)
    from_x = broadcast_in_dim(from_x, shape=out_shape, broadcast_dimensions=tuple(range(1, len(out_shape))))
    values = broadcast_in_dim(bdim_at_front(padding_value, pd, size), shape=out_shape, broadcast_dimensions=(0,))
    return select(from_x, padded, values), 0



def _pad_lower(ctx, x, padding_value, *, padding_config):
    lo, hi, interior = ([c[i] for c in padding_config] for i in range(3))
    return ctx.op("stablehlo.pad", [x, padding_value], attrs=f"low = {lo}, high = {hi}, interior = {interior}",
                  sep=", ")


pad_p = Primitive("pad", shape_rule=_pad_shape, impl=_pad_impl, jvp=LINEAR, transpose=_pad_transpose, batch=_pad_batch,
                  lower=_pad_lower)


def pad(x, padding_value, *, padding_config):
    """Pad each axis with (low, high, interior) copies of the 0-d `padding_value`; negative low/high crop."""
    if not isinstance(padding_value, Tensor):
        padding_value = scalar_like(x, padding_value)
    padding_config = tuple((int(lo), int(hi), int(interior)) for lo, hi, interior in padding_config)
    if all(c == (0, 0, 0) for c in padding_config) and len(padding_config) == get_aval(x).ndim:
        return x
    return pad_p.bind(x, padding_value, padding_config=padding_config)


# ---------------------------------------------------------------------------------------------- rev

def _rev_shape(x, *, dimensions):
    check_dims("rev", "dimensions", dimensions, x.ndim)
    return x


def _rev_batch(vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return rev(x, dimensions=tuple(a + (a >= d) for a in dimensions)), d


rev_p = Primitive("rev", shape_rule=_rev_shape, impl=lambda x, *, dimensions: np.flip(x, axis=dimensions), jvp=LINEAR,
                  transpose=lambda ct, x, *, dimensions: [rev(ct, dimensions=dimensions)], batch=_rev_batch,
                  lower=lambda ctx, x, *, dimensions: ctx.op("stablehlo.reverse", [x], attrs=f"dims = {list(dimensions)}",
                                                             sep=", "))


def rev(x, *, dimensions):
    """Reverse the order of elements along `dimensions`."""
    ndim = get_aval(x).ndim
    dimensions = tuple(sorted({normalize_axis("rev", int(d), ndim) for d in dimensions}))
    if not dimensions:
        return x
    return rev_p.bind(x, dimensions=dimensions)


# ---------------------------------------------------------------------------------------------- optimization_barrier

optimization_barrier_p = Primitive(
    "optimization_barrier", shape_rule=lambda x: x, impl=lambda x: x, jvp=LINEAR,
    transpose=lambda ct, x: [optimization_barrier(ct)], batch=ELEMENTWISE,
    lower=lambda ctx, x: ctx.generic_op("stablehlo.optimization_barrier", [x]))


def optimization_barrier(x):
    """`x` unchanged, computed in full before any use: the compiler may not fuse it into its consumers or fold
    the operations that produce it into theirs (StableHLO's optimization_barrier, JAX's
    `lax.optimization_barrier`). Compiled CPU convolutions use it to keep a weight in the layout that was
    computed for them."""
    return optimization_barrier_p.bind(x)


# ---------------------------------------------------------------------------------------------- iota

def _iota_shape(*, dtype, shape, dimension):
    if dtype.kind not in "iuf":
        raise DTypeError(f"iota: dtype must be an integer or floating-point type, got {dtype.name}")
    if not 0 <= dimension < len(shape):
        raise ShapeError(f"iota: dimension {dimension} is out of range for shape {list(shape)} (iota needs rank >= 1)")
    return ShapedArray(shape, dtype)


def _iota_impl(*, dtype, shape, dimension):
    counts = np.arange(shape[dimension]).reshape([-1 if i == dimension else 1 for i in range(len(shape))])
    return np.broadcast_to(counts, shape).astype(dtype.np)


iota_p = Primitive("iota", shape_rule=_iota_shape, impl=_iota_impl, jvp=ZERO_TANGENT, transpose=NONLINEAR,
                   batch=unsupported("iota takes no operands, so vmap never sees it batched (bind runs it on the "
                                     "enclosing trace); this rule is never reached"),
                   lower=lambda ctx, *, dtype, shape, dimension: ctx.generic_op(
                       "stablehlo.iota", [], attrs=f"iota_dimension = {dimension} : i64"))


def iota(*, dtype, shape: tuple, dimension: int):
    """0, 1, 2, ... along `dimension` of a tensor of `shape`, constant along the other axes."""
    shape = tuple(int(s) for s in shape)
    return iota_p.bind(dtype=dtypes.as_dtype(dtype), shape=shape,
                       dimension=normalize_axis("iota", int(dimension), len(shape)))


def eye(rows: int, cols: int, *, dtype):
    """Ones on the diagonal, zeros elsewhere: row iota == column iota, the form lowering/simplify.py recognises as
    an identity (a product with it is folded into a relayout of the other operand)."""
    on_diagonal = eq(iota(dtype=dtypes.int32, shape=(rows, cols), dimension=0),
                     iota(dtype=dtypes.int32, shape=(rows, cols), dimension=1))
    return convert_element_type(on_diagonal, new_dtype=dtype)

