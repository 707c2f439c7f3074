"""Gamma-family samplers, drawn as JAX draws them (`gamma`, `loggamma`, `beta`, `dirichlet`, `exponential`).

`gamma` is Marsaglia and Tsang's rejection method, one element at a time with its own key: the element of flat
index ``i`` uses ``split(key, n)[i]`` and loops until its proposal is accepted. The per-element loop is batched
over the elements, so elements finish at different trips. Every step follows JAX 0.10.2's order of operations,
so the draws equal ``jax.random.gamma`` on the same key (up to the last-ulp differences of ``log``/``pow``
between backends, which can flip a rare accept/reject decision).

The samples are differentiable in `a` by implicit reparameterization (Figurnov et al., 2018), as in JAX:
``dx/da = -(dF(x; a)/da) / p(x; a)`` with ``F`` the regularized lower incomplete gamma function. The derivative
of ``F`` comes from its power series when ``x < a + 1`` and from its continued fraction otherwise, each with a
fixed number of terms, and above a = 1000 from the Wilson-Hilferty approximation, so the rule is an ordinary
composite that ``jit``, ``vmap`` and higher transforms see.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.batching import vmap_flat
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import reduce_sum
from paddle_fn.prims.control_flow import fori_loop, while_loop
from paddle_fn.prims.custom_derivatives import custom_jvp
from paddle_fn.prims.reduction import reduce_max
from paddle_fn.random import xla_math
from paddle_fn.random.continuous import exponential
from paddle_fn.random.xla_math import fused_multiply_add as fma
from paddle_fn.random.keys import _broadcast_operand, _check_key, _const, _float_dtype, _full, _static_shape, split
from paddle_fn.random.samplers import normal, uniform

# terms of the series / continued fraction in the gradient rule: enough for float64 accuracy up to a ~ 1000,
# above which (_LARGE_A) the Wilson-Hilferty approximation is accurate to 1e-5 and used instead
_GRAD_TERMS = 200
_LARGE_A = 1000.0


def _key_at(keys, i):
    """Row `i` of a uint32[n, 2] array of keys."""
    return st.reshape(st.slice(keys, start_indices=(i, 0), limit_indices=(i + 1, 2)), new_sizes=(2,))


def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha, 1) draw (or its log) for a 0-d `alpha`: Marsaglia-Tsang, boosted by U**(1/alpha) below 1."""
    dt = get_aval(alpha).dtype

    def c(v):
        return _const(v, dt)

    boost_mask = el.ge(alpha, c(1))
    boosted = el.select(boost_mask, alpha, el.add(alpha, c(1)))
    d = el.sub(boosted, c(1 / 3))
    scale = el.mul(c(1 / 3), el.div(c(1), el.sqrt(d)))

    def rejected(state):
        _, x2, v, u = state
        squeeze = el.ge(u, fma(c(-0.0331), el.mul(x2, x2), c(1)))
        exact = el.ge(xla_math.log(u), fma(x2, c(0.5), el.mul(d, el.add(el.sub(c(1), v), xla_math.log(v)))))
        return bw.and_(squeeze, exact)

    def propose(state):
        keys = split(state[0], 3)
        next_key, x_key, u_key = (_key_at(keys, i) for i in range(3))

        def next_normal(kxv):
            halves = split(kxv[0])
            x = normal(_key_at(halves, 1), (), dt)
            return _key_at(halves, 0), x, fma(x, scale, c(1))

        _, x, v = while_loop(lambda kxv: el.le(kxv[2], c(0)), next_normal, (x_key, c(0), c(-1)))
        return next_key, el.mul(x, x), el.mul(el.mul(v, v), v), uniform(u_key, (), dt)

    halves = split(key)
    _, _, v, _ = while_loop(rejected, propose, (_key_at(halves, 0), c(0), c(1), c(2)))
    subkey = _key_at(halves, 1)
    if log_space:
        log_u = el.neg(exponential(subkey, (), dt))
        log_boost = el.select(bw.or_(boost_mask, el.eq(log_u, c(0))), c(0), el.mul(log_u, el.div(c(1), alpha)))
        return el.add(el.add(xla_math.log(d), xla_math.log(v)), log_boost)
    u = el.sub(c(1), uniform(subkey, (), dt))
    boost = el.select(boost_mask, c(1), xla_math.pow(u, el.div(c(1), alpha)))
    return el.mul(el.mul(d, v), boost)


