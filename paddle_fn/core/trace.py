"""The interpreter stack: Tensor values, tracers, traces and `bind`.

As in Autodidax: every transform pushes a `MainTrace` with a level; `bind` finds the highest-level trace
among its arguments (or the dynamic one, for whole-program staging) and lets that trace process the
primitive. Tracers of lower levels are lifted into the winning trace. A finished transform marks its main
dead, so a tracer that escapes it is caught the next time it is used.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import os
import sys
import threading
import traceback
import weakref
from typing import Any

import numpy as np

from paddle_fn.core import config, dtypes
from paddle_fn.core.device_name import device_of
from paddle_fn.core.errors import CheckError, ConcretizationError, EscapedTracerError
from paddle_fn.core.ir import ShapedArray, format_source
from paddle_fn.core.packages import library_folders
from paddle_fn.core.size import Size
from paddle_fn.core.tensor_format import format_values


# ----------------------------------------------------------------------------------------------- values

_tensor_names = itertools.count()


@functools.lru_cache(maxsize=4096)
def _shaped_array(shape: tuple, dtype: np.dtype) -> ShapedArray:
    """The aval of values of this shape and numpy dtype, one object per pair: building and hashing a new one costs
    more than a jitted call's other argument handling, and cache keys holding a shared one compare by identity."""
    return ShapedArray(shape, dtypes.as_dtype(dtype))


class AutogradState:
    """What the eager tape knows of one Tensor handle. Only handles the tape touched have one (``Tensor._autograd``
    stays None on almost every Tensor, and on every Tracer).

    node: (tape node, output index) when the tape recorded how this value was computed; grad: the gradient
    `backward` accumulated here (``Tensor.grad``); hooks: ``register_hook``'s hooks on a leaf; leaf: on a snapshot
    of a leaf that needs a gradient, that leaf (the gradient belongs to the user's handle).
    """
    __slots__ = ("node", "grad", "hooks", "leaf")

    def __init__(self, node=None):
        self.node = node
        self.grad = self.hooks = self.leaf = None


class Storage:
    """What handles sharing one buffer have in common, as Paddle's handles on one DenseTensor do (``x.detach()``,
    ``x.set_(y)``): the number of in-place updates made through any of them (``Tensor.inplace_version``) and the
    handles themselves, held weakly, so that an in-place update through one is seen by all (eagerly; values are
    never written, each handle is made to refer to the new value)."""
    __slots__ = ("version", "_handles")

    def __init__(self, handle: "Tensor"):
        self.version = 0
        self._handles = {id(handle): weakref.ref(handle)}

    def add(self, handle: "Tensor") -> None:
        self._handles[id(handle)] = weakref.ref(handle)

    def shared(self) -> bool:
        """Whether more than one handle joined (some may be gone since)."""
        return len(self._handles) > 1

    def handles(self) -> list:
        """The live handles (forgetting the dead ones)."""
        live = {key: ref for key, ref in self._handles.items() if ref() is not None}
        self._handles = live
        return [ref() for ref in live.values()]


def _autograd_field(field: str, doc: str) -> property:
    get_field = operator.attrgetter(field)

    def get(self):
        state = self._autograd
        return None if state is None else get_field(state)

    def set(self, value):
        state = self._autograd
        if state is None:
            if value is None:
                return
            state = self._autograd = AutogradState()
        setattr(state, field, value)
    return property(get, set, doc=doc)


