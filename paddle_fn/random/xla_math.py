"""The transcendental functions of JAX's samplers as XLA's CPU backend computes them, so a transformed draw keeps
JAX's bits: `log`, `log1p`, `erf_inv` and `erf`, written with the exactly rounded operations (+ - * /, sqrt,
compare/select, bitcasts and integer masks) that numpy, IREE and XLA all round the same way.

XLA (jax 0.10.2 on x86-64, read from its optimized LLVM IR) evaluates float32 log as a Cephes-style polynomial on
the mantissa, log1p as a rational function below sqrt(2) - 1 and log(1 + x) above, erf_inv as Giles's polynomials
in ``w = -log1p(-x*x)`` and float32 erf as a rational function; float64 log and erf are glibc's. Its code
generator fuses each multiply whose product has one use into the following add (an FMA), so those steps are
`fused_multiply_add` here: one rounding, made exact without an FMA instruction (float32 through float64; float64
by Dekker's exact product), which IREE's own contraction cannot change. Each function carries its exact derivative
as a custom JVP (the bit manipulations have none), so the samplers stay differentiable in their parameters.

Identical to XLA bit for bit (tests/test_random_jax.py, 10^6 arguments each): float32 log, log1p, erf_inv, erf;
float64 log1p and erf_inv where they do not reach glibc's log (|x| < sqrt(2) - 1 for log1p, |x| < 0.64 for
erf_inv). float64 log is numpy's eagerly and IREE's compiled, each correctly rounded in all but ~1e-4 of the
arguments where glibc's is not (its tables are not reproduced here).
"""
from __future__ import annotations

import numpy as np

import math

from paddle_fn.core import dtypes
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as el
from paddle_fn.prims.custom_derivatives import custom_jvp
from paddle_fn.random.keys import _full

# float32 log: the mantissa polynomial's coefficients (highest degree first, in three interleaved chains) and ln 2
# in two parts, as bit patterns
_LOG32_CHAINS = ((0x3D9021BB, 0xBDEBD1B8, 0x3DEF251A), (0xBDFE5D4F, 0x3E11E9BF, 0xBE2AAE50),
                 (0x3E4CCEAC, 0xBE7FFFFC, 0x3EAAAAAA))
_LN2_LO32, _LN2_HI32 = 0xB95E8083, 0x3F318000
_SQRT_HALF32 = 0x3F3504F3
# log1p's rational function below sqrt(2) - 1: numerator and denominator coefficients, highest degree first
_LOG1P_NUM = {32: (4.527e-05, 0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101),
              64: (4.527e-05, 0x3FDFE818A0FE1A83, 0x401A509F46F4FA53, 0x403DE9738B8CB9C9, 0x404E798EB86C3351,
                   0x404C8E7597479A10, 0x40340A202D99830A)}
_LOG1P_DEN = {32: (1.0, 0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982),
              64: (1.0, 0x402E20359E903E37, 0x4054C30B52213498, 0x406BB86590FCFB56, 0x407351945DC908A5,
                   0x406B0DB13E48E066, 0x404E0F304466448E)}
_LOG1P_SMALL = {32: 0x3ED413CD, 64: 0x3FDA827999FCEF32}
# Giles's erf_inv polynomials in w = -log1p(-x*x), highest degree first: float32 below and above w = 5 (argument
# w - 2.5, sqrt(w) - 3); float64 below 6.25, below 16 and above (w - 3.125, sqrt(w) - 3.25, sqrt(w) - 5)
_ERF_INV32 = ((5.0, -2.5, (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                           -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)),
              (np.inf, -3.0, (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)))
_ERF_INV64 = (
    (6.25, -3.125, (-3.64441206401782e-21, -1.6850591381820166e-19, 1.28584807152564e-18, 1.1157877678025181e-17,
                    -1.3331716628546209e-16, 2.0972767875968562e-17, 6.6376381343583238e-15,
                    -4.0545662729752069e-14, -8.1519341976054722e-14, 2.6335093153082323e-12,
                    -1.2975133253453532e-11, -5.4154120542946279e-11, 1.0512122733215323e-09,
                    -4.1126339803469837e-09, -2.9070369957882005e-08, 4.2347877827932404e-07,
                    -1.3654692000834679e-06, -1.3882523362786469e-05, 0.00018673420803405714, -0.000740702534166267,
                    -0.0060336708714301491, 0.24015818242558962, 1.6536545626831027)),
    (16.0, -3.25, (2.2137376921775787e-09, 9.0756561938885391e-08, -2.7517406297064545e-07, 1.8239629214389228e-08,
                   1.5027403968909828e-06, -4.013867526981546e-06, 2.9234449089955446e-06, 1.2475304481671779e-05,
                   -4.7318229009055734e-05, 6.8284851459573175e-05, 2.4031110387097894e-05,
                   -0.00035503752036284748, 0.0009532893797373805, -0.0016882755560235047, 0.0024914420961078508,
                   -0.0037512085075692412, 0.0053709145535900636, 1.0052589676941592, 3.0838856104922208)),
    (np.inf, -5.0, (-2.7109920616438573e-11, -2.5556418169965252e-10, 1.5076572693500548e-09, -3.789465440126737e-09,
                    7.61570120807834e-09, -1.496002662714924e-08, 2.9147953450901081e-08, -6.7711997758452339e-08,
                    2.2900482228026655e-07, -9.9298272942317e-07, 4.5260625972231537e-06, -1.9681778105531671e-05,
                    7.5995277030017761e-05, -0.00021503011930044477, -0.00013871931833623122, 1.0103004648645344,
                    4.8499064014085844)))
