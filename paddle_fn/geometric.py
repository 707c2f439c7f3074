"""`paddle.geometric`: segment reductions (`segment_sum`, `segment_mean`, `segment_max`, `segment_min`) and graph
message passing (`send_u_recv`, `send_ue_recv`, `send_uv`), with Paddle's semantics: rows gathered by index,
combined, and reduced into the rows another index names, a row no index names holding zeros.

They are scatter reductions (`paddle.scatter_reduce`) of gathered rows, so they differentiate, vmap and compile.
The number of output rows of a segment reduction is ``max(segment_ids) + 1``: it is read from the ids, which must
then be concrete (outside `jit`, or a constant inside); `send_u_recv` and `send_ue_recv` give ``x.shape[0]`` rows
unless `out_size` says otherwise, so they need no concrete index.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.tensor._util import eager_value, shape_of
from paddle_fn.tensor.creation import zeros
from paddle_fn.tensor.manipulation import expand, gather, reshape
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.tensor.scatters import scatter_reduce

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min", "send_u_recv", "send_ue_recv", "send_uv"]

_REDUCE = {"sum": "sum", "mean": "mean", "max": "amax", "min": "amin"}
_MESSAGE = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
            "div": lambda a, b: a / b}


def _index(what, name, index):
    index = as_tensor(index)
    if get_aval(index).ndim != 1 or get_aval(index).dtype.name not in ("int32", "int64"):
        raise ShapeError(f"{what}: {name} must be a 1-D int32 or int64 Tensor, got "
                         f"{get_aval(index).dtype.name}{list(shape_of(index))}")
    return index


def _reduce_rows(what, values, index, rows, reduce):
    """`values` [n, ...] reduced by `reduce` into `rows` rows at `index` [n]; rows no index names are zeros."""
    if reduce not in _REDUCE:
        raise ValueError(f"{what}: reduce_op must be one of {', '.join(_REDUCE)}, got {reduce!r}")
    shape = shape_of(values)
    if shape[0] != shape_of(index)[0]:
        raise ShapeError(f"{what}: {shape[0]} rows of values but {shape_of(index)[0]} indices")
    spread = expand(reshape(index, [shape[0]] + [1] * (len(shape) - 1)), list(shape))
    return scatter_reduce(zeros([rows] + list(shape[1:]), dtype=values.dtype), 0, spread, values, _REDUCE[reduce],
                          include_self=False)


def _segments(what, data, segment_ids, reduce):
    data, ids = as_tensor(data), _index(what, "segment_ids", segment_ids)
    concrete = eager_value(ids)
    if concrete is None:
        raise ValueError(f"{what}: the number of segments is max(segment_ids) + 1, which needs concrete ids; inside "
                         "jit pass them as a constant, or use send_u_recv with out_size")
    rows = int(np.max(concrete)) + 1 if concrete.size else 0
    return _reduce_rows(what, data, ids, rows, reduce)


def segment_sum(data, segment_ids, name=None):
    """Sums of the rows of `data` with equal `segment_ids` (sorted, non-negative): row i of the result sums the rows
    whose id is i; ``max(segment_ids) + 1`` rows.

    Example:
        >>> import paddle_fn as paddle
        >>> data = paddle.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> paddle.geometric.segment_sum(data, paddle.to_tensor([0, 0, 1])).numpy()
        array([[4., 4., 4.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segments("segment_sum", data, segment_ids, "sum")


def segment_mean(data, segment_ids, name=None):
    """Means of the rows of `data` with equal `segment_ids`; see `segment_sum`.

    Example:
        >>> import paddle_fn as paddle
        >>> data = paddle.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> paddle.geometric.segment_mean(data, paddle.to_tensor([0, 0, 1])).numpy()
        array([[2., 2., 2.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segments("segment_mean", data, segment_ids, "mean")


def segment_max(data, segment_ids, name=None):
    """Elementwise maxima of the rows of `data` with equal `segment_ids`; a segment with no rows holds zeros.

    Example:
        >>> import paddle_fn as paddle
        >>> data = paddle.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> paddle.geometric.segment_max(data, paddle.to_tensor([0, 0, 2])).numpy()
        array([[3., 2., 3.],
               [0., 0., 0.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segments("segment_max", data, segment_ids, "max")


def segment_min(data, segment_ids, name=None):
    """Elementwise minima of the rows of `data` with equal `segment_ids`; a segment with no rows holds zeros.

    Example:
        >>> import paddle_fn as paddle
        >>> data = paddle.to_tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [4.0, 5.0, 6.0]])
        >>> paddle.geometric.segment_min(data, paddle.to_tensor([0, 0, 1])).numpy()
        array([[1., 2., 1.],
               [4., 5., 6.]], dtype=float32)
    """
    return _segments("segment_min", data, segment_ids, "min")


def _rows(what, x, out_size):
    if out_size is None:
        return shape_of(x)[0]
    size = eager_value(as_tensor(out_size)) if not isinstance(out_size, int) else out_size
    if size is None:
        raise ValueError(f"{what}: out_size must be concrete (an int, or a Tensor outside jit)")
    size = int(np.asarray(size).reshape(-1)[0])
    return size if size > 0 else shape_of(x)[0]


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Graph message passing: the rows of `x` at `src_index` (the messages, one per edge) reduced by `reduce_op`
    ('sum', 'mean', 'max', 'min') into the rows at `dst_index`. The result has `out_size` rows (None or <= 0:
    as many as `x`); a row no edge reaches holds zeros.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> src, dst = paddle.to_tensor([0, 1, 2, 0]), paddle.to_tensor([1, 2, 1, 0])
        >>> paddle.geometric.send_u_recv(x, src, dst, reduce_op="sum").numpy()
        array([[ 0.,  2.,  3.],
               [ 2.,  8., 10.],
               [ 1.,  4.,  5.]], dtype=float32)
    """
    x = as_tensor(x)
    src, dst = _index("send_u_recv", "src_index", src_index), _index("send_u_recv", "dst_index", dst_index)
    return _reduce_rows("send_u_recv", gather(x, src), dst, _rows("send_u_recv", x, out_size), reduce_op)


def _message(what, x_rows, y, message_op):
    if message_op not in _MESSAGE:
        raise ValueError(f"{what}: message_op must be one of {', '.join(_MESSAGE)}, got {message_op!r}")
    return _MESSAGE[message_op](x_rows, as_tensor(y))


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum", out_size=None, name=None):
    """`send_u_recv` whose messages combine the rows of `x` at `src_index` with the edge features `y` (one row per
    edge, broadcast against them) by `message_op` ('add', 'sub', 'mul', 'div').

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> y = paddle.to_tensor([1.0, 1.0, 1.0, 1.0])
        >>> src, dst = paddle.to_tensor([0, 1, 2, 0]), paddle.to_tensor([1, 2, 1, 0])
        >>> paddle.geometric.send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum").numpy()
        array([[ 1.,  3.,  4.],
               [ 4., 10., 12.],
               [ 2.,  5.,  6.]], dtype=float32)
    """
    x = as_tensor(x)
    src, dst = _index("send_ue_recv", "src_index", src_index), _index("send_ue_recv", "dst_index", dst_index)
    y = as_tensor(y)
    if get_aval(y).ndim < get_aval(x).ndim:  # one feature per edge: broadcast along x's feature axes
        y = reshape(y, list(shape_of(y)) + [1] * (get_aval(x).ndim - get_aval(y).ndim))
    messages = _message("send_ue_recv", gather(x, src), y, message_op)
    return _reduce_rows("send_ue_recv", messages, dst, _rows("send_ue_recv", x, out_size), reduce_op)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """One message per edge: the row of `x` at its source combined with the row of `y` at its destination by
    `message_op` ('add', 'sub', 'mul', 'div').

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0.0, 2.0, 3.0], [1.0, 4.0, 5.0], [2.0, 6.0, 7.0]])
        >>> src, dst = paddle.to_tensor([0, 1, 2, 0]), paddle.to_tensor([1, 2, 1, 0])
        >>> paddle.geometric.send_uv(x, x, src, dst, message_op="add").numpy()
        array([[ 1.,  6.,  8.],
               [ 3., 10., 12.],
               [ 3., 10., 12.],
               [ 0.,  4.,  6.]], dtype=float32)
    """
    src, dst = _index("send_uv", "src_index", src_index), _index("send_uv", "dst_index", dst_index)
    return _message("send_uv", gather(as_tensor(x), src), gather(as_tensor(y), dst), message_op)
