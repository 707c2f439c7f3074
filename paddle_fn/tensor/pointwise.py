"""Elementwise functions Paddle 3 added: logaddexp, hypot, heaviside, sinc, sgn, isin, and the ones that read or
set a float's sign, exponent or neighbours (signbit, copysign, frexp, ldexp, nextafter, isposinf, isneginf,
isreal). Composites of the primitives, so every transform sees through them; inputs promote as Paddle 3.3's
binary ops do, and integer inputs of float-valued functions compute in the default float dtype.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import full
from paddle_fn.tensor.math import any as any_
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand, nary_operands, real_operand

__all__ = ["logaddexp", "hypot", "heaviside", "sinc", "sgn", "isin", "signbit", "copysign", "frexp", "ldexp",
           "nextafter", "isposinf", "isneginf", "isreal"]

# the signed integer of the same width, through which a float's bits are read
_BITS = {"float16": dtypes.int16, "bfloat16": dtypes.int16, "float32": dtypes.int32, "float64": dtypes.int64}


def _const(x, value):
    return st.full_like(x, value)


def _float_pair(op, x, y):
    x, y = nary_operands(op, real_operand(op, x), real_operand(op, y))
    return float_operand(op, x), float_operand(op, y)


def logaddexp(x, y, name=None):
    """Elementwise ``log(exp(x) + exp(y))``, without overflow: the larger plus ``log1p(exp(-|x - y|))``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logaddexp(paddle.to_tensor([0.0, 100.0]), paddle.to_tensor([0.0, 100.0])).tolist()
        [0.6931471824645996, 100.69314575195312]
    """
    x, y = _float_pair("logaddexp", x, y)
    larger = ew.max(x, y)
    # equal infinities give nan through x - y; their sum is the infinity itself (log 2 more is the same)
    same = ew.eq(x, y)
    gap = ew.select(same, _const(x, 0), ew.neg(ew.abs(ew.sub(x, y))))
    return ew.add(larger, ew.log1p(ew.exp(gap)))


def hypot(x, y, name=None):
    """Elementwise ``sqrt(x**2 + y**2)``, without overflow or underflow in the squares; infinite if either is.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.hypot(paddle.to_tensor([3.0, 3e30]), paddle.to_tensor([4.0, 4e30])).tolist()
        [5.0, 5.000000097714519e+30]
    """
    x, y = _float_pair("hypot", x, y)
    ax, ay = ew.abs(x), ew.abs(y)
    big, small = ew.max(ax, ay), ew.min(ax, ay)
    zero = ew.eq(big, _const(big, 0))
    ratio = ew.div(small, ew.select(zero, _const(big, 1), big))
    out = ew.select(zero, _const(big, 0), ew.mul(big, ew.sqrt(ew.add(_const(big, 1), ew.mul(ratio, ratio)))))
    inf = _const(big, np.inf)
    return ew.select(bw.or_(ew.eq(ax, inf), ew.eq(ay, inf)), inf, out)


def heaviside(x, y, name=None):
    """The Heaviside step of `x`: 0 where x < 0, 1 where x > 0, and `y` where x == 0 (nan stays nan).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.heaviside(paddle.to_tensor([-1.5, 0.0, 2.0]), paddle.to_tensor(0.5)).tolist()
        [0.0, 0.5, 1.0]
    """
    x, y = nary_operands("heaviside", real_operand("heaviside", x), real_operand("heaviside", y))
    step = ew.select(ew.gt(x, _const(x, 0)), _const(x, 1), ew.select(ew.eq(x, _const(x, 0)), y, _const(x, 0)))
    return ew.select(ew.ne(x, x), x, step)  # only nan differs from itself


def sinc(x, name=None):
    """The normalized sinc, ``sin(pi x) / (pi x)``, 1 at 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.sinc(paddle.to_tensor([0.0, 0.5])).tolist()
        [1.0, 0.6366197466850281]
    """
    x = float_operand("sinc", x)
    zero = ew.eq(x, _const(x, 0))
    # at 0 the quotient is computed at 1 instead, so its derivative there is finite (and unused)
    px = ew.mul(ew.select(zero, _const(x, 1), x), _const(x, math.pi))
    return ew.select(zero, _const(x, 1), ew.div(ew.sin(px), px))


def sgn(x, name=None):
    """The sign of each element: -1, 0 or 1 (``sign``); of a complex element z, z / |z| (0 at 0).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.sgn(paddle.to_tensor([-2.0, 0.0, 3.0])).tolist()
        [-1.0, 0.0, 1.0]
        >>> paddle.sgn(paddle.to_tensor([3+4j])).numpy()
        array([0.6+0.8j], dtype=complex64)
    """
    return ew.sign(as_tensor(x))


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of `x` is among the elements of `test_x` (or is not, with ``invert=True``).

    ``assume_unique=True`` promises that neither input repeats a value; Paddle 3.3 then answers, for a `test_x`
    of at least 10 * x.size ** 0.145 elements, from one stable sort of both inputs joined (an element counts as
    found when the next one in sorted order equals it). Its answers for inputs that do repeat values follow from
    that, and are reproduced here.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isin(paddle.to_tensor([1, 2, 3, 4]), paddle.to_tensor([2, 4])).tolist()
        [False, True, False, True]
        >>> x = paddle.to_tensor([1, 1, 2, 2, 3] * 4)
        >>> paddle.isin(x, paddle.to_tensor([1, 1] * 10), assume_unique=True).tolist()[-4:]
        [True, True, False, False]
    """
    x, test_x = real_operand("isin", x), real_operand("isin", test_x)
    dt = dtypes.result_dtype_tensors(get_aval(x).dtype, get_aval(test_x).dtype)
    x, test_x = cast(x, dt), cast(test_x, dt)
    shape, count = tuple(get_aval(x).shape), get_aval(test_x).size
    if assume_unique and count and count >= 10.0 * get_aval(x).size ** 0.145:
        return _isin_by_sorting(x, test_x, invert)
    # every element against every test value: [*x.shape, count] comparisons, reduced over the last axis
    pairs = shape + (count,)
    mine = st.broadcast_in_dim(x, shape=pairs, broadcast_dimensions=tuple(range(len(shape))))
    theirs = st.broadcast_in_dim(st.reshape(test_x, new_sizes=(count,)), shape=pairs,
                                 broadcast_dimensions=(len(shape),))
    found = any_(ew.eq(mine, theirs), axis=-1)
    return bw.not_(found) if invert else found


