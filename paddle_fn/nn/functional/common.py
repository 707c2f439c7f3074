"""Common functions (`paddle.nn.functional.common`): linear, bilinear, dropout and its 2-D/3-D/alpha variants,
pad, zeropad2d, interpolate, upsample, unfold, cosine_similarity, label_smooth.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.trace import Tensor, current_dynamic_main, get_aval, is_concrete
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn import random
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of, static_list, write_out
from paddle_fn.tensor.einsum import einsum
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.manipulation import gather, reshape
from paddle_fn.tensor.promotion import as_tensor, float_operand
from paddle_fn.nn.functional._shared import (_adaptive_average_matrix, _along_axis, _channel_last, _spatial_dims,
                                             _tuple)
from paddle_fn.nn.functional.conv import conv2d, conv2d_transpose

__all__ = ["alpha_dropout", "bilinear", "cosine_similarity", "dropout", "dropout2d", "dropout3d", "interpolate",
           "label_smooth", "linear", "pad", "unfold", "upsample", "zeropad2d"]

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
        paddle.Size([1, 4])
    """
    out = einsum("ni,kij,nj->nk", x1, weight, x2)
    return out if bias is None else m.add(out, reshape(bias, [1, -1]))


def _global_rng_allowed(op, x):
    """The Paddle-style global RNG is a hidden state: it works eagerly (and under grad, whose primals are
    concrete) but a traced function would bake one draw into every call, so there it is an error, except inside
    `paddle_fn.random.traced_global_key` (to_static), where the draws come from a key given to each call."""
    if random.global_key_is_traced():
        return
    if not is_concrete(x) or current_dynamic_main().level > 0:
        raise ConcretizationError(
            f"{op}: with training=True and no key, the mask comes from the global Paddle-style RNG, which only "
            "works eagerly; inside jit/vmap pass an explicit key, e.g. "
            f"{op}(x, p, key=paddle_fn.random.fold_in(key, step)), so every call draws a fresh mask")


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train", name=None, *, key=None):
    """Zero each element with probability `p` (with `axis`, whole slices: the mask varies only along those
    axes). mode 'upscale_in_train' scales the kept values by 1/(1-p) in training and does nothing in inference;
    'downscale_in_infer' keeps training values as they are and scales by (1-p) in inference. ``inplace=True``
    (Paddle 3.3) makes the Tensor `x` hold the result too.

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
    result = _dropout(x, p, axis, training, mode, key)
    return write_out(result, x) if inplace else result


def _dropout(x, p, axis, training, mode, key):
    x = float_operand("dropout", x)
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"dropout: p must be in [0, 1], got {p}")
    dt = get_aval(x).dtype
    if not training:
        return x if mode == "upscale_in_train" else ew.mul(x, st.full_like(x, 1.0 - p))
    if p == 0:
        return x
    if p == 1:
        return st.full_like(x, 0)
    shape = shape_of(x)
    axes = tuple(range(len(shape))) if axis is None else tuple(
        normalize_axis("dropout", a, len(shape)) for a in static_list("dropout", axis, "axis"))
    mask_shape = tuple(s for d, s in enumerate(shape) if d in axes)
    if key is None:
        _global_rng_allowed("dropout", x)
        u = random.rand(list(mask_shape), dtype=dt)
    else:
        u = random.uniform(key, mask_shape, dtype=dt)
    keep = st.broadcast_in_dim(ew.ge(u, st.full(mask_shape, p, dt)), shape=shape,
                               broadcast_dimensions=tuple(sorted(axes)))
    kept = ew.select(keep, x, st.full_like(x, 0))
    return ew.div(kept, st.full_like(x, 1.0 - p)) if mode == "upscale_in_train" else kept


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
        paddle.Size([1, 2, 1, 1, 1])
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
    x = float_operand("alpha_dropout", x)
    return selu_dropout("alpha_dropout", x, p, training, tuple(range(get_aval(x).ndim)), key)


def selu_dropout(op, x, p, training, axes, key):
    """alpha dropout of float `x` with one draw per index of its dimensions `axes` (all: per element; the
    first two: per channel, feature_alpha_dropout)."""
    p = float(p)
    if not 0 <= p <= 1:
        raise ValueError(f"{op}: p must be in [0, 1], got {p}")
    if not training or p == 0:
        return x
    dt = get_aval(x).dtype
    saturation = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946
    a = (1.0 / ((1 - p) * (1 + p * saturation ** 2))) ** 0.5 if p < 1 else 0.0
    b = -a * saturation * p
    shape = shape_of(x)
    mask_shape = tuple(shape[d] for d in axes)
    if key is None:
        _global_rng_allowed(op, x)
        u = random.rand(list(mask_shape), dtype=dt)
    else:
        u = random.uniform(key, mask_shape, dtype=dt)
    keep = st.broadcast_in_dim(ew.ge(u, st.full(mask_shape, p, dt)), shape=shape, broadcast_dimensions=axes)
    return ew.add(ew.mul(ew.select(keep, x, st.full_like(x, saturation)), st.full_like(x, a)), st.full_like(x, b))


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


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True, name=None):
    """Pad `x` by `pad`, (low, high) pairs.

    In 'constant' mode a `pad` of any even length up to 2 * x.ndim, other than 2 * (x.ndim - 2), pads from the
    last axis backwards (the first pair widens the last axis); one of exactly 2 * x.ndim entries pads from the
    first axis forwards instead while `pad_from_left_axis` is True (Paddle 3.3's default). Otherwise (modes
    'reflect', 'replicate' and 'circular', or 2 * (x.ndim - 2) entries) `x` is 3-, 4- or 5-D and `pad` holds two
    entries per spatial axis of `data_format` (NCL/NCHW/NCDHW by rank if None), the last spatial axis first:
    [left, right, top, bottom, front, back].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[[1., 2., 3.]]])
        >>> F.pad(x, [1, 2], mode='reflect', data_format='NCL').numpy()
        array([[[2., 1., 2., 3., 2., 1.]]], dtype=float32)
        >>> F.pad(x, [0, 0, 0, 0, 1, 0], value=9.).numpy()
        array([[[9., 1., 2., 3.]]], dtype=float32)
        >>> F.pad(x, [1, 0, 0, 1, 0, 0], pad_from_left_axis=False).shape
        paddle.Size([1, 2, 4])
    """
    x = as_tensor(x)
    ndim = get_aval(x).ndim
    widths = static_list("pad", pad, "pad")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(f"pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got {mode!r}")
    if len(widths) % 2:
        raise ValueError(f"pad: pad {widths} needs an even number of entries, (low, high) per padded axis")
    pairs = [(0, 0)] * ndim
    if mode == "constant" and len(widths) != 2 * (ndim - 2):
        if len(widths) > 2 * ndim:
            raise ValueError(f"pad: pad {widths} has more than two entries per axis of x (shape "
                             f"{list(shape_of(x))})")
        axes = range(ndim) if len(widths) == 2 * ndim and pad_from_left_axis else range(ndim - 1, -1, -1)
        for i, d in zip(range(len(widths) // 2), axes):
            pairs[d] = (widths[2 * i], widths[2 * i + 1])
    else:
        if data_format is None:
            data_format = {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(ndim, "NCHW")
        channel_last = data_format[-1] == "C" and data_format not in ("NC",)
        dims = _spatial_dims(ndim, channel_last)
        if len(widths) != 2 * len(dims):
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
    ratio = _source_ratio(size, out, align_corners, scale)
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


def _source_ratio(size, out, align_corners, scale):
    """How far apart output positions sit on the input axis, by Paddle's convention."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return 1.0 / scale if scale else size / out


