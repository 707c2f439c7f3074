"""The second names Paddle 3 gives existing functions (mostly the array-API and PyTorch spellings: `cat`, `clamp`,
`eq`, `swapaxes`, `permute`, ...), the ones whose signature differs a little (`div`'s `rounding_mode`, `sub`'s
`alpha`, `range`'s included end), and the constants `paddle.pi`, `e`, `inf`, `nan`, `newaxis`. A plain alias is the
same function object, so it has one docstring and one behaviour.
"""
from __future__ import annotations

import builtins
import math as _math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.tensor._util import (accepts_out, accepts_placement, check_cpu, check_not_pinned, normalize_axis,
                                    sizes_argument, write_out)
from paddle_fn.tensor.creation import _concrete_number, arange, to_tensor
from paddle_fn.tensor.linalg import outer
from paddle_fn.tensor.logic import (bitwise_not, equal, greater_equal, greater_than, less_equal, less_than,
                                    not_equal)
from paddle_fn.tensor.manipulation import (concat, flip, gather, reshape, take_along_axis, transpose,
                                           broadcast_to, where)
from paddle_fn.tensor.math import (add, clip, divide, multiply, neg, subtract, sum as sum_)
from paddle_fn.tensor.promotion import as_tensor as operand, cast
from paddle_fn.tensor.search import sort

__all__ = ["cat", "concatenate", "clamp", "div", "mul", "sub", "true_divide", "eq", "ne", "lt", "le", "gt", "ge",
           "greater", "less", "negative", "positive", "swapaxes", "swapdims", "permute", "ravel", "matrix_transpose",
           "reverse", "take_along_dim", "ger", "msort", "view", "view_as", "as_strided", "masked_fill", "index_add",
           "reduce_as", "bitwise_invert", "range", "as_tensor", "pi", "e", "inf", "nan", "newaxis"]

pi = _math.pi
e = _math.e
inf = float("inf")
nan = float("nan")
newaxis = None

cat = concatenate = concat
clamp = clip
mul = multiply
div = divide
sub = subtract
eq, ne, lt, le, gt, ge = equal, not_equal, less_than, less_equal, greater_than, greater_equal
greater, less = greater_than, less_than
negative = neg
ger = outer
bitwise_invert = bitwise_not


@accepts_out
def true_divide(input, other):  # noqa: A002 - Paddle's parameter name
    """Elementwise true division ``input / other``; integers divide in the default float dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.true_divide(paddle.to_tensor([5]), paddle.to_tensor([2])).tolist()
        [2.5]
    """
    return divide(input, other)


def positive(x, name=None):
    """`x` itself (the unary ``+``); bool Tensors are refused, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.positive(paddle.to_tensor([-1, 2])).tolist()
        [-1, 2]
    """
    x = operand(x)
    if get_aval(x).dtype == dtypes.bool_:
        raise DTypeError("positive: a bool Tensor has no unary +; cast it to an integer dtype first")
    return x


