"""`Binomial`: successes in `total_count` independent trials."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.core.trace import is_concrete
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class Binomial(Distribution):
    """The binomial distribution ``P(k) = C(n, k) p**k (1 - p)**(n - k)``.

    Args:
        total_count (int|Tensor): the number of trials n, non-negative.
        probs (float|Tensor): the success probability p, in [0, 1].

    Example:
        >>> import paddle_fn as paddle
        >>> rv = paddle.distribution.Binomial(100, paddle.to_tensor([0.3, 0.6, 0.9]))
        >>> rv.mean.numpy()
        array([30.000002, 60.000004, 90.      ], dtype=float32)
        >>> rv.entropy().numpy()
        array([2.9405494, 3.0078204, 2.5112371], dtype=float32)
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, paddle.Tensor) and not paddle.is_floating_point(total_count):
            total_count = total_count.astype(probs.dtype if isinstance(probs, paddle.Tensor)
                                             else paddle.get_default_dtype())
        self.total_count, self.probs = as_float_tensors("Binomial", ("total_count", "probs"), (total_count, probs))
        check("Binomial", "total_count", self.total_count, lambda n: n >= 0, "non-negative")
        check("Binomial", "probs", self.probs, lambda p: (p >= 0) & (p <= 1), "in [0, 1]")
        self.dtype = self.probs.dtype
        super().__init__(self.total_count.shape)

    @property
    def mean(self):
        """``n p``."""
        return self.total_count * self.probs

    @property
    def variance(self):
        """``n p (1 - p)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=(), *, key=None):
        """Counts (in the parameters' float dtype) of shape ``shape + batch_shape``."""
        out = self._extend_shape(sample_shape("Binomial.sample", shape))
        count = paddle.broadcast_to(self.total_count.detach(), list(out))
        probs = paddle.broadcast_to(self.probs.detach(), list(out))
        return random.binomial(draw_key(key), count, probs).astype(self.dtype)

    def _support(self):
        if not is_concrete(self.total_count):
            raise ValueError("Binomial: entropy and kl_divergence sum over 0 .. total_count, so they need a "
                             "concrete total_count (not one traced by jit or vmap)")
        top = int(np.max(self.total_count.numpy()))
        return paddle.arange(top + 1, dtype=self.dtype).reshape([-1] + [1] * len(self.batch_shape))

    def log_prob(self, value):
        """The log probability of `value` successes."""
        value = self._value(value, self.probs)
        n = self.total_count
        log_comb = paddle.lgamma(n + 1.0) - paddle.lgamma(n - value + 1.0) - paddle.lgamma(value + 1.0)
        eps = float(np.finfo(self.dtype.np).eps)
        p = paddle.clip(self.probs, eps, 1 - eps)
        return paddle.nan_to_num(log_comb + value * paddle.log(p) + (n - value) * paddle.log(1 - p), neginf=-eps)

    def entropy(self):
        """The entropy, summed over the support."""
        log_prob = self.log_prob(self._support())
        return -(paddle.exp(log_prob) * log_prob).sum(0)

    def kl_divergence(self, other):
        """KL(self || other), summed over this distribution's support (both Binomial)."""
        support = self._support()
        lp, lq = self.log_prob(support), other.log_prob(support)
        return (paddle.exp(lp) * (lp - lq)).sum(0)
