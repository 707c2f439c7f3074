"""`Gumbel`: the extreme-value (type I) distribution."""
from __future__ import annotations

import math

import numpy as np

import paddle_fn as paddle
from paddle_fn.distribution.distribution import draw_key, location_scale, sample_shape
from paddle_fn.distribution.transformed_distribution import TransformedDistribution
from paddle_fn.distribution.uniform import Uniform


class Gumbel(TransformedDistribution):
    """The Gumbel distribution with CDF ``exp(-exp(-(x - loc) / scale))``: ``loc - scale log(-log(u))`` for u
    uniform.

    Args:
        loc (float|Tensor): the location.
        scale (float|Tensor): the scale, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> g = paddle.distribution.Gumbel(paddle.full([1], 0.0), paddle.full([1], 1.0))
        >>> g.cdf(paddle.full([1], 0.5)).numpy(), g.entropy().numpy()
        (array([0.5452392], dtype=float32), array([1.5772157], dtype=float32))
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = location_scale("Gumbel", loc, scale)
        self.dtype = self.loc.dtype
        finfo = np.finfo(np.float32)
        self.base_dist = Uniform(paddle.full_like(self.loc, float(finfo.tiny)),
                                 paddle.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, [])

    @property
    def mean(self):
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * np.euler_gamma

    @property
    def variance(self):
        """``pi**2 scale**2 / 6``."""
        return paddle.pow(self.scale, 2) * (math.pi ** 2 / 6)

    @property
    def stddev(self):
        """The square root of the variance."""
        return paddle.sqrt(self.variance)

    def prob(self, value):
        """The density at `value`."""
        y = (self.loc - self._value(value, self.loc)) / self.scale
        return paddle.exp(y - paddle.exp(y)) / self.scale

    def log_prob(self, value):
        """The log density at `value`."""
        y = (self.loc - self._value(value, self.loc)) / self.scale
        return y - paddle.exp(y) - paddle.log(self.scale)

    def cdf(self, value):
        """``exp(-exp(-(value - loc) / scale))``."""
        return paddle.exp(-paddle.exp(-(self._value(value, self.loc) - self.loc) / self.scale))

    def entropy(self):
        """``log(scale) + 1 + euler_gamma``."""
        return paddle.log(self.scale) + 1 + np.euler_gamma

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples ``loc - scale log(-log(u))``."""
        u = self.base_dist.sample(sample_shape("Gumbel.rsample", shape), key=draw_key(key))
        return self.loc - self.scale * paddle.log(-paddle.log(u))


