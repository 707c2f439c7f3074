"""Samplers built from the others, written as JAX 0.10.2 writes them (same keys, splits and order of operations,
XLA's CPU math from `xla_math`), so the same key gives ``jax.random``'s draws: `chisquare`, `f`, `t`, `pareto`,
`weibull_min`, `rayleigh`, `wald`, `lognormal`, `triangular`, `geometric`, `rademacher`, `maxwell`,
`double_sided_maxwell`, `generalized_normal`, `ball`, `multivariate_normal`, `orthogonal`.

As in JAX, a ``shape`` of None means the broadcast shape of the parameters, and ``dtype`` defaults to the default
float dtype (not the parameters')."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import linalg as la
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import reduce_sum
from paddle_fn.random import xla_math
from paddle_fn.random.continuous import exponential
from paddle_fn.random.discrete import _int_dtype
from paddle_fn.random.gamma_samplers import _broadcast_shapes, _key_at, gamma, loggamma
from paddle_fn.random.keys import _broadcast_operand, _check_key, _float_dtype, _full, _static_shape, split
from paddle_fn.random.samplers import _as_operand, bernoulli, normal, uniform


def _setup(fn, key, shape, dtype, **params):
    """JAX's checks and defaults: the key, the float dtype, the shape (None: the parameters' broadcast shape) and
    each parameter broadcast to it in that dtype."""
    _check_key(fn, key)
    dt = _float_dtype(fn, dtype)
    shapes = [tuple(get_aval(v).shape) for v in params.values() if isinstance(v, Tensor)]
    if shape is None:
        shape = _broadcast_shapes(fn, *shapes)
    shape = _static_shape(fn, shape)
    return dt, shape, [_broadcast_operand(fn, name, v, shape, dt) for name, v in params.items()]


def _halves(key):
    keys = split(key)
    return _key_at(keys, 0), _key_at(keys, 1)


def _c(x, value):
    return _full(get_aval(x).shape, value, get_aval(x).dtype)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-squared floats with `df` degrees of freedom: ``2 exp(loggamma(df / 2))``, as ``jax.random.chisquare``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.chisquare(random.key(0), 3.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 3.0) < 0.2)
        True
    """
    dt, shape, (df,) = _setup("chisquare", key, shape, dtype, df=df)
    return _chisquare(key, df)


