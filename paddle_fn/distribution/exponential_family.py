"""`ExponentialFamily`: distributions with density ``h(x) exp(<theta, T(x)> - A(theta))``, whose entropy (and KL
between two of one kind) follow from the log normalizer A by differentiation."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.distribution.distribution import Distribution, sum_rightmost


class ExponentialFamily(Distribution):
    """The base of exponential-family distributions. A subclass gives its natural parameters
    (``_natural_parameters``), its log normalizer (``_log_normalizer``) and the mean of its carrier measure
    (``_mean_carrier_measure``); the entropy is then ``A(theta) - <theta, grad A(theta)> - E[log h(x)]``, with the
    gradient taken by `paddle_fn.grad`, so it is itself differentiable.

    Example:
        >>> import paddle_fn as paddle
        >>> e = paddle.distribution.Exponential(paddle.to_tensor([0.5]))
        >>> isinstance(e, paddle.distribution.ExponentialFamily), e.entropy().numpy()
        (True, array([1.6931472], dtype=float32))
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError(f"{type(self).__name__} does not define its natural parameters")

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError(f"{type(self).__name__} does not define its log normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__} does not define the mean of its carrier measure")

    def _log_normalizer_and_gradients(self):
        params = tuple(self._natural_parameters)
        total = lambda *ps: self._log_normalizer(*ps).sum()  # noqa: E731
        grads = paddle.grad(total, argnums=tuple(range(len(params))))(*params)
        return params, self._log_normalizer(*params), grads

    def entropy(self):
        """The entropy from the log normalizer's gradient (Bregman form)."""
        params, log_norm, grads = self._log_normalizer_and_gradients()
        value = log_norm - self._mean_carrier_measure
        for p, g in zip(params, grads):
            value = value - sum_rightmost(p * g, len(self.event_shape))
        return value