class Tensor:
    """An immutable n-d array. Eagerly it holds a read-only numpy array; under a transform it is a Tracer.

    Methods and operators (``x + y``, ``x.sum(axis=0)``, ``x.reshape([2, -1])`` ...) are installed by
    `paddle_fn.tensor`, so they are the same functions the public API exposes.
    """
    __array_priority__ = 100
    __array_ufunc__ = None  # numpy defers to our reflected operators (np.ndarray + Tensor -> Tensor)
    # _autograd: the eager tape's AutogradState, or None; persistable: Paddle's flag for state (parameters,
    # optimizer accumulators, the learning rate): a compiled function reads such a Tensor it closed over afresh on
    # every call instead of tracing again when it changes; _storage: the Storage this handle shares with others, or
    # None until it is updated in place or shared
    __slots__ = ("_value", "_device_array", "_aval", "_alias", "stop_gradient", "__weakref__", "_name", "_autograd",
                 "persistable", "_storage")

    def __init__(self, value, stop_gradient: bool = True):
        v = np.asarray(value)
        flags = v.flags
        if flags.writeable:
            if v is value or v.base is not None or not flags.owndata:
                v = v.copy()  # the caller's array (or a view of one) stays theirs, and writeable
            v.setflags(write=False)
        self._set_fields(v, None, None, stop_gradient)

    def _set_fields(self, value, device_array, aval, stop_gradient) -> None:
        """Every field of a new handle: the one place they are set, whichever way the handle was made (`Tensor()`,
        `from_device_array`, `snapshot`, an op's result, a Tracer)."""
        self._value, self._device_array, self._aval, self._alias = value, device_array, aval, None
        self._name = self._autograd = self._storage = None
        self.persistable = False
        self.stop_gradient = stop_gradient

    @classmethod
    def _make(cls, value, device_array, aval, stop_gradient: bool = True) -> "Tensor":
        """A handle on `value` (a read-only numpy array) or `device_array`, taken as they are."""
        t = cls.__new__(cls)
        t._set_fields(value, device_array, aval, stop_gradient)
        return t

    _grad_node = _autograd_field("node", "(tape node, output index) of the op that computed this value, or None")
    _grad = _autograd_field("grad", "the gradient backward() accumulated here, or None")
    _grad_hooks = _autograd_field("hooks", "register_hook's hooks on this leaf, or None")
    _leaf = _autograd_field("leaf", "on a snapshot of a leaf that needs a gradient, that leaf; else None")

    @classmethod
    def from_device_array(cls, array, stop_gradient: bool = True, aval: ShapedArray | None = None) -> "Tensor":
        """A Tensor backed by a device buffer (anything with `.shape`, `.dtype`, `.to_numpy()`), converted to
        numpy only when its value is asked for. `aval`, when the caller knows it, spares asking the buffer."""
        return cls._make(None, array, aval, stop_gradient)

    def new_handle(self) -> "Tensor":
        """A new handle on the same (immutable) value, with no gradient history and no storage shared: what an
        operation that returns its input gives back, as a compiled program returns a new buffer."""
        value = self.resolve()
        return Tensor._make(value._value, value._device_array, value._aval, True)

    def snapshot(self) -> "Tensor":
        """A new handle on the same (immutable) value: unaffected if this handle is later updated in place."""
        if self._alias is not None:
            return self._alias
        t = Tensor._make(self._value, self._device_array, self._aval, self.stop_gradient)
        node = self._grad_node
        if node is not None:
            t._grad_node = node
        elif not self.stop_gradient:
            leaf = self._leaf
            t._leaf = self if leaf is None else leaf
        return t

    def holds_value_of(self, snapshot: "Tensor") -> bool:
        """True while this handle still refers to the value `snapshot` (from `snapshot()`) was taken of: it has not
        been updated in place since (how a compiled function notices that a Tensor it closed over changed)."""
        if self._alias is not None:
            return False
        if snapshot._device_array is not None:
            return self._device_array is snapshot._device_array
        return self._device_array is None and self._value is snapshot._value

    def _rebind(self, new: "Tensor") -> None:
        """Make this handle hold `new`'s value: how Paddle's in-place methods (``x.add_(y)``, ``x[i] = v``) are
        functionalized. Values are never written; only this Python object changes what it refers to. A handle
        updated with a traced value (e.g. a buffer filled inside a function being differentiated) forwards to that
        value from then on; using it after its transform has ended is the usual escaped-tracer error."""
        if not isinstance(new, Tensor):
            raise TypeError(f"cannot rebind a Tensor to a {type(new).__name__}")
        if isinstance(new, Tracer):
            self._alias = new
            return
        new = new.resolve()
        node = new._grad_node
        if node is not None and self._grad_node is None and not self.stop_gradient and grad_mode.enabled:
            raise ValueError(
                f"Leaf Tensor {self.name} that doesn't stop gradient can't use inplace strategy: its gradient is "
                "accumulated into it by backward(). Update it under `with paddle.no_grad():` (as optimizers do), or "
                "use the out-of-place operation")
        storage = self._shared_storage()
        storage.version += 1
        for handle in storage.handles() if storage.shared() else (self,):
            handle._value, handle._device_array, handle._aval, handle._alias = (new._value, new._device_array,
                                                                                new._aval, None)
        if node is not None or self._grad_node is not None:
            self._grad_node, self.stop_gradient = node, new.stop_gradient

    def _shared_storage(self) -> Storage:
        """The Storage of this handle (a new one, of this handle alone, the first time it is asked for)."""
        if self._storage is None:
            self._storage = Storage(self)
        return self._storage

    def _share_storage_with(self, other: "Tensor") -> None:
        """Make this handle refer to `other`'s value and share its Storage from now on: an in-place update through
        either is seen by both (Paddle's ``detach`` and ``set_``). Gradient state stays each handle's own."""
        other = other.resolve()
        self._value, self._device_array, self._aval, self._alias = (other._value, other._device_array, other._aval,
                                                                    None)
        self._storage = other._shared_storage()
        self._storage.add(self)

    @property
    def name(self) -> str:
        """The Tensor's name: given by the user, or a unique ``generated_tensor_N`` on first use, as in Paddle."""
        if self._name is None:
            self._name = f"generated_tensor_{next(_tensor_names)}"
        return self._name

    @name.setter
    def name(self, value: str):
        self._name = str(value)

    def resolve(self) -> "Tensor":
        """The value this handle refers to now (itself, or the traced value it was updated with in place)."""
        return self if self._alias is None else self._alias.resolve()

    @property
    def device_array(self):
        """The device buffer behind this Tensor, or None for a host (numpy) Tensor."""
        return self._device_array

    # -- abstract view
    @property
    def aval(self) -> ShapedArray:
        if self._alias is not None:
            return self._alias.aval
        a = self._aval
        if a is None:
            v = self._value if self._value is not None else self._device_array
            a = self._aval = _shaped_array(v.shape, v.dtype)
        return a

    @property
    def shape(self) -> Size:
        """The shape as a ``paddle.Size`` (a list of ints), as in Paddle 3.3."""
        return Size(self.aval.shape)

    @property
    def dtype(self):
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    def dim(self) -> int:
        return self.ndim

    def numel(self, name=None) -> int:
        return self.size

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self.aval.shape[0]

    # -- concrete view
    def concrete_value(self) -> np.ndarray:
        if self._alias is not None:
            return self._alias.concrete_value()
        if self._value is None:
            v = np.asarray(self._device_array.to_numpy())
            if v.flags.writeable:
                v.flags.writeable = False
            self._value = v
        return self._value

    def numpy(self) -> np.ndarray:
        """Return the value as a (read-only) numpy array (shape (1,) for a 0-D Tensor under FLAGS_set_to_1d)."""
        v = self.concrete_value()
        if v.ndim == 0 and config.flag("FLAGS_set_to_1d"):
            return v.reshape(1)
        return v

    def __array__(self, dtype=None, copy=None):
        v = self.concrete_value()
        if dtype is not None:
            return v.astype(dtype)
        return np.array(v) if copy else v

    def item(self, *index):
        """The value of a one-element Tensor (or of element `index`: one int counts in the flattened Tensor,
        several index each dimension, as numpy's ``item``) as a Python scalar."""
        v = self.concrete_value()
        if index:
            return v.item(*index)
        if v.size != 1:
            raise ValueError(f"item(): the Tensor has {v.size} elements (shape {list(v.shape)}); only one-element "
                             "Tensors convert to a Python scalar; index it first, e.g. x[0].item()")
        return v.item()

    def tolist(self):
        return self.concrete_value().tolist()

    def __bool__(self):
        return bool(self._scalar("bool"))

    def __int__(self):
        return int(self._scalar("int"))

    def __float__(self):
        return float(self._scalar("float"))

    def __index__(self):
        v = self._scalar("index")
        if not np.issubdtype(np.asarray(v).dtype, np.integer):
            raise TypeError(f"only integer Tensors can be used as an index, got {self.dtype}")
        return int(v)

    def __complex__(self):
        return complex(self._scalar("complex"))

    def _scalar(self, what):
        v = self.concrete_value()
        if v.size != 1:
            raise ValueError(f"converting a Tensor of shape {list(v.shape)} to a Python {what} is ambiguous; "
                             "use .any() / .all() or index a single element")
        return v.reshape(()).item()

    def __hash__(self):
        return id(self)

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d Tensor")
        for i in range(self.aval.shape[0]):
            yield self[i]

    @property
    def place(self):
        """Where this Tensor lives, as Paddle prints a place: ``Place(cpu)``, or ``Place(gpu:0)`` for a result a
        jitted function left on that GPU."""
        value = self.resolve()
        return f"Place({device_of(None if isinstance(value, Tracer) else value._device_array)})"

    def __repr__(self):
        if self._alias is not None:
            return repr(self._alias)
        v = self.concrete_value()
        return (f"Tensor(shape={list(v.shape)}, dtype={self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n       {format_values(v)})")

    __str__ = __repr__

    def __format__(self, format_spec):
        """A 0-D Tensor formats as its Python scalar, as Paddle's does (``f"{loss:.4f}"``); any other Tensor only
        with an empty spec (its repr). A traced 0-D value without a concrete value (under jit) formats as its repr
        when the spec is empty, so ``print(f"{x}")`` inside a jitted function still shows what it is."""
        if self.ndim == 0 and (format_spec or is_concrete(self)):
            return format(self.item(), format_spec)
        if format_spec:
            raise TypeError(f"unsupported format string passed to Tensor.__format__: {format_spec!r} needs a 0-D "
                            f"Tensor, this one has shape {list(self.aval.shape)} (format x.item() or x.tolist())")
        return str(self)


