"""float64 expansions of the functions IREE's llvm-cpu backend cannot compile, or compiles inaccurately, in f64.

IREE 3.13 lowers f64 sin/cos/tan/tanh/atan2/fmod (and CHLO asin/acos/atan/lgamma/digamma/polygamma, which expand
into them) to libm calls its embedded linker cannot resolve ("iree-lld: error: undefined symbol: sin"); its f64
expm1/log1p/sinh (and CHLO asinh/atanh) compile but lose up to 1e8 ulp near 0 (expm1 is exp(x) - 1 there), and
cosh/sinh up to ~500 ulp towards overflow. The emitters here write the functions with ops that compile and are
exact or correctly rounded in f64: + - * /, floor/round, compare/select, sqrt, exp, log, bitcast, integer
shifts, and chlo.zeta (polygamma of order >= 1).

`fix_atan2` mends IREE's own atan2 in the narrower float types (its special cases and signs).

Each emitter is ``emit_<op>(ctx, x[, y], aval) -> str`` (a `FuncLowering`, operand SSA names, their f64 type;
polygamma also takes ``m=``); `F64_EXPANSIONS` maps the primitive names of paddle_fn.prims.elementwise to them,
and `lower_float64_by_expansion(name)` is the override (lowering/targets.py) that uses them: on llvm-cpu for all of
them, on the GPU backends for polygamma, whose CHLO expansion fails there too ("undefined symbol: sin", IREE 3.13,
cuda); other backends, and the GPUs' other functions, are lowered natively.

Accuracy against numpy/scipy over normal arguments (tests/test_f64_lowering.py): <= 1 ulp measured for sin, cos,
tanh, expm1, log1p, sinh, cosh, atan, atan2, asin, acos; <= 2 ulp for tan; fmod exact; lgamma/digamma ~1e-15
absolute (relative error grows near their roots); polygamma ~1e-15 relative (chlo.zeta). sin/cos/tan reduce
x = k pi/2 + r with a 3-part Cody-Waite split of pi/2 (119 bits), exact by construction while k*PIO2_1 is
(|x| < 1.6e6). Past that, IREE's CPU code (which contracts x - k*c into an FMA) keeps an absolute error of
about |x| 2^-87 (measured: 1 ulp to 1e7, 14 ulp at 1e9, 3.5e-15 absolute at 1e12, 3e-11 at 1e16); a backend
without FMA contraction would leave ~|x| 2^-53. Past |x| ~ 5e20 the 119 bits run out and the result is nan
(numpy, with Payne-Hanek reduction, stays exact there), as for +-inf and nan. IREE's CPU code flushes
subnormal inputs and results to zero, in these expansions as in every other op.
"""
from __future__ import annotations

import math
from fractions import Fraction

from paddle_fn.core import dtypes
from paddle_fn.lowering.emitter import compare_type, signed_int_of_width, tensor_type
from paddle_fn.lowering.staged import generic_rule

# pi/2 = PIO2_1 + PIO2_2 + PIO2_3 (+ 1e-37): PIO2_1 and PIO2_2 hold 33 significant bits, so k*PIO2_1 and
# k*PIO2_2 are exact for |k| < 2^20. Derived with mpmath at 300 bits (the test re-derives them).
PIO2_1 = float.fromhex("0x1.921fb54400000p+0")
PIO2_2 = float.fromhex("0x1.0b4611a600000p-34")
PIO2_3 = float.fromhex("0x1.3198a2e037073p-69")
TWO_OVER_PI = 2 / math.pi
# ln 2 = LN2_HI + LN2_LO with LN2_HI on 42 bits: k*LN2_HI is exact for |k| < 2^11.
LN2_HI = float.fromhex("0x1.62e42fefa3800p-1")
LN2_LO = float.fromhex("0x1.ef35793c76730p-45")
# (hi, lo) of atan(c) and of pi - atan(c) at the atan breakpoints c = 0, 1/2, 1, 3/2, inf.
ATAN_HI = [0.0, float.fromhex("0x1.dac670561bb4fp-2"), float.fromhex("0x1.921fb54442d18p-1"),
           float.fromhex("0x1.f730bd281f69bp-1"), float.fromhex("0x1.921fb54442d18p+0")]
ATAN_LO = [0.0, float.fromhex("0x1.a2b7f222f65e2p-56"), float.fromhex("0x1.1a62633145c07p-55"),
           float.fromhex("0x1.007887af0cbbdp-56"), float.fromhex("0x1.1a62633145c07p-54")]
PI_MINUS_ATAN_HI = [float.fromhex("0x1.921fb54442d18p+1"), float.fromhex("0x1.56c6e7397f5aep+1"),
                    float.fromhex("0x1.2d97c7f3321d2p+1"), float.fromhex("0x1.145385fa3af71p+1"),
                    float.fromhex("0x1.921fb54442d18p+0")]
PI_MINUS_ATAN_LO = [float.fromhex("0x1.1a62633145c07p-53"), float.fromhex("0x1.660b64ece6f4bp-53"),
                    float.fromhex("0x1.a79394c9e8a0ap-54"), float.fromhex("0x1.fa53523b6428fp-53"),
                    float.fromhex("0x1.1a62633145c07p-54")]