# Paddle's (and PyTorch's) cubic convolution coefficient
_CUBIC_A = -0.75


def _cubic_matrix(size, out, align_corners, scale):
    """The [out, size] matrix of bicubic resampling along one axis (Paddle's bicubic_interp): the four taps around
    each source coordinate, weighted by the cubic convolution kernel with A = -0.75, taps past the edges clamped to
    them; half-pixel centres unless align_corners, as Paddle (align_mode is not used)."""
    ratio = _source_ratio(size, out, align_corners, scale) if out > 1 else 0.0  # Paddle's, for one output
    i = np.arange(out, dtype=np.float64)
    src = ratio * i if align_corners else ratio * (i + 0.5) - 0.5
    base = np.floor(src)
    t = src - base
    a = _CUBIC_A
    weights = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
               ((a + 2) * t - (a + 3)) * t * t + 1,
               ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
               ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
    matrix = np.zeros((out, size))
    for tap, weight in enumerate(weights):
        np.add.at(matrix, (np.arange(out), np.clip(base.astype(np.int64) - 1 + tap, 0, size - 1)), weight)
    return matrix


def _antialias_matrix(size, out, scale):
    """The [out, size] matrix of antialiased linear resampling (Paddle's interp_antialias, PIL's and PyTorch's
    convention): a triangle filter widened by the downscaling ratio, at half-pixel centres, each row normalized."""
    ratio = 1.0 / scale if scale else size / out
    support = max(ratio, 1.0)
    matrix = np.zeros((out, size))
    for i in range(out):
        centre = ratio * (i + 0.5)
        lo, hi = max(int(centre - support + 0.5), 0), min(int(centre + support + 0.5), size)
        taps = np.maximum(0.0, 1.0 - np.abs((np.arange(lo, hi) - centre + 0.5) / support))
        matrix[i, lo:hi] = taps / taps.sum() if taps.sum() else taps
    return matrix


