"""``paddle.jit.to_static``: run a function, a Layer or a Layer method compiled, as Paddle's dynamic-to-static.

A function is compiled with ``paddle.jit``: traced once per input signature into one IREE executable. A Layer
method is compiled as a pure function of the layer's parameters and buffers (``paddle.nn.functional_call``):
they are arguments of the compiled program, not constants, so an optimizer updating them does not recompile, and
the compiled call is one primitive that the eager tape differentiates, so ``loss.backward()`` gives the same
``.grad`` as the eager layer. Buffers forward updates (BatchNorm statistics) are outputs written back after the
call. The cache key is what the program depends on: the shapes and dtypes of the Tensor inputs, the values of the
other (Python) inputs, the names and shapes of the layer's state, and the train/eval mode of every sublayer.

As Paddle, the source of the function (and of the user functions it calls) is rewritten first
(`paddle_fn.nn_compat.jit.dy2static`): ``if``/``while``/``for``/``break``/``continue``/``return``/``and``/``or``/
``not`` on a traced Tensor become ``paddle.cond`` / ``paddle.while_loop`` / logical ops, and ``print`` of a Tensor
prints its value after each call (the printed Tensors are extra outputs of the program). Python control flow on
Python values still runs (unrolled) while tracing. What the converter leaves as Python (a ``return`` inside a loop,
``for ... else``, code whose source cannot be read) runs that function eagerly instead, with a warning, as
Paddle 3's default (``full_graph=False``, its graph-break fallback) does; with ``full_graph=True`` it raises
``paddle_fn.ConcretizationError`` on a Tensor condition.

Paddle's global random draws (``paddle.seed``: Dropout in train mode, ``paddle.rand``) work inside: the global
generator's state is an input of the program, split there as eager code splits it, and the generator advances
after the call (`paddle_fn.random.traced_global_key`), so every call draws fresh numbers, the same as eager code
after the same ``paddle.seed``.
"""
from __future__ import annotations

import functools
import inspect
import threading
import types
import warnings
import weakref

import numpy as np

import paddle_fn
from paddle_fn import ConcretizationError, Tensor
from paddle_fn import random as _random
from paddle_fn.core.trace import current_dynamic_main
from paddle_fn.nn_compat.bridge import functional_call, update_state
from paddle_fn.nn_compat.jit.dy2static import convert_operators, program_translator
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.parameter import _as_dtype, _is_traced
from paddle_fn.static import InputSpec

__all__ = ["StaticFunction", "enable_to_static", "ignore_module", "not_to_static", "to_static"]

_NOT_TO_STATIC = program_translator._NOT_TO_STATIC


class _Switch(threading.local):
    def __init__(self):
        self.enabled = True
        self.running_raw = set()  # ids of bound StaticFunctions being traced right now (run them as Python)


_switch = _Switch()


def enable_to_static(enable_to_static_bool):
    """Turn `to_static` on or off everywhere: when off, decorated functions and Layers run eagerly as plain
    Python (for debugging with prints and breakpoints). Default: on.

    Args:
        enable_to_static_bool (bool): True to compile, False to run eagerly.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.jit.to_static
        ... def f(x):
        ...     return x * 2.0
        >>> paddle.jit.enable_to_static(False)
        >>> f(paddle.to_tensor([1.0])).numpy()  # eager now
        array([2.], dtype=float32)
        >>> paddle.jit.enable_to_static(True)
    """
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(f"The type of 'enable_to_static_bool' must be bool, but received "
                        f"{type(enable_to_static_bool).__name__}.")
    _switch.enabled = enable_to_static_bool


