"""`Uniform`: uniform random values in [low, high)."""
from __future__ import annotations

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast, _draw_dtype

__all__ = ["Uniform"]


class Uniform(Initializer):
    """Fill with uniform random numbers in [low, high), drawn from the global generator (``paddle.seed``).

    Args:
        low (float, optional): the lower bound. Default: -1.0.
        high (float, optional): the upper bound. Default: 1.0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> w = paddle.nn.Linear(100, 100, weight_attr=paddle.nn.initializer.Uniform(-0.5, 0.5)).weight.numpy()
        >>> bool(w.min() >= -0.5 and w.max() < 0.5), round(float(w.mean()), 1)
        (True, 0.0)
    """

    def __init__(self, low=-1.0, high=1.0, name=None):
        if float(low) >= float(high):
            raise ValueError(f"Uniform: low must be less than high, got low={low}, high={high}")
        self._low = float(low)
        self._high = float(high)

    def _value(self, shape, dtype):
        x = paddle_fn.uniform(list(shape), dtype=_draw_dtype(dtype), min=self._low, max=self._high)
        return _cast(x, dtype)
