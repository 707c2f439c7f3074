"""`Laplace`: the double-exponential distribution."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, draw_key, location_scale, sample_shape


class Laplace(Distribution):
    """The Laplace distribution with density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc (float|Tensor): the location.
        scale (float|Tensor): the scale, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.distribution.Laplace(paddle.to_tensor(0.0), paddle.to_tensor(1.0))
        >>> m.log_prob(paddle.to_tensor(0.1)).numpy(), m.icdf(paddle.to_tensor(0.1)).numpy()
        (array(-0.7931472, dtype=float32), array(-1.609438, dtype=float32))
    """

    def __init__(self, loc, scale):
        self.loc, self.scale = location_scale("Laplace", loc, scale)
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """`loc`."""
        return self.loc

    @property
    def stddev(self):
        """``sqrt(2) * scale``."""
        return 2 ** 0.5 * self.scale

    @property
    def variance(self):
        """``2 * scale ** 2``."""
        return self.stddev.pow(2)

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples by the inverse CDF of a uniform in (-1, 1)."""
        out = self._extend_shape(sample_shape("Laplace.rsample", shape))
        eps = float(np.finfo(self.dtype.np).eps)
        u = random.uniform(draw_key(key), out, self.dtype, min=-1.0 + eps / 2, max=1.0 - eps / 2)
        return self.loc - self.scale * u.sign() * paddle.log1p(-u.abs())

    def log_prob(self, value):
        """``-log(2 scale) - |value - loc| / scale``."""
        value = self._value(value, self.loc)
        return -paddle.log(2 * self.scale) - paddle.abs(value - self.loc) / self.scale

    def entropy(self):
        """``1 + log(2 scale)``."""
        return 1 + paddle.log(2 * self.scale)

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        value = self._value(value, self.loc)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * paddle.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = self._value(value, self.loc)
        term = value - 0.5
        return self.loc - self.scale * term.sign() * paddle.log1p(-2 * term.abs())

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Laplace)."""
        t = paddle.abs(self.loc - other.loc)
        return (self.scale * paddle.exp(-t / self.scale) + t) / other.scale + paddle.log(other.scale / self.scale) - 1