PI_HI, PI_LO = PI_MINUS_ATAN_HI[0], PI_MINUS_ATAN_LO[0]
# (tanh(x) - x) / x^3 as a polynomial in z = x^2 on [0, 1]: the degree-16 interpolant at the Chebyshev nodes,
# derived with mpmath at 200 bits (the test re-derives it), rounded to float64.
TANH_P = [float.fromhex(h) for h in (
    "-0x1.5555555555555p-2", "0x1.1111111111109p-3", "-0x1.ba1ba1ba1ad79p-5", "0x1.664f488284a62p-6",
    "-0x1.226e3554e44b7p-7", "0x1.d6d3cf0c9f4f0p-9", "-0x1.7da3468275600p-10", "0x1.3556d1497c973p-11",
    "-0x1.f567a08729e42p-13", "0x1.95f8917d9e05ap-14", "-0x1.4716206d34c37p-15", "0x1.02a4681561bf1p-16",
    "-0x1.83b86bf37b691p-18", "0x1.01ed0537aafe1p-19", "-0x1.1306c68e489eap-21", "0x1.922fdbe58a872p-24",
    "-0x1.255e7760dc76dp-27")]


def _bernoulli(n):
    """B_0..B_n as Fractions (B_1 = -1/2), from sum_{j<=m} C(m+1, j) B_j = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, j) * b[j] for j in range(m)) / (m + 1))
    return b


def _taylor(terms, first, step, alternate):
    """Taylor coefficients 1/n! (n = first, first+step, ...), correctly rounded (int / int), sign-alternating."""
    return [(-1) ** (i if alternate else 0) / math.factorial(first + i * step) for i in range(terms)]


# Polynomials in z = r^2 (r^2 = r*r for exp). Enough terms that the first one left out is < 2^-60 relative
# on the reduced interval: |r| <= pi/4 (sin, cos), |r| <= ln2/2 (expm1), |x| < 1 (sinh, cosh), |t| <= 7/16 (atan).
SIN_Z = [-c for c in _taylor(10, 3, 2, True)]                         # sin r = r + r z (-1/3! + z/5! - ...)
COS_Z = _taylor(10, 4, 2, True)                                        # cos r = 1 - z/2 + z^2 (1/4! - z/6! + ...)
EXPM1_R = _taylor(14, 3, 1, False)                                     # expm1 r = r + r^2/2 + r^3 (1/3! + r/4! ...)
SINH_Z = _taylor(10, 3, 2, False)                                      # sinh x = x + x z (1/3! + z/5! + ...)
COSH_Z = _taylor(11, 2, 2, False)                                      # cosh x = 1 + z (1/2! + z/4! + ...)
ATAN_Z = [(-1) ** n / (2 * n + 1) for n in range(1, 23)]               # atan t = t + t z (-1/3 + z/5 - ...)

# Asymptotic series at z >= 10 (the recurrences below shift there), first term left out < 2^-60 relative:
#   digamma z = log z - 1/(2z) - sum B_2k / (2k z^2k)
#   lgamma z = (z - 1/2) log z - z + log(2 pi)/2 + sum B_2k / (2k (2k-1) z^(2k-1))
_B = _bernoulli(20)
DIGAMMA_W = [float(_B[2 * k] / (2 * k)) for k in range(1, 10)]               # polynomial in w = 1/z^2, times w
LGAMMA_W = [float(_B[2 * k] / (2 * k * (2 * k - 1))) for k in range(1, 10)]  # polynomial in w, times 1/z
GAMMA_SHIFT = 10.0

_EXP_CLAMP = (-45.0, 710.6)                # expm1 is -1 below, exp/cosh/sinh overflow above: keeps 2^k valid


class _Emit:
    """Typed helpers over a FuncLowering for one float tensor type (f64 here, and its i1 / i64 companions; the
    helpers that read bits work for the narrower floats too)."""

    def __init__(self, ctx, aval, consts=None):
        self.ctx, self.float_aval = ctx, aval
        self.bool_aval = aval.update(dtype=dtypes.bool_)
        self.int_aval = aval.update(dtype=signed_int_of_width(aval.dtype))  # for bit patterns
        self._consts = {} if consts is None else consts

    def _typed(self, name):
        return {"f": self.float_aval, "b": self.bool_aval, "i": self.int_aval}[name]

    def const(self, value, kind="f"):
        key = (kind, float(value).hex() if kind == "f" else int(value))
        if key not in self._consts:
            self._consts[key] = self.ctx.constant(value, self._typed(kind))
        return self._consts[key]

    def op(self, name, *args, kind="f"):
        aval = self._typed(kind)
        return self.ctx.op(f"stablehlo.{name}", list(args), aval, in_avals=[aval] * len(args))

    def add(self, a, b):
        return self.op("add", a, b)

    def sub(self, a, b):
        return self.op("subtract", a, b)

    def mul(self, a, b):
        return self.op("multiply", a, b)

    def div(self, a, b):
        return self.op("divide", a, b)

    def neg(self, a):
        return self.op("negate", a)

    def abs(self, a):
        return self.op("abs", a)

    def cmp(self, direction, a, b, kind="f"):
        aval = self._typed(kind)
        return self.ctx.op("stablehlo.compare", [f"{direction}, {a}", b], self.bool_aval,
                           attrs=f", {compare_type(aval.dtype)}", sep="", in_avals=[aval, aval])

    def select(self, pred, a, b, kind="f"):
        aval = self._typed(kind)
        return self.ctx.op("stablehlo.select", [pred, a, b], aval, in_avals=[self.bool_aval, aval, aval])

    def pick(self, conds_values, default):
        """select(c1, v1, select(c2, v2, ... default)): the value of the first true condition."""
        out = default
        for cond, value in reversed(conds_values):
            out = self.select(cond, value, out)
        return out

    def poly(self, z, coeffs):
        acc = self.const(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.add(self.mul(acc, z), self.const(c))
        return acc

    def bits(self, a):
        return self.ctx.op("stablehlo.bitcast_convert", [a], self.int_aval, in_avals=[self.float_aval])

    def signbit(self, a):
        return self.cmp("LT", self.bits(a), self.const(0, "i"), kind="i")

    def copysign(self, mag, sign):
        m = self.abs(mag)
        return self.select(self.signbit(sign), self.neg(m), m)

    def isnan(self, a):
        return self.cmp("NE", a, a)

    def pow2i(self, n):
        """2^n for an i64 tensor n in [-1022, 1023], built from its exponent bits."""
        biased = self.op("add", n, self.const(1023, "i"), kind="i")
        field = self.op("shift_left", biased, self.const(52, "i"), kind="i")
        return self.ctx.op("stablehlo.bitcast_convert", [field], self.float_aval, in_avals=[self.int_aval])

    def to_int(self, a):
        return self.ctx.op("stablehlo.convert", [a], self.int_aval, in_avals=[self.float_aval])

    def ldexp(self, v, k):
        """v * 2^k for an integer-valued f64 k in [-3066, 3069] (fmod needs 2097), as three power-of-two scalings."""
        third = self.op("floor", self.mul(k, self.const(1 / 3)))
        p = self.pow2i(self.to_int(third))
        rest = self.pow2i(self.to_int(self.sub(k, self.add(third, third))))
        return self.mul(self.mul(self.mul(v, rest), p), p)

    def two_sum(self, a, b):
        """s + e == a + b exactly (Knuth's TwoSum)."""
        s = self.add(a, b)
        bb = self.sub(s, a)
        e = self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))
        return s, e

    def fast_two_sum(self, a, b):
        """s + e == a + b exactly when |a| >= |b| (Dekker)."""
        s = self.add(a, b)
        return s, self.sub(b, self.sub(s, a))

    def _split(self, a):
        """a = hi + lo with 26-bit halves (Veltkamp; |a| < 2^996)."""
        c = self.mul(a, self.const(2.0 ** 27 + 1))
        hi = self.sub(c, self.sub(c, a))
        return hi, self.sub(a, hi)

    def two_prod(self, a, b):
        """p + e == a * b exactly (Dekker, no FMA needed; |a|, |b| < 2^996)."""
        p = self.mul(a, b)
        (ah, al), (bh, bl) = self._split(a), self._split(b)
        e = self.add(self.sub(self.mul(ah, bh), p), self.add(self.mul(ah, bl), self.mul(al, bh)))
        return p, self.add(e, self.mul(al, bl))


