"""Discrete samplers, drawn as JAX draws them: `poisson`, `categorical`, `binomial`, `multinomial`.

`poisson` is Knuth's product of uniforms below rate 10 and Hormann's transformed rejection above, both run over
the whole array on the same key and selected per element, as ``jax.random.poisson``. `categorical` is the argmax
of Gumbel noise plus the logits, as ``jax.random.categorical``. `binomial` is JAX's inversion algorithm (sums of
geometric jumps) on ``q = min(p, 1 - p)`` where ``count * q <= 10`` and its BTRS rejection sampler above.
`multinomial` draws binomials along the categories, as ``jax.random.multinomial``.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import reduce_sum
from paddle_fn.prims.control_flow import scan, while_loop
from paddle_fn.prims.reduction import cumsum
from paddle_fn.random import xla_math
from paddle_fn.random.gamma_samplers import _broadcast_shapes, _key_at, _like
from paddle_fn.random.keys import _broadcast_operand, _check_key, _float_dtype, _full, _static_shape, split
from paddle_fn.random.samplers import uniform


def _any(pred):
    """A bool array -> a 0-d bool: is any element True."""
    as_int = el.convert_element_type(pred, new_dtype=dtypes.int32)
    return el.gt(reduce_sum(as_int, axes=tuple(range(get_aval(pred).ndim))), Tensor(np.int32(0)))


def _int_dtype(fn, dtype):
    dt = dtypes.as_dtype(dtype)
    if dt.kind not in "iu":
        raise DTypeError(f"{fn}: dtype must be an integer dtype, got {dt.name}")
    return dt


def _parameter(fn, what, value, shape):
    """A rate/probability parameter as a float Tensor of `shape` (default: its own shape) and its dtype."""
    if isinstance(value, Tensor):
        dt = _float_dtype(fn, get_aval(value).dtype)
        shape = tuple(get_aval(value).shape) if shape is None else _static_shape(fn, shape)
    else:
        dt = dtypes.default_float_dtype()
        shape = () if shape is None else _static_shape(fn, shape)
    return _broadcast_operand(fn, what, value, shape, dt), shape, dt


def _poisson_knuth(key, lam, shape, dt):
    """Count uniforms until their product falls below exp(-lam) (every element, one shared loop)."""
    c = _like(lam)
    neg_lam = el.neg(lam)

    def running(carry):
        return _any(el.gt(carry[2], neg_lam))

    def step(carry):
        k, rng, log_prod = carry
        halves = split(rng)
        k = el.select(el.gt(log_prod, neg_lam), el.add(k, c(1)), k)
        return k, _key_at(halves, 0), el.add(log_prod, xla_math.log(uniform(_key_at(halves, 1), shape, dt)))

    k, _, _ = while_loop(running, step, (c(0), key, c(0)))
    return el.sub(k, c(1))


def _transformed_rejection(key, shape, dt, propose):
    """The loop of JAX's transformed-rejection samplers: each trip splits the key in three, draws u uniform in
    [-1/2, 1/2) and v uniform in [0, 1) (keys 1 and 2), and ``propose(u, v) -> (k, accept)``; an element keeps its
    first accepted k, and the loop ends when every element has one."""
    def running(carry):
        return _any(bw.not_(carry[1]))

    def step(carry):
        k_out, accepted, rng = carry
        keys = split(rng, 3)
        u = el.sub(uniform(_key_at(keys, 1), shape, dt), _full(shape, 0.5, dt))
        k, accept = propose(u, uniform(_key_at(keys, 2), shape, dt))
        return el.select(accept, k, k_out), bw.or_(accepted, accept), _key_at(keys, 0)

    k, _, _ = while_loop(running, step, (_full(shape, -1, dt), _full(shape, False, dtypes.bool_), key))
    return k


def _poisson_rejection(key, lam, shape, dt):
    """Hormann's transformed rejection (PTRS) for rates of 10 and more."""
    c = _like(lam)
    log_lam = xla_math.log(lam)
    b = el.add(c(0.931), el.mul(c(2.53), el.sqrt(lam)))
    a = el.add(c(-0.059), el.mul(c(0.02483), b))
    inv_alpha = el.add(c(1.1239), el.div(c(1.1328), el.sub(b, c(3.4))))
    v_r = el.sub(c(0.9277), el.div(c(3.6224), el.sub(b, c(2))))

    def propose(u, v):
        u_shifted = el.sub(c(0.5), el.abs(u))
        k = el.floor(el.add(el.add(el.mul(el.add(el.div(el.mul(c(2), a), u_shifted), b), u), lam), c(0.43)))
        s = xla_math.log(el.div(el.mul(v, inv_alpha), el.add(el.div(a, el.mul(u_shifted, u_shifted)), b)))
        t = el.sub(el.add(el.neg(lam), el.mul(k, log_lam)), el.lgamma(el.add(k, c(1))))
        accept1 = bw.and_(el.ge(u_shifted, c(0.07)), el.le(v, v_r))
        reject = bw.or_(el.lt(k, c(0)), bw.and_(el.lt(u_shifted, c(0.013)), el.gt(v, u_shifted)))
        return k, bw.or_(accept1, bw.and_(bw.not_(reject), el.le(s, t)))

    return _transformed_rejection(key, shape, dt, propose)


