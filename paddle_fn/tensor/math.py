"""Elementwise math, arithmetic with Paddle's promotion and division rules, reductions and scans.

Binary ops broadcast and promote through `promotion.binary_operands`, then apply one primitive. Reductions
follow Paddle 3: a reduction to a single value (axis=None, keepdim=False) is a 0-D Tensor (shape []).
"""
from __future__ import annotations

import math as _math
import warnings

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.prims.control_flow import while_loop
from paddle_fn.tensor._util import accepts_out, eager_value, normalize_axes, normalize_axis, shape_of, static_int, write_out
from paddle_fn.tensor.promotion import (as_tensor, binary_operands, float_operand, inexact_operand, is_scalar,
                                        real_operand, real_operands)

__all__ = [
    "add", "subtract", "multiply", "divide", "floor_divide", "mod", "remainder", "floor_mod", "pow", "maximum",
    "minimum", "scale", "neg", "exp", "log", "log1p", "log2", "log10", "expm1", "sqrt", "rsqrt", "square",
    "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
    "atanh", "sigmoid", "erf", "erfinv", "lgamma", "digamma", "abs", "sign", "floor", "ceil", "round", "trunc",
    "sum", "mean", "max", "min", "amax", "amin", "prod", "all", "any", "logsumexp", "cumsum", "cumprod", "clip",
    "cast", "increment", "add_n", "lerp", "logit", "rad2deg", "deg2rad", "frac", "fmax", "fmin", "nan_to_num", "gcd",
    "lcm", "nansum", "nanmean", "count_nonzero", "logcumsumexp", "stanh",
]


def cast(x, dtype):
    """Convert `x` to `dtype` (float -> int truncates toward zero; complex -> real keeps the real part, as
    Paddle's cast: the one conversion that drops an imaginary part, because it is asked for by name).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cast(paddle.to_tensor([1.7, -1.7]), 'int32').numpy()
        array([ 1, -1], dtype=int32)
        >>> paddle.cast(paddle.to_tensor([3 + 4j]), 'float32').numpy()
        array([3.], dtype=float32)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return ew.convert_element_type(as_tensor(x), new_dtype=dtypes.as_dtype(dtype))


# ---------------------------------------------------------------------------------------------- arithmetic

def add(x, y, name=None, *, alpha=1, out=None):
    """Elementwise ``x + alpha * y`` with broadcasting; `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.add(paddle.to_tensor([1, 2]), 10).numpy()
        array([11, 12])
        >>> paddle.add(paddle.to_tensor([1., 2.]), paddle.to_tensor([1., 1.]), alpha=3).tolist()
        [4.0, 5.0]
    """
    return write_out(ew.add(*binary_operands("add", x, _scaled(y, alpha))), out)


def subtract(x, y, name=None, *, alpha=1, out=None):
    """Elementwise ``x - alpha * y`` with broadcasting; `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.subtract(paddle.to_tensor([1., 2.]), paddle.to_tensor([[1.], [2.]])).numpy()
        array([[ 0.,  1.],
               [-1.,  0.]], dtype=float32)
        >>> paddle.subtract(paddle.to_tensor([5.0]), paddle.to_tensor([2.0]), alpha=2).tolist()
        [1.0]
    """
    return write_out(ew.sub(*binary_operands("subtract", x, _scaled(y, alpha))), out)


def _scaled(y, alpha):
    """``alpha * y`` for add/subtract's `alpha` (1: y itself)."""
    return y if isinstance(alpha, (int, float)) and not isinstance(alpha, bool) and alpha == 1 else multiply(y, alpha)


def multiply(x, y, name=None, *, out=None):
    """Elementwise x * y with broadcasting (not matrix multiplication: that is `matmul`); `out` (a Tensor) is made
    to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.multiply(paddle.to_tensor([1., 2.]), 3).numpy()
        array([3., 6.], dtype=float32)
    """
    return write_out(ew.mul(*binary_operands("multiply", x, y)), out)


