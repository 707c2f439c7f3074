"""Extensions (`paddle.nn.functional.extension`): diag_embed, sequence_mask, temporal_shift."""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, is_concrete
from paddle_fn.tensor import math as m
from paddle_fn.tensor.creation import arange, to_tensor
from paddle_fn.tensor.creation import diag_embed as _diag_embed
from paddle_fn.tensor.manipulation import concat, reshape, unsqueeze
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.nn.functional.common import pad

__all__ = ["diag_embed", "sequence_mask", "temporal_shift"]

diag_embed = _diag_embed


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """A mask of the valid steps of sequences with lengths `x`: ``out[..., j] = j < x[...]`` (Paddle's
    ``paddle.nn.functional.sequence_mask``).

    Args:
        x (Tensor): integer lengths, any shape.
        maxlen (int|Tensor, optional): the length of the new last axis; default: ``max(x)`` (which needs a
            concrete `x`: pass `maxlen` under jit).
        dtype (str, optional): the mask's dtype. Default: 'int64'.
        name (str, optional): unused, for compatibility.

    Returns:
        A Tensor of shape ``x.shape + [maxlen]``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.functional.sequence_mask(paddle.to_tensor([1, 3, 0]), maxlen=4).numpy()
        array([[1, 0, 0, 0],
               [1, 1, 1, 0],
               [0, 0, 0, 0]])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"sequence_mask: x must hold integer lengths, got dtype {x.dtype.name}")
    if maxlen is None:
        if not is_concrete(x):
            raise ShapeError("sequence_mask: maxlen=None takes max(x), which is not known while x is traced; pass "
                             "maxlen explicitly")
        maxlen = int(m.max(x)) if x.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(maxlen)
    steps = arange(int(maxlen), dtype=x.dtype)
    return (steps < unsqueeze(x, -1)).astype(dtype)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """The temporal shift module (TSM): `x` holds ``seg_num`` frames per clip, ``[N * seg_num, C, H, W]``; the
    first ``int(C * shift_ratio)`` channels take the previous frame's values and the next ``int(C * shift_ratio
    * 2)`` minus those the following frame's (zeros past the clip's ends); the other channels stay.

    Args:
        x (Tensor): ``[N * seg_num, C, H, W]`` (or NHWC with ``data_format='NHWC'``).
        seg_num (int): frames per clip.
        shift_ratio (float, optional): the fraction of channels shifted each way. Default: 0.25.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(12, dtype='float32').reshape([3, 4, 1, 1])   # one clip of 3 frames, 4 channels
        >>> F.temporal_shift(x, seg_num=3).reshape([3, 4]).numpy()
        array([[ 0.,  5.,  2.,  3.],
               [ 0.,  9.,  6.,  7.],
               [ 4.,  0., 10., 11.]], dtype=float32)
    """
    x = as_tensor(x)
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x.ndim != 4 or x.shape[0] % seg_num:
        raise ShapeError(f"temporal_shift: x must be 4-D with a first dim a multiple of seg_num={seg_num}, got "
                         f"shape {x.shape}")
    channels_last = data_format == "NHWC"
    channels = x.shape[3 if channels_last else 1]
    back, forward = int(channels * shift_ratio), int(channels * shift_ratio * 2)
    clips = reshape(x, [x.shape[0] // seg_num, seg_num] + x.shape[1:])
    axis = 4 if channels_last else 2

    def part(lo, hi):
        index = [slice(None)] * 5
        index[axis] = slice(lo, hi)
        return clips[tuple(index)]

    def shifted(piece, lo, hi):  # along the frame axis: lo zero frames before, the rest cut at the other end
        widths = [0, 0] * 5
        widths[2:4] = [lo, hi]
        frames = piece[:, :seg_num - lo] if lo else piece[:, hi:]
        return pad(frames, widths, mode="constant", value=0.0, pad_from_left_axis=True)

    out = concat([shifted(part(0, back), 1, 0), shifted(part(back, forward), 0, 1), part(forward, channels)],
                 axis=axis)
    return reshape(out, x.shape)
