"""`Uniform`: the continuous uniform distribution on [low, high)."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    Args:
        low (float|list|numpy.ndarray|Tensor): the lower bound.
        high (float|list|numpy.ndarray|Tensor): the upper bound, above `low`.
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.distribution import Uniform
        >>> u = Uniform([0.0], [2.0])
        >>> u.entropy().numpy(), u.log_prob(paddle.to_tensor([0.8])).numpy()
        (array([0.6931472], dtype=float32), array([-0.6931472], dtype=float32))
    """

    def __init__(self, low, high, name=None):
        self.name = name or "Uniform"
        self.low, self.high = as_float_tensors("Uniform", ("low", "high"), (low, high))
        check("Uniform", "high - low", self.high - self.low, lambda w: w > 0, "positive (high above low)")
        self.dtype = self.low.dtype
        super().__init__(self.low.shape)

    @property
    def mean(self):
        """``(low + high) / 2``."""
        return (self.low + self.high) / 2

    @property
    def variance(self):
        """``(high - low) ** 2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    def sample(self, shape=(), seed=0, *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient); a nonzero `seed` draws from ``key(seed)``."""
        if seed:
            key = random.key(seed)
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples ``low + u * (high - low)``, u uniform in [0, 1)."""
        out = self._extend_shape(sample_shape("Uniform.rsample", shape))
        u = random.uniform(draw_key(key), out, self.dtype)
        return self.low + u * (self.high - self.low)

    def _inside(self, value):
        return ((self.low < value) & (value < self.high)).astype(value.dtype)

    def log_prob(self, value):
        """``log(1 / (high - low))`` inside the support, ``-inf`` outside."""
        value = self._value(value, self.low)
        return paddle.log(self._inside(value)) - paddle.log(self.high - self.low)

    def probs(self, value):
        """The density at `value` (Paddle's name; `prob` is the same)."""
        value = self._value(value, self.low)
        return self._inside(value) / (self.high - self.low)

    def prob(self, value):
        """The density at `value`."""
        return self.probs(value)

    def entropy(self):
        """``log(high - low)``."""
        return paddle.log(self.high - self.low)

    def kl_divergence(self, other):
        """KL(self || other): ``log((q.high - q.low) / (high - low))`` when [low, high) lies inside q's support,
        inf otherwise."""
        if not isinstance(other, Uniform):
            raise TypeError(f"Uniform.kl_divergence: other must be Uniform, got {type(other).__name__}")
        inside = (other.low <= self.low) & (self.high <= other.high)
        value = paddle.log((other.high - other.low) / (self.high - self.low))
        return paddle.where(inside, value, paddle.full_like(value, float("inf")))

    def cdf(self, value):
        """The cumulative distribution function at `value`."""
        value = self._value(value, self.low)
        return paddle.clip((value - self.low) / (self.high - self.low), 0.0, 1.0)

    def icdf(self, value):
        """The inverse of `cdf`."""
        value = self._value(value, self.low)
        return self.low + value * (self.high - self.low)
