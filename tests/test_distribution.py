"""paddle_fn.distribution: values against Paddle 3.3.1 (recorded by tests/data/gen_paddle_distribution_values.py),
sampling statistics (moments and KS tests at fixed keys), reparameterized gradients, the same draws eagerly,
under vmap and under jit, and argument checks."""
import json
import pathlib

import numpy as np
import pytest
import scipy.stats

import paddle_fn as paddle
from paddle_fn import random

D = paddle.distribution
VALUES = json.loads((pathlib.Path(__file__).parent / "data" / "paddle_distribution_values.json").read_text())


def T(x):
    return paddle.to_tensor(x, "float32")


def T64(x):
    return paddle.to_tensor(x, "float64")


@pytest.mark.parametrize("expr", sorted(VALUES))
def test_values_match_paddle(expr):
    want = VALUES[expr]
    got = eval(expr)
    assert list(got.shape) == want["shape"], f"shape {got.shape}, Paddle's {want['shape']}"
    assert got.dtype.name == want["dtype"]
    rtol = 1e-10 if want["dtype"] == "float64" else 2e-5
    np.testing.assert_allclose(np.asarray(got.numpy(), np.float64).ravel(), want["values"], rtol=rtol, atol=1e-6,
                               equal_nan=True)


KEY = random.key(2024)
N = 4000

# (distribution, the scipy.stats distribution its samples should follow)
CONTINUOUS = [
    (lambda: D.Normal(T64(0.5), T64(2.0)), scipy.stats.norm(0.5, 2.0)),
    (lambda: D.Uniform(T64(-1.0), T64(3.0)), scipy.stats.uniform(-1.0, 4.0)),
    (lambda: D.Exponential(T64(1.5)), scipy.stats.expon(scale=1 / 1.5)),
    (lambda: D.Gamma(T64(0.7), T64(2.0)), scipy.stats.gamma(0.7, scale=0.5)),
    (lambda: D.Chi2(T64(3.0)), scipy.stats.chi2(3.0)),
    (lambda: D.Beta(T64(0.6), T64(2.5)), scipy.stats.beta(0.6, 2.5)),
    (lambda: D.Laplace(T64(1.0), T64(0.5)), scipy.stats.laplace(1.0, 0.5)),
    (lambda: D.Cauchy(T64(1.0), T64(0.5)), scipy.stats.cauchy(1.0, 0.5)),
    (lambda: D.Gumbel(T64(1.0), T64(0.5)), scipy.stats.gumbel_r(1.0, 0.5)),
    (lambda: D.LogNormal(T64(0.2), T64(0.6)), scipy.stats.lognorm(0.6, scale=np.exp(0.2))),
    (lambda: D.StudentT(T64(4.0), T64(1.0), T64(2.0)), scipy.stats.t(4.0, 1.0, 2.0)),
]


@pytest.mark.parametrize("make, reference", CONTINUOUS, ids=lambda v: getattr(getattr(v, "dist", None), "name", ""))
def test_samples_pass_ks_test(make, reference):
    x = make().sample([N], key=KEY).numpy()
    assert x.shape == (N,)
    assert scipy.stats.kstest(x, reference.cdf).pvalue > 1e-3


def test_discrete_sample_moments():
    cases = [(D.Poisson(T64([3.0, 25.0])), [3.0, 25.0], [3.0, 25.0]),
             (D.Binomial(T64([10.0, 40.0]), T64([0.3, 0.8])), [3.0, 32.0], [2.1, 6.4]),
             (D.Geometric(T64([0.3])), [7 / 3], [(1 / 0.3 - 1) / 0.3]),
             (D.Bernoulli(T64([0.3])), [0.3], [0.21])]
    for dist, mean, var in cases:
        x = dist.sample([N], key=KEY).numpy()
        assert (np.abs(x.mean(0) - mean) < 5 * np.sqrt(np.array(var) / N)).all(), (type(dist).__name__, x.mean(0))
        np.testing.assert_allclose(x.var(0), var, rtol=0.15)
    counts = np.bincount(D.Categorical(T64([1.0, 2.0, 3.0])).sample([N], key=KEY).numpy(), minlength=3) / N
    np.testing.assert_allclose(counts, np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum(), atol=0.03)
    m = D.Multinomial(8, T64([0.2, 0.3, 0.5])).sample([N], key=KEY).numpy()
    assert (m.sum(-1) == 8).all()
    np.testing.assert_allclose(m.mean(0), [1.6, 2.4, 4.0], atol=0.1)


