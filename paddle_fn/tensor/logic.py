"""Comparisons, logical and bitwise ops, and value tests (isnan, isclose, allclose, equal_all ...)."""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of, write_out
from paddle_fn.tensor.promotion import as_tensor, binary_operands, cast, real_operands

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal", "logical_and",
           "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
           "isnan", "isinf", "isfinite", "isclose", "allclose", "equal_all", "is_tensor", "is_floating_point",
           "is_integer", "numel", "shape", "rank", "is_empty"]


def _compare(op, prim_fn, doc_example, doc_out, *, ordering=True):
    def f(x, y, name=None, *, out=None):
        if ordering:  # Paddle 3.3.1 answers False for every complex pair; complex numbers have no order
            real_operands(op, x, y)
        return write_out(prim_fn(*binary_operands(op, x, y)), out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = (f"Elementwise comparison with broadcasting; returns a bool Tensor (`out`, a Tensor, is made to hold "
                 f"it).\n\n"
                 f"    Example:\n"
                 f"        >>> import paddle_fn as paddle\n"
                 f"        >>> paddle.{op}(paddle.to_tensor({doc_example}), 2).numpy()\n"
                 f"        {doc_out}\n")
    return f


equal = _compare("equal", ew.eq, "[1, 2, 3]", "array([False,  True, False])", ordering=False)
not_equal = _compare("not_equal", ew.ne, "[1, 2, 3]", "array([ True, False,  True])", ordering=False)
less_than = _compare("less_than", ew.lt, "[1, 2, 3]", "array([ True, False, False])")
less_equal = _compare("less_equal", ew.le, "[1, 2, 3]", "array([ True,  True, False])")
greater_than = _compare("greater_than", ew.gt, "[1, 2, 3]", "array([False, False,  True])")
greater_equal = _compare("greater_equal", ew.ge, "[1, 2, 3]", "array([False,  True,  True])")


def _as_bool(x):
    x = as_tensor(x)
    return x if get_aval(x).dtype == dtypes.bool_ else cast(x, dtypes.bool_)


def _logical(op, prim_fn, truth):
    def f(x, y, name=None, *, out=None):
        return write_out(prim_fn(*binary_operands(op, _as_bool(x), _as_bool(y))), out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = (f"Elementwise logical {op.split('_')[1]} (non-zero values count as true); returns bool (`out`, a "
                 f"Tensor, is made to hold it).\n\n"
                 f"    Example:\n"
                 f"        >>> import paddle_fn as paddle\n"
                 f"        >>> paddle.{op}(paddle.to_tensor([True, False]), paddle.to_tensor([True, True]))"
                 f".numpy()\n"
                 f"        {truth}\n")
    return f


logical_and = _logical("logical_and", bw.and_, "array([ True, False])")
logical_or = _logical("logical_or", bw.or_, "array([ True,  True])")
logical_xor = _logical("logical_xor", bw.xor, "array([False,  True])")


def logical_not(x, name=None, *, out=None):
    """Elementwise logical not; returns bool (`out`, a Tensor, is made to hold it).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logical_not(paddle.to_tensor([True, False])).numpy()
        array([False,  True])
    """
    return write_out(bw.not_(_as_bool(x)), out)


def _require_bitwise(op, x):
    if get_aval(x).dtype.kind not in "biu":
        raise DTypeError(f"{op}: expected a bool or integer Tensor, got {get_aval(x).dtype.name}")
    return x


def _bitwise(op, prim_fn, out_doc):
    def f(x, y, out=None, name=None):
        x, y = binary_operands(op, x, y)
        return write_out(prim_fn(_require_bitwise(op, x), y), out)
    f.__name__ = f.__qualname__ = op
    f.__doc__ = (f"Elementwise {op.replace('_', ' ')} of bool or integer Tensors (`out`, a Tensor, is made to hold "
                 f"the result).\n\n"
                 f"    Example:\n"
                 f"        >>> import paddle_fn as paddle\n"
                 f"        >>> paddle.{op}(paddle.to_tensor([12]), paddle.to_tensor([10])).numpy()\n"
                 f"        {out_doc}\n")
    return f


bitwise_and = _bitwise("bitwise_and", bw.and_, "array([8])")
bitwise_or = _bitwise("bitwise_or", bw.or_, "array([14])")
bitwise_xor = _bitwise("bitwise_xor", bw.xor, "array([6])")


def bitwise_not(x, out=None, name=None):
    """Elementwise bitwise not of a bool or integer Tensor (`out`, a Tensor, is made to hold the result).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bitwise_not(paddle.to_tensor([0, 5])).numpy()
        array([-1, -6])
    """
    return write_out(bw.not_(_require_bitwise("bitwise_not", as_tensor(x))), out)


def _all_false(x):
    return st.full(shape_of(x), False, dtypes.bool_)


def isnan(x, name=None):
    """Elementwise test for NaN (always False for integer Tensors).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isnan(paddle.to_tensor([1., float('nan')])).numpy()
        array([False,  True])
    """
    x = as_tensor(x)
    return ew.ne(x, x) if get_aval(x).dtype.kind in "fc" else _all_false(x)


def isinf(x, name=None):
    """Elementwise test for +-inf (always False for integer Tensors).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isinf(paddle.to_tensor([1., float('-inf')])).numpy()
        array([False,  True])
    """
    x = as_tensor(x)
    kind = get_aval(x).dtype.kind
    if kind == "c":  # either part infinite, as numpy
        return bw.or_(isinf(cx.real(x)), isinf(cx.imag(x)))
    if kind != "f":
        return _all_false(x)
    return ew.eq(ew.abs(x), st.full_like(x, np.inf))


def isfinite(x, name=None):
    """Elementwise test for finite values (always True for integer Tensors).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isfinite(paddle.to_tensor([1., float('inf')])).numpy()
        array([ True, False])
    """
    x = as_tensor(x)
    kind = get_aval(x).dtype.kind
    if kind == "c":  # both parts finite
        return bw.and_(ew.is_finite(cx.real(x)), ew.is_finite(cx.imag(x)))
    if kind != "f":
        return st.full(shape_of(x), True, dtypes.bool_)
    return ew.is_finite(x)


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise |x - y| <= atol + rtol * |y| (infinities are close to themselves).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.isclose(paddle.to_tensor([1., 2.]), paddle.to_tensor([1. + 1e-7, 2.1])).numpy()
        array([ True, False])
    """
    x, y = binary_operands("isclose", x, y)
    dt, shape = get_aval(x).dtype, shape_of(x)
    if dt.kind not in "fc":
        return ew.eq(x, y)
    dt = get_aval(ew.abs(y)).dtype  # complex: the distances and tolerances are real
    tol = ew.add(st.full(shape, atol, dt), ew.mul(st.full(shape, rtol, dt), ew.abs(y)))
    close = bw.or_(ew.le(ew.abs(ew.sub(x, y)), tol), ew.eq(x, y))
    if equal_nan:
        close = bw.or_(close, bw.and_(ew.ne(x, x), ew.ne(y, y)))
    return close


def _all_to_one(b):
    """Reduce a bool Tensor to one 0-D bool."""
    n = get_aval(b).ndim
    return red.reduce_min(b, axes=tuple(range(n))) if n else b


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """True (a 0-D bool Tensor) if every element pair is close, as in `isclose`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.allclose(paddle.to_tensor([1., 2.]), paddle.to_tensor([1., 2.])).numpy()
        array(True)
    """
    return _all_to_one(isclose(x, y, rtol, atol, equal_nan))


def equal_all(x, y, name=None):
    """True (a 0-D bool Tensor) if x and y have the same shape and all elements are equal.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.equal_all(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 3])).numpy()
        array(False)
    """
    x, y = as_tensor(x), as_tensor(y)
    if shape_of(x) != shape_of(y):
        return st.full((), False, dtypes.bool_)
    return _all_to_one(equal(x, y))


def is_tensor(x):
    """True if `x` is a Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_tensor(paddle.ones([1])), paddle.is_tensor([1.])
        (True, False)
    """
    return isinstance(x, Tensor)


def is_floating_point(x):
    """True if `x` has a floating-point dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_floating_point(paddle.ones([1]))
        True
    """
    return get_aval(as_tensor(x)).dtype.kind == "f"


def is_integer(x):
    """True if `x` has an integer dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_integer(paddle.to_tensor([1]))
        True
    """
    return get_aval(as_tensor(x)).dtype.kind in "iu"


def is_empty(x, name=None):
    """True (a 0-D bool Tensor) if `x` has no elements.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_empty(paddle.ones([0, 2])).numpy()
        array(True)
    """
    return st.full((), get_aval(as_tensor(x)).size == 0, dtypes.bool_)


def numel(x, name=None):
    """The number of elements, as a 0-D int64 Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.numel(paddle.ones([2, 3])).numpy()
        array(6)
    """
    return st.full((), get_aval(as_tensor(x)).size, dtypes.int64)


def shape(input):  # noqa: A002 - Paddle's parameter name
    """The shape of `input` as an int32 Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.shape(paddle.ones([2, 3])).numpy()
        array([2, 3], dtype=int32)
    """
    return Tensor(np.asarray(shape_of(as_tensor(input)), dtype=np.int32).reshape(-1))


def rank(input):  # noqa: A002
    """The number of dimensions of `input` as a 0-D int32 Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.rank(paddle.ones([2, 3])).numpy()
        array(2, dtype=int32)
    """
    return st.full((), get_aval(as_tensor(input)).ndim, dtypes.int32)