def not_to_static(func=None):
    """Mark `func` not to be converted: `to_static` returns it as it is, and called from a converted function
    it is traced as written (its Python ``if``/``while`` are not rewritten into ``cond``/``while_loop``).

    Args:
        func (callable, optional): the function; without it, returns the decorator.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.jit.not_to_static
        ... def helper(x):
        ...     return x + 1.0
        >>> paddle.jit.to_static(helper) is helper
        True
    """
    if func is None:
        return not_to_static
    try:
        setattr(func, _NOT_TO_STATIC, True)
    except AttributeError:
        raise TypeError(f"not_to_static: cannot mark {type(func).__name__} objects; give a Python function") from None
    return func


def ignore_module(modules):
    """Do not convert the functions of these modules when a converted function calls them (they are traced as
    written). paddle_fn, numpy and the standard library are never converted.

    Args:
        modules (list[module]): the modules.

    Example:
        >>> import math
        >>> import paddle_fn as paddle
        >>> paddle.jit.ignore_module([math])
    """
    if not isinstance(modules, (list, tuple)) or not all(isinstance(m, types.ModuleType) for m in modules):
        raise TypeError(f"ignore_module: expected a list of modules, got {modules!r}")
    program_translator._ignored_modules.update(modules)


# ----------------------------------------------------------------------------------------------- inputs

def _is_tensor_leaf(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray))


def _split_inputs(args, kwargs):
    """Tensor leaves (traced) and everything else (Python values, part of the cache key)."""
    leaves, treedef = paddle_fn.tree_flatten((tuple(args), dict(kwargs)))
    dynamic = [x for x in leaves if _is_tensor_leaf(x)]
    static = []
    for x in leaves:
        if _is_tensor_leaf(x):
            static.append(None)
            continue
        try:
            hash(x)
        except TypeError:
            raise TypeError(f"to_static: a non-Tensor input of type {type(x).__name__} is not hashable; non-Tensor "
                            "inputs are compile-time constants (one program per value), so pass a Tensor or a "
                            "hashable value (a tuple instead of a list)") from None
        static.append(("value", x))
    return dynamic, (treedef, tuple(static))


def _join_inputs(dynamic, static_key):
    treedef, static = static_key
    it = iter(dynamic)
    leaves = [next(it) if s is None else s[1] for s in static]
    args, kwargs = paddle_fn.tree_unflatten(treedef, leaves)
    return args, kwargs


def _spec_leaves(input_spec):
    leaves, _ = paddle_fn.tree_flatten(list(input_spec))
    return [s for s in leaves if isinstance(s, (InputSpec, Tensor))]


def check_inputs(name, input_spec, args):
    """Raise if the Tensor arguments do not fit `input_spec` (rank, fixed dims, dtype)."""
    if input_spec is None:
        return
    specs = _spec_leaves(input_spec)
    given = [x for x in paddle_fn.tree_flatten(list(args))[0] if _is_tensor_leaf(x)]
    for i, (spec, x) in enumerate(zip(specs, given)):
        shape = tuple(spec.shape)
        got = tuple(x.shape)
        dtype = _as_dtype(x.dtype)
        fits = len(shape) == len(got) and all(s in (-1, g) for s, g in zip(shape, got))
        if not fits or _as_dtype(spec.dtype) != dtype:
            raise ValueError(f"to_static({name}): input {i} has shape {list(got)} and dtype {dtype.name}, which does "
                             f"not match input_spec[{i}] = {spec!r} (-1 matches any size); pass inputs of the "
                             "declared shape and dtype or change the input_spec")


def _check_options(build_strategy, backend, kwargs):
    if build_strategy is not None:
        raise NotImplementedError("to_static(build_strategy=...): Paddle's BuildStrategy (graph passes of its static "
                                  "executor) has no counterpart; paddle_fn compiles the whole function with IREE")
    if backend not in (None, "CINN", "iree"):
        raise ValueError(f"to_static(backend={backend!r}): the compiler is IREE; backend may be None, 'CINN' (Paddle's "
                         "default name for its compiler) or 'iree', all meaning the same")
    unknown = sorted(set(kwargs) - {"full_graph", "property"})
    if unknown:
        raise TypeError(f"to_static() got unexpected keyword argument(s) {unknown}")
    if kwargs.get("property", False):
        raise NotImplementedError("to_static(property=True): compiling a property getter is not supported; call a "
                                  "method instead")
    full_graph = kwargs.get("full_graph", False)
    if not isinstance(full_graph, bool):
        raise TypeError(f"to_static(full_graph=...) must be a bool, got {full_graph!r}")
    return full_graph


