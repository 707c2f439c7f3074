"""`Dirichlet`: distributions over the probability simplex."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import as_float_tensors, check, draw_key, sample_shape
from paddle_fn.distribution.exponential_family import ExponentialFamily


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over vectors on the simplex (the last axis of `concentration` is the event).

    `rsample` is differentiable in `concentration` (implicit reparameterization of the gamma draws).

    Args:
        concentration (Tensor): positive concentrations, at least one axis.

    Example:
        >>> import paddle_fn as paddle
        >>> d = paddle.distribution.Dirichlet(paddle.to_tensor([1.0, 2.0, 3.0]))
        >>> d.entropy().numpy(), d.prob(paddle.to_tensor([0.3, 0.5, 0.6])).numpy()
        (array(-1.2443447, dtype=float32), array(10.8, dtype=float32))
    """

    def __init__(self, concentration):
        (self.concentration,) = as_float_tensors("Dirichlet", ("concentration",), (concentration,))
        if self.concentration.ndim < 1 or self.concentration.size == 0:
            raise ValueError(f"Dirichlet: concentration must have at least one axis (the event) and some elements, "
                             f"got shape {self.concentration.shape}")
        check("Dirichlet", "concentration", self.concentration, lambda c: c > 0, "positive")
        self.dtype = self.concentration.dtype
        super().__init__(self.concentration.shape[:-1], self.concentration.shape[-1:])

    @property
    def mean(self):
        """``concentration / concentration.sum(-1)``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        """The variance of each coordinate."""
        total = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def sample(self, shape=(), *, key=None):
        """Samples of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        return self.rsample(shape, key=key).detach()

    def rsample(self, shape=(), *, key=None):
        """Reparameterized samples (normalized log-gamma draws, as ``jax.random.dirichlet``)."""
        batch = tuple(sample_shape("Dirichlet.rsample", shape)) + self.batch_shape
        return random.dirichlet(draw_key(key), self.concentration, batch)

    def log_prob(self, value):
        """The log density at `value` (a point of the simplex)."""
        value = self._value(value, self.concentration)
        c = self.concentration
        return (paddle.log(value) * (c - 1.0)).sum(-1) + paddle.lgamma(c.sum(-1)) - paddle.lgamma(c).sum(-1)

    def entropy(self):
        """The entropy in closed form."""
        c = self.concentration
        total = c.sum(-1)
        k = c.shape[-1]
        return (paddle.lgamma(c).sum(-1) - paddle.lgamma(total) - (k - total) * paddle.digamma(total)
                - ((c - 1.0) * paddle.digamma(c)).sum(-1))

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Dirichlet)."""
        a, b = self.concentration, other.concentration
        a0 = a.sum(-1)
        return (paddle.lgamma(a0) - paddle.lgamma(b.sum(-1)) - (paddle.lgamma(a) - paddle.lgamma(b)).sum(-1)
                + ((a - b) * (paddle.digamma(a) - paddle.digamma(a0).unsqueeze(-1))).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return paddle.lgamma(x).sum(-1) - paddle.lgamma(x.sum(-1))

    @property
    def _mean_carrier_measure(self):
        # with natural parameters `concentration` the carrier measure is 1 / prod(x)
        c = self.concentration
        return -(paddle.digamma(c) - paddle.digamma(c.sum(-1, keepdim=True))).sum(-1)
