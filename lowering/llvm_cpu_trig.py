"""sin, cos and tan of float32 (and float16/bfloat16) for IREE's llvm-cpu backend: sin and cos with the argument
reduced in float64, tan through its odd symmetry.

IREE 3.13's CPU sine and cosine reduce their argument by a float32 multiple of pi/2, so the absolute error grows as
2.8e-8 |x|: 2.8e-4 at |x| = 1e4 (a positional encoding's range), 2.8e-3 at 1e5, and sin(1e10) came out as -6e21
(`tests/test_lowering.py::test_float32_sin_and_cos_reduce_large_arguments`). Here x is reduced in float64 by a
multiple of pi (Cody-Waite: pi in three parts of 26 significant bits, so each product with a part is exact for
multiples below 2^26) to r in [-pi/2, pi/2], and IREE's own sine is applied to |r| (it is accurate on
[0, pi/2], but on (-0.134, 0) its error is up to 6e-8 absolute: sin(-1e-10) gave +6.2e-8):

    sin(x) = (-1)^n sin(r)     with n = round(x / pi),        r = x - n pi
    cos(x) = -(-1)^n sin(r)    with n = round(x / pi - 1/2),  r = x - (n + 1/2) pi

(cos through the sine of its reduced argument, so it keeps its relative accuracy next to its zeros). Errors stay
at float32 rounding for |x| < 2^26 pi (about 2e8), at 2x the time of IREE's own (0.5-0.57 against 0.29 ms for 2^20
elements; numpy takes 4.6). Beyond that, where one float32 step of x spans millions of periods, sin gives 0 and cos
gives 0 (numpy gives the sine of the float's exact value there). float64 keeps its own expansion (`f64_math`).
"""
from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import f64_math
from paddle_fn.lowering.staged import bind, generic_rule, inline, stage

_REDUCED = ("float16", "bfloat16", "float32")


def _pi_parts() -> tuple:
    """pi as three float64s, the first two with 26 significant bits, summing to pi within 2^-80."""
    getcontext().prec = 60
    rest = Decimal("3.14159265358979323846264338327950288419716939937510582097494459")
    parts = []
    for _ in range(2):
        exponent = int(np.frexp(float(rest))[1])
        part = float(round(rest * 2 ** (26 - exponent)) / Decimal(2) ** (26 - exponent))
        parts.append(part)
        rest -= Decimal(part)
    return tuple(parts) + (float(rest),)


_PI = _pi_parts()
# one pass leaves |r| <= pi/2 (and a rounding) below 2^26 pi; above, up to |x| 2^-53 (4e22 for the largest float32)
_IN_RANGE = 2.0


def _constant(value, like):
    """`value` in `like`'s dtype and shape."""
    aval = get_aval(like)
    return bind("broadcast_in_dim", Tensor(np.asarray(value, aval.dtype.np)), shape=aval.shape,
                broadcast_dimensions=())


def _reduce(x, shift):
    """(|r|, sign) in x's dtype: r = x - (n + shift) pi in [-pi/2, pi/2] with n = round(x / pi - shift), and
    sign = (-1)^n, negated for cos (shift 1/2) and where r < 0. r = 0 where |x| is beyond 2^26 pi and the reduction is not exact:
    three more passes would make it exact for every float32, at 2x the time of the whole function, for arguments
    whose float32 step spans millions of periods. nan and inf give nan."""
    wide = bind("convert_element_type", x, new_dtype=dtypes.float64)
    n = bind("round", bind("sub", bind("mul", wide, _constant(1 / np.pi, wide)), _constant(shift, wide)))
    parity = bind("sub", n, bind("mul", _constant(2, wide), bind("floor", bind("mul", n, _constant(0.5, wide)))))
    sign = bind("mul", _constant(-1 if shift else 1, wide),
                bind("sub", _constant(1, wide), bind("mul", _constant(2, wide), parity)))
    multiple = bind("add", n, _constant(shift, wide))
    r = wide
    for part in _PI:
        r = bind("sub", r, bind("mul", multiple, _constant(part, wide)))
    r = bind("select", bind("gt", bind("abs", r), _constant(_IN_RANGE, r)), _constant(0.0, r), r)  # nan stays
    # IREE's sine is accurate for positive arguments only: sin(r) = -sin(-r)
    sign = bind("select", bind("lt", r, _constant(0.0, r)), bind("neg", sign), sign)
    narrow = get_aval(x).dtype
    return (bind("convert_element_type", bind("abs", r), new_dtype=narrow),
            bind("convert_element_type", sign, new_dtype=narrow))


def _signed(x, out, name):
    """sin keeps the sign of a zero (IREE's sine of -0.0 is +0.0)."""
    if name != "sin":
        return out
    return bind("select", bind("eq", x, _constant(0, x)), x, out)


def lower_trig(name: str):
    """The llvm-cpu lowering of `name` ("sin" or "cos"): reduced in float64 for the narrower floats, float64's
    own expansion for float64."""
    shift = {"sin": 0.0, "cos": 0.5}[name]
    float64_rule = f64_math.lower_float64_by_expansion(name)

    def lower(ctx, x):
        aval = ctx.avals_in[0]
        if aval.dtype.name not in _REDUCED:
            return float64_rule(ctx, x)
        prog, consts = stage(lambda v: list(_reduce(v, shift)), [aval])
        r, sign = inline(ctx, prog, consts, [x])
        sine = generic_rule("sin")(ctx, r)  # IREE's own sine, on [0, pi/2]
        prog, consts = stage(lambda v, s, k: [_signed(v, bind("mul", s, k), name)], [aval, aval, aval])
        return inline(ctx, prog, consts, [x, sine, sign])[0]
    return lower


def lower_tan(ctx, x):
    """The llvm-cpu lowering of tan: IREE's float32 tangent of |x| with x's sign (on (-0.134, 0) IREE's own gave
    tan(-1e-10) = 6.2e-8, as its sine does), float64's expansion for float64."""
    aval = ctx.avals_in[0]
    if aval.dtype.name not in _REDUCED:
        return f64_math.lower_float64_by_expansion("tan")(ctx, x)
    prog, consts = stage(lambda v: [bind("abs", v)], [aval])
    tangent = generic_rule("tan")(ctx, inline(ctx, prog, consts, [x])[0])

    def signed(v, t):
        zero = _constant(0, v)
        return [bind("select", bind("eq", v, zero), v, bind("select", bind("lt", v, zero), bind("neg", t), t))]
    prog, consts = stage(signed, [aval, aval])
    return inline(ctx, prog, consts, [x, tangent])[0]