# float32 erf = x P(x^2) / Q(x^2) below |x| = 3.8325, sign(x) above (bit patterns, highest degree first)
_ERF32_NUM = (0x39702D51, 0x3B5F5DA2, 0x3D50B6EB, 0x3E3DA740, 0x3F906EBA)
_ERF32_DEN = (0xB3FD3906, 0x37C588DF, 0x3A856D28, 0x3C6687D4, 0x3DE34C21, 0x3EFEB44A, 0x3F800000)
_ERF32_SATURATES = 0x407547CB


def _c(x, value):
    """`value` (a float, or an int read as the dtype's bit pattern) as a Tensor shaped and typed like x."""
    dt = get_aval(x).dtype
    if isinstance(value, int):
        value = np.array(value, dtype=np.uint32 if dt.bits == 32 else np.uint64).view(dt.np).item()
    return _full(get_aval(x).shape, value, dt)


def fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once, as an FMA instruction computes it. Below float64 the product is exact in float64,
    so one float64 sum and the final rounding give it; float64 adds the product's rounding error, found exactly by
    Dekker's splitting, to the sum."""
    dt = get_aval(a).dtype
    if dt.bits < 64:
        wide = [el.convert_element_type(x, new_dtype=dtypes.float64) for x in (a, b, c)]
        return el.convert_element_type(el.add(el.mul(wide[0], wide[1]), wide[2]), new_dtype=dt)
    product = el.mul(a, b)
    (a_hi, a_lo), (b_hi, b_lo) = _split_float64(a), _split_float64(b)
    product_error = el.add(el.add(el.add(el.sub(el.mul(a_hi, b_hi), product), el.mul(a_hi, b_lo)),
                                  el.mul(a_lo, b_hi)), el.mul(a_lo, b_lo))
    total = el.add(product, c)
    z = el.sub(total, product)
    sum_error = el.add(el.sub(product, el.sub(total, z)), el.sub(c, z))
    return el.add(total, el.add(sum_error, product_error))


def _split_float64(x):
    """Veltkamp's split of x into a high part of 26 bits and the exact remainder."""
    t = el.mul(_c(x, 2.0 ** 27 + 1.0), x)
    hi = el.sub(t, el.sub(t, x))
    return hi, el.sub(x, hi)


def _horner(x, coefficients, start=None):
    """The polynomial with `coefficients` (highest degree first) at x, one FMA a step; `start` is added to the
    leading coefficient (XLA begins its rational functions at ``x * 0``, which makes an infinite x nan)."""
    p = _c(x, coefficients[0]) if start is None else el.add(start, _c(x, coefficients[0]))
    for coefficient in coefficients[1:]:
        p = fused_multiply_add(p, x, _c(x, coefficient))
    return p


def log(x):
    """XLA's CPU natural logarithm (float32: its polynomial; float64: the platform's libm, here numpy's/IREE's).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.log(paddle.to_tensor([0.0, 0.5, 1.0, 2.0])).tolist()
        [-inf, -0.6931471824645996, 0.0, 0.6931471824645996]
    """
    if get_aval(x).dtype.bits == 64:
        return el.log(x)
    u32 = dtypes.uint32
    shape = get_aval(x).shape
    smallest_normal = _c(x, 0x00800000)
    bits = el.bitcast_convert_type(el.select(el.gt(x, smallest_normal), x, smallest_normal), new_dtype=u32)
    exponent = el.convert_element_type(
        el.sub(el.bitcast_convert_type(bw.shift_right_logical(bits, _full(shape, 23, u32)), new_dtype=dtypes.int32),
               _full(shape, 126, dtypes.int32)), new_dtype=get_aval(x).dtype)
    # the mantissa in [0.5, 1); below sqrt(1/2) it is doubled (and the exponent lowered) to stay near 1
    mantissa = el.bitcast_convert_type(bw.or_(bw.and_(bits, _full(shape, 0x807FFFFF, u32)),
                                              _full(shape, 0x3F000000, u32)), new_dtype=get_aval(x).dtype)
    below = el.lt(mantissa, _c(x, _SQRT_HALF32))
    zero = _c(x, 0.0)
    exponent = el.sub(exponent, el.select(below, _c(x, 1.0), zero))
    m = el.add(el.add(mantissa, _c(x, -1.0)), el.select(below, mantissa, zero))
    m2 = el.mul(m, m)
    m3 = el.mul(m2, m)
    y0, y1, y2 = (_horner(m, chain) for chain in _LOG32_CHAINS)
    y = fused_multiply_add(fused_multiply_add(y0, m3, y1), m3, y2)
    y = fused_multiply_add(y, m3, el.mul(exponent, _c(x, _LN2_LO32)))
    r = el.add(fused_multiply_add(m2, _c(x, -0.5), m), y)
    r = fused_multiply_add(exponent, _c(x, _LN2_HI32), r)
    # log(+inf) = +inf, log(0) = -inf, log(x < 0) = log(nan) = nan
    r = el.select(el.eq(x, _c(x, np.inf)), x, r)
    r = el.select(el.eq(x, zero), _c(x, -np.inf), r)
    return el.select(el.gt(x, zero), r, el.select(el.eq(x, zero), r, _c(x, np.nan)))