def is_tensor_like(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float))


class Tracer(Tensor):
    """A value seen by a transform: it knows its abstract value and the trace that owns it."""
    __slots__ = ("_trace",)

    def __init__(self, trace: "Trace"):
        self._trace = trace
        self._set_fields(None, None, None, True)

    @property
    def aval(self) -> ShapedArray:
        return self._alias.aval if self._alias is not None else self._own_aval

    @property
    def _own_aval(self) -> ShapedArray:
        raise NotImplementedError

    def full_lower(self):
        return self

    def snapshot(self):
        return self.resolve()

    def resolve(self):
        a = self
        while a._alias is not None:
            a = a._alias
        return a

    def _rebind(self, new) -> None:
        trace = self._trace
        if isinstance(new, Tensor):
            new = new.resolve()
        if not isinstance(new, Tracer) or new._trace.main.level < trace.main.level:
            new = trace.full_raise(new)  # a value from outside this transform: a constant of it
        if new._trace.main is trace.main and type(new) is type(self):
            self._alias = None
            trace.rebind(self, new)
        else:  # updated with a value of an inner transform: forward to it (see Tensor._rebind)
            self._alias = new

    def concrete_value(self) -> np.ndarray:
        if self._alias is not None:
            return self._alias.concrete_value()
        return self._own_concrete_value()

    def _own_concrete_value(self) -> np.ndarray:
        return self._trace.concretize(self)

    def __repr__(self):
        if self._alias is not None:
            return repr(self._alias)
        try:  # under grad/jvp outside jit the value is known: print it, as eager Paddle code expects
            v = self.concrete_value()
        except ConcretizationError:
            return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"
        return (f"Tensor(shape={list(v.shape)}, dtype={self.dtype.name}, place={self.place}, "
                f"traced by {self._trace.main.transform},\n       {format_values(np.asarray(v))})")

    __str__ = __repr__


