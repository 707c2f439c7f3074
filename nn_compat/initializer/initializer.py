"""The `Initializer` base class, fan computation, `calculate_gain` and the global initializers."""
from __future__ import annotations

import math

import numpy as np

import paddle_fn
from paddle_fn import Tensor

__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]


class Initializer:
    """Base class of ``paddle.nn.initializer``: ``init(param)`` fills a parameter in place (rebinds it), and
    layers use initializers through ``ParamAttr(initializer=...)``.

    Random initializers draw from the global generator, so ``paddle.seed(n)`` makes initialization
    reproducible.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter([2, 2], 'float32')
        >>> paddle.nn.initializer.Constant(3.0)(w).numpy()
        array([[3., 3.],
               [3., 3.]], dtype=float32)
    """

    def __call__(self, param, block=None):
        return self.forward(param, block)

    def forward(self, param, block=None):
        """Fill `param` (a Parameter or Tensor) with this initializer's values, in place; returns it."""
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: expected a Parameter or Tensor to initialize, got "
                            f"{type(param).__name__}")
        param.set_value(self._value(list(param.shape), param.dtype))
        return param

    def _value(self, shape, dtype) -> Tensor:
        """The initial value for a parameter of `shape` and `dtype` (a paddle_fn DType)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _value(shape, dtype)")

    def _compute_fans(self, var):
        """(fan_in, fan_out) as Paddle computes them for a Tensor or a shape: [] -> (1, 1); [n] -> (n, n);
        a Linear weight [in, out] -> (in, out); a conv weight [out, in/groups, *k] ->
        (in/groups * prod(k), out * prod(k))."""
        shape = list(var.shape) if isinstance(var, Tensor) else list(var)
        if len(shape) == 0:
            return 1, 1
        if len(shape) == 1:
            return shape[0], shape[0]
        if len(shape) == 2:
            return shape[0], shape[1]
        receptive = int(np.prod(shape[2:]))
        return shape[1] * receptive, shape[0] * receptive

    def __repr__(self):
        fields = ", ".join(f"{k.lstrip('_')}={v!r}" for k, v in vars(self).items() if not k.startswith("__"))
        return f"{type(self).__name__}({fields})"


def _draw_dtype(dtype: paddle_fn.DType) -> paddle_fn.DType:
    """Draw random numbers in float32 for half-precision parameters (then cast), else in the parameter's dtype."""
    if dtype.name in ("float16", "bfloat16") or not dtype.is_floating_point:
        return paddle_fn.float32
    return dtype


def _cast(x, dtype: paddle_fn.DType):
    return x if x.dtype == dtype else x.astype(dtype)


# Paddle returns the int 1 for the linear-like activations
_GAINS = {"sigmoid": 1, "linear": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1, "conv1d_transpose": 1,
          "conv_transpose1d": 1, "conv2d_transpose": 1, "conv_transpose2d": 1, "conv3d_transpose": 1,
          "conv_transpose3d": 1, "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for an activation, used by Xavier / Kaiming / Orthogonal initializers.

    Args:
        nonlinearity (str): 'sigmoid', 'linear', 'conv1d', 'conv2d', 'conv3d', 'conv1d_transpose',
            'conv2d_transpose', 'conv3d_transpose' (or 'conv_transpose1d', ...) (gain 1), 'tanh' (5/3), 'relu' (sqrt(2)),
            'leaky_relu' (sqrt(2 / (1 + param**2))) or 'selu' (3/4).
        param (float, optional): the negative slope of 'leaky_relu'. Default: 0.01.

    Example:
        >>> import paddle_fn as paddle
        >>> round(paddle.nn.initializer.calculate_gain('tanh'), 6), round(
        ...     paddle.nn.initializer.calculate_gain('leaky_relu', 1.0), 6)
        (1.666667, 1.0)
    """
    if param is None:
        param = 0.01
    elif not isinstance(param, (bool, int, float)):
        raise TypeError(f"calculate_gain: param must be a number (the negative slope of leaky_relu), got {param!r}")
    if not isinstance(nonlinearity, str):
        raise TypeError(f"calculate_gain: nonlinearity must be a str, got {nonlinearity!r}")
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1.0 + float(param) ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: nonlinearity function {nonlinearity!r} is not supported; use one of "
                         f"{sorted(list(_GAINS) + ['leaky_relu'])}")
    return _GAINS[nonlinearity]


_GLOBAL = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    """Set the initializers every parameter created afterwards uses when its ParamAttr names none
    (``set_global_initializer(None)`` restores the defaults). A ParamAttr's initializer still wins.

    Args:
        weight_init (Initializer|None): for weights (parameters created with is_bias=False).
        bias_init (Initializer|None, optional): for biases. Default: None (the layer's default).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.initializer.set_global_initializer(paddle.nn.initializer.Constant(0.5),
        ...                                              paddle.nn.initializer.Constant(-1.0))
        >>> fc = paddle.nn.Linear(2, 2)
        >>> fc.weight.numpy().tolist(), fc.bias.numpy().tolist()
        ([[0.5, 0.5], [0.5, 0.5]], [-1.0, -1.0])
        >>> paddle.nn.initializer.set_global_initializer(None)
    """
    for what, init in (("weight_init", weight_init), ("bias_init", bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise TypeError(f"set_global_initializer: {what} must be a paddle.nn.initializer instance or None, "
                            f"got {init!r}")
    _GLOBAL["weight"] = weight_init
    _GLOBAL["bias"] = bias_init


def _global_weight_initializer():
    return _GLOBAL["weight"]


def _global_bias_initializer():
    return _GLOBAL["bias"]
