"""The primitives that take complex numbers apart and put them together: real, imag, conj and complex.

They are linear over the reals, which is all reverse mode needs. Their transposes follow JAX's convention (a
cotangent is transposed as a plain linear map, never conjugated): the transpose of ``real`` maps a real cotangent
``c`` to ``c + 0j``, of ``imag`` to ``0 - c j``, of ``conj`` to ``conj(c)``, and of ``complex(x, y)`` gives
``(real(c), -imag(c))``. The eager tape conjugates at its ends to give Paddle's convention (core/tape.py).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.errors import DTypeError
from paddle_fn.core.primitive import ELEMENTWISE, LINEAR, Primitive
from paddle_fn.lowering.emitter import COMPLEX_PART
from paddle_fn.prims._rules import require_kind, same_shape_dtype
from paddle_fn.prims.base import full_like

# the complex dtype whose parts have a given float dtype, and back
COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}


def part_dtype(dtype):
    """The float dtype of a complex dtype's parts (float32 for complex64)."""
    return COMPLEX_PART[dtypes.as_dtype(dtype).name]


def _part_shape(name):
    def shape_rule(x):
        require_kind(name, x, "c", "a complex")
        return x.update(dtype=part_dtype(x.dtype))
    return shape_rule


def _lower_part(hlo):
    def lower(ctx, x):
        return ctx.op(hlo, [x])
    return lower


# ---------------------------------------------------------------------------------------------- real / imag

def _real_transpose(ct, x):
    return [complex_(ct, full_like(ct, 0))]


real_p = Primitive("real", shape_rule=_part_shape("real"), impl=lambda x: x.real.copy(), jvp=LINEAR,
                   transpose=_real_transpose, batch=ELEMENTWISE, lower=_lower_part("stablehlo.real"))


def real(x):
    """The real part of a complex array (a float array of the parts' width)."""
    return real_p.bind(x)


def _imag_transpose(ct, x):
    return [conj(complex_(full_like(ct, 0), ct))]


imag_p = Primitive("imag", shape_rule=_part_shape("imag"), impl=lambda x: x.imag.copy(), jvp=LINEAR,
                   transpose=_imag_transpose, batch=ELEMENTWISE, lower=_lower_part("stablehlo.imag"))


def imag(x):
    """The imaginary part of a complex array (a float array of the parts' width)."""
    return imag_p.bind(x)


# ---------------------------------------------------------------------------------------------- conj

def _conj_shape(x):
    require_kind("conj", x, "c", "a complex")
    return x


def _conj_lower(ctx, x):
    aval = ctx.avals_in[0]
    part = aval.update(dtype=part_dtype(aval.dtype))
    re = ctx.op("stablehlo.real", [x], part, in_avals=[aval])
    im = ctx.op("stablehlo.imag", [x], part, in_avals=[aval])
    neg_im = ctx.op("stablehlo.negate", [im], part, in_avals=[part])
    return ctx.op("stablehlo.complex", [re, neg_im], aval, in_avals=[part, part])


conj_p = Primitive("conj", shape_rule=_conj_shape, impl=np.conj, jvp=LINEAR,
                   transpose=lambda ct, x: [conj(ct)], batch=ELEMENTWISE, lower=_conj_lower)


def conj(x):
    """The complex conjugate of a complex array."""
    return conj_p.bind(x)


# ---------------------------------------------------------------------------------------------- complex

def _complex_shape(x, y):
    a = same_shape_dtype("complex", x, y)
    if a.dtype not in COMPLEX_OF:
        raise DTypeError(f"complex: the real and imaginary parts must be float32 or float64, got {a.dtype.name} "
                         f"(shape {list(a.shape)}); cast them with .astype('float32')")
    return a.update(dtype=COMPLEX_OF[a.dtype])


def _complex_impl(x, y):
    out = np.empty(x.shape, COMPLEX_OF[dtypes.as_dtype(x.dtype)].np)
    out.real, out.imag = x, y  # not x + 1j * y, which turns an infinite part into nan
    return out


def _complex_transpose(ct, x, y):
    return [real(ct) if is_undefined(x) else None, imag(conj(ct)) if is_undefined(y) else None]


complex_p = Primitive("complex", shape_rule=_complex_shape, impl=_complex_impl, jvp=LINEAR,
                      transpose=_complex_transpose, batch=ELEMENTWISE,
                      lower=lambda ctx, x, y: ctx.op("stablehlo.complex", [x, y]))


def complex_(x, y):
    """The complex array x + y j from float arrays of one shape and dtype."""
    return complex_p.bind(x, y)
