"""Searching and sorting: argmax/argmin, sort/argsort, topk, kthvalue, mode, searchsorted/bucketize,
masked_select, argwhere."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import base
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import accepts_out, normalize_axis, shape_of, static_int
from paddle_fn.tensor.indexing import getitem
from paddle_fn.tensor.manipulation import nonzero, take_along_axis
from paddle_fn.tensor.promotion import as_tensor, broadcast_shapes, broadcast_to_shape, cast, real_operand

__all__ = ["argmax", "argmin", "sort", "argsort", "topk", "kthvalue", "mode", "searchsorted", "bucketize",
           "masked_select", "argwhere"]


def _arg_reduce(op, prim_fn, x, axis, keepdim, dtype):
    x = real_operand(op, x)
    index_dtype = dtypes.as_dtype(dtype)
    if index_dtype.kind not in "iu":
        raise TypeError(f"{op}: dtype must be an integer dtype ('int32' or 'int64'), got {index_dtype.name}")
    if axis is None:  # Paddle: the index into the flattened input, a 0-D Tensor
        flat = st.reshape(x, new_sizes=(get_aval(x).size,))
        return prim_fn(flat, axis=0, index_dtype=index_dtype)
    a = get_aval(x)
    ax = normalize_axis(op, axis, a.ndim)
    out = prim_fn(x, axis=ax, index_dtype=index_dtype)
    if keepdim:
        return st.reshape(out, new_sizes=a.shape[:ax] + (1,) + a.shape[ax + 1:])
    return out


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the largest element along `axis` (None: into the flattened input; a 0-D Tensor).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argmax(paddle.to_tensor([[1, 9], [7, 2]]), axis=1).numpy()
        array([1, 0])
    """
    return _arg_reduce("argmax", red.argmax, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the smallest element along `axis` (None: into the flattened input; a 0-D Tensor).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argmin(paddle.to_tensor([[1, 9], [7, 2]])).numpy()
        array(0)
    """
    return _arg_reduce("argmin", red.argmin, x, axis, keepdim, dtype)


def _sort_with_indices(op, x, axis, descending):
    """(sorted values, int64 positions) along `axis`; stable, ties keep their input order either way."""
    x = real_operand(op, x)
    a = get_aval(x)
    if a.ndim == 0:
        x = st.reshape(x, new_sizes=(1,))
        a = get_aval(x)
    ax = normalize_axis(op, axis, a.ndim)
    positions = st.iota(dtype=dtypes.int64, shape=a.shape, dimension=ax)
    if descending:  # sort by the negated key so equal keys stay in input order
        key = bw.not_(x) if a.dtype.kind == "b" else ew.neg(x)
        _, values, idx = red.sort(key, x, positions, dimension=ax, is_stable=True, num_keys=1)
    else:
        values, idx = red.sort(x, positions, dimension=ax, is_stable=True, num_keys=1)
    return values, idx


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """The values of `x` sorted along `axis`. The sort is always stable (equal values keep their input order),
    which is what ``stable=True`` asks for and one of the orders ``stable=False`` allows.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.sort(paddle.to_tensor([3, 1, 2]), descending=True).numpy()
        array([3, 2, 1])
    """
    return _sort_with_indices("sort", x, axis, descending)[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """The int64 positions that sort `x` along `axis`; always stable (equal values keep their input order, as
    ``stable=True`` asks).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argsort(paddle.to_tensor([3, 1, 2])).numpy()
        array([1, 2, 0])
        >>> paddle.argsort(paddle.to_tensor([2, 1, 2, 1]), descending=True, stable=True).tolist()
        [0, 2, 1, 3]
    """
    return _sort_with_indices("argsort", x, axis, descending)[1]


@accepts_out
def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002 - Paddle's parameter name
    """The `k` largest (or smallest) values along `axis` (default: last) and their int64 positions.

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.topk(paddle.to_tensor([1, 4, 2, 8]), k=2)
        >>> values.numpy(), indices.numpy()
        (array([8, 4]), array([3, 1]))
    """
    x = real_operand("topk", x)
    k = static_int("topk", k, "k")
    ax = normalize_axis("topk", -1 if axis is None else axis, get_aval(x).ndim)
    n = shape_of(x)[ax] if get_aval(x).ndim else 1
    if not 0 <= k <= n:
        raise ShapeError(f"topk: k={k} is out of range for dimension {ax} of size {n}")
    values, idx = _sort_with_indices("topk", x, ax, largest)
    limits = list(shape_of(values))
    limits[ax] = k
    starts = (0,) * len(limits)
    return (st.slice(values, start_indices=starts, limit_indices=tuple(limits)),
            st.slice(idx, start_indices=starts, limit_indices=tuple(limits)))


@accepts_out
def masked_select(x, mask, name=None):
    """The elements of `x` where `mask` (broadcast to x's shape) is true, as a 1-D Tensor; eager only,
    since the size depends on the values.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1., 2., 3.])
        >>> paddle.masked_select(x, x > 1.5).numpy()
        array([2., 3.], dtype=float32)
    """
    x, mask = as_tensor(x), as_tensor(mask)
    shape = broadcast_shapes("masked_select", shape_of(x), shape_of(mask))
    return getitem(broadcast_to_shape(x, shape), broadcast_to_shape(mask, shape))


def _drop_or_keep(t, ax, keepdim):
    if keepdim:
        return t
    return st.reshape(t, new_sizes=tuple(s for d, s in enumerate(shape_of(t)) if d != ax))


def _take_at(t, ax, i):
    a = get_aval(t)
    return st.slice(t, start_indices=tuple(i if d == ax else 0 for d in range(a.ndim)),
                    limit_indices=tuple(i + 1 if d == ax else s for d, s in enumerate(a.shape)))


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest value (k counts from 1) along `axis` (default: last) and its int64 position.

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.kthvalue(paddle.to_tensor([[5., 1., 4.], [2., 8., 3.]]), 2)
        >>> values.numpy(), indices.numpy()
        (array([4., 3.], dtype=float32), array([2, 2]))
    """
    x = real_operand("kthvalue", x)
    ax = normalize_axis("kthvalue", -1 if axis is None else axis, get_aval(x).ndim)
    k = static_int("kthvalue", k, "k")
    n = shape_of(x)[ax] if get_aval(x).ndim else 1
    if not 1 <= k <= n:
        raise ShapeError(f"kthvalue: k={k} is out of range for dimension {ax} of size {n} (k counts from 1)")
    values, idx = _sort_with_indices("kthvalue", x, ax, False)
    return _drop_or_keep(_take_at(values, ax, k - 1), ax, keepdim), _drop_or_keep(_take_at(idx, ax, k - 1), ax, keepdim)


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along `axis` (the smallest one on ties) and the int64 position of its last
    occurrence, as Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.mode(paddle.to_tensor([[1., 2., 2.], [9., 9., 0.]]))
        >>> values.numpy(), indices.numpy()
        (array([2., 9.], dtype=float32), array([2, 1]))
    """
    x = real_operand("mode", x)
    a = get_aval(x)
    ax = normalize_axis("mode", axis, a.ndim)
    values, idx = _sort_with_indices("mode", x, ax, False)
    n = shape_of(values)[ax]
    shape = shape_of(values)
    pos = st.iota(dtype=dtypes.int64, shape=shape, dimension=ax)
    if n > 1:  # a run of equal sorted values starts where the value changes
        changed = ew.ne(_slice_range(values, ax, 1, n), _slice_range(values, ax, 0, n - 1))
        starts = st.concatenate(st.full(_with_size(shape, ax, 1), True, dtypes.bool_), changed, dimension=ax)
        ends = st.concatenate(changed, st.full(_with_size(shape, ax, 1), True, dtypes.bool_), dimension=ax)
    else:
        starts = ends = st.full(shape, True, dtypes.bool_)
    minus_one = st.full(shape, -1, dtypes.int64)
    run_start = red.cummax(ew.select(starts, pos, minus_one), axis=ax)
    run_end = red.cummin(ew.select(ends, pos, st.full(shape, n, dtypes.int64)), axis=ax, reverse=True)
    counts = ew.sub(run_end, run_start)
    best = red.argmax(counts, axis=ax, index_dtype=dtypes.int64)  # the first maximum: the smallest value
    best = st.reshape(best, new_sizes=_with_size(shape, ax, 1))
    last_of_run = take_along_axis(run_end, best, ax)
    return (_drop_or_keep(take_along_axis(values, last_of_run, ax), ax, keepdim),
            _drop_or_keep(take_along_axis(idx, last_of_run, ax), ax, keepdim))


def _with_size(shape, ax, size):
    return shape[:ax] + (size,) + shape[ax + 1:]


def _slice_range(t, ax, lo, hi):
    a = get_aval(t)
    return st.slice(t, start_indices=tuple(lo if d == ax else 0 for d in range(a.ndim)),
                    limit_indices=tuple(hi if d == ax else s for d, s in enumerate(a.shape)))


@accepts_out
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *, side=None, sorter=None):
    """Insertion positions of `values` into the ascending last axis of `sorted_sequence` (1-D, or with the
    leading dims of `values`): the first position whose element is >= the value (> with right=True, or
    ``side='right'``, which overrides `right` when given). With `sorter` (int indices that sort the last axis),
    `sorted_sequence` need not be sorted: it is searched in the order `sorter` gives.

    Example:
        >>> import paddle_fn as paddle
        >>> seq = paddle.to_tensor([1, 3, 5, 7])
        >>> paddle.searchsorted(seq, paddle.to_tensor([3, 6])).numpy()
        array([1, 3])
        >>> paddle.searchsorted(seq, paddle.to_tensor([3]), right=True).numpy()
        array([2])
        >>> paddle.searchsorted(paddle.to_tensor([5, 1, 7, 3]), paddle.to_tensor([3, 6]),
        ...                     sorter=paddle.to_tensor([1, 3, 0, 2]), side='right').tolist()
        [2, 3]
    """
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        right = side == "right"
    seq, values = real_operand("searchsorted", sorted_sequence), real_operand("searchsorted", values)
    if sorter is not None:
        seq = take_along_axis(seq, sorter, -1)
    dt = dtypes.result_dtype_tensors(get_aval(seq).dtype, get_aval(values).dtype)
    seq, values = cast(seq, dt), cast(values, dt)
    ss, vs = shape_of(seq), shape_of(values)
    if len(ss) > 1 and ss[:-1] != vs[:-1]:
        raise ShapeError(f"searchsorted: sorted_sequence of shape {list(ss)} must be 1-D or share the leading "
                         f"dimensions of values (shape {list(vs)})")
    return _insertion_points(seq, values, right, dtypes.int32 if out_int32 else dtypes.int64)


def _insertion_points(seq, values, right, index_dtype):
    """How many elements of its line of the ascending `seq` come before each value (< it, or <= with `right`): a
    binary search, one gather per value for each bit of the line's length, so V values in lines of S elements
    take O(V log S) work and memory (comparing every pair took O(V S): 32 GiB for 4,096 values in 2^20)."""
    ss, vs = shape_of(seq), shape_of(values)
    n = ss[-1]

    def filled(k):
        return broadcast_to_shape(cast(as_tensor(k), index_dtype), vs)

    def element_at(at):  # seq[..., at] for each value's position `at`
        if len(ss) > 1:
            return take_along_axis(seq, at, -1)
        return base.reshape(take_along_axis(seq, base.reshape(at, new_sizes=(max(1, at.size),)), -1),
                            new_sizes=vs)

    count, length = filled(0), filled(n)
    bit = 1 << (n.bit_length() - 1) if n else 0
    while bit:  # count grows by `bit` where the element it would pass still comes before the value
        step = ew.add(count, filled(bit))
        element = element_at(ew.sub(ew.min(step, length), filled(1)))
        before = ew.le(element, values) if right else ew.lt(element, values)
        count = ew.select(bw.and_(ew.le(step, length), before), step, count)
        bit >>= 1
    return count


@accepts_out
def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """The bucket of each element of `x` among the boundaries in the 1-D `sorted_sequence` (as `searchsorted`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bucketize(paddle.to_tensor([[0, 4], [8, 9]]), paddle.to_tensor([2, 4, 8])).numpy()
        array([[0, 1],
               [2, 3]])
    """
    seq = as_tensor(sorted_sequence)
    if get_aval(seq).ndim != 1:
        raise ShapeError(f"bucketize: sorted_sequence must be 1-D, got shape {list(shape_of(seq))}")
    return searchsorted(seq, x, out_int32=out_int32, right=right)


def argwhere(input):  # noqa: A002 - Paddle's parameter name
    """The indices of the nonzero elements of `input`, one row per element: shape [count, rank], int64.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argwhere(paddle.to_tensor([[0, 3], [4, 0]])).tolist()
        [[0, 1], [1, 0]]
    """
    return nonzero(input)
