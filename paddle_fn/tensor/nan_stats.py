"""Order statistics that skip NaNs: `nanmedian` and `nanquantile` (with numpy's five interpolation rules). The
values are sorted once (NaNs sort last) and each row's own count of numbers picks the ranks, so shapes stay static
and grad, vmap and jit see through them; the gradient reaches the elements the result is made of, as in Paddle.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axes
from paddle_fn.tensor.logic import isnan
from paddle_fn.tensor.manipulation import reshape, stack, take_along_axis, transpose, where
from paddle_fn.tensor.math import ceil, floor, max as m_max, maximum, mod, sum as sum_
from paddle_fn.tensor.search import argmax
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["nanmedian", "nanquantile"]

_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _rows(op, x, axis, keepdim):
    """x with the reduced axes moved last and merged into one: (rows [..., K], result shape)."""
    x = as_tensor(x)
    shape = list(get_aval(x).shape)
    axes = normalize_axes(op, axis, len(shape))
    kept = [d for d in range(len(shape)) if d not in axes]
    size = int(np.prod([shape[d] for d in axes], dtype=np.int64))
    if size == 0:
        raise ShapeError(f"{op}: cannot take it over an empty dimension (shape {shape})")
    rows = reshape(transpose(x, kept + list(axes)), [shape[d] for d in kept] + [size])
    out_shape = [1 if d in axes else s for d, s in enumerate(shape)] if keepdim else [shape[d] for d in kept]
    return rows, out_shape


def _sorted_with_counts(rows):
    """(sorted values with NaNs last, their original positions, the count of numbers per row)."""
    shape = get_aval(rows).shape
    positions = st.iota(dtype=dtypes.int64, shape=shape, dimension=len(shape) - 1)
    values, order = red.sort(rows, positions, dimension=len(shape) - 1)
    count = sum_(cast(~isnan(rows), dtypes.int64), axis=-1, keepdim=True)
    return values, order, count


def _at(values, rank):
    """values[..., rank] for a per-row rank ([..., 1] int64), clamped into the row."""
    return take_along_axis(values, maximum(rank, 0), -1)


def round_half_to_even(pos):
    """pos rounded to the nearest integer, halves to the even one (numpy's rule; quantile's 'nearest' and
    grid_sample's 'nearest' use it)."""
    lo = floor(pos)
    frac = pos - lo
    return where(frac > 0.5, lo + 1, where(frac < 0.5, lo, lo + mod(lo, 2)))


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median over `axis` (None: all; an int or a list) ignoring NaNs; NaN where a slice holds only NaNs.
    ``mode='avg'`` averages the two middle values of an even count; ``mode='min'`` takes the lower one and, when
    `axis` is one int, also returns its index in the input (int64; -1 for an all-NaN slice); a list of axes gives
    the values only, as Paddle 3.3.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, float('nan'), 3.0, 2.0], [4.0, 1.0, float('nan'), 7.0]])
        >>> paddle.nanmedian(x, axis=1).tolist(), paddle.nanmedian(x).item()
        ([2.0, 4.0], 2.5)
        >>> values, indices = paddle.nanmedian(x, axis=1, mode='min')
        >>> indices.tolist()
        [3, 0]
        >>> paddle.nanmedian(x, axis=[0, 1], mode='min').item()
        2.0
    """
    return middle_value("nanmedian", x, axis, keepdim, mode, skip_nan=True)


def middle_value(op, x, axis, keepdim, mode, skip_nan):
    """The median by sorting, with NaNs skipped (`skip_nan`) or making their slice's result NaN. mode 'min' also
    gives an index (when `axis` is one int, not a list): the last position holding the median value, as Paddle's;
    -1 for an all-NaN slice when skipping, the first NaN's position otherwise."""
    if mode not in ("avg", "min"):
        raise ValueError(f"{op}: mode must be 'avg' or 'min', got {mode!r}")
    rows, out_shape = _rows(op, x, axis, keepdim)
    values, _, count = _sorted_with_counts(rows)
    size = get_aval(rows).shape[-1]
    floats = get_aval(values).dtype.kind == "f"
    lower = (count - 1) // 2 if skip_nan else st.full_like(count, (size - 1) // 2)
    undefined = (count == 0) if skip_nan else (count < size)
    if mode == "min":
        out = _at(values, lower)
        if floats:
            out = where(undefined, st.full_like(out, np.nan), out)
        if axis is None or isinstance(axis, (list, tuple)):
            return reshape(out, out_shape)
        positions = st.iota(dtype=dtypes.int64, shape=get_aval(rows).shape, dimension=get_aval(rows).ndim - 1)
        last = m_max(where(rows == out, positions, st.full_like(positions, -1)), axis=-1, keepdim=True)
        if skip_nan:
            index = where(undefined, st.full_like(last, -1), last)
        else:
            first_nan = argmax(cast(isnan(rows), dtypes.int32), axis=-1, keepdim=True) if floats else last
            index = where(undefined, first_nan, last)
        return reshape(out, out_shape), reshape(index, out_shape)
    upper = count // 2 if skip_nan else st.full_like(count, size // 2)
    low, high = _at(values, lower), _at(values, upper)
    if floats:
        middle = where(undefined, st.full_like(low, np.nan), (low + high) / 2)
    else:  # integers: nanmedian keeps the dtype (Paddle 3.3.1 rounds down)
        middle = cast((low + high) // 2, get_aval(values).dtype)
    return reshape(middle, out_shape)


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The `q`-th quantile(s) over `axis` ignoring NaNs (NaN where a slice holds only NaNs). Between two ranks
    `interpolation` picks 'linear', 'lower', 'higher', 'nearest' (halves to even) or 'midpoint'. A list of q
    stacks the results along a new leading axis.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, float('nan'), 3.0, 2.0], [4.0, 1.0, float('nan'), 7.0]])
        >>> paddle.nanquantile(x, 0.3, axis=1).numpy()
        array([1.6      , 2.8000002], dtype=float32)
        >>> paddle.nanquantile(x, [0.25, 0.5]).tolist()
        [1.25, 2.5]
    """
    return order_quantile("nanquantile", x, q, axis, keepdim, interpolation, skip_nan=True)


def order_quantile(op, x, q, axis, keepdim, interpolation, skip_nan):
    """The `q`-th quantile(s) of `x` over `axis` by sorting: NaNs skipped (`skip_nan`) or, like numpy's
    quantile, making their slice's result NaN."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{op}: interpolation must be one of {list(_INTERPOLATIONS)}, got {interpolation!r}")
    qs = np.asarray(as_tensor(q).concrete_value() if hasattr(q, "shape") else q, dtype=np.float64)
    if np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"{op}: q must lie in [0, 1], got {qs.tolist()}")
    rows, out_shape = _rows(op, x, axis, keepdim)
    if get_aval(rows).dtype.kind != "f":
        rows = cast(rows, dtypes.float32)
    values, _, count = _sorted_with_counts(rows)
    size = get_aval(rows).shape[-1]
    dtype = get_aval(values).dtype
    last = cast(count - 1, dtype)
    outs = []
    for v in qs.reshape(-1):
        pos = last * float(v)
        lo, hi = floor(pos), ceil(pos)
        below, above = _at(values, cast(lo, dtypes.int64)), _at(values, cast(hi, dtypes.int64))
        if interpolation == "linear":
            out = below + (pos - lo) * (above - below)
        elif interpolation == "lower":
            out = below
        elif interpolation == "higher":
            out = above
        elif interpolation == "midpoint":
            out = (below + above) / 2
        else:
            out = _at(values, cast(round_half_to_even(pos), dtypes.int64))
        undefined = count == 0 if skip_nan else count < size
        outs.append(reshape(where(undefined, st.full_like(out, np.nan), out), out_shape))
    return outs[0] if qs.ndim == 0 else stack(outs)