# ----------------------------------------------------------------------------------------------- trace stack

class MainTrace:
    __slots__ = ("level", "trace_type", "global_data", "live", "created_at", "transform")

    def __init__(self, level, trace_type, global_data, transform):
        self.level = level
        self.trace_type = trace_type
        self.global_data = global_data
        self.live = True
        self.transform = transform
        self.created_at = None

    def __repr__(self):
        return f"MainTrace({self.level}, {self.trace_type.__name__})"


class Trace:
    def __init__(self, main: MainTrace):
        self.main = main

    def pure(self, val) -> Tracer:
        raise NotImplementedError

    def lift(self, val: Tracer) -> Tracer:
        return self.pure(val)

    def full_raise(self, val) -> Tracer:
        if not isinstance(val, Tracer):
            return self.pure(val)
        level = val._trace.main.level
        if val._trace.main is self.main:
            return val
        if level < self.main.level:
            return self.lift(val)
        raise EscapedTracerError(_escaped_message(val))

    def process_primitive(self, prim, tracers, params):
        raise NotImplementedError

    def rebind(self, tracer, new):
        """Point `tracer` at `new`'s value (both of this trace): copy every slot of the tracer's class."""
        for cls in type(new).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot == "__weakref__":
                    continue
                try:
                    setattr(tracer, slot, getattr(new, slot))
                except AttributeError:
                    pass

    def concretize(self, tracer):
        raise ConcretizationError(
            f"a value traced by {self.main.transform or type(self).__name__} has no concrete value here "
            f"(abstract value {tracer.aval.str_short()})")


