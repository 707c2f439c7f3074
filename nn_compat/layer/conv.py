"""Convolution layers (`paddle.nn.layer.conv`): Conv1D/2D/3D and Conv1DTranspose/2DTranspose/3DTranspose over
`paddle.nn.functional`'s convolutions, with Paddle's weight layouts, default initializers and reprs."""
from __future__ import annotations

import numpy as np

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.initializer import Normal
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Conv3D", "Conv3DTranspose"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _as_list(what, v, n):
    vals = [int(x) for x in (v if isinstance(v, (list, tuple)) else [v])]
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise ValueError(f"{what} needs 1 or {n} ints, got {v!r}")
    return vals


class _ConvNd(Layer):
    _dims = 2
    _transposed = False
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, padding_mode="zeros",
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None, data_format=None, *,
                 bias=True, device=None, dtype=None):
        super().__init__()
        op, n = type(self).__name__, self._dims
        if weight_attr is False:
            raise ValueError(f"{op}: weight_attr should not be False (a convolution needs its weight)")
        if data_format not in _FORMATS[n]:
            raise ValueError(f"{op}: data_format must be one of {_FORMATS[n]}, got {data_format!r}")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"{op}: padding_mode must be one of {_PADDING_MODES}, got {padding_mode!r}")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError(f"{op}: with padding_mode={padding_mode!r} the padding must be an int, got {padding!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{op}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups})")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = _as_list(f"{op}: kernel_size", kernel_size, n)
        self._stride = _as_list(f"{op}: stride", stride, n)
        self._dilation = _as_list(f"{op}: dilation", dilation, n)
        self._padding, self._padding_mode, self.output_padding = padding, padding_mode, output_padding
        self._data_format = data_format
        self._dtype = paddle_fn.get_default_dtype() if dtype is None else dtype
        if self._transposed:
            shape, init = [in_channels, out_channels // groups, *self._kernel_size], None  # XavierUniform
        else:
            shape = [out_channels, in_channels // groups, *self._kernel_size]
            # Paddle's default: Normal(0, sqrt(2 / fan_in)), fan_in = in_channels * prod(kernel_size)
            init = Normal(0.0, (2.0 / (in_channels * int(np.prod(self._kernel_size)))) ** 0.5)
        self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype, is_bias=False,
                                            default_initializer=init, device=device)
        # Paddle 3.3's bias=False: no bias whatever bias_attr says
        self.bias = self.create_parameter([out_channels], attr=bias_attr if bias else False, dtype=self._dtype,
                                          is_bias=True, device=device)

    def forward(self, x):
        padding = self._padding
        if self._padding_mode != "zeros":
            # F.pad's list runs from the last spatial axis to the first, each as (before, after)
            x = F.pad(x, [self._padding] * (2 * self._dims), mode=self._padding_mode, data_format=self._data_format)
            padding = 0
        return type(self)._fn(x, self.weight, bias=self.bias, stride=self._stride, padding=padding,
                              dilation=self._dilation, groups=self._groups, data_format=self._data_format)

    def extra_repr(self):
        text = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * self._dims:
            text += f", stride={self._stride}"
        if self._padding != 0:
            text += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            text += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            text += f", output_padding={self.output_padding}"
        if self._dilation != [1] * self._dims:
            text += f", dilation={self._dilation}"
        if self._groups != 1:
            text += f", groups={self._groups}"
        return text + f", data_format={self._data_format}"


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def forward(self, x, output_size=None):
        return type(self)._fn(x, self.weight, bias=self.bias, stride=self._stride, padding=self._padding,
                              output_padding=self.output_padding, dilation=self._dilation, groups=self._groups,
                              output_size=output_size, data_format=self._data_format)



class Conv1D(_ConvNd):
    """1-D convolution of ``[N, C, L]`` inputs (`paddle.nn.functional.conv1d`); weight
    ``[out_channels, in_channels / groups, k]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size, one int or one per spatial axis.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): an int, one per axis, (before, after) per axis, or 'SAME' / 'VALID'.
            Default: 0.
        dilation (int|list, optional): Default: 1.
        groups (int, optional): split channels into groups convolved separately. Default: 1.
        padding_mode (str, optional): 'zeros' (default), 'reflect', 'replicate' or 'circular' (these need an int
            padding).
        weight_attr (ParamAttr, optional): the weight's attributes; by default Normal(0, sqrt(2 / fan_in)).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.
        bias (bool, optional): keyword-only; False: no bias, whatever bias_attr says (Paddle 3.3). Default: True.
        device (str|Place, optional): keyword-only; where the parameters live. Default: the default device.
        dtype (str, optional): keyword-only; the parameters' dtype. Default: the default dtype.
    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.Conv1D(1, 1, 2, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> conv
        Conv1D(1, 1, kernel_size=[2], data_format=NCL)
        >>> conv(paddle.to_tensor([[[1.0, 2.0, 3.0]]])).numpy()
        array([[[3., 5.]]], dtype=float32)
    """
    _dims, _fn = 1, staticmethod(F.conv1d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCL", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, padding_mode, 0, dilation, groups,
                         weight_attr, bias_attr, data_format, bias=bias, device=device, dtype=dtype)


class Conv2D(_ConvNd):
    """2-D convolution of ``[N, C, H, W]`` inputs (`paddle.nn.functional.conv2d`); weight
    ``[out_channels, in_channels / groups, kh, kw]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size, one int or one per spatial axis.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): an int, one per axis, (before, after) per axis, or 'SAME' / 'VALID'.
            Default: 0.
        dilation (int|list, optional): Default: 1.
        groups (int, optional): split channels into groups convolved separately. Default: 1.
        padding_mode (str, optional): 'zeros' (default), 'reflect', 'replicate' or 'circular' (these need an int
            padding).
        weight_attr (ParamAttr, optional): the weight's attributes; by default Normal(0, sqrt(2 / fan_in)).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.
        bias (bool, optional): keyword-only; False: no bias, whatever bias_attr says (Paddle 3.3). Default: True.
        device (str|Place, optional): keyword-only; where the parameters live. Default: the default device.
        dtype (str, optional): keyword-only; the parameters' dtype. Default: the default dtype.
    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.Conv2D(3, 8, 3, padding=1)
        >>> conv
        Conv2D(3, 8, kernel_size=[3, 3], padding=1, data_format=NCHW)
        >>> conv.weight.shape, conv(paddle.ones([2, 3, 5, 5])).shape
        (paddle.Size([8, 3, 3, 3]), paddle.Size([2, 8, 5, 5]))
    """
    _dims, _fn = 2, staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCHW", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, padding_mode, 0, dilation, groups,
                         weight_attr, bias_attr, data_format, bias=bias, device=device, dtype=dtype)


