"""`Normal` and `TruncatedNormal` random values."""
from __future__ import annotations

import math

import numpy as np

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast, _draw_dtype

__all__ = ["Normal", "TruncatedNormal"]


class Normal(Initializer):
    """Fill with normal random numbers of mean `mean` and standard deviation `std` (global generator).

    Args:
        mean (float, optional): Default: 0.0.
        std (float, optional): Default: 1.0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> w = paddle.nn.Linear(200, 200, weight_attr=paddle.nn.initializer.Normal(1.0, 0.02)).weight.numpy()
        >>> round(float(w.mean()), 2), round(float(w.std()), 2)
        (1.0, 0.02)
    """

    def __init__(self, mean=0.0, std=1.0, name=None):
        if float(std) < 0:
            raise ValueError(f"Normal: std must be >= 0, got {std}")
        self._mean = float(mean)
        self._std = float(std)

    def _value(self, shape, dtype):
        z = paddle_fn.randn(list(shape), dtype=_draw_dtype(dtype))
        return _cast(z * self._std + self._mean, dtype)


class TruncatedNormal(Initializer):
    """Fill with normal random numbers of mean `mean` and std `std`, truncated to the interval [a, b]
    (inverse-CDF sampling, so every draw lies in [a, b]; global generator).

    Args:
        mean (float, optional): Default: 0.0.
        std (float, optional): Default: 1.0.
        a (float, optional): the minimum cutoff value. Default: -2.0.
        b (float, optional): the maximum cutoff value. Default: 2.0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(2)
        >>> init = paddle.nn.initializer.TruncatedNormal(mean=0.0, std=1.0, a=-1.0, b=1.0)
        >>> w = paddle.nn.Linear(100, 100, weight_attr=init).weight.numpy()
        >>> bool(w.min() >= -1.0 and w.max() <= 1.0), round(float(w.mean()), 1)
        (True, 0.0)
    """

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if float(std) <= 0:
            raise ValueError(f"TruncatedNormal: std must be > 0, got {std}")
        if float(a) >= float(b):
            raise ValueError(f"TruncatedNormal: a must be less than b, got a={a}, b={b}")
        self._mean, self._std, self._a, self._b = float(mean), float(std), float(a), float(b)

    def _value(self, shape, dtype):
        dt = _draw_dtype(dtype)
        lo = math.erf((self._a - self._mean) / (self._std * math.sqrt(2.0)))
        hi = math.erf((self._b - self._mean) / (self._std * math.sqrt(2.0)))
        u = paddle_fn.uniform(list(shape), dtype=dt, min=lo, max=hi) if hi > lo else paddle_fn.full(
            list(shape), lo, dtype=dt)
        edge = float(np.nextafter(np.array(1.0, dt.np), np.array(0.0, dt.np)))
        u = paddle_fn.clip(u, -edge, edge)  # keep erfinv finite
        x = paddle_fn.erfinv(u) * (self._std * math.sqrt(2.0)) + self._mean
        return _cast(paddle_fn.clip(x, self._a, self._b), dtype)
