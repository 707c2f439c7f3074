"""The transcendental functions of JAX's samplers as XLA's CPU backend computes them, so a transformed draw keeps
JAX's bits: `log`, `log1p`, `exp`, `erf_inv` and `erf`, written with the exactly rounded operations (+ - * /, sqrt,
compare/select, bitcasts and integer masks) that numpy, IREE and XLA all round the same way; `pow` and `tan`,
which XLA takes from the C library, correctly rounded.

XLA (jax 0.10.2 on x86-64, read from its optimized LLVM IR) evaluates float32 log as a Cephes-style polynomial on
the mantissa, log1p as a rational function below sqrt(2) - 1 and log(1 + x) above, exp as a polynomial (float32)
or Cephes' Pade form (float64) after reducing by powers of two, erf_inv as Giles's polynomials in
``w = -log1p(-x*x)`` and float32 erf as a rational function; float64 log, pow, tan and erf and float32 powf and tanf
are glibc's. Its code generator fuses each multiply whose product has one use into the following add (an FMA), so
those steps are `fused_multiply_add` here: one rounding, made exact without an FMA instruction (float32 through
float64; float64 by Dekker's exact product), which IREE's own contraction cannot change. Each function carries its
exact derivative as a custom JVP (the bit manipulations have none), so the samplers stay differentiable.

Identical to XLA bit for bit (tests/test_random_jax.py, tests/test_random_samplers_jax.py): float32 log, log1p,
exp, erf_inv, erf; float64 exp, and log1p and erf_inv where they do not reach log. float64 log is computed
correctly rounded in double-double arithmetic, which glibc's is in all but ~0.06% of arguments (glibc's tables
are not reproduced); float32 pow and tan are float64's rounded once. float64 pow, tan and erf are numpy's eagerly
and IREE's compiled (numpy's pow rounds ~5% of arguments differently from glibc's).
"""
from __future__ import annotations

import decimal
import math

