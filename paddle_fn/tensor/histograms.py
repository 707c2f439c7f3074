"""`histogram_bin_edges` and `histogramdd` (Paddle 3): equal-width bins over a given or the data's range, counted
with one scatter-add, so the shapes are static and jit and vmap work; `histogramdd` takes weights and a density.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import structural as st
from paddle_fn.tensor.creation import linspace, zeros
from paddle_fn.tensor.manipulation import reshape, where
from paddle_fn.tensor.math import clip, floor, max as max_, min as min_, sum as sum_
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["histogram_bin_edges", "histogramdd"]

def _work_dtype(x):
    return dtypes.float64 if get_aval(x).dtype == dtypes.float64 else dtypes.float32

def _range(values, lo, hi):
    """(lo, hi) as 0-D Tensors: the data's range when both are 0 (None for histogramdd), widened by 0.5 on each
    side when it is a single value, as numpy does."""
    if lo is None or (lo == 0 and hi == 0):
        lo, hi = min_(values), max_(values)
    else:
        if float(lo) > float(hi):
            raise ValueError(f"histogram: max ({hi}) must not be less than min ({lo})")
        lo, hi = (cast(as_tensor(float(v)), get_aval(values).dtype) for v in (lo, hi))
    same = lo == hi
    return where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)

def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):  # noqa: A002 - Paddle's names
    """The `bins` + 1 edges of the equal-width bins ``paddle.histogram`` would count `input` in: over [min, max],
    or over the data's range when both are 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.histogram_bin_edges(paddle.to_tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
        [0.0, 0.75, 1.5, 2.25, 3.0]
    """
    x = as_tensor(input)
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"histogram_bin_edges: bins must be >= 1, got {bins}")
    x = cast(x, _work_dtype(x))
    lo, hi = _range(reshape(x, [-1]), min, max)
    steps = cast(linspace(0.0, 1.0, bins + 1, dtype="float64"), get_aval(x).dtype)
    return lo + steps * (hi - lo)

def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """The D-dimensional histogram of the points `x` [..., D]: `bins` (an int, or one per dimension) equal-width
    bins per dimension over `ranges` (``[lo0, hi0, lo1, hi1, ...]``; None: the data's range), each point counted
    once (or with its `weights`); points outside are not counted. Returns (the histogram, shape [bins0, bins1, ...];
    the list of each dimension's edges). With `density` the histogram integrates to 1 over the range.

    Example:
        >>> import paddle_fn as paddle
        >>> points = paddle.to_tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
        >>> hist, edges = paddle.histogramdd(points, bins=[3, 3])
        >>> hist.tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 1.0]]
    """
    x = as_tensor(x)
    if get_aval(x).ndim < 2:
        raise ShapeError(f"histogramdd: x must be [..., D] with at least 2 dimensions, got shape "
                         f"{list(get_aval(x).shape)}")
    dims = get_aval(x).shape[-1]
    dtype = _work_dtype(x)
    points = reshape(cast(x, dtype), [-1, dims])
    counts = [int(bins)] * dims if isinstance(bins, (int, np.integer)) else [int(b) for b in bins]
    if len(counts) != dims or min(counts) < 1:
        raise ValueError(f"histogramdd: bins must be a positive int or one per dimension ({dims}), got {bins}")
    if ranges is not None and len(ranges) != 2 * dims:
        raise ValueError(f"histogramdd: ranges must hold 2 * D = {2 * dims} numbers, got {len(ranges)}")
    n = get_aval(points).shape[0]
    flat_bin = st.full((n,), 0, dtypes.int64)
    inside = st.full((n,), True, dtypes.bool_)
    edges, widths = [], []
    for d in range(dims):
        v = points[:, d]
        lo, hi = _range(v, None if ranges is None else ranges[2 * d], None if ranges is None else ranges[2 * d + 1])
        width = (hi - lo) / counts[d]
        # the last bin includes its right edge
        index = cast(clip(floor((v - lo) / width), 0, counts[d] - 1), dtypes.int64)
        flat_bin = flat_bin * counts[d] + index
        inside = inside & (v >= lo) & (v <= hi)
        steps = cast(linspace(0.0, 1.0, counts[d] + 1, dtype="float64"), dtype)
        edges.append(lo + steps * (hi - lo))
        widths.append(width)
    weight = st.full((n,), 1, dtype) if weights is None else cast(reshape(as_tensor(weights), [n]), dtype)
    weight = where(inside, weight, st.full_like(weight, 0))
    hist = zeros([int(np.prod(counts))], dtype=dtype).at[flat_bin].add(weight)
    if density:
        volume = widths[0]
        for w in widths[1:]:
            volume = volume * w
        hist = hist / (sum_(hist) * volume)
    return reshape(hist, counts), edges
