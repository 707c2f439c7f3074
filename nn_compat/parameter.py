"""`Parameter` (Paddle's ``EagerParamBase``) and `paddle.create_parameter`.

A Parameter *is* a Tensor (a subclass), so it passes through every op, transform and ``isinstance(p,
paddle.Tensor)`` check unchanged; the subclass only adds Paddle's parameter attributes. Like every Tensor it is
an immutable value behind a handle: ``p.set_value(v)``, in-place ops and optimizers rebind the handle
(``paddle.assign(value, output=p)``), so everyone holding ``p`` (a Layer, an optimizer, a state_dict) sees the update.
"""
from __future__ import annotations

import copy

import numpy as np

import paddle_fn
from paddle_fn import Tensor
from paddle_fn.nn_compat import unique_name
from paddle_fn.nn_compat.initializer import Constant, Initializer, XavierUniform
from paddle_fn.nn_compat.initializer.initializer import _global_bias_initializer, _global_weight_initializer
from paddle_fn.base.param_attr import ParamAttr
from paddle_fn.nn_compat.initializer.lazy_init import lazy_init_enabled

__all__ = ["Parameter", "create_parameter"]


# ----------------------------------------------------------------------------------------------- handle helpers

def _as_dtype(d) -> paddle_fn.DType:
    """A paddle_fn DType from a DType, a name ('float32', 'paddle.float32') or a numpy dtype."""
    if isinstance(d, paddle_fn.DType):
        return d
    if isinstance(d, str):
        name = d[len("paddle."):] if d.startswith("paddle.") else d
    else:
        name = np.dtype(d).name
    name = {"bool_": "bool", "float": "float64", "int": "int64", "double": "float64", "half": "float16"}.get(
        name, name)
    out = getattr(paddle_fn, name, None)
    if not isinstance(out, paddle_fn.DType):
        raise TypeError(f"unknown dtype {d!r}; use one of 'float16', 'bfloat16', 'float32', 'float64', 'int8', "
                        "'int16', 'int32', 'int64', 'uint8', 'bool'")
    return out


def _placeholder(shape, dtype) -> np.ndarray:
    """A read-only array of `shape` that takes no memory (a broadcast zero): the initial value of a handle that
    is immediately rebound to another value."""
    return np.broadcast_to(np.zeros((), _as_dtype(dtype).np), tuple(shape))


def _rebind(handle: Tensor, value: Tensor) -> None:
    """Make `handle` refer to `value` (any shape and dtype; a traced value makes the handle forward to it).
    This is the mechanism behind every in-place method (see paddle_fn.tensor.inplace)."""
    paddle_fn.assign(value, output=handle)


def _untracked(t: Tensor) -> Tensor:
    """A new handle on `t`'s current value with stop_gradient=True: ops on it are not recorded by the eager tape,
    so the result can be rebound onto a trainable leaf (a dtype or device conversion of a parameter is not part
    of any gradient, as in Paddle, which converts under no_grad)."""
    v = t.snapshot()
    v.stop_gradient = True
    return v


def _new_handle(cls, value: Tensor):
    """A new `cls` handle (Tensor or a subclass, __init__ not run) on `value`, sharing it (nothing is copied; a
    traced value is forwarded to)."""
    t = cls.__new__(cls)
    Tensor.__init__(t, _placeholder(value.shape, value.dtype), stop_gradient=True)
    _rebind(t, value)
    return t


def _is_traced(t) -> bool:
    """True when the Tensor handle `t` currently refers to a value traced by a transform (a Tracer)."""
    if not isinstance(t, Tensor):
        return False
    r = t.resolve()
    return isinstance(r, paddle_fn.Tracer)


def _to_value(value, what: str) -> Tensor:
    """A Tensor from a Tensor, numpy array, scalar or nested list (numpy values keep their dtype)."""
    if isinstance(value, Tensor):
        return value
    try:
        return paddle_fn.to_tensor(np.asarray(value))
    except Exception as e:  # noqa: BLE001 - any conversion failure gets the same clear message
        raise TypeError(f"{what}: expected a Tensor or an array-like value, got {type(value).__name__}") from e


# ----------------------------------------------------------------------------------------------- Parameter

def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                                                for d in x)


