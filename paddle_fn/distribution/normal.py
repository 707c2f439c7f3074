"""`Normal`: the Gaussian distribution with mean `loc` and standard deviation `scale`."""
from __future__ import annotations

import math

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, draw_key, location_scale, sample_shape


class Normal(Distribution):
    """The normal distribution ``N(loc, scale**2)``, a batch of them when the parameters are Tensors.

    Args:
        loc (float|list|numpy.ndarray|Tensor): the mean.
        scale (float|list|numpy.ndarray|Tensor): the standard deviation, positive.
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.distribution import Normal
        >>> a, b = Normal([0.0], [1.0]), Normal([0.5], [2.0])
        >>> a.entropy().numpy(), a.kl_divergence(b).numpy()
        (array([1.4189385], dtype=float32), array([0.34939718], dtype=float32))
        >>> a.sample([2], key=paddle.random.key(0)).shape    # JAX style: an explicit key
        paddle.Size([2, 1])
    """

    def __init__(self, loc, scale, name=None):
        self.name = name or "Normal"
        self.loc, self.scale = location_scale("Normal", loc, scale)
        self.dtype = self.loc.dtype
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        """The mean, `loc`."""
        return self.loc

    @property
    def variance(self):
        """The variance, ``scale ** 2``."""
        return self.scale.pow(2)

    @property
    def stddev(self):
        """The standard deviation, `scale`."""
        return self.scale

    def sample(self, shape=(), seed=0, *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient); a nonzero `seed` draws from ``key(seed)``."""
        if seed:
            key = random.key(seed)
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples ``loc + scale * eps``, eps standard normal: differentiable in loc and scale."""
        out = self._extend_shape(sample_shape("Normal.rsample", shape))
        eps = random.normal(draw_key(key), out, self.dtype)
        return self.loc + eps * self.scale

    def entropy(self):
        """``0.5 + 0.5 * log(2 pi) + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + paddle.log(self.scale)

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.loc)
        var = self.scale * self.scale
        return -((value - self.loc) * (value - self.loc)) / (2.0 * var) - (paddle.log(self.scale)
                                                                          + math.log(math.sqrt(2.0 * math.pi)))

    def probs(self, value):
        """The density at `value` (Paddle's name; `prob` is the same)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Normal)."""
        if not isinstance(other, Normal):
            raise TypeError(f"Normal.kl_divergence: other must be a Normal distribution, got {type(other).__name__}")
        ratio = (self.scale / other.scale) ** 2
        t = ((self.loc - other.loc) / other.scale) ** 2
        return 0.5 * ratio + 0.5 * (t - 1.0 - paddle.log(ratio))

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        value = self._value(value, self.loc)
        return 0.5 * (1.0 + paddle.erf((value - self.loc) / (self.scale * math.sqrt(2.0))))

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = self._value(value, self.loc)
        return self.loc + self.scale * paddle.erfinv(2.0 * value - 1.0) * math.sqrt(2.0)