class Conv3D(_ConvNd):
    """3-D convolution of ``[N, C, D, H, W]`` inputs (`paddle.nn.functional.conv3d`); weight
    ``[out_channels, in_channels / groups, kd, kh, kw]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size, one int or one per spatial axis.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): an int, one per axis, (before, after) per axis, or 'SAME' / 'VALID'.
            Default: 0.
        dilation (int|list, optional): Default: 1.
        groups (int, optional): split channels into groups convolved separately. Default: 1.
        padding_mode (str, optional): 'zeros' (default), 'reflect', 'replicate' or 'circular' (these need an int
            padding).
        weight_attr (ParamAttr, optional): the weight's attributes; by default Normal(0, sqrt(2 / fan_in)).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.
        bias (bool, optional): keyword-only; False: no bias, whatever bias_attr says (Paddle 3.3). Default: True.
        device (str|Place, optional): keyword-only; where the parameters live. Default: the default device.
        dtype (str, optional): keyword-only; the parameters' dtype. Default: the default dtype.
    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Conv3D(2, 4, 3)(paddle.ones([1, 2, 4, 4, 4])).shape
        paddle.Size([1, 4, 2, 2, 2])
    """
    _dims, _fn = 3, staticmethod(F.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NCDHW", *, bias=True,
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, padding_mode, 0, dilation, groups,
                         weight_attr, bias_attr, data_format, bias=bias, device=device, dtype=dtype)



