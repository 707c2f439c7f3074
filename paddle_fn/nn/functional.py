"""`paddle.nn.functional`: Paddle's stateless neural-network functions, composed from the Tensor API and
the `conv_general_dilated` primitive. Every function works eagerly and under grad, vmap and jit.

Sections: activations; linear, embedding and one_hot; dropout; convolutions; pooling; normalization; padding
and interpolation; distances; losses. See docs/nn_functional.md.
"""
from __future__ import annotations

import builtins
import itertools

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ConcretizationError, DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, current_dynamic_main, get_aval, is_concrete
from paddle_fn.prims import conv as cv
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor import activation as act
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of, static_int, static_list
from paddle_fn.tensor.creation import diag_embed as _diag_embed
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.logic import equal, greater_than, not_equal
from paddle_fn.tensor.manipulation import gather, reshape, squeeze, take_along_axis, transpose, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape, cast, float_operand, full_like_scalar

__all__ = [
    # activations
    "relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "swish", "mish", "hardswish", "hardsigmoid", "hardtanh",
    "hardshrink", "softshrink", "thresholded_relu", "leaky_relu", "prelu", "softplus", "softsign", "tanhshrink",
    "log_sigmoid", "sigmoid", "tanh", "softmax", "log_softmax", "maxout", "glu",
    # linear / embedding
    "linear", "bilinear", "embedding", "one_hot",
    # dropout
    "dropout", "dropout2d", "dropout3d", "alpha_dropout",
    # convolution
    "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose",
    # pooling
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    # normalization
    "layer_norm", "batch_norm", "batch_norm_with_stats", "instance_norm", "group_norm", "normalize",
    "local_response_norm",
    # padding / resampling
    "pad", "zeropad2d", "interpolate", "upsample", "pixel_shuffle", "unfold", "diag_embed",
    # distances
    "cosine_similarity", "pairwise_distance", "label_smooth",
    # losses
    "cross_entropy", "softmax_with_cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "mse_loss", "l1_loss", "smooth_l1_loss", "kl_div", "square_error_cost",
    "margin_ranking_loss", "sigmoid_focal_loss", "hinge_embedding_loss", "log_loss", "dice_loss",
]

relu, relu6, gelu, silu = act.relu, act.relu6, act.gelu, act.silu
softplus, leaky_relu, elu = act.softplus, act.leaky_relu, act.elu
softmax, log_softmax = act.softmax, act.log_softmax
sigmoid, tanh = m.sigmoid, m.tanh
diag_embed = _diag_embed


def _c(x, v):
    return full_like_scalar(v, get_aval(x).dtype, shape_of(x))


# ---------------------------------------------------------------------------------------------- activations

def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717, name=None):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.selu(paddle.to_tensor([-1., 1.])).numpy()
        array([-1.1113307,  1.050701 ], dtype=float32)
    """
    x = float_operand("selu", x)
    return ew.mul(_c(x, scale), elu(x, alpha))


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
    return ew.mul(_c(x, alpha), elu(ew.div(x, _c(x, alpha)), 1.0))


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
    return m.clip(ew.add(ew.mul(x, _c(x, slope)), _c(x, offset)), 0.0, 1.0)


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hardswish(paddle.to_tensor([-4., 1., 4.])).numpy()
        array([-0.       ,  0.6666667,  4.       ], dtype=float32)
    """
    x = float_operand("hardswish", x)
    return ew.div(ew.mul(x, relu6(ew.add(x, _c(x, 3.0)))), _c(x, 6.0))


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
    return ew.select(ew.gt(ew.abs(x), _c(x, threshold)), x, _c(x, 0))


def softshrink(x, threshold=0.5, name=None):
    """x - threshold where x > threshold, x + threshold where x < -threshold, else 0.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softshrink(paddle.to_tensor([-1., 0.3, 2.])).numpy()
        array([-0.5,  0. ,  1.5], dtype=float32)
    """
    x = as_tensor(x)
    t = _c(x, threshold)
    return ew.select(ew.gt(x, t), ew.sub(x, t), ew.select(ew.lt(x, ew.neg(t)), ew.add(x, t), _c(x, 0)))


def thresholded_relu(x, threshold=1.0, name=None):
    """x where x > threshold, else 0.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.thresholded_relu(paddle.to_tensor([0.5, 2.])).numpy()
        array([0., 2.], dtype=float32)
    """
    x = as_tensor(x)
    return ew.select(ew.gt(x, _c(x, threshold)), x, _c(x, 0))


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
    return ew.select(ew.gt(x, _c(x, 0)), x, ew.mul(w, x))


def softsign(x, name=None):
    """x / (1 + |x|).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softsign(paddle.to_tensor([-3., 1.])).numpy()
        array([-0.75,  0.5 ], dtype=float32)
    """
    x = float_operand("softsign", x)
    return ew.div(x, ew.add(_c(x, 1.0), ew.abs(x)))


def tanhshrink(x, name=None):
    """x - tanh(x).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.tanhshrink(paddle.to_tensor([1.])).numpy()
        array([0.23840582], dtype=float32)
    """
    x = float_operand("tanhshrink", x)
    return ew.sub(x, ew.tanh(x))


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
    return ew.sub(ew.min(x, _c(x, 0)), ew.log1p(ew.exp(ew.neg(ew.abs(x)))))


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
    from paddle_fn.tensor.manipulation import split
    x = float_operand("glu", x)
    ax = normalize_axis("glu", axis, get_aval(x).ndim)
    if shape_of(x)[ax] % 2:
        raise ShapeError(f"glu: axis {ax} of shape {list(shape_of(x))} must have an even size")
    a, b = split(x, 2, axis=ax)
    return ew.mul(a, ew.logistic(b))


# ---------------------------------------------------------------------------------------------- linear, embedding

def linear(x, weight, bias=None, name=None):
    """x @ weight + bias, with Paddle's weight layout [in_features, out_features].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.linear(paddle.ones([2, 3]), paddle.ones([3, 4]), paddle.to_tensor([0., 1., 2., 3.])).numpy()
        array([[3., 4., 5., 6.],
               [3., 4., 5., 6.]], dtype=float32)
    """
    out = matmul(x, weight)
    return out if bias is None else m.add(out, bias)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, k] = x1[n] @ weight[k] @ x2[n] + bias[k], with weight [out, in1, in2].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.bilinear(paddle.ones([1, 2]), paddle.ones([1, 3]), paddle.ones([4, 2, 3])).shape
        [1, 4]
    """
    from paddle_fn.tensor.einsum import einsum
    out = einsum("ni,kij,nj->nk", x1, weight, x2)
    return out if bias is None else m.add(out, reshape(bias, [1, -1]))


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Rows of `weight` [num_embeddings, dim] at the int ids `x`: shape x.shape + [dim]. Ids equal to
    `padding_idx` (negative counts from the end) give zeros and no gradient to that row. `sparse` is accepted and
    ignored.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> w = paddle.to_tensor([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embedding(paddle.to_tensor([[2, 0]]), w, padding_idx=2).numpy()
        array([[[0., 0.],
                [0., 0.]]], dtype=float32)
    """
    x, weight = as_tensor(x), as_tensor(weight)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"embedding: x must hold integer ids, got {get_aval(x).dtype.name}")
    if get_aval(weight).ndim != 2:
        raise ShapeError(f"embedding: weight must be 2-D [num_embeddings, dim], got shape {list(shape_of(weight))}")
    n, dim = shape_of(weight)
    ids = reshape(x, [-1])
    rows = reshape(gather(weight, ids), list(shape_of(x)) + [dim])
    if padding_idx is None:
        return rows
    pad_id = padding_idx + n if padding_idx < 0 else padding_idx
    is_pad = st.broadcast_in_dim(equal(x, pad_id), shape=shape_of(rows),
                                 broadcast_dimensions=tuple(range(get_aval(x).ndim)))
    return ew.select(is_pad, _c(rows, 0), rows)


