"""`Multinomial`: counts of `total_count` draws among K categories."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.categorical import Categorical
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, check, draw_key, sample_shape


class Multinomial(Distribution):
    """The multinomial distribution: how many of `total_count` independent draws fall in each of the K categories
    (the last axis of `probs`, normalized to sum to 1).

    Args:
        total_count (int): the number of draws, at least 1.
        probs (Tensor): the category probabilities (unnormalized), at least one axis.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.distribution.Multinomial(10, paddle.to_tensor([0.2, 0.3, 0.5]))
        >>> m.mean.numpy(), m.log_prob(paddle.to_tensor([2.0, 3.0, 5.0])).numpy()
        (array([2., 3., 5.], dtype=float32), array(-2.4645152, dtype=float32))
        >>> m.sample([4], key=paddle.random.key(0)).sum(-1).numpy()
        array([10., 10., 10., 10.], dtype=float32)
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, int) or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be an int of at least 1, got {total_count!r}")
        (probs,) = as_float_tensors("Multinomial", ("probs",), (probs,))
        if probs.ndim < 1:
            raise ValueError("Multinomial: probs must have at least one axis (the categories), got a 0-D value")
        check("Multinomial", "probs", probs, lambda p: p >= 0, "non-negative")
        self.total_count = total_count
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.dtype = probs.dtype
        self._categorical = Categorical(paddle.log(self.probs))
        super().__init__(probs.shape[:-1], probs.shape[-1:])

    @property
    def mean(self):
        """``total_count * probs``."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """``total_count * probs * (1 - probs)``."""
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=(), *, key=None):
        """Count vectors (in the parameters' float dtype) of shape ``shape + batch_shape + event_shape``."""
        out = self._extend_shape(sample_shape("Multinomial.sample", shape))
        return random.multinomial(draw_key(key), float(self.total_count), self.probs.detach(), out).astype(self.dtype)

    def log_prob(self, value):
        """The log probability of the count vector `value`."""
        value = self._value(value, self.probs)
        logits, value = paddle.broadcast_tensors([paddle.log(self.probs), value])
        logits = paddle.where((value == 0) & paddle.isinf(logits), paddle.zeros_like(logits), logits)
        return paddle.lgamma(value.sum(-1) + 1) - paddle.lgamma(value + 1).sum(-1) + (value * logits).sum(-1)

    def entropy(self):
        """The entropy: ``n H(probs) - lgamma(n + 1) + sum_k E[lgamma(x_k + 1)]`` with binomial marginals."""
        n = float(self.total_count)
        support = paddle.arange(1, self.total_count + 1, dtype=self.dtype).reshape([-1] + [1] * self.probs.ndim)
        p = paddle.clip(self.probs, 0.0, 1.0)
        log_binom = (paddle.lgamma(paddle.to_tensor(n + 1, dtype=self.dtype)) - paddle.lgamma(support + 1)
                     - paddle.lgamma(n - support + 1) + support * paddle.log(p) + (n - support) * paddle.log1p(-p))
        expected = (paddle.exp(log_binom) * paddle.lgamma(support + 1)).sum([0, -1])
        return n * self._categorical.entropy() - paddle.lgamma(paddle.to_tensor(n + 1, dtype=self.dtype)) + expected
