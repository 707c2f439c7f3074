"""Elementwise primitives: arithmetic, transcendental functions, comparisons, select, clamp, casts (the bitwise and
logical ones are in bitwise.py).

Operands of n-ary primitives have identical shapes and dtypes (no implicit broadcasting or promotion: the
Paddle-level ops in paddle_fn.tensor do that). Each block gives every rule of one primitive.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.primitive import (ELEMENTWISE, LINEAR, NONLINEAR, ZERO_TANGENT, Primitive, RuntimeCheck,
                                      symbolic_zeros)
from paddle_fn.core.trace import get_aval
from paddle_fn.lowering.emitter import COMPLEX_PART, compare_type
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims.bitwise import not_
from paddle_fn.prims._rules import binop_shape, fmt, lower_binop, require_kind, same_shape_dtype
from paddle_fn.prims.base import broadcast_in_dim, full, full_like, hlo_binop, reduce_sum, reshape


class _ScaledTangent:
    """The derivative of a unary op y = f(x) whose JVP scales the tangent elementwise by deriv(x, y): the JVP rule,
    and the same map applied to a cotangent as the eager tape's reverse rule (an elementwise scaling is its own
    transpose), so the tape needs no linearization."""

    def __init__(self, f, deriv):
        def jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            y = f(x)
            return y, mul(t, deriv(x, y))

        def vjp(primals, ct):
            (x,) = primals
            return [mul(ct, deriv(x, f(x)))]
        self.jvp, self.vjp = jvp, vjp


_KIND_NAMES = {"f": "a floating-point", "fc": "a floating-point or complex"}


def _float_unop(name, impl, derivative, hlo, *, kinds="f", transpose=NONLINEAR):
    """A unary elementwise primitive; `derivative` is its JVP rule (or marker), or a `_ScaledTangent`, which also
    gives the primitive its direct reverse rule. Complex derivatives are the holomorphic ones, f'(z) t."""
    def shape_rule(x):
        require_kind(name, x, kinds, _KIND_NAMES.get(kinds, "a numeric"))
        return x

    def lower(ctx, x):
        return ctx.generic_op(hlo, [x]) if hlo.startswith("chlo.") else ctx.op(hlo, [x])

    jvp, vjp = (derivative.jvp, derivative.vjp) if isinstance(derivative, _ScaledTangent) else (derivative, None)
    return Primitive(name, shape_rule=shape_rule, impl=impl, jvp=jvp, vjp=vjp, transpose=transpose,
                     batch=ELEMENTWISE, lower=lower)


def _scipy_special(name):
    """scipy.special's function `name`, imported when an eager kernel first runs: importing scipy.special takes
    about 0.4 s, most of `import paddle_fn`, and only the eager kernels of a few special functions use it."""
    def call(*args):
        import scipy.special  # deliberate lazy import (heavy; see the docstring)
        return getattr(scipy.special, name)(*args)
    return call


def _np_float(f):
    """Run a numpy/scipy function, keeping the input dtype (bfloat16 computes in float32)."""
    def impl(*xs, **params):
        dt = xs[0].dtype
        if dt == dtypes.bfloat16.np:
            xs = [np.asarray(x, np.float32) for x in xs]
        with np.errstate(all="ignore"):
            return np.asarray(f(*xs, **params)).astype(dt, copy=False)
    return impl


# ---------------------------------------------------------------------------------------------- neg

def _neg_impl(x):
    return np.negative(x)


def _neg_transpose(ct, x):
    return [neg(ct)]


neg_p = _float_unop("neg", _neg_impl, LINEAR, "stablehlo.negate", kinds="fiuc", transpose=_neg_transpose)


def neg(x):
    return neg_p.bind(x)


# ---------------------------------------------------------------------------------------------- add / sub

def _add_transpose(ct, x, y):
    return [ct if is_undefined(x) else None, ct if is_undefined(y) else None]


add_p = Primitive("add", shape_rule=binop_shape("add", "fiubc", "a numeric"), impl=np.add,
                  jvp=LINEAR, transpose=_add_transpose, batch=ELEMENTWISE,
                  # on bool, or (numpy's True + True is True; StableHLO's add of i1 would wrap to False)
                  lower=lambda ctx, x, y: ctx.op(hlo_binop("add", ctx.avals_in[0].dtype), [x, y]))


def add(x, y):
    return add_p.bind(x, y)


def _sub_transpose(ct, x, y):
    return [ct if is_undefined(x) else None, neg(ct) if is_undefined(y) else None]


sub_p = Primitive("sub", shape_rule=binop_shape("sub", "fiuc", "a numeric"), impl=np.subtract,
                  jvp=LINEAR, transpose=_sub_transpose, batch=ELEMENTWISE, lower=lower_binop("stablehlo.subtract"))


def sub(x, y):
    return sub_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- mul

