"""The functional samplers that make their draws from uniform bits: `uniform`, `normal`, `truncated_normal`,
`bernoulli`, `randint`, `permutation`, `choice`. Each follows JAX's construction step by step, so the same key
gives the same numbers as ``jax.random`` (tests/test_random_jax.py compares the bits with recorded JAX draws).
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import reduction as red
from paddle_fn.prims import slicing as sl
from paddle_fn.prims import structural as st
from paddle_fn.random import xla_math
from paddle_fn.random.keys import (
    _broadcast_operand, _const, _float_dtype, _full, _static_shape, _words, random_bits, split)
from paddle_fn.random.xla_math import fused_multiply_add

_MASK32 = 0xFFFFFFFF


# ----------------------------------------------------------------------------------------------- distributions

def _unit_interval(fn, key, shape, dt):
    """JAX's uniform [0, 1): the top `nmant` random bits become the mantissa of a float in [1, 2), minus 1. That is
    ``k * 2**-nmant`` for the nmant-bit integer k, formed here exactly without a bitcast (float64 has no 64-bit
    unsigned integer here: its 52 bits are the 32 of y1 and the top 20 of y2, as JAX's 64-bit draw ``y1:y2``)."""
    nmant = dtypes.finfo(dt).nmant
    y1, y2 = _words(fn, key, shape)
    if dt.bits == 64:
        hi = el.convert_element_type(y1, new_dtype=dt)
        lo = el.convert_element_type(bw.shift_right_logical(y2, _full(shape, 12, dtypes.uint32)), new_dtype=dt)
        k = el.add(el.mul(hi, _full(shape, 2.0 ** 20, dt)), lo)
    else:
        # JAX draws as many bits as the dtype is wide (float16: 16), or 8 for a mantissa under 8 bits (bfloat16):
        # the low bits of the 32-bit word
        rng_bits = 8 if nmant < 8 else dt.bits
        bits = bw.xor(y1, y2)
        if rng_bits < 32:
            bits = bw.and_(bits, _full(shape, 2 ** rng_bits - 1, dtypes.uint32))
        k = el.convert_element_type(bw.shift_right_logical(bits, _full(shape, rng_bits - nmant, dtypes.uint32)),
                                    new_dtype=dt)
    return el.mul(k, _full(shape, 2.0 ** -nmant, dt))


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
    return el.max(lo, fused_multiply_add(u, el.sub(hi, lo), lo))


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
    return _normal(key, shape, dtype, xla_math.erf_inv)


def normal_fast(key, shape=(), dtype=None):
    """`normal`'s draws with the platform's erf_inv (scipy's eagerly, IREE's compiled) instead of XLA's: the same
    uniform bits and formula, results within 3e-5 of JAX's in float32 (far in the tails; 2e-12 in float64), and
    5-13x faster eagerly (XLA's erf_inv written with exactly rounded operations takes some 300 numpy passes). The Paddle-style functions (`randn`,
    `standard_normal`, `normal`, `randn_like`) draw with it: Paddle's generator is not JAX's, so they promise no
    JAX bits.

    Example:
        >>> from paddle_fn import random
        >>> from paddle_fn.random.samplers import normal_fast
        >>> a = normal_fast(random.key(0), [1000]).numpy()
        >>> b = random.normal(random.key(0), [1000]).numpy()
        >>> bool(abs(a - b).max() < 1e-4)
        True
    """
    return _normal(key, shape, dtype, el.erf_inv)


def _normal(key, shape, dtype, erf_inv):
    shape = _static_shape("normal", shape)
    if is_complex_dtype(dtype):
        part = cx.part_dtype(dtype)
        pairs = _normal(key, (2,) + shape, part, erf_inv)
        return complex_of_pairs(el.mul(pairs, _full((2,) + shape, math.sqrt(0.5), part)))
    dt = _float_dtype("normal", dtype)
    above_minus_one = float(np.nextafter(np.array(-1, dt.np), np.array(0, dt.np)))
    u = _uniform("normal", key, shape, dt, above_minus_one, 1.0)
    return el.mul(_full(shape, math.sqrt(2.0), dt), erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal floats truncated to the open interval (lower, upper), by inverse-CDF sampling as JAX.

    Args:
        lower: the lower bound, a Python scalar or a Tensor (infinities allowed).
        upper: the upper bound, likewise.
        shape: output shape; default: the broadcast shape of lower and upper.

    Example:
        >>> from paddle_fn import random
        >>> x = random.truncated_normal(random.key(0), -1.0, 2.0, [1000]).numpy()
        >>> bool(x.min() > -1.0 and x.max() < 2.0)
        True
    """
    dt = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = np.broadcast_shapes(*(tuple(get_aval(b).shape) for b in (lower, upper) if isinstance(b, Tensor)))
    shape = _static_shape("truncated_normal", shape)
    lo = _broadcast_operand("truncated_normal", "lower", lower, shape, dt)
    hi = _broadcast_operand("truncated_normal", "upper", upper, shape, dt)
    sqrt2 = _full(shape, math.sqrt(2.0), dt)
    u = _uniform("truncated_normal", key, shape, dt, _erf_of_bound(lower, lo, sqrt2), _erf_of_bound(upper, hi, sqrt2))
    out = el.mul(sqrt2, xla_math.erf_inv(u))
    # rounding (or u at a bound, where erf_inv is infinite) must not leave the open interval
    return el.clamp(_next_float(lo, up=True), out, _next_float(hi, up=False))


def _erf_of_bound(bound, broadcast, sqrt2):
    """``erf(bound / sqrt(2))`` as XLA computes it; a float64 Python bound takes Python's erf, the C library's that
    XLA calls (xla_math.erf's float64 is numpy's/IREE's)."""
    if not isinstance(bound, Tensor) and get_aval(broadcast).dtype.bits == 64:
        return _full(get_aval(broadcast).shape, math.erf(float(bound) / math.sqrt(2.0)), dtypes.float64)
    return xla_math.erf(el.div(broadcast, sqrt2))


def _next_float(x, *, up):
    """The float next to each element of x towards +inf (`up`) or -inf, as ``nextafter``: one step of the bit
    pattern read as a signed integer (whose order follows the magnitude), with zeros stepping to the smallest
    subnormal and an infinity in its own direction kept."""
    dt = get_aval(x).dtype
    shape = get_aval(x).shape
    int_dt = {16: dtypes.int16, 32: dtypes.int32, 64: dtypes.int64}[dt.bits]
    bits = el.bitcast_convert_type(x, new_dtype=int_dt)
    one = _full(shape, 1, int_dt)
    zero = _full(shape, 0.0, dt)
    grows = el.gt(x, zero) if up else el.lt(x, zero)  # moving away from zero: the magnitude grows
    stepped = el.bitcast_convert_type(el.select(grows, el.add(bits, one), el.sub(bits, one)), new_dtype=dt)
    tiny = float(np.nextafter(np.zeros((), dt.np), np.ones((), dt.np) * (1 if up else -1)))
    stepped = el.select(el.eq(x, zero), _full(shape, tiny, dt), stepped)
    infinite = _full(shape, np.inf if up else -np.inf, dt)
    return el.select(el.eq(x, infinite), x, stepped)


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


def randint(key, shape, minval, maxval, dtype="int32"):
    """Uniform integers in [minval, maxval) (minval where maxval <= minval), as JAX: two 32-bit draws combined
    modulo ``maxval - minval``, which keeps the bias below ``(maxval - minval)**2 / 2**64``.

    The numbers are JAX's, bit for bit, for every integer dtype (int64 as JAX's under x64: 64-bit draws and
    uint64 arithmetic).

    Args:
        minval: the lower bound (inclusive), a Python int or an integer Tensor broadcastable to `shape`; clipped to
            the range of `dtype`.
        maxval: the upper bound (exclusive), likewise.
        dtype: an integer dtype.

    Example:
        >>> from paddle_fn import random
        >>> x = random.randint(random.key(0), [1000], 3, 7).numpy()
        >>> x.dtype, sorted(set(x.tolist()))
        (dtype('int32'), [3, 4, 5, 6])
    """
    dt = dtypes.as_dtype(dtype)
    if dt.kind not in "iu":
        raise DTypeError(f"randint: dtype must be an integer dtype, got {dt.name}; use uniform for floats")
    shape = _static_shape("randint", shape)
    lo = _broadcast_operand("randint", "minval", minval, shape, dtypes.int64)
    hi = _broadcast_operand("randint", "maxval", maxval, shape, dtypes.int64)
    if dt.bits == 64:
        return _randint64(key, shape, lo, hi)
    if dt.bits < 32:  # as JAX: sampled in int32 (less bias), the bounds clipped to the dtype's range first
        info = np.iinfo(dt.np)
        lo = el.clamp(_const(info.min, dtypes.int64), lo, _const(info.max, dtypes.int64))
        hi = el.clamp(_const(info.min, dtypes.int64), hi, _const(info.max + 1, dtypes.int64))
    sampled = dt if dt.bits == 32 else dtypes.int32
    info = np.iinfo(sampled.np)
    hi_out_of_range = el.gt(hi, _full(shape, info.max, dtypes.int64))
    lo = el.clamp(_const(info.min, dtypes.int64), lo, _const(info.max, dtypes.int64))
    hi = el.clamp(_const(info.min, dtypes.int64), hi, _const(info.max, dtypes.int64))
    # the span as a uint32: 1 when empty, one more when maxval was clipped (0, the full range 2**32, if that wraps)
    empty = el.le(hi, lo)
    span64 = el.add(el.sub(hi, lo), el.convert_element_type(bw.and_(hi_out_of_range, bw.not_(empty)),
                                                             new_dtype=dtypes.int64))
    span64 = el.select(empty, _full(shape, 1, dtypes.int64), span64)
    span = el.convert_element_type(bw.and_(span64, _full(shape, _MASK32, dtypes.int64)), new_dtype=dtypes.uint32)
    k1, k2 = (st.reshape(k, new_sizes=(2,)) for k in _split_rows(split(key)))
    higher, lower = random_bits(k1, shape), random_bits(k2, shape)
    # (higher * 2**32 + lower) mod span, with uint32 products that wrap as JAX's do
    multiplier = _unsigned_rem(_full(shape, 2 ** 16, dtypes.uint32), span)
    multiplier = _unsigned_rem(el.mul(multiplier, multiplier), span)
    offset = el.add(el.mul(_unsigned_rem(higher, span), multiplier), _unsigned_rem(lower, span))
    offset = _unsigned_rem(offset, span)
    return el.convert_element_type(el.add(lo, el.convert_element_type(offset, new_dtype=dtypes.int64)), new_dtype=dt)


def _split_rows(keys):
    return [st.slice(keys, start_indices=(i, 0), limit_indices=(i + 1, 2)) for i in (0, 1)]


def _unsigned_rem(x, span):
    """``x % span`` with XLA's meaning of a zero divisor (the dividend comes back), which is the full range."""
    zero = el.eq(span, _full(get_aval(span).shape, 0, dtypes.uint32))
    safe = el.select(zero, _full(get_aval(span).shape, 1, dtypes.uint32), span)
    return el.select(zero, x, el.rem(x, safe))


def _randint64(key, shape, lo, hi):
    """JAX's int64 randint (under x64): two 64-bit draws, ``(higher * 2**64 + lower) mod span`` in uint64
    arithmetic. The uint64 values live here as int64 bit patterns, for which + - * wrap identically; the
    comparisons and remainders are the unsigned ones, written out (`_unsigned_rem64`). int64 bounds never clip, so
    the span is ``maxval - minval`` (1 when empty, 0 when it wraps to the full 2**64)."""
    i64 = dtypes.int64
    span = el.select(el.le(hi, lo), _full(shape, 1, i64), el.sub(hi, lo))
    higher, lower = (_draw64(st.reshape(k, new_sizes=(2,)), shape) for k in _split_rows(split(key)))
    multiplier = _unsigned_rem64(_full(shape, 2 ** 32, i64), span)
    multiplier = _unsigned_rem64(el.mul(multiplier, multiplier), span)
    offset = el.add(el.mul(_unsigned_rem64(higher, span), multiplier), _unsigned_rem64(lower, span))
    return el.add(lo, _unsigned_rem64(offset, span))


def _draw64(key, shape):
    """JAX's 64-bit random bits, ``y1 * 2**32 + y2``, as an int64 bit pattern."""
    y1, y2 = (el.convert_element_type(y, new_dtype=dtypes.int64) for y in _words("randint", key, shape))
    return bw.or_(bw.shift_left(y1, _full(shape, 32, dtypes.int64)), y2)


def _unsigned_below(a, b):
    """``a < b`` for int64 bit patterns read as uint64 (flipping the sign bit maps that order onto int64's)."""
    flip = _full(get_aval(a).shape, -2 ** 63, dtypes.int64)
    return el.lt(bw.xor(a, flip), bw.xor(b, flip))


def _unsigned_rem64(x, span):
    """``x % span`` for int64 bit patterns read as uint64; a zero span (2**64) gives x back, as XLA's remainder.
    A span of 2**63 or more leaves at most one subtraction; a smaller one reduces ``x >> 1`` (non-negative) with
    the signed remainder, doubles it back with x's low bit, and subtracts span at most twice."""
    shape = get_aval(x).shape
    one = _full(shape, 1, dtypes.int64)
    wide = el.lt(span, _full(shape, 0, dtypes.int64))
    divisor = el.select(el.le(span, _full(shape, 0, dtypes.int64)), one, span)
    r = el.add(bw.shift_left(el.rem(bw.shift_right_logical(x, one), divisor), one), bw.and_(x, one))
    for _ in range(2):
        r = el.select(_unsigned_below(r, divisor), r, el.sub(r, divisor))
    r = el.select(wide, el.select(_unsigned_below(x, span), x, el.sub(x, span)), r)
    return el.select(el.eq(span, _full(shape, 0, dtypes.int64)), x, r)


def _as_operand(x):
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x))


def permutation(key, x_or_n, axis=0):
    """A random permutation of ``range(n)`` (int32, as JAX) for an int `n`, or `x` shuffled along `axis`; JAX's
    numbers for the same key.

    Every slice along `axis` moves the same way. As JAX, the permutation sorts random uint32 sort keys over
    ``ceil(3 * ln(n) / ln(2**32 - 1))`` rounds, each with a key split from the previous one, which makes ties
    between keys unlikely.

    Example:
        >>> from paddle_fn import random
        >>> sorted(random.permutation(random.key(0), 5).numpy().tolist())
        [0, 1, 2, 3, 4]
    """
    if isinstance(x_or_n, (int, np.integer)) and not isinstance(x_or_n, (bool, np.bool_)):
        if x_or_n < 0:
            raise ValueError(f"permutation: n must be non-negative, got {x_or_n}")
        return _shuffle(key, st.iota(dtype=dtypes.int32, shape=(int(x_or_n),), dimension=0))
    x = _as_operand(x_or_n)
    shape = get_aval(x).shape
    if not shape:
        raise ShapeError("permutation: x is 0-d; pass a Python int n to permute range(n), or a Tensor of "
                         "rank >= 1")
    if not -len(shape) <= axis < len(shape):
        raise ShapeError(f"permutation: axis {axis} is out of range for x of shape {list(shape)}")
    axis %= len(shape)
    if len(shape) == 1:
        return _shuffle(key, x)
    order = _shuffle(key, st.iota(dtype=dtypes.int32, shape=(shape[axis],), dimension=0))
    return _take(x, order, axis)


def _shuffle(key, x):
    """Sort the 1-D `x` by fresh random uint32 keys, JAX's number of rounds, splitting the key before each."""
    n = get_aval(x).shape[0]
    rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(_MASK32)))
    for _ in range(rounds):
        key, subkey = (st.reshape(k, new_sizes=(2,)) for k in _split_rows(split(key)))
        _, x = red.sort(random_bits(subkey, (n,)), x, dimension=0, is_stable=True, num_keys=1)
    return x


def _take(x, indices, axis):
    """x's slices along `axis` at the 1-D `indices`."""
    shape = get_aval(x).shape
    slice_sizes = tuple(1 if d == axis else n for d, n in enumerate(shape))
    dnums = sl.GatherDimensionNumbers(offset_dims=tuple(range(1, len(shape))),
                                      collapsed_slice_dims=(axis,), start_index_map=(axis,))
    out = sl.gather(x, st.reshape(indices, new_sizes=(get_aval(indices).shape[0], 1)), dimension_numbers=dnums,
                    slice_sizes=slice_sizes)
    perm = list(range(1, len(shape)))
    perm.insert(axis, 0)
    return st.transpose(out, permutation=tuple(perm))
