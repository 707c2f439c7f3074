"""Spatial transformers: `affine_grid` (the sampling grid of a batch of 2-D affine maps) and `grid_sample`
(bilinear or nearest sampling of a 4-D input at grid points, with zeros, border or reflection padding), with
Paddle's coordinate conventions for both `align_corners` settings. Composites of gathers and arithmetic, so grad
(to the input and to the grid), vmap and jit see through them.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import static_list
from paddle_fn.tensor.creation import zeros_like
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.manipulation import broadcast_to, reshape, take_along_axis, where
from paddle_fn.tensor.nan_stats import round_half_to_even
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand

__all__ = ["affine_grid", "grid_sample"]


def _base_coordinates(size, align_corners, dtype):
    """The normalized coordinates in [-1, 1] of `size` pixel centres (of the corner pixels' centres at +-1 with
    align_corners, of their outer edges without)."""
    if size == 1:
        return np.zeros(1, dtype)
    steps = np.linspace(-1.0, 1.0, size)
    return (steps if align_corners else steps * (size - 1) / size).astype(dtype)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid [N, H, W, 2] of the 2-D affine maps `theta` [N, 2, 3] for an output of `out_shape`
    [N, C, H, W]: each output pixel's normalized (x, y) mapped by theta, for ``grid_sample``.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> identity = paddle.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.affine_grid(identity, [1, 1, 2, 2]).numpy()[0]
        array([[[-1., -1.],
                [ 1., -1.]],
        <BLANKLINE>
               [[-1.,  1.],
                [ 1.,  1.]]], dtype=float32)
    """
    theta = float_operand("affine_grid", theta)
    shape = static_list("affine_grid", out_shape, "out_shape")
    if len(shape) != 4 or list(get_aval(theta).shape) != [shape[0], 2, 3]:
        raise ShapeError(f"affine_grid: theta must be [N, 2, 3] and out_shape [N, C, H, W] with the same N, got "
                         f"{list(get_aval(theta).shape)} and {shape} (3-D grids are not supported here)")
    dtype = get_aval(theta).dtype.np
    h, w = shape[2], shape[3]
    xs, ys = np.meshgrid(_base_coordinates(w, align_corners, dtype), _base_coordinates(h, align_corners, dtype))
    base = Tensor(np.stack([xs, ys, np.ones_like(xs)], axis=-1).reshape(1, h * w, 3))  # [1, H*W, 3]
    grid = matmul(broadcast_to(base, [shape[0], h * w, 3]), theta, transpose_y=True)  # [N, H*W, 2]
    return reshape(grid, [shape[0], h, w, 2])


def _reflect(coord, low, high):
    """`coord` reflected into [low, high] (twice-widths as in the padding rule below)."""
    span = high - low
    if span <= 0:  # a one-pixel axis reflects everything onto that pixel
        return zeros_like(coord) + low
    distance = m.abs(coord - low)
    flips = m.floor(distance / span)
    extra = distance - flips * span
    return where(m.remainder(flips, 2.0) == 0, extra + low, span - extra + low)


def _source_index(coord, size, padding_mode, align_corners):
    """Pixel coordinates from normalized ones, with the padding mode's folding into the image."""
    coord = (coord + 1) / 2 * (size - 1) if align_corners else ((coord + 1) * size - 1) / 2
    if padding_mode == "border":
        coord = m.clip(coord, 0.0, size - 1.0)
    elif padding_mode == "reflection":
        coord = _reflect(coord, 0.0, size - 1.0) if align_corners else _reflect(coord, -0.5, size - 0.5)
        coord = m.clip(coord, 0.0, size - 1.0)
    return coord


def _gather(flat, iy, ix, height, width):
    """flat [N, C, H*W] at integer pixel (iy, ix) [N, P]: [N, C, P], zero where the pixel is outside."""
    inside = (ix >= 0) & (ix <= width - 1) & (iy >= 0) & (iy <= height - 1)
    index = cast(m.clip(iy, 0, height - 1) * width + m.clip(ix, 0, width - 1), "int64")
    n, c = get_aval(flat).shape[:2]
    values = take_along_axis(flat, broadcast_to(reshape(index, [n, 1, -1]), [n, c, get_aval(index).shape[1]]), 2)
    return values * reshape(cast(inside, get_aval(flat).dtype), [n, 1, -1])


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """`x` [N, C, H, W] sampled at the normalized points `grid` [N, Ho, Wo, 2] ((x, y) in [-1, 1]):
    'bilinear' or 'nearest' (halves to even) interpolation; points outside read zeros ('zeros'), the nearest
    edge ('border') or the image mirrored ('reflection'). Output [N, C, Ho, Wo].

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.arange(12, dtype='float32').reshape([1, 1, 3, 4])
        >>> grid = paddle.to_tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.3, -0.2]]]])
        >>> F.grid_sample(x, grid).numpy()
        array([[[[ 0.  , 11.  ,  5.15]]]], dtype=float32)
    """
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest', got {mode!r}")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"grid_sample: padding_mode must be 'zeros', 'border' or 'reflection', got "
                         f"{padding_mode!r}")
    x = float_operand("grid_sample", x)
    grid = cast(as_tensor(grid), get_aval(x).dtype)
    xs, gs = list(get_aval(x).shape), list(get_aval(grid).shape)
    if len(xs) != 4 or len(gs) != 4 or gs[0] != xs[0] or gs[3] != 2:
        raise ShapeError(f"grid_sample: x must be [N, C, H, W] and grid [N, Ho, Wo, 2], got {xs} and {gs} (5-D "
                         "inputs are not supported here)")
    n, c, height, width = xs
    points = gs[1] * gs[2]
    flat = reshape(x, [n, c, height * width])
    gx = _source_index(reshape(grid[..., 0], [n, points]), width, padding_mode, align_corners)
    gy = _source_index(reshape(grid[..., 1], [n, points]), height, padding_mode, align_corners)
    if mode == "nearest":
        out = _gather(flat, round_half_to_even(gy), round_half_to_even(gx), height, width)
    else:
        x0, y0 = m.floor(gx), m.floor(gy)
        wx1, wy1 = gx - x0, gy - y0
        wx0, wy0 = 1 - wx1, 1 - wy1
        out = None
        for iy, ix, weight in ((y0, x0, wy0 * wx0), (y0, x0 + 1, wy0 * wx1), (y0 + 1, x0, wy1 * wx0),
                               (y0 + 1, x0 + 1, wy1 * wx1)):
            term = _gather(flat, iy, ix, height, width) * reshape(weight, [n, 1, points])
            out = term if out is None else out + term
    return reshape(out, [n, c, gs[1], gs[2]])

