"""Operand preparation for the Paddle-level ops: conversion, dtype promotion and numpy broadcasting.

Primitives neither broadcast nor promote; every binary op in `paddle_fn.tensor` goes through
`binary_operands`, which applies Paddle 2.3's rules:

* Tensor with Tensor of another dtype: no promotion table; the right operand is cast to the left's dtype
  with a warning (`dtypes.result_dtype_tensors`).
* Tensor with a Python scalar: the Tensor's dtype wins unless the scalar is of a higher kind
  (`dtypes.result_dtype_with_scalar`): ``int32 Tensor + 1.0 -> float32``.
* Shapes broadcast as in numpy; a mismatch raises ShapeError "Broadcast dimension mismatch".
"""
from __future__ import annotations

import numbers

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st


def is_scalar(x) -> bool:
    """A Python (or numpy) scalar, which takes part in promotion weakly."""
    return isinstance(x, (bool, numbers.Number, np.generic)) and not isinstance(x, Tensor)


def as_tensor(x, dtype=None) -> Tensor:
    """Return `x` as a Tensor (Tensors pass through; numpy arrays keep their dtype), optionally cast."""
    if not isinstance(x, Tensor):
        if is_scalar(x):
            x = Tensor(np.asarray(x, dtype=(dtypes.as_dtype(dtype) if dtype is not None
                                            else dtypes.dtype_of_scalar(x)).np))
        else:
            x = Tensor(_to_numpy(x))
    if dtype is not None:
        x = ew.convert_element_type(x, new_dtype=dtypes.as_dtype(dtype))
    return x


def _to_numpy(data) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return data
    try:
        arr = np.array(data)
    except ValueError:
        raise ValueError("Failed to convert input data to a regular ndarray: the nested sequence is ragged "
                         "(its rows have different lengths); give every row the same length") from None
    if arr.dtype == object:
        raise ValueError("Failed to convert input data to a regular ndarray: the nested sequence is ragged or holds "
                         "non-numeric items; give every row the same length")
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        return arr
    if arr.dtype.kind == "f":
        return arr.astype(dtypes.default_float_dtype().np)  # Python floats -> the default float dtype
    if arr.dtype.kind in "iu" and arr.dtype != np.int64 and not isinstance(data, np.ndarray):
        return arr.astype(np.int64)
    return arr


def full_like_scalar(value, dtype, shape=()) -> Tensor:
    """A constant of `shape` filled with `value`: a 0-d literal broadcast, which stays small in the IR."""
    c = Tensor(np.asarray(value, dtype=dtypes.as_dtype(dtype).np))
    return st.broadcast_in_dim(c, shape=tuple(shape), broadcast_dimensions=())


def cast(x, dtype):
    return ew.convert_element_type(x, new_dtype=dtypes.as_dtype(dtype))


def broadcast_shapes(op: str, *shapes) -> tuple:
    """numpy's broadcast of shapes, with a ShapeError naming the op and both shapes."""
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


def binary_operands(op: str, x, y):
    """Promote and broadcast the operands of a binary op to one dtype and one shape; returns two Tensors."""
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
        dt = dtypes.result_dtype_tensors(op, get_aval(x).dtype, get_aval(y).dtype)
        x, y = cast(x, dt), cast(y, dt)
    shape = broadcast_shapes(op, get_aval(x).shape, get_aval(y).shape)
    return broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)


def nary_operands(op: str, *xs):
    """Promote (cast to the first Tensor's dtype) and broadcast several operands."""
    first = next((x for x in xs if not is_scalar(x)), None)
    if first is None:
        xs = (as_tensor(xs[0]),) + xs[1:]
        first = xs[0]
    dt = get_aval(as_tensor(first)).dtype
    out = []
    for x in xs:
        if is_scalar(x):
            out.append(as_tensor(x, dtypes.result_dtype_with_scalar(dt, x)))
        else:
            x = as_tensor(x)
            out.append(cast(x, dtypes.result_dtype_tensors(op, dt, get_aval(x).dtype)))
    shape = broadcast_shapes(op, *[get_aval(x).shape for x in out])
    return [broadcast_to_shape(x, shape) for x in out]


def float_operand(op: str, x):
    """Ops defined on real numbers only: integer and bool Tensors compute in the default float dtype."""
    x = as_tensor(x)
    if get_aval(x).dtype.kind != "f":
        x = cast(x, dtypes.default_float_dtype())
    return x