def poisson(key, lam, shape=None, dtype="int64"):
    """Poisson(lam) counts, as ``jax.random.poisson`` (Knuth below rate 10, transformed rejection above), computed
    in float32 whatever `lam`'s dtype, as JAX does.

    Args:
        key: a uint32[2] key.
        lam: the rate, a Python float or a float Tensor broadcastable to `shape`.
        shape: output shape; default: `lam`'s shape.
        dtype: an integer dtype (default int64).

    Example:
        >>> from paddle_fn import random
        >>> x = random.poisson(random.key(0), 4.0, [4000]).numpy()
        >>> x.dtype, bool(abs(x.mean() - 4) < 0.15)
        (dtype('int64'), True)
    """
    _check_key("poisson", key)
    out_dt = _int_dtype("poisson", dtype)
    lam, shape, _ = _parameter("poisson", "lam", lam, shape)
    lam, dt = el.convert_element_type(lam, new_dtype=dtypes.float32), dtypes.float32  # as JAX: float32 whatever lam's
    c = _like(lam)
    use_knuth = bw.or_(el.ne(lam, lam), el.lt(lam, c(10)))
    knuth = _poisson_knuth(key, el.select(use_knuth, lam, c(0)), shape, dt)
    rejection = _poisson_rejection(key, el.select(use_knuth, c(1e5), lam), shape, dt)
    result = el.select(el.eq(lam, c(0)), c(0), el.select(use_knuth, knuth, rejection))
    return el.convert_element_type(result, new_dtype=out_dt)


def _binomial_inversion(key, count, q, shape, dt):
    """Count geometric(q) jumps until their sum passes `count`."""
    c = _like(q)
    log1m_q = el.log1p(el.neg(q))

    def running(carry):
        return _any(el.le(carry[1], count))

    def step(carry):
        num_geom, geom_sum, rng = carry
        halves = split(rng)
        num_geom = el.select(el.le(geom_sum, count), el.add(num_geom, c(1)), num_geom)
        u = uniform(_key_at(halves, 0), shape, dt)
        geom = el.ceil(el.div(el.log(u), log1m_q))
        return num_geom, el.add(geom_sum, geom), _key_at(halves, 1)

    k, _, _ = while_loop(running, step, (c(0), c(0), key))
    return el.sub(k, c(1))


