"""`Orthogonal`: a (semi-)orthogonal matrix."""
from __future__ import annotations

import numpy as np

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast

__all__ = ["Orthogonal"]


class Orthogonal(Initializer):
    """A random (semi-)orthogonal matrix times `gain` (Saxe et al.). The parameter is viewed as a matrix with
    ``rows = shape[0]`` and ``cols = prod(shape[1:])``: if rows <= cols its rows are orthonormal, otherwise its
    columns are. It is the Q factor of the QR decomposition of a normal random matrix, with signs fixed so it
    is uniformly distributed.

    Args:
        gain (float, optional): scale factor. Default: 1.0.

    Example:
        >>> import paddle_fn as paddle
        >>> import numpy as np
        >>> w = paddle.nn.Linear(3, 5, weight_attr=paddle.nn.initializer.Orthogonal()).weight.numpy()
        >>> np.allclose(w @ w.T, np.eye(3), atol=1e-5)
        True
    """

    def __init__(self, gain=1.0, name=None):
        self._gain = float(gain)

    def _value(self, shape, dtype):
        shape = list(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: only parameters with 2 or more dimensions can be initialized, got shape "
                             f"{shape}")
        rows, cols = shape[0], int(np.prod(shape[1:]))
        big, small = max(rows, cols), min(rows, cols)
        z = paddle_fn.randn([big, small], dtype="float64")
        q, r = paddle_fn.linalg.qr(z)
        d = paddle_fn.sign(paddle_fn.diagonal(r))
        d = paddle_fn.where(d == 0, paddle_fn.ones_like(d), d)
        q = q * d  # column j times sign(r_jj): the distribution becomes uniform (Haar)
        if rows < cols:
            q = paddle_fn.t(q)
        return _cast(paddle_fn.reshape(q * self._gain, shape), dtype)
