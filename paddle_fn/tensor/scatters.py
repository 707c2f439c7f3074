"""Paddle 3's scatters: `scatter_reduce` (sum, prod, mean, amin, amax; with or without the original values),
`put_along_axis` (those and assign) and `scatter_add` along an axis, `index_put` (numpy-style index tuples),
`masked_scatter`, and the scatters of a slice, a selected index and a diagonal (`slice_scatter`, `select_scatter`,
`diagonal_scatter`).

Every result is static-shaped and composed of gather, scatter, sort and `where`, so grad, vmap and jit see
through it. `scatter_reduce` sorts the updates by target position and combines each run of equal positions with a
segmented scan (log2(n) doubling steps), then writes each run's last element once: repeated indices combine
exactly as Paddle does, with no write order left to chance.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import eager_value, normalize_axis, static_int, static_list
from paddle_fn.tensor.creation import arange
from paddle_fn.tensor.manipulation import broadcast_to, concat, gather, moveaxis, reshape, strided_slice, where
from paddle_fn.tensor.math import cumsum, divide, maximum, minimum, multiply
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["scatter_reduce", "put_along_axis", "scatter_add", "index_put", "masked_scatter", "select_scatter", "slice_scatter",
           "diagonal_scatter"]

_REDUCERS = {"sum": (lambda a, b: a + b), "mean": (lambda a, b: a + b), "prod": multiply, "amin": minimum,
             "amax": maximum}
# put_along_axis's names for them; 'assign' keeps the last update of each position (in index order)
_PUT_REDUCERS = {"assign": "assign", "add": "sum", "mul": "prod", "multiply": "prod", "mean": "mean",
                 "amin": "amin", "amax": "amax"}


def _int_tensor(op, what, v):
    v = as_tensor(v)
    if get_aval(v).dtype.kind not in "iu":
        raise DTypeError(f"{op}: {what} must be an integer Tensor, got {get_aval(v).dtype.name}")
    return v


def _shift(v, d, fill):
    """1-D `v` moved d places toward the end, `fill` in the first d places."""
    n = get_aval(v).shape[0]
    if d >= n:
        return st.full_like(v, fill)
    return concat([st.full((d,), fill, get_aval(v).dtype), v[:n - d]])


def _segmented_scan(keys, values, combine):
    """Inclusive scan of `values` with `combine` within runs of equal sorted `keys` (Hillis-Steele doubling)."""
    n = get_aval(keys).shape[0]
    d = 1
    while d < n:
        same = keys == _shift(keys, d, -1)
        values = where(same, combine(values, _shift(values, d, 0)), values)
        d *= 2
    return values


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002 - Paddle's names
    """`input` with each ``src[i][j]`` combined into ``input[index[i][j]][j]`` (for ``dim=0``; likewise along any
    dim) by `reduce`: 'sum', 'prod', 'mean', 'amin' or 'amax'. With ``include_self=False`` the positions `index`
    hits start from the updates alone; positions it misses keep `input`. `index` may be smaller than `src` in
    every dimension (src's leading part is used).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([3, 4])
        >>> src = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])
        >>> index = paddle.to_tensor([[0, 1, 0, 1], [2, 2, 0, 1]])
        >>> paddle.scatter_reduce(x, 0, index, src, 'amax').tolist()
        [[1.0, 1.0, 7.0, 1.0], [1.0, 2.0, 1.0, 8.0], [5.0, 6.0, 1.0, 1.0]]
        >>> paddle.scatter_reduce(x, 0, index, src, 'mean', include_self=False).tolist()
        [[1.0, 1.0, 5.0, 1.0], [1.0, 2.0, 1.0, 6.0], [5.0, 6.0, 1.0, 1.0]]
    """
    if reduce not in _REDUCERS:
        raise ValueError(f"scatter_reduce: reduce must be one of {sorted(_REDUCERS)}, got {reduce!r}")
    x = as_tensor(input)
    return _combine_along("scatter_reduce", x, normalize_axis("scatter_reduce", dim, get_aval(x).ndim),
                          _int_tensor("scatter_reduce", "index", index), as_tensor(src), reduce, include_self)


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    """A copy of `arr` with `values` combined into it at `indices` along `axis`: reduce 'assign' replaces (the
    last of repeated indices wins), 'add', 'mul' / 'multiply', 'mean', 'amin' and 'amax' combine the updates of a
    position with its value (with only the updates when ``include_self=False``). With `broadcast` (Paddle's
    default) `indices` broadcast to arr's shape outside `axis` and `values` to theirs; otherwise `indices` are
    used as they are and `values` (a scalar, or a Tensor at least as large) cut to their shape.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[10, 30, 20], [60, 40, 50]])
        >>> paddle.put_along_axis(x, paddle.to_tensor([[0], [2]]), 99, 1).numpy()
        array([[99, 30, 20],
               [60, 40, 99]])
        >>> paddle.put_along_axis(x, paddle.to_tensor([[0]]), 99, 0).numpy()
        array([[99, 99, 99],
               [60, 40, 50]])
        >>> index, value = paddle.zeros([2, 2], 'int32'), paddle.to_tensor([[1, 2], [3, 4]])
        >>> paddle.put_along_axis(x, index, value, 0, "mean", True, False).numpy()
        array([[ 4, 12, 20],
               [60, 40, 50]])
    """
    if reduce not in _PUT_REDUCERS:
        raise ValueError(f"put_along_axis: reduce must be one of {sorted(_PUT_REDUCERS)}, got {reduce!r}")
    x = as_tensor(arr)
    index = _int_tensor("put_along_axis", "indices", indices)
    rank = get_aval(x).ndim
    ax = normalize_axis("put_along_axis", axis, rank)
    if get_aval(index).ndim != rank:
        raise ShapeError(f"put_along_axis: indices (shape {list(get_aval(index).shape)}) must have the rank of arr "
                         f"(shape {list(get_aval(x).shape)})")
    if broadcast:
        target = [s if d != ax else get_aval(index).shape[ax] for d, s in enumerate(get_aval(x).shape)]
        index = broadcast_to(index, target)
    src = as_tensor(values, get_aval(x).dtype)
    if broadcast or get_aval(src).ndim < rank:
        src = broadcast_to(src, list(get_aval(index).shape))
    return _combine_along("put_along_axis", x, ax, index, src, _PUT_REDUCERS[reduce], include_self)


def _combine_along(op, x, ax, index, src, reduce, include_self):
    """x with src[i] combined by `reduce` (a _REDUCERS name, or 'assign') into x at position i with its
    coordinate along `ax` replaced by index[i]."""
    shape, ishape, sshape = get_aval(x).shape, get_aval(index).shape, get_aval(src).shape
    rank = len(shape)
    if len(ishape) != rank or len(sshape) != rank or any(i > s for i, s in zip(ishape, sshape)) or \
            any(i > s for d, (i, s) in enumerate(zip(ishape, shape)) if d != ax):
        raise ShapeError(f"{op}: index (shape {list(ishape)}) must have the rank of input (shape {list(shape)}) "
                         f"and of the updates (shape {list(sshape)}), be no larger than the updates, and no "
                         f"larger than input outside dimension {ax}")
    dtype = get_aval(x).dtype
    src = cast(src[tuple(slice(0, i) for i in ishape)], dtype)
    count = int(np.prod(ishape, dtype=np.int64))
    size = int(np.prod(shape, dtype=np.int64))
    if count == 0 or size == 0:
        return x
    strides = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(rank)]
    target = (index % shape[ax]) * strides[ax]  # negative indices count from the end, as Paddle's do
    for d in range(rank):
        if d != ax:
            target = target + st.iota(dtype=get_aval(index).dtype, shape=ishape, dimension=d) * strides[d]
    keys, values = red.sort(reshape(cast(target, dtypes.int64), [count]), reshape(src, [count]), dimension=0)
    combine = (lambda later, earlier: later) if reduce == "assign" else _REDUCERS[reduce]
    totals = _segmented_scan(keys, values, combine)
    is_last = keys != concat([keys[1:], st.full((1,), -1, dtypes.int64)])
    flat = reshape(x, [size])
    at_keys = gather(flat, keys)
    if reduce == "mean":
        runs = _segmented_scan(keys, st.full((count,), 1, dtypes.int64), combine)
        totals = divide(totals + at_keys, runs + 1) if include_self else divide(totals, runs)
        totals = cast(totals, dtype)
    elif include_self and reduce != "assign":
        totals = combine(totals, at_keys)
    # each run's last element carries the run's result; the others write into a spare slot past the end
    slots = where(is_last, keys, st.full_like(keys, size))
    out = concat([flat, st.full((1,), 0, dtype)]).at[slots].set(totals)
    return reshape(out[:size], list(shape))


def scatter_add(input, dim, index, src):  # noqa: A002 - Paddle's names
    """`input` with ``src[i][j]`` added to ``input[index[i][j]][j]`` (for ``dim=0``; likewise along any dim);
    repeated indices accumulate. The same as ``scatter_reduce(..., 'sum')``.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2, 3])
        >>> paddle.scatter_add(x, 1, paddle.to_tensor([[0, 0]]), paddle.to_tensor([[5.0, 6.0]])).tolist()
        [[12.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """
    return scatter_reduce(input, dim, index, src, "sum")


def index_put(x, indices, value, accumulate=False, name=None):
    """`x` with the elements at ``x[indices]`` (a tuple of integer Tensors broadcast together, as numpy's
    advanced indexing, or one bool mask) replaced by `value`, or with `value` added there when `accumulate`
    (repeated indices then add up; otherwise the last one wins).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([3, 4])
        >>> rows, cols = paddle.to_tensor([0, 2, 0]), paddle.to_tensor([1, 3, 1])
        >>> paddle.index_put(x, (rows, cols), paddle.to_tensor([1.0, 2.0, 3.0]), accumulate=True).tolist()
        [[0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]
    """
    x = as_tensor(x)
    indices = tuple(as_tensor(i) for i in indices)
    if len(indices) > get_aval(x).ndim:
        raise ShapeError(f"index_put: {len(indices)} index Tensors for x of rank {get_aval(x).ndim}")
    value = cast(as_tensor(value), get_aval(x).dtype)
    ref = x.at[indices[0] if len(indices) == 1 else indices]
    return ref.add(value) if accumulate else ref.set(value)


def masked_scatter(x, mask, value, name=None):
    """`x` with the positions where the bool `mask` (broadcast to `x`) is True filled, in row-major order, with
    the first elements of `value` (which needs at least as many elements as there are True positions).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([2, 3])
        >>> mask = paddle.to_tensor([[True, False, True], [False, True, False]])
        >>> paddle.masked_scatter(x, mask, paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).tolist()
        [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    """
    x, mask, value = as_tensor(x), as_tensor(mask), as_tensor(value)
    if get_aval(mask).dtype != dtypes.bool_:
        raise DTypeError(f"masked_scatter: mask must be a bool Tensor, got {get_aval(mask).dtype.name}")
    shape = list(get_aval(x).shape)
    flat_mask = reshape(broadcast_to(mask, shape), [-1])
    n = get_aval(value).size
    if n == 0:
        raise ShapeError("masked_scatter: value has no elements to scatter")
    eager = eager_value(flat_mask)
    if eager is not None and int(np.sum(eager)) > n:
        raise ShapeError(f"masked_scatter: mask has {int(np.sum(eager))} True positions but value has only {n} "
                         "elements")
    # the k-th True position takes value's k-th element
    k = cumsum(cast(flat_mask, dtypes.int64)) - 1
    taken = gather(reshape(cast(value, get_aval(x).dtype), [n]), minimum(maximum(k, 0), n - 1))
    return reshape(where(flat_mask, taken, reshape(x, [-1])), shape)


def select_scatter(x, values, axis, index, name=None):
    """`x` with its slice at `index` along `axis` replaced by `values` (x's shape without that axis).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.select_scatter(paddle.zeros([2, 3]), paddle.ones([3]), 0, 1).tolist()
        [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]
    """
    x, values = as_tensor(x), as_tensor(values)
    shape = list(get_aval(x).shape)
    ax = normalize_axis("select_scatter", axis, len(shape))
    i = static_int("select_scatter", index, "index")
    if not -shape[ax] <= i < shape[ax]:
        raise IndexError(f"select_scatter: index {i} is out of range for axis {ax} of size {shape[ax]}")
    want = shape[:ax] + shape[ax + 1:]
    if list(get_aval(values).shape) != want:
        raise ShapeError(f"select_scatter: values must have shape {want} (x's shape without axis {ax}), got "
                         f"{list(get_aval(values).shape)}")
    return moveaxis(moveaxis(x, ax, 0).at[i % shape[ax]].set(cast(values, get_aval(x).dtype)), 0, ax)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """`x` with the strided slice ``starts:ends:strides`` along `axes` replaced by `value` (broadcast to the
    slice's shape).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.slice_scatter(paddle.zeros([2, 4]), paddle.ones([2, 2]), [1], [0], [4], [2]).tolist()
        [[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0]]
    """
    x, value = as_tensor(x), as_tensor(value)
    shape = list(get_aval(x).shape)
    axes, starts, ends, strides = (static_list("slice_scatter", v, what) for v, what in
                                   ((axes, "axes"), (starts, "starts"), (ends, "ends"), (strides, "strides")))
    positions = reshape(arange(int(np.prod(shape, dtype=np.int64)), dtype="int64"), shape)
    chosen = strided_slice(positions, axes, starts, ends, strides)
    target, given = list(get_aval(chosen).shape), list(get_aval(value).shape)
    if len(given) != len(target) or any(g not in (1, t) for g, t in zip(given, target)):
        raise ShapeError(f"slice_scatter: value (shape {given}) must broadcast to the slice's shape {target}")
    value = broadcast_to(cast(value, get_aval(x).dtype), target)
    return reshape(reshape(x, [-1]).at[reshape(chosen, [-1])].set(reshape(value, [-1])), shape)


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """`x` with its diagonal `offset` in the plane (`axis1`, `axis2`) replaced by `y`, whose shape is x's other
    dimensions followed by the diagonal's length (``Tensor.fill_diagonal_tensor`` is the same).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diagonal_scatter(paddle.zeros([2, 3]), paddle.to_tensor([1.0, 2.0]), offset=1).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    a, b = normalize_axis("diagonal_scatter", axis1, rank), normalize_axis("diagonal_scatter", axis2, rank)
    if a == b:
        raise ShapeError(f"diagonal_scatter: axis1 and axis2 must differ, got {axis1} and {axis2}")
    moved = moveaxis(x, [a, b], [-2, -1])
    rows, cols = get_aval(moved).shape[-2:]
    r = np.arange(max(0, -offset), max(max(0, -offset), min(rows, cols - offset)))
    y = as_tensor(y)
    want = list(get_aval(moved).shape[:-2]) + [len(r)]
    if list(get_aval(y).shape) != want:
        raise ShapeError(f"diagonal_scatter: y must have shape {want} (x's other dimensions, then the diagonal's "
                         f"length), got {list(get_aval(y).shape)}")
    filled = moved.at[..., as_tensor(r), as_tensor(r + offset)].set(cast(y, get_aval(x).dtype))
    return moveaxis(filled, [-2, -1], [a, b])