class Conv1DTranspose(_ConvTransposeNd):
    """1-D transposed convolution (`paddle.nn.functional.conv1d_transpose`); weight
    ``[in_channels, out_channels / groups, k]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): the padding of the equivalent forward convolution. Default: 0.
        output_padding (int|list, optional): extra size added to one side of the output. Default: 0.
        groups (int, optional): Default: 1.
        dilation (int|list, optional): Default: 1.
        weight_attr (ParamAttr, optional): the weight's attributes (XavierUniform by default).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.

    ``forward(x, output_size=None)``: `output_size` picks the output's spatial size among the possible ones.
    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.Conv1DTranspose(1, 1, 2, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> conv(paddle.to_tensor([[[1.0, 2.0]]])).numpy()
        array([[[1., 3., 2.]]], dtype=float32)
    """
    _dims, _fn = 1, staticmethod(F.conv1d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 dilation=1, weight_attr=None, bias_attr=None, data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, "zeros", output_padding, dilation,
                         groups, weight_attr, bias_attr, data_format)


class Conv2DTranspose(_ConvTransposeNd):
    """2-D transposed convolution (`paddle.nn.functional.conv2d_transpose`); weight
    ``[in_channels, out_channels / groups, kh, kw]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): the padding of the equivalent forward convolution. Default: 0.
        output_padding (int|list, optional): extra size added to one side of the output. Default: 0.
        groups (int, optional): Default: 1.
        dilation (int|list, optional): Default: 1.
        weight_attr (ParamAttr, optional): the weight's attributes (XavierUniform by default).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.

    ``forward(x, output_size=None)``: `output_size` picks the output's spatial size among the possible ones.
    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.Conv2DTranspose(4, 2, 3, stride=2)
        >>> conv
        Conv2DTranspose(4, 2, kernel_size=[3, 3], stride=[2, 2], data_format=NCHW)
        >>> conv.weight.shape, conv(paddle.ones([1, 4, 5, 5])).shape
        (paddle.Size([4, 2, 3, 3]), paddle.Size([1, 2, 11, 11]))
    """
    _dims, _fn = 2, staticmethod(F.conv2d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, "zeros", output_padding, dilation,
                         groups, weight_attr, bias_attr, data_format)


class Conv3DTranspose(_ConvTransposeNd):
    """3-D transposed convolution (`paddle.nn.functional.conv3d_transpose`); weight
    ``[in_channels, out_channels / groups, kd, kh, kw]``.

    Args:
        in_channels (int): the input channels.
        out_channels (int): the output channels.
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: 1.
        padding (int|list|str, optional): the padding of the equivalent forward convolution. Default: 0.
        output_padding (int|list, optional): extra size added to one side of the output. Default: 0.
        groups (int, optional): Default: 1.
        dilation (int|list, optional): Default: 1.
        weight_attr (ParamAttr, optional): the weight's attributes (XavierUniform by default).
        bias_attr (ParamAttr|bool, optional): the bias's attributes (zeros); False: no bias.
        data_format (str, optional): channel first (default) or channel last.

    ``forward(x, output_size=None)``: `output_size` picks the output's spatial size among the possible ones.
    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Conv3DTranspose(2, 4, 2)(paddle.ones([1, 2, 3, 3, 3])).shape
        paddle.Size([1, 4, 4, 4, 4])
    """
    _dims, _fn = 3, staticmethod(F.conv3d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, dilation=1,
                 groups=1, weight_attr=None, bias_attr=None, data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, "zeros", output_padding, dilation,
                         groups, weight_attr, bias_attr, data_format)
