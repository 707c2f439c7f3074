"""`Cauchy`: the Cauchy (Lorentz) distribution."""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, draw_key, location_scale, sample_shape


class Cauchy(Distribution):
    """The Cauchy distribution with density ``1 / (pi scale (1 + ((x - loc) / scale)**2))``; it has no mean or
    variance.

    Args:
        loc (float|Tensor): the location.
        scale (float|Tensor): the scale, positive.
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.Cauchy(loc=0.1, scale=1.2)
        >>> rv.entropy().numpy(), rv.cdf(paddle.to_tensor(1.5)).numpy()
        (array(2.7133458, dtype=float32), array(0.77443725, dtype=float32))
    """

    def __init__(self, loc, scale, name=None):
        self.name = name or "Cauchy"
        self.loc, self.scale = location_scale("Cauchy", loc, scale)
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The Cauchy distribution has no mean: raises ValueError."""
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        """The Cauchy distribution has no variance: raises ValueError."""
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        """The Cauchy distribution has no standard deviation: raises ValueError."""
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None, *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), name=None, *, key=None):
        """Reparameterized samples ``loc + scale * tan(pi (u - 1/2))``."""
        out = self._extend_shape(sample_shape("Cauchy.rsample", shape))
        u = random.uniform(draw_key(key), out, self.dtype)
        return self.loc + self.scale * paddle.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.loc)
        return -paddle.log1p(paddle.square((value - self.loc) / self.scale)) - (math.log(math.pi)
                                                                              + paddle.log(self.scale))

    def cdf(self, value):
        """``atan((value - loc) / scale) / pi + 1/2``."""
        value = self._value(value, self.loc)
        return paddle.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = self._value(value, self.loc)
        return self.loc + self.scale * paddle.tan(math.pi * (value - 0.5))

    def entropy(self):
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + paddle.log(self.scale)

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Cauchy)."""
        if not isinstance(other, Cauchy):
            raise TypeError(f"Cauchy.kl_divergence: other must be a Cauchy distribution, got {type(other).__name__}")
        t1 = paddle.log(paddle.pow(self.scale + other.scale, 2) + paddle.pow(self.loc - other.loc, 2))
        return t1 - paddle.log(4 * self.scale * other.scale)
