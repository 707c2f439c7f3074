"""`MultivariateNormal`: the Gaussian over vectors, given by a covariance, a precision or a Cholesky factor."""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, draw_key, sample_shape


def _swap_last(x):
    return x.transpose(list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _half_log_det(scale_tril):
    return paddle.log(paddle.diagonal(scale_tril, axis1=-2, axis2=-1)).sum(-1)


def _mahalanobis(scale_tril, diff):
    """``|L^-1 diff|**2`` per vector of `diff` (batch shapes broadcast)."""
    shape = paddle.broadcast_shape(scale_tril.shape[:-2], diff.shape[:-1])
    lower = paddle.broadcast_to(scale_tril, list(shape) + list(scale_tril.shape[-2:]))
    rhs = paddle.broadcast_to(diff, list(shape) + [diff.shape[-1]]).unsqueeze(-1)
    solved = paddle.linalg.triangular_solve(lower, rhs, upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution ``N(loc, Sigma)``; give exactly one of `covariance_matrix`,
    `precision_matrix` or `scale_tril` (the lower Cholesky factor of Sigma).

    Args:
        loc (float|Tensor): the mean vector(s), the last axis is the event.
        covariance_matrix (Tensor, optional): Sigma, symmetric positive definite.
        precision_matrix (Tensor, optional): Sigma's inverse.
        scale_tril (Tensor, optional): the lower-triangular L with ``Sigma = L L^T``.

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.MultivariateNormal(
        ...     loc=paddle.to_tensor([2.0, 5.0]), covariance_matrix=paddle.to_tensor([[2.0, 1.0], [1.0, 2.0]]))
        >>> rv.variance.numpy(), rv.entropy().numpy()
        (array([1.9999999, 2.       ], dtype=float32), array(3.3871832, dtype=float32))
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("MultivariateNormal: give exactly one of covariance_matrix, precision_matrix or "
                             "scale_tril")
        if isinstance(loc, (int, float)) and not isinstance(loc, bool):
            loc = [float(loc)]
        (loc,) = as_float_tensors("MultivariateNormal", ("loc",), (loc,))
        if loc.ndim < 1:
            loc = loc.reshape([1])
        self.dtype = loc.dtype
        name, matrix = next((n, m) for n, m in zip(("covariance_matrix", "precision_matrix", "scale_tril"),
                                                   (covariance_matrix, precision_matrix, scale_tril)) if m is not None)
        if not isinstance(matrix, paddle.Tensor) or matrix.ndim < 2 or matrix.shape[-1] != matrix.shape[-2]:
            raise ValueError(f"MultivariateNormal: {name} must be a Tensor of square matrices (shape [..., n, n]), "
                             f"got {getattr(matrix, 'shape', type(matrix).__name__)}")
        if matrix.shape[-1] != loc.shape[-1]:
            raise ValueError(f"MultivariateNormal: {name} is {matrix.shape[-2]}x{matrix.shape[-1]} but loc has "
                             f"{loc.shape[-1]} entries in its last axis")
        matrix = matrix.astype(self.dtype)
        batch_shape = tuple(paddle.broadcast_shape(matrix.shape[:-2], loc.shape[:-1]))
        n = loc.shape[-1]
        self.covariance_matrix = None
        self.precision_matrix = None
        self.scale_tril = None
        full = list(batch_shape) + [n, n]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = matrix
            self.scale_tril = paddle.broadcast_to(matrix, full)
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = paddle.linalg.cholesky(matrix)
            self.covariance_matrix = paddle.broadcast_to(matrix, full)
        else:
            # the lower factor of the precision's inverse, from the Cholesky factor of the flipped precision
            flipped = paddle.linalg.cholesky(paddle.flip(matrix, [-2, -1]))
            inverse_factor = _swap_last(paddle.flip(flipped, [-2, -1]))
            eye = paddle.broadcast_to(paddle.eye(n, dtype=self.dtype), list(matrix.shape))
            self._unbroadcasted_scale_tril = paddle.linalg.triangular_solve(inverse_factor, eye, upper=False)
            self.precision_matrix = paddle.broadcast_to(matrix, full)
        self.loc = paddle.broadcast_to(loc, list(batch_shape) + [n])
        super().__init__(batch_shape, (n,))

    @property
    def mean(self):
        """`loc`."""
        return self.loc

    @property
    def variance(self):
        """The diagonal of the covariance."""
        diag = paddle.square(self._unbroadcasted_scale_tril).sum(-1)
        return paddle.broadcast_to(diag, list(self.batch_shape + self.event_shape))

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples ``loc + L eps``."""
        out = self._extend_shape(sample_shape("MultivariateNormal.rsample", shape))
        eps = random.normal(draw_key(key), out, self.dtype)
        return self.loc + paddle.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.loc)
        m = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        n = self.event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - _half_log_det(self._unbroadcasted_scale_tril)

    def entropy(self):
        """``n/2 (1 + log(2 pi)) + log|L|``."""
        h = 0.5 * self.event_shape[0] * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return paddle.broadcast_to(h, list(self.batch_shape)) if self.batch_shape else h

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both MultivariateNormal)."""
        if self.event_shape != other.event_shape:
            raise ValueError(f"MultivariateNormal.kl_divergence: event shapes differ ({list(self.event_shape)} and "
                             f"{list(other.event_shape)})")
        l1, l2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        cov1, cov2 = paddle.matmul(l1, _swap_last(l1)), paddle.matmul(l2, _swap_last(l2))
        trace = paddle.diagonal(paddle.linalg.solve(cov2, cov1), axis1=-2, axis2=-1).sum(-1)
        m = _mahalanobis(l2, self.loc - other.loc)
        return _half_log_det(l2) - _half_log_det(l1) + 0.5 * (trace + m - self.event_shape[0])
