"""Pooling (`paddle.nn.functional.pooling`): max/avg pooling in 1-D, 2-D and 3-D and their adaptive forms."""
from __future__ import annotations

import itertools

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of
from paddle_fn.tensor.manipulation import take_along_axis
from paddle_fn.tensor.promotion import as_tensor, float_operand
from paddle_fn.nn.functional._shared import (_adaptive_average_matrix, _adaptive_bins, _along_axis, _channel_last,
                                             _padding_pairs, _spatial_dims, _tuple)

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d",
           "max_pool2d", "max_pool3d", "lp_pool1d", "lp_pool2d"]

def _pool_geometry(op, n, x, kernel_size, stride, padding, ceil_mode, data_format):
    channel_last = _channel_last(op, data_format, n)
    if get_aval(x).ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}-D input ({data_format}), got shape {list(shape_of(x))}")
    dims = _spatial_dims(n + 2, channel_last)
    kernel = _tuple(op, kernel_size, n, "kernel_size")
    strides = kernel if stride is None else _tuple(op, stride, n, "stride")
    in_sp = tuple(shape_of(x)[d] for d in dims)
    pads = _padding_pairs(op, padding, n, channel_last, in_sp, kernel, strides, (1,) * n)
    outs, highs = [], []
    for size, k, s, (lo, hi) in zip(in_sp, kernel, strides, pads):
        span = size + lo + hi - k
        if span < 0:
            raise ShapeError(f"{op}: kernel {list(kernel)} is larger than the padded input (spatial shape "
                             f"{list(in_sp)}, padding {list(pads)})")
        out = (-(-span // s) if ceil_mode else span // s) + 1
        outs.append(out)
        highs.append((out - 1) * s + k - size - lo)  # the extra windows of ceil_mode read past the padding
    return dims, kernel, strides, tuple((lo, h) for (lo, _), h in zip(pads, highs)), tuple(outs)


def _windows(x, dims, kernel, strides, outs):
    """Each kernel offset's strided view of the (padded) input: one `slice` per position in the window."""
    shape = shape_of(x)
    for offset in itertools.product(*[range(k) for k in kernel]):
        start, limit, step = [0] * len(shape), list(shape), [1] * len(shape)
        for d, o, s, n in zip(dims, offset, strides, outs):
            start[d], limit[d], step[d] = o, o + (n - 1) * s + 1, s
        yield st.slice(x, start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(step))


def _pad_spatial(x, dims, pads, value):
    config = [(0, 0, 0)] * get_aval(x).ndim
    for d, (lo, hi) in zip(dims, pads):
        config[d] = (lo, hi, 0)
    return st.pad(x, np.array(value, get_aval(x).dtype.np), padding_config=tuple(config))


def _max_pool(op, n, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    x = as_tensor(x)
    dims, kernel, strides, pads, outs = _pool_geometry(op, n, x, kernel_size, stride, padding, ceil_mode,
                                                       data_format)
    dt = get_aval(x).dtype
    lowest = -np.inf if dt.kind == "f" else np.iinfo(dt.np).min
    out = None
    for window in _windows(_pad_spatial(x, dims, pads, lowest), dims, kernel, strides, outs):
        out = window if out is None else ew.max(out, window)
    if not return_mask:
        return out
    return out, _argmax_positions(x, dims, kernel, strides, pads, outs, lowest)


def _argmax_positions(x, dims, kernel, strides, pads, outs, lowest):
    """The mask of max pooling: per window, the position of its first largest element in the flattened spatial
    dimensions of the unpadded input (int32, as Paddle's)."""
    spatial = tuple(shape_of(x)[d] for d in dims)
    flat = np.arange(int(np.prod(spatial)), dtype=np.int32).reshape(spatial)
    position = st.broadcast_in_dim(Tensor(flat), shape=shape_of(x), broadcast_dimensions=dims)
    best = index = None
    for window, where_from in zip(_windows(_pad_spatial(x, dims, pads, lowest), dims, kernel, strides, outs),
                                  _windows(_pad_spatial(position, dims, pads, -1), dims, kernel, strides, outs)):
        if best is None:
            best, index = window, where_from
            continue
        better = ew.gt(window, best)
        best, index = ew.select(better, window, best), ew.select(better, where_from, index)
    return index


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """The maximum over each window of a 3-D input [N, C, L] (padding never wins: it is -inf). With
    ``return_mask`` also the position of each maximum in the input (int32), which ``max_unpool1d`` reads.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.max_pool1d(paddle.to_tensor([[[1., 3., 2., 5., 4.]]]), 2).numpy()
        array([[[3., 5.]]], dtype=float32)
    """
    return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, return_mask, ceil_mode, "NCL")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    """The maximum over each kernel_size window (stride defaults to kernel_size) of a 4-D input; padding as
    in conv2d ('SAME' too); ceil_mode adds the partial windows at the end. A tie between window elements shares
    the gradient equally between them. ``return_mask=True`` also returns each maximum's position in its
    channel's flattened input (int32; the first on ties), which ``max_unpool2d`` reads.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.max_pool2d(x, 2).numpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
        >>> F.max_pool2d(x, 3, stride=2, ceil_mode=True).shape
        paddle.Size([1, 1, 2, 2])
        >>> F.max_pool2d(x, 2, return_mask=True)[1].numpy()
        array([[[[ 5,  7],
                 [13, 15]]]], dtype=int32)
    """
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    """The maximum over each window of a 5-D input (see `max_pool2d`).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.max_pool3d(paddle.ones([1, 1, 4, 4, 4]), 2).shape
        paddle.Size([1, 1, 2, 2, 2])
    """
    return _max_pool("max_pool3d", 3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def _avg_pool(op, n, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format):
    x = float_operand(op, x)
    dims, kernel, strides, pads, outs = _pool_geometry(op, n, x, kernel_size, stride, padding, ceil_mode,
                                                       data_format)
    total = None
    for window in _windows(_pad_spatial(x, dims, pads, 0), dims, kernel, strides, outs):
        total = window if total is None else ew.add(total, window)
    shape = shape_of(total)
    if divisor_override:
        return ew.div(total, st.full_like(total, divisor_override))
    if not exclusive:
        return ew.div(total, st.full_like(total, int(np.prod(kernel))))
    # exclusive: divide by the number of real (unpadded) elements in each window, a constant of the geometry
    count = np.ones(())
    for d, k, s, n, (lo, _) in zip(dims, kernel, strides, outs, pads):
        starts = np.arange(n) * s - lo
        per_dim = np.minimum(starts + k, shape_of(x)[d]) - np.maximum(starts, 0)
        count = np.multiply.outer(count, per_dim)
    count = Tensor(np.maximum(count, 1).astype(get_aval(x).dtype.np))
    return ew.div(total, st.broadcast_in_dim(count, shape=shape, broadcast_dimensions=dims))


def _lp_pool(op, n, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    x = float_operand(op, x)
    p = float(norm_type)
    if p <= 0:
        raise ValueError(f"{op}: norm_type must be positive, got {norm_type}")
    total = _avg_pool(op, n, ew.pow(x, st.full_like(x, p)), kernel_size, stride, padding, ceil_mode, False, 1,
                      data_format)
    return ew.pow(total, st.full_like(total, 1.0 / p))


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL", name=None):
    """The power-average pooling ``(sum over each window of x ** norm_type) ** (1 / norm_type)`` of a 3-D input
    (padding contributes 0; norm_type 1 is sum pooling, large values approach max pooling).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.lp_pool1d(paddle.to_tensor([[[1.0, 3.0, 2.0, 5.0, 4.0]]]), 1, 2, ceil_mode=True).numpy()
        array([[[4., 7., 4.]]], dtype=float32)
    """
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW", name=None):
    """The power-average pooling of a 4-D input (see ``lp_pool1d``).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.lp_pool2d(paddle.to_tensor([[[[3.0, 4.0], [0.0, 0.0]]]]), 2, 2).numpy()
        array([[[[5.]]]], dtype=float32)
    """
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    """The mean over each window of a 3-D input [N, C, L]; exclusive=True leaves padding out of the count.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.avg_pool1d(paddle.to_tensor([[[1., 3., 2., 6.]]]), 2, padding=1).numpy()
        array([[[1. , 2.5, 6. ]]], dtype=float32)
    """
    return _avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, exclusive, None, "NCL")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    """The mean over each window of a 4-D input. exclusive=True (Paddle's default) divides by the number of
    unpadded elements in the window; divisor_override replaces the divisor.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.avg_pool2d(x, 2).numpy()
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return _avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    """The mean over each window of a 5-D input (see `avg_pool2d`).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.avg_pool3d(paddle.ones([1, 1, 4, 4, 4]), 2, padding=1).shape
        paddle.Size([1, 1, 3, 3, 3])
    """
    return _avg_pool("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format)


def _adaptive_avg(op, n, x, output_size, data_format):
    x = float_operand(op, x)
    channel_last = _channel_last(op, data_format, n)
    if get_aval(x).ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}-D input ({data_format}), got shape {list(shape_of(x))}")
    dims = _spatial_dims(n + 2, channel_last)
    sizes = [None if o is None else int(o) for o in (output_size if isinstance(output_size, (list, tuple))
                                                    else [output_size] * n)]
    for d, out in zip(dims, sizes):
        size = shape_of(x)[d]
        out = size if out is None else out
        # averaging over rectangular bins is separable: one [out, in] averaging matrix per spatial axis
        x = _along_axis(x, _adaptive_average_matrix(size, out), d)
    return x


def adaptive_avg_pool1d(x, output_size, name=None):
    """The mean over `output_size` adaptive bins of a 3-D input [N, C, L] (bin i spans floor(i L / out) to
    ceil((i + 1) L / out)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_avg_pool1d(paddle.to_tensor([[[1., 2., 3., 4., 5.]]]), 2).numpy()
        array([[[2., 4.]]], dtype=float32)
    """
    return _adaptive_avg("adaptive_avg_pool1d", 1, x, output_size, "NCL")


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """The mean over adaptive bins giving `output_size` (an int, or [h, w] where None keeps that size).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_avg_pool2d(paddle.ones([2, 3, 7, 5]), 1).shape
        paddle.Size([2, 3, 1, 1])
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, x, output_size, data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """The mean over adaptive bins of a 5-D input giving `output_size`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_avg_pool3d(paddle.ones([1, 2, 5, 4, 3]), [2, 2, None]).shape
        paddle.Size([1, 2, 2, 2, 3])
    """
    return _adaptive_avg("adaptive_avg_pool3d", 3, x, output_size, data_format)


def _adaptive_max(op, n, x, output_size, return_mask):
    x = as_tensor(x)
    if get_aval(x).ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}-D input, got shape {list(shape_of(x))}")
    sizes = output_size if isinstance(output_size, (list, tuple)) else [output_size] * n
    dims = tuple(range(2, n + 2))
    # with return_mask the flat spatial position of each value travels with it, bin by bin
    spatial = tuple(shape_of(x)[2:])
    position = st.broadcast_in_dim(Tensor(np.arange(int(np.prod(spatial)), dtype=np.int32).reshape(spatial)),
                                   shape=shape_of(x), broadcast_dimensions=dims) if return_mask else None
    for d, out in zip(dims, sizes):
        shape = shape_of(x)
        out = shape[d] if out is None else int(out)
        parts, places = [], []
        for lo, hi in _adaptive_bins(shape[d], out):
            start = tuple(lo if k == d else 0 for k in range(len(shape)))
            limit = tuple(hi if k == d else s for k, s in enumerate(shape))
            window = st.slice(x, start_indices=start, limit_indices=limit)
            if return_mask:
                first = st.expand_dims(red.argmax(window, axis=d, index_dtype=dtypes.int32), dimensions=(d,))
                parts.append(take_along_axis(window, first, d))
                places.append(take_along_axis(st.slice(position, start_indices=start, limit_indices=limit), first,
                                              d))
            else:
                part = red.reduce_max(window, axes=(d,))
                parts.append(st.reshape(part, new_sizes=shape[:d] + (1,) + shape[d + 1:]))
        x = parts[0] if len(parts) == 1 else st.concatenate(*parts, dimension=d)
        if return_mask:
            position = places[0] if len(places) == 1 else st.concatenate(*places, dimension=d)
    return (x, position) if return_mask else x


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """The maximum over `output_size` adaptive bins of a 3-D input [N, C, L].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_max_pool1d(paddle.to_tensor([[[1., 5., 3., 4., 2.]]]), 2).numpy()
        array([[[5., 4.]]], dtype=float32)
    """
    return _adaptive_max("adaptive_max_pool1d", 1, x, output_size, return_mask)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """The maximum over adaptive bins of a 4-D input [N, C, H, W] giving `output_size`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_max_pool2d(paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4]), 1).numpy()
        array([[[[15.]]]], dtype=float32)
    """
    return _adaptive_max("adaptive_max_pool2d", 2, x, output_size, return_mask)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """The maximum over adaptive bins of a 5-D input [N, C, D, H, W] giving `output_size`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_max_pool3d(paddle.ones([1, 2, 5, 4, 3]), 2).shape
        paddle.Size([1, 2, 2, 2, 2])
    """
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask)