def one_hot(x, num_classes, name=None):
    """float32 one-hot vectors of length `num_classes` for the int Tensor `x`: shape x.shape + [num_classes].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.one_hot(paddle.to_tensor([1, 0]), 3).numpy()
        array([[0., 1., 0.],
               [1., 0., 0.]], dtype=float32)
    """
    x = as_tensor(x)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"one_hot: x must be an integer Tensor, got {get_aval(x).dtype.name}")
    n = static_int("one_hot", num_classes, "num_classes")
    shape = shape_of(x) + (n,)
    classes = st.iota(dtype=get_aval(x).dtype, shape=shape, dimension=len(shape) - 1)
    spread = st.broadcast_in_dim(x, shape=shape, broadcast_dimensions=tuple(range(len(shape) - 1)))
    return cast(ew.eq(spread, classes), dtypes.float32)


# ---------------------------------------------------------------------------------------------- dropout

def _global_rng_allowed(op, x):
    """The Paddle-style global RNG is a hidden state: it works eagerly (and under grad, whose primals are
    concrete) but a traced function would bake one draw into every call, so there it is an error."""
    if not is_concrete(x) or current_dynamic_main().level > 0:
        raise ConcretizationError(
            f"{op}: with training=True and no key, the mask comes from the global Paddle-style RNG, which only "
            "works eagerly; inside jit/vmap pass an explicit key, e.g. "
            f"{op}(x, p, key=paddle_fn.random.fold_in(key, step)), so every call draws a fresh mask")


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None, *, key=None):
    """Zero each element with probability `p` (with `axis`, whole slices: the mask varies only along those
    axes). mode 'upscale_in_train' scales the kept values by 1/(1-p) in training and does nothing in inference;
    'downscale_in_infer' keeps training values as they are and scales by (1-p) in inference.

    `key` (a paddle_fn.random key) makes the mask a pure function of the key, so it works under jit and vmap.
    Without it the mask comes from the global RNG (`paddle.seed`), which works eagerly only.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> from paddle_fn import random
        >>> F.dropout(paddle.ones([6]), 0.5, key=random.key(1)).numpy()
        array([0., 2., 0., 0., 2., 2.], dtype=float32)
        >>> F.dropout(paddle.ones([2]), 0.5, training=False).numpy()
        array([1., 1.], dtype=float32)
    """
    from paddle_fn import random
    x = float_operand("dropout", x)
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    dt = get_aval(x).dtype
    if not training:
        return x if mode == "upscale_in_train" else ew.mul(x, _c(x, 1.0 - p))
    if p == 0:
        return x
    if p == 1:
        return _c(x, 0)
    shape = shape_of(x)
    axes = tuple(range(len(shape))) if axis is None else tuple(
        normalize_axis("dropout", a, len(shape)) for a in static_list("dropout", axis, "axis"))
    mask_shape = tuple(s for d, s in enumerate(shape) if d in axes)
    if key is None:
        _global_rng_allowed("dropout", x)
        u = random.rand(list(mask_shape), dtype=dt)
    else:
        u = random.uniform(key, mask_shape, dtype=dt)
    keep = st.broadcast_in_dim(ew.ge(u, full_like_scalar(p, dt, mask_shape)), shape=shape,
                               broadcast_dimensions=tuple(sorted(axes)))
    kept = ew.select(keep, x, _c(x, 0))
    return ew.div(kept, _c(x, 1.0 - p)) if mode == "upscale_in_train" else kept


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None, *, key=None):
    """Zero whole channels of a 4-D input with probability `p` (scaling the rest by 1/(1-p)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> from paddle_fn import random
        >>> F.dropout2d(paddle.ones([1, 4, 1, 1]), key=random.key(0)).numpy().reshape(-1)
        array([2., 2., 0., 0.], dtype=float32)
    """
    if get_aval(as_tensor(x)).ndim != 4:
        raise ShapeError(f"dropout2d: expected a 4-D input, got shape {list(shape_of(as_tensor(x)))}")
    return dropout(x, p, axis=[0, 1] if data_format == "NCHW" else [0, 3], training=training, key=key)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None, *, key=None):
    """Zero whole channels of a 5-D input with probability `p` (scaling the rest by 1/(1-p)).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> from paddle_fn import random
        >>> F.dropout3d(paddle.ones([1, 2, 1, 1, 1]), p=0.0, key=random.key(0)).shape
        [1, 2, 1, 1, 1]
    """
    if get_aval(as_tensor(x)).ndim != 5:
        raise ShapeError(f"dropout3d: expected a 5-D input, got shape {list(shape_of(as_tensor(x)))}")
    return dropout(x, p, axis=[0, 1] if data_format == "NCDHW" else [0, 4], training=training, key=key)