def bilinear_jvp(product):
    """The JVP rule of a product bilinear in its operands, d(x y) = dx y + x dy, with the term of a symbolically
    zero tangent left out: differentiating with respect to one operand (a Jacobian in x of ``A @ x``, a gradient
    of the weights only) then never multiplies by a tensor of zeros."""
    @symbolic_zeros
    def jvp(primals, tangents, **params):
        (x, y), (tx, ty) = primals, tangents
        terms = []
        if not isinstance(tx, Zero):
            terms.append(product(tx, y, **params))
        if not isinstance(ty, Zero):
            terms.append(product(x, ty, **params))
        tangent = terms[0] if len(terms) == 1 else add(*terms)
        return product(x, y, **params), tangent
    return jvp


def _mul_transpose(ct, x, y):
    if is_undefined(x) and is_undefined(y):
        raise TypeError("mul: both operands are linear; the product of two tangents is not linear")
    return [mul(ct, y) if is_undefined(x) else None, mul(x, ct) if is_undefined(y) else None]


mul_p = Primitive("mul", shape_rule=binop_shape("mul", "fiubc", "a numeric"),
                  impl=lambda x, y: np.logical_and(x, y) if x.dtype == np.bool_ else np.multiply(x, y),
                  jvp=bilinear_jvp(lambda x, y: mul_p.bind(x, y)), bilinear=True,
                  transpose=_mul_transpose, batch=ELEMENTWISE,
                  lower=lambda ctx, x, y: ctx.op("stablehlo.and" if ctx.avals_in[0].dtype.kind == "b"
                                                 else "stablehlo.multiply", [x, y]))


def mul(x, y):
    return mul_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- div

def _div_impl(x, y):
    if x.dtype.kind in "iu":
        with np.errstate(all="ignore"):
            q = np.floor_divide(x, np.where(y == 0, 1, y))
            # C semantics (truncate toward zero), as stablehlo.divide
            q = np.where((np.remainder(x, np.where(y == 0, 1, y)) != 0) & ((x < 0) != (y < 0)), q + 1, q)
            return np.where(y == 0, -1, q).astype(x.dtype)
    return _float_divide(x, y)


_float_divide = _np_float(np.divide)


def _div_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = div(x, y)
    return out, sub(div(tx, y), mul(ty, div(out, y)))


def _div_transpose(ct, x, y):
    if is_undefined(y):
        raise TypeError("div: the divisor is linear; division is not linear in its divisor")
    return [div(ct, y), None]


def _integer_divisor_check(name):
    """A checked jit's "div" check of an integer `name`: no divisor is zero (compiled, the result is undefined)."""
    def check(inputs, outputs):
        divisor = get_aval(inputs[1])
        if divisor.dtype.kind not in "iu":
            return []
        zeros = count_true(eq(inputs[1], full_like(divisor, 0)))
        return [RuntimeCheck("div", zeros, None, f"{name} of integers by zero: {{failures}} of the {divisor.size} "
                             f"divisors ({fmt(divisor)}) are 0")]
    return check


div_p = Primitive("div", shape_rule=binop_shape("div", "fiuc", "a numeric"), impl=_div_impl, jvp=_div_jvp,
                  linear_in=(0,), transpose=_div_transpose, batch=ELEMENTWISE,
                  lower=lower_binop("stablehlo.divide"), error_check=_integer_divisor_check("div"))


def div(x, y):
    """Elementwise x / y; integer division truncates toward zero (C semantics, as StableHLO)."""
    return div_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- rem

def _rem_impl(x, y):
    if x.dtype.kind in "iu":
        with np.errstate(all="ignore"):
            r = np.fmod(x, np.where(y == 0, 1, y))
            return np.where(y == 0, x, r).astype(x.dtype)
    return _float_fmod(x, y)


_float_fmod = _np_float(np.fmod)


def _rem_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = rem(x, y)
    trunc_q = round_(div(sub(x, out), y))
    return out, sub(tx, mul(ty, trunc_q))


rem_p = Primitive("rem", shape_rule=binop_shape("rem", "fiu", "a numeric"), impl=_rem_impl, jvp=_rem_jvp,
                  transpose=NONLINEAR, batch=ELEMENTWISE, lower=lower_binop("stablehlo.remainder"),
                  error_check=_integer_divisor_check("rem"))


def rem(x, y):
    """Remainder with the sign of the dividend (C fmod), as stablehlo.remainder."""
    return rem_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- max / min

def _minmax_jvp(op, cmp):
    def jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        out = op(x, y)
        # Ties split the tangent evenly, so the derivative is symmetric (as JAX does).
        wx = select(cmp(x, y), full_like(x, 1.0), select(eq(x, y), full_like(x, 0.5), full_like(x, 0.0)))
        return out, add(mul(tx, wx), mul(ty, sub(full_like(x, 1.0), wx)))
    return jvp


