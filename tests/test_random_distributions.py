"""The gamma-family and discrete samplers of paddle_fn.random: JAX's draws on the same keys (recorded by
tests/data/gen_jax_samplers.py with jax 0.10.2), statistics, the implicit-reparameterization gradient, and the
same bits eagerly, under vmap and under jit."""
import json
import pathlib

import numpy as np
import pytest
import scipy.special
import scipy.stats

import paddle_fn as paddle
from paddle_fn import random

JAX = json.loads((pathlib.Path(__file__).parent / "data" / "jax_samplers.json").read_text())
T = paddle.to_tensor

CASES = {
    "gamma": lambda k: random.gamma(k, T([0.3, 0.5, 1.0, 2.0, 5.0, 40.0], "float32")),
    "loggamma": lambda k: random.loggamma(k, T([0.01, 0.5, 3.0], "float32")),
    "gamma_grad": lambda k: paddle.grad(lambda a: random.gamma(k, a).sum())(T([0.5, 1.0, 2.0, 5.0], "float32")),
    "beta": lambda k: random.beta(k, 2.0, 5.0, (4,), "float32"),
    "dirichlet": lambda k: random.dirichlet(k, T([1.0, 2.0, 3.0], "float32"), (2,)),
    "exponential": lambda k: random.exponential(k, (4,), "float32"),
    "poisson": lambda k: random.poisson(k, T([0.5, 3.0, 12.0, 50.0, 0.0], "float32")),
    "categorical": lambda k: random.categorical(k, T([[0.1, 0.5, 0.2], [1.0, 2.0, 3.0]], "float32"), shape=(4, 2)),
    "binomial": lambda k: random.binomial(k, T([5.0, 10.0, 20.0], "float32"), T([0.3, 0.8, 0.5], "float32")),
    "binomial_btrs": lambda k: random.binomial(k, T([50.0, 200.0, 1000.0, 30.0, np.inf], "float32"),
                                               T([0.4, 0.9, 0.5, -0.1, 0.3], "float32")),
    "multinomial": lambda k: random.multinomial(k, 10.0, T([0.2, 0.3, 0.5], "float32"), shape=(2, 3)),
}


@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("name", sorted(CASES))
def test_draws_match_jax(name, seed):
    got = CASES[name](random.key(seed)).numpy()
    want = np.asarray(JAX[name][str(seed)])
    # the uniform/normal bits agree with JAX's up to the last ulp of float32 rounding, so continuous draws
    # agree to float32 precision and integer draws exactly
    np.testing.assert_allclose(got, want, rtol=2e-5 if got.dtype.kind == "f" else 0, atol=1e-6)


def test_gamma_ks_and_moments():
    for a in (0.2, 1.0, 3.5):
        x = random.gamma(random.key(3), a, [3000], "float64").numpy()
        assert scipy.stats.kstest(x, scipy.stats.gamma(a).cdf).pvalue > 1e-3
        assert abs(x.mean() - a) < 5 * np.sqrt(a / 3000)


def test_beta_dirichlet_poisson_ks():
    x = random.beta(random.key(1), 0.7, 2.0, [3000], "float64").numpy()
    assert scipy.stats.kstest(x, scipy.stats.beta(0.7, 2.0).cdf).pvalue > 1e-3
    d = random.dirichlet(random.key(2), T([2.0, 3.0, 5.0], "float64"), [3000]).numpy()
    assert scipy.stats.kstest(d[:, 0], scipy.stats.beta(2.0, 8.0).cdf).pvalue > 1e-3
    for lam in (2.5, 30.0):
        p = random.poisson(random.key(4), lam, [3000]).numpy()
        assert abs(p.mean() - lam) < 5 * np.sqrt(lam / 3000) and abs(p.var() / lam - 1) < 0.15
    b = random.binomial(random.key(5), 40, 0.7, [3000]).numpy()
    assert abs(b.mean() - 28) < 5 * np.sqrt(8.4 / 3000) and b.max() <= 40


def test_gamma_gradient_is_implicit_reparameterization():
    a = T([0.05, 0.5, 2.0, 9.0, 150.0, 900.0, 5e3, 1e6], "float64")
    x = T([1e-8, 0.3, 4.0, 7.0, 160.0, 950.0, 4.9e3, 1e6 - 2e3], "float64")
    from paddle_fn.random.gamma_samplers import gamma_sample_grad
    got = gamma_sample_grad(a, x).numpy()
    an, xn, h = a.numpy(), x.numpy(), 1e-6
    want = -(scipy.special.gammainc(an + h, xn) - scipy.special.gammainc(an - h, xn)) / (2 * h) \
        / scipy.stats.gamma.pdf(xn, an)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_same_bits_eager_vmap_jit():
    keys = random.split(random.key(11), 3)
    alpha = T([0.4, 2.0], "float32")
    eager = np.stack([random.gamma(keys[i], alpha).numpy() for i in range(3)])
    batched = paddle.vmap(lambda k: random.gamma(k, alpha))(keys).numpy()
    compiled = paddle.jit(lambda k: random.gamma(k, alpha))(keys[1]).numpy()
    np.testing.assert_array_equal(batched, eager)
    np.testing.assert_allclose(compiled, eager[1], rtol=1e-6)
    pois = paddle.vmap(lambda k: random.poisson(k, 3.0, [4]))(keys).numpy()
    np.testing.assert_array_equal(pois, np.stack([random.poisson(keys[i], 3.0, [4]).numpy() for i in range(3)]))


def test_paddle_global_forms():
    paddle.seed(5)
    state = paddle.get_rng_state()
    a = paddle.standard_gamma(paddle.full([4], 2.0)).numpy()
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(paddle.standard_gamma(paddle.full([4], 2.0)).numpy(), a)
    assert paddle.poisson(paddle.full([3], 2.0)).dtype == paddle.float32
    assert paddle.binomial(T([3, 4]), T([0.5, 0.5])).dtype == paddle.int64
    rows = paddle.multinomial(T([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]), 2).numpy()
    assert rows.shape == (2, 2) and all(len(set(r)) == 2 for r in rows) and 2 not in rows[1]
    draws = paddle.multinomial(T([0.25, 0.75]), 4000, replacement=True).numpy()
    assert abs(draws.mean() - 0.75) < 0.03
    np.testing.assert_array_equal(paddle.bernoulli(T([0.0, 1.0])).numpy(), [0.0, 1.0])
    with pytest.raises(ValueError, match="num_samples"):
        paddle.multinomial(T([0.5, 0.5]), 3)