def divide(x, y, name=None, *, rounding_mode=None, out=None):
    """Elementwise division: true division x / y (``rounding_mode=None``; integer operands give the default float
    dtype), or the quotient rounded toward zero (``'trunc'``) or toward negative infinity (``'floor'``, as
    `floor_divide`) in the operands' dtype; `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.divide(paddle.to_tensor([327]), paddle.to_tensor([80])).numpy()
        array([4.0875], dtype=float32)
        >>> x, y = paddle.to_tensor([-7, 7]), paddle.to_tensor([2, 2])
        >>> paddle.divide(x, y, rounding_mode='trunc').tolist(), paddle.divide(x, y, rounding_mode='floor').tolist()
        ([-3, 3], [-4, 3])
    """
    if rounding_mode == "floor":
        return write_out(floor_divide(x, y), out)
    if rounding_mode not in (None, "trunc"):
        raise ValueError(f"divide: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")
    x, y = binary_operands("divide", x, y)
    if rounding_mode == "trunc":
        real_operands("divide", x, y)
        _check_integer_divisor("divide", y)
        quotient = ew.div(x, y)  # integer division truncates toward zero
        return write_out(trunc(quotient) if get_aval(x).dtype.kind == "f" else quotient, out)
    if get_aval(x).dtype.kind not in "fc":
        x, y = cast(x, dtypes.default_float_dtype()), cast(y, dtypes.default_float_dtype())
    return write_out(ew.div(x, y), out)


def _signs_differ(a, b):
    zero = st.full_like(a, 0)
    return ew.ne(ew.lt(a, zero), ew.lt(b, zero))


def _check_integer_divisor(op, y):
    """Integer division by zero has no value: raise as Paddle does (numpy gives 0, StableHLO -1, the compiled
    program too, since under jit the divisor is not known)."""
    if get_aval(y).dtype.kind not in "iu":
        return
    v = eager_value(y)
    if v is not None and not v.all():
        where = tuple(int(i) for i in np.argwhere(v == 0)[0])
        raise ZeroDivisionError(f"{op}: integer division by zero: the {get_aval(y).dtype.name} divisor of shape "
                                f"{list(v.shape)} (after broadcasting) is 0 at index {list(where)}; replace the zeros "
                                f"first (e.g. paddle.where(y == 0, 1, y)) or divide in floating point "
                                f"(x.astype('float32'))")


@accepts_out
def floor_divide(x, y, name=None):
    """Elementwise floor(x / y), rounding toward negative infinity as Python's ``//``. An integer divisor holding
    0 raises ZeroDivisionError eagerly; under jit the check cannot run and the result there is -1.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.floor_divide(paddle.to_tensor([7, -7]), 2).numpy()
        array([ 3, -4])
    """
    real_operands("floor_divide", x, y)
    x, y = binary_operands("floor_divide", x, y)
    _check_integer_divisor("floor_divide", y)
    if get_aval(x).dtype.kind == "f":
        return ew.floor(ew.div(x, y))
    q = ew.div(x, y)  # truncates toward zero; step down where the division was inexact and signs differ
    inexact = ew.ne(ew.rem(x, y), st.full_like(x, 0))
    one = st.full_like(x, 1)
    return ew.select(bw.and_(inexact, _signs_differ(x, y)), ew.sub(q, one), q)


@accepts_out
def mod(x, y, name=None):
    """Elementwise remainder with the sign of the divisor (Python's ``%``); aliases remainder, floor_mod. An integer
    divisor holding 0 raises ZeroDivisionError eagerly; under jit the check cannot run and the result there is x.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.mod(paddle.to_tensor([7, -7]), 3).numpy()
        array([1, 2])
    """
    real_operands("mod", x, y)
    x, y = binary_operands("mod", x, y)
    _check_integer_divisor("mod", y)
    r = ew.rem(x, y)
    needs_shift = bw.and_(ew.ne(r, st.full_like(r, 0)), _signs_differ(r, y))
    return ew.select(needs_shift, ew.add(r, y), r)


remainder = mod
floor_mod = mod


@accepts_out
def pow(x, y, name=None):  # noqa: A001 - Paddle's name
    """Elementwise x ** y. A Python int exponent keeps x's dtype (repeated multiplication).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.pow(paddle.to_tensor([1., 2., 3.]), 2).numpy()
        array([1., 4., 9.], dtype=float32)
    """
    if isinstance(y, (int, np.integer)) and not isinstance(y, bool) and not is_scalar(x):
        x = as_tensor(x)
        if int(y) >= 0 or get_aval(x).dtype.kind in "fc":
            return ew.integer_pow(x, y=int(y))
    x, y = binary_operands("pow", x, y)
    dt = get_aval(x).dtype
    if dt.kind not in "fc":  # integer powers computed in float64 are exact over the int range that fits in 2**53
        return cast(ew.round_(ew.pow(cast(x, dtypes.float64), cast(y, dtypes.float64))), dt)
    return ew.pow(x, y)


@accepts_out
def maximum(x, y, name=None):
    """Elementwise maximum with broadcasting.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.maximum(paddle.to_tensor([1, 5]), 3).numpy()
        array([3, 5])
    """
    real_operands("maximum", x, y)
    return ew.max(*binary_operands("maximum", x, y))


