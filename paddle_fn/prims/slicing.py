"""Indexing primitives: dynamic_slice, dynamic_update_slice, gather, scatter_add, scatter (as XLA's, with their
dimension numbers). Each block gives every rule of one primitive."""
from __future__ import annotations

import builtins
import math
from dataclasses import dataclass

import numpy as np

from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front, moveaxis
from paddle_fn.core.dimension_numbers import GatherDimensionNumbers, freeze_as_int_tuples
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import Primitive, RuntimeCheck
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.emitter import i64_array, tensor_type
from paddle_fn.prims._rules import check_dims, fmt, shift_dims
from paddle_fn.prims.base import broadcast_in_dim, full, full_like, reduce_sum, reshape
from paddle_fn.prims.bitwise import not_, or_
from paddle_fn.prims.elementwise import count_true, gt, lt, select
from paddle_fn.prims.structural import concatenate, slice


def _check_start_indices(name, x, starts):
    if len(starts) != x.ndim:
        raise ShapeError(f"{name}: operand {fmt(x)} has rank {x.ndim} but {len(starts)} start indices were given; "
                         "pass one 0-d integer index per axis")
    for i, s in enumerate(starts):
        if s.ndim != 0 or s.dtype.kind not in "iu":
            raise DTypeError(f"{name}: start index {i} must be a 0-d integer Tensor, got {fmt(s)}")
    if len({s.dtype for s in starts}) > 1:
        raise DTypeError(f"{name}: start indices have different dtypes "
                         f"({', '.join(s.dtype.name for s in starts)}); cast them to one integer dtype")


def _start_checks(name, operand, starts, window):
    """A checked jit's "index" checks of a dynamic slice or update: each 0-D start lies in [0, size - window]."""
    checks = []
    for axis, (start, size, k) in enumerate(zip(starts, operand.shape, window)):
        aval = get_aval(start)
        outside = or_(lt(start, full_like(aval, 0)), gt(start, full_like(aval, size - k)))
        checks.append(RuntimeCheck("index", count_true(outside), start, (
            f"{name}: start index {{detail}} along axis {axis} is out of range for operand {fmt(operand)} with a "
            f"window of {k} (starts must lie in [0, {size - k}])")))
    return checks


def _as_start_indices(starts):
    """Python ints become 0-d Tensors of the dtype of the Tensor starts (int32 if there are none)."""
    dtype = next((get_aval(s).dtype.np for s in starts if not isinstance(s, (int, np.integer))), np.dtype(np.int32))
    return [Tensor(np.asarray(s, dtype)) if isinstance(s, (int, np.integer)) else s for s in starts]


# ---------------------------------------------------------------------------------------------- dynamic_slice

def _dynamic_slice_shape(x, *starts, slice_sizes):
    _check_start_indices("dynamic_slice", x, starts)
    if len(slice_sizes) != x.ndim or any(not 0 <= k <= n for k, n in zip(slice_sizes, x.shape)):
        raise ShapeError(f"dynamic_slice: slice_sizes {list(slice_sizes)} must have one entry per axis of {fmt(x)}, "
                         "each between 0 and that axis' size")
    return ShapedArray(slice_sizes, x.dtype)


def _clamped_starts(shape, starts, sizes):
    """Start indices moved into range so that the window fits (XLA semantics: never out of bounds)."""
    return [int(np.clip(np.int64(s), 0, n - k)) for s, n, k in zip(starts, shape, sizes)]


def _dynamic_slice_impl(x, *starts, slice_sizes):
    begin = _clamped_starts(x.shape, starts, slice_sizes)
    return x[tuple(builtins.slice(b, b + k) for b, k in zip(begin, slice_sizes))]


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    (x, *starts), (t, *_) = primals, tangents
    return (dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes),
            dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes))


def _dynamic_slice_transpose(ct, x, *starts, slice_sizes):
    return [dynamic_update_slice(full_like(x.aval, 0), ct, *starts)] + [None] * len(starts)


