"""`paddle.nn.SpectralNorm`: a weight divided by its largest singular value, estimated by power iteration from
the vectors the layer keeps (`weight_u`, `weight_v`), as Paddle's spectral_norm op computes it."""
from __future__ import annotations

import math

import paddle_fn
from paddle_fn.nn_compat.initializer import Normal
from paddle_fn.base.param_attr import ParamAttr
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["SpectralNorm"]


class SpectralNorm(Layer):
    """``weight / sigma(weight)``: the weight, viewed as the matrix [weight_shape[dim], the product of the other
    dims], is divided by its spectral norm ``sigma = u^T W v``, where ``power_iters`` rounds of ``v = W^T u /
    (|W^T u| + eps)``, ``u = W v / (|W v| + eps)`` start from the parameters `weight_u` [h] and `weight_v` [w]
    (drawn from N(0, 1), not trained). As Paddle, the iteration starts from them at every call (they are not
    updated) and the gradient treats u and v as constants. The gradient is the true one, ``dout / sigma - u v^T
    sum(dout * weight) / sigma^2``; Paddle 3.3.1's kernel instead computes ``dout * (1 - u v^T sum(weight /
    sigma)) / sigma``, which is not the derivative of its forward.

    Args:
        weight_shape (list[int]): the shape of the weights this layer normalises.
        dim (int, optional): the axis that becomes the matrix's rows. Default: 0.
        power_iters (int, optional): power iterations per call. Default: 1.
        eps (float, optional): added to the norms. Default: 1e-12.
        dtype (str, optional): 'float32' or 'float64'. Default: 'float32'.

    Example:
        >>> import paddle_fn as paddle
        >>> sn = paddle.nn.SpectralNorm([3, 4], dim=0, power_iters=1)
        >>> sn.weight_u.set_value(paddle.to_tensor([1.0, 0.0, 0.0]))
        >>> sn.weight_v.set_value(paddle.to_tensor([1.0, 0.0, 0.0, 0.0]))
        >>> sn(paddle.arange(12, dtype='float32').reshape([3, 4])).numpy()[0]
        array([0.        , 0.05052605, 0.1010521 , 0.15157814], dtype=float32)
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._weight_shape = list(weight_shape)
        if not self._weight_shape or math.prod(self._weight_shape) <= 0:
            raise ValueError(f"SpectralNorm: weight_shape must have no zero dims, got {self._weight_shape}")
        if not 0 <= dim < len(self._weight_shape):
            raise ValueError(f"SpectralNorm: dim must be in [0, {len(self._weight_shape)}), got {dim}")
        if power_iters < 0:
            raise ValueError(f"SpectralNorm: power_iters must be non-negative, got {power_iters}")
        self._dim, self._power_iters, self._eps, self._dtype = dim, power_iters, eps, dtype
        h = self._weight_shape[dim]
        w = math.prod(self._weight_shape) // h
        self.weight_u = self.create_parameter([h], attr=ParamAttr(initializer=Normal(0.0, 1.0)), dtype=dtype)
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], attr=ParamAttr(initializer=Normal(0.0, 1.0)), dtype=dtype)
        self.weight_v.stop_gradient = True

    def forward(self, x):
        if list(x.shape) != self._weight_shape:
            raise ValueError(f"SpectralNorm: expected a weight of shape {self._weight_shape}, got {list(x.shape)}")
        perm = [self._dim] + [d for d in range(len(self._weight_shape)) if d != self._dim]
        matrix = paddle_fn.transpose(x, perm).reshape([self._weight_shape[self._dim], -1])
        constant = matrix.detach()
        u, v = self.weight_u.detach(), self.weight_v.detach()
        for _ in range(self._power_iters):
            v = paddle_fn.matmul(constant, u, transpose_x=True)
            v = v / (paddle_fn.sqrt(paddle_fn.sum(v * v)) + self._eps)
            u = paddle_fn.matmul(constant, v)
            u = u / (paddle_fn.sqrt(paddle_fn.sum(u * u)) + self._eps)
        sigma = paddle_fn.sum(u * paddle_fn.matmul(matrix, v))
        return x / sigma

    def extra_repr(self):
        return ""