max_p = Primitive("max", shape_rule=binop_shape("max", "fiub", "a numeric"), impl=lambda x, y: np.maximum(x, y),
                  jvp=_minmax_jvp(lambda a, b: max(a, b), lambda a, b: gt(a, b)), transpose=NONLINEAR,
                  batch=ELEMENTWISE, lower=lower_binop("stablehlo.maximum"))


def max(x, y):  # noqa: A001 - lax-level name
    return max_p.bind(x, y)


min_p = Primitive("min", shape_rule=binop_shape("min", "fiub", "a numeric"), impl=lambda x, y: np.minimum(x, y),
                  jvp=_minmax_jvp(lambda a, b: min(a, b), lambda a, b: lt(a, b)), transpose=NONLINEAR,
                  batch=ELEMENTWISE, lower=lower_binop("stablehlo.minimum"))


def min(x, y):  # noqa: A001
    return min_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- pow

def _pow_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = pow(x, y)
    zero = full_like(x, 0.0)
    # d/dx x^y = y x^(y-1), defined as 0 where y == 0 (so 0^0 has derivative 0, not nan)
    dx = select(eq(y, zero), zero, mul(y, pow(x, sub(y, full_like(y, 1.0)))))
    # d/dy x^y = log(x) x^y, defined as 0 where x == 0
    safe_x = select(eq(x, zero), full_like(x, 1.0), x)
    dy = select(eq(x, zero), zero, mul(log(safe_x), out))
    return out, add(mul(tx, dx), mul(ty, dy))


pow_p = Primitive("pow", shape_rule=binop_shape("pow", "fc", "a floating-point or complex"), impl=_np_float(np.power),
                  jvp=_pow_jvp, transpose=NONLINEAR, batch=ELEMENTWISE, lower=lower_binop("stablehlo.power"))


def pow(x, y):  # noqa: A001
    return pow_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- integer_pow

def _integer_pow_shape(x, *, y):
    require_kind("integer_pow", x, "fiuc", "a numeric")
    if not isinstance(y, int):
        raise TypeError(f"integer_pow: the exponent must be a Python int, got {type(y).__name__}")
    if y < 0 and x.dtype.kind not in "fc":
        raise DTypeError(f"integer_pow: negative exponent {y} needs a floating-point base, got {x.dtype.name}")
    return x


def multiplied_out(x, n: int, multiply):
    """x ** n for a Python int n >= 1 as repeated `multiply` by binary exponentiation (XLA's and JAX's order of
    products), so its roundings are the same wherever it runs."""
    acc, base = None, x
    while n:
        if n & 1:
            acc = base if acc is None else multiply(acc, base)
        n >>= 1
        if n:
            base = multiply(base, base)
    return acc


def _integer_pow_impl(x, *, y):
    if y == 0:
        return np.ones_like(x)
    with np.errstate(all="ignore"):  # the lowering's products, so eager and compiled bits agree
        acc = multiplied_out(x, -y if y < 0 else y, lambda a, b: (a * b).astype(x.dtype))
        return (np.ones_like(x) / acc).astype(x.dtype) if y < 0 else acc


def _integer_pow_jvp(primals, tangents, *, y):
    (x,), (t,) = primals, tangents
    if y == 0:
        return integer_pow(x, y=0), full_like(x, 0.0)
    d = full_like(x, float(y)) if y == 1 else mul(full_like(x, float(y)), x if y == 2 else integer_pow(x, y=y - 1))
    return integer_pow(x, y=y), mul(t, d)


def _integer_pow_lower(ctx, x, *, y):
    aval = ctx.avals_in[0]
    if y == 0:
        return ctx.constant(1, aval)
    acc = multiplied_out(x, -y if y < 0 else y, lambda a, b: ctx.op("stablehlo.multiply", [a, b], aval, in_avals=[aval, aval]))
    if y < 0:
        one = ctx.constant(1, aval)
        acc = ctx.op("stablehlo.divide", [one, acc], aval, in_avals=[aval, aval])
    return acc


integer_pow_p = Primitive("integer_pow", shape_rule=_integer_pow_shape, impl=_integer_pow_impl, jvp=_integer_pow_jvp,
                          transpose=NONLINEAR, batch=ELEMENTWISE, lower=_integer_pow_lower)


def integer_pow(x, *, y: int):
    return integer_pow_p.bind(x, y=y)


# ---------------------------------------------------------------------------------------------- atan2

def _atan2_jvp(primals, tangents):
    (y, x), (ty, tx) = primals, tangents
    denom = add(mul(x, x), mul(y, y))
    return atan2(y, x), div(sub(mul(x, ty), mul(y, tx)), denom)


atan2_p = Primitive("atan2", shape_rule=binop_shape("atan2", "f", "a floating-point"), impl=_np_float(np.arctan2),
                    jvp=_atan2_jvp, transpose=NONLINEAR, batch=ELEMENTWISE, lower=lower_binop("stablehlo.atan2"))


