"""`ContinuousBernoulli`: the continuous relaxation of the Bernoulli distribution on [0, 1]."""
from __future__ import annotations

import math

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class ContinuousBernoulli(Distribution):
    """The continuous Bernoulli distribution with density ``C(p) p**x (1 - p)**(1 - x)`` on [0, 1].

    Near ``p = 0.5`` (inside `lims`) the normalizer and moments use their Taylor expansions, which are exact to
    float precision there, instead of the closed forms that divide by ``1 - 2p``.

    Args:
        probs (float|Tensor): the parameter p, in [0, 1] (clipped to [eps, 1 - eps]).
        lims (tuple[float]): the interval around 0.5 where the Taylor expansions are used.

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.ContinuousBernoulli(paddle.to_tensor([0.2, 0.5]))
        >>> rv.mean.numpy(), rv.cdf(paddle.to_tensor(0.1)).numpy()
        (array([0.3880142, 0.5      ], dtype=float32), array([0.17259926, 0.1       ], dtype=float32))
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        if isinstance(probs, (int, float)) and not isinstance(probs, bool):
            probs = [float(probs)]  # Paddle makes a Python number a [1]-shaped parameter
        (probs,) = as_float_tensors("ContinuousBernoulli", ("probs",), (probs,))
        check("ContinuousBernoulli", "probs", probs, lambda p: (p >= 0) & (p <= 1), "in [0, 1]")
        self.dtype = probs.dtype
        eps = float(np.finfo(self.dtype.np).eps)
        self.probs = paddle.clip(probs, eps, 1 - eps)
        self.lims = paddle.to_tensor(list(lims), dtype=self.dtype)
        super().__init__(self.probs.shape)

    def _outside_lims(self):
        return (self.probs <= self.lims[0]) | (self.probs > self.lims[1])

    def _cut_probs(self):
        return paddle.where(self._outside_lims(), self.probs, self.lims[0] * paddle.ones_like(self.probs))

    @staticmethod
    def _atanh(value):
        return 0.5 * (paddle.log1p(value) - paddle.log1p(-value))

    def _log_constant(self):
        p = self._cut_probs()
        below = paddle.where(p <= 0.5, p, paddle.zeros_like(p))
        above = paddle.where(p >= 0.5, p, paddle.ones_like(p))
        exact = paddle.log(2.0 * paddle.abs(self._atanh(1.0 - 2.0 * p))) - paddle.where(
            p <= 0.5, paddle.log1p(-2.0 * below), paddle.log(2.0 * above - 1.0))
        x = paddle.square(self.probs - 0.5)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return paddle.where(self._outside_lims(), exact, taylor)

    @property
    def mean(self):
        """The mean."""
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (2.0 * self._atanh(1.0 - 2.0 * p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * paddle.square(x)) * x
        return paddle.where(self._outside_lims(), exact, taylor)

    @property
    def variance(self):
        """The variance."""
        p = self._cut_probs()
        exact = p * (p - 1.0) / paddle.square(1.0 - 2.0 * p) + 1.0 / paddle.square(paddle.log1p(-p) - paddle.log(p))
        x = paddle.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return paddle.where(self._outside_lims(), exact, taylor)

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples by the inverse CDF of uniforms."""
        out = tuple(sample_shape("ContinuousBernoulli.rsample", shape)) + self.batch_shape
        return self.icdf(random.uniform(draw_key(key), out, self.dtype))

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.probs)
        eps = float(np.finfo(self.dtype.np).eps)
        cross = paddle.nan_to_num(value * paddle.log(self.probs) + (1.0 - value) * paddle.log(1 - self.probs),
                                  neginf=-eps)
        return self._log_constant() + cross

    def entropy(self):
        """The entropy."""
        log_p, log_1mp = paddle.log(self.probs), paddle.log1p(-self.probs)
        value = -self._log_constant() + self.mean * (log_1mp - log_p) - log_1mp
        return paddle.where(self.probs == 0.5, paddle.zeros_like(self.probs), value)

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        value = self._value(value, self.probs)
        p = self._cut_probs()
        inside = (paddle.pow(p, value) * paddle.pow(1.0 - p, 1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = paddle.where(self._outside_lims(), inside, value)
        return paddle.where(value <= 0.0, paddle.zeros_like(inside),
                            paddle.where(value >= 1.0, paddle.ones_like(inside), inside))

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = self._value(value, self.probs)
        p = self._cut_probs()
        exact = (paddle.log1p(-p + value * (2.0 * p - 1.0)) - paddle.log1p(-p)) / (paddle.log(p) - paddle.log1p(-p))
        return paddle.where(self._outside_lims(), exact, value)

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both ContinuousBernoulli, one batch shape)."""
        if self.batch_shape != other.batch_shape:
            raise ValueError(f"ContinuousBernoulli.kl_divergence: the batch shapes differ "
                             f"({list(self.batch_shape)} and {list(other.batch_shape)})")
        log_q, log_1mq = paddle.log(other.probs), paddle.log1p(-other.probs)
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1mq) + log_1mq)