def alpha_dropout(x, p=0.5, training=True, name=None, *, key=None):
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and an affine map keeps
    the mean and variance of a unit normal input. `key` as in `dropout`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.alpha_dropout(paddle.ones([3]), 0.5, training=False).numpy()
        array([1., 1., 1.], dtype=float32)
    """
    from paddle_fn import random
    x = float_operand("alpha_dropout", x)
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"alpha_dropout: p must be in [0, 1], got {p}")
    if not training or p == 0:
        return x
    dt = get_aval(x).dtype
    saturation = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = (1.0 / ((1 - p) * (1 + p * saturation ** 2))) ** 0.5 if p < 1 else 0.0
    b = -a * saturation * p
    if key is None:
        _global_rng_allowed("alpha_dropout", x)
        u = random.rand(list(shape_of(x)), dtype=dt)
    else:
        u = random.uniform(key, shape_of(x), dtype=dt)
    keep = ew.ge(u, _c(x, p))
    return ew.add(ew.mul(ew.select(keep, x, _c(x, saturation)), _c(x, a)), _c(x, b))


# ---------------------------------------------------------------------------------------------- convolution

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _channel_last(op, data_format, n):
    first, last = _LAYOUTS[n]
    if data_format not in (first, last):
        raise ValueError(f"{op}: data_format must be {first!r} or {last!r}, got {data_format!r}")
    return data_format == last


def _channel_axis(data_format, ndim):
    return ndim - 1 if ndim > 2 and data_format[-1] == "C" and data_format != "NC" else 1


def _tuple(op, v, n, what):
    vals = static_list(op, v, what)
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise ValueError(f"{op}: {what} needs 1 or {n} values, got {vals}")
    return tuple(vals)


def _padding_pairs(op, padding, n, channel_last, in_sp, kernel, strides, dilation):
    """Paddle's padding argument as one (low, high) pair per spatial dim: 'SAME'/'VALID', an int, n ints
    (symmetric), 2n ints (low, high per dim), or n+2 pairs in data-format order (batch/channel pairs zero)."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * n
        if mode != "SAME":
            raise ValueError(f"{op}: padding must be 'SAME', 'VALID', an int or a list, got {padding!r}")
        pairs = []
        for size, k, s, d in zip(in_sp, kernel, strides, dilation):
            out = -(-size // s)
            total = builtins.max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            pairs.append((total // 2, total - total // 2))
        return tuple(pairs)
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        if len(padding) != n + 2:
            raise ValueError(f"{op}: padding given as pairs needs {n + 2} of them (one per dim), got {padding}")
        spatial = padding[1:-1] if channel_last else padding[2:]
        rest = [padding[0], padding[-1]] if channel_last else list(padding[:2])
        if any(list(p) != [0, 0] for p in rest):
            raise ValueError(f"{op}: padding of the batch and channel dims must be [0, 0], got {padding}")
        return tuple((int(lo), int(hi)) for lo, hi in spatial)
    vals = static_list(op, padding, "padding")
    if len(vals) == 1:
        return ((vals[0], vals[0]),) * n
    if len(vals) == n:
        return tuple((v, v) for v in vals)
    if len(vals) == 2 * n:
        return tuple((vals[2 * i], vals[2 * i + 1]) for i in range(n))
    raise ValueError(f"{op}: padding needs 1, {n} or {2 * n} ints, or {n + 2} pairs, got {padding}")


def _spatial_letters(n):
    return "DHW"[3 - n:] if n > 1 else "L"


def _add_channel_bias(op, out, bias, channel_axis):
    if bias is None:
        return out
    bias = as_tensor(bias, get_aval(out).dtype)
    c = shape_of(out)[channel_axis]
    if get_aval(bias).size != c:
        raise ShapeError(f"{op}: bias has {get_aval(bias).size} elements but the output has {c} channels")
    return ew.add(out, st.broadcast_in_dim(st.reshape(bias, new_sizes=(c,)), shape=shape_of(out),
                                           broadcast_dimensions=(channel_axis,)))


def _conv_operands(op, n, x, weight, groups, data_format):
    """Checked operands of an n-D convolution: (x, weight, channel_last, dimension numbers, groups)."""
    x = float_operand(op, x)
    weight = as_tensor(weight)
    weight = cast(weight, dtypes.result_dtype_tensors(op, get_aval(x).dtype, get_aval(weight).dtype))
    if get_aval(x).ndim != n + 2 or get_aval(weight).ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}-D input and weight, got shapes {list(shape_of(x))} and "
                         f"{list(shape_of(weight))}")
    channel_last = _channel_last(op, data_format, n)
    letters = _spatial_letters(n)
    layout = "N" + letters + "C" if channel_last else "NC" + letters
    dn = cv.conv_dimension_numbers(layout, "OI" + letters, layout)
    groups = static_int(op, groups, "groups")
    return x, weight, channel_last, dn, groups


def _conv(op, n, x, weight, bias, stride, padding, dilation, groups, data_format):
    x, weight, channel_last, dn, groups = _conv_operands(op, n, x, weight, groups, data_format)
    channels = shape_of(x)[dn.lhs_spec[1]]
    out_ch, in_per_group = shape_of(weight)[:2]
    if channels != in_per_group * groups or out_ch % groups:
        raise ShapeError(f"{op}: x (shape {list(shape_of(x))}, {data_format}) has {channels} channels but weight "
                         f"(shape {list(shape_of(weight))}, [out, in / groups, ...]) expects {in_per_group} * groups "
                         f"({groups}); out channels {out_ch} must also be divisible by groups")
    strides, dil = _tuple(op, stride, n, "stride"), _tuple(op, dilation, n, "dilation")
    in_sp = tuple(shape_of(x)[d] for d in dn.lhs_spec[2:])
    pads = _padding_pairs(op, padding, n, channel_last, in_sp, shape_of(weight)[2:], strides, dil)
    out = cv.conv_general_dilated(x, weight, window_strides=strides, padding=pads, rhs_dilation=dil,
                                  dimension_numbers=dn, feature_group_count=groups)
    return _add_channel_bias(op, out, bias, dn.out_spec[1])


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    """1-D convolution (cross-correlation) of x [N, C, L] ('NCL') or [N, L, C] ('NLC') with weight
    [out, C / groups, k].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv1d(paddle.to_tensor([[[1., 2., 3., 4.]]]), paddle.to_tensor([[[1., -1.]]])).numpy()
        array([[[-1., -1., -1.]]], dtype=float32)
    """
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    """2-D convolution of x [N, C, H, W] ('NCHW') or [N, H, W, C] ('NHWC') with weight [out, C / groups, kh, kw]
    (the same layout for both data formats). padding: an int, [ph, pw], [top, bottom, left, right], pairs per
    dim in data-format order, or 'SAME' / 'VALID'.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.ones([1, 3, 8, 8])
        >>> F.conv2d(x, paddle.ones([4, 3, 3, 3]), stride=2, padding=1).shape
        [1, 4, 4, 4]
        >>> F.conv2d(x, paddle.ones([6, 1, 3, 3]), padding='SAME', groups=3).shape
        [1, 6, 8, 8]
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution of x [N, C, D, H, W] ('NCDHW') or [N, D, H, W, C] with weight [out, C / groups, kd, kh,
    kw].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv3d(paddle.ones([1, 2, 4, 4, 4]), paddle.ones([3, 2, 2, 2, 2])).shape
        [1, 3, 3, 3, 3]
    """
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def _conv_transpose(op, n, x, weight, bias, stride, padding, output_padding, dilation, groups, output_size,
                    data_format):
    """The gradient of a convolution with respect to its input, as a convolution: the input is dilated by the
    stride, the kernel reversed and its in/out channels swapped within each group."""
    x, weight, channel_last, dn, groups = _conv_operands(op, n, x, weight, groups, data_format)
    in_ch, out_per_group = shape_of(weight)[:2]
    k = shape_of(weight)[2:]
    if shape_of(x)[dn.lhs_spec[1]] != in_ch or in_ch % groups:
        raise ShapeError(f"{op}: x (shape {list(shape_of(x))}, {data_format}) must have {in_ch} channels, the first "
                         f"dim of weight (shape {list(shape_of(weight))}, [in, out / groups, ...]), divisible by "
                         f"groups={groups}")
    strides, dil = _tuple(op, stride, n, "stride"), _tuple(op, dilation, n, "dilation")
    extra = list(_tuple(op, output_padding, n, "output_padding"))
    in_sp = tuple(shape_of(x)[d] for d in dn.lhs_spec[2:])
    if isinstance(padding, str) and padding.upper() == "SAME":
        pads = []
        for i, (kk, s, d) in enumerate(zip(k, strides, dil)):
            total = d * (kk - 1) + 1 - s
            pads.append((builtins.max(total, 0) // 2, builtins.max(total, 0) - builtins.max(total, 0) // 2))
            extra[i] += builtins.max(-total, 0)
    else:
        pads = _padding_pairs(op, padding, n, channel_last, in_sp, k, strides, dil)
    if output_size is not None:
        want = _tuple(op, output_size, n, "output_size")
        for i, (size, kk, s, d, (lo, hi)) in enumerate(zip(in_sp, k, strides, dil, pads)):
            base = (size - 1) * s - lo - hi + d * (kk - 1) + 1
            if not base <= want[i] < base + s:
                raise ValueError(f"{op}: output_size {list(want)} is not reachable: dimension {i} can be "
                                 f"{base}..{base + s - 1}")
            extra[i] = want[i] - base
    w = st.rev(weight, dimensions=tuple(range(2, n + 2)))
    # [groups * in_g, out_g, k] -> [groups * out_g, in_g, k]
    w = st.reshape(w, new_sizes=(groups, in_ch // groups, out_per_group) + k)
    w = st.transpose(w, permutation=(0, 2, 1) + tuple(range(3, n + 3)))
    w = st.reshape(w, new_sizes=(groups * out_per_group, in_ch // groups) + k)
    conv_pads = tuple((d * (kk - 1) - lo, d * (kk - 1) - hi + e) for kk, d, (lo, hi), e in zip(k, dil, pads, extra))
    out = cv.conv_general_dilated(x, w, window_strides=(1,) * n, padding=conv_pads, lhs_dilation=strides,
                                  rhs_dilation=dil, dimension_numbers=dn, feature_group_count=groups)
    return _add_channel_bias(op, out, bias, dn.out_spec[1])


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCL", name=None):
    """Transposed 1-D convolution with weight [C_in, C_out / groups, k]: the gradient of conv1d with respect to
    its input; output length (L - 1) * stride - pad_low - pad_high + dilation * (k - 1) + 1 + output_padding.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv1d_transpose(paddle.to_tensor([[[1., 2.]]]), paddle.to_tensor([[[1., 10.]]]), stride=2).numpy()
        array([[[ 1., 10.,  2., 20.]]], dtype=float32)
    """
    return _conv_transpose("conv1d_transpose", 1, x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     output_size=None, data_format="NCHW", name=None):
    """Transposed 2-D convolution with weight [C_in, C_out / groups, kh, kw] (Paddle's layout): the gradient of
    conv2d with respect to its input. `output_size` picks among the sizes a strided convolution maps to the
    same input size.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv2d_transpose(paddle.ones([1, 4, 5, 5]), paddle.ones([4, 2, 3, 3]), stride=2, padding=1).shape
        [1, 2, 9, 9]
    """
    return _conv_transpose("conv2d_transpose", 2, x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None):
    """Transposed 3-D convolution with weight [C_in, C_out / groups, kd, kh, kw] (see `conv2d_transpose`).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv3d_transpose(paddle.ones([1, 2, 2, 2, 2]), paddle.ones([2, 1, 2, 2, 2]), stride=2).shape
        [1, 1, 4, 4, 4]
    """
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format)


# ---------------------------------------------------------------------------------------------- pooling

def _spatial_dims(ndim, channel_last):
    return tuple(range(1, ndim - 1)) if channel_last else tuple(range(2, ndim))


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
    if return_mask:
        raise NotImplementedError(f"{op}: return_mask=True is not supported yet; the indices of the maxima can be "
                                  "found with paddle.argmax over the unfolded windows (F.unfold)")
    x = as_tensor(x)
    dims, kernel, strides, pads, outs = _pool_geometry(op, n, x, kernel_size, stride, padding, ceil_mode,
                                                       data_format)
    dt = get_aval(x).dtype
    lowest = -np.inf if dt.kind == "f" else np.iinfo(dt.np).min
    out = None
    for window in _windows(_pad_spatial(x, dims, pads, lowest), dims, kernel, strides, outs):
        out = window if out is None else ew.max(out, window)
    return out


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """The maximum over each window of a 3-D input [N, C, L] (padding never wins: it is -inf).

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
    the gradient equally between them.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
        >>> F.max_pool2d(x, 2).numpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
        >>> F.max_pool2d(x, 3, stride=2, ceil_mode=True).shape
        [1, 1, 2, 2]
    """
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    """The maximum over each window of a 5-D input (see `max_pool2d`).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.max_pool3d(paddle.ones([1, 1, 4, 4, 4]), 2).shape
        [1, 1, 2, 2, 2]
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
        return ew.div(total, _c(total, divisor_override))
    if not exclusive:
        return ew.div(total, _c(total, int(np.prod(kernel))))
    # exclusive: divide by the number of real (unpadded) elements in each window, a constant of the geometry
    count = np.ones(())
    for d, k, s, n, (lo, _) in zip(dims, kernel, strides, outs, pads):
        starts = np.arange(n) * s - lo
        per_dim = np.minimum(starts + k, shape_of(x)[d]) - np.maximum(starts, 0)
        count = np.multiply.outer(count, per_dim)
    count = Tensor(np.maximum(count, 1).astype(get_aval(x).dtype.np))
    return ew.div(total, st.broadcast_in_dim(count, shape=shape, broadcast_dimensions=dims))


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
        [1, 1, 3, 3, 3]
    """
    return _avg_pool("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format)


def _adaptive_bins(size, out):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _along_axis(x, matrix, axis):
    """Contract axis `axis` of x with the [out, in] matrix, the result taking that axis' place."""
    out = red.dot_general(x, cast(Tensor(matrix), get_aval(x).dtype), dimension_numbers=(((axis,), (1,)), ((), ())))
    ndim = get_aval(out).ndim
    perm = list(range(ndim - 1))
    perm.insert(axis, ndim - 1)
    return st.transpose(out, permutation=tuple(perm))


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
        matrix = np.zeros((out, size))
        for i, (lo, hi) in enumerate(_adaptive_bins(size, out)):
            matrix[i, lo:hi] = 1.0 / (hi - lo)
        x = _along_axis(x, matrix, d)
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
        [2, 3, 1, 1]
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, x, output_size, data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """The mean over adaptive bins of a 5-D input giving `output_size`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.adaptive_avg_pool3d(paddle.ones([1, 2, 5, 4, 3]), [2, 2, None]).shape
        [1, 2, 2, 2, 3]
    """
    return _adaptive_avg("adaptive_avg_pool3d", 3, x, output_size, data_format)


def _adaptive_max(op, n, x, output_size, return_mask):
    if return_mask:
        raise NotImplementedError(f"{op}: return_mask=True is not supported yet")
    x = as_tensor(x)
    if get_aval(x).ndim != n + 2:
        raise ShapeError(f"{op}: expected a {n + 2}-D input, got shape {list(shape_of(x))}")
    sizes = output_size if isinstance(output_size, (list, tuple)) else [output_size] * n
    dims = tuple(range(2, n + 2))
    for d, out in zip(dims, sizes):
        shape = shape_of(x)
        out = shape[d] if out is None else int(out)
        parts = []
        for lo, hi in _adaptive_bins(shape[d], out):
            start = tuple(lo if k == d else 0 for k in range(len(shape)))
            limit = tuple(hi if k == d else s for k, s in enumerate(shape))
            part = red.reduce_max(st.slice(x, start_indices=start, limit_indices=limit), axes=(d,))
            parts.append(st.reshape(part, new_sizes=shape[:d] + (1,) + shape[d + 1:]))
        x = parts[0] if len(parts) == 1 else st.concatenate(*parts, dimension=d)
    return x


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
        [1, 2, 2, 2, 2]
    """
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask)


# ---------------------------------------------------------------------------------------------- normalization

def _moments(x, axes):
    """Mean and biased variance over `axes`, kept as size-1 dims."""
    mean = m.mean(x, axis=list(axes), keepdim=True)
    centered = ew.sub(x, broadcast_to_shape(mean, shape_of(x)))
    var = m.mean(ew.mul(centered, centered), axis=list(axes), keepdim=True)
    return mean, var


def _normalized(x, mean, var, epsilon):
    shape = shape_of(x)
    inv = ew.rsqrt(ew.add(var, _c(var, epsilon)))
    return ew.mul(ew.sub(x, broadcast_to_shape(mean, shape)), broadcast_to_shape(inv, shape))


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
    out = _normalized(x, *_moments(x, axes), epsilon)
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
    they are the running values unchanged. Tensors are immutable, so this is how the statistics come back.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[1.], [3.]])
        >>> out, mean, var = F.batch_norm_with_stats(x, paddle.zeros([1]), paddle.ones([1]), training=True)
        >>> out.numpy().ravel(), mean.numpy(), var.numpy()
        (array([-0.999995,  0.999995], dtype=float32), array([0.2], dtype=float32), array([1.], dtype=float32))
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
        new_mean, new_var = running_mean, running_var
    else:
        mean, var = _moments(x, axes)
        c = shape_of(x)[ch]
        batch_mean, batch_var = (cast(st.reshape(v, new_sizes=(c,)), get_aval(running_mean).dtype)
                                 for v in (mean, var))
        new_mean = m.add(m.multiply(running_mean, momentum), m.multiply(batch_mean, 1.0 - momentum))
        new_var = m.add(m.multiply(running_var, momentum), m.multiply(batch_var, 1.0 - momentum))
    out = _normalized(x, mean, var, epsilon)
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
    out = _normalized(x, *_moments(x, axes), eps)
    if weight is not None:
        out = ew.mul(out, _per_channel(weight, x, ch))
    if bias is not None:
        out = ew.add(out, _per_channel(bias, x, ch))
    return out


def group_norm(x, num_groups, weight=None, bias=None, epsilon=1e-05, data_format="NCHW", name=None):
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
    out = st.reshape(_normalized(grouped, *_moments(grouped, tuple(range(2, len(shape) + 1))), epsilon),
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
    denom = ew.pow(ew.add(_c(x, k), ew.mul(_c(x, alpha / size), summed)), _c(x, beta))
    return ew.div(x, denom)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """x / max(||x||_p over `axis`, epsilon).

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
    return ew.div(x, broadcast_to_shape(m.maximum(n, epsilon), shape_of(x)))


# ---------------------------------------------------------------------------------------------- padding, resampling

def _edge_index(mode, size, lo, hi):
    """Source positions for each output position of a reflect/replicate/circular pad of one axis."""
    positions = np.arange(-lo, size + hi)
    if mode == "replicate":
        return np.clip(positions, 0, size - 1)
    if mode == "circular":
        return positions % size
    if lo >= size or hi >= size:
        raise ValueError(f"pad: reflect padding ({lo}, {hi}) must be smaller than the dimension size {size}")
    period = 2 * (size - 1)
    folded = np.abs(positions) % period if period else np.zeros_like(positions)
    return np.where(folded >= size, period - folded, folded)


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", name=None):
    """Pad `x`. `pad` has 2 * x.ndim entries (constant mode: (low, high) for every dim, first dim first), or two
    per spatial dim starting from the LAST one (Paddle's order: [left, right, top, bottom, front, back]).
    mode: 'constant' (with `value`), 'reflect', 'replicate' or 'circular'.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[[1., 2., 3.]]])
        >>> F.pad(x, [1, 2], mode='reflect', data_format='NCL').numpy()
        array([[[2., 1., 2., 3., 2., 1.]]], dtype=float32)
        >>> F.pad(x, [0, 0, 0, 0, 1, 0], value=9.).numpy()
        array([[[9., 1., 2., 3.]]], dtype=float32)
    """
    x = as_tensor(x)
    ndim = get_aval(x).ndim
    widths = static_list("pad", pad, "pad")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
    pairs = [(0, 0)] * ndim
    if len(widths) == 2 * ndim and mode == "constant":
        pairs = [(widths[2 * i], widths[2 * i + 1]) for i in range(ndim)]
    else:
        channel_last = data_format[-1] == "C" and data_format not in ("NC",)
        dims = _spatial_dims(ndim, channel_last)
        if len(widths) != 2 * len(dims) or len(widths) % 2:
            raise ValueError(f"pad: pad {widths} needs two entries per spatial dim of x (shape {list(shape_of(x))}, "
                             f"{data_format}: {len(dims)} spatial dims)" + (", or two per dim in constant mode"
                                                                            if mode == "constant" else ""))
        for i, d in enumerate(reversed(dims)):
            pairs[d] = (widths[2 * i], widths[2 * i + 1])
    if mode == "constant":
        return st.pad(x, np.array(value, get_aval(x).dtype.np), padding_config=tuple((lo, hi, 0) for lo, hi in pairs))
    for d, (lo, hi) in enumerate(pairs):
        if lo or hi:
            x = gather(x, Tensor(_edge_index(mode, shape_of(x)[d], lo, hi)), axis=d)
    return x


def zeropad2d(x, padding, data_format="NCHW", name=None):
    """Zero padding of a 4-D input by [left, right, top, bottom] (or one int for all four).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.zeropad2d(paddle.ones([1, 1, 1, 1]), [1, 0, 0, 1]).numpy()
        array([[[[0., 1.],
                 [0., 0.]]]], dtype=float32)
    """
    widths = static_list("zeropad2d", padding, "padding")
    return pad(x, widths * 4 if len(widths) == 1 else widths, mode="constant", value=0.0, data_format=data_format)


def _resample_matrix(mode, size, out, align_corners, align_mode, scale):
    """The [out, size] matrix mapping one axis of the input to the output (linear interpolation weights, or a
    one-hot row per output for nearest), with Paddle's source-coordinate conventions."""
    if align_corners:
        ratio = (size - 1) / (out - 1) if out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale else size / out
    i = np.arange(out, dtype=np.float64)
    matrix = np.zeros((out, size))
    if mode == "nearest":
        src = np.floor(ratio * i + 0.5) if align_corners else np.floor(ratio * i)
        matrix[np.arange(out), np.minimum(src.astype(np.int64), size - 1)] = 1.0
        return matrix
    if align_corners or align_mode == 1:
        src = ratio * i
    else:
        src = np.maximum(ratio * (i + 0.5) - 0.5, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), size - 1)
    hi = np.minimum(lo + 1, size - 1)
    frac = src - lo
    np.add.at(matrix, (np.arange(out), lo), 1.0 - frac)
    np.add.at(matrix, (np.arange(out), hi), frac)
    return matrix


_MODE_RANK = {"linear": 1, "bilinear": 2, "trilinear": 3}


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                data_format="NCHW", name=None):
    """Resize the spatial dims of a 3-, 4- or 5-D input to `size`, or by `scale_factor` (output int(in * scale)).
    mode: 'nearest', 'linear' (3-D), 'bilinear' (4-D) or 'trilinear' (5-D). Source coordinates follow Paddle:
    align_corners=True maps corners to corners; otherwise align_mode=0 uses half-pixel centres and
    align_mode=1 the scaled index.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[[[1., 2.], [3., 4.]]]])
        >>> F.interpolate(x, scale_factor=2).numpy()[0, 0]
        array([[1., 1., 2., 2.],
               [1., 1., 2., 2.],
               [3., 3., 4., 4.],
               [3., 3., 4., 4.]], dtype=float32)
        >>> F.interpolate(x, size=[3, 3], mode='bilinear', align_corners=True).numpy()[0, 0]
        array([[1. , 1.5, 2. ],
               [2. , 2.5, 3. ],
               [3. , 3.5, 4. ]], dtype=float32)
    """
    x = float_operand("interpolate", x)
    ndim = get_aval(x).ndim
    n = ndim - 2
    mode = mode.lower()
    if mode not in ("nearest", "linear", "bilinear", "trilinear"):
        raise ValueError(f"interpolate: mode {mode!r} is not supported (use nearest, linear, bilinear or trilinear)")
    if mode != "nearest" and _MODE_RANK[mode] != n:
        raise ShapeError(f"interpolate: mode {mode!r} needs a {_MODE_RANK[mode] + 2}-D input, got shape "
                         f"{list(shape_of(x))}")
    if n not in (1, 2, 3):
        raise ShapeError(f"interpolate: expected a 3-, 4- or 5-D input, got shape {list(shape_of(x))}")
    if n == 1:  # Paddle names the 3-D layouts NCW/NWC here
        data_format = {"NCW": "NCL", "NWC": "NLC"}.get(data_format, data_format)
    channel_last = _channel_last("interpolate", data_format, n)
    dims = _spatial_dims(ndim, channel_last)
    in_sp = [shape_of(x)[d] for d in dims]
    if size is not None:
        outs, scales = list(_tuple("interpolate", size, n, "size")), [None] * n
    elif scale_factor is not None:
        scales = [float(s) for s in (scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor] * n)]
        outs = [int(s * f) for s, f in zip(in_sp, scales)]
    else:
        raise ValueError("interpolate: give size or scale_factor")
    for d, s, o, f in zip(dims, in_sp, outs, scales):
        if o != s or mode != "nearest":
            x = _along_axis(x, _resample_matrix(mode, s, o, align_corners, align_mode, f), d)
    return x


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
             data_format="NCHW", name=None):
    """The same as `interpolate`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.upsample(paddle.ones([1, 1, 2, 2]), scale_factor=2).shape
        [1, 1, 4, 4]
    """
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C*r*r, H, W] into [N, C, H*r, W*r].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.pixel_shuffle(paddle.arange(4, dtype='float32').reshape([1, 4, 1, 1]), 2).numpy()
        array([[[[0., 1.],
                 [2., 3.]]]], dtype=float32)
    """
    x = as_tensor(x)
    r = static_int("pixel_shuffle", upscale_factor, "upscale_factor")
    if data_format == "NHWC":
        x = transpose(x, [0, 3, 1, 2])
    n, c, h, w = shape_of(x)
    if c % (r * r):
        raise ShapeError(f"pixel_shuffle: {c} channels are not divisible by upscale_factor**2 = {r * r}")
    out = st.reshape(x, new_sizes=(n, c // (r * r), r, r, h, w))
    out = st.reshape(st.transpose(out, permutation=(0, 1, 4, 2, 5, 3)), new_sizes=(n, c // (r * r), h * r, w * r))
    return transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: the kernel_sizes patches of a 4-D input [N, C, H, W] as columns [N, C*kh*kw, L].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.unfold(paddle.ones([1, 2, 3, 3]), 2).shape
        [1, 8, 4]
    """
    x = float_operand("unfold", x)
    if get_aval(x).ndim != 4:
        raise ShapeError(f"unfold: expected a 4-D input [N, C, H, W], got shape {list(shape_of(x))}")
    n, c = shape_of(x)[:2]
    k = _tuple("unfold", kernel_sizes, 2, "kernel_sizes")
    # an identity kernel per channel picks every patch element: a grouped convolution with one-hot filters
    eye = np.eye(k[0] * k[1]).reshape(k[0] * k[1], 1, k[0], k[1])
    kernel = Tensor(np.tile(eye, (c, 1, 1, 1)).astype(get_aval(x).dtype.np))
    out = conv2d(x, kernel, stride=strides, padding=static_list("unfold", paddings, "paddings"), dilation=dilations,
                 groups=c)
    return st.reshape(out, new_sizes=(n, c * k[0] * k[1], int(np.prod(shape_of(out)[2:]))))


# ---------------------------------------------------------------------------------------------- distances

def cosine_similarity(x1, x2, axis=1, eps=1e-8, name=None):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) over `axis`, with broadcasting.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.cosine_similarity(paddle.to_tensor([[1., 0.], [1., 1.]]), paddle.to_tensor([[1., 0.], [-1., 0.]])).numpy()
        array([ 1.        , -0.70710677], dtype=float32)
    """
    w12 = m.sum(m.multiply(x1, x2), axis=axis)
    w1 = m.sum(m.multiply(x1, x1), axis=axis)
    w2 = m.sum(m.multiply(x2, x2), axis=axis)
    return m.divide(w12, m.sqrt(m.clip(m.multiply(w1, w2), min=eps * eps)))


def pairwise_distance(x, y, p=2.0, epsilon=1e-06, keepdim=False, name=None):
    """The p-norm of x - y + epsilon over the last axis.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.pairwise_distance(paddle.to_tensor([[3., 0.]]), paddle.to_tensor([[0., 4.]]), epsilon=0.).numpy()
        array([5.], dtype=float32)
    """
    d = m.add(m.subtract(x, y), epsilon)
    p = float(p)
    if p == float("inf"):
        return m.max(m.abs(d), axis=-1, keepdim=keepdim)
    if p == float("-inf"):
        return m.min(m.abs(d), axis=-1, keepdim=keepdim)
    if p == 0:
        return m.sum(cast(not_equal(d, 0.0), get_aval(d).dtype), axis=-1, keepdim=keepdim)
    return m.pow(m.sum(m.pow(m.abs(d), p), axis=-1, keepdim=keepdim), 1.0 / p)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior_dist (default: uniform over the last axis).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.label_smooth(paddle.to_tensor([[0., 1.]]), epsilon=0.2).numpy()
        array([[0.1       , 0.90000004]], dtype=float32)
    """
    label = float_operand("label_smooth", label)
    smoothed = m.multiply(label, 1.0 - epsilon)
    if prior_dist is None:
        return m.add(smoothed, epsilon / shape_of(label)[-1])
    return m.add(smoothed, m.multiply(prior_dist, epsilon))


# ---------------------------------------------------------------------------------------------- losses

def _reduce(op, loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return m.sum(loss)
    if reduction == "mean":
        return m.mean(loss)
    raise ValueError(f"{op}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _check_reduction(op, reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {list(allowed)}, got {reduction!r}")


def _divide_nonzero(total, weight_sum):
    """total / weight_sum, with a zero weight sum counting as 1 (Paddle's guard)."""
    is_zero = cast(ew.eq(weight_sum, _c(weight_sum, 0)), get_aval(weight_sum).dtype)
    return ew.div(total, ew.add(weight_sum, is_zero))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002 - Paddle's names
                  soft_label=False, axis=-1, use_softmax=True, name=None):
    """Cross entropy between the softmax of `input` along `axis` (or `input` itself as probabilities with
    use_softmax=False) and `label`.

    Hard labels: class indices of input's shape with `axis` of size 1 (e.g. [N, 1]) or without that axis
    (e.g. [N]); entries equal to `ignore_index` give 0 loss. Soft labels (soft_label=True): a distribution of
    input's shape. `weight` [C] weighs each class (soft labels: by label @ weight).

    reduction='none' returns the per-example loss (shape of the label for hard labels; input's with `axis` of
    size 1 for soft labels); 'sum' and 'mean' a 0-D Tensor. Paddle's 'mean' is a weighted mean, sum(loss)
    / sum(weight of each example's class), over the examples not ignored; with a negative ignore_index (the
    default -100) and no weight it divides by the number of all examples, ignored ones included, as Paddle does.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logits = paddle.to_tensor([[2., 0., 0.], [0., 0., 0.]])
        >>> F.cross_entropy(logits, paddle.to_tensor([0, 2])).numpy()
        array(0.6690786, dtype=float32)
        >>> F.cross_entropy(logits, paddle.to_tensor([[0], [1]]), reduction='none').numpy()
        array([[0.23954484],
               [1.0986123 ]], dtype=float32)
    """
    _check_reduction("cross_entropy", reduction)
    x = float_operand("cross_entropy", input)
    shape = shape_of(x)
    ax = normalize_axis("cross_entropy", axis, len(shape))
    logp = log_softmax(x, axis=ax) if use_softmax else m.log(x)
    label = as_tensor(label)
    if soft_label:
        if shape_of(label) != shape:
            raise ShapeError(f"cross_entropy: soft labels must have input's shape {list(shape)}, got "
                             f"{list(shape_of(label))}")
        label = cast(label, get_aval(x).dtype)
        loss = m.neg(m.sum(m.multiply(label, logp), axis=ax, keepdim=True))
        if weight is None:
            return _reduce("cross_entropy", loss, reduction)
        w = st.broadcast_in_dim(as_tensor(weight, get_aval(x).dtype), shape=shape, broadcast_dimensions=(ax,))
        example_weight = m.sum(m.multiply(label, w), axis=ax, keepdim=True)
        loss = m.multiply(loss, example_weight)
        if reduction == "mean":
            return _divide_nonzero(m.sum(loss), m.sum(example_weight))
        return _reduce("cross_entropy", loss, reduction)
    if get_aval(label).dtype.kind not in "iu":
        raise DTypeError(f"cross_entropy: hard labels must be integer class indices, got {get_aval(label).dtype.name} "
                         "(for probabilities pass soft_label=True)")
    squeezed = get_aval(label).ndim == len(shape) - 1
    if squeezed:
        label = unsqueeze(label, ax)
    expected = shape[:ax] + (1,) + shape[ax + 1:]
    if shape_of(label) != expected:
        raise ShapeError(f"cross_entropy: label of shape {list(shape_of(label))} does not fit input of shape "
                         f"{list(shape)} with axis={axis}: expected {list(expected)} or "
                         f"{list(expected[:ax] + expected[ax + 1:])}")
    label = cast(label, dtypes.int64)
    valid = not_equal(label, ignore_index)
    safe = where(valid, label, 0)
    loss = where(valid, m.neg(take_along_axis(logp, safe, ax)), 0.0)
    example_weight = None
    if weight is not None:
        w = as_tensor(weight, get_aval(x).dtype)
        example_weight = where(valid, reshape(gather(w, reshape(safe, [-1])), list(shape_of(safe))), 0.0)
        loss = m.multiply(loss, example_weight)
    if reduction == "none":
        return squeeze(loss, ax) if squeezed else loss
    if reduction == "sum":
        return m.sum(loss)
    if example_weight is not None:
        return _divide_nonzero(m.sum(loss), m.sum(example_weight))
    if ignore_index >= 0:
        return _divide_nonzero(m.sum(loss), m.sum(cast(valid, get_aval(x).dtype)))
    return m.mean(loss)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """The unreduced cross entropy of softmax(logits) along `axis`, with the label's axis of size 1 kept
    (shape [N, 1] for [N, C] logits); optionally also the softmax.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softmax_with_cross_entropy(paddle.to_tensor([[0., 0.]]), paddle.to_tensor([[1]])).numpy()
        array([[0.6931472]], dtype=float32)
    """
    loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none", soft_label=soft_label,
                         axis=axis)
    ax = normalize_axis("softmax_with_cross_entropy", axis, get_aval(as_tensor(logits)).ndim)
    if get_aval(loss).ndim < get_aval(as_tensor(logits)).ndim:
        loss = unsqueeze(loss, ax)
    return (loss, softmax(logits, axis=ax)) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):  # noqa: A002
    """The negative log likelihood -input[n, label[n]] * weight[label[n]] for log-probabilities `input`
    [N, C] or [N, C, d1, ...] and labels [N] or [N, d1, ...]; entries equal to ignore_index give 0 and are left out
    of the mean, which is weighted: sum(loss) / sum(weight[label]).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logp = paddle.log(paddle.to_tensor([[0.5, 0.5], [0.25, 0.75]]))
        >>> F.nll_loss(logp, paddle.to_tensor([0, 1])).numpy()
        array(0.49041462, dtype=float32)
    """
    _check_reduction("nll_loss", reduction)
    x = float_operand("nll_loss", input)
    label = as_tensor(label)
    shape = shape_of(x)
    if len(shape) < 2 or shape_of(label) != shape[:1] + shape[2:]:
        raise ShapeError(f"nll_loss: input [N, C, ...] (got {list(shape)}) needs label [N, ...] "
                         f"(got {list(shape_of(label))})")
    label = cast(label, dtypes.int64)
    valid = not_equal(label, ignore_index)
    safe = where(valid, label, 0)
    picked = squeeze(take_along_axis(x, unsqueeze(safe, 1), 1), 1)
    w = as_tensor(np.ones(shape[1], get_aval(x).dtype.np)) if weight is None else \
        as_tensor(weight, get_aval(x).dtype)
    example_weight = where(valid, reshape(gather(w, reshape(safe, [-1])), list(shape_of(safe))), 0.0)
    loss = m.multiply(m.neg(picked), example_weight)
    if reduction == "mean":
        return m.divide(m.sum(loss), m.sum(example_weight))
    return _reduce("nll_loss", loss, reduction)


