"""`Bernoulli`: a single trial that is 1 with probability `probs`."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import as_float_tensors, check, draw_key, sample_shape
from paddle_fn.distribution.exponential_family import ExponentialFamily

F = paddle.nn.functional


class Bernoulli(ExponentialFamily):
    """The Bernoulli distribution: 1 with probability `probs` (clipped to [eps, 1 - eps]), else 0.

    `rsample` is the relaxed (Gumbel-softmax / concrete) draw: ``(logit(u) + logit(p)) / temperature``, a logit
    whose sigmoid approaches a 0/1 sample as the temperature falls, differentiable in `probs`.

    Args:
        probs (float|Tensor): the probability of 1, in [0, 1].
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.Bernoulli(probs=0.3)
        >>> rv.mean.numpy(), rv.variance.numpy(), rv.entropy().numpy()
        (array(0.3, dtype=float32), array(0.21000001, dtype=float32), array(0.61086434, dtype=float32))
    """

    def __init__(self, probs, name=None):
        self.name = name or "Bernoulli"
        (probs,) = as_float_tensors("Bernoulli", ("probs",), (probs,))
        check("Bernoulli", "probs", probs, lambda p: (p >= 0) & (p <= 1), "in [0, 1]")
        self.dtype = probs.dtype
        eps = float(np.finfo(self.dtype.np).eps)
        self.probs = paddle.clip(probs, eps, 1 - eps)
        self.logits = paddle.log(self.probs) - paddle.log1p(-self.probs)
        super().__init__(self.probs.shape)

    @property
    def mean(self):
        """`probs`."""
        return self.probs

    @property
    def variance(self):
        """``probs (1 - probs)``."""
        return self.probs * (1 - self.probs)

    def sample(self, shape=(), *, key=None):
        """0/1 samples (in the parameters' float dtype) of shape ``shape + batch_shape``."""
        out = self._extend_shape(sample_shape("Bernoulli.sample", shape))
        u = random.uniform(draw_key(key), out, self.dtype)
        return (u < self.probs.detach()).astype(self.dtype)

    def rsample(self, shape=(), temperature=1.0, *, key=None):
        """Relaxed samples (logits; apply a sigmoid for values in (0, 1)), differentiable in `probs`."""
        out = self._extend_shape(sample_shape("Bernoulli.rsample", shape))
        u = random.uniform(draw_key(key), out, self.dtype)
        probs = paddle.broadcast_to(self.probs, list(out))
        return ((paddle.log(u) - paddle.log1p(-u)) + (paddle.log(probs) - paddle.log1p(-probs))) / temperature

    def cdf(self, value):
        """0 below 0, ``1 - probs`` on [0, 1), 1 from 1."""
        value = self._value(value, self.probs)
        probs, value = paddle.broadcast_tensors([self.probs, value])
        return paddle.where(value < 0, paddle.zeros_like(probs),
                            paddle.where(value < 1, 1 - probs, paddle.ones_like(probs)))

    def log_prob(self, value):
        """``value log(p) + (1 - value) log(1 - p)``, through the logits."""
        value = self._value(value, self.probs)
        logits, value = paddle.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """``-p log(p) - (1 - p) log(1 - p)``."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def kl_divergence(self, other):
        """KL(self || other) in closed form (both Bernoulli)."""
        log_pa, log_pb = -F.softplus(-self.logits), -F.softplus(-other.logits)
        log_qa, log_qb = -F.softplus(self.logits), -F.softplus(other.logits)
        pa, qa = F.sigmoid(self.logits), F.sigmoid(-self.logits)
        return (log_pa - log_pb) * pa + (log_qa - log_qb) * qa

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return F.softplus(x)

    @property
    def _mean_carrier_measure(self):
        return 0.0
