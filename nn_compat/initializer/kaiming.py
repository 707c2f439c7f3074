"""`KaimingNormal` and `KaimingUniform` (He / MSRA) initializers."""
from __future__ import annotations

import math

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast, _draw_dtype, calculate_gain

__all__ = ["KaimingNormal", "KaimingUniform"]


class _Kaiming(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{type(self).__name__}: mode must be 'fan_in' or 'fan_out', got {mode!r}")
        self._fan_in = fan_in
        self._negative_slope = negative_slope
        self._nonlinearity = nonlinearity
        self._mode = mode
        calculate_gain(nonlinearity, negative_slope)  # validate now, not at first use

    def _scale(self, shape):
        f_in, f_out = self._compute_fans(shape)
        if self._mode == "fan_in":
            fan = f_in if self._fan_in is None else self._fan_in
        else:
            fan = f_out
        if fan <= 0:
            raise ValueError(f"{type(self).__name__}: the fan must be positive, got {fan} for shape {list(shape)}")
        return calculate_gain(self._nonlinearity, self._negative_slope), float(fan)


class KaimingNormal(_Kaiming):
    """Normal values with mean 0 and std ``gain / sqrt(fan)`` (He et al.), ``gain = calculate_gain(nonlinearity,
    negative_slope)``; fan is the weight's fan_in (a Linear weight [in, out]: in; a conv weight
    [out, in/groups, *k]: in/groups * prod(k)) or, with mode='fan_out', its fan_out.

    Args:
        fan_in (float, optional): override the inferred fan_in. Default: None.
        negative_slope (float, optional): the slope for 'leaky_relu'. Default: 0.0.
        nonlinearity (str, optional): the activation after this layer. Default: 'relu'.
        mode (str, optional): 'fan_in' or 'fan_out'. Default: 'fan_in'.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(4)
        >>> w = paddle.nn.Linear(500, 300, weight_attr=paddle.nn.initializer.KaimingNormal()).weight.numpy()
        >>> round(float(w.std()), 3), round((2 / 500) ** 0.5, 3)
        (0.063, 0.063)
    """

    def _value(self, shape, dtype):
        gain, fan = self._scale(shape)
        return _cast(paddle_fn.randn(list(shape), dtype=_draw_dtype(dtype)) * (gain / math.sqrt(fan)), dtype)


class KaimingUniform(_Kaiming):
    """Uniform values in [-x, x] with ``x = gain * sqrt(3 / fan)`` (He et al.); arguments as `KaimingNormal`.

    Args:
        fan_in (float, optional): override the inferred fan_in. Default: None.
        negative_slope (float, optional): the slope for 'leaky_relu'. Default: 0.0.
        nonlinearity (str, optional): the activation after this layer. Default: 'relu'.
        mode (str, optional): 'fan_in' or 'fan_out'. Default: 'fan_in'.

    Example:
        >>> import paddle_fn as paddle
        >>> init = paddle.nn.initializer.KaimingUniform(nonlinearity='leaky_relu', negative_slope=0.1)
        >>> w = paddle.nn.Linear(6, 3, weight_attr=init).weight.numpy()
        >>> bool(abs(w).max() <= (2 / 1.01) ** 0.5 * (3 / 6) ** 0.5)
        True
    """

    def _value(self, shape, dtype):
        gain, fan = self._scale(shape)
        limit = gain * math.sqrt(3.0 / fan)
        return _cast(paddle_fn.uniform(list(shape), dtype=_draw_dtype(dtype), min=-limit, max=limit), dtype)
