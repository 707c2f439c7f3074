"""`Geometric`: the number of failures before the first success."""
from __future__ import annotations

import numbers

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class Geometric(Distribution):
    """The geometric distribution ``P(k) = (1 - p)**k p`` for k = 0, 1, 2, ... failures before a success.

    Args:
        probs (float|Tensor): the success probability p, in (0, 1].

    Example:
        >>> import paddle_fn as paddle
        >>> geom = paddle.distribution.Geometric(0.5)
        >>> geom.mean.numpy(), geom.pmf(2).numpy(), geom.cdf(4).numpy()
        (array(1., dtype=float32), array(0.125, dtype=float32), array(0.96875, dtype=float32))
    """

    def __init__(self, probs):
        (self.probs,) = as_float_tensors("Geometric", ("probs",), (probs,))
        check("Geometric", "probs", self.probs, lambda p: (p > 0) & (p <= 1), "in (0, 1]")
        self.dtype = self.probs.dtype
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """``1 / p - 1``."""
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        """``(1 / p - 1) / p``."""
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        """The square root of the variance."""
        return paddle.sqrt(self.variance)

    def _count(self, k):
        if isinstance(k, bool) or not isinstance(k, (numbers.Integral, paddle.Tensor)):
            raise TypeError(f"Geometric: k must be an int or a Tensor, got {type(k).__name__}")
        return k

    def pmf(self, k):
        """``(1 - p)**k p``."""
        return paddle.pow(1.0 - self.probs, self._count(k)) * self.probs

    def log_pmf(self, k):
        """``log(pmf(k))``."""
        return paddle.log(self.pmf(k))

    def prob(self, value):
        """The same as `pmf`."""
        return self.pmf(value)

    def log_prob(self, value):
        """The same as `log_pmf`."""
        return self.log_pmf(value)

    def sample(self, shape=(), *, key=None):
        """Samples (floats holding counts) of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Samples ``floor(log(u) / log(1 - p))`` (piecewise constant in p: their gradient is zero)."""
        out = self._extend_shape(sample_shape("Geometric.rsample", shape))
        u = random.uniform(draw_key(key), out, self.dtype, min=float(np.finfo(np.float32).tiny), max=1.0)
        return paddle.floor(paddle.log(u) / paddle.log1p(-self.probs))

    def entropy(self):
        """``-((1 - p) log(1 - p) + p log(p)) / p``."""
        p = self.probs
        return -((1.0 - p) * paddle.log(1.0 - p) + p * paddle.log(p)) / p

    def cdf(self, k):
        """``1 - (1 - p)**(k + 1)``."""
        return 1.0 - paddle.pow(1.0 - self.probs, self._count(k) + 1)

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Geometric)."""
        if not isinstance(other, Geometric):
            raise TypeError(f"Geometric.kl_divergence: other must be Geometric, got {type(other).__name__}")
        p, q = self.probs, other.probs
        return p * paddle.log(p / q) + (1.0 - p) * paddle.log((1.0 - p) / (1.0 - q))
