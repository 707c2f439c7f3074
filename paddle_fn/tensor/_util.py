"""Small helpers shared by the Paddle-level modules: axis arguments, static integers."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.trace import Tensor, Tracer, concrete_or_error, get_aval
from paddle_fn.prims import structural as st


def write_out(result: Tensor, out) -> Tensor:
    """`result`, or `out` made to hold it when given: Paddle 3.3's ``out=`` (and ``paddle.assign(x, output=out)``).
    `out` takes the result's value, shape, dtype and gradient history; values are never written, so anything holding
    `out`'s old value keeps it."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"out must be a Tensor, got {type(out).__name__}")
    out._rebind(result)
    return out


def ndim(x) -> int:
    return get_aval(x).ndim


def shape_of(x) -> tuple:
    return get_aval(x).shape


def normalize_axis(op: str, axis, rank: int) -> int:
    axis = static_int(op, axis, "axis")
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise ShapeError(f"{op}: axis {axis} is out of range for a tensor of rank {rank} "
                         f"(valid: {-max(rank, 1)}..{max(rank, 1) - 1})")
    return axis % max(rank, 1)


def normalize_axes(op: str, axis, rank: int) -> tuple:
    """axis=None -> every axis; an int, list or tuple (negative allowed) -> sorted distinct non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    if isinstance(axis, Tensor):
        axis = static_list(op, axis, "axis")
    if isinstance(axis, (list, tuple)):
        axes = tuple(normalize_axis(op, a, rank) for a in axis)
        if len(set(axes)) != len(axes):
            raise ShapeError(f"{op}: axis {list(axis)} names a dimension twice (rank {rank})")
        return tuple(sorted(axes))
    return (normalize_axis(op, axis, rank),)


def static_int(op: str, v, what: str) -> int:
    """A Python int from an int or a one-element concrete Tensor (Paddle lets shapes/axes be Tensors)."""
    if isinstance(v, Tensor):
        arr = concrete_or_error(v, f"{op}: {what}", "pass a Python int instead")
        if arr.size != 1:
            raise ShapeError(f"{op}: {what} must have one element, got shape {list(arr.shape)}")
        return int(arr.reshape(()))
    if isinstance(v, (bool, float)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{op}: {what} must be an int, got {type(v).__name__} {v!r}")
    return int(v)


def static_list(op: str, v, what: str) -> list:
    """A list of Python ints from a list/tuple (of ints or one-element Tensors) or a concrete 1-D Tensor."""
    if isinstance(v, Tensor):
        arr = concrete_or_error(v, f"{op}: {what}", "pass a list of Python ints instead")
        return [int(a) for a in np.asarray(arr).reshape(-1)]
    if isinstance(v, (int, np.integer)):
        return [int(v)]
    return [static_int(op, a, what) for a in v]


def reshape(x, shape):
    return st.reshape(x, new_sizes=tuple(shape))


def eager_value(x) -> np.ndarray | None:
    """The numpy value of Tensor `x` when it is known now (eager code, the eager tape included); None under a
    transform (jit, vmap, grad), where value checks cannot run, so ops that check values eagerly (division by
    zero, singular matrices, out-of-range labels) return the compiled result unchecked there."""
    if isinstance(x, Tracer):
        return None
    try:
        return x.concrete_value()
    except ConcretizationError:  # a Tensor rebound to a traced value inside jit
        return None