def test_multivariate_samples():
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    x = D.MultivariateNormal(T64([1.0, -1.0]), covariance_matrix=T64(cov)).sample([N], key=KEY).numpy()
    np.testing.assert_allclose(x.mean(0), [1.0, -1.0], atol=0.1)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.15)
    d = D.Dirichlet(T64([2.0, 3.0, 5.0])).sample([N], key=KEY).numpy()
    assert scipy.stats.kstest(d[:, 2], scipy.stats.beta(5.0, 5.0).cdf).pvalue > 1e-3
    for method in ("onion", "cvine"):
        L = D.LKJCholesky(3, 1.5, method).sample([200], key=KEY).numpy()
        corr = L @ np.swapaxes(L, -1, -2)
        np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-6)
        assert np.allclose(np.triu(L, 1), 0) and (np.abs(corr) <= 1 + 1e-6).all()
        # LKJ(eta) in 3-D: each off-diagonal correlation is Beta(eta + 1/2, eta + 1/2) on [-1, 1]
        r = (corr[:, 1, 0] + 1) / 2
        assert scipy.stats.kstest(r, scipy.stats.beta(2.0, 2.0).cdf).pvalue > 1e-3


def test_same_draws_eagerly_under_vmap_and_under_jit():
    keys = random.split(random.key(7), 3)
    for make in (lambda: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), lambda: D.Gamma(T([0.5, 2.0]), T([1.0, 1.0])),
                 lambda: D.Beta(T([0.5]), T([2.0])), lambda: D.Poisson(T([4.0]))):
        eager = np.stack([make().sample([4], key=keys[i]).numpy() for i in range(3)])
        batched = paddle.vmap(lambda k: make().sample([4], key=k))(keys).numpy()
        compiled = paddle.jit(lambda k: make().sample([4], key=k))(keys[2]).numpy()
        np.testing.assert_array_equal(batched, eager)
        np.testing.assert_allclose(compiled, eager[2], rtol=1e-5)


ALL = [lambda: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), lambda: D.Uniform(T(0.0), T(2.0)),
       lambda: D.Bernoulli(T([0.3])), lambda: D.Categorical(T([1.0, 2.0, 3.0])), lambda: D.Beta(T(0.5), T(2.0)),
       lambda: D.Dirichlet(T([1.0, 2.0])), lambda: D.Gamma(T(0.5), T(2.0)), lambda: D.Chi2(T(3.0)),
       lambda: D.Exponential(T(2.0)), lambda: D.Laplace(T(0.0), T(1.0)), lambda: D.Cauchy(T(0.0), T(1.0)),
       lambda: D.Gumbel(T(0.0), T(1.0)), lambda: D.LogNormal(T(0.0), T(1.0)),
       lambda: D.StudentT(T(3.0), T(0.0), T(1.0)),
       lambda: D.Geometric(T(0.3)), lambda: D.Poisson(T(4.0)), lambda: D.Binomial(T(10.0), T(0.3)),
       lambda: D.Multinomial(5, T([0.2, 0.8])), lambda: D.ContinuousBernoulli(T([0.3])),
       lambda: D.MultivariateNormal(T([0.0, 1.0]), scale_tril=T([[1.0, 0.0], [0.5, 2.0]])),
       lambda: D.LKJCholesky(3, 2.0), lambda: D.Independent(D.Normal(T([0.0, 1.0]), T([1.0, 1.0])), 1),
       lambda: D.TransformedDistribution(D.Normal(T(0.0), T(1.0)), [D.TanhTransform()])]


@pytest.mark.parametrize("make", ALL, ids=lambda make: type(make()).__name__)
def test_every_distribution_draws_the_same_per_key_under_vmap(make):
    keys = random.split(random.key(5), 2)
    eager = np.stack([make().sample([8], key=keys[i]).numpy() for i in range(2)])
    np.testing.assert_array_equal(paddle.vmap(lambda k: make().sample([8], key=k))(keys).numpy(), eager)
    assert not np.array_equal(eager[0], eager[1])


def test_global_seed_draws_repeat():
    paddle.seed(3)
    a = D.Normal(0.0, 1.0).sample([5]).numpy()
    paddle.seed(3)
    np.testing.assert_array_equal(D.Normal(0.0, 1.0).sample([5]).numpy(), a)