def _gamma_draws(key, a, log_space):
    """Gamma draws for every element of `a` (any shape), element i from ``split(key, a.size)[i]``."""
    shape = get_aval(a).shape
    n = math.prod(shape)
    keys = split(key, n)
    flat = st.reshape(a, new_sizes=(n,))
    draws = vmap_flat(lambda k, x: [_gamma_one(k, x, log_space)], [keys, flat], [0, 0], n, [0])[0]
    return st.reshape(draws, new_sizes=shape)


def _like(a):
    """Make constants (or a loop counter's value) of a's shape and dtype: primitives do not broadcast."""
    aval = get_aval(a)

    def make(v):
        if isinstance(v, Tensor):  # a loop counter
            return st.broadcast_in_dim(el.convert_element_type(v, new_dtype=aval.dtype), shape=aval.shape,
                                       broadcast_dimensions=())
        return _full(aval.shape, v, aval.dtype)
    return make


def _series_dxda(a, x):
    """d x / d a for x ~ Gamma(a) when x < a + 1, from P(a, x) = x**a e**-x / Gamma(a + 1) * sum_n t_n with
    t_n = prod_{k<=n} x / (a + k); the ratio of the series' prefix to the density is x / a."""
    c = _like(a)

    def term(n, carry):
        t, dt_da, s, ds = carry
        inv = el.div(c(1), el.add(a, c(n)))  # 1 / (a + n)
        ratio = el.mul(x, inv)
        t_new = el.mul(t, ratio)
        dt_new = el.mul(el.sub(dt_da, el.mul(t, inv)), ratio)
        return t_new, dt_new, el.add(s, t_new), el.add(ds, dt_new)

    _, _, s, ds = fori_loop(1, _GRAD_TERMS, term, (c(1), c(0), c(1), c(0)))
    dp_da_over_prefix = el.add(el.mul(s, el.sub(el.log(x), el.digamma(el.add(a, c(1))))), ds)
    return el.neg(el.mul(el.div(x, a), dp_da_over_prefix))


def _fraction_dxda(a, x):
    """d x / d a for x ~ Gamma(a) when x >= a + 1, from Q(a, x) = x**a e**-x / Gamma(a) * f with the continued
    fraction f = 1 / (b_0 - a_1 / (b_1 - a_2 / ...)), b_n = x + 2n + 1 - a, a_n = n (n - a), evaluated from its
    tail together with its derivative in a; the ratio of Q's prefix to the density is x."""
    c = _like(a)

    def level(i, carry):
        g, dg = carry
        n = el.sub(c(_GRAD_TERMS - 1), c(i))
        a_n = el.mul(n, el.sub(n, a))
        b_n = el.sub(el.add(x, el.add(el.mul(c(2), n), c(1))), a)
        denom = el.sub(b_n, g)
        # d a_n / da = -n, d b_n / da = -1
        dg_new = el.div(el.sub(el.mul(el.neg(n), denom), el.mul(a_n, el.sub(c(-1), dg))), el.mul(denom, denom))
        return el.div(a_n, denom), dg_new

    g, dg = fori_loop(0, _GRAD_TERMS - 1, level, (c(0), c(0)))
    denom = el.sub(el.sub(el.add(x, c(1)), a), g)
    f = el.div(c(1), denom)
    df = el.div(el.add(c(1), dg), el.mul(denom, denom))  # d(1/denom)/da, with d denom/da = -1 - dg
    dq_da_over_prefix = el.add(el.mul(f, el.sub(el.log(x), el.digamma(a))), df)
    return el.mul(x, dq_da_over_prefix)


