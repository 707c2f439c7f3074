"""paddle_fn.random against jax.random on the same keys: draws recorded from jax 0.10.2 (CPU, JAX's default
threefry-partitionable bits) by tests/data/gen_jax_random.py into tests/data/jax_random.npz.

Bit for bit: uniform, bernoulli, randint (8/16/32-bit), permutation, choice, categorical. The samplers that apply
a transcendental function to a uniform draw (normal's erf_inv, exponential's log1p, gumbel's log, cauchy's tan...)
use JAX's formulas on the same uniform bits; eagerly the function is numpy's/scipy's, which rounds differently from
XLA's CPU approximations by the few ulp measured below (float32 normal compiled through IREE is bit for bit)."""
import os

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import random

JAX = np.load(os.path.join(os.path.dirname(__file__), "data", "jax_random.npz"))
FLOATS = {"f32": "float32", "f64": "float64"}


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int64 if a.dtype == np.float64 else np.int32).astype(np.int64)


def ulps(got, name):
    want = JAX[name]
    got = np.asarray(got.numpy())
    assert got.dtype == want.dtype and got.shape == want.shape, name
    return int(np.abs(_bits(got) - _bits(want)).max())


def same(got, name):
    np.testing.assert_array_equal(np.asarray(got.numpy()), JAX[name], err_msg=name)


@pytest.mark.parametrize("suffix", ["f32", "f64"])
def test_uniform_and_bernoulli_are_bit_identical(suffix):
    dt = FLOATS[suffix]
    assert ulps(random.uniform(random.key(42), (64,), dt), f"uniform_{suffix}") == 0
    assert ulps(random.uniform(random.key(7), (4, 8), dt, -2.0, 3.0), f"uniform_range_{suffix}") == 0
    same(random.bernoulli(random.key(42), paddle.to_tensor(0.3, dtype=dt), (64,)), f"bernoulli_{suffix}")


def test_uniform_is_bit_identical_under_jit_and_vmap():
    keys = paddle.stack([random.key(7), random.key(7)])
    assert ulps(paddle.jit(lambda k: random.uniform(k, (4, 8), "float32", -2.0, 3.0))(random.key(7)),
                "uniform_range_f32") == 0
    assert ulps(paddle.jit(lambda k: random.uniform(k, (4, 8), "float64", -2.0, 3.0))(random.key(7)),
                "uniform_range_f64") == 0
    assert ulps(paddle.vmap(lambda k: random.uniform(k, (4, 8), "float32", -2.0, 3.0))(keys)[1],
                "uniform_range_f32") == 0
    # IREE's float32 erf_inv is XLA's: compiled, normal is JAX's bit for bit
    assert ulps(paddle.jit(lambda k: random.normal(k, (64,), "float32"))(random.key(42)), "normal_f32") == 0


def test_integer_samplers_are_bit_identical():
    k = random.key(42)
    same(random.randint(k, (64,), 0, 10), "randint_i32")
    same(random.randint(random.key(3), (64,), -5, 2 ** 31 - 1, "int32"), "randint_wide_i32")
    same(random.randint(k, (64,), -100, 100, "int8"), "randint_i8")
    same(random.randint(k, (2, 3), paddle.to_tensor([0, 10, 20]), paddle.to_tensor([5, 100, 21])),
         "randint_array_bounds_i32")
    same(paddle.jit(lambda kk: random.randint(kk, (64,), 0, 10))(k), "randint_i32")
    same(random.permutation(k, 10), "permutation_10")
    same(random.permutation(k, 2000), "permutation_2000")  # two sorting rounds
    same(random.permutation(random.key(1), paddle.arange(12.0).reshape([4, 3])), "permutation_rows")
    same(random.permutation(random.key(1), paddle.arange(12.0).reshape([3, 4]), axis=1), "permutation_axis1")
    same(random.choice(k, 10, (16,)), "choice_replace")
    same(random.choice(k, paddle.arange(100.0, 110.0), (5,), replace=False), "choice_noreplace")


@pytest.mark.parametrize("suffix", ["f32", "f64"])
def test_categorical_and_weighted_choice_are_bit_identical(suffix):
    dt = FLOATS[suffix]
    k = random.key(42)
    logits = paddle.log(paddle.to_tensor([0.1, 0.2, 0.3, 0.4], dtype=dt))
    np.testing.assert_array_equal(random.categorical(k, logits, shape=(64,)).numpy(), JAX[f"categorical_{suffix}"])
    np.testing.assert_array_equal(random.categorical(random.key(7), paddle.tile(logits, [3, 1]), axis=-1).numpy(),
                                  JAX[f"categorical_2d_{suffix}"])
    p = paddle.to_tensor([0.1, 0.2, 0.3, 0.4], dtype=dt)
    np.testing.assert_array_equal(random.choice(k, 4, (32,), p=p).numpy(), JAX[f"choice_p_{suffix}"])
    np.testing.assert_array_equal(random.choice(k, 4, (3,), replace=False, p=p).numpy(),
                                  JAX[f"choice_p_noreplace_{suffix}"])


# measured eagerly against jax 0.10.2: the largest distance in ulp over the 64 draws (XLA's CPU erf_inv, log, log1p
# and tan round differently from numpy/scipy's; 0 means identical)
ULP_BOUNDS = {
    "normal": {"f32": 3, "f64": 16}, "truncated_normal": {"f32": 2, "f64": 11},
    "truncated_normal_open": {"f32": 3, "f64": 465}, "exponential": {"f32": 1, "f64": 117},
    "laplace": {"f32": 1, "f64": 64}, "logistic": {"f32": 4, "f64": 234}, "gumbel": {"f32": 30, "f64": 0},
    "cauchy": {"f32": 1, "f64": 0},
}


@pytest.mark.parametrize("suffix", ["f32", "f64"])
def test_transformed_samplers_follow_jax_within_the_measured_ulps(suffix):
    dt = FLOATS[suffix]
    k, k7 = random.key(42), random.key(7)
    draws = {
        "normal": random.normal(k, (64,), dt),
        "truncated_normal": random.truncated_normal(k7, -1.0, 2.0, (64,), dt),
        "truncated_normal_open": random.truncated_normal(k, -np.inf, 0.5, (64,), dt),
        "exponential": random.exponential(k, (64,), dt), "laplace": random.laplace(k, (64,), dt),
        "logistic": random.logistic(k, (64,), dt), "gumbel": random.gumbel(k, (64,), dt),
        "cauchy": random.cauchy(k, (64,), dt),
    }
    for name, got in draws.items():
        assert ulps(got, f"{name}_{suffix}") <= ULP_BOUNDS[name][suffix], name
    t = draws["truncated_normal"].numpy()
    assert t.min() > -1.0 and t.max() < 2.0  # the open interval, as JAX


def test_sampler_errors_name_the_fix():
    with pytest.raises(paddle.ShapeError, match="categorical"):
        random.categorical(random.key(0), paddle.ones([2, 3]), shape=(5,))
    with pytest.raises(ValueError, match="without replacement"):
        random.choice(random.key(0), 3, (4,), replace=False)
    with pytest.raises(paddle.ShapeError, match="p must be"):
        random.choice(random.key(0), 3, (2,), p=paddle.ones([4]))