def swapaxes(x, axis0, axis1, name=None):
    """`x` with dimensions `axis0` and `axis1` exchanged (alias ``swapdims``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.swapaxes(paddle.ones([2, 3, 4]), 0, 2).shape
        paddle.Size([4, 3, 2])
    """
    x = operand(x)
    rank = get_aval(x).ndim
    a, b = normalize_axis("swapaxes", axis0, rank), normalize_axis("swapaxes", axis1, rank)
    perm = list(builtins.range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


swapdims = swapaxes


def permute(input, dims, *more_dims):  # noqa: A002 - Paddle's parameter name
    """`input` with its dimensions reordered: ``permute(x, [1, 0])``, ``permute(x, dims=[1, 0])`` or
    ``permute(x, 1, 0)`` (as ``transpose``).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2, 3, 4])
        >>> paddle.permute(x, [2, 0, 1]).shape, x.permute(1, 0, 2).shape
        (paddle.Size([4, 2, 3]), paddle.Size([3, 2, 4]))
    """
    return transpose(input, list(sizes_argument(dims, more_dims)))


def ravel(input):  # noqa: A002 - Paddle's parameter name
    """`input` flattened to one dimension.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ravel(paddle.to_tensor([[1, 2], [3, 4]])).tolist()
        [1, 2, 3, 4]
    """
    return reshape(input, [-1])


def matrix_transpose(x, name=None):
    """The transpose of each matrix in `x` (its last two dimensions exchanged); ``x.mT`` is the same.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.matrix_transpose(paddle.ones([2, 3, 4])).shape
        paddle.Size([2, 4, 3])
    """
    x = operand(x)
    if get_aval(x).ndim < 2:
        raise ShapeError(f"matrix_transpose: x must have at least 2 dimensions, got shape {list(get_aval(x).shape)}")
    return swapaxes(x, -1, -2)


def reverse(x, axis, name=None):
    """`x` with the order of its elements reversed along `axis` (an int or a list); the same as ``flip``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.reverse(paddle.to_tensor([[0, 1], [2, 3]]), 0).tolist()
        [[2, 3], [0, 1]]
    """
    return flip(x, axis)


@accepts_out
def take_along_dim(arr, indices, axis, broadcast=True):
    """The values of `arr` at `indices` along `axis` (``take_along_axis`` under its array-API name).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, 1, 2], [3, 4, 5]])
        >>> paddle.take_along_dim(x, paddle.to_tensor([[0], [1]]), 1).tolist()
        [[0], [4]]
    """
    arr, indices = operand(arr), operand(indices)
    if not broadcast and get_aval(arr).ndim != get_aval(indices).ndim:
        raise ShapeError(f"take_along_dim: with broadcast=False, indices (shape {list(get_aval(indices).shape)}) "
                         f"must have the rank of arr (shape {list(get_aval(arr).shape)})")
    return take_along_axis(arr, indices, axis)


def msort(input, *, out=None):  # noqa: A002 - Paddle's parameter name
    """`input` sorted along its first dimension, ascending; `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.msort(paddle.to_tensor([[3, 1], [1, 2]])).tolist()
        [[1, 1], [3, 2]]
    """
    return write_out(sort(input, axis=0), out)


def view(x, shape_or_dtype, name=None):
    """`x` under a new shape (as ``reshape``; -1 and 0 allowed), or its bits read as another dtype
    (``view(x, 'int32')`` of a float32 Tensor). As in Paddle, a dtype k times narrower multiplies the last
    dimension by k (float32 [2, 6] as uint8: [2, 24]) and one k times wider divides it by k (it must be a
    multiple of k).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.view(paddle.arange(6), [2, 3]).shape
        paddle.Size([2, 3])
        >>> paddle.view(paddle.to_tensor([1.0]), 'int32').tolist()
        [1065353216]
        >>> paddle.view(paddle.to_tensor([1.0, -2.0]), 'uint8').tolist()
        [0, 0, 128, 63, 0, 0, 0, 192]
    """
    x = operand(x)
    if isinstance(shape_or_dtype, (list, tuple)) or hasattr(shape_or_dtype, "shape"):
        return reshape(x, shape_or_dtype)
    new = dtypes.as_dtype(shape_or_dtype)
    old = get_aval(x).dtype
    shape = list(get_aval(x).shape)
    if new.np.itemsize < old.np.itemsize:
        if not shape:
            raise ShapeError(f"view: a 0-D {old.name} Tensor cannot be viewed as the narrower {new.name} (Paddle "
                             "needs a last dimension to grow); reshape it to [1] first")
        bits = ew.bitcast_convert_type(x, new_dtype=new)  # [..., n, k]
        return reshape(bits, shape[:-1] + [shape[-1] * (old.np.itemsize // new.np.itemsize)])
    if new.np.itemsize > old.np.itemsize:
        ratio = new.np.itemsize // old.np.itemsize
        if not shape or shape[-1] % ratio:
            raise ShapeError(f"view: viewing {old.name} as the {ratio} times wider {new.name} needs a last dimension "
                             f"that is a multiple of {ratio}, got shape {shape}")
        return ew.bitcast_convert_type(reshape(x, shape[:-1] + [shape[-1] // ratio, ratio]), new_dtype=new)
    return x if new == old else ew.bitcast_convert_type(x, new_dtype=new)


def view_as(x, other, name=None):
    """`x` reshaped to `other`'s shape.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.view_as(paddle.arange(6), paddle.ones([3, 2])).shape
        paddle.Size([3, 2])
    """
    return reshape(x, list(get_aval(operand(other)).shape))


def as_strided(x, shape, stride, offset=0, name=None):
    """The Tensor of `shape` whose element at index (i, j, ...) is element ``offset / itemsize + i * stride[0] +
    j * stride[1] + ...`` of `x` flattened (strides in elements, `offset` in bytes, as Paddle 3.3). The result is a
    gather from `x` (a new value, not a view of its storage); every position must fall inside `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(12, dtype='float32')
        >>> paddle.as_strided(x, [3, 2], [4, 1], offset=4).tolist()   # offset: 4 bytes, one float32
        [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    """
    x = operand(x)
    shape, stride = [int(d) for d in shape], [int(s) for s in stride]
    itemsize = get_aval(x).dtype.np.itemsize
    if len(shape) != len(stride) or int(offset) % itemsize:
        raise ShapeError(f"as_strided: shape {shape} and stride {stride} need one entry per dimension, and offset "
                         f"({offset} bytes) a multiple of the element size ({itemsize} bytes)")
    positions = np.full(shape, int(offset) // itemsize, np.int64)
    for axis, (size, step) in enumerate(zip(shape, stride)):
        positions = positions + (np.arange(size) * step).reshape([-1 if d == axis else 1 for d in builtins.range(len(shape))])
    if positions.size and (positions.min() < 0 or positions.max() >= get_aval(x).size):
        raise ShapeError(f"as_strided: shape {shape}, stride {stride} and offset {offset} reach element "
                         f"{int(positions.max())}, outside x's {get_aval(x).size} elements")
    return reshape(gather(reshape(x, [-1]), to_tensor(positions.reshape(-1)), axis=0), shape)


def masked_fill(x, mask, value, name=None):
    """`x` with the elements where the bool `mask` (broadcast to `x`) is True replaced by `value` (a number or a
    0-D Tensor).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, 1, 2], [3, 4, 5]])
        >>> paddle.masked_fill(x, x > 3, 9).tolist()
        [[0, 1, 2], [3, 9, 9]]
    """
    x, mask = operand(x), operand(mask)
    if get_aval(mask).dtype != dtypes.bool_:
        raise DTypeError(f"masked_fill: mask must be a bool Tensor, got {get_aval(mask).dtype.name}")
    value = cast(operand(value), get_aval(x).dtype)
    if get_aval(value).size != 1:
        raise ShapeError(f"masked_fill: value must be a number or a one-element Tensor, got shape "
                         f"{list(get_aval(value).shape)}")
    shape = list(get_aval(x).shape)
    return where(broadcast_to(mask, shape), broadcast_to(reshape(value, []), shape), x)


@accepts_out
def index_add(x, index, axis, value, alpha=1, name=None):
    """`x` with ``alpha * value`` added to its slices at `index` along `axis` (repeated indices add up); `value`
    has `x`'s shape with ``len(index)`` along `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> out = paddle.index_add(paddle.zeros([3, 2]), paddle.to_tensor([0, 0]), 0, paddle.ones([2, 2]), alpha=3)
        >>> out.tolist()
        [[6.0, 6.0], [0.0, 0.0], [0.0, 0.0]]
    """
    x, index, value = operand(x), operand(index), operand(value)
    rank = get_aval(x).ndim
    ax = normalize_axis("index_add", axis, rank)
    n = get_aval(index).size
    want = list(get_aval(x).shape)
    want[ax] = n
    if list(get_aval(value).shape) != want:
        raise ShapeError(f"index_add: value must have shape {want} (x's shape with len(index) = {n} along axis "
                         f"{ax}), got {list(get_aval(value).shape)}")
    scaled = cast(value if alpha == 1 else multiply(value, alpha), get_aval(x).dtype)
    moved = [ax] + [d for d in builtins.range(rank) if d != ax]
    back = [moved.index(d) for d in builtins.range(rank)]
    idx = reshape(index, [n])
    return transpose(transpose(x, moved).at[idx].add(transpose(scaled, moved)), back)


def reduce_as(x, target, name=None):
    """`x` summed down to `target`'s shape: the leading dimensions `x` has beyond it and the dimensions where
    `target` has 1 (the reverse of broadcasting `target` to `x`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.reduce_as(paddle.ones([2, 3, 4]), paddle.ones([3, 1])).tolist()
        [[8.0], [8.0], [8.0]]
    """
    x = operand(x)
    shape, goal = list(get_aval(x).shape), list(get_aval(operand(target)).shape)
    lead = len(shape) - len(goal)
    if lead < 0 or any(g not in (1, s) for g, s in zip(goal, shape[lead:])):
        raise ShapeError(f"reduce_as: target's shape {goal} does not broadcast to x's shape {shape}")
    axes = list(builtins.range(lead)) + [lead + i for i, (g, s) in enumerate(zip(goal, shape[lead:]))
                                         if g == 1 and s != 1]
    return reshape(sum_(x, axis=axes) if axes else x, goal)


@accepts_placement
@accepts_out
def range(start=0, end=None, step=1, dtype=None, name=None):  # noqa: A001 - Paddle's name
    """Values from `start` to `end` **inclusive**, spaced by `step` (``range(n)`` counts 0..n); float32 unless
    `dtype` is given. Paddle 3.3 keeps it as a deprecated form of ``arange``, which excludes `end`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.range(1, 4).tolist(), paddle.range(3).tolist()
        ([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0])
    """
    if end is None:
        start, end = 0, start
    start, end, step = (float(_concrete_number("range", v, what)) for v, what in ((start, "start"), (end, "end"),
                                                                                  (step, "step")))
    if step == 0:
        raise ValueError("range: step must not be 0")
    count = builtins.max(_math.floor((end - start) / step) + 1, 0)
    values = add(multiply(arange(0, count, dtype="float64"), step), start)
    return cast(values, dtypes.float32 if dtype is None else dtype)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A Tensor of `data` (as ``to_tensor``), in `dtype` if given, needing a gradient when `requires_grad`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.as_tensor([1, 2], dtype='float32', requires_grad=True)
        >>> x.dtype, x.stop_gradient
        (paddle.float32, False)
    """
    check_cpu("as_tensor", device)
    check_not_pinned("as_tensor", pin_memory)
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)
