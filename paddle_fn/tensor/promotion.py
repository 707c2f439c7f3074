"""Operand preparation for the Paddle-level ops: conversion, dtype promotion and numpy broadcasting.

Primitives neither broadcast nor promote; every binary op in `paddle_fn.tensor` goes through
`binary_operands`, which applies the rules decided 2026-11-27 (docs/tensor.md):

* Tensor with Tensor of another dtype: both convert to the dtype they promote to (`dtypes.result_dtype_tensors`):
  ``int32 Tensor * float32 Tensor -> float32``, whichever is on the left; float16 with bfloat16 gives float32.
* Tensor with a Python scalar: the Tensor's dtype wins unless the scalar is of a higher kind
  (`dtypes.result_dtype_with_scalar`): ``int32 Tensor + 1.0 -> float32``.
* Shapes broadcast as in numpy; a mismatch raises ShapeError "Broadcast dimension mismatch".
"""
from __future__ import annotations

import functools
import numbers

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, adopt, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st


def is_scalar(x) -> bool:
    """A Python (or numpy) scalar, which takes part in promotion weakly."""
    return isinstance(x, (bool, numbers.Number, np.generic)) and not isinstance(x, Tensor)


def as_tensor(x, dtype=None) -> Tensor:
    """Return `x` as a Tensor (Tensors pass through; numpy arrays keep their dtype), optionally cast.

    Python values are converted straight to `dtype` (or, without one, to their default dtype), so they keep
    their exact value; a Tensor is cast.
    """
    if not isinstance(x, Tensor):
        return adopt(python_to_numpy(x, dtype))  # a fresh array: no second copy
    if dtype is not None:
        x = ew.convert_element_type(x, new_dtype=dtypes.as_dtype(dtype))
    return x


@np.errstate(over="ignore")  # a value beyond the target's range becomes inf, as in numpy and Paddle, silently
def python_to_numpy(data, dtype=None) -> np.ndarray:
    """A Python scalar, (nested) sequence or numpy array as a numpy array of `dtype`, each value rounded once.

    Without `dtype`: numpy arrays and numpy scalars keep their dtype; Python floats take the default float dtype,
    complex numbers the default complex dtype, ints int64 and bools bool. With `dtype`, numpy converts each
    Python value straight to it (a float64 target keeps a Python float exactly; an int out of the target's range
    is an OverflowError, not a wrap-around).
    """
    if isinstance(data, (np.ndarray, np.generic)):
        dtypes.as_dtype(data.dtype)  # rejects unsupported numpy dtypes (object, strings) with a clear error
        # a copy: the Tensor freezes the array it holds, and the caller's array must stay theirs
        return np.array(data, dtype=None if dtype is None else dtypes.as_dtype(dtype).np, copy=True)
    if is_scalar(data):
        target = dtypes.dtype_of_scalar(data) if dtype is None else dtypes.as_dtype(dtype)
        return np.asarray(data, dtype=target.np)
    try:
        arr = np.array(data)  # numpy's exact reading: float64, complex128, int64 or bool for Python values
    except ValueError:
        raise ValueError("Failed to convert input data to a regular ndarray: the nested sequence is ragged "
                         "(its rows have different lengths); give every row the same length") from None
    if arr.dtype.kind not in "biufc":
        raise ValueError("Failed to convert input data to a regular ndarray: the nested sequence is ragged or "
                         f"holds non-numeric items (numpy read it as {arr.dtype}); give every row the same length "
                         "and use numbers only")
    if dtype is not None:
        return np.array(data, dtype=dtypes.as_dtype(dtype).np)
    default = {"f": dtypes.default_float_dtype(), "c": dtypes.default_complex_dtype(), "i": dtypes.int64,
               "u": dtypes.int64}.get(arr.dtype.kind)
    return arr if default is None or arr.dtype == default.np else arr.astype(default.np)


def cast(x, dtype):
    """`x` converted to `dtype` on an op's behalf; never drops an imaginary part (only an explicit
    ``paddle.cast``/``astype`` does, as Paddle's cast)."""
    dtype = dtypes.as_dtype(dtype)
    a = get_aval(x)
    if a.dtype.kind == "c" and dtype.kind != "c":
        raise DTypeError(f"complex numbers are not supported by this op yet: it would convert a "
                         f"{a.dtype.name} Tensor of shape {list(a.shape)} to {dtype.name} and drop the imaginary "
                         f"part; keep the real part explicitly with x.astype('{dtype.name}') if that is what you mean")
    return ew.convert_element_type(x, new_dtype=dtype)


def broadcast_shapes(op: str, *shapes) -> tuple:
    """numpy's broadcast of shapes, with a ShapeError naming the op and both shapes."""
    return _broadcast_shapes(op, *[tuple(s) for s in shapes])