@functools.lru_cache(maxsize=None)
def _library_frame(filename: str) -> bool:
    """Whether code in `filename` is paddle_fn's own (any mapped package, wherever installed) or contextlib's."""
    path = os.path.realpath(filename)
    return path.startswith(library_folders()) or os.path.basename(path) == "contextlib.py"


def user_frames(frame):
    """The frames of user code (outside paddle_fn) from `frame` outwards."""
    while frame is not None:
        if not _library_frame(frame.f_code.co_filename):
            yield frame
        frame = frame.f_back


def user_locations(frame, limit=3) -> tuple:
    """(filename, line, function) of the innermost user-code frames (outside paddle_fn), outermost first."""
    found = [(f.f_code.co_filename, f.f_lineno, f.f_code.co_name) for f in itertools.islice(user_frames(frame), limit)]
    return tuple(reversed(found))


def _format_locations(locations) -> str:
    if not locations:
        return "  (unknown)\n"
    return "".join(traceback.format_list(traceback.StackSummary.from_list(
        [(f, line, name, None) for f, line, name in locations])))


def _escaped_message(t: Tracer) -> str:
    m = t._trace.main
    where = _format_locations(m.created_at)
    return (f"a traced value ({t.aval.str_short()}) created by {m.transform or m.trace_type.__name__} was used after "
            f"that transform had finished (it escaped, e.g. through a global, a list or a closure). The transform "
            f"was entered at:\n{where}Return the value from the transformed function instead of storing it.")