def _chisquare(key, df):
    return el.mul(xla_math.exp(loggamma(key, el.div(df, _c(df, 2.0)))), _c(df, 2.0))


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distributed floats, ``(chi2(dfnum) / dfnum) / (chi2(dfden) / dfden)``, as ``jax.random.f`` (the
    denominator's chi-squared from the first half of ``split(key)``).

    Example:
        >>> from paddle_fn import random
        >>> x = random.f(random.key(0), 3.0, 10.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 10 / 8) < 0.1)
        True
    """
    dt, shape, (dfnum, dfden) = _setup("f", key, shape, dtype, dfnum=dfnum, dfden=dfden)
    key_den, key_num = _halves(key)
    num = el.div(_chisquare(key_num, dfnum), dfnum)
    return el.div(num, el.div(_chisquare(key_den, dfden), dfden))


def t(key, df, shape=None, dtype=None):
    """Student's t floats, ``normal * sqrt((df / 2) / gamma(df / 2))``, as ``jax.random.t``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.t(random.key(0), 5.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.1 and abs(x.var() - 5 / 3) < 0.3)
        True
    """
    dt, shape, (df,) = _setup("t", key, shape, dtype, df=df)
    key_n, key_g = _halves(key)
    n = normal(key_n, shape, dt)
    half_df = el.div(df, _c(df, 2.0))
    return el.mul(n, el.sqrt(el.div(half_df, gamma(key_g, half_df))))


def pareto(key, b, shape=None, dtype=None):
    """Pareto floats with shape parameter `b` (support [1, inf)): ``exp(exponential / b)``, as ``jax.random.pareto``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.pareto(random.key(0), 3.0, [4000], 'float64').numpy()
        >>> bool(x.min() >= 1 and abs(x.mean() - 1.5) < 0.1)
        True
    """
    dt, shape, (b,) = _setup("pareto", key, shape, dtype, b=b)
    return xla_math.exp(el.div(exponential(key, shape, dt), b))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull floats, ``(-log1p(-u)) ** (1 / concentration) * scale`` (the inverse CDF), as
    ``jax.random.weibull_min``; `shape` must hold the parameters' broadcast shape.

    Example:
        >>> from paddle_fn import random
        >>> x = random.weibull_min(random.key(0), 2.0, 1.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 2.0) < 0.15)
        True
    """
    dt, shape, (scale, concentration) = _setup("weibull_min", key, shape, dtype, scale=scale,
                                               concentration=concentration)
    u = uniform(key, shape, dt)
    root = xla_math.pow(el.neg(xla_math.log1p(el.neg(u))), el.div(_c(u, 1.0), concentration))
    return el.mul(root, scale)


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh floats, ``scale * sqrt(-2 log(u))``, as ``jax.random.rayleigh``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.rayleigh(random.key(0), 1.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - (3.14159265 / 2) ** 0.5) < 0.05)
        True
    """
    dt, shape, (scale,) = _setup("rayleigh", key, shape, dtype, scale=scale)
    u = uniform(key, shape, dt)
    return el.mul(scale, el.sqrt(el.mul(xla_math.log(u), _c(u, -2.0))))


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) floats with the given `mean` and scale 1, by Michael, Schucany and Haas's
    transformation of a normal draw and a uniform one (keys ``split(key)``), as ``jax.random.wald``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.wald(random.key(0), 2.0, [4000], 'float64').numpy()
        >>> bool(x.min() > 0 and abs(x.mean() - 2.0) < 0.2)
        True
    """
    dt, shape, (mean,) = _setup("wald", key, shape, dtype, mean=mean)
    key_v, key_z = _halves(key)
    v = normal(key_v, shape, dt)
    z = uniform(key_z, shape, dt)
    y = el.mul(v, v)
    mean_sq = el.mul(mean, mean)
    fma = xla_math.fused_multiply_add  # XLA contracts each product that feeds one sum
    sqrt_term = el.sqrt(fma(el.mul(_c(y, 4.0), mean), y, el.mul(mean_sq, el.mul(y, y))))
    half = _c(y, 0.5)
    x = fma(el.neg(el.mul(mean, half)), sqrt_term, fma(el.mul(mean_sq, y), half, mean))
    return el.select(el.le(z, el.div(mean, el.add(mean, x))), x, el.div(mean_sq, x))


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal floats, ``exp(sigma * normal)``, as ``jax.random.lognormal``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.lognormal(random.key(0), 0.5, [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 2.718281828 ** 0.125) < 0.05)
        True
    """
    dt, shape, (sigma,) = _setup("lognormal", key, shape, dtype, sigma=sigma)
    return xla_math.exp(el.mul(normal(key, shape, dt), sigma))


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular floats on [left, right] peaking at `mode`, by the inverse CDF, as ``jax.random.triangular``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.triangular(random.key(0), 0.0, 0.3, 1.0, [4000], 'float64').numpy()
        >>> bool(x.min() >= 0 and x.max() <= 1 and abs(x.mean() - 1.3 / 3) < 0.02)
        True
    """
    dt, shape, (left, mode, right) = _setup("triangular", key, shape, dtype, left=left, mode=mode, right=right)
    width = el.sub(right, left)
    u = uniform(key, shape, dt)
    low = el.add(left, el.sqrt(el.mul(el.mul(u, width), el.sub(mode, left))))
    high = el.sub(right, el.sqrt(el.mul(el.mul(el.sub(_c(u, 1.0), u), width), el.sub(right, mode))))
    return el.select(el.lt(u, el.div(el.sub(mode, left), width)), low, high)


def geometric(key, p, shape=None, dtype="int32"):
    """Geometric integers (trials up to the first success, support 1, 2, ...): ``floor(log(u) / log1p(-p)) + 1``
    with u uniform in (0, 1], in `p`'s float dtype, as ``jax.random.geometric``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.geometric(random.key(0), 0.25, [4000]).numpy()
        >>> x.dtype, bool(x.min() >= 1 and abs(x.mean() - 4) < 0.3)
        (dtype('int32'), True)
    """
    _check_key("geometric", key)
    out_dt = _int_dtype("geometric", dtype)
    p = _as_operand(p) if isinstance(p, Tensor) else p
    dt = _float_dtype("geometric", get_aval(p).dtype if isinstance(p, Tensor) else None)
    shape = _static_shape("geometric", tuple(get_aval(p).shape) if isinstance(p, Tensor) and shape is None
                          else (() if shape is None else shape))
    p = _broadcast_operand("geometric", "p", p, shape, dt)
    u = uniform(key, shape, dt)
    u = el.select(el.eq(u, _c(u, 0.0)), _c(u, 1.0), u)
    trials = el.add(el.floor(el.div(xla_math.log(u), xla_math.log1p(el.neg(p)))), _c(u, 1.0))
    return el.convert_element_type(trials, new_dtype=out_dt)


