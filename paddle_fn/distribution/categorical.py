"""`Categorical`: one of K categories."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.distribution.distribution import Distribution, as_float_tensors, draw_key, sample_shape


class Categorical(Distribution):
    """A distribution over the indices ``0 .. K-1`` of the last axis of `logits`.

    As in Paddle, `logits` plays two roles: sampling, `entropy` and `kl_divergence` read it as unnormalized log
    probabilities (``softmax(logits)``), while `probs` and `log_prob` read it as unnormalized probabilities
    (``logits / logits.sum(-1)``).

    Args:
        logits (list|numpy.ndarray|Tensor): the category weights, the last axis holds the K categories.
        name (str, optional): accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> cat = paddle.distribution.Categorical(paddle.to_tensor([0.1, 0.2, 0.3, 0.4]))
        >>> cat.probs(paddle.to_tensor([2, 3])).numpy()
        array([0.3, 0.4], dtype=float32)
        >>> cat.sample([2, 3], key=paddle.random.key(0)).shape
        paddle.Size([2, 3])
    """

    def __init__(self, logits, name=None):
        self.name = name or "Categorical"
        (self.logits,) = as_float_tensors("Categorical", ("logits",), (logits,))
        if self.logits.ndim < 1:
            raise ValueError("Categorical: logits must have at least one axis (the categories), got a 0-D value")
        self.dtype = self.logits.dtype
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        super().__init__(self.logits.shape[:-1])

    def sample(self, shape=(), *, key=None):
        """Category indices (int64) of shape ``shape + batch_shape``, drawn with probabilities softmax(logits)."""
        shape = sample_shape("Categorical.sample", shape)
        return random.categorical(draw_key(key), self.logits, axis=-1, shape=shape + self.batch_shape).astype("int64")

    def _normalized_logits(self):
        shifted = self.logits - paddle.max(self.logits, axis=-1, keepdim=True)
        return shifted - paddle.log(paddle.exp(shifted).sum(-1, keepdim=True))

    def entropy(self):
        """The entropy of ``softmax(logits)``."""
        log_p = self._normalized_logits()
        return -(paddle.exp(log_p) * log_p).sum(-1)

    def kl_divergence(self, other):
        """KL(self || other) between the softmax distributions, keeping the last axis (size 1), as Paddle."""
        log_p, log_q = self._normalized_logits(), other._normalized_logits()
        return (paddle.exp(log_p) * (log_p - log_q)).sum(-1, keepdim=True)

    def probs(self, value):
        """The probabilities ``logits / logits.sum(-1)`` of the categories in `value` (integers)."""
        if self._prob.ndim == 1:
            return paddle.gather(self._prob, value.reshape([-1])).reshape(value.shape)
        if value.ndim == 1:
            index = value.reshape([1] * (self._prob.ndim - 1) + [-1])
            return paddle.take_along_axis(self._prob, paddle.broadcast_to(
                index, list(self._prob.shape[:-1]) + [value.shape[0]]), axis=-1)
        return paddle.take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        """The same as `probs`."""
        return self.probs(value)

    def log_prob(self, value):
        """``log(probs(value))``."""
        return paddle.log(self.probs(value))
