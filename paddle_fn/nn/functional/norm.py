"""Normalization (`paddle.nn.functional.norm`): batch_norm (and batch_norm_with_stats, which also returns the
updated running statistics), layer_norm, instance_norm, group_norm, local_response_norm, normalize.
"""
from __future__ import annotations

import builtins

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of, static_int, static_list, write_out
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape, cast, float_operand
from paddle_fn.nn.functional._shared import _along_axis, _channel_axis

__all__ = ["batch_norm", "batch_norm_with_stats", "group_norm", "instance_norm", "layer_norm",
           "local_response_norm", "normalize"]

def _moments(x, axes):
    """(x - mean, mean, biased variance) over `axes`, the statistics kept as size-1 dims. The normalization
    scales this same centered x: subtracting the mean a second time would give the gradient a second sum over
    `axes` (one more reduction, two dispatches, in every compiled backward of layer_norm and batch_norm)."""
    mean = m.mean(x, axis=list(axes), keepdim=True)
    centered = ew.sub(x, broadcast_to_shape(mean, shape_of(x)))
    var = m.mean(ew.mul(centered, centered), axis=list(axes), keepdim=True)
    return centered, mean, var


def _normalized(centered, var, epsilon):
    inv = ew.rsqrt(ew.add(var, st.full_like(var, epsilon)))
    return ew.mul(centered, broadcast_to_shape(inv, shape_of(centered)))


