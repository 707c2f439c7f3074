"""Fractional max pooling (`fractional_max_pool2d/3d`, Graham 2015) with Paddle's pooling windows: along each
spatial axis the windows follow ``alpha = (input - kernel) / (output - (1 if kernel else 0))`` and one offset
``u`` (`random_u`), as Paddle's kernel computes them in float32, so a given `random_u` picks Paddle's windows.
The windows are static; the pooling is a gather of each window and an argmax (the first maximum, as Paddle's
loop keeps it), so grad, vmap and jit see through it.
"""
from __future__ import annotations

import itertools

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn import random
from paddle_fn.tensor._util import eager_value, static_int
from paddle_fn.tensor.manipulation import gather, reshape, take_along_axis, transpose
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.tensor.search import argmax
from paddle_fn.nn.functional._shared import _tuple

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _windows(op, size, out, kernel, u):
    """Paddle's [start, end) windows of one axis: float32 arithmetic as its FractionalStartIndex/EndIndex."""
    f32 = np.float32
    if out - 1 + kernel > size:
        raise ShapeError(f"{op}: an input size {size} is less than the output size {out} - 1 + kernel {kernel}")
    alpha = f32(size - kernel) / f32(out - (1 if kernel > 0 else 0))
    if kernel > 0:
        shift = f32(u)
    else:  # Paddle scales u so that the last window still ends inside the input
        base = size // out
        shift = f32(u) * min(f32(base + 2) / alpha - f32(1), f32(size + 1 - base) / alpha - f32(out - 1))
    offset = int(shift * alpha)
    starts = [int(f32(i + shift) * alpha) - offset for i in range(out)]
    ends = [s + kernel if kernel else int(f32(i + 1 + shift) * alpha) - offset for i, s in enumerate(starts)]
    return [(max(s, 0), min(e, size)) for s, e in zip(starts, ends)]


def _draw_u(op, x):
    """Paddle draws u from its global generator when random_u is None; here from paddle_fn's, eagerly."""
    value = eager_value(random.paddle_uniform([], dtype=dtypes.float32, min=0.0, max=1.0))
    if value is None or eager_value(x) is None:
        raise ConcretizationError(f"{op}: with random_u=None the windows come from a draw of the global RNG, which "
                                  "only works eagerly; pass random_u (a float in (0, 1)) inside jit/vmap/grad")
    return float(value)


def _fractional_max_pool(op, n, x, output_size, kernel_size, random_u, return_mask):
    x = as_tensor(x)
    shape = list(get_aval(x).shape)
    if len(shape) != n + 2:
        raise ShapeError(f"{op}: x must be {n + 2}-D [N, C, {', '.join('DHW'[3 - n:])}], got shape {shape}")
    if random_u is not None and not 0 < random_u < 1:
        raise ValueError(f"{op}: random_u should be a float in (0, 1), got {random_u}")
    sizes = [output_size] * n if isinstance(output_size, int) else list(output_size)
    if len(sizes) != n:
        raise ValueError(f"{op}: output_size needs 1 or {n} values, got {output_size}")
    # None keeps the input's size (Paddle's rule)
    outs = [size if o is None else static_int(op, o, "output_size") for o, size in zip(sizes, shape[2:])]
    kernels = (0,) * n if kernel_size is None else _tuple(op, kernel_size, n, "kernel_size")
    u = _draw_u(op, x) if random_u is None else random_u
    windows = [_windows(op, size, o, k, u) for size, o, k in zip(shape[2:], outs, kernels)]
    # each window padded to the longest by repeating its start, which cannot change the first maximum
    longest = [max(e - s for s, e in axis) for axis in windows]
    index = [np.array([[s + (j if s + j < e else 0) for j in range(width)] for s, e in axis])
             for axis, width in zip(windows, longest)]
    gathered = x
    for d, idx in enumerate(index):  # axis 2 + 2d becomes [out_d, width_d]
        axis = 2 + 2 * d
        lead = list(get_aval(gathered).shape)
        picked = gather(gathered, as_tensor(idx.reshape(-1)), axis=axis)
        gathered = reshape(picked, lead[:axis] + list(idx.shape) + lead[axis + 1:])
    batch, channels = shape[:2]
    perm = [0, 1] + [2 + 2 * d for d in range(n)] + [3 + 2 * d for d in range(n)]
    windows_last = reshape(transpose(gathered, perm), [batch, channels] + outs + [-1])
    best = argmax(windows_last, axis=-1, keepdim=True)
    out = take_along_axis(windows_last, best, axis=-1).squeeze(-1)
    if not return_mask:
        return out
    # the flat input position (over the spatial axes) of every window entry
    strides = np.cumprod([1] + shape[2:][::-1][:-1])[::-1]
    flat_positions = np.zeros(outs + [int(np.prod(longest))], dtype=np.int64)
    for cell in itertools.product(*(range(o) for o in outs)):
        grids = np.meshgrid(*(idx[c] for idx, c in zip(index, cell)), indexing="ij")
        flat_positions[cell] = sum(g * s for g, s in zip(grids, strides)).reshape(-1)
    positions = as_tensor(flat_positions).expand([batch, channels] + list(flat_positions.shape))
    mask = take_along_axis(positions, best, axis=-1).squeeze(-1).astype(dtypes.int32)
    return out, mask


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """2-D fractional max pooling of an NCHW `x` to `output_size` (an int, or [H, W] with None keeping that
    size). Without `kernel_size` the windows tile the input with sizes of about input/output; with it they are
    `kernel_size` wide and overlap. `random_u` in (0, 1) fixes the windows' offset (None: a draw of the global
    RNG, eagerly). ``return_mask=True`` also returns each maximum's flat H * W position (int32).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(49, dtype='float32').reshape([1, 1, 7, 7])
        >>> F.fractional_max_pool2d(x, output_size=3, random_u=0.3).numpy()
        array([[[[ 8., 11., 13.],
                 [29., 32., 34.],
                 [43., 46., 48.]]]], dtype=float32)
    """
    return _fractional_max_pool("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    """3-D fractional max pooling of an NCDHW `x` to `output_size` (an int, or [D, H, W] with None keeping that
    size); the windows as `fractional_max_pool2d`'s along each axis, the mask the flat D * H * W position.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(64, dtype='float32').reshape([1, 1, 4, 4, 4])
        >>> out, mask = F.fractional_max_pool3d(x, output_size=2, random_u=0.5, return_mask=True)
        >>> mask.numpy().reshape(-1).tolist()
        [21, 23, 29, 31, 53, 55, 61, 63]
    """
    return _fractional_max_pool("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u, return_mask)
