"""`XavierNormal` and `XavierUniform` (Glorot) initializers."""
from __future__ import annotations

import math

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast, _draw_dtype

__all__ = ["XavierNormal", "XavierUniform"]


class _Xavier(Initializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self._fan_in = fan_in
        self._fan_out = fan_out
        self._gain = float(gain)

    def _fans(self, shape):
        f_in, f_out = self._compute_fans(shape)
        f_in = f_in if self._fan_in is None else self._fan_in
        f_out = f_out if self._fan_out is None else self._fan_out
        if f_in + f_out <= 0:
            raise ValueError(f"{type(self).__name__}: fan_in + fan_out must be positive, got {f_in} + {f_out} "
                             f"for shape {list(shape)}")
        return f_in, f_out


class XavierNormal(_Xavier):
    """Normal values with mean 0 and std ``gain * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio).

    The fans come from the parameter's shape: a Linear weight [in, out] has fan_in=in, fan_out=out; a conv
    weight [out, in/groups, *k] has fan_in = in/groups * prod(k) and fan_out = out * prod(k).

    Args:
        fan_in (float, optional): override the inferred fan_in. Default: None.
        fan_out (float, optional): override the inferred fan_out. Default: None.
        gain (float, optional): scale factor. Default: 1.0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(3)
        >>> w = paddle.nn.Linear(300, 500, weight_attr=paddle.nn.initializer.XavierNormal()).weight.numpy()
        >>> round(float(w.std()), 3), round((2 / (300 + 500)) ** 0.5, 3)
        (0.05, 0.05)
    """

    def _value(self, shape, dtype):
        f_in, f_out = self._fans(shape)
        std = self._gain * math.sqrt(2.0 / float(f_in + f_out))
        return _cast(paddle_fn.randn(list(shape), dtype=_draw_dtype(dtype)) * std, dtype)


class XavierUniform(_Xavier):
    """Uniform values in [-x, x] with ``x = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio). This is
    Paddle's default for weights (Linear, Conv, create_parameter).

    Args:
        fan_in (float, optional): override the inferred fan_in. Default: None.
        fan_out (float, optional): override the inferred fan_out. Default: None.
        gain (float, optional): scale factor. Default: 1.0.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Linear(4, 2, weight_attr=paddle.nn.initializer.XavierUniform()).weight.numpy()
        >>> bool(abs(w).max() <= (6 / (4 + 2)) ** 0.5)
        True
    """

    def _value(self, shape, dtype):
        f_in, f_out = self._fans(shape)
        limit = self._gain * math.sqrt(6.0 / float(f_in + f_out))
        return _cast(paddle_fn.uniform(list(shape), dtype=_draw_dtype(dtype), min=-limit, max=limit), dtype)
