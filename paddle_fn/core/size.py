"""``paddle.Size``: the type of ``Tensor.shape``, a ``list`` of ints as in Paddle 3.3 that prints as
``paddle.Size([2, 3])``, equals a list or a tuple of the same sizes, and stays a Size when sliced, added or repeated."""
from __future__ import annotations

import math
import operator


class Size(list):
    """The sizes of a Tensor's dimensions (what ``Tensor.shape`` returns): a ``list`` subclass, so indexing,
    slicing, ``len``, ``+`` and comparison with a list or a tuple work as on a list.

    Args:
        iterable: an iterable of ints (a list, a tuple, a 1-D integer Tensor), positional only; empty for a 0-D
            shape.

    Examples:
        >>> import paddle_fn as paddle
        >>> size = paddle.Size([2, 3, 4])
        >>> print(size)
        paddle.Size([2, 3, 4])
        >>> paddle.ones([2, 3]).shape
        paddle.Size([2, 3])
        >>> paddle.ones([2, 3]).shape == (2, 3), size[1:], size.numel()
        (True, paddle.Size([3, 4]), 24)
    """

    def __init__(self, iterable=(), /):
        items = list(iterable)
        for position, item in enumerate(items):
            try:
                items[position] = operator.index(item)
            except TypeError:
                raise TypeError(f"paddle.Size() takes an iterable of 'int' (item {position} is "
                                f"'{type(item).__name__}')") from None
        super().__init__(items)

    def __repr__(self):
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, tuple):
            return list(self) == list(other)
        return list.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None  # a list: mutable, unhashable

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        return Size(list(self) + list(other))

    def __radd__(self, other):
        return Size(list(other) + list(self))

    def __mul__(self, times):
        return Size(list.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self):
        return Size, (tuple(self),)

    def numel(self) -> int:
        """The number of elements of a Tensor of this shape (1 for a 0-D shape)."""
        return math.prod(self)
