"""`Bilinear`: bilinear-interpolation kernels for upsampling with a transposed convolution."""
from __future__ import annotations

import numpy as np

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast

__all__ = ["Bilinear"]


class Bilinear(Initializer):
    """Fill a ``[C_out, C_in, K, K]`` transposed-convolution weight with a bilinear interpolation kernel, so
    ``conv2d_transpose`` with stride ``f = ceil(K / 2)`` upsamples by the factor ``f``.

    With ``c = (2f - 1 - f % 2) / (2f)``, element ``i`` of the flattened weight is
    ``(1 - |x / f - c|) * (1 - |y / f - c|)`` where ``x = i % K`` and ``y = (i / K) % K`` (Paddle's formula,
    including its true division for ``y``).

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter([1, 1, 4, 4], 'float32')
        >>> paddle.nn.initializer.Bilinear()(w).numpy()[0, 0]
        array([[ 0.0625 ,  0.28125,  0.375  ,  0.15625],
               [ 0.1875 ,  0.65625,  0.75   ,  0.21875],
               [ 0.1875 ,  0.46875,  0.375  ,  0.09375],
               [ 0.0625 ,  0.09375,  0.     , -0.03125]], dtype=float32)
    """

    def _value(self, shape, dtype):
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the length of shape must be 4, got shape {list(shape)}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] must be equal to shape[3], got shape {list(shape)}")
        if not dtype.is_floating_point:
            raise TypeError(f"Bilinear: the parameter must be a floating-point type, got {dtype.name}")
        size = shape[3]
        f = np.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        x, y = i % size, (i / size) % size
        w = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32).reshape(shape)
        return _cast(paddle_fn.to_tensor(w), dtype)
