"""`TransformedDistribution`: the distribution of ``f(x)`` for x from a base distribution and f a chain of
transforms."""
from __future__ import annotations

from collections.abc import Sequence

from paddle_fn.distribution.distribution import Distribution, sum_rightmost
from paddle_fn.distribution.independent import Independent
from paddle_fn.distribution.transform import ChainTransform, Transform


class TransformedDistribution(Distribution):
    """The distribution of ``y = t_n(... t_1(x))`` for x drawn from `base`; `log_prob` applies the change of
    variables with each transform's log-det-Jacobian.

    Args:
        base (Distribution): the distribution of x.
        transforms (Sequence[Transform]): applied first to last.

    Example:
        >>> import paddle_fn as paddle
        >>> d = paddle.distribution.TransformedDistribution(
        ...     paddle.distribution.Normal(0.0, 1.0),
        ...     [paddle.distribution.AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0))])
        >>> d.log_prob(paddle.to_tensor(0.5)).numpy()
        array(-1.6433357, dtype=float32)
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: base must be a Distribution, got {type(base).__name__}")
        if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"TransformedDistribution: transforms must be a sequence of Transforms, got "
                            f"{transforms!r}")
        self._base = base
        self._transforms = list(transforms)
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(self._transforms)
        base_shape = base.batch_shape + base.event_shape
        if len(base_shape) < chain._domain_rank:
            raise ValueError(f"TransformedDistribution: the base's shape {list(base_shape)} has fewer axes than the "
                             f"transforms' event rank {chain._domain_rank}")
        if chain._domain_rank > len(base.event_shape):
            base = Independent(base, chain._domain_rank - len(base.event_shape))
        shape = chain.forward_shape(base.batch_shape + base.event_shape)
        event_rank = chain._codomain_rank + max(len(base.event_shape) - chain._domain_rank, 0)
        super().__init__(shape[:len(shape) - event_rank], shape[len(shape) - event_rank:])

    def sample(self, shape=(), *, key=None):
        """Transformed samples of the base (no gradient)."""
        x = self._base.sample(shape, key=key)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=(), *, key=None):
        """Transformed reparameterized samples of the base."""
        x = self._base.rsample(shape, key=key)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        """The log density of `value`, by the change of variables."""
        log_prob, y = 0.0, value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain_rank - t._codomain_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain_rank)
            y = x
        return log_prob + sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))


Transform._distribution_type = TransformedDistribution