_MODE_RANK = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                data_format=None, recompute_scale_factor=None, antialias=False, name=None):
    """Resize the spatial dims of a 3-, 4- or 5-D input to `size`, or by `scale_factor` (output int(in * scale)).
    mode: 'nearest', 'linear' (3-D), 'bilinear' (4-D), 'trilinear' (5-D), 'bicubic' (4-D) or 'area' (an
    adaptive average pool to `size`; as in Paddle 3.3 it needs `size` and reads the input as channels first
    whatever `data_format` says). Source coordinates follow Paddle: align_corners=True maps corners to corners;
    otherwise align_mode=0 uses half-pixel centres and align_mode=1 the scaled index (linear modes; bicubic always
    uses half-pixel centres). `data_format` None is channels first (NCW, NCHW or NCDHW by rank).

    Paddle 3.3's options: ``recompute_scale_factor=True`` maps coordinates by the sizes' ratio instead of
    `scale_factor` (the output size is floor(in * scale)); ``antialias=True`` (bilinear, align_corners=False)
    widens the linear filter by the downscaling ratio, as Paddle's interp_antialias (and PIL) do.

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
    if mode not in ("nearest", "area") + tuple(_MODE_RANK):
        raise ValueError(f"interpolate: mode {mode!r} is not supported (use nearest, linear, bilinear, trilinear, "
                         "bicubic or area)")
    if mode in _MODE_RANK and _MODE_RANK[mode] != n:
        raise ShapeError(f"interpolate: mode {mode!r} needs a {_MODE_RANK[mode] + 2}-D input, got shape "
                         f"{list(shape_of(x))}")
    if n not in (1, 2, 3):
        raise ShapeError(f"interpolate: expected a 3-, 4- or 5-D input, got shape {list(shape_of(x))}")
    if data_format is None:
        data_format = {1: "NCL", 2: "NCHW", 3: "NCDHW"}.get(n)
    if n == 1:  # Paddle names the 3-D layouts NCW/NWC here
        data_format = {"NCW": "NCL", "NWC": "NLC"}.get(data_format, data_format)
    # Paddle 3.3's area mode is adaptive_avg_pool{1,2,3}d(x, size), which it calls without the data format
    channel_last = _channel_last("interpolate", data_format, n) and mode != "area"
    if mode == "area" and size is None:
        raise ValueError("interpolate: mode 'area' needs size (Paddle: 'output size can not be None in AREA mode')")
    dims = _spatial_dims(ndim, channel_last)
    in_sp = [shape_of(x)[d] for d in dims]
    if antialias and (mode != "bilinear" or align_corners):
        raise ValueError(f"interpolate: antialias=True needs mode 'bilinear' with align_corners=False, got mode "
                         f"{mode!r}, align_corners={align_corners}")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("interpolate: recompute_scale_factor is not meaningful with an explicit size")
        outs, scales = list(_tuple("interpolate", size, n, "size")), [None] * n
    elif scale_factor is not None:
        scales = [float(s) for s in (scale_factor if isinstance(scale_factor, (list, tuple)) else [scale_factor] * n)]
        outs = [int(np.floor(s * f)) if recompute_scale_factor else int(s * f) for s, f in zip(in_sp, scales)]
        if recompute_scale_factor:
            scales = [None] * n
    else:
        raise ValueError("interpolate: give size or scale_factor")
    for d, s, o, f in zip(dims, in_sp, outs, scales):
        if antialias:
            x = _along_axis(x, _antialias_matrix(s, o, f), d)
        elif mode == "bicubic":
            x = _along_axis(x, _cubic_matrix(s, o, align_corners, f), d)
        elif mode == "area":
            x = _along_axis(x, _adaptive_average_matrix(s, o), d)  # Paddle's area mode: an adaptive pool
        elif o != s or mode != "nearest":
            x = _along_axis(x, _resample_matrix(mode, s, o, align_corners, align_mode, f), d)
    return x


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
             data_format=None, name=None):
    """The same as `interpolate`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.upsample(paddle.ones([1, 1, 2, 2]), scale_factor=2).shape
        paddle.Size([1, 1, 4, 4])
    """
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: the kernel_sizes patches of a 4-D input [N, C, H, W] as columns [N, C*kh*kw, L].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.unfold(paddle.ones([1, 2, 3, 3]), 2).shape
        paddle.Size([1, 8, 4])
    """
    x = float_operand("unfold", x)
    if get_aval(x).ndim != 4:
        raise ShapeError(f"unfold: expected a 4-D input [N, C, H, W], got shape {list(shape_of(x))}")
    n, c = shape_of(x)[:2]
    k = _tuple("unfold", kernel_sizes, 2, "kernel_sizes")
    # an identity kernel per channel picks every patch element: a grouped convolution with one-hot filters
    out = conv2d(x, _patch_kernel(c, k, get_aval(x).dtype), stride=strides, padding=static_list("unfold", paddings, "paddings"), dilation=dilations,
                 groups=c)
    return st.reshape(out, new_sizes=(n, c * k[0] * k[1], int(np.prod(shape_of(out)[2:]))))


