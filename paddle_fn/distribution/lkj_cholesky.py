"""`LKJCholesky`: the LKJ distribution over Cholesky factors of correlation matrices."""
from __future__ import annotations

import math

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.beta import Beta
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape

F = paddle.nn.functional


def _mvlgamma(a, p):
    """The multivariate log-gamma function of dimension `p`."""
    j = paddle.arange(1, p + 1, dtype=a.dtype)
    return p * (p - 1) / 4 * math.log(math.pi) + paddle.lgamma(a.unsqueeze(-1) + (1 - j) / 2).sum(-1)


class LKJCholesky(Distribution):
    """The LKJ distribution over lower Cholesky factors L of ``dim x dim`` correlation matrices ``L L^T``, with
    density proportional to ``det(L L^T) ** (concentration - 1)``.

    Args:
        dim (int): the matrix size, at least 2.
        concentration (float|Tensor): positive; 1 is uniform over correlation matrices.
        sample_method (str): ``'onion'`` or ``'cvine'``, the two samplers of Lewandowski, Kurowicka and Joe (2009).

    Example:
        >>> import paddle_fn as paddle
        >>> lkj = paddle.distribution.LKJCholesky(dim=3)
        >>> L = lkj.sample(key=paddle.random.key(0))
        >>> L.shape, paddle.allclose((L @ L.T).diagonal(), paddle.ones([3])).item()
        (paddle.Size([3, 3]), True)
    """

    def __init__(self, dim=2, concentration=1.0, sample_method="onion"):
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"LKJCholesky: dim must be an int, got {dim!r}")
        if dim < 2:
            raise ValueError(f"LKJCholesky: dim must be at least 2, got {dim}")
        if sample_method not in ("onion", "cvine"):
            raise ValueError(f"LKJCholesky: sample_method must be 'onion' or 'cvine', got {sample_method!r}")
        (self.concentration,) = as_float_tensors("LKJCholesky", ("concentration",), (concentration,))
        check("LKJCholesky", "concentration", self.concentration, lambda c: c > 0, "positive")
        self.dtype = self.concentration.dtype
        self.dim = dim
        self.sample_method = sample_method
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = paddle.arange(dim - 1, dtype=self.dtype)
        if sample_method == "onion":
            offset = paddle.concat([paddle.zeros([1], dtype=self.dtype), offset])
            self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        else:
            # one Beta per strictly-lower entry (i, j), row by row, concentration marginal - j / 2
            cols = np.concatenate([np.arange(i) for i in range(1, dim)]).astype(self.dtype.np)
            conc = marginal.unsqueeze(-1) - 0.5 * paddle.to_tensor(cols)
            self._beta = Beta(conc, conc)
        super().__init__(self.concentration.shape, (dim, dim))

    def _onion(self, shape, key):
        beta_key, normal_key = random.split(key)
        y = self._beta.sample(shape, key=beta_key).unsqueeze(-1)
        u = paddle.tril(random.normal(normal_key, self._extend_shape(shape), self.dtype), -1)
        norms = paddle.linalg.norm(u, axis=-1, keepdim=True)
        u = u / paddle.where(norms == 0, paddle.ones_like(norms), norms)  # the first row is zero: keep it so
        w = paddle.sqrt(y) * u
        diag = paddle.sqrt(paddle.clip(1 - paddle.sum(w ** 2, axis=-1), min=float(np.finfo(self.dtype.np).tiny)))
        return w + paddle.diag_embed(diag)

    def _cvine(self, shape, key):
        partial = 2 * self._beta.sample(shape, key=key) - 1  # shape + batch + (dim (dim - 1) / 2,)
        rows, cols = np.tril_indices(self.dim, -1)
        flat = np.zeros((self.dim * self.dim, rows.size), self.dtype.np)
        flat[rows * self.dim + cols, np.arange(rows.size)] = 1
        r = paddle.matmul(partial, paddle.to_tensor(flat.T)).reshape(list(partial.shape[:-1]) + [self.dim, self.dim])
        tiny = float(np.finfo(self.dtype.np).tiny)
        r = paddle.clip(r, -1 + tiny, 1 - tiny)
        remaining = paddle.cumprod(paddle.sqrt(1 - r ** 2), dim=-1)
        ones = paddle.ones(list(remaining.shape[:-1]) + [1], dtype=self.dtype)
        shifted = paddle.concat([ones, remaining[..., :-1]], -1)
        return (r + paddle.eye(self.dim, dtype=self.dtype)) * shifted

    def sample(self, shape=(), *, key=None):
        """Cholesky factors of shape ``shape + batch_shape + (dim, dim)``."""
        shape = sample_shape("LKJCholesky.sample", shape)
        key = draw_key(key)
        draw = self._onion(shape, key) if self.sample_method == "onion" else self._cvine(shape, key)
        return draw.reshape(list(self._extend_shape(shape))).detach()

    def log_prob(self, value):
        """The log density of the Cholesky factor `value`."""
        value = self._value(value, self.concentration)
        diag = paddle.diagonal(value, offset=0, axis1=-1, axis2=-2)[..., 1:]
        order = paddle.arange(2, self.dim + 1, dtype=self.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = paddle.sum(order * paddle.log(diag), axis=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + _mvlgamma(alpha - 0.5, dm1) - paddle.lgamma(alpha) * dm1
        return unnormalized - normalizer