# ---------------------------------------------------------------------------------------------- sin, cos, tan

def _cody_waite(e, x):
    """(k, h, l): x = k pi/2 + h + l, k = round(x 2/pi); exact while k*PIO2_1 is (|k| < 2^20)."""
    k = e.op("round_nearest_even", e.mul(x, e.const(TWO_OVER_PI)))
    t = e.sub(x, e.mul(k, e.const(PIO2_1)))                           # Sterbenz
    h, l = e.two_sum(t, e.neg(e.mul(k, e.const(PIO2_2))))
    return k, h, e.sub(l, e.mul(k, e.const(PIO2_3)))


def _mod4(e, k):
    return e.sub(k, e.mul(e.const(4.0), e.op("floor", e.mul(k, e.const(0.25)))))


def _reduce_pio2(e, x):
    """x = k pi/2 + (rh + rl), |rh| <= pi/4 + 2^-40; returns (k mod 4 as f64, rh, rl), rh nan past ~5e20.

    A second pass reduces what the first leaves when k has more than 53 bits (|x| > 1.4e16), where
    round(x 2/pi) is off by more than one; it is exact there when the backend contracts x - k*PIO2_1 into an
    FMA (IREE's CPU code does), leaving an absolute error of ~|x| 2^-87 (~|x| 2^-53 without FMA).
    """
    k1, h1, l1 = _cody_waite(e, x)
    k2, h2, l2 = _cody_waite(e, h1)
    rh, rl = e.fast_two_sum(h2, e.add(l2, l1))
    quadrant = _mod4(e, e.add(_mod4(e, k1), _mod4(e, k2)))
    lost = e.cmp("GT", e.abs(rh), e.const(1.0))                          # |x| beyond ~5e20, or +-inf
    return quadrant, e.select(lost, e.const(math.nan), rh), rl


def _sin_kernel(e, rh, rl):
    """sin(rh + rl) for |rh| <~ pi/4: rh + (rh z P(z) + rl cos rh)."""
    z = e.mul(rh, rh)
    tail = e.mul(e.mul(rh, z), e.poly(z, SIN_Z))
    return e.add(rh, e.add(tail, e.mul(rl, e.sub(e.const(1.0), e.mul(e.const(0.5), z)))))


