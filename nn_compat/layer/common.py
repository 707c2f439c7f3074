"""Common layers: `Linear` (Embedding, Dropout, Flatten, ... are added here as Paddle keeps them)."""
from __future__ import annotations

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["Linear"]


class Linear(Layer):
    """A fully connected layer, ``out = x @ weight + bias``, with Paddle's weight layout ``[in_features,
    out_features]``. The input has shape ``[batch_size, *, in_features]``, the output
    ``[batch_size, *, out_features]``.

    The weight is initialized with XavierUniform and the bias with zeros unless `weight_attr` / `bias_attr`
    say otherwise (or `paddle.nn.initializer.set_global_initializer` was called). The dtype is the default
    dtype (``paddle.set_default_dtype``).

    Args:
        in_features (int): the number of input units.
        out_features (int): the number of output units.
        weight_attr (ParamAttr, optional): the weight's attributes (name, initializer, learning rate, ...).
        bias_attr (ParamAttr|bool, optional): the bias's attributes; False: no bias.
        name (str, optional): accepted for compatibility (shown in the repr).

    Attributes: ``weight`` (Parameter ``[in_features, out_features]``), ``bias`` (Parameter ``[out_features]``
    or None).

    Example:
        >>> import paddle_fn as paddle
        >>> fc = paddle.nn.Linear(2, 4, weight_attr=paddle.nn.initializer.Constant(0.5),
        ...                       bias_attr=paddle.nn.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0)))
        >>> fc(paddle.to_tensor([[1.0, 2.0]])).numpy()
        array([[2.5, 2.5, 2.5, 2.5]], dtype=float32)
        >>> fc
        Linear(in_features=2, out_features=4, dtype=float32)
        >>> paddle.nn.Linear(2, 4, bias_attr=False).bias is None
        True
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        for what, n in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(n, bool) or not isinstance(n, int):
                raise TypeError(f"Linear: {what} must be an int, got {type(n).__name__} {n!r}")
            if n < 0:
                raise ValueError(f"Linear: {what} must be >= 0, got {n}")
        self._dtype = paddle_fn.get_default_dtype()
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr, dtype=self._dtype,
                                            is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, dtype={self._dtype}{name}"
