"""`Exponential`: waiting times of rate `rate`."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import as_float_tensors, check, draw_key, sample_shape
from paddle_fn.distribution.exponential_family import ExponentialFamily


class Exponential(ExponentialFamily):
    """The exponential distribution with density ``rate * exp(-rate * x)`` on x >= 0.

    Args:
        rate (float|Tensor): the rate, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> e = paddle.distribution.Exponential(paddle.to_tensor([0.5]))
        >>> e.mean.numpy(), e.variance.numpy(), e.cdf(paddle.to_tensor([2.0])).numpy()
        (array([2.], dtype=float32), array([4.], dtype=float32), array([0.6321206], dtype=float32))
    """

    def __init__(self, rate):
        (self.rate,) = as_float_tensors("Exponential", ("rate",), (rate,))
        check("Exponential", "rate", self.rate, lambda r: r > 0, "positive")
        self.dtype = self.rate.dtype
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        """``1 / rate``."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """``1 / rate ** 2``."""
        return self.rate.pow(-2)

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples ``-log(u) / rate``, u uniform in [tiny, 1)."""
        out = self._extend_shape(sample_shape("Exponential.rsample", shape))
        u = random.uniform(draw_key(key), out, self.dtype, min=float(np.finfo(np.float32).tiny), max=1.0)
        return -paddle.log(u) / self.rate

    def log_prob(self, value):
        """``log(rate) - rate * value``."""
        value = self._value(value, self.rate)
        return paddle.log(self.rate) - self.rate * value

    def prob(self, value):
        """``rate * exp(-rate * value)``."""
        value = self._value(value, self.rate)
        return self.rate * paddle.exp(-self.rate * value)

    def entropy(self):
        """``1 - log(rate)``."""
        return 1.0 - paddle.log(self.rate)

    def cdf(self, value):
        """``1 - exp(-rate * value)``."""
        value = self._value(value, self.rate)
        return 1.0 - paddle.exp(-self.rate * value)

    def icdf(self, value):
        """The inverse of `cdf`, ``-log1p(-value) / rate``."""
        value = self._value(value, self.rate)
        return -paddle.log1p(-value) / self.rate

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Exponential)."""
        if not isinstance(other, Exponential):
            raise TypeError(f"Exponential.kl_divergence: other must be Exponential, got {type(other).__name__}")
        ratio = other.rate / self.rate
        return -paddle.log(ratio) + ratio - 1

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -paddle.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0