def _cos_kernel(e, rh, rl):
    """cos(rh + rl) for |rh| <~ pi/4: w = 1 - z/2 rounded, and its rounding error added back with the tail."""
    z = e.mul(rh, rh)
    hz = e.mul(e.const(0.5), z)
    w = e.sub(e.const(1.0), hz)
    w_err = e.sub(e.sub(e.const(1.0), w), hz)
    tail = e.sub(e.mul(e.mul(z, z), e.poly(z, COS_Z)), e.mul(rh, rl))
    return e.add(w, e.add(w_err, tail))


def _quadrant_is(e, quadrant, *values):
    return [e.cmp("EQ", quadrant, e.const(v)) for v in values]


def _keep_signed_zero(e, x, result):
    """x itself where x is +-0: odd functions keep -0's sign, which k*c - k*c = +0 would lose."""
    return e.select(e.cmp("EQ", x, e.const(0.0)), x, result)


def emit_sin(ctx, x, aval):
    """Quadrant q of x = k pi/2 + r: sin r, cos r, -sin r, -cos r."""
    e = _Emit(ctx, aval)
    quadrant, rh, rl = _reduce_pio2(e, x)
    s, c = _sin_kernel(e, rh, rl), _cos_kernel(e, rh, rl)
    q1, q2, q3 = _quadrant_is(e, quadrant, 1, 2, 3)
    return _keep_signed_zero(e, x, e.pick([(q1, c), (q2, e.neg(s)), (q3, e.neg(c))], s))


def emit_cos(ctx, x, aval):
    """Quadrant q of x = k pi/2 + r: cos r, -sin r, -cos r, sin r."""
    e = _Emit(ctx, aval)
    quadrant, rh, rl = _reduce_pio2(e, x)
    s, c = _sin_kernel(e, rh, rl), _cos_kernel(e, rh, rl)
    q1, q2, q3 = _quadrant_is(e, quadrant, 1, 2, 3)
    return e.pick([(q1, e.neg(s)), (q2, e.neg(c)), (q3, s)], c)


def emit_tan(ctx, x, aval):
    """sin r / cos r in even quadrants, -cos r / sin r in odd ones (<= 2 ulp: two kernels and a division)."""
    e = _Emit(ctx, aval)
    quadrant, rh, rl = _reduce_pio2(e, x)
    s, c = _sin_kernel(e, rh, rl), _cos_kernel(e, rh, rl)
    even = e.cmp("EQ", e.op("floor", e.mul(quadrant, e.const(0.5))), e.mul(quadrant, e.const(0.5)))
    t = e.select(even, e.div(s, c), e.neg(e.div(c, s)))
    return _keep_signed_zero(e, x, t)


# ---------------------------------------------------------------------------------------------- exp family

def _exp_reduce(e, x):
    """x = k ln2 + r (x clamped to _EXP_CLAMP); returns (k, r, s) with expm1(r) = r + s to ~2^-60 relative."""
    x = e.ctx.op("stablehlo.clamp", [e.const(_EXP_CLAMP[0]), x, e.const(_EXP_CLAMP[1])], e.float_aval,
                 in_avals=[e.float_aval] * 3)
    k = e.op("round_nearest_even", e.mul(x, e.const(1 / math.log(2))))
    hi = e.sub(x, e.mul(k, e.const(LN2_HI)))                          # exact
    r, rc = e.fast_two_sum(hi, e.neg(e.mul(k, e.const(LN2_LO))))
    r2 = e.mul(r, r)
    s = e.mul(r2, e.add(e.const(0.5), e.mul(r, e.poly(r, EXPM1_R))))
    # expm1(r + rc) = expm1(r) + rc e^r
    return k, r, e.add(s, e.add(rc, e.mul(rc, r)))


def _expm1_small(e, k, r, s):
    """expm1 as a pair (hi, lo) where k <= 56: 2^k - 1 and 2^k r are exact, TwoSum keeps their sum's error."""
    p = e.pow2i(e.to_int(e.op("minimum", k, e.const(56.0))))
    head, err = e.two_sum(e.sub(p, e.const(1.0)), e.mul(p, r))
    return e.fast_two_sum(head, e.add(err, e.mul(p, s)))


def _expm1(e, x):
    k, r, s = _exp_reduce(e, x)
    small = e.add(*_expm1_small(e, k, r, s))
    # k > 56: the -1 is below half an ulp of e^x
    large = e.ldexp(e.add(e.const(1.0), e.add(r, s)), k)
    out = e.select(e.cmp("GT", k, e.const(56.0)), large, small)
    return e.select(e.isnan(x), x, out)


def _exp_halves(e, x):
    """(H, L) with H + L = e^x / 2 to ~2^-100 relative (x in _EXP_CLAMP; H overflows to inf past 710.47)."""
    k, r, s = _exp_reduce(e, x)
    h, l = e.fast_two_sum(e.const(1.0), r)
    h, l = e.fast_two_sum(h, e.add(l, s))
    km1 = e.sub(k, e.const(1.0))
    return e.ldexp(h, km1), e.ldexp(l, km1)


