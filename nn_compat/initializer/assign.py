"""`Assign`: a given value (numpy array, list or Tensor)."""
from __future__ import annotations

import numpy as np

import paddle_fn
from paddle_fn import Tensor
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast

__all__ = ["Assign"]


class Assign(Initializer):
    """Initialize with a given value, e.g. pretrained embeddings (cast to the parameter's dtype; the shape must
    match the parameter's).

    Args:
        value (Tensor|numpy.ndarray|list|tuple|float): the value.

    Example:
        >>> import paddle_fn as paddle
        >>> import numpy as np
        >>> fc = paddle.nn.Linear(2, 2, weight_attr=paddle.nn.initializer.Assign(np.array([[1, 2], [3, 4]])))
        >>> fc.weight.numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """

    def __init__(self, value, name=None):
        if isinstance(value, Tensor):
            self._array = np.asarray(value.numpy())
        elif isinstance(value, (np.ndarray, list, tuple, int, float, bool, np.number)):
            self._array = np.asarray(value)
        else:
            raise TypeError(f"Assign: value must be a Tensor, numpy array, list or tuple, got {type(value).__name__}")

    def _value(self, shape, dtype):
        if list(self._array.shape) != list(shape):
            raise ValueError(f"Assign: the value has shape {list(self._array.shape)} but the parameter has shape "
                             f"{list(shape)}")
        return _cast(paddle_fn.to_tensor(self._array), dtype)

    def __repr__(self):
        return f"Assign(value=<array of shape {list(self._array.shape)}, dtype {self._array.dtype}>)"