def _avals(tensors):
    return tuple((tuple(x.shape), str(x.dtype)) for x in tensors)


# ----------------------------------------------------------------------------------------------- StaticFunction

class _MethodCall(Layer):
    """The layer whose method is compiled, as the one sublayer of a hook-free Layer that calls the method: so
    `functional_call` swaps the layer's state and runs the method without running its forward hooks again (they
    ran around the compiled call, as in Paddle)."""

    def __init__(self, layer, function):
        super().__init__(name_scope="to_static_call")
        self.inner = layer
        object.__setattr__(self, "_function", function)

    def forward(self, *args, **kwargs):
        return self._function(self.inner, *args, **kwargs)


class StaticFunction:
    """A function or Layer method converted by `to_static` (Paddle's ``StaticFunction``): call it like the
    original. ``.dygraph_function`` is the original Python function; ``.rollback()`` on a Layer's converted
    forward puts the eager forward back."""

    def __init__(self, function, input_spec=None, full_graph=False, instance=None):
        functools.update_wrapper(self, function)
        self._function = function
        self._input_spec = None if input_spec is None else list(input_spec)
        self._full_graph = full_graph
        self._instance = None if instance is None else weakref.ref(instance)
        self._bound = weakref.WeakKeyDictionary()
        self._jitted = None
        self._traced = []
        self._warned = False
        self._warned_side_effect = False
        self._prints = {}  # program signature -> what its print() calls print after each call
        self._draws = {}  # program signature -> how many global random draws one call of it makes
        self._last_call = None
        self.last_input_spec = None  # InputSpecs of the last call's arguments: what jit.save uses without input_spec
        self._name = getattr(function, "__name__", type(function).__name__)

    @property
    def dygraph_function(self):
        """The original (eager) Python function."""
        return self._function

    @property
    def input_spec(self):
        """The `input_spec` given to `to_static` (None if none)."""
        return self._input_spec

    @property
    def code(self):
        """The converted source of the function (Paddle's ``StaticFunction.code``): what runs when it is traced.

        Example:
            >>> import paddle_fn as paddle
            >>> @paddle.jit.to_static
            ... def relu_or_zero(x):
            ...     if x.sum() > 0:
            ...         x = paddle.nn.functional.relu(x)
            ...     return x
            >>> print(relu_or_zero.code)
            def relu_or_zero(x):
            <BLANKLINE>
                def __jst_fn_true_0(x):
                    x = _jst.convert_call(paddle.nn.functional.relu)(x)
                    return (x,)
            <BLANKLINE>
                def __jst_fn_false_0(x):
                    return (x,)
                x, = _jst.convert_ifelse(_jst.convert_call(x.sum)() > 0, __jst_fn_true_0, __jst_fn_false_0, (x,), ('x',))
                return x
        """
        return program_translator.converted_source(self._function)

    @property
    def concrete_program(self):
        """The traced program of the last call (a ``paddle_fn`` Program: print it to see its equations, e.g. the
        ``cond`` / ``while`` that converted control flow became). None before the first call."""
        if self._last_call is None:
            return None
        args, static = self._last_call
        return self._jitted.lower(*args, static).program

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        bound = self._bound.get(instance)
        if bound is None:
            bound = self._bound[instance] = StaticFunction(self._function, self._input_spec, self._full_graph,
                                                           instance)
        return bound

    def __deepcopy__(self, memo):
        # A copied Layer (paddle.nn.split, copy.deepcopy) gets a converted method bound to the copy.
        instance = self.instance
        return StaticFunction(self._function, self._input_spec, self._full_graph,
                              memo.get(id(instance), instance) if instance is not None else None)

    @property
    def instance(self):
        """The object this method is bound to (None for a plain function)."""
        return None if self._instance is None else self._instance()

    def __repr__(self):
        return f"<StaticFunction {self._name}>"

    def rollback(self):
        """Stop compiling: return the eager function (and, for a Layer whose forward was converted by
        ``to_static(layer)``, restore its eager forward).

        Example:
            >>> import paddle_fn as paddle
            >>> net = paddle.jit.to_static(paddle.nn.Linear(2, 2))
            >>> eager_forward = net.forward.rollback()
            >>> isinstance(net.forward, paddle.jit.StaticFunction)
            False
        """
        instance = self.instance
        if instance is not None and instance.__dict__.get("forward") is self:
            del instance.__dict__["forward"]
            return instance.forward
        return self._function if instance is None else types.MethodType(self._function, instance)

    # -- calling
    def _eager(self, instance, args, kwargs):
        return self._function(*args, **kwargs) if instance is None else self._function(instance, *args, **kwargs)

    def _converted(self):
        return program_translator.convert_function(self._function)

    def _python_state(self):
        """(name, kind, value) of the globals the function reads and of its closure variables, Tensors left out
        (their in-place updates are part of the program): what a Python side effect while tracing rebinds."""
        function = inspect.unwrap(self._function)
        code, state = getattr(function, "__code__", None), []
        if code is None:
            return state
        names = getattr(function, "__globals__", {})
        state += [(name, "global", names[name]) for name in code.co_names if name in names]
        for name, cell in zip(code.co_freevars, function.__closure__ or ()):
            try:
                state.append((name, "closure variable", cell.cell_contents))
            except ValueError:  # an empty cell: the variable is assigned later
                pass
        return [(name, kind, value) for name, kind, value in state if not isinstance(value, Tensor)]

    def _warn_side_effects(self, before):
        """Warn once when tracing rebound a global or closure variable (``count += 1``): Python code runs while a
        signature is traced, not on each call of the compiled program, so the change will not repeat."""
        if self._warned_side_effect:
            return
        now = {(name, kind): value for name, kind, value in self._python_state()}
        changed = [f"{kind} '{name}'" for name, kind, value in before if now.get((name, kind), value) is not value]
        if changed:
            self._warned_side_effect = True
            warnings.warn(f"paddle.jit.to_static({self._name}): tracing changed the Python {', '.join(changed)}. "
                          "Python code in a to_static function runs when an input signature is first traced, not on "
                          "every call, so this change will not happen again on later calls (Paddle's dygraph would "
                          "repeat it). Keep such state in a Tensor updated in place, or return it from the "
                          "function.", stacklevel=4)

    def _traced_body(self, signature, run):
        """Run `run()` as the body of the program with signature `signature`: the Tensors given to print() become
        outputs after the result (printed by `_finish` after each call)."""
        before = self._python_state()
        with convert_operators.collect_prints(current_dynamic_main().level) as collector:
            out = run()
        self._warn_side_effects(before)
        self._prints[signature] = collector.entries
        for leaf in paddle_fn.tree_flatten(out)[0]:
            if isinstance(leaf, convert_operators.UndefinedVar):
                leaf.raise_error()  # returning a variable that has no value: the NameError that says why
        return out, tuple(collector.tensors)

    def _with_key(self, signature, key, run):
        """Run `run()` with the global random draws splitting `key`, the generator's state as a program input."""
        with _random.traced_global_key(key) as draws:
            out = run()
        self._draws[signature] = draws.count
        return out

    def _finish(self, signature, result):
        # the program split the generator's state as many times as eager code would have: advance it as much
        _random.advance_global_key(self._draws.get(signature, 0))
        out, printed = result
        entries = self._prints.get(signature)
        if entries:
            convert_operators.PrintCollector.emit(entries, printed)
        return out

    def __call__(self, *args, **kwargs):
        instance = self.instance
        if self._instance is not None and instance is None:
            raise ReferenceError(f"to_static({self._name}): the object this method was bound to no longer exists")
        if not _switch.enabled or id(self) in _switch.running_raw:
            return self._eager(instance, args, kwargs)
        check_inputs(self._name, self._input_spec, args)
        self.last_input_spec = paddle_fn.tree_map(
            lambda x: InputSpec(x.shape, x.dtype) if isinstance(x, Tensor) else x, list(args))
        try:
            if isinstance(instance, Layer):
                return self._call_layer(instance, args, kwargs)
            return self._call_function(instance, args, kwargs)
        except ConcretizationError as e:
            if self._full_graph:
                raise ConcretizationError(
                    f"paddle.jit.to_static({self._name}) cannot compile this function: {e}\n"
                    "Python `if`/`while`/`for` on Tensors are converted to paddle.cond / paddle.while_loop, "
                    "except a `return` inside a loop, `for ... else`, `global` in a branch and code without "
                    "readable source (paddle.jit.set_verbosity(1) shows what was converted); write those with "
                    "paddle.cond / paddle.while_loop / paddle.where, or use to_static(..., full_graph=False) to run "
                    "such a function eagerly") from None
            if not self._warned:
                self._warned = True
                warnings.warn(f"paddle.jit.to_static({self._name}): running eagerly (graph break): {e}",
                              stacklevel=2)
            return self._eager(instance, args, kwargs)

    def _jit(self, pure, static_argnum):
        if self._jitted is None:
            self._jitted = paddle_fn.jit(pure, static_argnums=(static_argnum,))
        return self._jitted

    @property
    def program_cache(self):
        """The signatures compiled so far, one entry per program: the input shapes (and, for a Layer, the
        train/eval mode of its sublayers). ``len(f.program_cache)`` counts the compilations."""
        return list(self._traced)

    def _call_function(self, instance, args, kwargs):
        dynamic, static_key = _split_inputs(args, kwargs)
        function = self._converted()
        if _random.traced_draws() is not None:
            # called while another to_static program is traced: part of that program, drawing from its state
            return function(*args, **kwargs) if instance is None else function(instance, *args, **kwargs)
        signature = (_avals(dynamic), static_key)

        def pure(key, dynamic, static_key):
            self._traced.append(([list(x.shape) for x in dynamic],))
            a, kw = _join_inputs(dynamic, static_key)
            run = (lambda: function(*a, **kw)) if instance is None else (lambda: function(instance, *a, **kw))
            return self._with_key(signature, key, lambda: self._traced_body(signature, run))
        pure.__name__ = self._name
        call_args = (_random.global_key_state(), dynamic)
        self._last_call = (call_args, static_key)
        return self._finish(signature, self._jit(pure, 2)(*call_args, static_key))

    def _call_layer(self, layer, args, kwargs):
        dynamic, static_key = _split_inputs(args, kwargs)
        state = dict(layer.named_parameters())
        state.update(layer.named_buffers())
        if any(_is_traced(v) for v in [*dynamic, *state.values()]):
            # called inside another transform (a converted sublayer of a converted model): its code becomes part
            # of the enclosing program, and buffer updates stay on the layer for the enclosing call to return
            return self._converted()(layer, *args, **kwargs)
        mode = tuple(sub.training for sub in layer.sublayers(include_self=True))
        function = self._converted()
        signature = (_avals(dynamic), _avals(state.values()), static_key, mode)

        def pure(rng_key, state, dynamic, key):
            self._traced.append(([list(x.shape) for x in dynamic], "train" if key[1][0] else "eval"))
            a, kw = _join_inputs(dynamic, key[0])
            _switch.running_raw.add(id(self))
            try:
                caller = _MethodCall(self.instance, function)
                return self._with_key(signature, rng_key, lambda: self._traced_body(signature, lambda: functional_call(
                    caller, {"inner." + k: v for k, v in state.items()}, *a, return_buffers=True, **kw)))
            finally:
                _switch.running_raw.discard(id(self))
        pure.__name__ = self._name
        call_args = (_random.global_key_state(), state, dynamic)
        self._last_call = (call_args, (static_key, mode))
        out, new_buffers = self._finish(signature, self._jit(pure, 3)(*call_args, (static_key, mode)))
        if new_buffers:
            # running statistics carry no gradient history into the next step, as in eager Paddle
            update_state(layer, {k[len("inner."):]: v.detach() for k, v in new_buffers.items()})
        return out


