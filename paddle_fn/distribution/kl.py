"""`kl_divergence` and `register_kl`: KL divergences dispatched on the pair of distribution types, with Paddle's
closed forms registered."""
from __future__ import annotations

import functools
import warnings

from paddle_fn.distribution.bernoulli import Bernoulli
from paddle_fn.distribution.beta import Beta
from paddle_fn.distribution.binomial import Binomial
from paddle_fn.distribution.categorical import Categorical
from paddle_fn.distribution.cauchy import Cauchy
from paddle_fn.distribution.continuous_bernoulli import ContinuousBernoulli
from paddle_fn.distribution.dirichlet import Dirichlet
from paddle_fn.distribution.distribution import Distribution, sum_rightmost
from paddle_fn.distribution.exponential import Exponential
from paddle_fn.distribution.exponential_family import ExponentialFamily
from paddle_fn.distribution.gamma import Gamma
from paddle_fn.distribution.geometric import Geometric
from paddle_fn.distribution.laplace import Laplace
from paddle_fn.distribution.lognormal import LogNormal
from paddle_fn.distribution.multivariate_normal import MultivariateNormal
from paddle_fn.distribution.normal import Normal
from paddle_fn.distribution.poisson import Poisson
from paddle_fn.distribution.uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_REGISTRY = {}


def kl_divergence(p, q):
    """KL(p || q), by the closed form registered for the most specific pair of types of `p` and `q`.

    Example:
        >>> import paddle_fn as paddle
        >>> p = paddle.distribution.Beta(alpha=0.5, beta=0.5)
        >>> q = paddle.distribution.Beta(alpha=0.3, beta=0.7)
        >>> paddle.distribution.kl_divergence(p, q).numpy()
        array(0.21193528, dtype=float32)
    """
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as KL(p || q) for p of type `cls_p` and q of type `cls_q` (and their
    subclasses, unless a more specific pair is registered).

    Example:
        >>> import paddle_fn as paddle
        >>> class MyNormal(paddle.distribution.Normal):
        ...     pass
        >>> @paddle.distribution.register_kl(MyNormal, MyNormal)
        ... def _kl_mine(p, q):
        ...     return paddle.zeros([])
        >>> float(paddle.distribution.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)))
        0.0
    """
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError(f"register_kl: cls_p and cls_q must be subclasses of Distribution, got {cls_p!r} and "
                        f"{cls_q!r}")

    def decorator(f):
        _REGISTRY[cls_p, cls_q] = f
        return f
    return decorator


@functools.total_ordering
class _Specificity:
    """Orders registered (p, q) type pairs: a pair is smaller when it is more specific, p first."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for mine, theirs in zip(self.classes, other.classes):
            if not issubclass(mine, theirs):
                return False
            if mine is not theirs:
                break
        return True


def _dispatch(cls_p, cls_q):
    matches = [(p, q) for p, q in _REGISTRY if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        raise NotImplementedError(f"kl_divergence: no closed form is registered for ({cls_p.__name__}, "
                                  f"{cls_q.__name__}); register one with @paddle.distribution.register_kl")
    left = min(_Specificity(*m) for m in matches).classes
    right = min(_Specificity(*reversed(m)) for m in matches).classes[::-1]
    if _REGISTRY[left] is not _REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}); register_kl("
                      f"{left[0].__name__}, {right[1].__name__}) to settle it", RuntimeWarning, stacklevel=3)
    return _REGISTRY[left]


def _own_kl(p, q):
    """The pair's own closed form (its kl_divergence method)."""
    return type(p).kl_divergence(p, q)


for _cls in (Bernoulli, Beta, Binomial, Categorical, Cauchy, ContinuousBernoulli, Dirichlet, Exponential, Gamma,
             Geometric, Laplace, LogNormal, MultivariateNormal, Normal, Poisson, Uniform):
    register_kl(_cls, _cls)(_own_kl)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_exponential_family(p, q):
    """The Bregman divergence of the log normalizer, for two distributions of one exponential family."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence: no closed form for ({type(p).__name__}, {type(q).__name__})")
    params, log_norm, grads = p._log_normalizer_and_gradients()
    kl = q._log_normalizer(*q._natural_parameters) - log_norm
    for p_param, q_param, grad in zip(params, q._natural_parameters, grads):
        kl = kl - sum_rightmost((q_param - p_param) * grad, len(q.event_shape))
    return kl
