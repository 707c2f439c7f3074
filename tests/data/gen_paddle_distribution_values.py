"""Record paddle.distribution's values (log_prob, entropy, KL, moments, cdf/icdf) for tests/test_distribution.py.

Run from /tmp with Paddle on the path (never from the test suite):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 /path/to/tests/data/gen_paddle_distribution_values.py
It rewrites paddle_distribution_values.json next to this file: for each expression of EXPRESSIONS (evaluated with
``D = paddle.distribution``, ``T`` making float32 and ``T64`` float64 Tensors), Paddle 3.3.1's shape, dtype and
numbers. tests/test_distribution.py evaluates the same expressions with paddle_fn.
"""
import json
import pathlib

import numpy as np
import paddle
import paddle.distribution as D  # noqa: F401 - the expressions use it


def T(x):
    return paddle.to_tensor(x, "float32")


def T64(x):
    return paddle.to_tensor(x, "float64")


EXPRESSIONS = [
    # Normal
    "D.Normal(T([0.3, -1.0]), T([0.5, 2.0])).log_prob(T([0.1, 2.0]))",
    "D.Normal(T([0.3, -1.0]), T([0.5, 2.0])).entropy()",
    "D.Normal(T([0.3, -1.0]), T([0.5, 2.0])).variance",
    "D.Normal(T64([0.3, -1.0]), T64([0.5, 2.0])).kl_divergence(D.Normal(T64([1.0, 0.0]), T64([1.5, 0.7])))",
    "D.kl_divergence(D.Normal(T([0.3]), T([0.5])), D.Normal(T([1.0]), T([1.5])))",
    "D.Normal(T64([0.3]), T64([0.5])).probs(T64([0.2, 0.9]))",
    # Uniform
    "D.Uniform(T([0.0, -1.0]), T([2.0, 3.0])).log_prob(T([0.5, 3.5]))",
    "D.Uniform(T([0.0, -1.0]), T([2.0, 3.0])).entropy()",
    "D.Uniform(T64([0.0, -1.0]), T64([2.0, 3.0])).probs(T64([0.5, 1.0]))",
    # Bernoulli
    "D.Bernoulli(T([0.2, 0.7])).log_prob(T([1.0, 0.0]))",
    "D.Bernoulli(T([0.2, 0.7])).entropy()",
    "D.Bernoulli(T([0.2, 0.7])).cdf(T([0.5, 1.0]))",
    "D.Bernoulli(T64([0.2, 0.7])).kl_divergence(D.Bernoulli(T64([0.5, 0.1])))",
    "D.Bernoulli(T([0.2, 0.7])).variance",
    # Beta
    "D.Beta(T([0.5, 2.0]), T([1.5, 3.0])).log_prob(T([0.3, 0.6]))",
    "D.Beta(T([0.5, 2.0]), T([1.5, 3.0])).entropy()",
    "D.Beta(T64([0.5, 2.0]), T64([1.5, 3.0])).variance",
    "D.kl_divergence(D.Beta(T([0.5, 2.0]), T([1.5, 3.0])), D.Beta(T([1.0, 1.0]), T([2.0, 0.5])))",
    # Dirichlet
    "D.Dirichlet(T([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])).log_prob(T([0.2, 0.3, 0.5]))",
    "D.Dirichlet(T([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])).entropy()",
    "D.Dirichlet(T64([1.0, 2.0, 3.0])).variance",
    "D.kl_divergence(D.Dirichlet(T([1.0, 2.0, 3.0])), D.Dirichlet(T([2.0, 2.0, 2.0])))",
    # Gamma / Chi2 / Exponential
    "D.Gamma(T([0.5, 3.0]), T([1.0, 2.0])).log_prob(T([0.7, 1.2]))",
    "D.Gamma(T([0.5, 3.0]), T([1.0, 2.0])).entropy()",
    "D.Gamma(T64([0.5, 3.0]), T64([1.0, 2.0])).kl_divergence(D.Gamma(T64([1.0, 2.0]), T64([0.5, 1.0])))",
    "D.Chi2(T([1.0, 5.0])).log_prob(T([0.5, 4.0]))",
    "D.Chi2(T([1.0, 5.0])).entropy()",
    "D.Exponential(T([0.5, 3.0])).log_prob(T([1.0, 0.2]))",
    "D.Exponential(T([0.5, 3.0])).cdf(T([1.0, 0.2]))",
    "D.Exponential(T([0.5, 3.0])).icdf(T([0.3, 0.9]))",
    "D.Exponential(T64([0.5, 3.0])).kl_divergence(D.Exponential(T64([1.0, 1.0])))",
    # Laplace / Cauchy / Gumbel
    "D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])).log_prob(T([0.5, -1.0]))",
    "D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])).cdf(T([0.5, -1.0]))",
    "D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])).icdf(T([0.2, 0.7]))",
    "D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])).entropy()",
    "D.Laplace(T64([0.0, 1.0]), T64([1.0, 0.5])).kl_divergence(D.Laplace(T64([1.0, 0.0]), T64([2.0, 1.0])))",
    "D.Cauchy(T([0.0, 1.0]), T([1.0, 0.5])).log_prob(T([0.5, -1.0]))",
    "D.Cauchy(T([0.0, 1.0]), T([1.0, 0.5])).cdf(T([0.5, -1.0]))",
    "D.Cauchy(T([0.0, 1.0]), T([1.0, 0.5])).kl_divergence(D.Cauchy(T([1.0, 0.0]), T([2.0, 1.0])))",
    "D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])).log_prob(T([0.5, -1.0]))",
    "D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])).cdf(T([0.5, -1.0]))",
    "D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])).mean",
    "D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])).variance",
    # LogNormal
    "D.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])).log_prob(T([0.5, 2.0]))",
    "D.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])).mean",
    "D.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])).variance",
    "D.LogNormal(T([0.0, 1.0]), T([1.0, 0.5])).entropy()",
    # StudentT
    "D.StudentT(T([3.0, 10.0]), T([0.0, 1.0]), T([1.0, 2.0])).log_prob(T([0.5, -1.0]))",
    "D.StudentT(T([3.0, 10.0]), T([0.0, 1.0]), T([1.0, 2.0])).entropy()",
    "D.StudentT(T([3.0, 1.5, 0.5]), T([0.0, 1.0, 2.0]), T([1.0, 2.0, 1.0])).variance",
    "D.StudentT(T([3.0, 1.5, 0.5]), T([0.0, 1.0, 2.0]), T([1.0, 2.0, 1.0])).mean",
    # ContinuousBernoulli
    "D.ContinuousBernoulli(T([0.2, 0.5, 0.9])).log_prob(T([0.3, 0.3, 0.3]))",
    "D.ContinuousBernoulli(T([0.2, 0.5, 0.9])).entropy()",
    "D.ContinuousBernoulli(T([0.2, 0.5, 0.9])).variance",
    "D.ContinuousBernoulli(T([0.2, 0.5, 0.9])).icdf(T([0.3, 0.3, 0.3]))",
    "D.ContinuousBernoulli(T([0.2, 0.8])).kl_divergence(D.ContinuousBernoulli(T([0.6, 0.3])))",
    # Categorical
    "D.Categorical(T([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])).entropy()",
    "D.Categorical(T([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])).log_prob(T([2, 0]).astype('int64'))",
    "D.Categorical(T([0.1, 0.2, 0.7])).kl_divergence(D.Categorical(T([0.3, 0.3, 0.4])))",
    # Geometric / Poisson / Binomial / Multinomial
    "D.Geometric(T([0.3, 0.8])).pmf(2)",
    "D.Geometric(T([0.3, 0.8])).entropy()",
    "D.Geometric(T([0.3, 0.8])).cdf(3)",
    "D.Geometric(T([0.3, 0.8])).kl_divergence(D.Geometric(T([0.5, 0.5])))",
    "D.Poisson(T([2.0, 7.5])).log_prob(T([1.0, 9.0]))",
    "D.Poisson(T([2.0, 7.5])).entropy()",
    "D.Poisson(T([2.0, 7.5])).kl_divergence(D.Poisson(T([3.0, 5.0])))",
    "D.Binomial(10, T([0.2, 0.6])).log_prob(T([3.0, 6.0]))",
    "D.Binomial(10, T([0.2, 0.6])).entropy()",
    "D.Binomial(T([10.0, 20.0]), T([0.2, 0.6])).variance",
    "D.Binomial(10, T([0.2, 0.6])).kl_divergence(D.Binomial(10, T([0.3, 0.5])))",
    "D.Multinomial(6, T([0.2, 0.3, 0.5])).log_prob(T([1.0, 2.0, 3.0]))",
    "D.Multinomial(6, T([0.2, 0.3, 0.5])).entropy()",
    "D.Multinomial(6, T([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])).variance",
    # MultivariateNormal
    "D.MultivariateNormal(T([1.0, -1.0]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]])).log_prob(T([0.0, 0.5]))",
    "D.MultivariateNormal(T([1.0, -1.0]), precision_matrix=T([[2.0, 0.5], [0.5, 1.0]])).log_prob(T([0.0, 0.5]))",
    "D.MultivariateNormal(T([1.0, -1.0]), scale_tril=T([[2.0, 0.0], [0.5, 1.0]])).entropy()",
    "D.MultivariateNormal(T([[1.0, -1.0], [0.0, 0.0]]), covariance_matrix=T([[2.0, 0.5], [0.5, 1.0]]))"
    ".log_prob(T([[0.0, 0.5], [1.0, 1.0]]))",
    "D.MultivariateNormal(T64([1.0, -1.0]), covariance_matrix=T64([[2.0, 0.5], [0.5, 1.0]])).kl_divergence("
    "D.MultivariateNormal(T64([0.0, 0.0]), covariance_matrix=T64([[1.0, 0.2], [0.2, 1.0]])))",
    "D.MultivariateNormal(T([1.0, -1.0]), precision_matrix=T([[2.0, 0.5], [0.5, 1.0]])).variance",
    # LKJCholesky
    "D.LKJCholesky(3, 2.0).log_prob(T([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]))",
    "D.LKJCholesky(2, 0.5).log_prob(T([[1.0, 0.0], [0.28, 0.96]]))",
    # Independent / TransformedDistribution
    "D.Independent(D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), 1).log_prob(T([0.5, 0.5]))",
    "D.Independent(D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), 1).entropy()",
    "D.TransformedDistribution(D.Normal(T([0.0]), T([1.0])), [D.ExpTransform(), D.AffineTransform(T(1.0), T(2.0))])"
    ".log_prob(T([3.0]))",
    "D.TransformedDistribution(D.Normal(T([0.0, 0.0]), T([1.0, 1.0])), [D.StickBreakingTransform()])"
    ".log_prob(T([0.2, 0.3, 0.5]))",
    # transforms
    "D.SigmoidTransform().inverse_log_det_jacobian(T([0.3, 0.9]))",
    "D.StickBreakingTransform().inverse(T([0.2, 0.3, 0.5]))",
    "D.StickBreakingTransform().forward_log_det_jacobian(T([0.2, -0.3]))",
    "D.PowerTransform(T(3.0)).inverse_log_det_jacobian(T([8.0, 27.0]))",
    "D.ChainTransform([D.ExpTransform(), D.PowerTransform(T(2.0))]).forward_log_det_jacobian(T([0.5, 1.0]))",
    "D.IndependentTransform(D.SigmoidTransform(), 1).forward_log_det_jacobian(T([[0.5, 1.0], [2.0, -1.0]]))",
    "D.TanhTransform().forward_log_det_jacobian(T([0.5, -2.0]))",
]


def record(value):
    return {"shape": list(value.shape), "dtype": str(value.dtype).replace("paddle.", ""),
            "values": np.asarray(value.numpy(), np.float64).ravel().tolist()}


out = {}
for expr in EXPRESSIONS:
    try:
        out[expr] = record(eval(expr))
    except Exception as exc:  # noqa: BLE001 - recorded: the test checks paddle_fn raises too
        out[expr] = {"error": type(exc).__name__}
(pathlib.Path(__file__).parent / "paddle_distribution_values.json").write_text(json.dumps(out, indent=1) + "\n")
print(sum("error" in v for v in out.values()), "of", len(out), "raise in Paddle")