# Stirling's series tail log(k!) - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2 at k = 0 .. 9 (BTRS's table)
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    """The table below k = 10, the series' first terms above (evaluated at the clamped k, as JAX does)."""
    c = _like(k)
    in_table = el.le(k, c(9))
    clamped = el.clamp(c(0), k, c(9))
    kp1sq = el.mul(el.add(clamped, c(1)), el.add(clamped, c(1)))
    out = el.div(el.sub(c(1 / 12), el.div(el.sub(c(1 / 360), el.div(c(1 / 1260), kp1sq)), kp1sq)),
                 el.add(clamped, c(1)))
    index = el.floor(clamped)
    for i, value in enumerate(_STIRLING_TAIL):
        out = el.select(bw.and_(in_table, el.eq(index, c(i))), c(value), out)
    return out


def _btrs(key, count, prob, shape, dt):
    """Hormann's transformed rejection with squeeze (BTRS), for count * q above 10."""
    c = _like(prob)
    stddev = el.sqrt(el.mul(el.mul(count, prob), el.sub(c(1), prob)))
    b = el.add(c(1.15), el.mul(c(2.53), stddev))
    a = el.add(el.add(c(-0.0873), el.mul(c(0.0248), b)), el.mul(c(0.01), prob))
    center = el.add(el.mul(count, prob), c(0.5))
    v_r = el.sub(c(0.92), el.div(c(4.2), b))
    r = el.div(prob, el.sub(c(1), prob))
    alpha = el.mul(el.add(c(2.83), el.div(c(5.1), b)), stddev)
    m = el.floor(el.mul(el.add(count, c(1)), prob))
    # the k-independent part of the log acceptance bound
    bound_m = el.mul(el.add(m, c(0.5)), el.log(el.div(el.add(m, c(1)), el.mul(r, el.add(el.sub(count, m), c(1))))))

    def propose(u, v):
        us = el.sub(c(0.5), el.abs(u))
        accept1 = bw.and_(el.ge(us, c(0.07)), el.le(v, v_r))
        k = el.floor(el.add(el.mul(el.add(el.div(el.mul(c(2), a), us), b), u), center))
        reject = bw.or_(el.lt(k, c(0)), el.gt(k, count))
        log_v = el.log(el.div(el.mul(v, alpha), el.add(el.div(a, el.mul(us, us)), b)))
        # the bound matters only where k is not rejected: elsewhere evaluate it at m, inside its domain
        k_in_range = el.select(reject, m, k)
        count_m1 = el.add(el.sub(count, m), c(1))
        count_k1 = el.add(el.sub(count, k_in_range), c(1))
        bound = el.add(bound_m, el.mul(el.add(count, c(1)), el.log(el.div(count_m1, count_k1))))
        log_ratio_k = el.log(el.div(el.mul(r, count_k1), el.add(k_in_range, c(1))))
        bound = el.add(bound, el.mul(el.add(k_in_range, c(0.5)), log_ratio_k))
        bound = el.add(el.add(bound, _stirling_tail(m)), _stirling_tail(el.sub(count, m)))
        bound = el.sub(el.sub(bound, _stirling_tail(k_in_range)), _stirling_tail(el.sub(count, k_in_range)))
        return k, bw.or_(accept1, bw.and_(bw.not_(reject), el.le(log_v, bound)))

    return _transformed_rejection(key, shape, dt, propose)