def emit_expm1(ctx, x, aval):
    """2^k expm1(r) + (2^k - 1) for x = k ln2 + r, expm1(r) by its Taylor series on |r| <= ln2/2."""
    e = _Emit(ctx, aval)
    return _keep_signed_zero(e, x, _expm1(e, x))


def emit_log1p(ctx, x, aval):
    """log(u) + (x - (u - 1))/u with u = 1 + x rounded: the second term restores what rounding u lost."""
    e = _Emit(ctx, aval)
    u = e.add(e.const(1.0), x)
    correction = e.div(e.sub(x, e.sub(u, e.const(1.0))), u)
    finite = e.ctx.op("stablehlo.is_finite", [correction], e.bool_aval, in_avals=[e.float_aval])
    out = e.add(e.op("log", u), e.select(finite, correction, e.const(0.0)))   # x = -1 or inf: log(u) alone
    return e.select(e.cmp("EQ", u, e.const(1.0)), x, out)


def emit_sinh(ctx, x, aval):
    """Taylor series below |x| = 1; above, e^|x|/2 as a double-double pair minus e^-|x|/2; x's sign."""
    e = _Emit(ctx, aval)
    a = e.abs(x)
    z = e.mul(a, a)
    taylor = e.add(a, e.mul(e.mul(a, z), e.poly(z, SINH_Z)))
    h, l = _exp_halves(e, a)
    from_exp = e.add(h, e.sub(l, e.div(e.const(0.25), h)))             # e^a/2 - e^-a/2
    out = e.select(e.cmp("LT", a, e.const(1.0)), taylor, from_exp)
    return e.select(e.isnan(x), x, e.copysign(out, x))


def emit_cosh(ctx, x, aval):
    """Taylor series below |x| = 1; above, e^|x|/2 as a double-double pair plus e^-|x|/2."""
    e = _Emit(ctx, aval)
    a = e.abs(x)
    z = e.mul(a, a)
    taylor = e.add(e.const(1.0), e.mul(z, e.poly(z, COSH_Z)))
    h, l = _exp_halves(e, a)
    from_exp = e.add(h, e.add(l, e.div(e.const(0.25), h)))
    out = e.select(e.cmp("LT", a, e.const(1.0)), taylor, from_exp)
    return e.select(e.isnan(x), x, out)


def emit_tanh(ctx, x, aval):
    """x + x^3 P(x^2) below 1; 1 - 2/(e^(2|x|) + 1) above, with IREE's own exp (exact to 1 ulp, 4x cheaper than an
    expm1 built here); 1 from 22 on; x's sign. P interpolates (tanh(x) - x)/x^3 at 17 Chebyshev nodes of x^2 in
    [0, 1] (TANH_P: its error is 4e-19, far below the rounding of its evaluation)."""
    e = _Emit(ctx, aval)
    a = e.abs(x)
    one, two = e.const(1.0), e.const(2.0)
    below_one = e.cmp("LT", a, one)
    near = e.op("minimum", a, one)
    z = e.mul(near, near)
    small = e.add(near, e.mul(e.mul(near, z), e.poly(z, TANH_P)))
    large = e.sub(one, e.div(two, e.add(e.op("exponential", e.mul(two, e.op("minimum", a, e.const(22.0)))), one)))
    out = e.select(below_one, small, large)
    return e.select(e.isnan(x), x, e.copysign(out, x))


# ---------------------------------------------------------------------------------------------- atan family

def _atan_parts(e, a, a_lo=None):
    """For a >= 0 (or nan), plus a_lo << a: (table, p) with atan(a + a_lo) = table(ATAN_HI) + table(ATAN_LO) + p.

    `table(values)` selects the entry of a's interval, so callers can read pi - atan(c) from the same choice.
    """
    one, two, three_half = e.const(1.0), e.const(2.0), e.const(1.5)
    # 7/16, 11/16, 19/16, 39/16 bound the intervals reduced about c = 0, 1/2, 1, 3/2, inf; |t| <= 7/16
    in1, in2, in3, in4 = [e.cmp("LT", a, e.const(b / 16)) for b in (7, 11, 19, 39)]
    num = e.pick([(in1, a), (in2, e.sub(e.mul(two, a), one)), (in3, e.sub(a, one)), (in4, e.sub(a, three_half))],
                 e.const(-1.0))
    den = e.pick([(in1, one), (in2, e.add(two, a)), (in3, e.add(a, one)), (in4, e.add(one, e.mul(three_half, a)))],
                 a)
    t = e.div(num, den)
    z = e.mul(t, t)
    p = e.add(t, e.mul(e.mul(t, z), e.poly(z, ATAN_Z)))
    if a_lo is not None:  # atan' = 1/(1 + a^2)
        p = e.add(p, e.div(a_lo, e.add(e.const(1.0), e.mul(a, a))))
    conds = [in1, in2, in3, in4]

    def table(values):
        return e.pick([(c, e.const(v)) for c, v in zip(conds, values)], e.const(values[-1]))
    return table, p