def _dynamic_slice_batch(vals, dims, *, slice_sizes):
    (x, *starts), (xd, *start_dims) = vals, dims
    size = batch_size(vals, dims)
    if all(d is None for d in start_dims):
        x = moveaxis(x, xd, 0)
        zero = Tensor(np.zeros((), get_aval(starts[0]).dtype.np if starts else np.int32))
        return dynamic_slice(x, zero, *starts, slice_sizes=(size,) + slice_sizes), 0
    # Each example has its own window: a gather with one index vector per example.
    indices = _stack_starts(starts, start_dims, size)
    window = tuple(range(1, len(starts) + 1))
    if xd is None:
        dnums = GatherDimensionNumbers(offset_dims=window, collapsed_slice_dims=(),
                                       start_index_map=tuple(range(len(starts))))
        return gather(x, indices, dimension_numbers=dnums, slice_sizes=slice_sizes), 0
    dnums = GatherDimensionNumbers(offset_dims=window, collapsed_slice_dims=(), start_index_map=window,
                                   operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    return gather(moveaxis(x, xd, 0), indices, dimension_numbers=dnums, slice_sizes=(1,) + slice_sizes), 0


def _stack_starts(starts, start_dims, size):
    """[size, len(starts)] index vectors from 0-d start indices batched along `start_dims` (or not)."""
    return concatenate(*[reshape(bdim_at_front(s, d, size), new_sizes=(size, 1)) for s, d in zip(starts, start_dims)],
                       dimension=1)


def _dynamic_slice_lower(ctx, x, *starts, slice_sizes):
    return ctx.op("stablehlo.dynamic_slice", [x, *starts], attrs=f"sizes = {list(slice_sizes)}", sep=", ")


dynamic_slice_p = Primitive("dynamic_slice", shape_rule=_dynamic_slice_shape, impl=_dynamic_slice_impl,
                            jvp=_dynamic_slice_jvp, transpose=_dynamic_slice_transpose, batch=_dynamic_slice_batch,
                            lower=_dynamic_slice_lower,
                            error_check=lambda inputs, outputs, *, slice_sizes: _start_checks(
                                "dynamic_slice", get_aval(inputs[0]), inputs[1:], slice_sizes))


def dynamic_slice(x, *start_indices, slice_sizes):
    """The window of `slice_sizes` at traced `start_indices` (0-d integers, one per axis), moved into range when
    it would run past an edge, as XLA does."""
    return dynamic_slice_p.bind(x, *_as_start_indices(start_indices),
                                slice_sizes=tuple(int(k) for k in slice_sizes))


# ---------------------------------------------------------------------------------------------- dynamic_update_slice

def _dynamic_update_slice_shape(x, update, *starts):
    if update.dtype != x.dtype:
        raise DTypeError(f"dynamic_update_slice: update dtype {update.dtype.name} differs from operand dtype "
                         f"{x.dtype.name}; cast one with .astype()")
    if update.ndim != x.ndim or any(u > n for u, n in zip(update.shape, x.shape)):
        raise ShapeError(f"dynamic_update_slice: update {fmt(update)} must have the rank of operand {fmt(x)} and fit "
                         "inside it")
    _check_start_indices("dynamic_update_slice", x, starts)
    return x


def _dynamic_update_slice_impl(x, update, *starts):
    begin = _clamped_starts(x.shape, starts, update.shape)
    out = x.copy()
    out[tuple(builtins.slice(b, b + k) for b, k in zip(begin, update.shape))] = update
    return out


def _dynamic_update_slice_jvp(primals, tangents):
    (x, update, *starts), (tx, tu, *_) = primals, tangents
    return dynamic_update_slice_p.bind(x, update, *starts), dynamic_update_slice_p.bind(tx, tu, *starts)


def _dynamic_update_slice_transpose(ct, x, update, *starts):
    ct_x = dynamic_update_slice(ct, full_like(update.aval, 0), *starts) if is_undefined(x) else None
    ct_update = dynamic_slice(ct, *starts, slice_sizes=update.aval.shape) if is_undefined(update) else None
    return [ct_x, ct_update] + [None] * len(starts)


def _dynamic_update_slice_batch(vals, dims):
    (x, update, *starts), (xd, ud, *start_dims) = vals, dims
    size = batch_size(vals, dims)
    x, update = bdim_at_front(x, xd, size), bdim_at_front(update, ud, size)
    if all(d is None for d in start_dims):
        zero = Tensor(np.zeros((), get_aval(starts[0]).dtype.np if starts else np.int32))
        return dynamic_update_slice(x, update, zero, *starts), 0
    window = tuple(range(1, len(starts) + 1))
    dnums = ScatterDimensionNumbers(update_window_dims=window, inserted_window_dims=(),
                                    scatter_dims_to_operand_dims=window, operand_batching_dims=(0,),
                                    scatter_indices_batching_dims=(0,))
    return scatter(x, _stack_starts(starts, start_dims, size), update, dimension_numbers=dnums), 0


dynamic_update_slice_p = Primitive("dynamic_update_slice", shape_rule=_dynamic_update_slice_shape,
                                   impl=_dynamic_update_slice_impl, jvp=_dynamic_update_slice_jvp,
                                   transpose=_dynamic_update_slice_transpose, batch=_dynamic_update_slice_batch,
                                   lower=lambda ctx, x, update, *starts: ctx.op("stablehlo.dynamic_update_slice",
                                                                                [x, update, *starts]),
                                   error_check=lambda inputs, outputs: _start_checks(
                                       "dynamic_update_slice", get_aval(inputs[0]), inputs[2:],
                                       get_aval(inputs[1]).shape))


def dynamic_update_slice(x, update, *start_indices):
    """x with the window at traced `start_indices` replaced by `update`; the start is moved into range when the
    window would run past an edge, as XLA does."""
    return dynamic_update_slice_p.bind(x, update, *_as_start_indices(start_indices))


# ---------------------------------------------------------------------------------------------- gather / scatter
# Both follow XLA with the index vector in the last axis of `indices` (as JAX): every other axis of `indices` is a
# batch axis. A start index is clamped so that its whole window lies inside the operand, for gather and scatter alike
# (StableHLO leaves out-of-bounds scatter undefined, so the scatter lowering clamps explicitly).

@dataclass(frozen=True)
class ScatterDimensionNumbers:
    """How a scatter writes its windows (XLA's ScatterDimensionNumbers; index_vector_dim is the last axis of indices).

    update_window_dims: axes of updates that hold the window axes (the operand axes neither inserted nor batching).
    inserted_window_dims: operand axes with window size 1 that updates do not have.
    scatter_dims_to_operand_dims: the operand axis each component of an index vector starts.
    operand_batching_dims / scatter_indices_batching_dims: operand axes paired with batch axes of indices.
    """
    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()

    def __post_init__(self):
        freeze_as_int_tuples(self)

    def window_dims(self, operand_rank: int) -> tuple:
        """The operand axes that windows span (neither inserted nor batching), matching update_window_dims."""
        return _window_dims(operand_rank, self.inserted_window_dims, self.operand_batching_dims)

    def window_sizes(self, operand_shape, updates_shape) -> tuple:
        """The window size along every operand axis: 1 on inserted and batching axes, else the updates' size."""
        sizes = [1] * len(operand_shape)
        for d, p in zip(self.window_dims(len(operand_shape)), self.update_window_dims):
            sizes[d] = updates_shape[p]
        return tuple(sizes)


def _scatter_dnums_of(dn: GatherDimensionNumbers) -> ScatterDimensionNumbers:
    return ScatterDimensionNumbers(dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map,
                                   dn.operand_batching_dims, dn.start_indices_batching_dims)


def _gather_dnums_of(dn: ScatterDimensionNumbers) -> GatherDimensionNumbers:
    return GatherDimensionNumbers(dn.update_window_dims, dn.inserted_window_dims, dn.scatter_dims_to_operand_dims,
                                  dn.operand_batching_dims, dn.scatter_indices_batching_dims)


def _check_indexing(name, operand, indices, *, window_positions, dropped, index_map, operand_batching,
                    indices_batching, result_rank, terms):
    """The checks gather and scatter share; `terms` names their fields in messages (gather's or scatter's)."""
    t_window, t_dropped, t_map, t_obatch, t_ibatch = terms
    if indices.dtype.kind not in "iu" or indices.ndim < 1:
        raise DTypeError(f"{name}: indices must be an integer Tensor with the index vector in its last axis, got "
                         f"{fmt(indices)}")
    check_dims(name, t_window, window_positions, result_rank)
    check_dims(name, t_dropped, dropped, operand.ndim)
    check_dims(name, t_obatch, operand_batching, operand.ndim)
    check_dims(name, t_ibatch, indices_batching, indices.ndim - 1, sorted_=False)
    check_dims(name, t_map, index_map, operand.ndim, sorted_=False)
    if len(index_map) != indices.shape[-1]:
        raise ShapeError(f"{name}: {t_map} {list(index_map)} has {len(index_map)} entries but the index vectors of "
                         f"indices {fmt(indices)} have {indices.shape[-1]} components")
    if set(dropped) & set(operand_batching) or set(index_map) & set(operand_batching):
        raise ShapeError(f"{name}: {t_obatch} {list(operand_batching)} may not appear in {t_dropped} "
                         f"{list(dropped)} or {t_map} {list(index_map)}")
    if len(operand_batching) != len(indices_batching) or any(
            operand.shape[o] != indices.shape[i] for o, i in zip(operand_batching, indices_batching)):
        raise ShapeError(f"{name}: {t_obatch} {list(operand_batching)} of operand {fmt(operand)} and {t_ibatch} "
                         f"{list(indices_batching)} of indices {fmt(indices)} must pair axes of equal size")
    n_window = operand.ndim - len(dropped) - len(operand_batching)
    if len(window_positions) != n_window:
        raise ShapeError(f"{name}: operand {fmt(operand)} has {n_window} window axes (not in {t_dropped} or "
                         f"{t_obatch}) but {t_window} {list(window_positions)} has {len(window_positions)}")


def _window_dims(ndim, dropped, operand_batching):
    return tuple(d for d in range(ndim) if d not in dropped and d not in operand_batching)


def _operand_index_grid(operand_shape, indices, result_shape, window_positions, window_sizes, window_dims,
                        index_map, operand_batching, indices_batching):
    """The operand index that each element of a gather result (or scatter update) reads (or writes), as a tuple of
    integer arrays of `result_shape`. Starts are clamped so that each window lies inside the operand."""
    rank = len(result_shape)
    batch_positions = [p for p in range(rank) if p not in window_positions]
    batch_shape = indices.shape[:-1]

    def along(values, positions):
        shape = [1] * rank
        for axis, p in enumerate(positions):
            shape[p] = values.shape[axis]
        return values.reshape(shape)

    starts = [np.zeros(batch_shape, np.int64) for _ in operand_shape]
    for k, d in enumerate(index_map):
        starts[d] = np.clip(indices[..., k].astype(np.int64), 0, operand_shape[d] - window_sizes[d])
    for d, i in zip(operand_batching, indices_batching):
        starts[d] = np.broadcast_to(np.arange(batch_shape[i]).reshape(
            [-1 if a == i else 1 for a in range(len(batch_shape))]), batch_shape)
    grid = []
    for d in range(len(operand_shape)):
        g = along(starts[d], batch_positions)
        if d in window_dims:
            g = g + along(np.arange(window_sizes[d]), [window_positions[window_dims.index(d)]])
        grid.append(np.broadcast_to(g, result_shape))
    return tuple(grid)


def _in_bounds_mask(operand_shape, indices, index_map, window_sizes, result_shape, window_positions):
    """Bool of `result_shape`: True where the window's unclamped start index lies in range."""
    idx_aval = get_aval(indices)
    upper = np.array([operand_shape[d] - window_sizes[d] for d in index_map], idx_aval.dtype.np)
    upper = broadcast_in_dim(Tensor(upper), shape=idx_aval.shape, broadcast_dimensions=(idx_aval.ndim - 1,))
    outside = or_(lt(indices, full_like(idx_aval, 0)), gt(indices, upper))
    any_outside = reduce_sum(outside, axes=(idx_aval.ndim - 1,))
    batch_positions = tuple(p for p in range(len(result_shape)) if p not in window_positions)
    return broadcast_in_dim(not_(any_outside), shape=result_shape, broadcast_dimensions=batch_positions)


def _index_vector_checks(name, operand, indices, index_map, window):
    """A checked jit's "index" checks of a gather or scatter: along each operand axis the index vectors start, every
    start lies in [0, size - window] (compiled, a start outside is clamped)."""
    aval = get_aval(indices)
    batch, n = aval.shape[:-1], aval.shape[-1]
    checks = []
    for k, axis in enumerate(index_map):
        starts = reshape(slice(indices, start_indices=(0,) * len(batch) + (k,), limit_indices=batch + (k + 1,),
                               strides=(1,) * aval.ndim), new_sizes=batch)
        low, high = full(batch, 0, aval.dtype), full(batch, operand.shape[axis] - window[axis], aval.dtype)
        outside = or_(lt(starts, low), gt(starts, high))
        checks.append(RuntimeCheck("index", count_true(outside), None, (
            f"{name}: {{failures}} of the {math.prod(batch)} start indices along axis {axis} of operand "
            f"{fmt(operand)} are out of range (indices {fmt(aval)}, component {k} of {n}; with a window of "
            f"{window[axis]} they must lie in [0, {operand.shape[axis] - window[axis]}])")))
    return checks


# -------------------------------------------------------------------------------- gather

_GATHER_TERMS = ("offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
                 "start_indices_batching_dims")


def _gather_shape(operand, indices, *, dimension_numbers, slice_sizes):
    dn = dimension_numbers
    result_rank = indices.ndim - 1 + len(dn.offset_dims)
    _check_indexing("gather", operand, indices, window_positions=dn.offset_dims, dropped=dn.collapsed_slice_dims,
                    index_map=dn.start_index_map, operand_batching=dn.operand_batching_dims,
                    indices_batching=dn.start_indices_batching_dims, result_rank=result_rank, terms=_GATHER_TERMS)
    if len(slice_sizes) != operand.ndim or any(not 0 <= k <= n for k, n in zip(slice_sizes, operand.shape)):
        raise ShapeError(f"gather: slice_sizes {list(slice_sizes)} must have one entry per axis of operand "
                         f"{fmt(operand)}, each between 0 and that axis' size")
    if any(slice_sizes[d] != 1 for d in dn.collapsed_slice_dims + dn.operand_batching_dims):
        raise ShapeError(f"gather: slice_sizes {list(slice_sizes)} must be 1 on collapsed_slice_dims "
                         f"{list(dn.collapsed_slice_dims)} and operand_batching_dims {list(dn.operand_batching_dims)}")
    return ShapedArray(_gather_result_shape(operand.shape, indices.shape, dn, slice_sizes), operand.dtype)


def _gather_result_shape(operand_shape, indices_shape, dn, slice_sizes) -> tuple:
    """The shape of a (checked) gather's result: the window sizes at offset_dims, the indices' batch dims between."""
    batch = iter(indices_shape[:-1])
    window = iter(slice_sizes[d] for d in _window_dims(len(operand_shape), dn.collapsed_slice_dims,
                                                       dn.operand_batching_dims))
    return tuple(next(window) if p in dn.offset_dims else next(batch)
                 for p in range(len(indices_shape) - 1 + len(dn.offset_dims)))


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes):
    dn = dimension_numbers
    result_shape = _gather_result_shape(operand.shape, indices.shape, dn, slice_sizes)
    grid = _operand_index_grid(operand.shape, indices, result_shape, dn.offset_dims, slice_sizes,
                               _window_dims(operand.ndim, dn.collapsed_slice_dims, dn.operand_batching_dims),
                               dn.start_index_map, dn.operand_batching_dims, dn.start_indices_batching_dims)
    return np.broadcast_to(operand[grid], result_shape)


