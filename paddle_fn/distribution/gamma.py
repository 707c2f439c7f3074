"""`Gamma`: the gamma distribution with shape `concentration` and inverse scale `rate`."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import as_float_tensors, check, draw_key, sample_shape
from paddle_fn.distribution.exponential_family import ExponentialFamily


class Gamma(ExponentialFamily):
    """The gamma distribution with density ``rate**a x**(a-1) exp(-rate x) / Gamma(a)``, a = `concentration`.

    `rsample` is differentiable in both parameters: in `rate` directly, in `concentration` by implicit
    reparameterization of the gamma sampler (as JAX).

    Args:
        concentration (float|Tensor): the shape parameter, positive.
        rate (float|Tensor): the inverse scale, positive.

    Example:
        >>> import paddle_fn as paddle
        >>> g = paddle.distribution.Gamma(paddle.to_tensor([0.2, 0.4]), paddle.to_tensor(0.6))
        >>> g.mean.numpy(), g.entropy().numpy()
        (array([0.3333333, 0.6666666], dtype=float32), array([-1.9963422 ,  0.17067266], dtype=float32))
    """

    def __init__(self, concentration, rate):
        self.concentration, self.rate = as_float_tensors(type(self).__name__, ("concentration", "rate"),
                                                         (concentration, rate))
        check(type(self).__name__, "concentration", self.concentration, lambda c: c > 0, "positive")
        check(type(self).__name__, "rate", self.rate, lambda r: r > 0, "positive")
        self.dtype = self.concentration.dtype
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        """``concentration / rate``."""
        return self.concentration / self.rate

    @property
    def variance(self):
        """``concentration / rate ** 2``."""
        return self.concentration / self.rate.pow(2)

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples (implicit reparameterization in `concentration`)."""
        out = self._extend_shape(sample_shape(f"{type(self).__name__}.rsample", shape))
        return random.gamma(draw_key(key), paddle.broadcast_to(self.concentration, list(out))) / self.rate

    def log_prob(self, value):
        """The log density at `value`."""
        value = self._value(value, self.concentration)
        return (self.concentration * paddle.log(self.rate) + (self.concentration - 1) * paddle.log(value)
                - self.rate * value - paddle.lgamma(self.concentration))

    def entropy(self):
        """``a - log(rate) + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - paddle.log(self.rate) + paddle.lgamma(a) + (1.0 - a) * paddle.digamma(a)

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Gamma)."""
        if not isinstance(other, Gamma):
            raise TypeError(f"{type(self).__name__}.kl_divergence: other must be a Gamma, got {type(other).__name__}")
        a, b = self.concentration, other.concentration
        return (b * paddle.log(self.rate / other.rate) + paddle.lgamma(b) - paddle.lgamma(a)
                + (a - b) * paddle.digamma(a) + (other.rate - self.rate) * (a / self.rate))

    @property
    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return paddle.lgamma(x + 1) + (x + 1) * paddle.log(-y.reciprocal())

    @property
    def _mean_carrier_measure(self):
        return 0.0