def _atan_of_ratio(e, table, p, x_negative):
    """atan2 >= 0 from _atan_parts of |y/x|: atan there, pi - atan where x is negative (or -0)."""
    right = e.add(table(ATAN_HI), e.add(table(ATAN_LO), p))
    left = e.add(table(PI_MINUS_ATAN_HI), e.sub(table(PI_MINUS_ATAN_LO), p))
    return e.select(x_negative, left, right)


def emit_atan2(ctx, y, x, aval):
    """numpy's atan2: quadrant from x's sign bit, y's sign copied; +-0/+-0 and +-inf/+-inf as numpy."""
    e = _Emit(ctx, aval)
    ay, ax = e.abs(y), e.abs(x)
    both_zero = e.op("and", e.cmp("EQ", ay, e.const(0.0)), e.cmp("EQ", ax, e.const(0.0)), kind="b")
    inf = e.const(math.inf)
    both_inf = e.op("and", e.cmp("EQ", ay, inf), e.cmp("EQ", ax, inf), kind="b")
    q = e.pick([(both_zero, e.const(0.0)), (both_inf, e.const(1.0))], e.div(ay, ax))
    return e.copysign(_atan_of_ratio(e, *_atan_parts(e, q), e.signbit(x)), y)


def fix_atan2(ctx, y, x, r, aval):
    """numpy's atan2 from `r`, IREE's own stablehlo.atan2 of y and x in a float type narrower than f64. IREE 3.13
    returns nan where both operands are zero or both infinite, and +pi where y is -0 (or negative) over a negative
    x that the quotient rounds to zero; elsewhere r's magnitude is right. Those cases take numpy's values, and
    every result y's sign (atan2 always has it)."""
    e = _Emit(ctx, aval)
    ay, ax = e.abs(y), e.abs(x)
    inf = e.const(math.inf)
    both_zero = e.op("and", e.cmp("EQ", ay, e.const(0.0)), e.cmp("EQ", ax, e.const(0.0)), kind="b")
    both_inf = e.op("and", e.cmp("EQ", ay, inf), e.cmp("EQ", ax, inf), kind="b")
    x_negative = e.signbit(x)
    magnitude = e.pick([(both_zero, e.select(x_negative, e.const(math.pi), e.const(0.0))),
                        (both_inf, e.select(x_negative, e.const(3 * math.pi / 4), e.const(math.pi / 4)))], e.abs(r))
    return e.copysign(magnitude, y)


def emit_atan(ctx, x, aval):
    """atan(c) + atan((|x| - c)/(1 + c|x|)) about the breakpoint c of |x|'s interval; x's sign."""
    e = _Emit(ctx, aval)
    table, p = _atan_parts(e, e.abs(x))
    return e.copysign(e.add(table(ATAN_HI), e.add(table(ATAN_LO), p)), x)


def _sqrt_one_minus_sq(e, x):
    """sqrt(1 - x^2) for |x| <= 1 as a pair (hi, lo): 1 - x^2 in double-double, then one Newton step."""
    sq, sq_err = e.two_prod(x, x)
    h, l = e.two_sum(e.const(1.0), e.neg(sq))
    l = e.sub(l, sq_err)
    root = e.op("sqrt", h)
    rr, rr_err = e.two_prod(root, root)
    return root, e.div(e.add(e.sub(e.sub(h, rr), rr_err), l), e.add(root, root))


def _ratio(e, num_hi, num_lo, den):
    """(num_hi + num_lo) / den as a pair (hi, lo); lo is 0 where the quotient is 0, inf or nan."""
    q = e.div(num_hi, den)
    qd, qd_err = e.two_prod(q, den)
    lo = e.div(e.add(e.sub(e.sub(num_hi, qd), qd_err), num_lo), den)
    finite = e.ctx.op("stablehlo.is_finite", [lo], e.bool_aval, in_avals=[e.float_aval])
    return q, e.select(finite, lo, e.const(0.0))


def emit_asin(ctx, x, aval):
    """atan(|x| / sqrt(1 - x^2)) with x's sign; the ratio carried in double-double (nan past |x| = 1)."""
    e = _Emit(ctx, aval)
    a = e.abs(x)
    root, root_lo = _sqrt_one_minus_sq(e, a)
    q, q_lo = _ratio(e, a, e.neg(e.div(e.mul(a, root_lo), root)), root)
    table, p = _atan_parts(e, q, q_lo)
    return e.copysign(e.add(table(ATAN_HI), e.add(table(ATAN_LO), p)), x)


def emit_acos(ctx, x, aval):
    """atan2(sqrt(1 - x^2), x) with the ratio carried in double-double (nan past |x| = 1)."""
    e = _Emit(ctx, aval)
    ax = e.abs(x)
    root, root_lo = _sqrt_one_minus_sq(e, ax)
    q, q_lo = _ratio(e, root, root_lo, ax)
    return _atan_of_ratio(e, *_atan_parts(e, q, q_lo), e.signbit(x))


# ---------------------------------------------------------------------------------------------- lgamma, digamma