def atan2(y, x):
    return atan2_p.bind(y, x)


# ---------------------------------------------------------------------------------------- transcendental unary ops

exp_p = _float_unop("exp", _np_float(np.exp), _ScaledTangent(lambda x: exp(x), lambda x, y: y), "stablehlo.exponential", kinds="fc")


def exp(x):
    return exp_p.bind(x)


log_p = _float_unop("log", _np_float(np.log), _ScaledTangent(lambda x: log(x), lambda x, y: div(full_like(x, 1.0), x)),
                    "stablehlo.log", kinds="fc")


def log(x):
    return log_p.bind(x)


expm1_p = _float_unop("expm1", _np_float(np.expm1),
                      _ScaledTangent(lambda x: expm1(x), lambda x, y: add(y, full_like(x, 1.0))),
                      "stablehlo.exponential_minus_one", kinds="fc")


def expm1(x):
    return expm1_p.bind(x)


log1p_p = _float_unop("log1p", _np_float(np.log1p),
                      _ScaledTangent(lambda x: log1p(x),
                                     lambda x, y: div(full_like(x, 1.0), add(x, full_like(x, 1.0)))),
                      "stablehlo.log_plus_one", kinds="fc")


def log1p(x):
    return log1p_p.bind(x)


sin_p = _float_unop("sin", _np_float(np.sin), _ScaledTangent(lambda x: sin(x), lambda x, y: cos(x)), "stablehlo.sine", kinds="fc")


def sin(x):
    return sin_p.bind(x)


cos_p = _float_unop("cos", _np_float(np.cos), _ScaledTangent(lambda x: cos(x), lambda x, y: neg(sin(x))),
                    "stablehlo.cosine", kinds="fc")


def cos(x):
    return cos_p.bind(x)


tan_p = _float_unop("tan", _np_float(np.tan),
                    _ScaledTangent(lambda x: tan(x), lambda x, y: add(full_like(x, 1.0), mul(y, y))), "stablehlo.tan", kinds="fc")


def tan(x):
    return tan_p.bind(x)


def _one_minus_sq(x):
    return sub(full_like(x, 1.0), mul(x, x))


asin_p = _float_unop("asin", _np_float(np.arcsin),
                     _ScaledTangent(lambda x: asin(x), lambda x, y: rsqrt(_one_minus_sq(x))), "chlo.asin", kinds="fc")


def asin(x):
    return asin_p.bind(x)


acos_p = _float_unop("acos", _np_float(np.arccos),
                     _ScaledTangent(lambda x: acos(x), lambda x, y: neg(rsqrt(_one_minus_sq(x)))), "chlo.acos", kinds="fc")


def acos(x):
    return acos_p.bind(x)


def _atan_lower(ctx, x):
    if ctx.avals_in[0].dtype.kind == "c":  # atan2 orders its operands, so it is for real numbers only
        return ctx.generic_op("chlo.atan", [x])
    one = ctx.constant(1, ctx.avals_in[0])
    return ctx.op("stablehlo.atan2", [x, one], in_avals=[ctx.avals_in[0]] * 2)


_ATAN_DERIVATIVE = _ScaledTangent(lambda x: atan(x),
                                  lambda x, y: div(full_like(x, 1.0), add(full_like(x, 1.0), mul(x, x))))
atan_p = Primitive("atan", shape_rule=lambda x: (require_kind("atan", x, "fc", _KIND_NAMES["fc"]), x)[1],
                   impl=_np_float(np.arctan), jvp=_ATAN_DERIVATIVE.jvp, vjp=_ATAN_DERIVATIVE.vjp,
                   transpose=NONLINEAR, batch=ELEMENTWISE, lower=_atan_lower)


def atan(x):
    return atan_p.bind(x)


sinh_p = _float_unop("sinh", _np_float(np.sinh), _ScaledTangent(lambda x: sinh(x), lambda x, y: cosh(x)), "chlo.sinh", kinds="fc")


def sinh(x):
    return sinh_p.bind(x)


cosh_p = _float_unop("cosh", _np_float(np.cosh), _ScaledTangent(lambda x: cosh(x), lambda x, y: sinh(x)), "chlo.cosh", kinds="fc")


def cosh(x):
    return cosh_p.bind(x)


tanh_p = _float_unop("tanh", _np_float(np.tanh),
                     _ScaledTangent(lambda x: tanh(x), lambda x, y: sub(full_like(x, 1.0), mul(y, y))),
                     "stablehlo.tanh", kinds="fc")


def tanh(x):
    return tanh_p.bind(x)


_expit = _np_float(_scipy_special("expit"))


def _logistic_impl(x):
    if x.dtype.kind == "c":  # scipy's expit is real only
        with np.errstate(all="ignore"):
            return (1 / (1 + np.exp(-x))).astype(x.dtype)
    return _expit(x)


