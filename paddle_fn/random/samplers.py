"""The functional samplers: pure functions of a key (`uniform`, `normal`, `truncated_normal`, `bernoulli`,
`randint`, `permutation`)."""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.reduction import sort

_MASK32 = 0xFFFFFFFF


from paddle_fn.random.keys import (_broadcast_operand, _const, _float_dtype, _full, _static_shape, _words, fold_in, random_bits)


# ----------------------------------------------------------------------------------------------- distributions

def _unit_interval(fn, key, shape, dt):
    """Uniform floats k * 2**-p in [0, 1), k a random p-bit integer, p the dtype's precision (exact in dt)."""
    precision = dtypes.finfo(dt).nmant + 1
    y1, y2 = _words(fn, key, shape)
    if precision <= 32:
        k = bw.shift_right_logical(bw.xor(y1, y2), _full(shape, 32 - precision, dtypes.uint32))
        return el.mul(el.convert_element_type(k, new_dtype=dt), _full(shape, 2.0 ** -precision, dt))
    # float64: 21 high bits of y1 and 32 bits of y2 make a 53-bit integer, assembled exactly in float64
    hi = el.convert_element_type(bw.shift_right_logical(y1, _full(shape, 64 - precision, dtypes.uint32)),
                                 new_dtype=dt)
    k = el.add(el.mul(hi, _full(shape, 2.0 ** 32, dt)), el.convert_element_type(y2, new_dtype=dt))
    return el.mul(k, _full(shape, 2.0 ** -precision, dt))


def uniform(key, shape=(), dtype=None, min=0.0, max=1.0):  # noqa: A002 - Paddle's argument names
    """Uniform floats in [min, max) (up to rounding of ``u * (max - min) + min``, as in JAX).

    Args:
        key: a uint32[2] key.
        shape: output shape (int, list or tuple).
        dtype: a float dtype; default: the default float dtype.
        min: the lower bound, a Python scalar or a Tensor broadcastable to `shape`.
        max: the upper bound, likewise.

    Example:
        >>> from paddle_fn import random
        >>> x = random.uniform(random.key(0), [1000], 'float64', min=2.0, max=3.0).numpy()
        >>> bool(x.min() >= 2.0 and x.max() < 3.0)
        True
    """
    return _uniform("uniform", key, _static_shape("uniform", shape), _float_dtype("uniform", dtype), min, max)


def _uniform(fn, key, shape, dt, min, max):  # noqa: A002
    lo = _broadcast_operand(fn, "min", min, shape, dt)
    hi = _broadcast_operand(fn, "max", max, shape, dt)
    u = _unit_interval(fn, key, shape, dt)
    return el.max(lo, el.add(el.mul(u, el.sub(hi, lo)), lo))


def is_complex_dtype(dtype) -> bool:
    return dtype is not None and dtypes.as_dtype(dtype).kind == "c"


def complex_of_pairs(pairs):
    """Complex numbers from float draws of shape (2, *shape): the first half the real parts, the second the
    imaginary parts (independent)."""
    shape = get_aval(pairs).shape[1:]
    re, im = (st.reshape(st.slice(pairs, start_indices=(i,) + (0,) * len(shape), limit_indices=(i + 1,) + shape),
                         new_sizes=shape) for i in (0, 1))
    return cx.complex_(re, im)


