"""Record jax.random's draws for the samplers of paddle_fn.random.gamma_samplers / .discrete (tests/test_random_distributions.py).

Run from /tmp with JAX on the path (never from the test suite):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 /path/to/tests/data/gen_jax_samplers.py
It rewrites jax_samplers.json next to this file. Produced with jax 0.10.2 (threefry, partitionable mode).
"""
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

# JAX's defaults (float32, 32-bit split counters): with jax_enable_x64 its gamma splits keys differently
jax.config.update("jax_threefry_partitionable", True)

CASES = {
    "gamma": lambda k: jax.random.gamma(k, jnp.array([0.3, 0.5, 1.0, 2.0, 5.0, 40.0], jnp.float32)),
    "loggamma": lambda k: jax.random.loggamma(k, jnp.array([0.01, 0.5, 3.0], jnp.float32)),
    "gamma_grad": lambda k: jax.grad(lambda a: jax.random.gamma(k, a).sum())(jnp.array([0.5, 1.0, 2.0, 5.0],
                                                                                       jnp.float32)),
    "beta": lambda k: jax.random.beta(k, 2.0, 5.0, (4,), jnp.float32),
    "dirichlet": lambda k: jax.random.dirichlet(k, jnp.array([1.0, 2.0, 3.0], jnp.float32), (2,)),
    "exponential": lambda k: jax.random.exponential(k, (4,), jnp.float32),
    "poisson": lambda k: jax.random.poisson(k, jnp.array([0.5, 3.0, 12.0, 50.0, 0.0], jnp.float32)),
    "categorical": lambda k: jax.random.categorical(k, jnp.array([[0.1, 0.5, 0.2], [1.0, 2.0, 3.0]], jnp.float32),
                                                    shape=(4, 2)),
    "binomial": lambda k: jax.random.binomial(k, jnp.array([5.0, 10.0, 20.0], jnp.float32),
                                              jnp.array([0.3, 0.8, 0.5], jnp.float32)),
    "binomial_btrs": lambda k: jax.random.binomial(k, jnp.array([50.0, 200.0, 1000.0, 30.0, jnp.inf], jnp.float32),
                                                   jnp.array([0.4, 0.9, 0.5, -0.1, 0.3], jnp.float32)),
    "multinomial": lambda k: jax.random.multinomial(k, 10.0, jnp.array([0.2, 0.3, 0.5], jnp.float32), shape=(2, 3)),
}

out = {name: {str(seed): np.asarray(fn(jax.random.key(seed))).tolist() for seed in (0, 7)}
       for name, fn in CASES.items()}
(pathlib.Path(__file__).parent / "jax_samplers.json").write_text(json.dumps(out, indent=1) + "\n")
