"""Activation functions (`paddle.nn.functional.activation`): relu, gelu, softmax, prelu, maxout, glu, ..."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor import activation as act
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of, static_int
from paddle_fn.tensor.manipulation import split
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape, float_operand, real_operand
from paddle_fn.nn.functional._eigen_tanh import eigen_tanh_float32
from paddle_fn.nn.functional._shared import _channel_axis

__all__ = ["celu", "elu", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu",
           "log_sigmoid", "log_softmax", "maxout", "mish", "prelu", "relu", "relu6", "selu", "sigmoid", "silu",
           "softmax", "softplus", "softshrink", "softsign", "swish", "tanh", "tanhshrink", "thresholded_relu"]

relu, relu6, gelu, silu = act.relu, act.relu6, act.gelu, act.silu
softplus, leaky_relu, elu = act.softplus, act.leaky_relu, act.elu
softmax, log_softmax = act.softmax, act.log_softmax
sigmoid, tanh = m.sigmoid, m.tanh


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.selu(paddle.to_tensor([-1., 1.])).numpy()
        array([-1.1113307,  1.050701 ], dtype=float32)
    """
    x = float_operand("selu", x)
    return ew.mul(st.full_like(x, scale), elu(x, alpha))


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.celu(paddle.to_tensor([-1., 1.]), alpha=0.5).numpy()
        array([-0.43233237,  1.        ], dtype=float32)
    """
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    x = float_operand("celu", x)
    return ew.mul(st.full_like(x, alpha), elu(ew.div(x, st.full_like(x, alpha)), 1.0))


def swish(x, name=None):
    """x * sigmoid(x) (the same as `silu`).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.swish(paddle.to_tensor([1.])).numpy()
        array([0.7310586], dtype=float32)
    """
    return silu(x)


def mish(x, name=None):
    """x * tanh(softplus(x)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.mish(paddle.to_tensor([1.])).numpy()
        array([0.8650984], dtype=float32)
    """
    x = float_operand("mish", x)
    return ew.mul(x, ew.tanh(softplus(x)))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """clip(slope * x + offset, 0, 1).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hardsigmoid(paddle.to_tensor([-4., 0., 4.])).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    x = float_operand("hardsigmoid", x)
    return m.clip(ew.add(ew.mul(x, st.full_like(x, slope)), st.full_like(x, offset)), 0.0, 1.0)


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hardswish(paddle.to_tensor([-4., 1., 4.])).numpy()
        array([-0.       ,  0.6666667,  4.       ], dtype=float32)
    """
    x = float_operand("hardswish", x)
    return ew.div(ew.mul(x, relu6(ew.add(x, st.full_like(x, 3.0)))), st.full_like(x, 6.0))


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's names
    """clip(x, min, max).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hardtanh(paddle.to_tensor([-2., 0.5, 2.])).numpy()
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return m.clip(as_tensor(x), min, max)


def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > threshold, else 0.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hardshrink(paddle.to_tensor([-1., 0.3, 2.])).numpy()
        array([-1.,  0.,  2.], dtype=float32)
    """
    x = as_tensor(x)
    return ew.select(ew.gt(ew.abs(x), st.full_like(x, threshold)), x, st.full_like(x, 0))


def softshrink(x, threshold=0.5, name=None):
    """x - threshold where x > threshold, x + threshold where x < -threshold, else 0.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softshrink(paddle.to_tensor([-1., 0.3, 2.])).numpy()
        array([-0.5,  0. ,  1.5], dtype=float32)
    """
    x = as_tensor(x)
    t = st.full_like(x, threshold)
    return ew.select(ew.gt(x, t), ew.sub(x, t), ew.select(ew.lt(x, ew.neg(t)), ew.add(x, t), st.full_like(x, 0)))


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, else `value` (Paddle 3.3; 0 by default).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.thresholded_relu(paddle.to_tensor([0.5, 2.])).numpy()
        array([0., 2.], dtype=float32)
        >>> F.thresholded_relu(paddle.to_tensor([0.5, 2.]), value=-1.0).numpy()
        array([-1.,  2.], dtype=float32)
    """
    x = real_operand("thresholded_relu", x)
    return ew.select(ew.gt(x, st.full_like(x, threshold)), x, st.full_like(x, value))


def prelu(x, weight, data_format="NCHW", name=None):
    """x where x > 0, else weight * x; `weight` has one element (shared) or one per channel (axis 1 for NC...,
    the last axis for N...C).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.prelu(paddle.to_tensor([[-1., 2.], [-3., 4.]]), paddle.to_tensor([0.25])).numpy()
        array([[-0.25,  2.  ],
               [-0.75,  4.  ]], dtype=float32)
    """
    x = float_operand("prelu", x)
    w = as_tensor(weight, get_aval(x).dtype)
    n = get_aval(w).size
    if n == 1:
        w = broadcast_to_shape(st.reshape(w, new_sizes=()), shape_of(x))
    else:
        ch = _channel_axis(data_format, get_aval(x).ndim)
        if shape_of(x)[ch] != n:
            raise ShapeError(f"prelu: weight has {n} elements but x (shape {list(shape_of(x))}) has "
                             f"{shape_of(x)[ch]} channels in axis {ch} ({data_format})")
        w = st.broadcast_in_dim(st.reshape(w, new_sizes=(n,)), shape=shape_of(x), broadcast_dimensions=(ch,))
    return ew.select(ew.gt(x, st.full_like(x, 0)), x, ew.mul(w, x))


def softsign(x, name=None):
    """x / (1 + |x|).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softsign(paddle.to_tensor([-3., 1.])).numpy()
        array([-0.75,  0.5 ], dtype=float32)
    """
    x = float_operand("softsign", x)
    return ew.div(x, ew.add(st.full_like(x, 1.0), ew.abs(x)))


def tanhshrink(x, name=None):
    """x - tanh(x). In float32 the value is Paddle's (bit for bit eagerly; compiled, within an ulp where the
    compiler fuses a multiply-add): its CPU kernel subtracts Eigen's float32 tanh, whose last-ulp differences from
    tanh are the leading digits of a small result (e.g. 0.02005100 vs 0.02005103 at -0.4); the gradient is the
    derivative of x - tanh(x), tanh(x)^2 (to float32's absolute precision near 0).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.tanhshrink(paddle.to_tensor([1.])).numpy()
        array([0.23840582], dtype=float32)
        >>> F.tanhshrink(paddle.to_tensor([-0.4])).numpy()
        array([-0.020051], dtype=float32)
    """
    x = float_operand("tanhshrink", x)
    exact = ew.sub(x, ew.tanh(x))
    if get_aval(x).dtype != dtypes.float32:
        return exact
    return exact + ew.stop_gradient(ew.sub(x, eigen_tanh_float32(x)) - exact)


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.log_sigmoid(paddle.to_tensor([0., -100.])).numpy()
        array([  -0.6931472, -100.       ], dtype=float32)
    """
    x = float_operand("log_sigmoid", x)
    # -softplus(-x) = min(x, 0) - log1p(exp(-|x|))
    return ew.sub(ew.min(x, st.full_like(x, 0)), ew.log1p(ew.exp(ew.neg(ew.abs(x)))))


def maxout(x, groups, axis=1, name=None):
    """The maximum over each run of `groups` consecutive channels of axis `axis` (channels / groups outputs).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.maxout(paddle.to_tensor([[1., 5., 2., 0.]]), groups=2).numpy()
        array([[5., 2.]], dtype=float32)
    """
    x = as_tensor(x)
    shape = shape_of(x)
    ax = normalize_axis("maxout", axis, len(shape))
    g = static_int("maxout", groups, "groups")
    if shape[ax] % g:
        raise ShapeError(f"maxout: axis {ax} of shape {list(shape)} (size {shape[ax]}) is not divisible by groups={g}")
    grouped = st.reshape(x, new_sizes=shape[:ax] + (shape[ax] // g, g) + shape[ax + 1:])
    return red.reduce_max(grouped, axes=(ax + 1,))


def glu(x, axis=-1, name=None):
    """The gated linear unit: a * sigmoid(b), with a and b the two halves of `x` along `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.glu(paddle.to_tensor([[1., 2., 0., 100.]])).numpy()
        array([[0.5, 2. ]], dtype=float32)
    """
    x = float_operand("glu", x)
    ax = normalize_axis("glu", axis, get_aval(x).ndim)
    if shape_of(x)[ax] % 2:
        raise ShapeError(f"glu: axis {ax} of shape {list(shape_of(x))} must have an even size")
    a, b = split(x, 2, axis=ax)
    return ew.mul(a, ew.logistic(b))


logsigmoid = log_sigmoid


def swiglu(x, y=None, name=None):
    """The SwiGLU gate ``silu(x) * y``; with `y` None, `x`'s last dimension is split in halves (x, y).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.swiglu(paddle.to_tensor([[1.0, 2.0, 3.0, 4.0]])).numpy()
        array([[2.1931758, 7.046376 ]], dtype=float32)
    """
    x = float_operand("swiglu", x)
    if y is None:
        size = shape_of(x)[-1]
        if size % 2:
            raise ShapeError(f"swiglu: with y None, x's last dimension must be even, got shape {list(shape_of(x))}")
        x, y = split(x, 2, axis=-1)
    return m.multiply(silu(x), y)

