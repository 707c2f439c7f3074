"""Searching and sorting: argmax/argmin, sort/argsort, topk, masked_select."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axis, paddle_scalar, shape_of, static_int
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape

__all__ = ["argmax", "argmin", "sort", "argsort", "topk", "masked_select"]


def _arg_reduce(op, prim_fn, x, axis, keepdim, dtype):
    x = as_tensor(x)
    index_dtype = dtypes.as_dtype(dtype)
    if index_dtype.kind not in "iu":
        raise TypeError(f"{op}: dtype must be an integer dtype ('int32' or 'int64'), got {index_dtype.name}")
    if axis is None:  # Paddle: the index into the flattened input, shape [1]
        flat = st.reshape(x, new_sizes=(get_aval(x).size,))
        return paddle_scalar(prim_fn(flat, axis=0, index_dtype=index_dtype))
    a = get_aval(x)
    ax = normalize_axis(op, axis, a.ndim)
    out = prim_fn(x, axis=ax, index_dtype=index_dtype)
    if keepdim:
        return st.reshape(out, new_sizes=a.shape[:ax] + (1,) + a.shape[ax + 1:])
    return paddle_scalar(out)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the largest element along `axis` (None: into the flattened input; shape [1]).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argmax(paddle.to_tensor([[1, 9], [7, 2]]), axis=1).numpy()
        array([1, 0])
    """
    return _arg_reduce("argmax", red.argmax, x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Index of the smallest element along `axis` (None: into the flattened input; shape [1]).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argmin(paddle.to_tensor([[1, 9], [7, 2]])).numpy()
        array([0])
    """
    return _arg_reduce("argmin", red.argmin, x, axis, keepdim, dtype)


def _sort_with_indices(op, x, axis, descending):
    """(sorted values, int64 positions) along `axis`; stable, ties keep their input order either way."""
    x = as_tensor(x)
    a = get_aval(x)
    if a.ndim == 0:
        x = st.reshape(x, new_sizes=(1,))
        a = get_aval(x)
    ax = normalize_axis(op, axis, a.ndim)
    positions = st.iota(dtype=dtypes.int64, shape=a.shape, dimension=ax)
    if descending:  # sort by the negated key so equal keys stay in input order
        key = ew.not_(x) if a.dtype.kind == "b" else ew.neg(x)
        _, values, idx = red.sort(key, x, positions, dimension=ax, is_stable=True, num_keys=1)
    else:
        values, idx = red.sort(x, positions, dimension=ax, is_stable=True, num_keys=1)
    return values, idx


def sort(x, axis=-1, descending=False, name=None):
    """The values of `x` sorted along `axis` (stable).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.sort(paddle.to_tensor([3, 1, 2]), descending=True).numpy()
        array([3, 2, 1])
    """
    return _sort_with_indices("sort", x, axis, descending)[0]


def argsort(x, axis=-1, descending=False, name=None):
    """The int64 positions that sort `x` along `axis` (stable).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.argsort(paddle.to_tensor([3, 1, 2])).numpy()
        array([1, 2, 0])
    """
    return _sort_with_indices("argsort", x, axis, descending)[1]


def topk(x, k, axis=None, largest=True, sorted=True, name=None):  # noqa: A002 - Paddle's parameter name
    """The `k` largest (or smallest) values along `axis` (default: last) and their int64 positions.

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.topk(paddle.to_tensor([1, 4, 2, 8]), k=2)
        >>> values.numpy(), indices.numpy()
        (array([8, 4]), array([3, 1]))
    """
    x = as_tensor(x)
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
    from paddle_fn.tensor.indexing import getitem
    from paddle_fn.tensor.promotion import broadcast_shapes
    shape = broadcast_shapes("masked_select", shape_of(x), shape_of(mask))
    return getitem(broadcast_to_shape(x, shape), broadcast_to_shape(mask, shape))