def _patch_kernel(channels, k, dtype):
    """The grouped convolution kernel [channels * kh * kw, 1, kh, kw] whose filters pick one patch element each."""
    eye = np.eye(k[0] * k[1]).reshape(k[0] * k[1], 1, k[0], k[1])
    return Tensor(np.tile(eye, (channels, 1, 1, 1)).astype(dtype.np))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im, the adjoint of `unfold`: the columns [N, C*kh*kw, L] of sliding patches summed back into an image
    [N, C, H, W] of `output_sizes` (overlapping patches add up).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.fold(paddle.ones([1, 4, 9]), [4, 4], 2).numpy()[0, 0]
        array([[1., 2., 2., 1.],
               [2., 4., 4., 2.],
               [2., 4., 4., 2.],
               [1., 2., 2., 1.]], dtype=float32)
    """
    x = float_operand("fold", x)
    size = _tuple("fold", output_sizes, 2, "output_sizes")
    k = _tuple("fold", kernel_sizes, 2, "kernel_sizes")
    stride, dilation = _tuple("fold", strides, 2, "strides"), _tuple("fold", dilations, 2, "dilations")
    pads = static_list("fold", paddings, "paddings")
    pads = pads * 4 if len(pads) == 1 else pads * 2 if len(pads) == 2 else pads
    if len(pads) != 4:
        raise ValueError(f"fold: paddings needs 1, 2 or 4 values, got {static_list('fold', paddings, 'paddings')}")
    blocks = [(size[i] + pads[i] + pads[i + 2] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(2)]
    shape = list(shape_of(x))
    if len(shape) != 3 or shape[1] % (k[0] * k[1]) or shape[2] != blocks[0] * blocks[1]:
        raise ShapeError(f"fold: expected [N, C*{k[0]}*{k[1]}, {blocks[0] * blocks[1]}] for output_sizes "
                         f"{list(size)}, got shape {shape}")
    c = shape[1] // (k[0] * k[1])
    cols = reshape(x, [shape[0], shape[1], blocks[0], blocks[1]])
    padded = conv2d_transpose(cols, _patch_kernel(c, k, get_aval(x).dtype), stride=stride, dilation=dilation,
                              groups=c, output_size=[size[0] + pads[0] + pads[2], size[1] + pads[1] + pads[3]])
    return padded[:, :, pads[0]:pads[0] + size[0], pads[1]:pads[1] + size[1]]


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