def log1p(x):
    """XLA's CPU ``log(1 + x)``: a rational function for |x| below sqrt(2) - 1, `log` (1 + x) above.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.log1p(paddle.to_tensor([-1.0, 1e-8, 1.0])).tolist()
        [-inf, 9.99999993922529e-09, 0.6931471824645996]
    """
    bits = get_aval(x).dtype.bits
    x2 = el.mul(x, x)
    start = el.mul(x, _c(x, 0.0))
    ratio = el.div(_horner(x, _LOG1P_NUM[bits], start), _horner(x, _LOG1P_DEN[bits], start))
    small = el.add(x, fused_multiply_add(x2, _c(x, -0.5), el.mul(el.mul(x, x2), ratio)))
    large = log(el.add(x, _c(x, 1.0)))
    return el.select(el.lt(el.abs(x), _c(x, _LOG1P_SMALL[bits])), small, large)


def erf_inv(x):
    """XLA's erf_inv: Giles's polynomials (float32: two pieces; float64: three) in ``w = -log1p(-x*x)``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.erf_inv(paddle.to_tensor([-1.0, 0.5, 0.999])).tolist()
        [-inf, 0.4769362807273865, 2.326753854751587]
    """
    w = el.neg(log1p(el.mul(x, el.neg(x))))
    pieces = _ERF_INV64 if get_aval(x).dtype.bits == 64 else _ERF_INV32
    # each element's piece: the first whose bound w is below (the last one's bound is inf)
    piece = [el.lt(w, _c(x, upper)) for upper, _, _ in pieces[:-1]]

    def by_piece(values):
        chosen = values[-1]
        for i in reversed(range(len(piece))):
            chosen = el.select(piece[i], values[i], chosen)
        return chosen
    root = el.sqrt(w)
    arg = by_piece([el.add(w if i == 0 else root, _c(x, shift)) for i, (_, shift, _) in enumerate(pieces)])
    # one Horner evaluation with each element's coefficients, the shorter polynomials led by zeros (an FMA of a
    # zero and a zero gives zero, so the steps before their first coefficient leave them unchanged)
    degree = max(len(coefficients) for _, _, coefficients in pieces)
    padded = [(0.0,) * (degree - len(coefficients)) + coefficients for _, _, coefficients in pieces]
    result = by_piece([_c(x, p[0]) for p in padded])
    for step in range(1, degree):
        result = fused_multiply_add(result, arg, by_piece([_c(x, p[step]) for p in padded]))
    return el.select(el.eq(el.abs(x), _c(x, 1.0)), el.mul(x, _c(x, np.inf)), el.mul(result, x))


def erf(x):
    """XLA's CPU erf in float32 (a rational function, +-1 beyond |x| = 3.83); float64 is libm's (numpy's/IREE's).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.erf(paddle.to_tensor([0.5, 4.0])).tolist()
        [0.5204998850822449, 1.0]
    """
    if get_aval(x).dtype.bits == 64:
        return el.erf(x)
    x2 = el.mul(x, x)
    ratio = el.div(el.mul(x, _horner(x2, _ERF32_NUM)), _horner(x2, _ERF32_DEN))
    return el.select(el.ge(el.abs(x), _c(x, _ERF32_SATURATES)), el.sign(x), ratio)


def _with_derivative(value_fn, derivative):
    """`value_fn` with the JVP ``derivative(x, value) * tangent``; float16 and bfloat16 arguments are computed in
    float32 and rounded back, as XLA does."""
    def value(x):
        dt = get_aval(x).dtype
        if dt.bits >= 32:
            return value_fn(x)
        return el.convert_element_type(value_fn(el.convert_element_type(x, new_dtype=dtypes.float32)), new_dtype=dt)

    fn = custom_jvp(value)

    @fn.defjvp
    def _jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        out = fn(x)
        return out, el.mul(t, derivative(x, out))

    return fn


log = _with_derivative(log, lambda x, out: el.div(_c(x, 1.0), x))
log1p = _with_derivative(log1p, lambda x, out: el.div(_c(x, 1.0), el.add(x, _c(x, 1.0))))
erf_inv = _with_derivative(erf_inv, lambda x, out: el.mul(_c(x, math.sqrt(math.pi) / 2), el.exp(el.mul(out, out))))
erf = _with_derivative(erf, lambda x, out: el.mul(_c(x, 2 / math.sqrt(math.pi)), el.exp(el.neg(el.mul(x, x)))))