def _gather_jvp(primals, tangents, *, dimension_numbers, slice_sizes):
    (operand, indices), (t, _) = primals, tangents
    return (gather_p.bind(operand, indices, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes),
            gather_p.bind(t, indices, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes))


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes):
    return [scatter_add(full_like(operand.aval, 0), indices, ct,
                        dimension_numbers=_scatter_dnums_of(dimension_numbers)),
            None]


def _gather_batch(vals, dims, *, dimension_numbers, slice_sizes):
    (operand, indices), (od, idd) = vals, dims
    dn = dimension_numbers
    if idd is None:  # the batch axis becomes a leading window axis taken whole
        operand = moveaxis(operand, od, 0)
        dn = GatherDimensionNumbers((0,) + shift_dims(dn.offset_dims), shift_dims(dn.collapsed_slice_dims),
                                    shift_dims(dn.start_index_map), shift_dims(dn.operand_batching_dims),
                                    dn.start_indices_batching_dims)
        slice_sizes = (get_aval(operand).shape[0],) + slice_sizes
    elif od is None:  # a leading batch axis of indices, so a leading result axis
        indices = moveaxis(indices, idd, 0)
        dn = GatherDimensionNumbers(shift_dims(dn.offset_dims), dn.collapsed_slice_dims, dn.start_index_map,
                                    dn.operand_batching_dims, shift_dims(dn.start_indices_batching_dims))
    else:  # example b of indices reads example b of operand: a batching-dims pair
        operand, indices = moveaxis(operand, od, 0), moveaxis(indices, idd, 0)
        dn = GatherDimensionNumbers(shift_dims(dn.offset_dims), shift_dims(dn.collapsed_slice_dims),
                                    shift_dims(dn.start_index_map), (0,) + shift_dims(dn.operand_batching_dims),
                                    (0,) + shift_dims(dn.start_indices_batching_dims))
        slice_sizes = (1,) + slice_sizes
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=slice_sizes), 0


