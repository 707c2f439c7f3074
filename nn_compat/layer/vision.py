"""Vision layers (`paddle.nn.layer.vision`): PixelShuffle."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["PixelShuffle"]


class PixelShuffle(Layer):
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
        [1, 2, 6, 6]
    """

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"PixelShuffle: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
        self._upscale_factor, self._data_format, self._name = upscale_factor, data_format, name

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        text = f"upscale_factor={self._upscale_factor}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + (f", name={self._name}" if self._name else "")