class AxisFrameTrace(Trace):
    """The trace type of pmap's axis frame: a level on the interpreter stack that binds an axis name (its
    global_data holds `axis_name` and `axis_size`) but owns no tracers; collectives under it are staged.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.core.trace import AxisFrameTrace
        >>> AxisFrameTrace.__mro__[1].__name__
        'Trace'
    """

    def pure(self, val):
        raise AssertionError("pmap's axis frame owns no values")

    def process_primitive(self, prim, tracers, params):
        raise AssertionError("pmap's axis frame processes no primitives")


class EvalTrace(Trace):
    """The bottom of the stack: runs each primitive's numpy impl."""

    def pure(self, val):
        return val

    lift = pure

    def full_raise(self, val):
        return val

    def process_primitive(self, prim, tracers, params):
        return eval_primitive(prim, tracers, params)


def eval_primitive(prim, args, params) -> list | None:
    """Run `prim` on concrete values (Tensors, numpy arrays or Python scalars) and record it on the eager tape
    when an input needs a gradient. Returns None, running nothing, when an argument is traced or is a handle
    rebound to a traced value: `bind` then hands the primitive to the trace stack. One pass over the arguments both
    checks and gathers them: on small arrays a second loop would cost half as much as the numpy kernel."""
    needs_grad = False
    if prim.eager_call is not None:
        for x in args:
            if isinstance(x, Tensor) and (x._alias is not None or isinstance(x, Tracer)):
                return None
        outs = prim.eager_call(*[x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in args], **params)
        needs_grad = any(isinstance(x, Tensor) and not x.stop_gradient for x in args)
    else:
        values, avals = [], []
        for x in args:
            if isinstance(x, Tensor):
                if x._alias is not None:
                    return None
                v = x._value
                if v is None:
                    if isinstance(x, Tracer):
                        return None
                    v = x.concrete_value()
                values.append(v)
                a = x._aval
                avals.append(x.aval if a is None else a)
                if not x.stop_gradient:
                    needs_grad = True
            else:
                values.append(np.asarray(x))
                avals.append(get_aval(x))
        key = (prim, *avals) if not params else _memo_key(prim, avals, params)
        try:
            out_avals = None if key is None else _OUT_AVALS.get(key)
        except TypeError:  # a tuple param holding something unhashable (an array)
            key = out_avals = None
        if out_avals is None:
            out_avals = prim.abstract_eval_list(avals, params)
            if key is not None:
                if len(_OUT_AVALS) >= _OUT_AVALS_LIMIT:
                    _OUT_AVALS.clear()
                _OUT_AVALS[key] = out_avals
        out = prim.impl(*values, **params)
        if config.global_checks.eager_nan:
            _check_finite(prim, values, out if prim.multiple_results else [out])
        if prim.multiple_results:
            outs = [_result(o, a) for o, a in zip(out, out_avals)]
        else:
            outs = [_result(out, out_avals[0])]
    if needs_grad and grad_mode.recording:
        grad_mode.recorder(prim, params, args, outs)
    return outs


def _check_finite(prim, values, outs) -> None:
    """Eager checked mode ("nan" in config.checks, FLAGS_check_nan_inf): raise when an op's real floating-point
    result holds NaN or Inf although its floating-point inputs were finite (Paddle's dygraph raises on the first
    such op; a value that was already NaN or Inf is reported where it was made, not at each op it flows through)."""
    for out in outs:
        out = np.asarray(out)
        if out.dtype.kind != "f" or np.isfinite(out).all():
            continue
        if any(np.asarray(v).dtype.kind == "f" and not np.isfinite(v).all() for v in values):
            return
        where = user_locations(sys._getframe(1), limit=1)
        where = where[0] if where else None
        raise CheckError(
            f"{prim.name} produced NaN or Inf (num_nan={int(np.isnan(out).sum())}, num_inf={int(np.isinf(out).sum())}"
            f" of {out.size}) from finite inputs, at {format_source(where)} (FLAGS_check_nan_inf or "
            "\"nan\" in paddle_fn.config.checks is on)")