logistic_p = _float_unop("logistic", _logistic_impl,
                         _ScaledTangent(lambda x: logistic(x), lambda x, y: mul(y, sub(full_like(x, 1.0), y))),
                         "stablehlo.logistic", kinds="fc")


def logistic(x):
    return logistic_p.bind(x)


sqrt_p = _float_unop("sqrt", _np_float(np.sqrt),
                     _ScaledTangent(lambda x: sqrt(x), lambda x, y: div(full_like(x, 0.5), y)), "stablehlo.sqrt", kinds="fc")


def sqrt(x):
    return sqrt_p.bind(x)


rsqrt_p = _float_unop("rsqrt", _np_float(lambda x: 1.0 / np.sqrt(x)),
                      _ScaledTangent(lambda x: rsqrt(x), lambda x, y: mul(full_like(x, -0.5), div(y, x))),
                      "stablehlo.rsqrt", kinds="fc")


def rsqrt(x):
    return rsqrt_p.bind(x)


erf_p = _float_unop("erf", _np_float(_scipy_special("erf")),
                    _ScaledTangent(lambda x: erf(x),
                               lambda x, y: mul(full_like(x, 2.0 / math.sqrt(math.pi)), exp(neg(mul(x, x))))),
                    "chlo.erf")


def erf(x):
    return erf_p.bind(x)


erf_inv_p = _float_unop("erf_inv", _np_float(_scipy_special("erfinv")),
                        _ScaledTangent(lambda x: erf_inv(x),
                                   lambda x, y: mul(full_like(x, math.sqrt(math.pi) / 2.0), exp(mul(y, y)))),
                        "chlo.erf_inv")


def erf_inv(x):
    return erf_inv_p.bind(x)


lgamma_p = _float_unop("lgamma", _np_float(_scipy_special("gammaln")),
                       _ScaledTangent(lambda x: lgamma(x), lambda x, y: digamma(x)), "chlo.lgamma")


def lgamma(x):
    return lgamma_p.bind(x)


digamma_p = _float_unop("digamma", _np_float(_scipy_special("digamma")),
                        _ScaledTangent(lambda x: digamma(x), lambda x, y: polygamma(x, m=1)), "chlo.digamma")


def digamma(x):
    return digamma_p.bind(x)


def _polygamma_shape(x, *, m):
    require_kind("polygamma", x, "f", "a floating-point")
    if not isinstance(m, int) or m < 0:
        raise ValueError(f"polygamma: the order m must be a non-negative Python int, got {m!r}")
    return x


def _polygamma_lower(ctx, x, *, m):
    n = ctx.constant(m, ctx.avals_in[0])
    return ctx.generic_op("chlo.polygamma", [n, x], in_avals=[ctx.avals_in[0]] * 2)


_polygamma = _scipy_special("polygamma")


polygamma_p = Primitive("polygamma", shape_rule=_polygamma_shape,
                        impl=lambda x, *, m: _np_float(lambda a: _polygamma(m, a))(x),
                        jvp=lambda primals, tangents, *, m: (polygamma(primals[0], m=m),
                                                             mul(tangents[0], polygamma(primals[0], m=m + 1))),
                        transpose=NONLINEAR, batch=ELEMENTWISE, lower=_polygamma_lower)


def polygamma(x, *, m: int):
    return polygamma_p.bind(x, m=m)


# ---------------------------------------------------------------------------------------------- abs / sign / rounding

def _abs_shape(x):
    require_kind("abs", x, "fic", "a numeric")
    return x.update(dtype=COMPLEX_PART[x.dtype.name]) if x.dtype.kind == "c" else x


def _abs_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = abs(x)
    if get_aval(x).dtype.kind != "c":
        return out, mul(t, sign(x))
    # d|z| = Re(conj(z) dz) / |z|, taken as 0 at z = 0 (JAX's convention)
    safe = select(eq(out, full_like(out, 0)), full_like(out, 1), out)
    return out, cx.real(div(mul(t, cx.conj(x)), cx.complex_(safe, full_like(safe, 0))))


abs_p = Primitive("abs", shape_rule=_abs_shape, impl=lambda x: np.abs(x), jvp=_abs_jvp, transpose=NONLINEAR,
                  batch=ELEMENTWISE, lower=lambda ctx, x: ctx.op("stablehlo.abs", [x]))


def abs(x):  # noqa: A001
    return abs_p.bind(x)


sign_p = _float_unop("sign", lambda x: np.sign(x), ZERO_TANGENT, "stablehlo.sign", kinds="fic")  # complex: z/|z|


def sign(x):
    return sign_p.bind(x)


floor_p = _float_unop("floor", lambda x: np.floor(x), ZERO_TANGENT, "stablehlo.floor")


def floor(x):
    return floor_p.bind(x)