def _wilson_hilferty_dxda(a, x):
    """d x / d a for large a, holding the Wilson-Hilferty normal approximation of the CDF fixed:
    z = ((x/a)**(1/3) - 1 + s) / sqrt(s), s = 1 / (9a), gives dx/da = x / (a y) (3/2 + 3s/2 - y/2), y = (x/a)**(1/3);
    its relative error is below 1e-5 from a = 1000 on."""
    c = _like(a)
    s = el.div(c(1), el.mul(c(9), a))
    y = el.pow(el.div(x, a), c(1 / 3))
    return el.mul(el.div(x, el.mul(a, y)), el.sub(el.add(c(1.5), el.mul(c(1.5), s)), el.mul(c(0.5), y)))


def gamma_sample_grad(a, x):
    """The implicit-reparameterization derivative ``dx/da`` of Gamma(a, 1) samples `x` (float Tensors, one shape).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random.gamma_samplers import gamma_sample_grad
        >>> a, x = paddle.to_tensor([2.0], 'float64'), paddle.to_tensor([1.5], 'float64')
        >>> round(float(gamma_sample_grad(a, x)[0]), 6)
        0.936639
    """
    c = _like(a)
    x = el.max(x, c(dtypes.finfo(get_aval(x).dtype).tiny))
    use_series = el.lt(x, el.add(a, c(1)))
    # each branch sees arguments inside its own domain, so the other's NaNs/infs cannot leak through the select
    xs = el.select(use_series, x, el.mul(a, c(0.5)))
    xf = el.select(use_series, el.add(a, c(2)), x)
    exact = el.select(use_series, _series_dxda(a, xs), _fraction_dxda(a, xf))
    return el.select(el.gt(a, c(_LARGE_A)), _wilson_hilferty_dxda(a, x), exact)


def _standard_gamma(key, a, log_space):
    return _gamma_draws(key, a, log_space)


_standard_gamma = custom_jvp(_standard_gamma, nondiff_argnums=(0, 2))


@_standard_gamma.defjvp
def _standard_gamma_jvp(key, log_space, primals, tangents):  # JAX's convention: the nondiff arguments first
    (a,) = primals
    out = _standard_gamma(key, a, log_space)
    if log_space:
        x = el.exp(out)
        return out, el.mul(tangents[0], el.div(gamma_sample_grad(a, x), x))
    return out, el.mul(tangents[0], gamma_sample_grad(a, out))