import numpy as np

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
              64: (0x3F07BC0962B395CA, 0x3FDFE818A0FE1A83, 0x401A509F46F4FA53, 0x403DE9738B8CB9C9, 0x404E798EB86C3351,
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
# float32 exp: the argument's clamp, log2(e), ln 2 in two parts and the polynomial in the reduced argument
_EXP32_CLAMP = (-87.8, 88.8)
_LOG2E32 = 0x3FB8AA3B
_EXP32_POLY = (0x39506967, 0x3AB743CE, 0x3C088908, 0x3D2AA9C1, 0x3E2AAAAA, 0.5)
# float64 exp: Cephes' Pade form 1 + 2 g P(g^2) / (Q(g^2) - g P(g^2)), with its underflow and overflow bounds
_EXP64_BOUNDS = (0xC086232BDD7ABCD2, 0x40862E42FEFA39EF)
_LOG2E64, _LN2_HI64, _LN2_LO64 = 0x3FF71547652B82FE, 0x3FE62E4000000000, 0x3EB7F7D1CF79ABCA
_EXP64_P = (0x3F2089CDD5E44BE8, 0x3F9F06D10CCA2C7E, 1.0)
_EXP64_Q = (0x3EC92EB6BC365FA0, 0x3F64AE39B508B6C0, 0x3FCD17099887E074, 2.0)


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
        return el.convert_element_type(el.add(el.mul(_widened(a), _widened(b)), _widened(c)), new_dtype=dt)
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
    if get_aval(x).dtype.bits == 64:
        for coefficient in coefficients[1:]:
            p = fused_multiply_add(p, x, _c(x, coefficient))
        return p
    wide_x = _widened(x)  # once, not at every step as fused_multiply_add would
    for coefficient in coefficients[1:]:
        p = _float32_fma_of_widened(p, wide_x, _widened(_c(x, coefficient)))
    return p


def _widened(x):
    return el.convert_element_type(x, new_dtype=dtypes.float64)


def _float32_fma_of_widened(p, wide_x, wide_c):
    """float32 ``p * x + c`` rounded once, as `fused_multiply_add`, from x and c already widened to float64."""
    return el.convert_element_type(el.add(el.mul(_widened(p), wide_x), wide_c), new_dtype=dtypes.float32)


def log(x):
    """XLA's CPU natural logarithm (float32: its polynomial; float64: glibc's, reproduced correctly rounded).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.log(paddle.to_tensor([0.0, 0.5, 1.0, 2.0])).tolist()
        [-inf, -0.6931471824645996, 0.0, 0.6931471824645996]
    """
    if get_aval(x).dtype.bits == 64:
        return _log64(x)
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


def _two_sum(a, b):
    """a + b as the rounded sum and its exact error (Knuth)."""
    total = el.add(a, b)
    b_part = el.sub(total, a)
    return total, el.add(el.sub(a, el.sub(total, b_part)), el.sub(b, b_part))


def _two_product(a, b):
    """a * b as the rounded product and its exact error (Dekker)."""
    product = el.mul(a, b)
    (a_hi, a_lo), (b_hi, b_lo) = _split_float64(a), _split_float64(b)
    error = el.add(el.add(el.add(el.sub(el.mul(a_hi, b_hi), product), el.mul(a_hi, b_lo)), el.mul(a_lo, b_hi)),
                   el.mul(a_lo, b_lo))
    return product, error


def _dd_add(a, b):
    """The sum of two double-double numbers (hi, lo) as a double-double."""
    hi, lo = _two_sum(a[0], b[0])
    return _two_sum(hi, el.add(lo, el.add(a[1], b[1])))


def _dd_mul(a, b):
    """The product of two double-double numbers as a double-double."""
    hi, lo = _two_product(a[0], b[0])
    return _two_sum(hi, el.add(lo, el.add(el.mul(a[0], b[1]), el.mul(a[1], b[0]))))


def _dd_constant(x, exact: decimal.Decimal):
    """A constant (a Decimal of some 60 digits) as the double-double nearest it."""
    hi = float(exact)
    return _c(x, hi), _c(x, float(exact - decimal.Decimal(hi)))


with decimal.localcontext() as _context:
    _context.prec = 60
    _LN2 = decimal.Decimal("0.693147180559945309417232121458176568075500134360255254120680009493")
    _ONE_TWELFTH = decimal.Decimal(1) / decimal.Decimal(12)
_SQRT2 = float(np.sqrt(2.0))


def _log64(x):
    """The float64 logarithm correctly rounded (save a few arguments in 10^17), which glibc's log, the one XLA
    calls, also is in all but ~0.06% of arguments; numpy's and IREE's differ from it more often (~0.2%, ~0.01%).
    ``x = 2**k m`` with m in [sqrt(1/2), sqrt(2)); ``log(m) = 2 atanh(s)``, ``s = (m - 1) / (m + 1)``, evaluated as
    ``u + u**3 P(u**2)`` with ``u = 2s`` in double-double arithmetic, plus ``k ln 2``, rounded once at the end."""
    i64 = dtypes.int64
    shape = get_aval(x).shape
    subnormal = el.lt(x, _c(x, float(np.finfo(np.float64).tiny)))
    scaled = el.mul(x, el.select(subnormal, _c(x, 2.0 ** 54), _c(x, 1.0)))  # subnormals made normal
    bits = el.bitcast_convert_type(scaled, new_dtype=i64)
    k = el.sub(bw.shift_right_logical(bits, _full(shape, 52, i64)), _full(shape, 1023, i64))
    m = el.bitcast_convert_type(bw.or_(bw.and_(bits, _full(shape, (1 << 52) - 1, i64)),
                                       _full(shape, 1023 << 52, i64)), new_dtype=dtypes.float64)
    above = el.gt(m, _c(x, _SQRT2))
    m = el.select(above, el.mul(m, _c(x, 0.5)), m)
    k = el.convert_element_type(el.add(k, el.convert_element_type(above, new_dtype=i64)), new_dtype=dtypes.float64)
    k = el.sub(k, el.select(subnormal, _c(x, 54.0), _c(x, 0.0)))
    f = el.sub(m, _c(x, 1.0))  # exact
    d_hi, d_lo = _two_sum(_c(x, 2.0), f)
    s_hi = el.div(f, d_hi)
    p, p_err = _two_product(s_hi, d_hi)
    s_lo = el.div(el.sub(el.sub(el.sub(f, p), p_err), el.mul(s_hi, d_lo)), d_hi)
    u = (el.mul(s_hi, _c(x, 2.0)), el.mul(s_lo, _c(x, 2.0)))
    u2 = _dd_mul(u, u)
    # 2 atanh(u/2) = u + sum_n u**(2n+1) / (4**n (2n+1)): the first coefficient in double-double, the rest
    # (relatively 1e-4 and smaller) in double
    rest = _c(x, 0.0)
    for n in range(14, 1, -1):  # plain rounding suffices for this part, 1e-4 of the result at most
        rest = el.add(el.mul(rest, u2[0]), _c(x, 1.0 / (4 ** n * (2 * n + 1))))
    series = _dd_add(_dd_constant(x, _ONE_TWELFTH), (el.mul(rest, u2[0]), _c(x, 0.0)))
    tail = _dd_mul(_dd_mul(u2, u), series)
    log_m = _dd_add(u, tail)
    ln2_hi, ln2_lo = _dd_constant(x, _LN2)
    k_ln2 = _two_product(k, ln2_hi)
    k_ln2 = (k_ln2[0], el.add(k_ln2[1], el.mul(k, ln2_lo)))
    hi, lo = _dd_add(k_ln2, log_m)
    out = el.add(hi, lo)
    zero = _c(x, 0.0)
    out = el.select(el.eq(x, _c(x, np.inf)), x, out)
    out = el.select(el.eq(x, zero), _c(x, -np.inf), out)
    return el.select(el.gt(x, zero), out, el.select(el.eq(x, zero), out, _c(x, np.nan)))


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
    if get_aval(x).dtype.bits == 64:
        for step in range(1, degree):
            result = fused_multiply_add(result, arg, by_piece([_c(x, p[step]) for p in padded]))
    else:  # the argument and coefficients widened once
        wide_arg = _widened(arg)
        for step in range(1, degree):
            coefficient = by_piece([_c(wide_arg, float(np.float32(p[step]))) for p in padded])
            result = _float32_fma_of_widened(result, wide_arg, coefficient)
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


def exp(x):
    """XLA's CPU exponential: ``2**n * e**g`` with ``n = floor(x log2(e) + 1/2)`` and ``g = x - n ln 2`` (ln 2 in two
    parts), e**g a polynomial (float32) or Cephes' Pade form (float64), the power of two built from bits.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.exp(paddle.to_tensor([-float('inf'), 0.0, 1.0])).tolist()
        [0.0, 1.0, 2.7182817459106445]
    """
    if get_aval(x).dtype.bits == 64:
        return _exp64(x)
    lo, hi = (_c(x, bound) for bound in _EXP32_CLAMP)
    x = el.select(el.gt(x, hi), hi, el.select(el.lt(x, lo), lo, x))  # a nan passes through
    n = el.floor(fused_multiply_add(x, _c(x, _LOG2E32), _c(x, 0.5)))
    n = el.clamp(_c(x, -127.0), n, _c(x, 127.0))
    g = fused_multiply_add(el.neg(n), _c(x, _LN2_HI32), x)
    g = fused_multiply_add(el.neg(n), _c(x, _LN2_LO32), g)
    e_g = el.add(_c(x, 1.0), fused_multiply_add(_horner(g, _EXP32_POLY), el.mul(g, g), g))
    # e**g * 2**127 overflows exactly when e**g >= 2 (the scaling is exact); kept out of the product itself
    overflows = bw.and_(el.eq(n, _c(x, 127.0)), el.ge(e_g, _c(x, 2.0)))
    out = el.mul(el.select(overflows, _c(x, 1.0), e_g), _power_of_two(n, 127, 23, dtypes.int32))
    out = el.select(overflows, _c(x, np.inf), out)
    # XLA's CPU code flushes subnormal results to zero
    return el.select(el.lt(out, _c(x, float(dtypes.finfo(dtypes.float32).tiny))), _c(x, 0.0), out)


def _power_of_two(n, bias, mantissa_bits, int_dt):
    """2**n for integral floats n within the normal exponents, built from the exponent bits."""
    shape = get_aval(n).shape
    biased = el.add(el.convert_element_type(n, new_dtype=int_dt), _full(shape, bias, int_dt))
    return el.bitcast_convert_type(bw.shift_left(biased, _full(shape, mantissa_bits, int_dt)),
                                   new_dtype=get_aval(n).dtype)


def _exp64(x):
    lo, hi = (_c(x, bound) for bound in _EXP64_BOUNDS)
    clamped = el.max(el.min(x, hi), lo)  # maximum/minimum propagate a nan
    n = el.floor(fused_multiply_add(clamped, _c(x, _LOG2E64), _c(x, 0.5)))
    g = fused_multiply_add(el.neg(n), _c(x, _LN2_HI64), clamped)
    g = fused_multiply_add(el.neg(n), _c(x, _LN2_LO64), g)
    g2 = el.mul(g, g)
    gp = el.mul(_horner(g2, _EXP64_P), g)
    e_g = el.add(el.mul(el.div(gp, el.sub(_horner(g2, _EXP64_Q), gp)), _c(x, 2.0)), _c(x, 1.0))
    # 2**n as (2**(n >> 2))**3 * 2**(n - 3 (n >> 2)), each factor a normal float, for n down to the subnormals
    n = el.clamp(_c(x, -2099.0), n, _c(x, 2099.0))
    quarter = el.floor(el.mul(n, _c(x, 0.25)))
    quarter_scale = _power_of_two(quarter, 1023, 52, dtypes.int64)
    rest = _power_of_two(el.sub(n, el.mul(quarter, _c(x, 3.0))), 1023, 52, dtypes.int64)
    out = el.mul(el.mul(el.mul(el.mul(e_g, quarter_scale), quarter_scale), quarter_scale), rest)
    out = el.select(el.lt(x, lo), _c(x, 0.0), out)
    return el.select(el.gt(x, hi), _c(x, np.inf), out)


def tan(x):
    """The tangent as XLA's CPU backend gets it, from the C library (tanf/tan). float32 is float64's tangent
    rounded once (correctly rounded; glibc 2.36's tanf is not in ~4% of arguments, later versions are).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.tan(paddle.to_tensor([0.5])).tolist()
        [0.5463024973869324]
    """
    return _through_float64(el.tan, x)


def _through_float64(fn, *args):
    """`fn` of float32 arguments evaluated in float64 and rounded once (float64 arguments as they are)."""
    dt = get_aval(args[0]).dtype
    if dt.bits == 64:
        return fn(*args)
    return el.convert_element_type(fn(*[el.convert_element_type(a, new_dtype=dtypes.float64) for a in args]),
                                   new_dtype=dt)


def pow(x, y):
    """x ** y as XLA's CPU backend gets it, from the C library (powf/pow). float32 is float64's power rounded
    once, which is glibc's powf (it evaluates in double precision).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.random import xla_math
        >>> xla_math.pow(paddle.to_tensor([2.0]), paddle.to_tensor([0.5])).tolist()
        [1.4142135381698608]
    """
    return _through_float64(el.pow, x, y)


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
exp = _with_derivative(exp, lambda x, out: out)
erf_inv = _with_derivative(erf_inv, lambda x, out: el.mul(_c(x, math.sqrt(math.pi) / 2), el.exp(el.mul(out, out))))
erf = _with_derivative(erf, lambda x, out: el.mul(_c(x, 2 / math.sqrt(math.pi)), el.exp(el.neg(el.mul(x, x)))))
