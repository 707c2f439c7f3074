"""Shared rule helpers for primitive definitions: shape checks, constants, transpose/batch building blocks."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.trace import Tensor, get_aval


def fmt(aval: ShapedArray) -> str:
    return f"{list(aval.shape)} {aval.dtype.name}"


def same_shape_dtype(name: str, *avals: ShapedArray) -> ShapedArray:
    a0 = avals[0]
    for a in avals[1:]:
        if a.shape != a0.shape:
            raise ShapeError(f"{name}: operand shapes differ: " + ", ".join(str(list(a.shape)) for a in avals) +
                             " (primitives do not broadcast; use paddle_fn.broadcast_to or the Paddle-level op)")
        if a.dtype is not a0.dtype and a.dtype != a0.dtype:
            raise DTypeError(f"{name}: operand dtypes differ: " + ", ".join(a.dtype.name for a in avals) +
                             " (cast one with .astype())")
    return a0


def require_kind(name: str, aval: ShapedArray, kinds: str, what: str) -> None:
    if aval.dtype.kind not in kinds:
        raise DTypeError(f"{name}: expected {what} input, got dtype {aval.dtype.name} (shape {list(aval.shape)}); "
                         f"cast it with .astype()")


def binop_shape(name: str, kinds: str, what: str):
    """The shape rule of a binary elementwise primitive: operands of one shape and dtype, of a dtype kind in
    `kinds` (`what` names them in the error)."""
    def shape_rule(x, y):
        a = same_shape_dtype(name, x, y)
        require_kind(name, a, kinds, what)
        return a
    return shape_rule


def lower_binop(hlo: str):
    """The lowering of a binary elementwise primitive to the StableHLO op `hlo`."""
    def lower(ctx, x, y):
        return ctx.op(hlo, [x, y])
    return lower


def scalar_like(x, value):
    """A 0-d constant with x's dtype."""
    return Tensor(np.asarray(value, dtype=get_aval(x).dtype.np))


def normalize_axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"{name}: axis {axis} is out of range for a tensor of rank {ndim} "
                         f"(valid: {-ndim}..{ndim - 1})")
    return axis % max(ndim, 1)


def np_result(x, dtype) -> np.ndarray:
    return np.asarray(x, dtype=dtype)


def check_dims(name: str, what: str, dims, bound: int, *, sorted_: bool = True) -> None:
    """Dimension numbers `dims` must be distinct, in 0..bound-1 and (if `sorted_`) increasing."""
    dims = tuple(dims)
    if len(set(dims)) != len(dims) or any(not 0 <= d < bound for d in dims) or (sorted_ and list(dims) != sorted(dims)):
        order = "strictly increasing, " if sorted_ else "distinct, "
        raise ShapeError(f"{name}: {what} {list(dims)} must be {order}and in 0..{bound - 1}")


def shift_dims(dims, by: int = 1) -> tuple:
    """Dimension numbers moved `by` places (past a batch axis inserted in front)."""
    return tuple(d + by for d in dims)