def _gather_lower(ctx, operand, indices, *, dimension_numbers, slice_sizes):
    dn = dimension_numbers
    fields_text = ", ".join(f"{k} = {list(v)}" for k, v in (
        ("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
        ("operand_batching_dims", dn.operand_batching_dims),
        ("start_indices_batching_dims", dn.start_indices_batching_dims),
        ("start_index_map", dn.start_index_map)) if v)
    index_vector_dim = ctx.avals_in[1].ndim - 1
    sep = ", " if fields_text else ""
    return ctx.generic_op("stablehlo.gather", [operand, indices], attrs=(
        f"dimension_numbers = #stablehlo.gather<{fields_text}{sep}index_vector_dim = {index_vector_dim}>, "
        f"slice_sizes = {i64_array(slice_sizes)}, indices_are_sorted = false"))


gather_p = Primitive("gather", shape_rule=_gather_shape, impl=_gather_impl, jvp=_gather_jvp, linear_in=(0,),
                     transpose=_gather_transpose, batch=_gather_batch, lower=_gather_lower,
                     error_check=lambda inputs, outputs, *, dimension_numbers, slice_sizes: _index_vector_checks(
                         "gather", get_aval(inputs[0]), inputs[1], dimension_numbers.start_index_map, slice_sizes))


def gather(operand, indices, *, dimension_numbers: GatherDimensionNumbers, slice_sizes: tuple, mode: str = "clip"):
    """XLA's gather with the index vector in the last axis of `indices`.

    mode "clip": start indices are clamped so each window lies inside the operand; "fill": windows whose start is
    out of range read zeros.
    """
    slice_sizes = tuple(int(k) for k in slice_sizes)
    out = gather_p.bind(operand, indices, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes)
    if mode == "clip":
        return out
    if mode != "fill":
        raise ValueError(f"gather: mode must be 'clip' or 'fill', got {mode!r}")
    out_aval = get_aval(out)
    mask = _in_bounds_mask(get_aval(operand).shape, indices, dimension_numbers.start_index_map, slice_sizes,
                           out_aval.shape, dimension_numbers.offset_dims)
    return select(mask, out, full_like(out_aval, 0))


# -------------------------------------------------------------------------------- scatter_add / scatter

_SCATTER_TERMS = ("update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
                  "operand_batching_dims", "scatter_indices_batching_dims")


def _scatter_shape_rule(name):
    def rule(operand, indices, updates, *, dimension_numbers):
        dn = dimension_numbers
        if updates.dtype != operand.dtype:
            raise DTypeError(f"{name}: updates dtype {updates.dtype.name} differs from operand dtype "
                             f"{operand.dtype.name}; cast one with .astype()")
        _check_indexing(name, operand, indices, window_positions=dn.update_window_dims,
                        dropped=dn.inserted_window_dims, index_map=dn.scatter_dims_to_operand_dims,
                        operand_batching=dn.operand_batching_dims, indices_batching=dn.scatter_indices_batching_dims,
                        result_rank=updates.ndim, terms=_SCATTER_TERMS)
        scatter_shape = tuple(s for p, s in enumerate(updates.shape) if p not in dn.update_window_dims)
        window = dn.window_sizes(operand.shape, updates.shape)
        if scatter_shape != indices.shape[:-1] or any(k > n for k, n in zip(window, operand.shape)):
            raise ShapeError(f"{name}: updates {fmt(updates)} do not match indices {fmt(indices)} and operand "
                             f"{fmt(operand)}: the axes of updates outside update_window_dims "
                             f"{list(dn.update_window_dims)} must be the batch axes of indices "
                             f"{list(indices.shape[:-1])}, and each window must fit inside the operand")
        return operand
    return rule


def _scatter_checks(name):
    def check(inputs, outputs, *, dimension_numbers):
        operand, updates = get_aval(inputs[0]), get_aval(inputs[2])
        return _index_vector_checks(name, operand, inputs[1], dimension_numbers.scatter_dims_to_operand_dims,
                                    dimension_numbers.window_sizes(operand.shape, updates.shape))
    return check


def _scatter_impl_of(combine):
    def impl(operand, indices, updates, *, dimension_numbers):
        dn = dimension_numbers
        grid = _operand_index_grid(operand.shape, indices, updates.shape, dn.update_window_dims,
                                   dn.window_sizes(operand.shape, updates.shape),
                                   dn.window_dims(operand.ndim),
                                   dn.scatter_dims_to_operand_dims, dn.operand_batching_dims,
                                   dn.scatter_indices_batching_dims)
        out = operand.copy()
        combine(out, grid, updates)
        return out
    return impl


def _scatter_add_combine(out, grid, updates):
    (np.logical_or if out.dtype == np.bool_ else np.add).at(out, grid, updates)


def _scatter_combine(out, grid, updates):
    out[grid] = updates


def _scatter_batch_rule(get_prim):
    def rule(vals, dims, *, dimension_numbers):
        (operand, indices, updates), (od, idd, ud) = vals, dims
        size = batch_size(vals, dims)
        operand, updates = bdim_at_front(operand, od, size), bdim_at_front(updates, ud, size)
        dn = dimension_numbers
        if idd is None:  # the batch axis becomes a leading window axis written whole
            dn = ScatterDimensionNumbers((0,) + shift_dims(dn.update_window_dims), shift_dims(dn.inserted_window_dims),
                                         shift_dims(dn.scatter_dims_to_operand_dims),
                                         shift_dims(dn.operand_batching_dims), dn.scatter_indices_batching_dims)
        else:  # example b of indices writes example b of operand: a batching-dims pair
            indices = moveaxis(indices, idd, 0)
            dn = ScatterDimensionNumbers(shift_dims(dn.update_window_dims), shift_dims(dn.inserted_window_dims),
                                         shift_dims(dn.scatter_dims_to_operand_dims),
                                         (0,) + shift_dims(dn.operand_batching_dims),
                                         (0,) + shift_dims(dn.scatter_indices_batching_dims))
        return get_prim().bind(operand, indices, updates, dimension_numbers=dn), 0
    return rule


def _scatter_lower_rule(update_region):
    def lower(ctx, operand, indices, updates, *, dimension_numbers):
        """stablehlo.scatter with the starts clamped so each window lies inside the operand, as gather clamps
        (StableHLO leaves an out-of-bounds scatter undefined)."""
        dn = dimension_numbers
        op_aval, idx_aval, upd_aval = ctx.avals_in
        window = dn.window_sizes(op_aval.shape, upd_aval.shape)
        vec_aval = ShapedArray((idx_aval.shape[-1],), idx_aval.dtype)
        upper = ctx.constant([op_aval.shape[d] - window[d] for d in dn.scatter_dims_to_operand_dims], vec_aval)
        upper = ctx.op("stablehlo.broadcast_in_dim", [upper], idx_aval, attrs=f", dims = [{idx_aval.ndim - 1}]",
                       in_avals=[vec_aval])
        lower_bound = ctx.constant(0, idx_aval)
        clamped = ctx.op("stablehlo.clamp", [lower_bound, indices, upper], idx_aval, in_avals=[idx_aval] * 3)
        batching = (f"input_batching_dims = {list(dn.operand_batching_dims)}, "
                    f"scatter_indices_batching_dims = {list(dn.scatter_indices_batching_dims)}, "
                    if dn.operand_batching_dims else "")
        res = ctx.fresh()
        sig = f"({tensor_type(op_aval)}, {tensor_type(idx_aval)}, {tensor_type(upd_aval)}) -> {tensor_type(op_aval)}"
        ctx.line(f'{res} = "stablehlo.scatter"({operand}, {clamped}, {updates}) ({update_region(ctx, op_aval.dtype)}) '
                 f"{{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = "
                 f"{list(dn.update_window_dims)}, inserted_window_dims = {list(dn.inserted_window_dims)}, {batching}"
                 f"scatter_dims_to_operand_dims = {list(dn.scatter_dims_to_operand_dims)}, "
                 f"index_vector_dim = {idx_aval.ndim - 1}>, indices_are_sorted = false, unique_indices = false}} : {sig}")
        return res
    return lower


def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers):
    ct_updates = None
    if is_undefined(updates):
        slice_sizes = dimension_numbers.window_sizes(operand.aval.shape, updates.aval.shape)
        ct_updates = gather(ct, indices, dimension_numbers=_gather_dnums_of(dimension_numbers), slice_sizes=slice_sizes)
    return [ct if is_undefined(operand) else None, None, ct_updates]


