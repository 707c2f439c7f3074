"""Bitwise and logical primitives: and, or, xor, not (logical on bool, bitwise on integers) and the shifts.

Operands have identical shapes and dtypes, as for every elementwise primitive (see elementwise.py).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.primitive import ELEMENTWISE, NONLINEAR, ZERO_TANGENT, Primitive
from paddle_fn.prims._rules import binop_shape, lower_binop, require_kind


def _make_bitwise(name, np_bool, np_int, hlo):
    shape_rule = binop_shape(name, "biu", "a bool or integer")

    def impl(x, y):
        return (np_bool if x.dtype == np.bool_ else np_int)(x, y)

    return Primitive(name, shape_rule=shape_rule, impl=impl, jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=ELEMENTWISE,
                     lower=lower_binop(hlo))


and_p = _make_bitwise("and", np.logical_and, np.bitwise_and, "stablehlo.and")
or_p = _make_bitwise("or", np.logical_or, np.bitwise_or, "stablehlo.or")
xor_p = _make_bitwise("xor", np.logical_xor, np.bitwise_xor, "stablehlo.xor")


def and_(x, y):
    return and_p.bind(x, y)


def or_(x, y):
    return or_p.bind(x, y)


def xor(x, y):
    return xor_p.bind(x, y)


not_p = Primitive("not", shape_rule=lambda x: (require_kind("not", x, "biu", "a bool or integer"), x)[1],
                  impl=lambda x: np.logical_not(x) if x.dtype == np.bool_ else np.invert(x), jvp=ZERO_TANGENT,
                  transpose=NONLINEAR, batch=ELEMENTWISE, lower=lambda ctx, x: ctx.op("stablehlo.not", [x]))


def not_(x):
    return not_p.bind(x)


def _shift_impl(kind):
    def impl(x, y):
        bits = x.dtype.itemsize * 8
        ux = x.view(np.dtype(f"u{x.dtype.itemsize}"))
        out_of_range = (y < 0) | (y >= bits)
        ys = np.where(out_of_range, 0, y).astype(ux.dtype)
        if kind == "left":
            r = (ux << ys).view(x.dtype)
            return np.where(out_of_range, 0, r).astype(x.dtype)
        if kind == "logical":
            r = (ux >> ys).view(x.dtype)
            return np.where(out_of_range, 0, r).astype(x.dtype)
        sx = x.view(np.dtype(f"i{x.dtype.itemsize}"))
        r = (sx >> ys.astype(sx.dtype)).view(x.dtype)
        return np.where(out_of_range, (sx >> (bits - 1)).view(x.dtype), r).astype(x.dtype)
    return impl


shift_left_p = Primitive("shift_left", shape_rule=binop_shape("shift_left", "iu", "an integer"),
                         impl=_shift_impl("left"), jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=ELEMENTWISE,
                         lower=lower_binop("stablehlo.shift_left"))
shift_right_logical_p = Primitive("shift_right_logical",
                                  shape_rule=binop_shape("shift_right_logical", "iu", "an integer"),
                                  impl=_shift_impl("logical"), jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=ELEMENTWISE,
                                  lower=lower_binop("stablehlo.shift_right_logical"))
shift_right_arithmetic_p = Primitive("shift_right_arithmetic",
                                     shape_rule=binop_shape("shift_right_arithmetic", "iu", "an integer"),
                                     impl=_shift_impl("arithmetic"), jvp=ZERO_TANGENT, transpose=NONLINEAR,
                                     batch=ELEMENTWISE, lower=lower_binop("stablehlo.shift_right_arithmetic"))


def shift_left(x, y):
    return shift_left_p.bind(x, y)


def shift_right_logical(x, y):
    return shift_right_logical_p.bind(x, y)


def shift_right_arithmetic(x, y):
    return shift_right_arithmetic_p.bind(x, y)
