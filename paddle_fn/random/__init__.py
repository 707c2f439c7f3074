"""Random numbers: functional, counter-based (JAX-like), plus Paddle's global-seed helpers on top.

**Functional API** (``paddle_fn.random.*``). A key is a ``uint32[2]`` Tensor; every function is a pure function
of its key, so the same key gives the same numbers eagerly, under ``jit`` and under ``vmap``, and a batch of
keys under ``vmap`` gives independent draws per lane. Never reuse a key for two draws: derive new ones with
`split` or `fold_in`.

    >>> from paddle_fn import random
    >>> k = random.key(0)
    >>> k_noise, k_init = random.split(k)
    >>> random.normal(k_noise, (2, 3)).shape
    paddle.Size([2, 3])

How the bits are made. Everything comes from the Threefry-2x32 block cipher (primitive
``paddle_fn.prims.random_bits.threefry2x32``). A draw of shape ``S`` from key ``(k1, k2)`` encrypts, for the
element of row-major flat index ``i``, the 64-bit counter ``(hi, lo) = (0, i)``; this gives two 32-bit words
``(y1, y2)`` per element, and ``random_bits`` returns ``y1 ^ y2``. This is the layout of JAX's
``jax_threefry_partitionable`` mode. Each element depends only on the key and its own index, never on how a
computation is batched. Other details:

* ``key(seed)`` holds the 64-bit two's complement of ``seed`` as ``[hi, lo]``.
* ``split(key, n)[i]`` is ``(y1, y2)`` for counter ``(0, i)``, so ``fold_in(key, i) == split(key, n)[i]``.
* ``uniform`` makes JAX's float: the top ``nmant`` random bits as the mantissa of a number in [1, 2), minus 1
  (23 bits for float32; for float64 the 52 bits are y1 and the top 20 bits of y2, JAX's 64-bit draw ``y1:y2``),
  then ``u * (max - min) + min`` rounded once. ``normal`` is ``sqrt(2) * erf_inv(u)`` with ``u`` uniform in the
  open interval (-1, 1); ``randint``, ``permutation``, ``choice`` and ``categorical`` follow JAX's algorithms too,
  so the same key gives JAX's numbers (docs/random.md says which bit for bit).

**Distributions** (``gamma``, ``loggamma``, ``beta``, ``dirichlet``, ``exponential``, ``poisson``,
``categorical``, ``binomial``, ``multinomial``) follow JAX's algorithms step by step (see `gamma_samplers` and
`discrete`), so the same key gives JAX's draws; ``gamma`` (and so ``beta`` and ``dirichlet``) is differentiable in its
concentration by implicit reparameterization. The rest of ``jax.random``'s samplers (``chisquare``, ``f``, ``t``,
``pareto``, ``weibull_min``, ``rayleigh``, ``wald``, ``lognormal``, ``triangular``, ``geometric``, ``rademacher``,
``maxwell``, ``double_sided_maxwell``, ``generalized_normal``, ``ball``, ``multivariate_normal``, ``orthogonal``)
are built on these as JAX builds them (`derived`), with JAX's signatures. docs/random.md tabulates which draws
are JAX's bit for bit and why the others are not.

**Paddle-style API**: `seed`, `rand`, `randn`, `standard_normal`, `randperm`, `paddle_randint`,
`paddle_uniform`, `paddle_normal`, `paddle_poisson`, `paddle_bernoulli`, `paddle_multinomial`, `standard_gamma`,
`paddle_binomial`, `get_rng_state` and `set_rng_state`. `PADDLE_API` maps their Paddle names to them. They draw
from a global key: each call splits it, so ``seed(1); a = rand([2]); seed(1); b = rand([2])`` gives ``a == b``.
Without `seed` the global key starts from OS entropy, as Paddle's default generator does. Use these in eager code. Under ``jit`` the
key a call takes is fixed when the function is traced, so every run of the compiled function gives the same
numbers. In code you transform, pass keys explicitly. ``paddle.jit.to_static`` is the exception: it runs the
program inside `traced_global_key` with a key drawn from the global generator on each call, so these functions
(and Dropout) draw fresh numbers per call there. Their ``name`` arguments are accepted for Paddle
compatibility and ignored.
"""
from paddle_fn.random.derived import (ball, chisquare, double_sided_maxwell, f, generalized_normal, geometric,
                                     lognormal, maxwell, multivariate_normal, orthogonal, pareto, rademacher, rayleigh,
                                     t, triangular, wald, weibull_min)
from paddle_fn.random.discrete import binomial, multinomial, poisson
from paddle_fn.random.gamma_samplers import beta, dirichlet, gamma, loggamma
from paddle_fn.random.global_seed import (PADDLE_API, global_key_is_traced, global_key_state, advance_global_key,
                                          get_rng_state, next_global_key, paddle_bernoulli, paddle_binomial,
                                          paddle_multinomial,
                                          paddle_normal, paddle_poisson, paddle_randint, paddle_uniform, rand,
                                          rand_like, randint_like, randn, randn_like, randperm, seed, set_rng_state,
                                          standard_gamma, standard_normal, traced_draws, traced_global_key)
from paddle_fn.random.keys import PRNGKey, fold_in, key, random_bits, split
from paddle_fn.random.continuous import categorical, cauchy, choice, exponential, gumbel, laplace, logistic
from paddle_fn.random.samplers import bernoulli, normal, permutation, randint, truncated_normal, uniform

__all__ = ["key", "PRNGKey", "split", "fold_in", "random_bits", "uniform", "normal", "truncated_normal", "bernoulli", "randint",
           "permutation", "choice", "categorical", "exponential", "laplace", "logistic", "gumbel", "cauchy", "seed", "rand", "randn", "standard_normal", "paddle_randint", "paddle_uniform",
           "paddle_normal", "randperm", "rand_like", "randn_like", "randint_like", "traced_global_key",
           "traced_draws", "global_key_state", "advance_global_key", "global_key_is_traced", "PADDLE_API",
           "gamma", "loggamma", "beta", "dirichlet", "poisson", "binomial", "chisquare", "f", "t", "pareto", "weibull_min",
           "rayleigh", "wald", "lognormal", "triangular", "geometric", "rademacher", "maxwell", "double_sided_maxwell",
           "generalized_normal", "ball", "multivariate_normal", "orthogonal",
           "multinomial", "paddle_poisson", "paddle_bernoulli", "paddle_multinomial", "standard_gamma",
           "paddle_binomial", "get_rng_state", "set_rng_state", "next_global_key"]