# Shape rules memoized by (primitive, input avals, params): eager code asks the same question on every step, and a
# rule that checks its operands costs more than the numpy kernel on small arrays. A rule that raises is asked again
# next time, so errors are unchanged.
_OUT_AVALS: dict = {}
_OUT_AVALS_LIMIT = 8192  # distinct signatures remembered; then the memo starts afresh
# Param types a key may hold: plain data (tuple subclasses and frozen value-comparing dataclasses, such as
# dimension-number records, join on first use). A function or Program param is left out: the memo would keep it,
# and what it closes over, alive.
_DATA_PARAM_TYPES = {int, float, bool, str, type(None), tuple, dtypes.DType}


def _is_record_type(t) -> bool:
    """A tuple subclass or a frozen dataclass compared by value: hashable data when its fields are."""
    if issubclass(t, tuple):
        return True
    params = getattr(t, "__dataclass_params__", None)
    return params is not None and params.frozen and params.eq


def _memo_key(prim, avals, params):
    """The `_OUT_AVALS` key of a primitive with params (without, it is ``(prim, *avals)``): the primitive, the avals,
    and the params with their types (1, 1.0 and True are equal otherwise); None when a param is not plain data."""
    types = tuple(map(type, params.values()))
    if not _DATA_PARAM_TYPES.issuperset(types):
        for t in types:
            if t not in _DATA_PARAM_TYPES:
                if not _is_record_type(t):
                    return None
                _DATA_PARAM_TYPES.add(t)
    return (prim, *avals, *params.items(), *types)


def _result(x, aval) -> Tensor:
    """A Tensor holding what an impl returned, in the dtype the shape rule promised. Impls return a new array or
    a view of their (read-only) inputs, so it is frozen in place, not copied as Tensor() copies a user's view."""
    a = x if type(x) is np.ndarray else np.asarray(x)
    dt = aval.dtype.np
    if a.dtype is not dt and a.dtype != dt:
        a = a.astype(dt)
    if a.shape != aval.shape:
        raise AssertionError(f"impl produced shape {a.shape}, shape rule says {aval.shape}")
    a.setflags(False)  # positional: numpy's keyword parsing would double the cost of this call
    t = Tensor.__new__(Tensor)  # Tensor._make, without a call: this runs once per eager op
    t._set_fields(a, None, aval, True)
    return t


def adopt(array: np.ndarray) -> Tensor:
    """A Tensor holding `array`, a fresh array nothing else refers to, without the copy `Tensor(array)` makes so
    that a caller's array stays theirs and writeable."""
    return _result(array, _shaped_array(array.shape, array.dtype))


def concrete_full(shape: tuple, value: np.ndarray) -> Tensor:
    """A concrete Tensor of `shape` holding `value` (a 0-d array) everywhere: what evaluating the broadcast
    primitive on it gives, without the dispatch (on small arrays that costs more than the op it feeds)."""
    return _result(np.full(shape, value), _shaped_array(shape, value.dtype))


def untraced_value(x) -> np.ndarray | None:
    """The numpy value of `x` when an op on it now would only be evaluated: an eager Tensor (not traced, not rebound
    to a traced value), outside jit, through which no gradient is recorded; None otherwise. An op may then compute
    its result with numpy directly, as its primitives' impls would, without their dispatch."""
    if type(x) is not Tensor or x._alias is not None or _state.dynamic[-1].level != 0:
        return None
    if not x.stop_gradient and grad_mode.recording:
        return None
    return x._value if x._value is not None else x.concrete_value()


class _GradMode(threading.local):
    """Whether eager ops on Tensors with stop_gradient=False are recorded for backward (paddle.no_grad turns it
    off), and the recorder that does it (installed by paddle_fn.core.tape)."""
    recorder = None

    def __init__(self):
        self.enabled = True

    @property
    def recording(self) -> bool:
        """Whether an op on an input that needs a gradient is recorded now."""
        return self.enabled and self.recorder is not None


