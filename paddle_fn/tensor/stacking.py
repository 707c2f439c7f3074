"""numpy-style splitting and stacking, as Paddle 3 names them: tensor_split and h/v/dsplit (uneven sections or
split points), h/v/d/column/row_stack, atleast_1d/2d/3d, unflatten and narrow. All are compositions of slices,
reshapes and concat, so every transform sees through them.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.tensor._util import normalize_axis, static_int, static_list
from paddle_fn.tensor.manipulation import _slice_axis, concat, gather, reshape, transpose
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["unfold", "tensor_split", "hsplit", "vsplit", "dsplit", "vstack", "hstack", "dstack", "column_stack", "row_stack",
           "atleast_1d", "atleast_2d", "atleast_3d", "unflatten", "narrow"]


def _is_count(value) -> bool:
    return isinstance(value, (int, np.integer)) or (isinstance(value, Tensor) and get_aval(value).ndim == 0)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Split `x` along `axis` into `num_or_indices` sections (the first ``size % n`` of them one longer, as
    numpy's ``array_split``), or at the listed indices (Python slice rules: negative indices count from the end,
    a split point before the previous one gives an empty piece).

    Example:
        >>> import paddle_fn as paddle
        >>> [t.tolist() for t in paddle.tensor_split(paddle.arange(7), 3)]
        [[0, 1, 2], [3, 4], [5, 6]]
        >>> [t.tolist() for t in paddle.tensor_split(paddle.arange(7), [2, -2])]
        [[0, 1], [2, 3, 4], [5, 6]]
    """
    x = as_tensor(x)
    shape = get_aval(x).shape
    if len(shape) == 0:
        raise ShapeError("tensor_split: x is 0-D; it needs an axis to split (reshape it to [1] first)")
    ax = normalize_axis("tensor_split", static_int("tensor_split", axis, "axis"), len(shape))
    n = shape[ax]
    if _is_count(num_or_indices):
        sections = static_int("tensor_split", num_or_indices, "num_or_indices")
        if sections <= 0:
            raise ShapeError(f"tensor_split: num_or_indices is {sections}; the number of sections must be at least 1")
        size, extra = divmod(n, sections)
        sizes = [size + 1] * extra + [size] * (sections - extra)
        edges = [0] + [int(e) for e in np.cumsum(sizes)]
    else:
        points = static_list("tensor_split", num_or_indices, "num_or_indices")
        edges = [0] + [min(max(p + n if p < 0 else p, 0), n) for p in points] + [n]
    return [_slice_axis(x, ax, start, max(start, stop)) for start, stop in zip(edges, edges[1:])]


def _split_at(op, x, num_or_indices, axis, min_ndim):
    x = as_tensor(x)
    ndim = get_aval(x).ndim
    if ndim < min_ndim:
        raise ShapeError(f"{op}: x has {ndim} dimension(s); {op} splits along axis {axis}, so x needs at least "
                         f"{min_ndim}")
    return tensor_split(x, num_or_indices, axis=axis)


def hsplit(x, num_or_indices, name=None):
    """`tensor_split` along the columns: axis 1, or axis 0 of a 1-D `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.hsplit(paddle.ones([2, 5]), [1, 3])]
        [paddle.Size([2, 1]), paddle.Size([2, 2]), paddle.Size([2, 2])]
    """
    x = as_tensor(x)
    return _split_at("hsplit", x, num_or_indices, 1 if get_aval(x).ndim >= 2 else 0, 1)


def vsplit(x, num_or_indices, name=None):
    """`tensor_split` along the rows (axis 0) of an `x` with at least 2 dimensions.

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.vsplit(paddle.ones([4, 3]), 2)]
        [paddle.Size([2, 3]), paddle.Size([2, 3])]
    """
    return _split_at("vsplit", x, num_or_indices, 0, 2)