def binomial(key, count, prob, shape=None, dtype=None):
    """Binomial(count, prob) counts as floats, as ``jax.random.binomial``: inversion where ``count * q <= 10``
    (q = min(p, 1 - p)), BTRS rejection above; NaN where count < 0 or prob is NaN or below 0, inf where count is.

    Args:
        count: the number of trials, a number or a Tensor broadcastable to `shape`.
        prob: the success probability, likewise.
        shape: output shape; default: the broadcast shape of count and prob.
        dtype: float dtype of the result; default: prob's (or the default float dtype).

    Example:
        >>> from paddle_fn import random
        >>> x = random.binomial(random.key(0), 10, 0.3, [4000]).numpy()
        >>> bool(abs(x.mean() - 3) < 0.1 and x.min() >= 0 and x.max() <= 10)
        True
    """
    _check_key("binomial", key)
    tensors = [v for v in (count, prob) if isinstance(v, Tensor)]
    if shape is None:
        shape = _broadcast_shapes("binomial", *(tuple(get_aval(t).shape) for t in tensors))
    shape = _static_shape("binomial", shape)
    float_params = [get_aval(t).dtype for t in tensors if get_aval(t).dtype.kind == "f"]
    dt = _float_dtype("binomial", dtype if dtype is not None else (float_params[-1] if float_params else None))
    count = _broadcast_operand("binomial", "count", count, shape, dt)
    prob = _broadcast_operand("binomial", "prob", prob, shape, dt)
    c = _like(prob)
    p_lt_half = el.lt(prob, c(0.5))
    q = el.select(p_lt_half, prob, el.sub(c(1), prob))
    count_nan_or_neg = bw.or_(el.ne(count, count), el.lt(count, c(0)))
    count_inf = el.eq(el.abs(count), c(np.inf))
    q_is_nan, q_below_0 = el.ne(q, q), el.lt(q, c(0))
    q = el.select(bw.or_(q_is_nan, q_below_0), c(0.01), q)
    use_inversion = bw.or_(count_nan_or_neg, el.le(el.mul(count, q), c(10)))
    count = el.floor(count)
    inversion = _binomial_inversion(key, el.select(use_inversion, count, c(0)), q, shape, dt)
    # lanes of the other method (and of an infinite count, whose result is set below) get harmless parameters
    skip_btrs = bw.or_(use_inversion, count_inf)
    rejection = _btrs(key, el.select(skip_btrs, c(1e4), count), el.select(skip_btrs, c(0.5), q), shape, dt)
    samples = el.select(use_inversion, inversion, rejection)
    invalid = bw.or_(bw.or_(q_below_0, q_is_nan), count_nan_or_neg)
    samples = el.select(invalid, c(np.nan), samples)
    samples = el.select(bw.and_(count_inf, bw.not_(invalid)), c(np.inf), samples)
    keep = bw.or_(bw.or_(p_lt_half, count_nan_or_neg), bw.or_(q_is_nan, count_inf))
    return el.select(keep, samples, el.sub(el.select(count_inf, c(0), count), samples))


def multinomial(key, n, p, shape=None, dtype=None):
    """Multinomial(n, p) count vectors along the last axis of `p`, as ``jax.random.multinomial``: a binomial per
    category (keys ``split(key, k)``) of the trials the earlier categories left.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> x = random.multinomial(random.key(0), 10, paddle.to_tensor([0.2, 0.3, 0.5]), shape=[3, 3])
        >>> x.numpy().sum(-1).tolist()
        [10.0, 10.0, 10.0]
    """
    _check_key("multinomial", key)
    if not isinstance(p, Tensor) or get_aval(p).ndim < 1:
        raise ShapeError("multinomial: p must be a float Tensor with at least one axis (the categories)")
    dt = _float_dtype("multinomial", get_aval(p).dtype if dtype is None else dtype)
    shape = tuple(get_aval(p).shape) if shape is None else _static_shape("multinomial", shape)
    k = shape[-1]
    p = _broadcast_operand("multinomial", "p", p, shape, dt)
    n = _broadcast_operand("multinomial", "n", n, shape[:-1], dt)
    first = tuple(range(1, len(shape))) + (0,)
    p_front = st.transpose(p, permutation=(len(shape) - 1,) + tuple(range(len(shape) - 1)))
    remaining = cumsum(p_front, axis=0, reverse=True)
    front_shape = shape[-1:] + shape[:-1]
    ones = _full(front_shape, 1, dt)
    ratios = el.div(p_front, el.select(el.eq(remaining, _full(front_shape, 0, dt)), ones, remaining))

    def one_category(remainder, ratio_key):
        ratio, sub = ratio_key
        ratio = el.clamp(_full(shape[:-1], 0, dt), ratio, _full(shape[:-1], 1, dt))
        count = binomial(sub, remainder, ratio, shape[:-1], dt)
        return el.sub(remainder, count), count

    _, counts = scan(one_category, n, (ratios, split(key, k)))
    return st.transpose(counts, permutation=first)