def _isin_by_sorting(x, test_x, invert):
    """`isin` of inputs assumed free of repeats: mark each element of the stably sorted join of both whose next
    neighbour equals it (differs from it, with `invert`; the last element gets `invert`), then put the marks back
    in input order."""
    n, total = get_aval(x).size, get_aval(x).size + get_aval(test_x).size
    joined = st.concatenate(st.reshape(x, new_sizes=(n,)), st.reshape(test_x, new_sizes=(total - n,)), dimension=0)
    positions = st.iota(dtype=dtypes.int32, shape=(total,), dimension=0)
    values, order = red.sort(joined, positions, dimension=0)
    ahead, behind = st.slice(values, start_indices=(1,), limit_indices=(total,)), st.slice(
        values, start_indices=(0,), limit_indices=(total - 1,))
    marks = st.concatenate(ew.ne(ahead, behind) if invert else ew.eq(ahead, behind),
                           full((1,), invert, dtypes.bool_), dimension=0)
    in_input_order = red.sort(order, marks, dimension=0)[1]
    return st.reshape(st.slice(in_input_order, start_indices=(0,), limit_indices=(n,)), new_sizes=get_aval(x).shape)


def _bits(x):
    """The bits of float `x` as the signed integer of its width."""
    return ew.bitcast_convert_type(x, new_dtype=_BITS[get_aval(x).dtype.name])


def _filled(like, value, dtype):
    return full(tuple(get_aval(like).shape), value, dtype)


def signbit(x, name=None):
    """Whether the sign bit of each element is set: True for negative numbers and -0.0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.signbit(paddle.to_tensor([-0.0, 0.0, -2.0])).tolist()
        [True, False, True]
    """
    x = real_operand("signbit", x)
    kind = get_aval(x).dtype.kind
    if kind == "f":
        bits = _bits(x)
        return ew.lt(bits, st.full_like(bits, 0))
    if kind == "i":
        return ew.lt(x, _const(x, 0))
    return _filled(x, False, dtypes.bool_)  # unsigned integers and bools have no sign


def copysign(x, y, name=None):
    """The magnitude of `x` with the sign of `y`, elementwise (the sign bit: -0.0 counts as negative).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.copysign(paddle.to_tensor([1.0, -2.0, 3.0]), paddle.to_tensor([-0.0, 1.0, -1.0])).tolist()
        [-1.0, 2.0, -3.0]
    """
    x, y = nary_operands("copysign", real_operand("copysign", x), real_operand("copysign", y))
    magnitude = ew.abs(x)
    return ew.select(signbit(y), ew.neg(magnitude), magnitude)


def _power_of_two(exponent):
    """Exactly ``2**exponent`` for a float Tensor of integers in the normal range of its dtype, built from the
    bits (a computed power is not exact under IREE)."""
    dt = get_aval(exponent).dtype
    info = dtypes.finfo(dt)
    ints = ew.convert_element_type(exponent, new_dtype=_BITS[dt.name])
    biased = ew.add(ints, st.full_like(ints, -info.minexp + 1))
    return ew.bitcast_convert_type(ew.mul(biased, st.full_like(ints, 1 << info.nmant)), new_dtype=dt)