class Parameter(Tensor):
    """A trainable Tensor owned by a Layer (Paddle's ``EagerParamBase``; ``paddle.nn.Parameter`` here).

    ``Parameter(shape, dtype, **kwargs)`` makes a zero-filled parameter, as Paddle's constructor (Layers use
    `Layer.create_parameter`, which also initializes it); ``Parameter(value, **kwargs)`` or
    ``Parameter.from_tensor(value, **kwargs)`` wraps an existing value (a Tensor or an array; nothing is copied).

    Args:
        shape (list|tuple|Tensor|numpy.ndarray): the shape (a list of ints), or the initial value.
        dtype (str|paddle.dtype, optional): the dtype (default: float32, or the value's dtype).
        name (str, optional): Paddle-style name; default a unique ``_eager_param_base_<n>``.
        trainable (bool, optional): False freezes it (``stop_gradient=True``). Default: True.
        optimize_attr (dict, optional): ``{'learning_rate': 1.0}`` by default; multiplies the optimizer's rate.
        regularizer (optional): a weight-decay regularizer overriding the optimizer's. Default: None.
        do_model_average (bool, optional): for ModelAverage. Default: None.
        need_clip (bool, optional): whether gradient clipping applies. Default: True.
        is_distributed (bool, optional): Default: False.

    Attributes: ``trainable`` (read/write, the negation of ``stop_gradient``), ``persistable`` (True: saved in a
    state_dict), ``is_leaf`` (True), ``name``, ``optimize_attr``, ``regularizer``, ``need_clip``.

    Example:
        >>> import paddle_fn as paddle
        >>> p = paddle.nn.Parameter(paddle.to_tensor([1.0, 2.0]), name="w")
        >>> p
        Parameter containing:
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,
               [1., 2.])
        >>> isinstance(p, paddle.Tensor), p.trainable, p.persistable, (p * 2).numpy()
        (True, True, True, array([2., 4.], dtype=float32))
        >>> p.set_value([5.0, 6.0]); p.numpy()      # rebinds the handle; p stays a Parameter
        array([5., 6.], dtype=float32)
        >>> p.trainable = False; p.stop_gradient
        True
    """

    __slots__ = ("optimize_attr", "regularizer", "need_clip", "do_model_average", "is_distributed",
                 "__dict__")

    def __init__(self, shape, dtype=None, *, name=None, trainable=True, optimize_attr=None, regularizer=None,
                 do_model_average=None, need_clip=True, is_distributed=False, **kwargs):
        if _is_shape(shape) and not isinstance(shape, Tensor):
            if any(int(d) < 0 for d in shape):
                raise ValueError(f"Parameter: every dimension of shape must be >= 0, got {list(shape)}")
            dt = _as_dtype(dtype if dtype is not None else "float32")
            Tensor.__init__(self, np.zeros([int(d) for d in shape], dt.np))
        elif isinstance(shape, Tensor):
            value = shape if dtype is None or shape.dtype == dtype else shape.astype(_as_dtype(dtype))
            Tensor.__init__(self, _placeholder(value.shape, value.dtype))
            _rebind(self, value)
        else:
            arr = np.asarray(shape) if dtype is None else np.asarray(shape, dtype=_as_dtype(dtype).np)
            if arr.dtype == np.float64 and dtype is None and not isinstance(shape, np.ndarray):
                arr = arr.astype(_as_dtype(paddle_fn.get_default_dtype()).np)
            Tensor.__init__(self, arr)
        if not isinstance(trainable, bool):
            raise TypeError(f"Parameter: trainable must be a bool, got {trainable!r}")
        self.stop_gradient = not trainable
        self.name = name if name is not None else unique_name.generate("_eager_param_base")
        self.optimize_attr = dict(optimize_attr) if optimize_attr is not None else {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.do_model_average = do_model_average
        self.need_clip = need_clip
        self.is_distributed = is_distributed
        self.persistable = True
        for k, v in kwargs.items():  # Paddle accepts (and keeps) further attributes
            setattr(self, k, v)

    def initialize(self):
        """Fill a parameter created under `paddle.LazyGuard` with its initializer's values (once).

        Example:
            >>> import paddle_fn as paddle
            >>> with paddle.LazyGuard():
            ...     w = paddle.create_parameter([2], 'float32',
            ...                                 default_initializer=paddle.nn.initializer.Constant(3.0))
            >>> w.initialize()
            >>> w.tolist()
            [3.0, 3.0]
        """
        init = getattr(self, "_lazy_initializer", None)
        if init is None:
            raise RuntimeError(f"Parameter {self.name}.initialize(): only a parameter created under paddle.LazyGuard "
                               "waits for initialize(), and only once; this one already holds its values")
        self._lazy_initializer = None
        init(self)

    @classmethod
    def from_tensor(cls, tensor, **kwargs) -> "Parameter":
        """A Parameter holding `tensor`'s value (shared, not copied); `kwargs` as for the constructor.

        Example:
            >>> import paddle_fn as paddle
            >>> p = paddle.nn.Parameter.from_tensor(paddle.ones([2]), trainable=False)
            >>> p.stop_gradient, p.numpy()
            (True, array([1., 1.], dtype=float32))
        """
        return cls(_to_value(tensor, "Parameter.from_tensor"), **kwargs)

    @property
    def trainable(self) -> bool:
        """Whether the parameter is updated by training: ``not stop_gradient`` (setting it sets stop_gradient)."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, trainable):
        if not isinstance(trainable, bool):
            raise ValueError(f"The type of trainable MUST be bool, but the type is {type(trainable).__name__}")
        self.stop_gradient = not trainable

    @property
    def is_leaf(self) -> bool:
        """Always True: a parameter is created by the user, not computed by an op."""
        return True

    def _attributes(self) -> dict:
        return {"name": self.name, "trainable": self.trainable, "optimize_attr": dict(self.optimize_attr),
                "regularizer": self.regularizer, "do_model_average": self.do_model_average,
                "need_clip": self.need_clip, "is_distributed": self.is_distributed, **self.__dict__}

    def _new_like(self, value) -> "Parameter":
        """A Parameter with this one's attributes (name included, as Paddle's deepcopy) holding `value`."""
        p = _new_handle(type(self), value)
        p.stop_gradient = self.stop_gradient
        p.name = self.name
        p.optimize_attr = dict(self.optimize_attr)
        p.regularizer, p.do_model_average, p.need_clip = self.regularizer, self.do_model_average, self.need_clip
        p.is_distributed, p.persistable = self.is_distributed, self.persistable
        p.__dict__.update(self.__dict__)
        return p

    def __deepcopy__(self, memo):
        # values are immutable: the copy is a new handle on the same value; Paddle names it
        # '<name>_deepcopy_<n>' so two copies never share a name
        new = self._new_like(self.snapshot())
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        new.name = self.name + unique_name.generate("_deepcopy")
        memo[id(self)] = new
        return new

    def __copy__(self):
        return self._new_like(self.snapshot())

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (np.asarray(self.numpy()), self._attributes()))

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


def _rebuild_parameter(array, attributes):
    return Parameter(np.asarray(array), **attributes)


# ----------------------------------------------------------------------------------------------- create_parameter

def _make_parameter(shape, dtype, attr, is_bias, default_initializer, prefix, what):
    """The one path by which Layers (and paddle.create_parameter) create parameters. Returns None for attr=False."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError(f"{what}: attr must be one ParamAttr, got a list")
    attr = copy.copy(attr)  # never write the generated name into the caller's ParamAttr
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, np.ndarray):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [int(shape)]
    if not _is_shape(shape):
        raise TypeError(f"{what}: shape must be a list of ints, got {shape!r}")
    shape = [int(d) for d in shape]
    for i, d in enumerate(shape):
        if d < 0:
            raise ValueError(f"{what}: expected every dim's size to be larger than or equal to 0, but the size of "
                             f"the {i}-th dim is {d} (shape {shape})")
    dt = _as_dtype(dtype if dtype is not None else "float32")
    init = attr.initializer
    if init is None:
        init = _global_bias_initializer() if is_bias else _global_weight_initializer()
    if init is None:
        init = default_initializer
    if init is None:
        # Paddle's defaults: XavierUniform for floating-point weights, zeros for biases and integer parameters
        init = Constant(0.0) if is_bias or not dt.is_floating_point else XavierUniform()
    if not isinstance(init, Initializer):
        raise TypeError(f"{what}: the initializer must be a paddle.nn.initializer instance (e.g. "
                        f"paddle.nn.initializer.Normal()), got {init!r}")
    lazy = lazy_init_enabled()
    # under LazyGuard: a broadcast zero of the shape (no memory per element) until initialize() runs `init`
    value = np.broadcast_to(np.zeros((), dt.np), shape) if lazy else init._value(shape, dt)
    name = attr.name if attr.name is not None else unique_name.generate(f"{prefix}.{'b' if is_bias else 'w'}")
    param = Parameter(value, name=name, trainable=attr.trainable, optimize_attr={"learning_rate": attr.learning_rate},
                      regularizer=attr.regularizer, do_model_average=attr.do_model_average, need_clip=attr.need_clip)
    param._lazy_initializer = init if lazy else None
    return param


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """Create an initialized `Parameter` outside a Layer (``paddle.create_parameter``).

    Args:
        shape (list|tuple): the shape, positive ints.
        dtype (str|paddle.dtype): the dtype, e.g. 'float32'.
        name (str, optional): the parameter's name (overrides ``attr.name``). Default: a unique name.
        attr (ParamAttr, optional): name, initializer, learning rate, regularizer, trainable, need_clip.
        is_bias (bool, optional): whether it is a bias (default initializer Constant(0) instead of XavierUniform).
        default_initializer (Initializer, optional): used when neither `attr` nor `set_global_initializer`
            gives one.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.create_parameter([2, 3], 'float32',
        ...                                default_initializer=paddle.nn.initializer.Constant(2.0))
        >>> w.shape, w.trainable, float(w.sum())
        (paddle.Size([2, 3]), True, 12.0)
    """
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        raise ValueError("create_parameter: attr=False creates no parameter")
    if name is not None:
        attr = copy.copy(attr)
        attr.name = name
    return _make_parameter(shape, dtype, attr, is_bias, default_initializer, unique_name.generate("create_parameter"),
                           "create_parameter")
