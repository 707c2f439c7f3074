"""Vision functions (`paddle.nn.functional.vision`): pixel_shuffle."""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of, static_int
from paddle_fn.tensor.manipulation import transpose
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["pixel_shuffle"]

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