def _times_power_of_two(x, exponent):
    """``x * 2**exponent`` (float `exponent` holding integers), in three factors that each stay in the normal
    range, so that no factor overflows or underflows where the product does not."""
    info = dtypes.finfo(get_aval(x).dtype)
    reach = 3 * (info.maxexp - 1)  # beyond it every finite x gives 0 or inf anyway
    exponent = ew.clamp(_const(exponent, -reach), exponent, _const(exponent, reach))
    first = ew.floor(ew.div(exponent, _const(exponent, 3)))
    second = ew.floor(ew.div(ew.sub(exponent, first), _const(exponent, 2)))
    third = ew.sub(ew.sub(exponent, first), second)
    for part in (first, second, third):
        x = ew.mul(x, _power_of_two(part))
    return x


def frexp(x, name=None):
    """Split each element into a mantissa in [0.5, 1) (with x's sign) and an exponent: ``x = m * 2**e``. Zero,
    inf and nan give themselves and exponent 0. Both results have x's float dtype, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m, e = paddle.frexp(paddle.to_tensor([8.0, 0.3, -5.0]))
        >>> m.tolist(), e.tolist()
        ([0.5, 0.6000000238418579, -0.625], [4.0, -1.0, 3.0])
    """
    x = float_operand("frexp", x)
    size = ew.abs(x)
    regular = bw.and_(ew.gt(size, _const(x, 0)), ew.lt(size, _const(x, np.inf)))  # nan fails both
    safe = ew.select(regular, size, _const(x, 1))
    e = ew.add(ew.floor(ew.div(ew.log(safe), _const(x, math.log(2)))), _const(x, 1))
    m = _times_power_of_two(ew.select(regular, x, _const(x, 1)), ew.neg(e))
    # the logarithm can land one off next to a power of two: move m back into [0.5, 1)
    high, low = ew.ge(ew.abs(m), _const(x, 1)), ew.lt(ew.abs(m), _const(x, 0.5))
    m = ew.select(high, ew.div(m, _const(x, 2)), ew.select(low, ew.mul(m, _const(x, 2)), m))
    e = ew.select(high, ew.add(e, _const(x, 1)), ew.select(low, ew.sub(e, _const(x, 1)), e))
    return ew.select(regular, m, x), ew.select(regular, e, _const(x, 0))


def ldexp(x, y, name=None):
    """``x * 2**y`` elementwise; the result has x's float dtype (the default float dtype for integer `x`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ldexp(paddle.to_tensor([1.0, 0.5]), paddle.to_tensor([2, 128])).tolist()
        [4.0, 1.7014118346046923e+38]
    """
    x = float_operand("ldexp", x)
    y = real_operand("ldexp", y)
    x, y = nary_operands("ldexp", x, cast(y, get_aval(x).dtype))
    return _times_power_of_two(x, y)


def nextafter(x, y, name=None):
    """The next representable float after `x` in the direction of `y` (`y` where they are equal).

    Example:
        >>> import paddle_fn as paddle
        >>> (paddle.nextafter(paddle.to_tensor([1.0]), paddle.to_tensor([2.0])) - 1).tolist()
        [1.1920928955078125e-07]
    """
    x, y = _float_pair("nextafter", x, y)
    bits = _bits(x)
    one = st.full_like(bits, 1)
    # in the signed view of a float's bits, +1 moves away from zero whatever the sign
    away = ew.eq(ew.gt(y, x), ew.gt(x, _const(x, 0)))
    stepped = ew.select(away, ew.add(bits, one), ew.sub(bits, one))
    # from zero: the smallest subnormal with y's sign (bits 1, or the sign bit and 1)
    smallest = ew.select(ew.gt(y, x), one, ew.add(st.full_like(bits, np.iinfo(_BITS[get_aval(x).dtype.name].np).min), one))
    out = ew.bitcast_convert_type(ew.select(ew.eq(x, _const(x, 0)), smallest, stepped),
                                  new_dtype=get_aval(x).dtype)
    return ew.select(ew.eq(x, y), y, ew.select(bw.or_(ew.ne(x, x), ew.ne(y, y)), ew.add(x, y), out))


def _equals_infinity(op, x, infinity):
    x = real_operand(op, x)
    if get_aval(x).dtype.kind != "f":
        return _filled(x, False, dtypes.bool_)  # integers and bools are never infinite
    return ew.eq(x, _const(x, infinity))


def isposinf(x, name=None):
    """Whether each element is +inf.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isposinf(paddle.to_tensor([float('inf'), -float('inf'), 1.0])).tolist()
        [True, False, False]
    """
    return _equals_infinity("isposinf", x, np.inf)


def isneginf(x, name=None):
    """Whether each element is -inf.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isneginf(paddle.to_tensor([float('inf'), -float('inf'), 1.0])).tolist()
        [False, True, False]
    """
    return _equals_infinity("isneginf", x, -np.inf)


def isreal(x, name=None):
    """Whether each element is real: True everywhere for real dtypes; for complex ones, where the imaginary part
    is 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isreal(paddle.to_tensor([1+0j, 2j])).tolist()
        [True, False]
    """
    x = as_tensor(x)
    if get_aval(x).dtype.kind == "c":
        part = cx.imag(x)
        return ew.eq(part, st.full_like(part, 0))
    return _filled(x, True, dtypes.bool_)