def _weighted(loss, weight):
    return loss if weight is None else m.multiply(loss, weight)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    """-(label * log(input) + (1 - label) * log(1 - input)) for probabilities `input`, with each log clamped at
    -100 (Paddle's kernel), times `weight`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.binary_cross_entropy(paddle.to_tensor([0.5, 1.0]), paddle.to_tensor([1., 0.]), reduction='none').numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    _check_reduction("binary_cross_entropy", reduction)
    p = float_operand("binary_cross_entropy", input)
    label = as_tensor(label, get_aval(p).dtype)
    log_p = m.maximum(m.log(p), -100.0)
    log_not_p = m.maximum(m.log(m.subtract(1.0, p)), -100.0)
    loss = m.neg(m.add(m.multiply(label, log_p), m.multiply(m.subtract(1.0, label), log_not_p)))
    return _reduce("binary_cross_entropy", _weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """Binary cross entropy of sigmoid(logit), computed stably from the logits:
    (1 - label) * x + (1 + (pos_weight - 1) * label) * (log(1 + exp(-|x|)) + max(-x, 0)), times `weight`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.binary_cross_entropy_with_logits(paddle.to_tensor([0., 100.]), paddle.to_tensor([1., 0.]),
        ...                                    reduction='none').numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    x = float_operand("binary_cross_entropy_with_logits", logit)
    label = as_tensor(label, get_aval(x).dtype)
    log_term = m.add(m.log1p(m.exp(m.neg(m.abs(x)))), m.maximum(m.neg(x), 0.0))
    coef = 1.0 if pos_weight is None else m.add(1.0, m.multiply(m.subtract(pos_weight, 1.0), label))
    loss = m.add(m.multiply(m.subtract(1.0, label), x), m.multiply(coef, log_term))
    return _reduce("binary_cross_entropy_with_logits", _weighted(loss, weight), reduction)


