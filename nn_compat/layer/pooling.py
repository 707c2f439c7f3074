"""Pooling layers (`paddle.nn.layer.pooling`): MaxPool1D/2D/3D, AvgPool1D/2D/3D and the adaptive forms, over
`paddle.nn.functional`'s pooling functions."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D", "AdaptiveMaxPool2D",
           "AdaptiveMaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D", "MaxPool1D", "MaxPool2D", "MaxPool3D", "LPPool1D", "LPPool2D",
           "MaxUnPool1D", "MaxUnPool2D", "MaxUnPool3D", "FractionalMaxPool2D", "FractionalMaxPool3D"]


class _Pool(Layer):
    """A pooling layer: keeps the functional op's keyword arguments and passes them on every call."""
    _fn = None

    def __init__(self, **options):
        super().__init__()
        self._options = options

    def forward(self, x):
        return type(self)._fn(x, **self._options)


class _WindowPool(_Pool):
    def extra_repr(self):
        o = self._options
        return f"kernel_size={o['kernel_size']}, stride={o['stride']}, padding={o['padding']}"


class MaxPool1D(_WindowPool):
    """The maximum over each window of a ``[N, C, L]`` input (`paddle.nn.functional.max_pool1d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        return_mask (bool, optional): also return the positions of the maxima (for MaxUnPool). Default: False.
        ceil_mode (bool, optional): round the output size up. Default: False.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.MaxPool1D(2)
        >>> m
        MaxPool1D(kernel_size=2, stride=None, padding=0)
        >>> m(paddle.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[3., 2.]]], dtype=float32)
    """
    _fn = staticmethod(F.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode)


