"""`Constant`: every element the same value."""
from __future__ import annotations

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer

__all__ = ["Constant"]


class Constant(Initializer):
    """Fill with one value (Paddle's default for biases is ``Constant(0.0)``).

    Args:
        value (float|int|bool, optional): the value. Default: 0.0.

    Example:
        >>> import paddle_fn as paddle
        >>> fc = paddle.nn.Linear(2, 3, weight_attr=paddle.nn.initializer.Constant(0.5))
        >>> fc.weight.numpy().tolist()
        [[0.5, 0.5, 0.5], [0.5, 0.5, 0.5]]
    """

    def __init__(self, value=0.0, name=None):
        if not isinstance(value, (int, float, bool)):
            raise TypeError(f"Constant: value must be a Python number, got {value!r}")
        self._value_ = value

    @property
    def value(self):
        return self._value_

    def _value(self, shape, dtype):
        return paddle_fn.full(list(shape), self._value_, dtype=dtype)

    def __repr__(self):
        return f"Constant(value={self._value_!r})"