def normal(key, shape=(), dtype=None):
    """Standard normal floats, ``sqrt(2) * erf_inv(u)`` with u uniform in the open interval (-1, 1). A complex
    dtype gives complex normals with E|z|^2 = 1: real and imaginary parts independent, each of variance 1/2 (as
    Paddle's ``randn(dtype='complex64')`` and JAX's ``normal``).

    Example:
        >>> from paddle_fn import random
        >>> x = random.normal(random.key(0), [10000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05)
        True
        >>> z = random.normal(random.key(0), [10000], 'complex128').numpy()
        >>> bool(abs(z.real.var() - 0.5) < 0.05 and abs(z.imag.var() - 0.5) < 0.05)
        True
    """
    shape = _static_shape("normal", shape)
    if is_complex_dtype(dtype):
        part = cx.part_dtype(dtype)
        return complex_of_pairs(el.mul(normal(key, (2,) + shape, part), _full((2,) + shape, math.sqrt(0.5), part)))
    dt = _float_dtype("normal", dtype)
    above_minus_one = float(np.nextafter(np.array(-1, dt.np), np.array(0, dt.np)))
    u = _uniform("normal", key, shape, dt, above_minus_one, 1.0)
    return el.mul(_full(shape, math.sqrt(2.0), dt), el.erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal floats truncated to [lower, upper] (inverse-CDF sampling, as JAX).

    Args:
        lower: the lower bound, a Python scalar or a Tensor (infinities allowed).
        upper: the upper bound, likewise.
        shape: output shape; default: the broadcast shape of lower and upper.

    Example:
        >>> from paddle_fn import random
        >>> x = random.truncated_normal(random.key(0), -1.0, 2.0, [1000]).numpy()
        >>> bool(x.min() >= -1.0 and x.max() <= 2.0)
        True
    """
    dt = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = np.broadcast_shapes(*(tuple(get_aval(b).shape) for b in (lower, upper) if isinstance(b, Tensor)))
    shape = _static_shape("truncated_normal", shape)
    lo = _broadcast_operand("truncated_normal", "lower", lower, shape, dt)
    hi = _broadcast_operand("truncated_normal", "upper", upper, shape, dt)
    inv_sqrt2 = _full(shape, 1 / math.sqrt(2.0), dt)
    u = _uniform("truncated_normal", key, shape, dt, el.erf(el.mul(lo, inv_sqrt2)), el.erf(el.mul(hi, inv_sqrt2)))
    # keep erf_inv finite where a bound is infinite (erf = -1 or 1)
    nextafter = np.nextafter(np.array([-1, 1], dt.np), np.array(0, dt.np))
    u = el.clamp(_const(nextafter[0], dt), u, _const(nextafter[1], dt))
    return el.clamp(lo, el.mul(_full(shape, math.sqrt(2.0), dt), el.erf_inv(u)), hi)


def bernoulli(key, p=0.5, shape=None):
    """Random booleans, True with probability `p` (a Python float or a float Tensor broadcastable to shape).

    Example:
        >>> from paddle_fn import random
        >>> b = random.bernoulli(random.key(0), 0.3, [10000]).numpy()
        >>> b.dtype, bool(abs(b.mean() - 0.3) < 0.02)
        (dtype('bool'), True)
    """
    if isinstance(p, Tensor):
        dt = _float_dtype("bernoulli", get_aval(p).dtype)
        shape = get_aval(p).shape if shape is None else _static_shape("bernoulli", shape)
    else:
        dt = dtypes.default_float_dtype()
        shape = () if shape is None else _static_shape("bernoulli", shape)
    u = _uniform("bernoulli", key, shape, dt, 0.0, 1.0)
    return el.lt(u, _broadcast_operand("bernoulli", "p", p, shape, dt))


def randint(key, shape, minval, maxval, dtype="int64"):
    """Uniform integers in [minval, maxval) (minval where maxval <= minval).

    Each value is a 63-bit random integer reduced modulo ``maxval - minval``, so the bias is at most
    ``(maxval - minval) / 2**63``. ``maxval - minval`` must fit in int64.

    Args:
        minval: the lower bound (inclusive), a Python int or an integer Tensor broadcastable to `shape`; clipped to
            the range of `dtype`.
        maxval: the upper bound (exclusive), likewise.
        dtype: an integer dtype.

    Example:
        >>> from paddle_fn import random
        >>> x = random.randint(random.key(0), [1000], 3, 7, 'int32').numpy()
        >>> x.dtype, sorted(set(x.tolist()))
        (dtype('int32'), [3, 4, 5, 6])
    """
    dt = dtypes.as_dtype(dtype)
    if dt.kind not in "iu":
        raise DTypeError(f"randint: dtype must be an integer dtype, got {dt.name}; use uniform for floats")
    shape = _static_shape("randint", shape)
    lo = _broadcast_operand("randint", "minval", minval, shape, dtypes.int64)
    hi = _broadcast_operand("randint", "maxval", maxval, shape, dtypes.int64)
    if dt.bits < 64:
        info = np.iinfo(dt.np)
        lo = el.clamp(_const(info.min, dtypes.int64), lo, _const(info.max, dtypes.int64))
        hi = el.clamp(_const(info.min, dtypes.int64), hi, _const(info.max + 1, dtypes.int64))
    y1, y2 = _words("randint", key, shape)
    high31 = el.convert_element_type(bw.shift_right_logical(y1, _full(shape, 1, dtypes.uint32)), new_dtype=dtypes.int64)
    bits63 = bw.or_(bw.shift_left(high31, _full(shape, 32, dtypes.int64)),
                    el.convert_element_type(y2, new_dtype=dtypes.int64))
    span = el.max(el.sub(hi, lo), _full(shape, 1, dtypes.int64))
    return el.convert_element_type(el.add(lo, el.rem(bits63, span)), new_dtype=dt)


def permutation(key, x_or_n, axis=0):
    """A random permutation of ``range(n)`` (int64) for an int `n`, or `x` shuffled along `axis`.

    Every slice along `axis` moves the same way. The permutation sorts random uint32 sort keys, over
    ``ceil(3 * ln(n) / ln(2**32))`` rounds (one round below n = 1625), which makes ties between keys unlikely.

    Example:
        >>> from paddle_fn import random
        >>> sorted(random.permutation(random.key(0), 5).numpy().tolist())
        [0, 1, 2, 3, 4]
    """
    if isinstance(x_or_n, (int, np.integer)) and not isinstance(x_or_n, (bool, np.bool_)):
        if x_or_n < 0:
            raise ValueError(f"permutation: n must be non-negative, got {x_or_n}")
        x, axis = st.iota(dtype=dtypes.int64, shape=(int(x_or_n),), dimension=0), 0
    else:
        x = x_or_n if isinstance(x_or_n, Tensor) else Tensor(np.asarray(x_or_n))
        shape = get_aval(x).shape
        if not shape:
            raise ShapeError("permutation: x is 0-d; pass a Python int n to permute range(n), or a Tensor of "
                             "rank >= 1")
        if not -len(shape) <= axis < len(shape):
            raise ShapeError(f"permutation: axis {axis} is out of range for x of shape {list(shape)}")
        axis %= len(shape)
    shape = get_aval(x).shape
    n = shape[axis]
    rounds = math.ceil(3 * math.log(n) / math.log(2 ** 32)) if n > 1 else 0
    for r in range(rounds):
        sort_keys = random_bits(fold_in(key, r), (n,))
        sort_keys = st.broadcast_in_dim(sort_keys, shape=shape, broadcast_dimensions=(axis,))
        _, x = sort(sort_keys, x, dimension=axis, is_stable=True, num_keys=1)
    return x

