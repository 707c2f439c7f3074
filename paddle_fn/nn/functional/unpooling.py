"""Max unpooling (`max_unpool1d/2d/3d`): the maxima that ``max_pool*d(..., return_mask=True)`` kept, written back
at the positions its mask recorded, zeros elsewhere. A scatter into a zero image, so grad, vmap and jit see
through it.
"""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.tensor._util import static_list
from paddle_fn.tensor.creation import zeros
from paddle_fn.tensor.manipulation import reshape
from paddle_fn.tensor.promotion import as_tensor, cast
from paddle_fn.tensor.scatters import put_along_axis
from paddle_fn.nn.functional._shared import _tuple

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]

_CHANNEL_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def _max_unpool(op, n, x, indices, kernel_size, stride, padding, data_format, output_size):
    if data_format != _CHANNEL_FIRST[n]:
        raise ValueError(f"{op}: data_format must be {_CHANNEL_FIRST[n]!r}, got {data_format!r}")
    x, indices = as_tensor(x), as_tensor(indices)
    shape = list(get_aval(x).shape)
    if len(shape) != n + 2 or list(get_aval(indices).shape) != shape:
        raise ShapeError(f"{op}: x and indices must be {n + 2}-D of the same shape, got {shape} and "
                         f"{list(get_aval(indices).shape)}")
    kernel = _tuple(op, kernel_size, n, "kernel_size")
    strides = kernel if stride is None else _tuple(op, stride, n, "stride")
    pads = _tuple(op, padding, n, "padding")
    if output_size is None:
        spatial = [(size - 1) * s - 2 * p + k for size, s, p, k in zip(shape[2:], strides, pads, kernel)]
    else:
        spatial = static_list(op, output_size, "output_size")[-n:]
    total = 1
    for size in spatial:
        total *= size
    batch, channels = shape[:2]
    flat = put_along_axis(zeros([batch, channels, total], dtype=get_aval(x).dtype),
                          reshape(cast(indices, "int64"), [batch, channels, -1]), reshape(x, [batch, channels, -1]), 2)
    return reshape(flat, [batch, channels] + spatial)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    """The inverse of ``max_pool1d``: a [N, C, L_out] Tensor, zero but for `x`'s values at `indices`
    (``max_pool1d(..., return_mask=True)``'s mask); L_out is ``(L - 1) * stride - 2 * padding + kernel_size``
    unless `output_size` says otherwise.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> values, mask = F.max_pool1d(paddle.to_tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]]), 2, return_mask=True)
        >>> F.max_unpool1d(values, mask, 2).numpy()
        array([[[0., 3., 0., 5., 4., 0.]]], dtype=float32)
    """
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    """The inverse of ``max_pool2d`` (see ``max_unpool1d``).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[[[1.0, 5.0], [3.0, 2.0]]]])
        >>> values, mask = F.max_pool2d(x, 2, return_mask=True)
        >>> F.max_unpool2d(values, mask, 2).numpy()
        array([[[[0., 5.],
                 [0., 0.]]]], dtype=float32)
    """
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding, data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None,
                 name=None):
    """The inverse of ``max_pool3d`` (see ``max_unpool1d``).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> values, mask = F.max_pool3d(paddle.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2]), 2, return_mask=True)
        >>> F.max_unpool3d(values, mask, 2).numpy().reshape(-1).tolist()
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding, data_format, output_size)