ceil_p = _float_unop("ceil", lambda x: np.ceil(x), ZERO_TANGENT, "stablehlo.ceil")


def ceil(x):
    return ceil_p.bind(x)


def _round_impl(x):
    # halves to the even neighbour, as Paddle 3.3's round (std::nearbyint) and stablehlo.round_nearest_even
    return np.rint(x).astype(x.dtype)


round_p = _float_unop("round", _round_impl, ZERO_TANGENT, "stablehlo.round_nearest_even")


def round_(x):
    """Round to the nearest integer, halves to the even one (-0.5 -> -0, 1.5 -> 2, 2.5 -> 2)."""
    return round_p.bind(x)


def _is_finite_shape(x):
    require_kind("is_finite", x, "f", "a floating-point")
    return x.update(dtype=dtypes.bool_)


is_finite_p = Primitive("is_finite", shape_rule=_is_finite_shape, impl=lambda x: np.isfinite(x), jvp=ZERO_TANGENT,
                        transpose=NONLINEAR, batch=ELEMENTWISE, lower=lambda ctx, x: ctx.op("stablehlo.is_finite", [x]))


def is_finite(x):
    return is_finite_p.bind(x)


# ---------------------------------------------------------------------------------------------- comparisons

def _emit_compare(ctx, direction, x, y, aval):
    out = aval.update(dtype=dtypes.bool_)
    if aval.dtype.kind == "c" and direction not in ("EQ", "NE"):
        # numpy's order: by real part when neither imaginary part is nan, ties by imaginary part
        part = aval.update(dtype=COMPLEX_PART[aval.dtype.name])
        xr, xi, yr, yi = (ctx.op(f"stablehlo.{which}", [v], part, in_avals=[aval])
                          for v in (x, y) for which in ("real", "imag"))

        def both(a, b):
            return ctx.op("stablehlo.and", [a, b], out, in_avals=[out, out])
        by_real = both(_emit_compare(ctx, direction[0] + "T", xr, yr, part),
                       both(_emit_compare(ctx, "EQ", xi, xi, part), _emit_compare(ctx, "EQ", yi, yi, part)))
        by_imag = both(_emit_compare(ctx, "EQ", xr, yr, part), _emit_compare(ctx, direction, xi, yi, part))
        return ctx.op("stablehlo.or", [by_real, by_imag], out, in_avals=[out, out])
    return ctx.op("stablehlo.compare", [f"{direction}, {x}", y], out, attrs=f", {compare_type(aval.dtype)}",
                  in_avals=[aval, aval], sep="")


def _make_compare(name, np_fn, direction):
    def shape_rule(x, y):
        return same_shape_dtype(name, x, y).update(dtype=dtypes.bool_)

    def lower(ctx, x, y):
        return _emit_compare(ctx, direction, x, y, ctx.avals_in[0])

    def impl(x, y):
        if x.dtype.kind != "c":
            return np_fn(x, y)
        with np.errstate(invalid="ignore"):  # numpy warns when ordering complex nan; float nan compares quietly
            return np_fn(x, y)

    return Primitive(name, shape_rule=shape_rule, impl=impl, jvp=ZERO_TANGENT, transpose=NONLINEAR,
                     batch=ELEMENTWISE, lower=lower)


eq_p = _make_compare("eq", np.equal, "EQ")
ne_p = _make_compare("ne", np.not_equal, "NE")
lt_p = _make_compare("lt", np.less, "LT")
le_p = _make_compare("le", np.less_equal, "LE")
gt_p = _make_compare("gt", np.greater, "GT")
ge_p = _make_compare("ge", np.greater_equal, "GE")


def eq(x, y):
    return eq_p.bind(x, y)


def ne(x, y):
    return ne_p.bind(x, y)


def lt(x, y):
    return lt_p.bind(x, y)


def le(x, y):
    return le_p.bind(x, y)


def gt(x, y):
    return gt_p.bind(x, y)


def ge(x, y):
    return ge_p.bind(x, y)


# ---------------------------------------------------------------------------------------------- select

def _select_shape(pred, on_true, on_false):
    a = same_shape_dtype("select", on_true, on_false)
    if pred.dtype != dtypes.bool_:
        raise DTypeError(f"select: the predicate must be bool, got {pred.dtype.name}")
    if pred.shape != a.shape:
        raise DTypeError(f"select: predicate shape {list(pred.shape)} differs from the operands' {list(a.shape)}")
    return a


def _select_jvp(primals, tangents):
    (p, a, b), (_, ta, tb) = primals, tangents
    return select(p, a, b), select(p, ta, tb)


def _select_transpose(ct, p, a, b):
    if is_undefined(p):
        raise TypeError("select: the predicate cannot be linear")
    zero = full_like(ct, 0)
    return [None, select(p, ct, zero) if is_undefined(a) else None, select(p, zero, ct) if is_undefined(b) else None]