def _shaped_parameter(fn, what, a, shape, dtype):
    """`a` converted to the sampler's float dtype and broadcast to `shape` (default: `a`'s own shape)."""
    if isinstance(a, Tensor):
        dt = _float_dtype(fn, get_aval(a).dtype if dtype is None else dtype)
        shape = tuple(get_aval(a).shape) if shape is None else _static_shape(fn, shape)
    else:
        dt = _float_dtype(fn, dtype)
        shape = () if shape is None else _static_shape(fn, shape)
    return _broadcast_operand(fn, what, a, shape, dt)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) floats, as ``jax.random.gamma``: divide by a rate (or multiply by a scale) for other scales.

    Differentiable in `a` (implicit reparameterization).

    Args:
        key: a uint32[2] key.
        a: the concentration, a Python float or a float Tensor broadcastable to `shape`.
        shape: output shape; default: `a`'s shape.
        dtype: float dtype; default: `a`'s dtype (a Tensor) or the default float dtype.

    Example:
        >>> from paddle_fn import random
        >>> x = random.gamma(random.key(0), 3.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 3.0) < 0.1 and abs(x.var() - 3.0) < 0.3)
        True
    """
    _check_key("gamma", key)
    return _standard_gamma(key, _shaped_parameter("gamma", "a", a, shape, dtype), False)


def loggamma(key, a, shape=None, dtype=None):
    """The logarithm of Gamma(a, 1) draws, computed in log space (exact for small `a`), as ``jax.random.loggamma``;
    ``exp(loggamma(k, a))`` equals ``gamma(k, a)`` up to rounding.

    Example:
        >>> from paddle_fn import random
        >>> x = random.loggamma(random.key(0), 0.01, [3], 'float64').numpy()
        >>> bool((x < 0).all())
        True
    """
    _check_key("loggamma", key)
    return _standard_gamma(key, _shaped_parameter("loggamma", "a", a, shape, dtype), True)


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) floats, as ``jax.random.beta``: two log-gamma draws (keys ``split(key)``) normalized in log space.

    Example:
        >>> from paddle_fn import random
        >>> x = random.beta(random.key(0), 2.0, 5.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 2 / 7) < 0.01)
        True
    """
    _check_key("beta", key)
    if shape is None:
        shapes = [tuple(get_aval(v).shape) for v in (a, b) if isinstance(v, Tensor)]
        shape = _broadcast_shapes("beta", *shapes)
    tensors = [v for v in (a, b) if isinstance(v, Tensor)]
    dt = _float_dtype("beta", get_aval(tensors[0]).dtype if dtype is None and tensors else dtype)
    shape = _static_shape("beta", shape)
    a = _broadcast_operand("beta", "a", a, shape, dt)
    b = _broadcast_operand("beta", "b", b, shape, dt)
    halves = split(key)
    log_a = _standard_gamma(_key_at(halves, 0), a, True)
    log_b = _standard_gamma(_key_at(halves, 1), b, True)
    log_max = el.max(log_a, log_b)
    scaled_a = xla_math.exp(el.sub(log_a, log_max))
    scaled_b = xla_math.exp(el.sub(log_b, log_max))
    return el.div(scaled_a, el.add(scaled_a, scaled_b))


def _broadcast_shapes(fn, *shapes):
    """numpy's broadcast of parameter shapes, with an error naming `fn` on a mismatch."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ShapeError(f"{fn}: parameter shapes {[list(s) for s in shapes]} do not broadcast together; pass "
                         "Tensors whose shapes broadcast (numpy rules)") from None


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) vectors along the last axis of `alpha`, as ``jax.random.dirichlet``: log-gamma draws
    normalized with a softmax.

    Args:
        alpha: concentrations, a float Tensor of rank >= 1 (the last axis is the event).
        shape: the batch shape; default: ``alpha.shape[:-1]``. The result has shape ``shape + alpha.shape[-1:]``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> x = random.dirichlet(random.key(0), paddle.to_tensor([1.0, 2.0, 3.0]), [5])
        >>> x.shape, bool(abs(x.sum(-1).numpy() - 1).max() < 1e-5)
        (paddle.Size([5, 3]), True)
    """
    _check_key("dirichlet", key)
    if not isinstance(alpha, Tensor) or get_aval(alpha).ndim < 1:
        raise ValueError("dirichlet: alpha must be a float Tensor with at least one axis (the event axis), got "
                         f"{get_aval(alpha).str_short() if isinstance(alpha, Tensor) else type(alpha).__name__}")
    event = tuple(get_aval(alpha).shape[-1:])
    batch = tuple(get_aval(alpha).shape[:-1]) if shape is None else _static_shape("dirichlet", shape)
    log_g = _standard_gamma(key, _shaped_parameter("dirichlet", "alpha", alpha, batch + event, dtype), True)
    last = len(batch)
    shifted = el.sub(log_g, st.broadcast_in_dim(reduce_max(log_g, axes=(last,)), shape=batch + event,
                                                broadcast_dimensions=tuple(range(last))))
    e = xla_math.exp(shifted)
    # XLA rewrites the division by a broadcast sum as a product with its reciprocal
    total = reduce_sum(e, axes=(last,))
    inverse = el.div(_full(get_aval(total).shape, 1.0, get_aval(total).dtype), total)
    return el.mul(e, st.broadcast_in_dim(inverse, shape=batch + event, broadcast_dimensions=tuple(range(last))))
