"""Statistics: var, std, median, quantile (sort-based, differentiable), histogram, bincount."""
from __future__ import annotations

import builtins
import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, concrete_or_error, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import slicing as sl
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import accepts_out, normalize_axes, normalize_axis, shape_of
from paddle_fn.tensor.math import mean, sum as sum_
from paddle_fn.tensor.nan_stats import middle_value, order_quantile
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape, cast

__all__ = ["var", "std", "median", "quantile", "histogram", "bincount"]


def _float_input(op, x):
    x = as_tensor(x)
    if get_aval(x).dtype.kind != "f":
        raise DTypeError(f"{op}: expected a floating-point input, got {get_aval(x).dtype.name} (shape "
                         f"{list(shape_of(x))}); cast it first, e.g. x.astype('float32')")
    return x


@accepts_out
def var(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1):
    """Variance over `axis` (None: all): the sum of squared deviations divided by n - `correction` (1: unbiased);
    `unbiased`, when given, overrides it (True: correction 1, False: 0), as in Paddle 3.3.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1., 2., 3.], [1., 1., 1.]])
        >>> paddle.var(x, axis=1).numpy(), paddle.var(x, axis=1, unbiased=False).numpy()
        (array([1., 0.], dtype=float32), array([0.6666667, 0.       ], dtype=float32))
        >>> paddle.var(x, axis=1, correction=2).tolist()
        [2.0, 0.0]
    """
    x = _float_input("var", x)
    a = get_aval(x)
    axes = normalize_axes("var", axis, a.ndim)
    n = math.prod(a.shape[i] for i in axes)
    centered = ew.sub(x, broadcast_to_shape(mean(x, axis=list(axes), keepdim=True), a.shape))
    total = sum_(ew.mul(centered, centered), axis=list(axes), keepdim=keepdim)
    if unbiased is not None:
        correction = 1 if unbiased else 0
    count = max(n - correction, 0)
    return ew.div(total, st.full(shape_of(total), count, a.dtype))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over `axis`: sqrt(var(x, axis, unbiased, keepdim)).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.std(paddle.to_tensor([1., 2., 3., 4.])).numpy()
        array(1.2909944, dtype=float32)
    """
    return ew.sqrt(var(x, axis, unbiased, keepdim))


def _sorted_along(op, x, axis):
    """(sorted values, axis) with axis=None meaning the flattened input; float32 for non-float64 inputs."""
    x = as_tensor(x)
    dt = dtypes.float64 if get_aval(x).dtype == dtypes.float64 else dtypes.float32
    x = cast(x, dt) if get_aval(x).dtype != dt else x
    if axis is None:
        x = st.reshape(x, new_sizes=(get_aval(x).size,))
        ax = 0
    else:
        ax = normalize_axis(op, axis, get_aval(x).ndim)
    if shape_of(x)[ax] == 0:
        raise ShapeError(f"{op}: cannot take it over an empty dimension (shape {list(shape_of(x))})")
    return red.sort(x, dimension=ax)[0], ax


def _take(x, ax, i):
    a = get_aval(x)
    start = tuple(i if d == ax else 0 for d in range(a.ndim))
    limit = tuple(i + 1 if d == ax else s for d, s in enumerate(a.shape))
    return st.slice(x, start_indices=start, limit_indices=limit)


def _finish(out, ax, axis, keepdim, in_rank):
    """out has size 1 at `ax`; drop it unless keepdim (axis=None with keepdim keeps every dim as 1)."""
    if keepdim:
        if axis is None:
            return st.reshape(out, new_sizes=(1,) * in_rank) if in_rank else out
        return out
    return st.reshape(out, new_sizes=tuple(s for d, s in enumerate(shape_of(out)) if d != ax))


@accepts_out
def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """The median over `axis` (None: all); for an even count the mean of the two middle values (float64 for
    float64 inputs, else float32). ``mode='min'`` takes the lower middle value instead (in x's dtype) and, when
    `axis` is given, also returns its index: the last position holding it, as Paddle 3.3 does. A slice holding
    a NaN gives NaN (and, with ``mode='min'``, the NaN's position).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.median(paddle.to_tensor([[1, 5, 2, 8], [3, 3, 9, 0]]), axis=1).numpy()
        array([3.5, 3. ], dtype=float32)
        >>> paddle.median(paddle.to_tensor([[float('nan'), 1., 2., 3.], [1., 2., 3., 4.]]), axis=1).numpy()
        array([nan, 2.5], dtype=float32)
        >>> values, indices = paddle.median(paddle.to_tensor([[1, 5, 2, 8], [3, 3, 9, 0]]), axis=1, mode='min')
        >>> values.tolist(), indices.tolist()
        ([2, 3], [2, 1])
    """
    if mode == "min":
        return middle_value("median", x, axis, keepdim, mode, skip_nan=False)
    if mode != "avg":
        raise ValueError(f"median: mode must be 'avg' or 'min', got {mode!r}")
    rank = get_aval(as_tensor(x)).ndim
    s, ax = _sorted_along("median", x, axis)
    n = shape_of(s)[ax]
    mid = _take(s, ax, n // 2)
    if n % 2 == 0:
        lower = _take(s, ax, n // 2 - 1)
        mid = ew.mul(ew.add(lower, mid), st.full_like(mid, 0.5))
    largest = _take(s, ax, n - 1)  # NaN exactly when the slice holds one: the sort puts NaNs last
    mid = ew.select(ew.ne(largest, largest), largest, mid)
    return _finish(mid, ax, axis, keepdim, rank)


@accepts_out
def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """The q-th quantile(s) over `axis` (None: all; an int or a list of ints, taken together); between two ranks
    `interpolation` picks 'linear', 'lower', 'higher', 'nearest' or 'midpoint'. A slice holding a NaN gives NaN
    (``nanquantile`` skips them). With a list of q the results are stacked along a new leading axis.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([0., 1., 2., 3., 4.])
        >>> paddle.quantile(x, 0.3).numpy(), paddle.quantile(x, [0.25, 1.0]).numpy()
        (array(1.2, dtype=float32), array([1., 4.], dtype=float32))
        >>> paddle.quantile(paddle.arange(8.0).reshape([4, 2]), 0.5, axis=[0, 1]).item()
        3.5
    """
    return order_quantile("quantile", x, q, axis, keepdim, interpolation, skip_nan=False)


def histogram(input, bins=100, min=0, max=0, weight=None, density=False, name=None):  # noqa: A002
    """Counts of the elements of `input` in `bins` equal-width bins over [min, max] (min == max == 0: the data's
    range), as int64 of shape [bins]; values outside the range are not counted. With `weight` (input's shape) each
    element counts its weight (the result has weight's dtype); ``density=True`` divides by the total and the bin
    width, so the result integrates to 1 over the range. The output shape is fixed, so this also works under jit
    and vmap.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.histogram(paddle.to_tensor([1, 2, 1, 4]), bins=4, min=1, max=4).numpy()
        array([2, 1, 0, 1])
        >>> x = paddle.to_tensor([1., 2., 1.])
        >>> paddle.histogram(x, bins=4, min=0, max=3, weight=paddle.to_tensor([1., 2., 3.])).tolist()
        [0.0, 4.0, 2.0, 0.0]
        >>> paddle.histogram(x, bins=4, min=0, max=3, density=True).numpy()
        array([0.        , 0.8888889 , 0.44444445, 0.        ], dtype=float32)
    """
    x = as_tensor(input)
    bins = int(bins)
    if bins < 1:
        raise ValueError(f"histogram: bins must be >= 1, got {bins}")
    work = dtypes.float64 if get_aval(x).dtype == dtypes.float64 else dtypes.float32
    flat = cast(st.reshape(x, new_sizes=(get_aval(x).size,)), work)
    size = get_aval(flat).shape[0]
    if min == 0 and max == 0 and size:
        lo, hi = red.reduce_min(flat, axes=(0,)), red.reduce_max(flat, axes=(0,))
    else:
        lo, hi = (Tensor(np.asarray(v, work.np)) for v in (min, max))
    if float(min) > float(max):
        raise ValueError(f"histogram: max ({max}) must not be less than min ({min})")
    # an empty range counts everything equal to it in the middle bin, as numpy does for a one-value range
    same = ew.eq(lo, hi)
    half = Tensor(np.asarray(0.5, work.np))
    lo, hi = ew.select(same, ew.sub(lo, half), lo), ew.select(same, ew.add(hi, half), hi)
    width = ew.div(ew.sub(hi, lo), Tensor(np.asarray(bins, work.np)))
    lo_b = st.broadcast_in_dim(lo, shape=(size,), broadcast_dimensions=())
    hi_b = st.broadcast_in_dim(hi, shape=(size,), broadcast_dimensions=())
    idx = ew.floor(ew.div(ew.sub(flat, lo_b), st.broadcast_in_dim(width, shape=(size,), broadcast_dimensions=())))
    idx = cast(ew.clamp(Tensor(np.asarray(0, work.np)), idx, Tensor(np.asarray(bins - 1, work.np))), dtypes.int64)
    counted = dtypes.int64 if weight is None else _histogram_weight(weight, x).dtype
    inside = cast(bw.and_(ew.ge(flat, lo_b), ew.le(flat, hi_b)), counted)
    if weight is not None:
        inside = ew.mul(inside, st.reshape(_histogram_weight(weight, x), new_sizes=(size,)))
    dnums = sl.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
    counts = sl.scatter_add(st.full((bins,), 0, counted), st.reshape(idx, new_sizes=(size, 1)), inside,
                            dimension_numbers=dnums)
    if not density:
        return counts
    counts = cast(counts, work)
    total = st.broadcast_in_dim(ew.mul(red.reduce_sum(counts, axes=(0,)), width), shape=(bins,),
                                broadcast_dimensions=())
    return ew.div(counts, total)


def _histogram_weight(weight, x):
    weight = as_tensor(weight)
    if shape_of(weight) != shape_of(x):
        raise ShapeError(f"histogram: weight must have the input's shape {list(shape_of(x))}, got "
                         f"{list(shape_of(weight))}")
    return weight


def bincount(x, weights=None, minlength=0, name=None):
    """The number of occurrences of each value 0..max(x) in the non-negative int Tensor `x` (summed `weights`
    instead, if given), length max(max(x) + 1, minlength). The length depends on the values, so this works
    eagerly only; under jit/vmap use ``paddle.nn.functional.one_hot(x, n).sum(0)`` or `histogram` with a fixed
    number of bins.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bincount(paddle.to_tensor([1, 1, 3])).numpy()
        array([0, 2, 0, 1])
    """
    x = as_tensor(x)
    if get_aval(x).dtype.kind not in "iu" or get_aval(x).ndim != 1:
        raise DTypeError(f"bincount: x must be a 1-D integer Tensor, got {get_aval(x).str_short()}")
    v = concrete_or_error(x, "bincount: x", "Its output length depends on the values, so it cannot be traced; use "
                          "paddle.nn.functional.one_hot(x, num_classes).sum(0) or paddle.histogram with a fixed "
                          "number of bins under jit/vmap")
    if v.size and v.min() < 0:
        raise ValueError(f"bincount: x must be non-negative, got the value {int(v.min())}")
    length = builtins.max(int(v.max()) + 1 if v.size else 0, int(minlength))
    dnums = sl.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
    if weights is None:
        updates = st.full((v.size,), 1, dtypes.int64)
    else:
        updates = as_tensor(weights)
        if shape_of(updates) != shape_of(x):
            raise ShapeError(f"bincount: weights (shape {list(shape_of(updates))}) must have x's shape "
                             f"{list(shape_of(x))}")
    out = st.full((length,), 0, get_aval(updates).dtype)
    return sl.scatter_add(out, st.reshape(cast(x, dtypes.int64), new_sizes=(v.size, 1)), updates,
                          dimension_numbers=dnums)