@functools.lru_cache(maxsize=4096)
def _broadcast_shapes(op: str, *shapes) -> tuple:
    """`broadcast_shapes` of tuples, memoized: eager code asks the same question on every step."""
    ndim = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(ndim):
        sizes = {s[len(s) - ndim + i] for s in shapes if len(s) - ndim + i >= 0}
        sizes.discard(1)
        if len(sizes) > 1:
            raise ShapeError(f"{op}: Broadcast dimension mismatch: shapes " +
                             " and ".join(str(list(s)) for s in shapes) +
                             f" differ in dimension {i - ndim} ({sorted(sizes)}); sizes must be equal or 1 when "
                             "compared from the last dimension")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def broadcast_to_shape(x, shape):
    """Broadcast Tensor `x` to `shape` (numpy rules: align trailing dimensions)."""
    a = get_aval(x)
    shape = tuple(shape)
    if a.shape == shape:
        return x
    lead = len(shape) - a.ndim
    broadcast_shapes("broadcast_to", a.shape, shape)
    return st.broadcast_in_dim(x, shape=shape, broadcast_dimensions=tuple(range(lead, len(shape))))


_PYTHON_SCALARS = (float, int, bool)


def _scalar_filled_like(tensor, scalar):
    """A Python scalar meeting a Tensor whose dtype wins the promotion: the scalar, rounded once to that dtype,
    filled to the Tensor's shape (`full` skips the broadcast's dispatch outside jit: `x * 2.0` is as common in
    eager code as `x * y`). None when the scalar's kind promotes the Tensor."""
    aval = tensor.aval
    if dtypes.result_dtype_with_scalar(aval.dtype, scalar) is not aval.dtype:
        return None
    return st.full(aval.shape, scalar, aval.dtype)


def binary_operands(op: str, x, y):
    """Promote and broadcast the operands of a binary op to one dtype and one shape; returns two Tensors."""
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        ax, ay = x.aval, y.aval
        if ax is ay:  # avals are shared per (shape, dtype), so this is the commonest case, checked in one step
            return x, y
        if ax.dtype == ay.dtype:  # the common case, without promotion: only broadcasting is left to check
            if ax.shape == ay.shape:
                return x, y
            shape = _broadcast_shapes(op, ax.shape, ay.shape)
            return broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)
    elif type(y) in _PYTHON_SCALARS and isinstance(x, Tensor):
        filled = _scalar_filled_like(x, y)
        if filled is not None:
            return x, filled
    elif type(x) in _PYTHON_SCALARS and isinstance(y, Tensor):
        filled = _scalar_filled_like(y, x)
        if filled is not None:
            return filled, y
    if is_scalar(x) and is_scalar(y):
        x = as_tensor(x)
    if is_scalar(y):
        dt = dtypes.result_dtype_with_scalar(get_aval(x).dtype, y)
        x, y = cast(x, dt), as_tensor(y, dt)
    elif is_scalar(x):
        dt = dtypes.result_dtype_with_scalar(get_aval(y).dtype, x)
        x, y = as_tensor(x, dt), cast(y, dt)
    else:
        x, y = as_tensor(x), as_tensor(y)
        dt = dtypes.result_dtype_tensors(get_aval(x).dtype, get_aval(y).dtype)
        x, y = cast(x, dt), cast(y, dt)
    shape = broadcast_shapes(op, get_aval(x).shape, get_aval(y).shape)
    return broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)


def nary_operands(op: str, *xs):
    """Promote (as `binary_operands`: Tensors to their common dtype, then Python scalars weakly) and broadcast
    several operands."""
    tensors = [as_tensor(x) for x in xs if not is_scalar(x)] or [as_tensor(xs[0])]
    dt = functools.reduce(dtypes.result_dtype_tensors, [get_aval(x).dtype for x in tensors])
    for x in xs:
        if is_scalar(x):
            dt = dtypes.result_dtype_with_scalar(dt, x)
    out = [as_tensor(x, dt) if is_scalar(x) else cast(as_tensor(x), dt) for x in xs]
    shape = broadcast_shapes(op, *[get_aval(x).shape for x in out])
    return [broadcast_to_shape(x, shape) for x in out]


def real_operand(op: str, x):
    """`x` as a Tensor, for an op that is defined on real numbers only (an ordering, a rounding, a special
    function): a complex one raises rather than lose its imaginary part or be ordered as numpy orders complex
    numbers (Paddle 3.3 has no complex kernel for these either)."""
    x = as_tensor(x)
    a = get_aval(x)
    if a.dtype.kind == "c":
        part = "float64" if a.dtype == dtypes.complex128 else "float32"
        raise DTypeError(f"{op}: complex numbers are not supported by {op} (got a {a.dtype.name} Tensor of shape "
                         f"{list(a.shape)}): it takes real numbers only (complex numbers have no order, and {op} "
                         f"has no complex form here); apply it to paddle.real(x), paddle.imag(x) or paddle.abs(x) "
                         f"(each {part}) instead")
    return x


def real_operands(op: str, *xs):
    """`real_operand` of each operand that is not a Python scalar (those are promoted later)."""
    for x in xs:
        if not is_scalar(x):
            real_operand(op, x)


def float_operand(op: str, x):
    """Ops defined on real numbers only: integer and bool Tensors compute in the default float dtype; complex
    ones raise (`real_operand`)."""
    x = real_operand(op, x)
    if get_aval(x).dtype.kind != "f":
        x = cast(x, dtypes.default_float_dtype())
    return x


def inexact_operand(op: str, x):
    """Ops with a complex meaning (exp, sin, sqrt, ...): float and complex Tensors pass; integer and bool ones
    compute in the default float dtype."""
    x = as_tensor(x)
    if get_aval(x).dtype.kind not in "fc":
        x = cast(x, dtypes.default_float_dtype())
    return x