def test_rsample_gradients():
    k = random.key(1)
    # d/dloc and d/dscale of E[x] and E[x**2] for the normal: 1 and 2 * scale
    g_loc, g_scale = paddle.grad(lambda m, s: (D.Normal(m, s).rsample([N], key=k) ** 2).mean(), argnums=(0, 1))(
        T64(0.0), T64(1.5))
    assert abs(float(g_loc)) < 0.1 and abs(float(g_scale) - 3.0) < 0.2
    # implicit reparameterization: d/da E[x] = 1 for Gamma(a, 1), d/da E[x] = b / (a + b)**2 for Beta(a, b)
    g = paddle.grad(lambda a: D.Gamma(a, T64(1.0)).rsample([N], key=k).mean())(T64(2.5))
    assert abs(float(g) - 1.0) < 0.05
    g = paddle.grad(lambda a: D.Beta(a, T64(3.0)).rsample([N], key=k).mean())(T64(2.0))
    assert abs(float(g) - 3.0 / 25.0) < 0.01
    g = paddle.grad(lambda c: D.Dirichlet(c).rsample([N], key=k)[:, 0].mean())(T64([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), [2 / 9, -1 / 9], atol=0.02)
    # KL and log_prob differentiate too
    g = paddle.grad(lambda m: D.kl_divergence(D.Normal(m, T64(1.0)), D.Normal(T64(0.0), T64(1.0))))(T64(0.7))
    assert abs(float(g) - 0.7) < 1e-12
    g = paddle.jit(paddle.grad(lambda x: D.MultivariateNormal(
        x, covariance_matrix=T64([[2.0, 0.5], [0.5, 1.0]])).log_prob(T64([0.0, 0.0]))))(T64([1.0, 1.0]))
    np.testing.assert_allclose(g.numpy(), -np.linalg.solve([[2.0, 0.5], [0.5, 1.0]], [1.0, 1.0]), rtol=1e-10)


def test_entropy_of_exponential_family_from_log_normalizer():
    # the generic Bregman entropy (ExponentialFamily.entropy) agrees with the closed forms
    for dist in (D.Gamma(T64([0.5, 3.0]), T64([1.0, 2.0])), D.Beta(T64([0.5, 2.0]), T64([1.5, 3.0])),
                 D.Dirichlet(T64([1.0, 2.0, 3.0])), D.Exponential(T64([0.5, 3.0])), D.Bernoulli(T64([0.2, 0.7]))):
        np.testing.assert_allclose(D.ExponentialFamily.entropy(dist).numpy(), dist.entropy().numpy(), rtol=1e-10)


def test_register_kl_dispatches_to_the_most_specific_pair():
    class Narrow(D.Normal):
        pass

    @D.register_kl(Narrow, D.Normal)
    def _narrow(p, q):
        return paddle.full([], 42.0)

    assert float(D.kl_divergence(Narrow(0.0, 1.0), D.Normal(0.0, 1.0))) == 42.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 1.0))) == 0.0
    with pytest.raises(NotImplementedError, match="no closed form"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
    with pytest.raises(TypeError, match="subclasses of Distribution"):
        D.register_kl(int, D.Normal)


@pytest.mark.parametrize("make, match", [
    (lambda: D.Normal(0.0, -1.0), "scale must be positive"),
    (lambda: D.Normal(T([0.0, 1.0]), T([1.0, 1.0, 1.0])), "do not broadcast"),
    (lambda: D.Normal("a", 1.0), "must be a float"),
    (lambda: D.Normal(paddle.to_tensor([1, 2]), 1.0), "float Tensor"),
    (lambda: D.Uniform(1.0, 0.5), "high above low"),
    (lambda: D.Bernoulli(1.5), r"in \[0, 1\]"),
    (lambda: D.Beta(0.5, 0.0), "beta must be positive"),
    (lambda: D.Dirichlet(T(1.0)), "at least one axis"),
    (lambda: D.Multinomial(0, T([0.5, 0.5])), "total_count"),
    (lambda: D.MultivariateNormal(T([0.0, 0.0])), "exactly one"),
    (lambda: D.MultivariateNormal(T([0.0, 0.0]), covariance_matrix=T([[1.0]])), "1x1"),
    (lambda: D.Independent(D.Normal(0.0, 1.0), 1), "reinterpreted_batch_rank"),
    (lambda: D.LKJCholesky(1), "at least 2"),
    (lambda: D.ReshapeTransform((2, 3), (4,)), "different numbers"),
    (lambda: D.Normal(0.0, 1.0).sample(3), "sequence of ints"),
])
def test_bad_arguments_get_clear_errors(make, match):
    with pytest.raises((ValueError, TypeError), match=match):
        make()


def test_batch_and_event_shapes():
    assert D.Normal(T([0.0, 1.0]), T(1.0)).batch_shape == (2,)
    mvn = D.MultivariateNormal(T([[0.0, 0.0]] * 3), covariance_matrix=T([[1.0, 0.0], [0.0, 1.0]]))
    assert (mvn.batch_shape, mvn.event_shape) == ((3,), (2,))
    assert mvn.sample([4], key=KEY).shape == [4, 3, 2] and mvn.log_prob(T([0.0, 0.0])).shape == [3]
    td = D.TransformedDistribution(D.Normal(T([0.0, 0.0]), T([1.0, 1.0])), [D.StickBreakingTransform()])
    assert (td.batch_shape, td.event_shape) == ((), (3,))
    assert td.sample([5], key=KEY).shape == [5, 3]
    lkj = D.LKJCholesky(3, T([1.0, 2.0]))
    assert (lkj.batch_shape, lkj.event_shape) == ((2,), (3, 3)) and lkj.sample([4], key=KEY).shape == [4, 2, 3, 3]
    assert D.ExpTransform()(D.Normal(0.0, 1.0)).sample([2], key=KEY).shape == [2]