def mse_loss(input, label, reduction="mean", name=None):  # noqa: A002
    """(input - label)^2, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.mse_loss(paddle.to_tensor([1., 2.]), paddle.to_tensor([0., 0.])).numpy()
        array(2.5, dtype=float32)
    """
    _check_reduction("mse_loss", reduction)
    d = m.subtract(float_operand("mse_loss", input), label)
    return _reduce("mse_loss", m.multiply(d, d), reduction)


def square_error_cost(input, label):  # noqa: A002
    """(input - label)^2, elementwise.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.square_error_cost(paddle.to_tensor([3.]), paddle.to_tensor([1.])).numpy()
        array([4.], dtype=float32)
    """
    return mse_loss(input, label, reduction="none")


def l1_loss(input, label, reduction="mean", name=None):  # noqa: A002
    """|input - label|, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.l1_loss(paddle.to_tensor([1., -3.]), paddle.to_tensor([0., 0.]), reduction='sum').numpy()
        array(4., dtype=float32)
    """
    _check_reduction("l1_loss", reduction)
    return _reduce("l1_loss", m.abs(m.subtract(float_operand("l1_loss", input), label)), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):  # noqa: A002
    """Paddle's smooth L1 (the Huber loss): 0.5 d^2 where |d| <= delta, else delta * (|d| - 0.5 delta), with
    d = input - label.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.smooth_l1_loss(paddle.to_tensor([0.5, 3.]), paddle.to_tensor([0., 0.]), reduction='none').numpy()
        array([0.125, 2.5  ], dtype=float32)
    """
    _check_reduction("smooth_l1_loss", reduction)
    d = m.abs(m.subtract(float_operand("smooth_l1_loss", input), label))
    quadratic = m.multiply(m.multiply(d, d), 0.5)
    linear_part = m.multiply(m.subtract(d, 0.5 * delta), delta)
    return _reduce("smooth_l1_loss", where(m.abs(d) <= delta, quadratic, linear_part), reduction)