def _sin_cos_pi(e, x):
    """(sin(pi x), cos(pi x)): x = n/2 + r with |r| <= 1/4 exactly, pi r in double-double, quadrant n mod 4.

    The product is split at r 2^600 and scaled back: Dekker's split of a tiny r would lose its low half to
    the flush of subnormals.
    """
    n = e.op("round_nearest_even", e.add(x, x))
    r = e.sub(x, e.mul(n, e.const(0.5)))
    h, l = e.two_prod(e.const(PI_HI), e.mul(r, e.const(2.0 ** 600)))
    h, l = e.mul(h, e.const(2.0 ** -600)), e.mul(l, e.const(2.0 ** -600))
    l = e.add(l, e.mul(e.const(PI_LO), r))
    s, c = _sin_kernel(e, h, l), _cos_kernel(e, h, l)
    q1, q2, q3 = _quadrant_is(e, _mod4(e, n), 1, 2, 3)
    return (_keep_signed_zero(e, x, e.pick([(q1, c), (q2, e.neg(s)), (q3, e.neg(c))], s)),
            e.pick([(q1, e.neg(s)), (q2, e.neg(c)), (q3, s)], c))


def _reflect_and_shift(e, x):
    """y = 1 - x where x < 1/2, else x; then z = y + j >= GAMMA_SHIFT, stepping up by 1 while below it.

    Returns (reflect, z, terms): terms[i] = (stepped, y + i), `stepped` where step i was taken.
    """
    reflect = e.cmp("LT", x, e.const(0.5))
    y = e.select(reflect, e.sub(e.const(1.0), x), x)
    z, terms = y, []
    for _ in range(int(GAMMA_SHIFT)):
        below = e.cmp("LT", z, e.const(GAMMA_SHIFT))
        terms.append((below, z))
        z = e.select(below, e.add(z, e.const(1.0)), z)
    return reflect, z, terms


def emit_digamma(ctx, x, aval):
    """Digamma: recurrence up to 10, asymptotic series, reflection below 1/2.

    psi(x) = psi(x + 10) - sum 1/(x + j) below 10; psi(x) = psi(1 - x) - pi cot(pi x) below 1/2. Accurate to
    ~1e-15 absolute (relative error grows near the root 1.4616...); nan at negative integers, -inf at +0, +inf
    at -0 (as scipy).
    """
    e = _Emit(ctx, aval)
    reflect, z, terms = _reflect_and_shift(e, x)
    inv_z = e.div(e.const(1.0), z)
    w = e.mul(inv_z, inv_z)
    series = e.sub(e.sub(e.op("log", z), e.mul(e.const(0.5), inv_z)), e.mul(w, e.poly(w, DIGAMMA_W)))
    shifted = e.const(0.0)
    for below, zi in reversed(terms):  # smallest terms first
        shifted = e.add(shifted, e.select(below, e.div(e.const(1.0), zi), e.const(0.0)))
    psi = e.sub(series, shifted)
    sin_pi, cos_pi = _sin_cos_pi(e, x)
    reflected = e.sub(psi, e.div(e.mul(e.const(math.pi), cos_pi), sin_pi))
    pole = e.op("and", e.cmp("LT", x, e.const(0.0)), e.cmp("EQ", x, e.op("floor", x)), kind="b")
    return e.select(pole, e.const(math.nan), e.select(reflect, reflected, psi))


def emit_lgamma(ctx, x, aval):
    """log|Gamma(x)|: recurrence up to 10, Stirling's series, reflection below 1/2.

    lgamma(x) = lgamma(x + 10) - log(x (x+1) ...) below 10; log(pi / |sin(pi x)|) - lgamma(1 - x) below 1/2.
    Accurate to ~1e-15 absolute, relative error grows near the roots 1 and 2 (where it returns ~1e-15, not 0);
    +inf at non-positive integers and +-inf (scipy says -inf at -inf).
    """
    e = _Emit(ctx, aval)
    reflect, z, terms = _reflect_and_shift(e, x)
    inv_z = e.div(e.const(1.0), z)
    w = e.mul(inv_z, inv_z)
    log_z = e.op("log", z)
    stirling = e.add(e.sub(e.mul(e.sub(z, e.const(0.5)), log_z), z),
                     e.add(e.const(0.5 * math.log(2 * math.pi)), e.mul(inv_z, e.poly(w, LGAMMA_W))))
    product = e.const(1.0)
    for below, zi in terms:
        product = e.mul(product, e.select(below, zi, e.const(1.0)))
    lgamma = e.sub(stirling, e.op("log", product))
    sin_pi, _ = _sin_cos_pi(e, x)
    reflected = e.sub(e.sub(e.const(math.log(math.pi)), e.op("log", e.abs(sin_pi))), lgamma)
    out = e.select(reflect, reflected, lgamma)
    return e.select(e.cmp("EQ", e.abs(x), e.const(math.inf)), e.const(math.inf), out)


def emit_polygamma(ctx, x, aval, *, m):
    """psi^(m)(x) = (-1)^(m+1) m! zeta(m+1, x) for m >= 1 (chlo.zeta compiles in f64); digamma for m = 0."""
    if m == 0:
        return emit_digamma(ctx, x, aval)
    e = _Emit(ctx, aval)
    zeta = ctx.generic_op("chlo.zeta", [e.const(m + 1.0), x], aval, in_avals=[aval, aval])
    out = e.mul(e.const((-1.0) ** (m + 1) * math.factorial(m)), zeta)
    return e.select(e.cmp("EQ", x, e.const(math.inf)), e.const(0.0), out)   # chlo.zeta(s, inf) is nan