class MaxPool2D(_WindowPool):
    """The maximum over each window of a ``[N, C, H, W]`` input (`paddle.nn.functional.max_pool2d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        return_mask (bool, optional): also return the positions of the maxima (for MaxUnPool). Default: False.
        ceil_mode (bool, optional): round the output size up. Default: False.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> paddle.nn.MaxPool2D(kernel_size=2, stride=2)(x).numpy()
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    _fn = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class MaxPool3D(_WindowPool):
    """The maximum over each window of a ``[N, C, D, H, W]`` input (`paddle.nn.functional.max_pool3d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        return_mask (bool, optional): also return the positions of the maxima (for MaxUnPool). Default: False.
        ceil_mode (bool, optional): round the output size up. Default: False.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.MaxPool3D(2)(paddle.ones([1, 1, 4, 4, 4])).shape
        paddle.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.max_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
                 name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, return_mask=return_mask,
                         ceil_mode=ceil_mode, data_format=data_format)


class AvgPool1D(_WindowPool):
    """The mean over each window of a ``[N, C, L]`` input (`paddle.nn.functional.avg_pool1d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        exclusive (bool, optional): leave the padding out of the count. Default: True.
        ceil_mode (bool, optional): round the output size up. Default: False.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AvgPool1D(2)(paddle.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[2., 1.]]], dtype=float32)
    """
    _fn = staticmethod(F.avg_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, exclusive=exclusive,
                         ceil_mode=ceil_mode)


class AvgPool2D(_WindowPool):
    """The mean over each window of a ``[N, C, H, W]`` input (`paddle.nn.functional.avg_pool2d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        ceil_mode (bool, optional): round the output size up. Default: False.
        exclusive (bool, optional): leave the padding out of the count. Default: True.
        divisor_override (float, optional): divide by this instead of the window's size.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.AvgPool2D(2)
        >>> m
        AvgPool2D(kernel_size=2, stride=None, padding=0)
        >>> m(paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])).numpy()
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    _fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format)


class AvgPool3D(_WindowPool):
    """The mean over each window of a ``[N, C, D, H, W]`` input (`paddle.nn.functional.avg_pool3d`).

    Args:
        kernel_size (int|list): the window size.
        stride (int|list, optional): Default: None (the kernel size).
        padding (int|list|str, optional): Default: 0.
        ceil_mode (bool, optional): round the output size up. Default: False.
        exclusive (bool, optional): leave the padding out of the count. Default: True.
        divisor_override (float, optional): divide by this instead of the window's size.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AvgPool3D(2)(paddle.ones([1, 1, 2, 2, 2])).numpy().ravel()
        array([1.], dtype=float32)
    """
    _fn = staticmethod(F.avg_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
                 data_format="NCDHW", name=None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         exclusive=exclusive, divisor_override=divisor_override, data_format=data_format)


class _AdaptiveAvg(_Pool):
    def extra_repr(self):
        return f"output_size={self._options['output_size']}"


class AdaptiveAvgPool1D(_AdaptiveAvg):
    """Mean pooling of a ``[N, C, L]`` input to `output_size` bins (`paddle.nn.functional.adaptive_avg_pool1d`).

    Args:
        output_size (int): the number of bins.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.AdaptiveAvgPool1D(2)
        >>> m
        AdaptiveAvgPool1D(output_size=2)
        >>> m(paddle.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[2., 1.]]], dtype=float32)
    """
    _fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size, name=None):
        super().__init__(output_size=output_size)


class AdaptiveAvgPool2D(_AdaptiveAvg):
    """Mean pooling of a ``[N, C, H, W]`` input to `output_size` bins (`paddle.nn.functional.adaptive_avg_pool2d`).

    Args:
        output_size (int|list): the output ``[H, W]`` (None keeps that axis).
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AdaptiveAvgPool2D(1)(paddle.arange(4, dtype="float32").reshape([1, 1, 2, 2])).numpy()
        array([[[[1.5]]]], dtype=float32)
    """
    _fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class AdaptiveAvgPool3D(_AdaptiveAvg):
    """Mean pooling of a ``[N, C, D, H, W]`` input to `output_size` bins
    (`paddle.nn.functional.adaptive_avg_pool3d`).

    Args:
        output_size (int|list): the output ``[D, H, W]``.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AdaptiveAvgPool3D(1)(paddle.ones([1, 2, 3, 3, 3])).shape
        paddle.Size([1, 2, 1, 1, 1])
    """
    _fn = staticmethod(F.adaptive_avg_pool3d)

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format)


class _AdaptiveMax(_Pool):
    def extra_repr(self):
        return f"output_size={self._options['output_size']}, return_mask={self._options['return_mask']}"


class AdaptiveMaxPool1D(_AdaptiveMax):
    """Max pooling of a ``[N, C, L]`` input to `output_size` bins (`paddle.nn.functional.adaptive_max_pool1d`).

    Args:
        output_size (int): the number of bins.
        return_mask (bool, optional): also return the argmax indices. Default: False.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.AdaptiveMaxPool1D(2)
        >>> m
        AdaptiveMaxPool1D(output_size=2, return_mask=False)
        >>> m(paddle.to_tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy()
        array([[[3., 2.]]], dtype=float32)
    """
    _fn = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class AdaptiveMaxPool2D(_AdaptiveMax):
    """Max pooling of a ``[N, C, H, W]`` input to `output_size` bins (`paddle.nn.functional.adaptive_max_pool2d`).

    Args:
        output_size (int|list): the output ``[H, W]``.
        return_mask (bool, optional): also return the argmax indices. Default: False.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AdaptiveMaxPool2D(1)(paddle.arange(4, dtype="float32").reshape([1, 1, 2, 2])).numpy()
        array([[[[3.]]]], dtype=float32)
    """
    _fn = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class AdaptiveMaxPool3D(_AdaptiveMax):
    """Max pooling of a ``[N, C, D, H, W]`` input to `output_size` bins
    (`paddle.nn.functional.adaptive_max_pool3d`).

    Args:
        output_size (int|list): the output ``[D, H, W]``.
        return_mask (bool, optional): also return the argmax indices. Default: False.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.AdaptiveMaxPool3D(1)(paddle.ones([1, 2, 3, 3, 3])).shape
        paddle.Size([1, 2, 1, 1, 1])
    """
    _fn = staticmethod(F.adaptive_max_pool3d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask)


class _LPPool(_WindowPool):
    def __init__(self, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, padding=padding,
                         ceil_mode=ceil_mode, data_format=data_format)

    def extra_repr(self):
        return f"norm_type={self._options['norm_type']}, " + super().extra_repr()


class LPPool1D(_LPPool):
    """Power-average pooling of a ``[N, C, L]`` input (`paddle.nn.functional.lp_pool1d`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.LPPool1D(1, 2)(paddle.to_tensor([[[1.0, 3.0, 2.0, 5.0]]])).numpy()
        array([[[4., 7.]]], dtype=float32)
    """
    _fn = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL",
                 name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class LPPool2D(_LPPool):
    """Power-average pooling of a ``[N, C, H, W]`` input (`paddle.nn.functional.lp_pool2d`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.LPPool2D(2, 2)(paddle.to_tensor([[[[3.0, 4.0], [0.0, 0.0]]]])).numpy()
        array([[[[5.]]]], dtype=float32)
    """
    _fn = staticmethod(F.lp_pool2d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW",
                 name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class _MaxUnPool(Layer):
    def __init__(self, kernel_size, stride, padding, data_format, output_size):
        super().__init__()
        self._options = dict(kernel_size=kernel_size, stride=stride, padding=padding, data_format=data_format,
                             output_size=output_size)

    def forward(self, x, indices):
        return type(self)._fn(x, indices, **self._options)

    def extra_repr(self):
        return f"output_size={self._options['output_size']}"


class MaxUnPool1D(_MaxUnPool):
    """The inverse of MaxPool1D(return_mask=True) (`paddle.nn.functional.max_unpool1d`).

    Example:
        >>> import paddle_fn as paddle
        >>> values, mask = paddle.nn.MaxPool1D(2, return_mask=True)(paddle.to_tensor([[[1.0, 3.0, 2.0, 0.0]]]))
        >>> paddle.nn.MaxUnPool1D(2)(values, mask).numpy()
        array([[[0., 3., 2., 0.]]], dtype=float32)
    """
    _fn = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool2D(_MaxUnPool):
    """The inverse of MaxPool2D(return_mask=True) (`paddle.nn.functional.max_unpool2d`).

    Example:
        >>> import paddle_fn as paddle
        >>> values, mask = paddle.nn.MaxPool2D(2, return_mask=True)(paddle.to_tensor([[[[1.0, 5.0], [3.0, 2.0]]]]))
        >>> paddle.nn.MaxUnPool2D(2)(values, mask).numpy()
        array([[[[0., 5.],
                 [0., 0.]]]], dtype=float32)
    """
    _fn = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool3D(_MaxUnPool):
    """The inverse of MaxPool3D(return_mask=True) (`paddle.nn.functional.max_unpool3d`).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(8, dtype='float32').reshape([1, 1, 2, 2, 2])
        >>> values, mask = paddle.nn.MaxPool3D(2, return_mask=True)(x)
        >>> paddle.nn.MaxUnPool3D(2)(values, mask).shape
        paddle.Size([1, 1, 2, 2, 2])
    """
    _fn = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class _FractionalMaxPool(Layer):
    _fn = None

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
        super().__init__()
        self._output_size, self._kernel_size = output_size, kernel_size
        self._random_u, self._return_mask = random_u, return_mask

    def forward(self, x):
        return type(self)._fn(x, output_size=self._output_size, kernel_size=self._kernel_size,
                              random_u=self._random_u, return_mask=self._return_mask)

    def extra_repr(self):
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool2D(_FractionalMaxPool):
    """Fractional max pooling of a ``[N, C, H, W]`` input to `output_size`
    (`paddle.nn.functional.fractional_max_pool2d`); `random_u` fixes the windows, else each call draws one.

    Example:
        >>> import paddle_fn as paddle
        >>> pool = paddle.nn.FractionalMaxPool2D(output_size=3, random_u=0.3)
        >>> pool(paddle.rand([2, 3, 7, 7])).shape
        paddle.Size([2, 3, 3, 3])
    """
    _fn = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3D(_FractionalMaxPool):
    """Fractional max pooling of a ``[N, C, D, H, W]`` input to `output_size`
    (`paddle.nn.functional.fractional_max_pool3d`).

    Example:
        >>> import paddle_fn as paddle
        >>> pool = paddle.nn.FractionalMaxPool3D(output_size=[2, 3, 3], kernel_size=2, random_u=0.5)
        >>> pool(paddle.rand([1, 1, 5, 6, 6])).shape
        paddle.Size([1, 1, 2, 3, 3])
    """
    _fn = staticmethod(F.fractional_max_pool3d)
