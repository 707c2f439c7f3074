"""`Independent`: reinterpret batch axes of a distribution as event axes."""
from __future__ import annotations

from paddle_fn.distribution.distribution import Distribution, sum_rightmost


class Independent(Distribution):
    """Treat the last `reinterpreted_batch_rank` batch axes of `base` as event axes: `log_prob` and `entropy` sum
    over them, so a batch of independent scalars becomes one distribution over vectors.

    Args:
        base (Distribution): the distribution to reinterpret.
        reinterpreted_batch_rank (int): how many trailing batch axes become event axes (1 .. len(batch_shape)).

    Example:
        >>> import paddle_fn as paddle
        >>> beta = paddle.distribution.Beta(paddle.to_tensor([0.5, 0.5]), paddle.to_tensor([0.5, 0.5]))
        >>> joint = paddle.distribution.Independent(beta, 1)
        >>> joint.batch_shape, joint.event_shape
        ((), (2,))
        >>> joint.log_prob(paddle.to_tensor([0.2, 0.2])).numpy()
        array(-0.4568782, dtype=float32)
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: base must be a Distribution, got {type(base).__name__}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Independent: reinterpreted_batch_rank must be in 1 .. {len(base.batch_shape)} (the "
                             f"base's batch rank), got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = base.batch_shape + base.event_shape
        split = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(shape[:split], shape[split:])

    @property
    def mean(self):
        """The base's mean."""
        return self._base.mean

    @property
    def variance(self):
        """The base's variance."""
        return self._base.variance

    def sample(self, shape=(), *, key=None):
        """The base's samples."""
        return self._base.sample(shape, key=key)

    def rsample(self, shape=(), *, key=None):
        """The base's reparameterized samples."""
        return self._base.rsample(shape, key=key)

    def log_prob(self, value):
        """The base's log_prob summed over the reinterpreted axes."""
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self):
        """The base's entropy summed over the reinterpreted axes."""
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)