# ----------------------------------------------------------------------------------------------- to_static

def to_static(function=None, input_spec=None, build_strategy=None, backend="CINN", **kwargs):
    """Compile a function, a Layer, or a Layer method (``paddle.jit.to_static``), as a decorator or a call.

    - ``@to_static`` / ``@to_static(input_spec=[...])`` on a function or on a Layer's ``forward``.
    - ``to_static(layer, input_spec=[...])`` converts ``layer.forward`` and returns the layer.
    - ``to_static(layer.method)`` converts a bound method.

    A Layer's parameters and buffers are inputs of the compiled program, so training it with ``loss.backward()``
    and an optimizer works and never recompiles; switching ``train()`` / ``eval()`` compiles each mode once.

    Args:
        function (callable|Layer, optional): what to convert; without it, returns the decorator.
        input_spec (list[InputSpec], optional): the inputs' shapes and dtypes (``None`` dims are dynamic); calls
            are checked against it and ``paddle.jit.save`` uses it. Default: None.
        build_strategy (None): Paddle's BuildStrategy; only None is supported.
        backend (str, optional): None, 'CINN' or 'iree': paddle_fn always compiles with IREE. Default: 'CINN', as
            Paddle's.
        **kwargs: ``full_graph`` (bool, default False, as in Paddle 3): whether Python control flow on a Tensor's
            value that cannot be converted is an error (True) or makes that function run eagerly with a warning
            (False, Paddle's graph-break fallback).
            ``property=True`` is not supported.

    Returns:
        StaticFunction, or the Layer.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.static import InputSpec
        >>> class Net(paddle.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = paddle.nn.Linear(3, 2)
        ...     @paddle.jit.to_static(input_spec=[InputSpec([None, 3], 'float32', 'x')])
        ...     def forward(self, x):
        ...         return paddle.nn.functional.relu(self.fc(x))
        >>> paddle.seed(1)
        >>> net = Net()
        >>> net(paddle.ones([4, 3])).shape
        paddle.Size([4, 2])
    """
    full_graph = _check_options(build_strategy, backend, kwargs)
    if input_spec is not None:
        if not isinstance(input_spec, (list, tuple)):
            raise TypeError(f"to_static: input_spec must be a list or tuple of InputSpec, got "
                            f"{type(input_spec).__name__}")
    if function is None:
        return functools.partial(to_static, input_spec=input_spec, build_strategy=build_strategy, backend=backend,
                                 **kwargs)
    if isinstance(function, StaticFunction):
        if input_spec is None and full_graph == function._full_graph:
            return function
        function = function.dygraph_function
    if getattr(function, _NOT_TO_STATIC, False):
        return function
    if isinstance(function, Layer):
        layer = function
        forward = type(layer).forward
        if isinstance(forward, StaticFunction):
            forward = forward.dygraph_function
        bound = StaticFunction(forward, input_spec, full_graph, instance=layer)
        object.__setattr__(layer, "forward", bound)
        return layer
    if inspect.ismethod(function):
        return StaticFunction(function.__func__, input_spec, full_graph, instance=function.__self__)
    if not callable(function):
        raise TypeError(f"to_static: expected a function, a method or a Layer, got {type(function).__name__}")
    return StaticFunction(function, input_spec, full_graph)
