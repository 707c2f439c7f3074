"""Record jax.random draws (jax 0.10.2, CPU, threefry partitionable: JAX's default) for tests/test_random_jax.py.

Run from /tmp with the peers' site-packages (JAX is never a dependency of paddle_fn):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 .../tests/data/gen_jax_random.py OUT.npz
Each entry is one draw; float32/int32 draws are made with JAX's defaults (x64 off), float64 ones under
`jax.enable_x64`. The test compares the bits.
"""
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import random

out = {}


def draws(suffix, fdt):
    k = random.PRNGKey(42)
    k2 = random.PRNGKey(7)
    out[f"uniform_{suffix}"] = random.uniform(k, (64,), fdt)
    out[f"uniform_range_{suffix}"] = random.uniform(k2, (4, 8), fdt, -2.0, 3.0)
    out[f"normal_{suffix}"] = random.normal(k, (64,), fdt)
    out[f"truncated_normal_{suffix}"] = random.truncated_normal(k2, -1.0, 2.0, (64,), fdt)
    out[f"truncated_normal_open_{suffix}"] = random.truncated_normal(k, -np.inf, 0.5, (64,), fdt)
    out[f"bernoulli_{suffix}"] = random.bernoulli(k, jnp.asarray(0.3, fdt), (64,))
    out[f"exponential_{suffix}"] = random.exponential(k, (64,), fdt)
    out[f"laplace_{suffix}"] = random.laplace(k, (64,), fdt)
    out[f"logistic_{suffix}"] = random.logistic(k, (64,), fdt)
    out[f"gumbel_{suffix}"] = random.gumbel(k, (64,), fdt)
    out[f"cauchy_{suffix}"] = random.cauchy(k, (64,), fdt)
    logits = jnp.log(jnp.asarray([0.1, 0.2, 0.3, 0.4], fdt))
    out[f"categorical_{suffix}"] = random.categorical(k, logits, shape=(64,))
    out[f"categorical_2d_{suffix}"] = random.categorical(k2, jnp.tile(logits, (3, 1)), axis=-1)
    p = jnp.asarray([0.1, 0.2, 0.3, 0.4], fdt)
    out[f"choice_p_{suffix}"] = random.choice(k, 4, (32,), p=p)
    out[f"choice_p_noreplace_{suffix}"] = random.choice(k, 4, (3,), replace=False, p=p)


TRUNCATION_BOUNDS = [(-1.0, 2.0), (-np.inf, 0.5), (0.5, np.inf), (-3.0, -2.0)]


def transformed_draws(suffix, fdt):
    """Many keys and shapes of the samplers that apply a transcendental function to a uniform draw."""
    for seed, shape in [(0, (1000,)), (1, (1000,)), (2, (1000,)), (3, (5, 7)), (4, ())]:
        k = random.PRNGKey(seed)
        out[f"bulk_normal_{seed}_{suffix}"] = random.normal(k, shape, fdt)
        for i, (lo, hi) in enumerate(TRUNCATION_BOUNDS):
            out[f"bulk_truncated_normal{i}_{seed}_{suffix}"] = random.truncated_normal(k, lo, hi, shape, fdt)
        out[f"bulk_exponential_{seed}_{suffix}"] = random.exponential(k, shape, fdt)
        out[f"bulk_laplace_{seed}_{suffix}"] = random.laplace(k, shape, fdt)
        out[f"bulk_logistic_{seed}_{suffix}"] = random.logistic(k, shape, fdt)
        out[f"bulk_gumbel_{seed}_{suffix}"] = random.gumbel(k, shape, fdt)


for seed in (0, 1):  # 16-bit floats: bfloat16 draws 8 bits, float16 16; the functions run in float32
    k = random.PRNGKey(seed)
    for name, fdt in (("bf16", jnp.bfloat16), ("f16", jnp.float16)):
        out[f"uniform_{seed}_{name}"] = random.uniform(k, (500,), fdt).astype(jnp.float32)
        out[f"normal_{seed}_{name}"] = random.normal(k, (500,), fdt).astype(jnp.float32)
        out[f"exponential_{seed}_{name}"] = random.exponential(k, (500,), fdt).astype(jnp.float32)

INT64_BOUNDS = [(0, 10), (-2 ** 62, 2 ** 62), (-2 ** 63, 2 ** 63 - 1), (5, 3), (-7, 2 ** 40 + 3), (0, 2 ** 63 - 1)]

draws("f32", jnp.float32)
transformed_draws("f32", jnp.float32)
k = random.PRNGKey(42)
out["randint_i32"] = random.randint(k, (64,), 0, 10, jnp.int32)
out["randint_wide_i32"] = random.randint(random.PRNGKey(3), (64,), -5, 2 ** 31 - 1, jnp.int32)
out["randint_i8"] = random.randint(k, (64,), -100, 100, jnp.int8)
out["randint_array_bounds_i32"] = random.randint(k, (2, 3), jnp.asarray([0, 10, 20]), jnp.asarray([5, 100, 21]), jnp.int32)
out["permutation_10"] = random.permutation(k, 10)
out["permutation_2000"] = random.permutation(k, 2000)
out["permutation_rows"] = random.permutation(random.PRNGKey(1), jnp.arange(12.0).reshape(4, 3))
out["permutation_axis1"] = random.permutation(random.PRNGKey(1), jnp.arange(12.0).reshape(3, 4), axis=1)
out["choice_replace"] = random.choice(k, 10, (16,))
out["choice_noreplace"] = random.choice(k, jnp.arange(100.0, 110.0), (5,), replace=False)
with jax.enable_x64(True):
    draws("f64", jnp.float64)
    transformed_draws("f64", jnp.float64)
    for i, (lo, hi) in enumerate(INT64_BOUNDS):
        out[f"randint_i64_{i}"] = random.randint(random.PRNGKey(i), (200,), lo, hi, jnp.int64)
    out["randint_i64_array_bounds"] = random.randint(
        k, (2, 3), jnp.asarray([0, -2 ** 62, 20]), jnp.asarray([5, 2 ** 62, 21]), jnp.int64)
np.savez(sys.argv[1], **{name: np.asarray(v) for name, v in out.items()}, jax_version=np.asarray(jax.__version__))
print(len(out), "draws")
