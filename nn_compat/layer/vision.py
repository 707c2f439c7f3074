"""Vision layers (`paddle.nn.layer.vision`): PixelShuffle, PixelUnshuffle and ChannelShuffle."""
from __future__ import annotations

import numpy as np

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["ChannelShuffle", "PixelShuffle", "PixelUnshuffle"]


class _Rearrange4D(Layer):
    """A layer over a 4-D-input rearrangement of `paddle.nn.functional.vision`: ``forward(x) = F.<fn>(x, factor,
    data_format)``; the repr is Paddle's."""
    _fn = None
    _factor_name = ""

    def __init__(self, factor, data_format="NCHW", name=None):
        super().__init__()
        what = type(self).__name__
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        if isinstance(factor, bool) or not isinstance(factor, (int, np.integer)) or factor <= 0:
            raise ValueError(f"{what}: {self._factor_name} must be a positive int, got {factor!r}")
        self._factor, self._data_format, self._name = factor, data_format, name

    def forward(self, x):
        return type(self)._fn(x, self._factor, self._data_format)

    def extra_repr(self):
        text = f"{self._factor_name}={self._factor}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + (f", name={self._name}" if self._name else "")


class PixelShuffle(_Rearrange4D):
    """Rearrange ``[N, C*r*r, H, W]`` into ``[N, C, H*r, W*r]`` (`paddle.nn.functional.pixel_shuffle`).

    Args:
        upscale_factor (int): r.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.PixelShuffle(2)
        >>> m
        PixelShuffle(upscale_factor=2)
        >>> m(paddle.ones([1, 8, 3, 3])).shape
        paddle.Size([1, 2, 6, 6])
    """

    _fn = staticmethod(F.pixel_shuffle)
    _factor_name = "upscale_factor"

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__(upscale_factor, data_format, name)


class PixelUnshuffle(_Rearrange4D):
    """Rearrange ``[N, C, H*r, W*r]`` into ``[N, C*r*r, H, W]``, the inverse of `PixelShuffle`
    (`paddle.nn.functional.pixel_unshuffle`).

    Args:
        downscale_factor (int): r; it must divide the input's height and width.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.PixelUnshuffle(2)
        >>> m
        PixelUnshuffle(downscale_factor=2)
        >>> m(paddle.ones([1, 2, 6, 6])).shape
        paddle.Size([1, 8, 3, 3])
    """
    _fn = staticmethod(F.pixel_unshuffle)
    _factor_name = "downscale_factor"

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__(downscale_factor, data_format, name)


class ChannelShuffle(_Rearrange4D):
    """Split the channels into `groups` groups and interleave them, as ShuffleNet does
    (`paddle.nn.functional.channel_shuffle`).

    Args:
        groups (int): the number of groups; it must divide the number of channels.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ChannelShuffle(2)
        >>> m
        ChannelShuffle(groups=2)
        >>> m(paddle.arange(4, dtype='float32').reshape([1, 4, 1, 1])).flatten().astype('int64').tolist()
        [0, 2, 1, 3]
    """
    _fn = staticmethod(F.channel_shuffle)
    _factor_name = "groups"

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__(groups, data_format, name)
