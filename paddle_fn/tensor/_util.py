"""Small helpers shared by the Paddle-level modules: axis arguments, static integers."""
from __future__ import annotations

import functools
import inspect

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


def _with_keywords(fn, wrapper, defaults: dict, note: str):
    """`wrapper` (wrapping `fn`) with `fn`'s signature plus the keyword-only parameters `defaults` (name ->
    default), placed after `fn`'s own and before its ``**kwargs``, and `note` (what they do) ending the first
    paragraph of its docstring: what ``help()`` and inspect show."""
    params = list(inspect.signature(fn).parameters.values())
    at = next((i for i, p in enumerate(params) if p.kind is inspect.Parameter.VAR_KEYWORD), len(params))
    params[at:at] = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d) for n, d in defaults.items()]
    wrapper.__signature__ = inspect.Signature(params)
    head, gap, rest = (fn.__doc__ or "").partition("\n\n")
    wrapper.__doc__ = f"{head.rstrip()} {note}{gap}{rest}".lstrip()
    return wrapper


def accepts_out(fn):
    """`fn` with Paddle 3.3's keyword-only ``out=``: the result is written to `out` by `write_out`; a function
    returning a tuple of Tensors takes a tuple or list of as many Tensors (``paddle.topk(x, 2, out=(v, i))``)."""
    @functools.wraps(fn)
    def with_out(*args, out=None, **kwargs):
        result = fn(*args, **kwargs)
        if out is None:
            return result
        if isinstance(result, tuple):
            if not isinstance(out, (tuple, list)) or len(out) != len(result):
                raise TypeError(f"{fn.__name__}: out must be a tuple of {len(result)} Tensors (one per result), got "
                                f"{type(out).__name__}")
            return tuple(write_out(r, o) for r, o in zip(result, out))
        return write_out(result, out)
    return _with_keywords(fn, with_out, {"out": None}, "`out` (a Tensor), when given, is made to hold the result.")


def check_cpu(op, device):
    """paddle_fn's eager values live on the host; a device string or Place other than the CPU is refused."""
    if device is None or str(device).lower() in ("cpu", "place(cpu)"):
        return
    raise ValueError(f"{op}: device {device!r} is not supported here; eager Tensors live on the CPU (move one "
                     "with paddle.device_put, or let paddle.jit place the computation)")


def check_not_pinned(op, pin_memory):
    if pin_memory:
        raise ValueError(f"{op}: pin_memory=True is not supported (eager Tensors live in ordinary host memory, as "
                         "Paddle's on a CPU place: 'Pinning memory is not supported for Place(cpu)')")


def accepts_placement(fn=None, *, pinnable=True):
    """`fn`, a creation function, with Paddle 3.3's keyword-only ``device=`` (None or the CPU, where eager Tensors
    live; another device raises), ``requires_grad=`` (True: the result has ``stop_gradient=False``) and, unless
    `pinnable` is False (the functions Paddle gives none), ``pin_memory=`` (True raises, as Paddle's on the CPU)."""
    if fn is None:
        return functools.partial(accepts_placement, pinnable=pinnable)

    @functools.wraps(fn)
    def placed(*args, device=None, requires_grad=False, pin_memory=False, **kwargs):
        check_cpu(fn.__name__, device)
        check_not_pinned(fn.__name__, pin_memory)
        result = fn(*args, **kwargs)
        if requires_grad:
            result.stop_gradient = False
        return result
    keywords = {"device": None, "requires_grad": False} | ({"pin_memory": False} if pinnable else {})
    note = ("`device` can only be None or the CPU, where eager Tensors live (another raises); "
            "``requires_grad=True`` gives the result ``stop_gradient=False``"
            + ("; ``pin_memory=True`` raises, as Paddle's on the CPU." if pinnable else "."))
    return _with_keywords(fn, placed, keywords, note)


def sizes_argument(first, more: tuple):
    """Sizes given Paddle's two ways, as one list/tuple/Tensor or as separate ints: ``x.permute([1, 0])`` or
    ``x.permute(1, 0)`` (`first` is the first argument, `more` the rest)."""
    if more or isinstance(first, (int, np.integer)):
        return [first, *more]
    return first


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
