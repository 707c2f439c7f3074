"""Vision functions (`paddle.nn.functional.vision`): pixel_shuffle, pixel_unshuffle and channel_shuffle."""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of, static_int
from paddle_fn.tensor.manipulation import transpose
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["channel_shuffle", "pixel_shuffle", "pixel_unshuffle"]


def _check_4d(op, x, data_format):
    """`x` as NCHW (transposed from NHWC); raises for another data_format or a rank other than 4."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{op}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if len(shape_of(x)) != 4:
        raise ShapeError(f"{op}: expects a 4-D input ({data_format}), got shape {list(shape_of(x))}; "
                         "reshape it to [N, C, H, W] (or [N, H, W, C] with data_format='NHWC')")
    return transpose(x, [0, 3, 1, 2]) if data_format == "NHWC" else x


def _positive_int(op, value, what):
    v = static_int(op, value, what)
    if v <= 0:
        raise ValueError(f"{op}: {what} must be a positive int, got {v}")
    return v


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C*r*r, H, W] into [N, C, H*r, W*r].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.pixel_shuffle(paddle.arange(4, dtype='float32').reshape([1, 4, 1, 1]), 2).numpy()
        array([[[[0., 1.],
                 [2., 3.]]]], dtype=float32)
    """
    x = _check_4d("pixel_shuffle", as_tensor(x), data_format)
    r = _positive_int("pixel_shuffle", upscale_factor, "upscale_factor")
    n, c, h, w = shape_of(x)
    if c % (r * r):
        raise ShapeError(f"pixel_shuffle: {c} channels are not divisible by upscale_factor**2 = {r * r}")
    out = st.reshape(x, new_sizes=(n, c // (r * r), r, r, h, w))
    out = st.reshape(st.transpose(out, permutation=(0, 1, 4, 2, 5, 3)), new_sizes=(n, c // (r * r), h * r, w * r))
    return transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    """Rearrange [N, C, H*r, W*r] into [N, C*r*r, H, W], the inverse of `pixel_shuffle`: output channel
    ``c * r * r + i * r + j`` holds the input pixels ``(h * r + i, w * r + j)`` of channel ``c``.

    Args:
        x (Tensor): a 4-D Tensor, [N, C, H, W] (or [N, H, W, C] with data_format='NHWC').
        downscale_factor (int): r; it must divide H and W.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused, for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(8, dtype='float32').reshape([1, 1, 2, 4])
        >>> F.pixel_unshuffle(x, 2).astype('int64').tolist()
        [[[[0, 2]], [[1, 3]], [[4, 6]], [[5, 7]]]]
    """
    x = _check_4d("pixel_unshuffle", as_tensor(x), data_format)
    r = _positive_int("pixel_unshuffle", downscale_factor, "downscale_factor")
    n, c, h, w = shape_of(x)
    if h % r or w % r:
        raise ShapeError(f"pixel_unshuffle: downscale_factor {r} must divide both height {h} and width {w} "
                         f"(input shape {list(shape_of(x))} as NCHW); crop or pad the input to a multiple of {r}")
    out = st.reshape(x, new_sizes=(n, c, h // r, r, w // r, r))
    out = st.reshape(st.transpose(out, permutation=(0, 1, 3, 5, 2, 4)), new_sizes=(n, c * r * r, h // r, w // r))
    return transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    """Split the C channels into `groups` groups and interleave them (ShuffleNet): output channel
    ``i * groups + g`` is input channel ``g * (C // groups) + i``.

    Args:
        x (Tensor): a 4-D Tensor, [N, C, H, W] (or [N, H, W, C] with data_format='NHWC').
        groups (int): the number of groups; it must divide C.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): unused, for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(6, dtype='float32').reshape([1, 6, 1, 1])
        >>> F.channel_shuffle(x, 3).flatten().astype('int64').tolist()
        [0, 2, 4, 1, 3, 5]
    """
    x = _check_4d("channel_shuffle", as_tensor(x), data_format)
    g = _positive_int("channel_shuffle", groups, "groups")
    n, c, h, w = shape_of(x)
    if c % g:
        raise ShapeError(f"channel_shuffle: groups {g} must divide the {c} channels (input shape "
                         f"{list(shape_of(x))} as NCHW); pick groups among the divisors of {c}")
    out = st.reshape(x, new_sizes=(n, g, c // g, h, w))
    out = st.reshape(st.transpose(out, permutation=(0, 2, 1, 3, 4)), new_sizes=(n, c, h, w))
    return transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out