def _scatter_add_jvp(primals, tangents, *, dimension_numbers):
    (operand, indices, updates), (t_operand, _, t_updates) = primals, tangents
    return (scatter_add_p.bind(operand, indices, updates, dimension_numbers=dimension_numbers),
            scatter_add_p.bind(t_operand, indices, t_updates, dimension_numbers=dimension_numbers))


scatter_add_p = Primitive("scatter_add", shape_rule=_scatter_shape_rule("scatter_add"),
                          impl=_scatter_impl_of(_scatter_add_combine), jvp=_scatter_add_jvp,
                          transpose=_scatter_add_transpose, batch=_scatter_batch_rule(lambda: scatter_add_p),
                          lower=_scatter_lower_rule(lambda ctx, dtype: ctx.scalar_region(
                                    "stablehlo.or" if dtype.kind == "b" else "stablehlo.add", dtype)),
                          error_check=_scatter_checks("scatter_add"))


def _check_scatter_mode(name, mode):
    if mode != "clip":
        raise ValueError(f"{name}: mode must be 'clip' (start indices are clamped so each window lies inside the "
                         f"operand), got {mode!r}; to drop out-of-range updates, mask them first (e.g. with "
                         "paddle_fn.where) and clamp the indices")


def scatter_add(operand, indices, updates, *, dimension_numbers: ScatterDimensionNumbers, mode: str = "clip"):
    """operand with `updates` added at the windows `indices` select (duplicates accumulate); XLA's scatter with the
    index vector in the last axis of `indices`, starts clamped so each window lies inside the operand."""
    _check_scatter_mode("scatter_add", mode)
    return scatter_add_p.bind(operand, indices, updates, dimension_numbers=dimension_numbers)