def dsplit(x, num_or_indices, name=None):
    """`tensor_split` along the depth (axis 2) of an `x` with at least 3 dimensions.

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.dsplit(paddle.ones([1, 2, 6]), 3)]
        [paddle.Size([1, 2, 2]), paddle.Size([1, 2, 2]), paddle.Size([1, 2, 2])]
    """
    return _split_at("dsplit", x, num_or_indices, 2, 3)


def _at_least(x, ndim):
    """`x` with dimensions of size 1 added where numpy's atleast_1d/2d/3d add them."""
    x = as_tensor(x)
    shape = list(get_aval(x).shape)
    if len(shape) >= ndim:
        return x
    if ndim == 3:  # [] -> [1, 1, 1], [n] -> [1, n, 1], [m, n] -> [m, n, 1]
        return reshape(x, [[1, 1, 1], [1] + shape + [1], shape + [1]][len(shape)])
    return reshape(x, [1] * (ndim - len(shape)) + shape)


def _one_or_list(op, inputs, ndim):
    if not inputs:
        raise TypeError(f"{op}() needs at least one input")
    outs = [_at_least(x, ndim) for x in inputs]
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dimension (a 0-D Tensor or number becomes shape [1]); one input gives a Tensor,
    several a list.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.atleast_1d(paddle.to_tensor(3.0)).shape
        paddle.Size([1])
    """
    return _one_or_list("atleast_1d", inputs, 1)


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dimensions: shape [n] becomes [1, n], a 0-D one [1, 1].

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.atleast_2d(paddle.ones([3]), paddle.ones([2, 2]))]
        [paddle.Size([1, 3]), paddle.Size([2, 2])]
    """
    return _one_or_list("atleast_2d", inputs, 2)


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dimensions: [n] becomes [1, n, 1], [m, n] becomes [m, n, 1], 0-D [1, 1, 1].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.atleast_3d(paddle.ones([2, 3])).shape
        paddle.Size([2, 3, 1])
    """
    return _one_or_list("atleast_3d", inputs, 3)


def _tensors(op, x):
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{op}: x must be a non-empty list or tuple of Tensors, got {type(x).__name__}")
    return [as_tensor(t) for t in x]


def vstack(x, name=None):
    """Stack the Tensors of `x` row-wise: 1-D Tensors of length n become rows [1, n], then all are concatenated
    along axis 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vstack([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).tolist()
        [[1, 2], [3, 4]]
    """
    return _rows("vstack", x)


def row_stack(x, name=None):
    """The same as `vstack`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.row_stack([paddle.ones([3]), paddle.zeros([3])]).shape
        paddle.Size([2, 3])
    """
    return _rows("row_stack", x)


def _rows(op, x):
    return concat([_at_least(t, 2) for t in _tensors(op, x)], axis=0)


def hstack(x, name=None):
    """Stack the Tensors of `x` column-wise: concatenated along axis 1, or along axis 0 when they are 1-D.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.hstack([paddle.to_tensor([1, 2]), paddle.to_tensor([3])]).tolist()
        [1, 2, 3]
    """
    tensors = [_at_least(t, 1) for t in _tensors("hstack", x)]
    return concat(tensors, axis=0 if get_aval(tensors[0]).ndim == 1 else 1)


def dstack(x, name=None):
    """Stack the Tensors of `x` along a third axis (depth), after `atleast_3d`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.dstack([paddle.ones([2, 3]), paddle.zeros([2, 3])]).shape
        paddle.Size([2, 3, 2])
    """
    return concat([_at_least(t, 3) for t in _tensors("dstack", x)], axis=2)


def column_stack(x, name=None):
    """Stack the Tensors of `x` as columns: 1-D Tensors of length n become [n, 1] columns, then all are
    concatenated along axis 1.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.column_stack([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).tolist()
        [[1, 3], [2, 4]]
    """
    columns = []
    for t in _tensors("column_stack", x):
        shape = get_aval(t).shape
        columns.append(reshape(t, [math.prod(shape), 1]) if len(shape) < 2 else t)
    return concat(columns, axis=1)


def unflatten(x, axis, shape, name=None):
    """Expand dimension `axis` of `x` into `shape` (one entry may be -1, inferred).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.unflatten(paddle.ones([4, 6]), 1, [2, -1]).shape
        paddle.Size([4, 2, 3])
    """
    x = as_tensor(x)
    old = list(get_aval(x).shape)
    ax = normalize_axis("unflatten", static_int("unflatten", axis, "axis"), len(old))
    sizes = static_list("unflatten", shape, "shape")
    if not sizes:
        raise ShapeError("unflatten: shape is empty; it needs at least one size")
    if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
        raise ShapeError(f"unflatten: shape {sizes} may hold -1 once and no other negative size")
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        if known == 0 or old[ax] % known:
            raise ShapeError(f"unflatten: dimension {ax} of x (size {old[ax]}) cannot be unflattened into {sizes}")
        sizes[sizes.index(-1)] = old[ax] // known
    if math.prod(sizes) != old[ax]:
        raise ShapeError(f"unflatten: shape {sizes} holds {math.prod(sizes)} elements, but dimension {ax} of x "
                         f"(shape {old}) has {old[ax]}")
    return reshape(x, old[:ax] + sizes + old[ax + 1:])


def narrow(input, dim, start, length):  # noqa: A002 - Paddle's name
    """The `length` elements of `input` along `dim` from `start` (negative: from the end).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.narrow(paddle.arange(10).reshape([2, 5]), 1, 1, 3).tolist()
        [[1, 2, 3], [6, 7, 8]]
    """
    x = as_tensor(input)
    shape = get_aval(x).shape
    if len(shape) == 0:
        raise ShapeError("narrow: input is 0-D; it needs a dimension to narrow")
    ax = normalize_axis("narrow", static_int("narrow", dim, "dim"), len(shape))
    begin, size = static_int("narrow", start, "start"), static_int("narrow", length, "length")
    if not -shape[ax] <= begin <= shape[ax]:
        raise ShapeError(f"narrow: start {begin} is outside dimension {ax} of shape {list(shape)} (size {shape[ax]})")
    begin = begin + shape[ax] if begin < 0 else begin
    if size < 0 or begin + size > shape[ax]:
        raise ShapeError(f"narrow: start ({begin}) + length ({size}) exceeds dimension {ax} of shape {list(shape)} "
                         f"(size {shape[ax]})")
    return _slice_axis(x, ax, begin, begin + size)


def unfold(x, axis, size, step, name=None):
    """The windows of `size` elements along `axis`, `step` apart: that axis becomes the number of windows and a
    new last axis of length `size` holds each window (Tensor.unfold; ``paddle.nn.functional.unfold`` is im2col).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.unfold(paddle.arange(7.0), 0, 2, 2).tolist()
        [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
        >>> paddle.arange(12.0).reshape([3, 4]).unfold(1, 2, 1).shape
        paddle.Size([3, 3, 2])
    """
    x = as_tensor(x)
    shape = list(get_aval(x).shape)
    ax = normalize_axis("unfold", axis, len(shape))
    size, step = static_int("unfold", size, "size"), static_int("unfold", step, "step")
    if size < 1 or step < 1 or size > shape[ax]:
        raise ShapeError(f"unfold: size ({size}) must lie in [1, {shape[ax]}] (axis {ax} of shape {shape}) and "
                         f"step ({step}) be positive")
    count = (shape[ax] - size) // step + 1
    positions = np.arange(count)[:, None] * step + np.arange(size)[None, :]  # [count, size]
    windows = reshape(gather(x, as_tensor(positions.reshape(-1)), axis=ax), shape[:ax] + [count, size] + shape[ax + 1:])
    # the window axis goes last
    return transpose(windows, list(range(ax + 1)) + list(range(ax + 2, len(shape) + 1)) + [ax + 1])