_SAME_WIDTH_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def _select_impl(p, a, b):
    if p.size < 4096 or a.dtype.itemsize not in _SAME_WIDTH_UINT:
        return np.where(p, a, b)
    # np.where branches per element, and an unpredictable predicate (relu's x > 0) makes that ~5x slower than
    # choosing the bits with masks: (a & m) | (b & ~m), m all ones where p; the same bits as np.where, nan included
    u = _SAME_WIDTH_UINT[a.dtype.itemsize]
    mask = p.astype(u)
    np.negative(mask, out=mask)
    out = np.bitwise_and(a.view(u), mask)
    np.invert(mask, out=mask)
    np.bitwise_and(b.view(u), mask, out=mask)
    np.bitwise_or(out, mask, out=out)
    return out.view(a.dtype)


select_p = Primitive("select", shape_rule=_select_shape, impl=_select_impl, jvp=_select_jvp, linear_in=(1, 2),
                     transpose=_select_transpose, batch=ELEMENTWISE,
                     lower=lambda ctx, p, a, b: ctx.op("stablehlo.select", [p, a, b]))


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false` (all three of one shape)."""
    return select_p.bind(pred, on_true, on_false)


# ---------------------------------------------------------------------------------------------- clamp

def _clamp_shape(lo, x, hi):
    for n, b in (("min", lo), ("max", hi)):
        if b.dtype != x.dtype:
            raise DTypeError(f"clamp: {n} has dtype {b.dtype.name} but x has {x.dtype.name}")
        if b.shape not in ((), x.shape):
            raise DTypeError(f"clamp: {n} must be a scalar or have x's shape {list(x.shape)}, got {fmt(b)}")
    require_kind("clamp", x, "fiu", "a numeric")
    return x


def _clamp_jvp(primals, tangents):
    (lo, x, hi), (tlo, tx, thi) = primals, tangents
    shape = get_aval(x).shape

    def full(v, t):
        if get_aval(v).shape == shape:
            return v, t
        return (broadcast_in_dim(v, shape=shape, broadcast_dimensions=()),
                broadcast_in_dim(t, shape=shape, broadcast_dimensions=()))
    (lo, tlo), (hi, thi) = full(lo, tlo), full(hi, thi)
    out = clamp(lo, x, hi)
    return out, select(lt(x, lo), tlo, select(gt(x, hi), thi, tx))


def _clamp_batch(vals, dims):
    lo, x, hi = vals
    size = batch_size(vals, dims)
    if dims[0] is None and dims[2] is None and get_aval(lo).ndim == 0 and get_aval(hi).ndim == 0:
        return clamp(lo, x, hi), dims[1]
    xb = bdim_at_front(x, dims[1], size)
    full_shape = get_aval(xb).shape

    def fix(v, d):
        if d is None:
            a = get_aval(v)
            return broadcast_in_dim(v, shape=full_shape, broadcast_dimensions=tuple(range(1, 1 + a.ndim))
                                    if a.ndim else ())
        v = bdim_at_front(v, d, size)
        if get_aval(v).ndim == 1:
            return broadcast_in_dim(v, shape=full_shape, broadcast_dimensions=(0,))
        return v
    return clamp(fix(lo, dims[0]), xb, fix(hi, dims[2])), 0


clamp_p = Primitive("clamp", shape_rule=_clamp_shape, impl=lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
                    jvp=_clamp_jvp, transpose=NONLINEAR, batch=_clamp_batch,
                    lower=lambda ctx, lo, x, hi: ctx.op("stablehlo.clamp", [lo, x, hi]))


def clamp(min, x, max):  # noqa: A002 - lax's argument order
    return clamp_p.bind(min, x, max)


# ---------------------------------------------------------------------------------------------- convert_element_type

def _convert_shape(x, *, new_dtype):
    return x.update(dtype=new_dtype)


def _convert_impl(x, *, new_dtype):
    if x.dtype.kind == "c" and new_dtype.kind != "c":
        x = x.real  # complex to real keeps the real part (Paddle's cast; numpy's astype warns, then does the same)
    if x.dtype.kind == "f" and new_dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(x).astype(new_dtype.np)
    return x.astype(new_dtype.np)


def _convert_jvp(primals, tangents, *, new_dtype):
    (x,), (t,) = primals, tangents
    out = convert_element_type(x, new_dtype=new_dtype)
    if new_dtype.kind not in "fc" or get_aval(x).dtype.kind not in "fc":
        return out, None
    return out, convert_element_type(t, new_dtype=new_dtype)


def _convert_lower(ctx, x, *, new_dtype):
    a_in = ctx.avals_in[0]
    if a_in.dtype.kind == "c" and new_dtype.kind != "c":  # StableHLO leaves complex-to-real convert undefined
        part = a_in.update(dtype=COMPLEX_PART[a_in.dtype.name])
        x = ctx.op("stablehlo.real", [x], part, in_avals=[a_in])
        if part.dtype == new_dtype:
            return x
        return ctx.op("stablehlo.convert", [x], ctx.avals_out[0], in_avals=[part])
    return ctx.op("stablehlo.convert", [x])


def _convert_transpose(ct, x, *, new_dtype):
    return [convert_element_type(ct, new_dtype=x.aval.dtype)]


convert_element_type_p = Primitive("convert_element_type", shape_rule=_convert_shape, impl=_convert_impl,
                                   jvp=_convert_jvp, transpose=_convert_transpose, batch=ELEMENTWISE,
                                   lower=_convert_lower)


def convert_element_type(x, *, new_dtype):
    new_dtype = dtypes.as_dtype(new_dtype)
    if get_aval(x).dtype == new_dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=new_dtype)


def count_true(mask):
    """The number of True elements of a bool Tensor, as an int32 0-D Tensor (what a `RuntimeCheck` counts).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.prims.elementwise import count_true, nonfinite_count
        >>> count_true(paddle.to_tensor([[True, False], [True, True]])).item()
        3
        >>> nonfinite_count([paddle.to_tensor([1.0, float("nan")]), paddle.to_tensor([float("-inf")])]).item()
        2
    """
    flat = reshape(mask, new_sizes=(get_aval(mask).size,))  # IREE's CPU backend fails on a large reduce over 2 axes
    return reduce_sum(convert_element_type(flat, new_dtype=dtypes.int32), axes=(0,))


def nonfinite_count(values):
    """How many elements of the real floating-point `values` are NaN or Inf, together, as an int32 0-D Tensor."""
    total = full((), 0, dtypes.int32)
    for v in values:
        if get_aval(v).dtype.kind == "f":
            total = add(total, count_true(not_(is_finite(v))))
    return total


# ---------------------------------------------------------------------------------------------- bitcast_convert_type

def _bitcast_shape(x, *, new_dtype):
    """StableHLO's rule: the same shape for the same width; to a type k times narrower a trailing dimension of k
    is added; to one k times wider the trailing dimension, which must be k, is removed."""
    if x.dtype.kind == "b" or new_dtype.kind == "b":
        raise DTypeError(f"bitcast_convert_type: {x.dtype.name} to {new_dtype.name}: bool has no bit pattern to "
                         "reinterpret (only numeric types can be)")
    if new_dtype.bits < x.dtype.bits:
        return x.update(shape=x.shape + (x.dtype.bits // new_dtype.bits,), dtype=new_dtype)
    if new_dtype.bits > x.dtype.bits:
        ratio = new_dtype.bits // x.dtype.bits
        if not x.shape or x.shape[-1] != ratio:
            raise ShapeError(f"bitcast_convert_type: {x.dtype.name} to the {ratio} times wider {new_dtype.name} needs "
                             f"a last dimension of {ratio}, got shape {list(x.shape)}")
        return x.update(shape=x.shape[:-1], dtype=new_dtype)
    return x.update(dtype=new_dtype)


def _bitcast_impl(x, *, new_dtype):
    if new_dtype.np.itemsize < x.dtype.itemsize:  # [..., n] -> [..., n, k] (numpy views along the last axis)
        return np.ascontiguousarray(x).reshape(x.shape + (1,)).view(new_dtype.np)
    if new_dtype.np.itemsize > x.dtype.itemsize:
        return np.ascontiguousarray(x).view(new_dtype.np).reshape(x.shape[:-1])
    return x.view(new_dtype.np)


bitcast_convert_type_p = Primitive("bitcast_convert_type", shape_rule=_bitcast_shape, impl=_bitcast_impl,
                                   jvp=ZERO_TANGENT, transpose=NONLINEAR, batch=ELEMENTWISE,
                                   lower=lambda ctx, x, *, new_dtype: ctx.op("stablehlo.bitcast_convert", [x]))


def bitcast_convert_type(x, *, new_dtype):
    return bitcast_convert_type_p.bind(x, new_dtype=dtypes.as_dtype(new_dtype))


# ---------------------------------------------------------------------------------------------- stop_gradient

def _stop_gradient_shape(x):
    return x


stop_gradient_p = Primitive("stop_gradient", shape_rule=_stop_gradient_shape, impl=lambda x: x, jvp=ZERO_TANGENT,
                            transpose=NONLINEAR, batch=lambda vals, dims: (stop_gradient(vals[0]), dims[0]),
                            lower=lambda ctx, x: x)


def stop_gradient(x):
    """Identity whose derivative is zero: gradients do not flow through the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.grad(lambda x: (x * paddle.stop_gradient(x)).sum())(paddle.to_tensor([3.0])).numpy()
        array([3.], dtype=float32)
    """
    return stop_gradient_p.bind(x)
