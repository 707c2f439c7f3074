"""`cummax` and `cummin`: running maxima and minima with the index each one came from, as Paddle 3 returns them.
The index is the last position whose value equals the running extreme (Paddle 3.3.1's rule for ties), and the
values are gathered at those indices, so the gradient goes to that element, as in Paddle.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axis
from paddle_fn.tensor.manipulation import reshape, take_along_axis, where
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["cummax", "cummin"]


def _running(op, scan, x, axis, dtype):
    x = as_tensor(x)
    index_dtype = dtypes.as_dtype(dtype)
    if index_dtype not in (dtypes.int32, dtypes.int64):
        raise DTypeError(f"{op}: dtype must be int32 or int64, got {index_dtype.name}")
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    rank = get_aval(x).ndim
    if rank == 0:
        x = reshape(x, [1])
    ax = normalize_axis(op, axis, max(rank, 1))
    shape = get_aval(x).shape
    extreme = scan(x, axis=ax)
    positions = st.iota(dtype=dtypes.int64, shape=shape, dimension=ax)
    # a position whose value equals its own running extreme sets it; the latest such position is the index
    indices = red.cummax(where(x == extreme, positions, st.full_like(positions, 0)), axis=ax)
    values = take_along_axis(x, indices, ax)
    if rank == 0:
        values, indices = reshape(values, []), reshape(indices, [])
    return values, cast(indices, index_dtype)


def cummax(x, axis=None, dtype="int64", name=None):
    """The running maximum of `x` along `axis` (None: the flattened input) and, for each, the index of the element
    it came from (the last one on ties), in `dtype` (int32 or int64).

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.cummax(paddle.to_tensor([[1.0, 3.0, 2.0], [0.0, 5.0, 5.0]]), axis=1)
        >>> values.tolist(), indices.tolist()
        ([[1.0, 3.0, 3.0], [0.0, 5.0, 5.0]], [[0, 1, 1], [0, 1, 2]])
    """
    return _running("cummax", red.cummax, x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    """The running minimum of `x` along `axis` (None: the flattened input) and the index of the element each one
    came from (the last one on ties).

    Example:
        >>> import paddle_fn as paddle
        >>> values, indices = paddle.cummin(paddle.to_tensor([3, 1, 2, 0]))
        >>> values.tolist(), indices.tolist()
        ([3, 1, 1, 0], [0, 1, 1, 3])
    """
    return _running("cummin", red.cummin, x, axis, dtype)