def _scatter_jvp(primals, tangents, *, dimension_numbers):
    # Exact when indices are unique: the written windows take the updates' tangent, the rest keep the operand's.
    (operand, indices, updates), (t_operand, _, t_updates) = primals, tangents
    return (scatter_p.bind(operand, indices, updates, dimension_numbers=dimension_numbers),
            scatter_p.bind(t_operand, indices, t_updates, dimension_numbers=dimension_numbers))


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers):
    ct_operand = ct_updates = None
    if is_undefined(operand):  # overwritten windows do not reach the output
        ct_operand = scatter(ct, indices, full_like(updates.aval, 0), dimension_numbers=dimension_numbers)
    if is_undefined(updates):
        slice_sizes = dimension_numbers.window_sizes(operand.aval.shape, updates.aval.shape)
        ct_updates = gather(ct, indices, dimension_numbers=_gather_dnums_of(dimension_numbers), slice_sizes=slice_sizes)
    return [ct_operand, None, ct_updates]


def _return_new_value_region(ctx, dtype):
    t = tensor_type(ShapedArray((), dtype))
    old, new = ctx.fresh(), ctx.fresh()
    return (f"{{\n{' ' * (ctx.indent + 2)}^bb0({old}: {t}, {new}: {t}):\n"
            f"{' ' * (ctx.indent + 4)}stablehlo.return {new} : {t}\n{' ' * ctx.indent}}}")


scatter_p = Primitive("scatter", shape_rule=_scatter_shape_rule("scatter"), impl=_scatter_impl_of(_scatter_combine),
                      jvp=_scatter_jvp, transpose=_scatter_transpose, batch=_scatter_batch_rule(lambda: scatter_p),
                      lower=_scatter_lower_rule(_return_new_value_region),
                      error_check=_scatter_checks("scatter"))


def scatter(operand, indices, updates, *, dimension_numbers: ScatterDimensionNumbers, mode: str = "clip"):
    """operand with the windows `indices` select replaced by `updates`; XLA's scatter with the index vector in the
    last axis of `indices`, starts clamped so each window lies inside the operand. Derivatives assume the indices
    are unique (with duplicates, which update lands is unspecified)."""
    _check_scatter_mode("scatter", mode)
    return scatter_p.bind(operand, indices, updates, dimension_numbers=dimension_numbers)


