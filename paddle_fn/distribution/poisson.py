"""`Poisson`: counts of events at rate `rate`."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.core.trace import is_concrete
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


def _bounded_support(rate, dtype):
    """0 .. max(rate) + 30 sqrt(max(rate)) (at least 30): where the mass of every rate up to max(rate) lies."""
    if not is_concrete(rate):
        raise ValueError("Poisson: entropy and kl_divergence sum over the support, whose size depends on the "
                         "rate's value, so they need a concrete rate (not one traced by jit or vmap)")
    top = float(np.max(rate.numpy()))
    spread = np.sqrt(top) if top >= 1 else 1.0
    return paddle.arange(0, int(top + 30 * spread), dtype=dtype)


class Poisson(Distribution):
    """The Poisson distribution ``P(k) = rate**k exp(-rate) / k!``.

    Args:
        rate (float|Tensor): the rate, non-negative.

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.Poisson(paddle.to_tensor(3.0))
        >>> rv.mean.numpy(), rv.log_prob(paddle.to_tensor(2.0)).numpy()
        (array(3., dtype=float32), array(-1.4959226, dtype=float32))
    """

    def __init__(self, rate):
        if isinstance(rate, (int, float)) and not isinstance(rate, bool):
            rate = [float(rate)]  # Paddle makes a Python number a [1]-shaped rate
        (self.rate,) = as_float_tensors("Poisson", ("rate",), (rate,))
        check("Poisson", "rate", self.rate, lambda r: r >= 0, "non-negative")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """`rate`."""
        return self.rate

    @property
    def variance(self):
        """`rate`."""
        return self.rate

    def sample(self, shape=(), *, key=None):
        """Counts (in the rate's float dtype) of shape ``shape + batch_shape``, as ``jax.random.poisson``."""
        out = self._extend_shape(sample_shape("Poisson.sample", shape))
        rate = paddle.broadcast_to(self.rate.detach(), list(out))
        return random.poisson(draw_key(key), rate).astype(self.dtype)

    def log_prob(self, value):
        """``value log(rate) - rate - lgamma(value + 1)`` (a large negative number instead of -inf)."""
        value = self._value(value, self.rate)
        eps = float(np.finfo(self.dtype.np).eps)
        return paddle.nan_to_num(-self.rate + value * paddle.log(self.rate) - paddle.lgamma(value + 1),
                                 neginf=-eps)

    def entropy(self):
        """The entropy, summed over the support up to ``rate + 30 sqrt(rate)``."""
        values = _bounded_support(self.rate, self.dtype).reshape([-1] + [1] * len(self.batch_shape))
        log_prob = self.log_prob(values)
        proposed = -(paddle.exp(log_prob) * log_prob).sum(0)
        return proposed * (self.rate != 0).astype(self.dtype)

    def kl_divergence(self, other):
        """KL(self || other), summed over the common support (both Poisson, one batch shape)."""
        if self.batch_shape != other.batch_shape:
            raise ValueError(f"Poisson.kl_divergence: the batch shapes differ ({list(self.batch_shape)} and "
                             f"{list(other.batch_shape)})")
        support = _bounded_support(paddle.maximum(self.rate, other.rate), self.dtype)
        support = support.reshape([-1] + [1] * len(self.batch_shape))
        lp, lq = self.log_prob(support), other.log_prob(support)
        return (paddle.exp(lp) * (lp - lq)).sum(0)