# ---------------------------------------------------------------------------------------------- fmod

def _exponent(e, v):
    """The unbiased binary exponent of v > 0 as f64 (subnormals included), from the bits."""
    fifty_two = e.const(52, "i")
    field = e.op("shift_right_logical", e.bits(v), fifty_two, kind="i")
    scaled = e.op("shift_right_logical", e.bits(e.mul(v, e.const(2.0 ** 54))), fifty_two, kind="i")
    field = e.select(e.cmp("EQ", field, e.const(0, "i"), kind="i"),
                     e.op("subtract", scaled, e.const(54, "i"), kind="i"), field, kind="i")
    return e.ctx.op("stablehlo.convert", [field], e.float_aval, in_avals=[e.int_aval])


def emit_rem(ctx, x, y, aval):
    """C fmod, exactly: binary long division on |x| in a stablehlo.while.

    Each step subtracts t = |y| 2^d, d = exponent(|x|) - exponent(|y|) (halved if t > |x|): |x| is in
    [t, 2t), so the subtraction is exact (Sterbenz), and |x|'s exponent drops. The loop runs
    max(exponent(x) - exponent(y)) + 1 times over the tensor (~19 us each on CPU). nan where x is +-inf or
    nan, y is 0 or nan; x where y is +-inf; the sign is x's (fmod(-4, 2) = -0).
    """
    e = _Emit(ctx, aval)
    ax, ay = e.abs(x), e.abs(y)
    is_finite = e.ctx.op("stablehlo.is_finite", [x], e.bool_aval, in_avals=[e.float_aval])
    nan_out = e.op("or", e.op("not", is_finite, kind="b"),
                   e.op("or", e.isnan(y), e.cmp("EQ", ay, e.const(0.0)), kind="b"), kind="b")
    # lanes with a nan answer sit out the loop: |x| = 0 < |y| = inf
    ax0 = e.select(nan_out, e.const(0.0), ax)
    ay0 = e.select(nan_out, e.const(math.inf), ay)
    ey = _exponent(e, ay0)
    rem_final = _long_division_loop(e, ax0, ay0, ey)
    out = e.copysign(rem_final, x)
    return e.select(nan_out, e.const(math.nan), out)


def _long_division_loop(e, ax0, ay, ey):
    ctx, ftype = e.ctx, tensor_type(e.float_aval)
    carry = ctx.fresh()
    result = ctx.fresh()
    saved_lines, saved_indent = ctx.lines, ctx.indent

    def region(emit):
        ctx.lines, ctx.indent = [], saved_indent + 4
        inner = _Emit(ctx, e.float_aval, dict(e._consts))
        emit(inner)
        body = "\n".join(ctx.lines)
        ctx.lines, ctx.indent = saved_lines, saved_indent
        return f"{{\n{body}\n{' ' * saved_indent}}}"

    def active(inner):
        return inner.cmp("GE", carry, ay)

    def cond(inner):
        flag = active(inner)
        if e.float_aval.ndim:
            pred_t = tensor_type(e.bool_aval)
            dims = ", ".join(str(d) for d in range(e.float_aval.ndim))
            false = ctx.constant(False, e.bool_aval.update(shape=()))
            any_flag = ctx.fresh()
            ctx.line(f"{any_flag} = stablehlo.reduce({flag} init: {false}) applies stablehlo.or across "
                     f"dimensions = [{dims}] : ({pred_t}, tensor<i1>) -> tensor<i1>")
            flag = any_flag
        ctx.line(f"stablehlo.return {flag} : tensor<i1>")

    def body(inner):
        d = inner.sub(_exponent(inner, carry), ey)
        t = inner.ldexp(ay, inner.op("maximum", d, inner.const(0.0)))
        t = inner.select(inner.cmp("GT", t, carry), inner.mul(t, inner.const(0.5)), t)
        stepped = inner.select(active(inner), inner.sub(carry, t), carry)
        ctx.line(f"stablehlo.return {stepped} : {ftype}")

    cond_region, body_region = region(cond), region(body)
    ctx.line(f"{result} = stablehlo.while({carry} = {ax0}) : {ftype}")
    ctx.line(f"  cond {cond_region} do {body_region}")
    return result


F64_EXPANSIONS = {
    "sin": emit_sin, "cos": emit_cos, "tan": emit_tan, "tanh": emit_tanh, "expm1": emit_expm1,
    "log1p": emit_log1p, "sinh": emit_sinh, "cosh": emit_cosh, "atan": emit_atan, "atan2": emit_atan2,
    "asin": emit_asin, "acos": emit_acos, "rem": emit_rem, "lgamma": emit_lgamma, "digamma": emit_digamma,
    "polygamma": emit_polygamma,
}


def lower_float64_by_expansion(name: str):
    """The lowering of the primitive `name` by its float64 expansion for float64 operands, else by its own rule
    (atan2's mended by `fix_atan2`)."""
    def lower(ctx, *operands, **params):
        aval = ctx.avals_in[0]
        if aval.dtype == dtypes.float64:
            return F64_EXPANSIONS[name](ctx, *operands, aval, **params)
        out = generic_rule(name)(ctx, *operands, **params)
        return fix_atan2(ctx, *operands, out, aval) if name == "atan2" else out
    return lower