def rademacher(key, shape=(), dtype="int32"):
    """Random signs, -1 or 1 with probability 1/2 each, as ``jax.random.rademacher`` (``2 * bernoulli - 1``).

    Example:
        >>> from paddle_fn import random
        >>> sorted(set(random.rademacher(random.key(0), [100]).numpy().tolist()))
        [-1, 1]
    """
    _check_key("rademacher", key)
    shape = _static_shape("rademacher", shape)
    dt = dtypes.as_dtype(dtype)
    b = el.convert_element_type(bernoulli(key, 0.5, shape), new_dtype=dt)
    return el.sub(el.mul(_full(shape, 2, dt), b), _full(shape, 1, dt))


def maxwell(key, shape=(), dtype=None):
    """Maxwell floats: the length of a 3-D standard normal vector, as ``jax.random.maxwell``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.maxwell(random.key(0), [4000], 'float64').numpy()
        >>> bool(abs(x.mean() - 2 * (2 / 3.14159265) ** 0.5) < 0.05)
        True
    """
    _check_key("maxwell", key)
    dt = _float_dtype("maxwell", dtype)
    shape = _static_shape("maxwell", shape)
    z = normal(key, shape + (3,), dt)
    return el.sqrt(_sum_of_squares(z))


def _sum_of_squares(z):
    """The sum of squares along z's last axis as XLA's CPU code computes it: unrolled, each addition contracted into
    an FMA with one of its squares (in float32, vectorized, the left one first; in float64 the new one)."""
    shape, n = get_aval(z).shape[:-1], get_aval(z).shape[-1]
    parts = [st.reshape(st.slice(z, start_indices=(0,) * len(shape) + (i,), limit_indices=shape + (i + 1,)),
                        new_sizes=shape) for i in range(n)]
    if n == 1:
        return el.mul(parts[0], parts[0])
    fma = xla_math.fused_multiply_add
    left, right = parts[:2] if get_aval(z).dtype.bits == 32 else parts[1::-1]
    total = fma(left, left, el.mul(right, right))
    for part in parts[2:]:
        total = fma(part, part, total)
    return total


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell floats, ``sign * maxwell * scale + loc``, as ``jax.random.double_sided_maxwell``; as
    there, the result's shape is ``shape`` (default: none) followed by the parameters' broadcast shape.

    Example:
        >>> from paddle_fn import random
        >>> x = random.double_sided_maxwell(random.key(0), 0.0, 1.0, [4000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.1 and abs(x.var() - 3) < 0.3)
        True
    """
    _check_key("double_sided_maxwell", key)
    dt = _float_dtype("double_sided_maxwell", dtype)
    params = _broadcast_shapes("double_sided_maxwell", *[tuple(get_aval(v).shape) for v in (loc, scale)
                                                          if isinstance(v, Tensor)])
    shape = _static_shape("double_sided_maxwell", shape) + params
    loc, scale = (_broadcast_operand("double_sided_maxwell", n, v, shape, dt) for n, v in (("loc", loc),
                                                                                           ("scale", scale)))
    key_m, key_r = _halves(key)
    signed = el.mul(el.convert_element_type(rademacher(key_r, shape, dt.name), new_dtype=dt), maxwell(key_m, shape, dt))
    return xla_math.fused_multiply_add(signed, scale, loc)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal floats (density proportional to ``exp(-|x|**p)``): a random sign times
    ``gamma(1/p) ** (1/p)``, as ``jax.random.generalized_normal``; `p` is a Python float.

    Example:
        >>> from paddle_fn import random
        >>> x = random.generalized_normal(random.key(0), 2.0, [4000], 'float64').numpy()
        >>> bool(abs(x.var() - 0.5) < 0.05)
        True
    """
    _check_key("generalized_normal", key)
    dt = _float_dtype("generalized_normal", dtype)
    shape = _static_shape("generalized_normal", shape)
    key_g, key_r = _halves(key)
    g = gamma(key_g, 1 / p, shape, dt)
    r = el.convert_element_type(rademacher(key_r, shape, dt.name), new_dtype=dt)
    return el.mul(r, xla_math.pow(g, _c(g, 1 / p)))


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the d-dimensional unit p-norm ball (last axis of length `d`), from generalized normals and
    an exponential draw, as ``jax.random.ball``.

    Example:
        >>> from paddle_fn import random
        >>> x = random.ball(random.key(0), 3, 2, [1000], 'float64').numpy()
        >>> x.shape, bool(((x ** 2).sum(-1) <= 1).all())
        ((1000, 3), True)
    """
    _check_key("ball", key)
    dt = _float_dtype("ball", dtype)
    shape = _static_shape("ball", shape)
    key_g, key_e = _halves(key)
    g = generalized_normal(key_g, p, shape + (int(d),), dt)
    e = exponential(key_e, shape, dt)
    a = el.abs(g)
    # JAX's ** with a Python int power is repeated multiplication, with a float one pow
    powered = el.integer_pow(a, y=p) if isinstance(p, int) else xla_math.pow(a, _c(a, p))
    total = el.add(reduce_sum(powered, axes=(len(shape),)), e)
    # XLA rewrites the division by total ** (1/p) as a product with total ** (-1/p)
    inverse_norm = xla_math.pow(total, _c(e, -1 / p))
    return el.mul(g, st.broadcast_in_dim(inverse_norm, shape=shape + (int(d),),
                                         broadcast_dimensions=tuple(range(len(shape)))))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Multivariate normal vectors ``mean + factor @ z`` with ``factor factor^T = cov`` (`method`: 'cholesky',
    'eigh' or 'svd') and z standard normal, as ``jax.random.multivariate_normal``.

    Args:
        mean: [..., n] means; cov: [..., n, n] covariances.
        shape: the batch shape; default: the broadcast of ``mean.shape[:-1]`` and ``cov.shape[:-2]``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> cov = paddle.to_tensor([[2.0, 0.5], [0.5, 1.0]], 'float64')
        >>> x = random.multivariate_normal(random.key(0), paddle.zeros([2], 'float64'), cov, [4000], 'float64')
        >>> bool(abs(paddle.to_tensor(x.numpy().T @ x.numpy() / 4000) - cov).max() < 0.15)
        True
    """
    _check_key("multivariate_normal", key)
    dt = _float_dtype("multivariate_normal", dtype)
    mean, cov = (el.convert_element_type(_as_operand(v), new_dtype=dt) for v in (mean, cov))
    m_shape, c_shape = tuple(get_aval(mean).shape), tuple(get_aval(cov).shape)
    if len(m_shape) < 1 or len(c_shape) < 2 or c_shape[-2:] != (m_shape[-1], m_shape[-1]):
        raise ShapeError(f"multivariate_normal: mean must be [..., n] and cov [..., n, n], got mean {list(m_shape)} "
                         f"and cov {list(c_shape)}")
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError(f"multivariate_normal: method must be 'cholesky', 'eigh' or 'svd', got {method!r}")
    n = m_shape[-1]
    batch = _broadcast_shapes("multivariate_normal", m_shape[:-1], c_shape[:-2]) if shape is None else \
        _static_shape("multivariate_normal", shape)
    if method == "cholesky":
        factor = la.cholesky(cov)
    else:
        vectors, values = (la.eigh(cov)[::-1] if method == "eigh" else la.svd(cov)[:2])
        factor = el.mul(vectors, st.broadcast_in_dim(el.sqrt(values), shape=c_shape,
                                                     broadcast_dimensions=tuple(range(len(c_shape) - 2)) + (
                                                         len(c_shape) - 1,)))
    z = normal(key, batch + (n,), dt)
    out_shape = batch + (n,)
    factor = st.broadcast_in_dim(factor, shape=batch + (n, n),
                                 broadcast_dimensions=tuple(range(len(batch) + 2 - len(c_shape), len(batch) + 2)))
    product = reduce_sum(el.mul(factor, st.broadcast_in_dim(z, shape=batch + (n, n), broadcast_dimensions=tuple(
        range(len(batch))) + (len(batch) + 1,))), axes=(len(batch) + 1,))
    return el.add(_broadcast_operand("multivariate_normal", "mean", mean, out_shape, dt), product)


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Random n x m matrices (default m = n) with orthonormal columns (n >= m) or rows, uniform (Haar) over them:
    the QR factorisation of a normal matrix with its signs fixed by R's diagonal, as ``jax.random.orthogonal``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> q = random.orthogonal(random.key(0), 3, dtype='float64')
        >>> bool(paddle.allclose(q @ q.T, paddle.eye(3, dtype='float64')))
        True
    """
    _check_key("orthogonal", key)
    dt = _float_dtype("orthogonal", dtype)
    shape = _static_shape("orthogonal", shape)
    m = n if m is None else int(m)
    z = normal(key, shape + (max(n, m), min(n, m)), dt)
    q, r = la.qr(z)
    signs = el.sign(la.diagonal(r))
    k = min(n, m)
    x = el.mul(q, st.broadcast_in_dim(signs, shape=shape + (max(n, m), k),
                                      broadcast_dimensions=tuple(range(len(shape))) + (len(shape) + 1,)))
    return la.matrix_transpose(x) if n < m else x