def _standardized(x, axes, epsilon):
    centered, _, var = _moments(x, axes)
    return _normalized(centered, var, epsilon)


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalize over the trailing dims `normalized_shape` (mean 0, biased variance 1), then scale by `weight`
    and shift by `bias` (both of shape normalized_shape).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.layer_norm(paddle.to_tensor([[1., 2., 3.]]), 3).numpy()
        array([[-1.2247356,  0.       ,  1.2247356]], dtype=float32)
    """
    x = float_operand("layer_norm", x)
    norm_shape = static_list("layer_norm", normalized_shape, "normalized_shape")
    shape = shape_of(x)
    k = len(norm_shape)
    if list(shape[len(shape) - k:]) != norm_shape:
        raise ShapeError(f"layer_norm: normalized_shape {norm_shape} must be the trailing dims of x {list(shape)}")
    axes = tuple(range(len(shape) - k, len(shape)))
    out = _standardized(x, axes, epsilon)
    trailing = tuple(range(len(shape) - k, len(shape)))
    for p, combine in ((weight, ew.mul), (bias, ew.add)):
        if p is not None:
            p = st.reshape(as_tensor(p, get_aval(x).dtype), new_sizes=tuple(norm_shape))
            out = combine(out, st.broadcast_in_dim(p, shape=shape, broadcast_dimensions=trailing))
    return out


def _per_channel(p, x, channel_axis):
    p = st.reshape(as_tensor(p, get_aval(x).dtype), new_sizes=(shape_of(x)[channel_axis],))
    return st.broadcast_in_dim(p, shape=shape_of(x), broadcast_dimensions=(channel_axis,))


def batch_norm_with_stats(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9,
                          epsilon=1e-05, data_format="NCHW", use_global_stats=None, name=None):
    """`batch_norm` that also returns the updated running statistics: (out, new_running_mean, new_running_var).

    With batch statistics (training and not use_global_stats) the new running values are
    momentum * running + (1 - momentum) * batch, with the biased batch variance (as Paddle's kernel); otherwise
    they are the running values unchanged. Tensors are immutable, so this is how the statistics come back. A
    Python `momentum` is rounded to float32 first, whatever the dtype: Paddle passes it to its kernel as a float32
    attribute, so float64 running statistics move by float32(0.9), not 0.9.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[1.], [3.]])
        >>> out, mean, var = F.batch_norm_with_stats(x, paddle.zeros([1]), paddle.ones([1]), training=True)
        >>> out.numpy().ravel(), mean.numpy(), var.numpy()
        (array([-0.999995,  0.999995], dtype=float32), array([0.20000005], dtype=float32), array([1.], dtype=float32))
    """
    x = float_operand("batch_norm", x)
    ndim = get_aval(x).ndim
    if ndim < 2:
        raise ShapeError(f"batch_norm: x must have at least 2 dims [N, C, ...], got shape {list(shape_of(x))}")
    ch = _channel_axis(data_format, ndim)
    axes = tuple(d for d in range(ndim) if d != ch)
    use_global = (not training) if use_global_stats is None else bool(use_global_stats)
    running_mean, running_var = as_tensor(running_mean), as_tensor(running_var)
    if use_global:
        mean, var = _per_channel(running_mean, x, ch), _per_channel(running_var, x, ch)
        centered = ew.sub(x, mean)
        new_mean, new_var = running_mean, running_var
    else:
        centered, mean, var = _moments(x, axes)
        c = shape_of(x)[ch]
        batch_mean, batch_var = (cast(st.reshape(v, new_sizes=(c,)), get_aval(running_mean).dtype)
                                 for v in (mean, var))
        if isinstance(momentum, (int, float, np.floating)):
            momentum = float(np.float32(momentum))
        new_mean = m.add(m.multiply(running_mean, momentum), m.multiply(batch_mean, 1.0 - momentum))
        new_var = m.add(m.multiply(running_var, momentum), m.multiply(batch_var, 1.0 - momentum))
    out = _normalized(centered, var, epsilon)
    if weight is not None:
        out = ew.mul(out, _per_channel(weight, x, ch))
    if bias is not None:
        out = ew.add(out, _per_channel(bias, x, ch))
    return out, new_mean, new_var


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.9, epsilon=1e-05,
               data_format="NCHW", use_global_stats=None, name=None):
    """Normalize each channel (axis 1, or the last axis for N...C formats) with the batch's statistics
    (training) or the running ones (inference, or use_global_stats=True), then apply weight and bias.

    Returns the output only. Paddle updates running_mean/running_var in place; Tensors here are immutable, so
    use `batch_norm_with_stats` to get the updated statistics back (the Layer shim does that for you).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[1., 2.], [3., 6.]])
        >>> F.batch_norm(x, paddle.zeros([2]), paddle.ones([2])).numpy()
        array([[0.999995, 1.99999 ],
               [2.999985, 5.99997 ]], dtype=float32)
    """
    return batch_norm_with_stats(x, running_mean, running_var, weight, bias, training, momentum, epsilon,
                                 data_format, use_global_stats)[0]


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalize each (example, channel) over its spatial dims, then apply the per-channel weight and bias.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.instance_norm(paddle.to_tensor([[[1., 3.]]]), data_format='NCL').numpy()
        array([[[-0.999995,  0.999995]]], dtype=float32)
    """
    x = float_operand("instance_norm", x)
    ndim = get_aval(x).ndim
    ch = _channel_axis(data_format, ndim)
    axes = tuple(d for d in range(1, ndim) if d != ch)
    out = _standardized(x, axes, eps)
    if weight is not None:
        out = ew.mul(out, _per_channel(weight, x, ch))
    if bias is not None:
        out = ew.add(out, _per_channel(bias, x, ch))
    return out


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW", name=None):
    """Normalize each group of num_groups consecutive-channel groups per example over its channels and spatial
    dims, then apply the per-channel weight and bias.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.group_norm(paddle.to_tensor([[[1.], [3.], [5.], [5.]]]), 2).numpy().ravel()
        array([-0.999995,  0.999995,  0.      ,  0.      ], dtype=float32)
    """
    x = float_operand("group_norm", x)
    shape = shape_of(x)
    if data_format not in ("NCHW", "NCL", "NCDHW", "NC"):
        raise ValueError(f"group_norm: only channel-first data formats are supported, got {data_format!r}")
    g = static_int("group_norm", num_groups, "num_groups")
    if shape[1] % g:
        raise ShapeError(f"group_norm: {shape[1]} channels (shape {list(shape)}) are not divisible into {g} groups")
    grouped = st.reshape(x, new_sizes=(shape[0], g, shape[1] // g) + shape[2:])
    out = st.reshape(_standardized(grouped, tuple(range(2, len(shape) + 1)), epsilon),
                     new_sizes=shape)
    if weight is not None:
        out = ew.mul(out, _per_channel(weight, x, 1))
    if bias is not None:
        out = ew.add(out, _per_channel(bias, x, 1))
    return out


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """x / (k + alpha / size * sum of x^2 over `size` neighbouring channels) ** beta.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.local_response_norm(paddle.ones([1, 3, 1, 1]), 3, alpha=3., beta=1.).numpy().ravel()
        array([0.33333334, 0.25      , 0.33333334], dtype=float32)
    """
    x = float_operand("local_response_norm", x)
    ndim = get_aval(x).ndim
    ch = _channel_axis(data_format, ndim)
    c = shape_of(x)[ch]
    band = np.zeros((c, c))
    for i in range(c):
        band[i, builtins.max(0, i - (size - 1) // 2): builtins.min(c, i + size // 2 + 1)] = 1.0
    summed = _along_axis(ew.mul(x, x), band, ch)
    denom = ew.pow(ew.add(st.full_like(x, k), ew.mul(st.full_like(x, alpha / size), summed)), st.full_like(x, beta))
    return ew.div(x, denom)


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """x / max(||x||_p over `axis`, epsilon); `out` (Paddle 3.3), a Tensor made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.normalize(paddle.to_tensor([[3., 4.]])).numpy()
        array([[0.6, 0.8]], dtype=float32)
    """
    x = float_operand("normalize", x)
    if get_aval(x).ndim == 1 and axis in (0, -1, 1):
        axis = 0
    ax = normalize_axis("normalize", axis, get_aval(x).ndim)
    if float(p) == 2:
        n = m.sqrt(m.sum(ew.mul(x, x), axis=ax, keepdim=True))
    else:
        n = m.pow(m.sum(m.pow(m.abs(x), float(p)), axis=ax, keepdim=True), 1.0 / float(p))
    return write_out(ew.div(x, broadcast_to_shape(m.maximum(n, epsilon), shape_of(x))), out)