grad_mode = _GradMode()


class _TraceState(threading.local):
    """The interpreter stack, one per thread (a transform running in one thread never sees another's tracers)."""

    def __init__(self):
        self.stack: list[MainTrace] = [MainTrace(0, EvalTrace, None, "eager")]
        self.dynamic: list[MainTrace] = [self.stack[0]]


_state = _TraceState()


@contextlib.contextmanager
def new_main(trace_type, global_data=None, *, transform: str | None = None, dynamic: bool = False):
    """Push a new level for a transform; on exit it is popped and marked dead (escape detection)."""
    state = _state
    main = MainTrace(len(state.stack), trace_type, global_data, transform)
    main.created_at = user_locations(sys._getframe(2))  # formatted only if a tracer escapes
    state.stack.append(main)
    if dynamic:
        state.dynamic.append(main)
    try:
        yield main
    finally:
        if dynamic:
            state.dynamic.pop()
        state.stack.pop()
        main.live = False


def current_dynamic_main() -> MainTrace:
    return _state.dynamic[-1]


def live_mains() -> list:
    """The interpreter stack of this thread, outermost first (the eager level included)."""
    return list(_state.stack)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """Inside, operations on concrete Tensors run eagerly even while a function is being compiled (``jit``
    stages every operation otherwise); operations on traced values are still traced. For state created once,
    the first time a compiled function runs (an optimizer's accumulators), which must be concrete.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.jit
        ... def f(x):
        ...     with paddle.ensure_compile_time_eval():
        ...         print(paddle.ones([2]) * 3.0)
        ...     return x
        >>> _ = f(paddle.zeros([1]))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3., 3.])
    """
    _state.dynamic.append(_state.stack[0])
    try:
        yield
    finally:
        _state.dynamic.pop()


def find_top_trace(xs) -> Trace:
    top = _state.dynamic[-1]
    for x in xs:
        if isinstance(x, Tracer):
            m = x._trace.main
            if not m.live:
                raise EscapedTracerError(_escaped_message(x))
            if m.level > top.level:
                top = m
    return top.trace_type(top)


def full_lower(x):
    return x.full_lower() if isinstance(x, Tracer) else x


def bind(prim, *args, **params):
    if _state.dynamic[-1].level == 0:
        # eager, unless an argument is traced: evaluate directly, without the trace-stack machinery
        outs = eval_primitive(prim, args, params)
        if outs is not None:
            return outs if prim.multiple_results else outs[0]
    args = [a.resolve() if isinstance(a, Tensor) and a._alias is not None else a for a in args]
    trace = find_top_trace(args)
    tracers = [trace.full_raise(a) for a in args]
    outs = trace.process_primitive(prim, tracers, params)
    outs = [full_lower(o) for o in outs]
    return outs if prim.multiple_results else outs[0]


def get_aval(x) -> ShapedArray:
    if isinstance(x, Tensor):
        a = x._aval  # set on concrete Tensors once known; a Tracer's comes from its trace (the property)
        return a if a is not None and x._alias is None else x.aval
    if isinstance(x, (bool, int, float)):
        return ShapedArray((), dtypes.dtype_of_scalar(x))
    a = np.asarray(x)
    return ShapedArray(a.shape, dtypes.as_dtype(a.dtype))


def is_concrete(x) -> bool:
    """True if `x` has a value now (eagerly, or under a transform that keeps concrete primals such as grad)."""
    if not isinstance(x, Tracer):
        return True
    try:
        x.concrete_value()
        return True
    except ConcretizationError:
        return False


def concrete_or_error(x, what: str, fix: str) -> Any:
    try:
        return np.asarray(x.concrete_value() if isinstance(x, Tensor) else x)
    except ConcretizationError as e:
        raise ConcretizationError(f"{what} must be a concrete value, but it is traced ({e}). {fix}") from None
