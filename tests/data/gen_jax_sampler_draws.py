"""Record jax.random's draws of the cases in jax_sampler_cases.py (and XLA's exp on a grid) for
tests/test_random_samplers_jax.py. Run from /tmp with JAX on the path (never from the test suite):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 /path/to/tests/data/gen_jax_sampler_draws.py
It rewrites jax_sampler_draws.npz next to this file. Produced with jax 0.10.2 on x86-64 CPU (threefry,
partitionable bits): float32 draws with JAX's defaults, float64 ones under jax_enable_x64 (its default float is
then float64, as paddle_fn's after set_default_dtype('float64')).
"""
import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np

HERE = pathlib.Path(__file__).parent
sys.path.insert(0, str(HERE))
from jax_sampler_cases import EXP_ARGS, cases  # noqa: E402

out = {"jax_version": np.asarray(jax.__version__)}


def record(dt):
    for name, draw in cases(jax.random, lambda v, d: jnp.asarray(v, d)).items():
        out[f"{name}_{dt}"] = np.asarray(draw(jax.random.key(0), dt))
    rng = np.random.default_rng(0)
    spread = {"float32": 100.0, "float64": 740.0}[dt]
    x = np.concatenate([EXP_ARGS[dt], rng.uniform(-spread, spread, 1000), rng.normal(0, 3, 1000)]).astype(dt)
    out[f"exp_args_{dt}"] = x
    out[f"exp_{dt}"] = np.asarray(jax.jit(jnp.exp)(x))
    if dt == "float64":  # XLA calls glibc's log here; float32 log is XLA's expansion (tests/test_random_jax.py)
        logs = np.concatenate([[5e-324, 1e-310, 0.5, 1.0, 2.0], rng.uniform(0, 1, 3000),
                               np.exp(rng.uniform(-700, 700, 1000))])
        out["log_args_float64"] = logs
        out["log_float64"] = np.asarray(jax.jit(jnp.log)(logs))


record("float32")
with jax.enable_x64(True):
    record("float64")
np.savez_compressed(HERE / "jax_sampler_draws.npz", **out)
print(len(out), "arrays")