@accepts_out
def minimum(x, y, name=None):
    """Elementwise minimum with broadcasting.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.minimum(paddle.to_tensor([1, 5]), 3).numpy()
        array([1, 3])
    """
    real_operands("minimum", x, y)
    return ew.min(*binary_operands("minimum", x, y))


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (or scale * (x + bias) when bias_after_scale=False), in x's dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.scale(paddle.to_tensor([1., 2.]), scale=2.0, bias=1.0).numpy()
        array([3., 5.], dtype=float32)
    """
    if act is not None:
        raise TypeError("scale: `act` is not supported; apply the activation function to the result")
    x = as_tensor(x)
    dt, shape = get_aval(x).dtype, shape_of(x)
    s = scale if not is_scalar(scale) else st.full(shape, scale, dt)
    b = bias if not is_scalar(bias) else st.full(shape, bias, dt)
    if bias_after_scale:
        return add(multiply(x, s), b)
    return multiply(add(x, b), s)


def increment(x, value=1.0, name=None):
    """x + value (Paddle's in-place increment, returned as a new Tensor here).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.increment(paddle.to_tensor([1.])).numpy()
        array([2.], dtype=float32)
    """
    return add(x, value)


def add_n(inputs, name=None):
    """The elementwise sum of a list of Tensors.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.add_n([paddle.ones([2]), paddle.ones([2])]).numpy()
        array([2., 2.], dtype=float32)
    """
    if not isinstance(inputs, (list, tuple)):
        return as_tensor(inputs)
    out = as_tensor(inputs[0])
    for t in inputs[1:]:
        out = add(out, t)
    return out


def lerp(x, y, weight, name=None):
    """x + weight * (y - x).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.lerp(paddle.to_tensor([0.]), paddle.to_tensor([10.]), 0.3).numpy()
        array([3.], dtype=float32)
    """
    return add(x, multiply(weight, subtract(y, x)))


# ---------------------------------------------------------------------------------------------- unary math

def _unary(op_name, prim_fn, doc_in, doc_out, *, complex_ok=False):
    """A Paddle unary op over the primitive `prim_fn`; `complex_ok`: it has a complex meaning (exp, sin, ...)."""
    operand = inexact_operand if complex_ok else float_operand

    def op(x, name=None, *, out=None):
        return write_out(prim_fn(operand(op_name, x)), out)
    op.__name__ = op.__qualname__ = op_name
    kinds = "; complex inputs give complex results" if complex_ok else ""
    op.__doc__ = (f"Elementwise {op_name}; integer inputs compute in the default float dtype{kinds}; `out` (a Tensor) "
                  "is made to hold the result.\n\n"
                  f"    Example:\n"
                  f"        >>> import paddle_fn as paddle\n"
                  f"        >>> paddle.{op_name}(paddle.to_tensor({doc_in})).numpy()\n"
                  f"        {doc_out}\n")
    return op


def neg(x, name=None):
    """Elementwise -x.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.neg(paddle.to_tensor([1, -2])).numpy()
        array([-1,  2])
    """
    return ew.neg(as_tensor(x))


exp = _unary("exp", ew.exp, "[0.]", "array([1.], dtype=float32)", complex_ok=True)
log = _unary("log", ew.log, "[1.]", "array([0.], dtype=float32)", complex_ok=True)
log1p = _unary("log1p", ew.log1p, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
expm1 = _unary("expm1", ew.expm1, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
sqrt = _unary("sqrt", ew.sqrt, "[4.]", "array([2.], dtype=float32)", complex_ok=True)
rsqrt = _unary("rsqrt", ew.rsqrt, "[4.]", "array([0.5], dtype=float32)", complex_ok=True)
sin = _unary("sin", ew.sin, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
cos = _unary("cos", ew.cos, "[0.]", "array([1.], dtype=float32)", complex_ok=True)
tan = _unary("tan", ew.tan, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
asin = _unary("asin", ew.asin, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
acos = _unary("acos", ew.acos, "[1.]", "array([0.], dtype=float32)", complex_ok=True)
atan = _unary("atan", ew.atan, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
sinh = _unary("sinh", ew.sinh, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
cosh = _unary("cosh", ew.cosh, "[0.]", "array([1.], dtype=float32)", complex_ok=True)
tanh = _unary("tanh", ew.tanh, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
sigmoid = _unary("sigmoid", ew.logistic, "[0.]", "array([0.5], dtype=float32)", complex_ok=True)
erf = _unary("erf", ew.erf, "[0.]", "array([0.], dtype=float32)")
erfinv = _unary("erfinv", ew.erf_inv, "[0.]", "array([0.], dtype=float32)")
lgamma = _unary("lgamma", ew.lgamma, "[1.]", "array([0.], dtype=float32)")
digamma = _unary("digamma", ew.digamma, "[1.]", "array([-0.5772157], dtype=float32)")
floor = _unary("floor", ew.floor, "[1.5]", "array([1.], dtype=float32)")
ceil = _unary("ceil", ew.ceil, "[1.5]", "array([2.], dtype=float32)")


def round(x, decimals=0, name=None, *, out=None):  # noqa: A001 - Paddle's name
    """Elementwise rounding to `decimals` decimal places, halves to the even neighbour as Paddle 3.3 (``x * 10**d``
    rounded, then divided by ``10**d``; a negative `decimals` rounds to tens, hundreds, ...). Integer Tensors are
    returned unchanged, in their dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.round(paddle.to_tensor([-0.5, -0.2, 0.6, 1.5, 2.5]))
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0., -0., 1. , 2. , 2. ])
        >>> paddle.round(paddle.to_tensor([1.25, 1.35]), decimals=1).numpy()
        array([1.2, 1.4], dtype=float32)
    """
    x = real_operand("round", x)
    if get_aval(x).dtype.kind != "f":
        return write_out(x, out)
    if decimals == 0:
        return write_out(ew.round_(x), out)
    scale = st.full_like(x, 10.0 ** static_int("round", decimals, "decimals"))
    return write_out(ew.div(ew.round_(ew.mul(x, scale)), scale), out)


def _log_base(base):
    def f(x):
        return ew.mul(ew.log(x), st.full_like(x, 1.0 / _math.log(base)))
    return f


log2 = _unary("log2", _log_base(2.0), "[8.]", "array([3.], dtype=float32)", complex_ok=True)
log10 = _unary("log10", _log_base(10.0), "[100.]", "array([2.], dtype=float32)", complex_ok=True)


def _asinh(x):
    if get_aval(x).dtype.kind == "c":  # log(z + sqrt(z^2 + 1)), the principal branch
        return ew.log(ew.add(x, ew.sqrt(ew.add(ew.mul(x, x), st.full_like(x, 1)))))
    ax = ew.abs(x)  # odd function: compute on |x| to avoid cancellation for large negative x
    return ew.mul(ew.sign(x), ew.log(ew.add(ax, ew.sqrt(ew.add(ew.mul(ax, ax), st.full_like(x, 1))))))


def _acosh(x):
    one = st.full_like(x, 1)
    if get_aval(x).dtype.kind == "c":  # log(z + sqrt(z + 1) sqrt(z - 1)): sqrt(z^2 - 1) takes the wrong branch
        return ew.log(ew.add(x, ew.mul(ew.sqrt(ew.add(x, one)), ew.sqrt(ew.sub(x, one)))))
    return ew.log(ew.add(x, ew.sqrt(ew.sub(ew.mul(x, x), one))))


def _atanh(x):
    half = st.full_like(x, 0.5)
    return ew.mul(half, ew.sub(ew.log1p(x), ew.log1p(ew.neg(x))))


asinh = _unary("asinh", _asinh, "[0.]", "array([0.], dtype=float32)", complex_ok=True)
acosh = _unary("acosh", _acosh, "[1.]", "array([0.], dtype=float32)", complex_ok=True)
atanh = _unary("atanh", _atanh, "[0.]", "array([0.], dtype=float32)", complex_ok=True)


def square(x, name=None):
    """Elementwise x * x, in x's dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.square(paddle.to_tensor([2, 3])).numpy()
        array([4, 9])
    """
    return ew.integer_pow(as_tensor(x), y=2)


def reciprocal(x, name=None):
    """Elementwise 1 / x (integer inputs compute in the default float dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.reciprocal(paddle.to_tensor([2., 4.])).numpy()
        array([0.5 , 0.25], dtype=float32)
    """
    x = inexact_operand("reciprocal", x)
    return ew.div(st.full_like(x, 1), x)


def atan2(x, y, name=None):
    """Elementwise arctangent of x / y using the signs of both to find the quadrant.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.atan2(paddle.to_tensor([1.]), paddle.to_tensor([1.])).numpy()
        array([0.7853981], dtype=float32)
    """
    real_operands("atan2", x, y)
    x, y = binary_operands("atan2", x, y)
    if get_aval(x).dtype.kind != "f":
        x, y = cast(x, dtypes.default_float_dtype()), cast(y, dtypes.default_float_dtype())
    return ew.atan2(x, y)


@accepts_out
def abs(x, name=None):  # noqa: A001
    """Elementwise |x|.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.abs(paddle.to_tensor([-1, 2])).numpy()
        array([1, 2])
    """
    return ew.abs(as_tensor(x))


@accepts_out
def sign(x, name=None):
    """Elementwise sign (-1, 0 or 1) in x's dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.sign(paddle.to_tensor([-2., 0., 3.])).numpy()
        array([-1.,  0.,  1.], dtype=float32)
    """
    return ew.sign(as_tensor(x))


def trunc(input, name=None):  # noqa: A002 - Paddle's parameter name
    """Elementwise rounding toward zero.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.trunc(paddle.to_tensor([-1.7, 1.7])).numpy()
        array([-1.,  1.], dtype=float32)
    """
    x = real_operand("trunc", input)
    if get_aval(x).dtype.kind != "f":
        return x
    return ew.select(ew.lt(x, st.full_like(x, 0)), ew.ceil(x), ew.floor(x))


@accepts_out
def clip(x, min=None, max=None, name=None):  # noqa: A002
    """Clamp every element into [min, max] (either bound may be None; bounds may be one-element Tensors).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.clip(paddle.to_tensor([-2., 0.5, 3.]), min=0., max=1.).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    x = real_operand("clip", x)
    dt = get_aval(x).dtype
    info = dtypes.finfo(dt) if dt.kind != "b" else None

    def bound(v, default):
        if v is None:
            return st.full((), default, dt)
        if is_scalar(v):
            return st.full((), v, dt)
        return st.reshape(as_tensor(v, dt), new_sizes=())

    return ew.clamp(bound(min, info.min), x, bound(max, info.max))


# ---------------------------------------------------------------------------------------------- reductions

def _finish(out, x_rank, axes, keepdim):
    """Restore the reduced dims as size 1 when keepdim."""
    if keepdim:
        shape = list(shape_of(out))
        for a in axes:
            shape.insert(a, 1)
        return st.reshape(out, new_sizes=shape)
    return out


def _reduce(op, prim_fn, x, axis, keepdim):
    x = as_tensor(x)
    rank = get_aval(x).ndim
    axes = normalize_axes(op, axis, rank)
    return _finish(prim_fn(x, axes=axes) if axes else x, rank, axes, keepdim)


def _extreme(op, prim_fn, x, axis, keepdim):
    """max/min: an empty axis has no extreme value (the reduction's identity, -inf or inf, is not one)."""
    x = real_operand(op, x)
    a = get_aval(x)
    axes = normalize_axes(op, axis, a.ndim)
    if 0 in [a.shape[i] for i in axes]:
        raise ShapeError(f"{op}: cannot reduce over an empty axis: x has shape {list(a.shape)} ({a.dtype.name}) "
                         f"and axis {axis} includes a dimension of size 0; check the input is non-empty first "
                         f"(x.size > 0) or reduce over another axis")
    return _finish(prim_fn(x, axes=axes) if axes else x, a.ndim, axes, keepdim)


@accepts_out
def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    """Sum over `axis` (None: all). bool and int32 inputs give int64, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> paddle.sum(x).numpy(), paddle.sum(x, axis=0).numpy()
        (array(10., dtype=float32), array([4., 6.], dtype=float32))
    """
    x = as_tensor(x)
    dt = get_aval(x).dtype
    if dtype is not None:
        x = cast(x, dtype)
    elif dt is dtypes.bool_ or dt is dtypes.int32:
        x = cast(x, dtypes.int64)
    return _reduce("sum", red.reduce_sum, x, axis, keepdim)


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Arithmetic mean over `axis` (None: all); needs a floating-point or complex input, or a bool one, whose mean
    is the fraction of True values in the default float dtype (as ``jnp.mean``; accuracy = ``(pred == y).mean()``).
    `dtype` casts the input first (an integer Tensor's mean: ``mean(x, dtype='float32')``); `out` (a Tensor) is made
    to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.mean(paddle.to_tensor([[1., 2.], [3., 4.]]), axis=1).numpy()
        array([1.5, 3.5], dtype=float32)
        >>> paddle.mean(paddle.to_tensor([True, False, True, True])).item()
        0.75
        >>> paddle.mean(paddle.to_tensor([1, 2]), dtype='float64').item()
        1.5
    """
    x = as_tensor(x) if dtype is None else cast(as_tensor(x), dtype)
    a = get_aval(x)
    if a.dtype.kind == "b":
        x = ew.convert_element_type(x, new_dtype=dtypes.default_float_dtype())
        a = get_aval(x)
    if a.dtype.kind not in "fc":
        raise DTypeError(f"mean: expected a floating-point or complex input, got {a.dtype.name} (shape {list(a.shape)}); "
                         "cast it first, e.g. x.astype('float32').mean()")
    axes = normalize_axes("mean", axis, a.ndim)
    count = _math.prod(a.shape[i] for i in axes)
    total = red.reduce_sum(x, axes=axes) if axes else x
    result = ew.div(total, st.full(shape_of(total), count, a.dtype))
    return write_out(_finish(result, a.ndim, axes, keepdim), out)


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Maximum over `axis` (None: all).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.max(paddle.to_tensor([[1, 5], [7, 2]]), axis=-1).numpy()
        array([5, 7])
    """
    return _extreme("max", red.reduce_max, x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Minimum over `axis` (None: all).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.min(paddle.to_tensor([[1, 5], [7, 2]])).numpy()
        array(1)
    """
    return _extreme("min", red.reduce_min, x, axis, keepdim)


@accepts_out
def amax(x, axis=None, keepdim=False, name=None):
    """Maximum over `axis` (same values as `max`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amax(paddle.to_tensor([1., 3., 2.])).numpy()
        array(3., dtype=float32)
    """
    return _extreme("amax", red.reduce_max, x, axis, keepdim)


@accepts_out
def amin(x, axis=None, keepdim=False, name=None):
    """Minimum over `axis` (same values as `min`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amin(paddle.to_tensor([1., 3., 2.])).numpy()
        array(1., dtype=float32)
    """
    return _extreme("amin", red.reduce_min, x, axis, keepdim)


def prod(x, axis=None, keepdim=False, dtype=None, out=None, name=None):
    """Product over `axis` (None: all), in `dtype` when given (the input is cast first); `out` (a Tensor) is made
    to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.prod(paddle.to_tensor([[1., 2.], [3., 4.]]), axis=0).numpy()
        array([3., 8.], dtype=float32)
    """
    x = as_tensor(x)
    if dtype is not None:
        x = cast(x, dtype)
    return write_out(_reduce("prod", red.reduce_prod, x, axis, keepdim), out)


@accepts_out
def all(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """True where every element along `axis` is true (non-zero).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.all(paddle.to_tensor([[True, False], [True, True]]), axis=1).numpy()
        array([False,  True])
    """
    x = as_tensor(x, dtypes.bool_)
    return _reduce("all", red.reduce_min, x, axis, keepdim)


@accepts_out
def any(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """True where some element along `axis` is true (non-zero).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.any(paddle.to_tensor([[True, False], [False, False]]), axis=1).numpy()
        array([ True, False])
    """
    x = as_tensor(x, dtypes.bool_)
    return _reduce("any", red.reduce_max, x, axis, keepdim)


@accepts_out
def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (the maximum is subtracted first).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logsumexp(paddle.to_tensor([1000., 1000.])).numpy()
        array(1000.6932, dtype=float32)
    """
    x = float_operand("logsumexp", x)
    a = get_aval(x)
    axes = normalize_axes("logsumexp", axis, a.ndim)
    if not axes:
        return x
    kept = tuple(i for i in range(a.ndim) if i not in axes)
    m = red.reduce_max(x, axes=axes)
    # an infinite maximum (all -inf, or some +inf) would give inf - inf = nan: shift by 0 there instead. The value
    # does not depend on the shift, so no derivative flows through it (see activation._shifted)
    m = ew.stop_gradient(ew.select(ew.is_finite(m), m, st.full_like(m, 0)))
    shifted = ew.sub(x, st.broadcast_in_dim(m, shape=a.shape, broadcast_dimensions=kept))
    out = ew.add(ew.log(red.reduce_sum(ew.exp(shifted), axes=axes)), m)
    return _finish(out, a.ndim, axes, keepdim)


def _scan(op, prim_fn, x, axis, dtype):
    x = as_tensor(x)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        x = st.reshape(x, new_sizes=(get_aval(x).size,))
        axis = 0
    if get_aval(x).ndim == 0:
        x = st.reshape(x, new_sizes=(1,))
    return prim_fn(x, axis=normalize_axis(op, axis, get_aval(x).ndim))


@accepts_out
def cumsum(x, axis=None, dtype=None, name=None):
    """Cumulative sum along `axis` (None: over the flattened input).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cumsum(paddle.to_tensor([[1, 2], [3, 4]])).numpy()
        array([ 1,  3,  6, 10])
    """
    return _scan("cumsum", red.cumsum, x, axis, dtype)


@accepts_out
def cumprod(x, dim=None, dtype=None, name=None):
    """Cumulative product along `dim` (None: over the flattened input).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cumprod(paddle.to_tensor([1., 2., 3.]), dim=0).numpy()
        array([1., 2., 6.], dtype=float32)
    """
    return _scan("cumprod", red.cumprod, x, dim, dtype)


# ---------------------------------------------------------------------------------------------- Paddle 2.3 additions

def logit(x, eps=None, name=None):
    """log(x / (1 - x)); with `eps`, x is first clipped into [eps, 1 - eps].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logit(paddle.to_tensor([0.5, 0.75])).numpy()
        array([0.       , 1.0986123], dtype=float32)
    """
    x = float_operand("logit", x)
    if eps is not None:
        x = clip(x, eps, 1.0 - eps)
    return ew.log(ew.div(x, ew.sub(st.full_like(x, 1), x)))


def rad2deg(x, name=None):
    """Radians to degrees (integer inputs give the default float dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.rad2deg(paddle.to_tensor([3.141592653589793])).numpy()
        array([180.], dtype=float32)
    """
    x = float_operand("rad2deg", x)
    return ew.mul(x, st.full_like(x, 180.0 / _math.pi))


def deg2rad(x, name=None):
    """Degrees to radians (integer inputs give the default float dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.deg2rad(paddle.to_tensor([180])).numpy()
        array([3.1415927], dtype=float32)
    """
    x = float_operand("deg2rad", x)
    return ew.mul(x, st.full_like(x, _math.pi / 180.0))


@accepts_out
def frac(x, name=None):
    """The fractional part x - trunc(x), with x's sign.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.frac(paddle.to_tensor([1.25, -1.25])).numpy()
        array([ 0.25, -0.25], dtype=float32)
    """
    x = as_tensor(x)
    return ew.sub(x, trunc(x))


def _nan_aware(op, prim_fn, x, y):
    real_operands(op, x, y)
    x, y = binary_operands(op, x, y)
    if get_aval(x).dtype.kind != "f":
        return prim_fn(x, y)
    # a nan on one side gives the other value (nan only when both are nan)
    out = prim_fn(x, y)
    return ew.select(ew.ne(x, x), y, ew.select(ew.ne(y, y), x, out))


def fmax(x, y, name=None):
    """Elementwise maximum that ignores nan: a nan against a number gives the number.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fmax(paddle.to_tensor([1., float('nan')]), paddle.to_tensor([float('nan'), 2.])).numpy()
        array([1., 2.], dtype=float32)
    """
    return _nan_aware("fmax", ew.max, x, y)


def fmin(x, y, name=None):
    """Elementwise minimum that ignores nan: a nan against a number gives the number.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fmin(paddle.to_tensor([1., float('nan')]), paddle.to_tensor([0., 2.])).numpy()
        array([0., 2.], dtype=float32)
    """
    return _nan_aware("fmin", ew.min, x, y)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replace nan by `nan`, +inf by `posinf` and -inf by `neginf` (default: the dtype's largest/lowest finite
    values).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nan_to_num(paddle.to_tensor([float('nan'), float('inf'), -1.])).numpy()
        array([ 0.0000000e+00,  3.4028235e+38, -1.0000000e+00], dtype=float32)
    """
    x = as_tensor(x)
    dt = get_aval(x).dtype
    if dt.kind != "f":
        return x
    info = dtypes.finfo(dt)
    shape = shape_of(x)
    hi = st.full(shape, info.max if posinf is None else posinf, dt)
    lo = st.full(shape, info.min if neginf is None else neginf, dt)
    inf = st.full(shape, np.inf, dt)
    out = ew.select(ew.eq(x, inf), hi, ew.select(ew.eq(x, ew.neg(inf)), lo, x))
    return ew.select(ew.ne(x, x), st.full(shape, nan, dt), out)


def _euclid_gcd(a, b):
    """gcd of non-negative integer Tensors by Euclid's algorithm, every element stepping until its b is 0."""
    zero = st.full_like(a, 0)

    def step(carry):
        a, b = carry
        live = ew.ne(b, zero)
        safe_b = ew.select(live, b, st.full_like(b, 1))
        return ew.select(live, b, a), ew.select(live, ew.rem(a, safe_b), zero)

    def running(carry):
        b = carry[1]
        n = get_aval(b).ndim
        live = ew.ne(b, zero)
        return red.reduce_max(live, axes=tuple(range(n))) if n else live

    return while_loop(running, step, (a, b))[0]


def _integer_operands(op, x, y):
    x, y = binary_operands(op, x, y)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"{op}: expected integer Tensors, got {get_aval(x).dtype.name}")
    return x, y


def gcd(x, y, name=None):
    """Elementwise greatest common divisor of integers (non-negative; gcd(0, 0) = 0).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.gcd(paddle.to_tensor([12, 20, 0]), paddle.to_tensor([18, -15, 0])).numpy()
        array([6, 5, 0])
    """
    x, y = _integer_operands("gcd", x, y)
    return _euclid_gcd(ew.abs(x), ew.abs(y))


def lcm(x, y, name=None):
    """Elementwise least common multiple of integers (non-negative; 0 where either is 0).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.lcm(paddle.to_tensor([4, 6, 0]), paddle.to_tensor([6, -4, 3])).numpy()
        array([12, 12,  0])
    """
    x, y = _integer_operands("lcm", x, y)
    ax, ay = ew.abs(x), ew.abs(y)
    g = _euclid_gcd(ax, ay)
    zero = st.full_like(g, 0)
    either_zero = ew.eq(g, zero)
    return ew.select(either_zero, zero, ew.mul(ew.div(ax, ew.select(either_zero, st.full_like(g, 1), g)), ay))


def _nan_as_zero(x):
    x = as_tensor(x)
    if get_aval(x).dtype.kind != "f":
        return x
    return ew.select(ew.ne(x, x), st.full_like(x, 0), x)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over `axis`, treating nan as 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nansum(paddle.to_tensor([1., float('nan'), 2.])).numpy()
        array(3., dtype=float32)
    """
    return sum(_nan_as_zero(x), axis=axis, dtype=dtype, keepdim=keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over `axis` of the elements that are not nan (nan where all are nan).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nanmean(paddle.to_tensor([[1., float('nan')], [3., 4.]]), axis=1).numpy()
        array([1. , 3.5], dtype=float32)
    """
    x = as_tensor(x)
    a = get_aval(x)
    if a.dtype.kind != "f":
        raise DTypeError(f"nanmean: expected a floating-point input, got {a.dtype.name} (shape {list(a.shape)})")
    count = sum(cast(ew.eq(x, x), a.dtype), axis=axis, keepdim=keepdim)
    return ew.div(nansum(x, axis=axis, keepdim=keepdim), count)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """The number of non-zero elements over `axis`, as int64.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.count_nonzero(paddle.to_tensor([[0, 1, 2], [0, 0, 3]]), axis=1).numpy()
        array([2, 1])
    """
    x = as_tensor(x)
    nonzero = ew.ne(x, st.full_like(x, 0))
    return sum(cast(nonzero, dtypes.int64), axis=axis, keepdim=keepdim)


def _logaddexp(a, b):
    """log(exp(a) + exp(b)) without overflow; -inf + -inf stays -inf."""
    hi = ew.max(a, b)
    finite_hi = ew.select(ew.is_finite(hi), hi, st.full_like(hi, 0))
    return ew.add(ew.log(ew.add(ew.exp(ew.sub(a, finite_hi)), ew.exp(ew.sub(b, finite_hi)))), finite_hi)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along `axis` (None: the flattened input), stable for inputs of any size.

    Computed as a parallel prefix scan of log-add-exp (log2(n) steps), so it needs no shift by a global maximum
    that could underflow the early prefixes.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logcumsumexp(paddle.to_tensor([0., 0., 1000.])).numpy().tolist()
        [0.0, 0.6931471824645996, 1000.0]
    """
    x = float_operand("logcumsumexp", x)
    if dtype is not None:
        x = cast(x, dtype)
    if axis is None:
        x = st.reshape(x, new_sizes=(get_aval(x).size,))
        axis = 0
    if get_aval(x).ndim == 0:
        x = st.reshape(x, new_sizes=(1,))
    a = get_aval(x)
    ax = normalize_axis("logcumsumexp", axis, a.ndim)
    n = a.shape[ax]
    neg_inf = np.array(-np.inf, a.dtype.np)
    shift = 1
    while shift < n:  # Hillis-Steele: each element absorbs the prefix ending `shift` places before it
        config = tuple((shift, -shift, 0) if d == ax else (0, 0, 0) for d in range(a.ndim))
        x = _logaddexp(x, st.pad(x, neg_inf, padding_config=config))
        shift *= 2
    return x


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """scale_b * tanh(scale_a * x).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.stanh(paddle.to_tensor([0.])).numpy()
        array([0.], dtype=float32)
    """
    x = float_operand("stanh", x)
    dt, shape = get_aval(x).dtype, shape_of(x)
    return ew.mul(st.full(shape, scale_b, dt), ew.tanh(ew.mul(st.full(shape, scale_a, dt), x)))
