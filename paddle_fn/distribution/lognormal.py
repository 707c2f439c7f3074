"""`LogNormal`: the distribution of ``exp(x)`` for x normal."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.distribution.normal import Normal
from paddle_fn.distribution.transform import ExpTransform
from paddle_fn.distribution.transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``exp(x)`` with x ~ ``Normal(loc, scale)``.

    Args:
        loc (float|list|numpy.ndarray|Tensor): the mean of log(x).
        scale (float|list|numpy.ndarray|Tensor): the standard deviation of log(x), positive.

    Example:
        >>> import paddle_fn as paddle
        >>> a, b = paddle.distribution.LogNormal([0.0], [1.0]), paddle.distribution.LogNormal([0.5], [2.0])
        >>> a.entropy().numpy(), a.kl_divergence(b).numpy()
        (array([1.4189385], dtype=float32), array([0.34939718], dtype=float32))
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc, self.scale = self._base.loc, self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        """``exp(loc + scale**2 / 2)``."""
        return paddle.exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self):
        """``(exp(scale**2) - 1) exp(2 loc + scale**2)``."""
        return paddle.expm1(self._base.variance) * paddle.exp(2 * self._base.mean + self._base.variance)

    def entropy(self):
        """``Normal entropy + loc``."""
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        """The density at `value` (Paddle's name; `prob` is the same)."""
        return self.prob(value)

    def kl_divergence(self, other):
        """KL(self || other): that of the underlying normals."""
        return self._base.kl_divergence(other._base)
