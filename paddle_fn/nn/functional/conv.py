"""Convolutions (`paddle.nn.functional.conv`): conv1d/2d/3d and their transposes, on the `conv_general_dilated`
primitive, with Paddle's weight layouts, padding forms and data formats.
"""
from __future__ import annotations

import builtins

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import conv as cv
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of, static_int
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand
from paddle_fn.nn.functional._shared import _add_channel_bias, _channel_last, _padding_pairs, _spatial_letters, _tuple

__all__ = ["conv1d", "conv1d_transpose", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose"]

def _conv_operands(op, n, x, weight, groups, data_format):
    """Checked operands of an n-D convolution: (x, weight, channel_last, dimension numbers, groups)."""
    x = float_operand(op, x)
    weight = as_tensor(weight)
    dt = dtypes.result_dtype_tensors(get_aval(x).dtype, get_aval(weight).dtype)
    x, weight = cast(x, dt), cast(weight, dt)
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
        paddle.Size([1, 4, 4, 4])
        >>> F.conv2d(x, paddle.ones([6, 1, 3, 3]), padding='SAME', groups=3).shape
        paddle.Size([1, 6, 8, 8])
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution of x [N, C, D, H, W] ('NCDHW') or [N, D, H, W, C] with weight [out, C / groups, kd, kh,
    kw].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.conv3d(paddle.ones([1, 2, 4, 4, 4]), paddle.ones([3, 2, 2, 2, 2])).shape
        paddle.Size([1, 3, 3, 3, 3])
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
        paddle.Size([1, 2, 9, 9])
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
        paddle.Size([1, 1, 4, 4, 4])
    """
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding, output_padding, dilation, groups,
                           output_size, data_format)
