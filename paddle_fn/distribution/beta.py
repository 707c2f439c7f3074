"""`Beta`: the beta distribution on (0, 1), a two-coordinate `Dirichlet`."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.dirichlet import Dirichlet
from paddle_fn.distribution.distribution import as_float_tensors, check, draw_key, sample_shape
from paddle_fn.distribution.exponential_family import ExponentialFamily


class Beta(ExponentialFamily):
    """The beta distribution with density ``x**(alpha-1) (1-x)**(beta-1) / B(alpha, beta)`` on (0, 1).

    `rsample` is differentiable in both parameters (implicit reparameterization, as ``jax.random.beta``).

    Args:
        alpha (float|Tensor): the first concentration, positive.
        beta (float|Tensor): the second concentration, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> b = paddle.distribution.Beta(alpha=0.5, beta=0.5)
        >>> b.mean.numpy(), b.variance.numpy(), b.entropy().numpy()
        (array(0.5, dtype=float32), array(0.125, dtype=float32), array(-0.24156451, dtype=float32))
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = as_float_tensors("Beta", ("alpha", "beta"), (alpha, beta))
        check("Beta", "alpha", self.alpha, lambda a: a > 0, "positive")
        check("Beta", "beta", self.beta, lambda b: b > 0, "positive")
        self.dtype = self.alpha.dtype
        self._dirichlet = Dirichlet(paddle.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet.batch_shape)

    @property
    def mean(self):
        """``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        """``alpha beta / ((alpha + beta)**2 (alpha + beta + 1))``."""
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1))

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples, as ``jax.random.beta``."""
        out = self._extend_shape(sample_shape("Beta.rsample", shape))
        return random.beta(draw_key(key), self.alpha, self.beta, out)

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.alpha)
        return self._dirichlet.log_prob(paddle.stack([value, 1.0 - value], -1))

    def entropy(self):
        """The entropy in closed form."""
        return self._dirichlet.entropy()

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Beta)."""
        sum_p, sum_q = self.alpha + self.beta, other.alpha + other.beta
        return (paddle.lgamma(other.alpha) + paddle.lgamma(other.beta) + paddle.lgamma(sum_p)
                - (paddle.lgamma(self.alpha) + paddle.lgamma(self.beta) + paddle.lgamma(sum_q))
                + (self.alpha - other.alpha) * paddle.digamma(self.alpha)
                + (self.beta - other.beta) * paddle.digamma(self.beta) + (sum_q - sum_p) * paddle.digamma(sum_p))

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return paddle.lgamma(x) + paddle.lgamma(y) - paddle.lgamma(x + y)

    @property
    def _mean_carrier_measure(self):
        # with natural parameters (alpha, beta) the carrier measure is 1 / (x (1 - x))
        total = paddle.digamma(self.alpha + self.beta)
        return -(paddle.digamma(self.alpha) - total) - (paddle.digamma(self.beta) - total)
