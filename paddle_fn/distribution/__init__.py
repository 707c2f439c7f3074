"""`paddle.distribution`: probability distributions, transforms and KL divergences, as Paddle 3.3 has them.

Every distribution can be sampled two ways. Paddle style, ``d.sample([n])`` draws from the global seed
(`paddle.seed`). JAX style, ``d.sample([n], key=k)`` is a pure function of the key ``k`` (from
`paddle_fn.random.key`, `split`, `fold_in`), so it gives the same numbers eagerly, under `vmap` (a batch of keys
draws independent samples) and under `jit`. ``rsample`` is reparameterized: differentiable in the parameters
under `grad` (Gamma, Beta, Dirichlet, Chi2 and StudentT through implicit reparameterization of the gamma
sampler, as JAX).

Example:
    >>> import paddle_fn as paddle
    >>> from paddle_fn.distribution import Normal, kl_divergence
    >>> p, q = Normal(0.0, 1.0), Normal(1.0, 2.0)
    >>> kl_divergence(p, q).numpy()
    array(0.44314718, dtype=float32)
    >>> sample_mean = lambda mu: Normal(mu, 1.0).rsample([10], key=paddle.random.key(0)).sum()
    >>> paddle.grad(sample_mean)(paddle.to_tensor(0.5)).numpy()    # d/dmu of a sum of 10 draws
    array(10., dtype=float32)
"""
from paddle_fn.distribution import transform  # noqa: F401
from paddle_fn.distribution.bernoulli import Bernoulli
from paddle_fn.distribution.beta import Beta
from paddle_fn.distribution.binomial import Binomial
from paddle_fn.distribution.categorical import Categorical
from paddle_fn.distribution.cauchy import Cauchy
from paddle_fn.distribution.chi2 import Chi2
from paddle_fn.distribution.continuous_bernoulli import ContinuousBernoulli
from paddle_fn.distribution.dirichlet import Dirichlet
from paddle_fn.distribution.distribution import Distribution
from paddle_fn.distribution.exponential import Exponential
from paddle_fn.distribution.exponential_family import ExponentialFamily
from paddle_fn.distribution.gamma import Gamma
from paddle_fn.distribution.geometric import Geometric
from paddle_fn.distribution.gumbel import Gumbel
from paddle_fn.distribution.independent import Independent
from paddle_fn.distribution.kl import kl_divergence, register_kl
from paddle_fn.distribution.laplace import Laplace
from paddle_fn.distribution.lkj_cholesky import LKJCholesky
from paddle_fn.distribution.lognormal import LogNormal
from paddle_fn.distribution.multinomial import Multinomial
from paddle_fn.distribution.multivariate_normal import MultivariateNormal
from paddle_fn.distribution.normal import Normal
from paddle_fn.distribution.poisson import Poisson
from paddle_fn.distribution.student_t import StudentT
from paddle_fn.distribution.transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform,
                                              IndependentTransform, PowerTransform, ReshapeTransform,
                                              SigmoidTransform, SoftmaxTransform, StackTransform,
                                              StickBreakingTransform, TanhTransform, Transform)
from paddle_fn.distribution.transformed_distribution import TransformedDistribution
from paddle_fn.distribution.uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent",
           "LKJCholesky", "Laplace", "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "Poisson",
           "StudentT", "TransformedDistribution", "Uniform", "kl_divergence", "register_kl", "Transform",
           "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform"]