def kl_div(input, label, reduction="mean", name=None):  # noqa: A002
    """label * (log(label) - input) for log-probabilities `input` (0 where label <= 0). reduction 'batchmean'
    divides the sum by the batch size (input.shape[0]); 'mean' averages over all elements.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logq = paddle.log(paddle.to_tensor([[0.5, 0.5]]))
        >>> F.kl_div(logq, paddle.to_tensor([[0.25, 0.75]]), reduction='batchmean').numpy()
        array(0.13081202, dtype=float32)
    """
    _check_reduction("kl_div", reduction, ("none", "mean", "sum", "batchmean"))
    x = float_operand("kl_div", input)
    label = as_tensor(label, get_aval(x).dtype)
    positive = greater_than(label, 0.0)
    safe = where(positive, label, 1.0)
    loss = where(positive, m.multiply(label, m.subtract(m.log(safe), x)), 0.0)
    if reduction == "batchmean":
        return m.divide(m.sum(loss), float(shape_of(x)[0]) if get_aval(x).ndim else 1.0)
    return _reduce("kl_div", loss, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):  # noqa: A002
    """max(0, -label * (input - other) + margin), reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.margin_ranking_loss(paddle.to_tensor([1., 2.]), paddle.to_tensor([2., 1.]),
        ...                       paddle.to_tensor([1., 1.]), reduction='none').numpy()
        array([1., 0.], dtype=float32)
    """
    _check_reduction("margin_ranking_loss", reduction)
    d = m.add(m.multiply(m.neg(as_tensor(label)), m.subtract(input, other)), margin)
    return _reduce("margin_ranking_loss", relu(d), reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """The focal loss of sigmoid(logit): alpha_t * (1 - p_t)^gamma * BCE, divided by `normalizer`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.sigmoid_focal_loss(paddle.to_tensor([0.]), paddle.to_tensor([1.])).numpy()
        array(0.0433217, dtype=float32)
    """
    _check_reduction("sigmoid_focal_loss", reduction)
    x = float_operand("sigmoid_focal_loss", logit)
    label = as_tensor(label, get_aval(x).dtype)
    p = m.sigmoid(x)
    ce = binary_cross_entropy_with_logits(x, label, reduction="none")
    p_t = m.add(m.multiply(p, label), m.multiply(m.subtract(1.0, p), m.subtract(1.0, label)))
    alpha_t = m.add(m.multiply(label, alpha), m.multiply(m.subtract(1.0, label), 1.0 - alpha))
    loss = m.multiply(m.multiply(alpha_t, m.pow(m.subtract(1.0, p_t), gamma)), ce)
    if normalizer is not None:
        loss = m.divide(loss, normalizer)
    return _reduce("sigmoid_focal_loss", loss, reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):  # noqa: A002
    """input where label == 1, max(0, margin - input) where label == -1, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hinge_embedding_loss(paddle.to_tensor([0.3, 0.3]), paddle.to_tensor([1., -1.]), reduction='none').numpy()
        array([0.3, 0.7], dtype=float32)
    """
    _check_reduction("hinge_embedding_loss", reduction)
    x = float_operand("hinge_embedding_loss", input)
    label = as_tensor(label, get_aval(x).dtype)
    loss = where(equal(label, 1.0), x, where(equal(label, -1.0), relu(m.subtract(margin, x)), 0.0))
    return _reduce("hinge_embedding_loss", loss, reduction)


def log_loss(input, label, epsilon=1e-4, name=None):  # noqa: A002
    """The unreduced negative log likelihood of probabilities:
    -label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.log_loss(paddle.to_tensor([[0.5]]), paddle.to_tensor([[1.]]), epsilon=0.).numpy()
        array([[0.6931472]], dtype=float32)
    """
    x = float_operand("log_loss", input)
    label = as_tensor(label, get_aval(x).dtype)
    return m.neg(m.add(m.multiply(label, m.log(m.add(x, epsilon))),
                       m.multiply(m.subtract(1.0, label), m.log(m.add(m.subtract(1.0, x), epsilon)))))


def dice_loss(input, label, epsilon=1e-05, name=None):  # noqa: A002
    """1 - 2 |X n Y| / (|X| + |Y|) per example, averaged: `input` holds class probabilities in its last axis and
    `label` the int classes (last axis of size 1).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.dice_loss(paddle.to_tensor([[0., 1.], [1., 0.]]), paddle.to_tensor([[1], [0]])).numpy()
        array(5.00679e-06, dtype=float32)
    """
    x = float_operand("dice_loss", input)
    label = as_tensor(label)
    if shape_of(label)[-1:] != (1,) or get_aval(label).ndim != get_aval(x).ndim:
        raise ShapeError(f"dice_loss: label (shape {list(shape_of(label))}) must be input's shape "
                         f"{list(shape_of(x))} with a last axis of size 1")
    target = cast(one_hot(squeeze(label, -1), shape_of(x)[-1]), get_aval(x).dtype)
    axes = list(range(1, get_aval(x).ndim))
    inter = m.sum(m.multiply(x, target), axis=axes)
    total = m.add(m.sum(x, axis=axes), m.sum(target, axis=axes))
    return m.mean(m.subtract(1.0, m.divide(m.multiply(inter, 2.0), m.add(total, epsilon))))
