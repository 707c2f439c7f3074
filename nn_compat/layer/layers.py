"""`paddle.nn.Layer`: the base class of every layer and model, with Paddle's method surface.

A Layer is an ordinary mutable Python object. Its state lives in three ordered dicts, as in Paddle:
``_parameters`` (`Parameter` objects), ``_buffers`` (Tensors; persistable unless registered otherwise) and
``_sub_layers``. Assigning a Parameter, a Layer or a Tensor to an attribute registers it there (a Tensor
becomes a non-persistable buffer; `register_buffer` makes a persistable one). Parameters and buffers are
Tensor handles: updating them in place (``set_value``, an optimizer step) rebinds the handle, so the Layer,
its state_dict and any optimizer holding the parameter all see the new value.

To use a Layer under ``grad`` / ``vmap`` / ``jit`` as a pure function of its state, see
`paddle_fn.nn.functional_call` and `split` / `merge` (nn_compat/bridge.py).
"""
from __future__ import annotations

import copy
import re
from collections import OrderedDict

import numpy as np

import paddle_fn
from paddle_fn import EscapedTracerError, Tensor
from paddle_fn.nn_compat import unique_name
from paddle_fn.nn_compat.layer.layer_state import HookRemoveHelper, LayerStateMixin
from paddle_fn.nn_compat.parameter import (
    Parameter, _as_dtype, _is_traced, _make_parameter, _new_handle, _rebind, _untracked)

__all__ = ["HookRemoveHelper", "Layer"]


def _camel_to_snake(name: str) -> str:
    """``MyLinearNet`` -> ``my_linear_net``, ``LSTMCell`` -> ``lstm_cell``, ``Conv2D`` -> ``conv2d``,
    ``BatchNorm2D`` -> ``batch_norm2d`` (Paddle's default name scope: a capital after a digit starts no word, so
    parameter names, and the optimizer state keys made from them, are Paddle's)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _dtype_name(dtype) -> str:
    return _as_dtype(dtype).name


class _CreatedTensor(Tensor):
    """What `Layer.create_tensor` / `create_variable` return: a named, empty Tensor that prints as
    ``Tensor(Not initialized)`` until a value is assigned to it (in place)."""

    __slots__ = ("persistable", "_empty")

    def __repr__(self):
        if self.resolve() is self and self.numpy() is self._empty:
            return "Tensor(Not initialized)"
        return Tensor.__repr__(self)

    __str__ = __repr__


def _state_entries(layer, prefix=""):
    """Every (kind, full name, owning layer, key, Tensor) of `layer`'s parameters and buffers (non-persistable
    included), named as in state_dict: a parameter or buffer reachable by two paths (a shared sublayer, a tied
    weight) is listed under each name."""
    out = []

    def walk(lay, pre, path):
        for key, p in lay._parameters.items():
            if p is not None:
                out.append(("parameter", pre + key, lay, key, p))
        for key, b in lay._buffers.items():
            if b is not None:
                out.append(("buffer", pre + key, lay, key, b))
        for key, sub in lay._sub_layers.items():
            if sub is not None and id(sub) not in path:
                walk(sub, pre + key + ".", path | {id(sub)})

    walk(layer, prefix, frozenset([id(layer)]))
    return out


def _explain_escaped(layer, err):
    """Turn an EscapedTracerError raised while running `layer` into one that names the parameters / buffers
    holding traced values and says how to fix it (or return `err` unchanged if the state is not involved)."""
    traced = [(kind, name, t) for kind, name, _, _, t in _state_entries(layer) if _is_traced(t)]
    if not traced:
        return err
    original = getattr(err, "_paddle_fn_original", None) or str(err)
    names = ", ".join(f"{kind} '{name}' ({t.resolve().aval.str_short()})" for kind, name, t in traced[:8])
    if len(traced) > 8:
        names += f" and {len(traced) - 8} more"
    msg = (f"{type(layer).__name__}: the Layer's state holds values traced by a transform that has finished: "
           f"{names}. They were stored on the Layer inside paddle_fn.jit / grad / vmap (by set_value, an in-place op "
           "or a Tensor assigned to an attribute in forward, e.g. running statistics) and outlived the transform. "
           "Fix: inside the transform run the layer as a pure function, "
           "out, new_buffers = paddle_fn.nn.functional_call(layer, state, *inputs, return_buffers=True), return "
           "new_buffers and write them back after the transform with paddle_fn.nn.update_state(layer, new_buffers). "
           "To repair this Layer now, load concrete values: layer.set_state_dict(saved_state_dict) or "
           f"paddle_fn.nn.update_state(layer, state).\nOriginal error: {original}")
    new = EscapedTracerError(msg)
    new._paddle_fn_original = original
    return new


class Layer(LayerStateMixin):
    """The base class of layers and models (``paddle.nn.Layer``): subclass it, create parameters and sublayers
    in ``__init__`` and write ``forward``; calling the layer runs the forward pre-hooks, `forward` and the
    forward post-hooks.

    Args:
        name_scope (str, optional): the prefix of the layer's `full_name` and of its parameters' names
            (``my_layer_0.w_0``). Default: the class name in snake case.
        dtype (str, optional): the default dtype of `create_parameter`. Default: 'float32'.

    Example:
        >>> import paddle_fn as paddle
        >>> class MLP(paddle.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = paddle.nn.Linear(4, 8)
        ...         self.fc2 = paddle.nn.Linear(8, 2)
        ...     def forward(self, x):
        ...         return self.fc2(paddle.nn.functional.relu(self.fc1(x)))
        >>> model = MLP()
        >>> model(paddle.ones([3, 4])).shape
        paddle.Size([3, 2])
        >>> [name for name, _ in model.named_parameters()]
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> model
        MLP(
          (fc1): Linear(in_features=4, out_features=8, dtype=float32)
          (fc2): Linear(in_features=8, out_features=2, dtype=float32)
        )
    """

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        if name_scope is None:
            name_scope = _camel_to_snake(type(self).__name__)
        self._full_name = unique_name.generate(name_scope)
        self._dtype = _dtype_name(dtype)
        self._built = False
        self._parameters = OrderedDict()
        self._buffers = OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._sub_layers = OrderedDict()
        self._forward_pre_hooks = OrderedDict()
        self._forward_pre_hooks_with_kwargs_flag = OrderedDict()
        self._forward_post_hooks = OrderedDict()
        self._forward_post_hooks_with_kwargs_flag = OrderedDict()
        self._forward_post_hooks_always_called = OrderedDict()
        self._state_dict_hooks = OrderedDict()

    # ------------------------------------------------------------------------------------------- running

    def forward(self, *inputs, **kwargs):
        """The computation of the layer; subclasses override it (call the layer, not forward, to run hooks)."""
        raise NotImplementedError(f"{type(self).__name__} has no forward(); define forward(self, ...) in the "
                                  "subclass")

    def backward(self, *inputs):
        """Layers have no backward: gradients come from ``loss.backward()`` or ``paddle.grad``. Raises ValueError.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(1, 1).backward()
            Traceback (most recent call last):
            ...
            ValueError: Layer shouldn't implement backward
        """
        raise ValueError("Layer shouldn't implement backward")

    def _build_once(self, *inputs, **kwargs):
        """Run once, before the first forward (Paddle's hook for layers that create state from their inputs)."""

    def __call__(self, *inputs, **kwargs):
        try:
            if not self._built:
                self._build_once(*inputs, **kwargs)
                self._built = True
            if self._forward_pre_hooks or self._forward_post_hooks:
                return self._call_with_hooks(inputs, kwargs)
            return self.forward(*inputs, **kwargs)
        except EscapedTracerError as e:
            new = _explain_escaped(self, e)
            if new is e:
                raise
            raise new.with_traceback(e.__traceback__) from None

    def _call_with_hooks(self, inputs, kwargs):
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs_flag:
                result = hook(self, inputs, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    inputs, kwargs = result
            else:
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        outputs, called = None, set()

        def post(hook_id, hook):
            called.add(hook_id)
            if hook_id in self._forward_post_hooks_with_kwargs_flag:
                return hook(self, inputs, kwargs, outputs)
            return hook(self, inputs, outputs)

        try:
            outputs = self.forward(*inputs, **kwargs)
            for hook_id, hook in list(self._forward_post_hooks.items()):
                result = post(hook_id, hook)
                if result is not None:
                    outputs = result
            return outputs
        except Exception:
            # always_call hooks still run (once) when forward or an earlier hook raised; their own errors are
            # dropped so the original one propagates
            for hook_id, hook in list(self._forward_post_hooks.items()):
                if hook_id in self._forward_post_hooks_always_called and hook_id not in called:
                    try:
                        post(hook_id, hook)
                    except Exception:  # noqa: BLE001, S110 - the first error is the one to report
                        pass
            raise

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Register ``hook(layer, inputs)``, run before `forward`; `inputs` is the tuple of positional inputs and
        a non-None return value replaces it (a non-tuple is wrapped in a tuple). Returns a `HookRemoveHelper`.

        Args:
            hook (callable): ``hook(layer, inputs) -> None | new inputs``.
            prepend (bool, optional): run it before the hooks already registered. Default: False.
            with_kwargs (bool, optional): call ``hook(layer, inputs, kwargs)``, which returns None or a pair
                ``(new_inputs, new_kwargs)``. Default: False.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 1, weight_attr=paddle.nn.initializer.Constant(1.0))
            >>> h = fc.register_forward_pre_hook(lambda layer, inputs: inputs[0] * 10)
            >>> fc(paddle.ones([1, 2])).numpy()
            array([[20.]], dtype=float32)
            >>> h.remove(); fc(paddle.ones([1, 2])).numpy()
            array([[2.]], dtype=float32)
        """
        handle = HookRemoveHelper(self._forward_pre_hooks, extra_hook_dict=self._forward_pre_hooks_with_kwargs_flag)
        self._forward_pre_hooks[handle._hook_id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs_flag[handle._hook_id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle._hook_id, last=False)
        return handle

    def register_forward_post_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """Register ``hook(layer, inputs, output)``, run after `forward`; a non-None return value replaces the
        output. Returns a `HookRemoveHelper`. Alias: `register_forward_hook`.

        Args:
            hook (callable): ``hook(layer, inputs, output) -> None | new output``.
            prepend (bool, optional): run it before the hooks already registered. Default: False.
            with_kwargs (bool, optional): call ``hook(layer, inputs, kwargs, output)``. Default: False.
            always_call (bool, optional): run it also when forward (or an earlier hook) raises. Default: False.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 1, weight_attr=paddle.nn.initializer.Constant(1.0))
            >>> h = fc.register_forward_post_hook(lambda layer, inputs, output: 2 * output)
            >>> fc(paddle.ones([1, 2])).numpy()
            array([[4.]], dtype=float32)
        """
        handle = HookRemoveHelper(self._forward_post_hooks, extra_hook_dict=[
            self._forward_post_hooks_with_kwargs_flag, self._forward_post_hooks_always_called])
        self._forward_post_hooks[handle._hook_id] = hook
        if with_kwargs:
            self._forward_post_hooks_with_kwargs_flag[handle._hook_id] = True
        if always_call:
            self._forward_post_hooks_always_called[handle._hook_id] = True
        if prepend:
            self._forward_post_hooks.move_to_end(handle._hook_id, last=False)
        return handle

    register_forward_hook = register_forward_post_hook

    # ------------------------------------------------------------------------------------------- names, modes

    def full_name(self) -> str:
        """The layer's unique name, e.g. ``linear_0`` (its parameters are named ``linear_0.w_0``, ...).

        Example:
            >>> import paddle_fn as paddle
            >>> with paddle.nn.unique_name.guard():
            ...     fc = paddle.nn.Linear(2, 2)
            >>> fc.full_name(), fc.weight.name, fc.bias.name
            ('linear_0', 'linear_0.w_0', 'linear_0.b_0')
        """
        return self._full_name

    def extra_repr(self) -> str:
        """The text inside the parentheses of the layer's repr; override it to describe the layer's settings.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, dtype=float32'
        """
        return ""

    def train(self):
        """Put this layer and all its sublayers in training mode (``training = True``); returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 2))
            >>> model.eval()[0].training, model.train()[0].training
            (False, True)
        """
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        """Put this layer and all its sublayers in evaluation mode (``training = False``); returns self. (It does
        not turn off differentiation.)

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 2))
            >>> model.eval().training
            False
        """
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def apply(self, fn):
        """Call ``fn(layer)`` on every sublayer (children first) and then on this layer; returns self.

        Args:
            fn (callable): ``fn(layer)``.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 1))
            >>> def init(layer):
            ...     if isinstance(layer, paddle.nn.Linear):
            ...         paddle.nn.initializer.Constant(0.1)(layer.weight)
            >>> round(float(model.apply(init)[1].weight.sum()), 4)
            0.2
        """
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------------------------------- parameters

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None, device=None):
        """Create an initialized `Parameter` named after this layer (``<full_name>.w_<n>`` / ``.b_<n>``).
        Assign it to an attribute (or `add_parameter`) to register it.

        Args:
            shape (list): the shape.
            attr (ParamAttr|str|Initializer|bool, optional): the parameter's attributes; False creates none
                (returns None).
            dtype (str, optional): Default: the layer's dtype.
            is_bias (bool, optional): a bias (default initializer Constant(0)). Default: False.
            default_initializer (Initializer, optional): used when `attr` and `set_global_initializer` give
                none. Default: XavierUniform for weights, Constant(0) for biases.
            device (str|Place, optional): where to place it, e.g. 'cpu'. Default: the default device.

        Example:
            >>> import paddle_fn as paddle
            >>> class Scale(paddle.nn.Layer):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.alpha = self.create_parameter(
            ...             [1], default_initializer=paddle.nn.initializer.Constant(2.0))
            ...     def forward(self, x):
            ...         return x * self.alpha
            >>> Scale()(paddle.to_tensor([1.0, 3.0])).numpy()
            array([2., 6.], dtype=float32)
        """
        if isinstance(attr, str) and attr == "":
            attr = None
        param = _make_parameter(shape, dtype if dtype is not None else self._dtype, attr, is_bias,
                                default_initializer, self._full_name, f"{type(self).__name__}.create_parameter")
        if param is not None and device is not None:
            _rebind(param, paddle_fn.device_put(_untracked(param), device))
        return param

    def add_parameter(self, name, parameter):
        """Register `parameter` (a Parameter or None) under `name`; returns it.

        Args:
            name (str): the attribute name.
            parameter (Parameter|None): the parameter.

        Example:
            >>> import paddle_fn as paddle
            >>> layer = paddle.nn.Layer()
            >>> w = layer.add_parameter("w", layer.create_parameter([2]))
            >>> [name for name, _ in layer.named_parameters()], layer.w is w
            (['w'], True)
        """
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of parameter should be a string, but received {type(name).__name__}")
        if "." in name:
            raise KeyError("The name of parameter can not contain \".\"")
        if name == "":
            raise KeyError("The name of parameter can not be empty.")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"The parameter to be added should be a Parameter, but received "
                            f"{type(parameter).__name__}; wrap it with paddle.nn.Parameter(value) or create it "
                            "with create_parameter")
        self._parameters[name] = parameter
        return parameter

    def register_parameter(self, name, param):
        """The same as `add_parameter` (returns None, as Paddle's).

        Example:
            >>> import paddle_fn as paddle
            >>> layer = paddle.nn.Layer()
            >>> layer.register_parameter("w", layer.create_parameter([1]))
            >>> [n for n, _ in layer.named_parameters()]
            ['w']
        """
        self.add_parameter(name, param)

    def get_parameter(self, target):
        """The parameter (or Tensor attribute) at the dotted path `target`, e.g. ``'0.weight'``.

        Args:
            target (str): ``'<sublayer path>.<name>'``.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 3))
            >>> model.get_parameter("0.weight").shape
            paddle.Size([2, 3])
        """
        path, _, name = target.rpartition(".")
        layer = self.get_sublayer(path)
        if not hasattr(layer, name):
            raise AttributeError(f"{type(layer).__name__} has no attribute `{name}`")
        param = getattr(layer, name)
        if not isinstance(param, Tensor):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def parameters(self, include_sublayers=True):
        """All parameters (each once), in registration order.

        Args:
            include_sublayers (bool, optional): include the sublayers' parameters. Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> [p.shape for p in paddle.nn.Linear(3, 2).parameters()]
            [paddle.Size([3, 2]), paddle.Size([2])]
        """
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Iterate ``(name, Parameter)`` with structured names such as ``fc.weight``; a shared parameter is
        yielded once unless `remove_duplicate` is False.

        Args:
            prefix (str, optional): prepended to every name. Default: ''.
            include_sublayers (bool, optional): Default: True.
            remove_duplicate (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> [n for n, _ in paddle.nn.Sequential(paddle.nn.Linear(2, 2)).named_parameters(prefix="net")]
            ['net.0.weight', 'net.0.bias']
        """
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True, remove_duplicate=remove_duplicate) \
            if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (layer_prefix + "." + key if layer_prefix else key), p

    # ------------------------------------------------------------------------------------------- sublayers

    def add_sublayer(self, name, sublayer):
        """Register `sublayer` (a Layer or None) under `name`; returns it.

        Args:
            name (str): the attribute name.
            sublayer (Layer|None): the layer.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential()
            >>> fc = model.add_sublayer("fc", paddle.nn.Linear(10, 3))
            >>> model.sublayers()
            [Linear(in_features=10, out_features=3, dtype=float32)]
        """
        if not (isinstance(sublayer, Layer) or sublayer is None):
            raise TypeError(f"add_sublayer: the sublayer must be a Layer or None, got {type(sublayer).__name__}")
        if not isinstance(name, str) or "." in name or name == "":
            raise KeyError(f"add_sublayer: the name must be a non-empty str without '.', got {name!r}")
        if "_sub_layers" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called first")
        self._sub_layers[name] = sublayer
        return sublayer

    def add_module(self, name, module):
        """The same as `add_sublayer` (returns None, as Paddle's). Alias: `register_module`.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Layer()
            >>> model.add_module("fc", paddle.nn.Linear(1, 1))
            >>> [n for n, _ in model.named_children()]
            ['fc']
        """
        self.add_sublayer(name, module)

    register_module = add_module

    def get_sublayer(self, target):
        """The sublayer at the dotted path `target` (``''`` is this layer). Alias: `get_submodule`.

        Args:
            target (str): e.g. ``'encoder.0'``.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Sequential(paddle.nn.Linear(1, 2)))
            >>> model.get_sublayer("0.0")
            Linear(in_features=1, out_features=2, dtype=float32)
        """
        if target == "":
            return self
        layer = self
        for item in target.split("."):
            if not hasattr(layer, item):
                raise AttributeError(f"{type(layer).__name__} has no attribute `{item}`")
            layer = getattr(layer, item)
            if not isinstance(layer, Layer):
                raise AttributeError(f"`{item}` is not an nn.Layer")
        return layer

    get_submodule = get_sublayer

    def set_sublayer(self, target, layer, strict=False):
        """Put `layer` at the dotted path `target`, replacing what is there. Alias: `set_submodule`.

        Args:
            target (str): e.g. ``'encoder.0'``.
            layer (Layer): the new sublayer.
            strict (bool, optional): require that `target` exists already. Default: False.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(1, 2))
            >>> model.set_sublayer("0", paddle.nn.Linear(1, 5))
            >>> model[0].weight.shape
            paddle.Size([1, 5])
        """
        if target == "":
            raise ValueError("Cannot set the sublayer without a target name!")
        if not isinstance(layer, Layer):
            raise ValueError(f"`module` is not an nn.Layer, found {type(layer)}")
        path, _, name = target.rpartition(".")
        parent = self.get_sublayer(path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{type(parent).__name__} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Layer):
            raise AttributeError(f"`{name}` is not an nn.Layer")
        setattr(parent, name, layer)

    set_submodule = set_sublayer

    def children(self):
        """Iterate the direct sublayers, in registration order.

        Example:
            >>> import paddle_fn as paddle
            >>> list(paddle.nn.Sequential(paddle.nn.Linear(1, 1)).children())
            [Linear(in_features=1, out_features=1, dtype=float32)]
        """
        for _, layer in self.named_children():
            yield layer

    def named_children(self):
        """Iterate ``(name, layer)`` of the direct sublayers (a layer registered twice is yielded once).

        Example:
            >>> import paddle_fn as paddle
            >>> [n for n, _ in paddle.nn.Sequential(paddle.nn.Linear(1, 1)).named_children()]
            ['0']
        """
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def sublayers(self, include_self=False):
        """All sublayers, depth first (each once).

        Args:
            include_self (bool, optional): include this layer first. Default: False.

        Example:
            >>> import paddle_fn as paddle
            >>> len(paddle.nn.Sequential(paddle.nn.Linear(1, 1)).sublayers(include_self=True))
            2
        """
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_sublayers(self, prefix="", include_self=False, layers_set=None, remove_duplicate=True):
        """Iterate ``(name, layer)`` of all sublayers, depth first, with dotted names (``block.fc``).

        Args:
            prefix (str, optional): prepended to every name. Default: ''.
            include_self (bool, optional): yield ``(prefix, self)`` first. Default: False.
            layers_set (set, optional): layers already yielded (skipped). Default: None.
            remove_duplicate (bool, optional): yield a layer registered under several names once. Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> inner = paddle.nn.Sequential(paddle.nn.Linear(1, 1))
            >>> [n for n, _ in paddle.nn.Sequential(inner).named_sublayers()]
            ['0', '0.0']
            >>> fc = paddle.nn.Linear(1, 1)
            >>> [n for n, _ in paddle.nn.Sequential(fc, fc).named_sublayers(remove_duplicate=False)]
            ['0', '1']
        """
        if layers_set is None:
            layers_set = set()
        if include_self and self not in layers_set:
            if remove_duplicate:
                layers_set.add(self)
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            yield from layer.named_sublayers(prefix + ("." if prefix else "") + key, True, layers_set,
                                             remove_duplicate)

    def modules(self):
        """Iterate this layer and all its sublayers, depth first, each once.

        Example:
            >>> import paddle_fn as paddle
            >>> [type(m).__name__ for m in paddle.nn.Sequential(paddle.nn.Linear(1, 1)).modules()]
            ['Sequential', 'Linear']
        """
        for _, layer in self.named_modules():
            yield layer

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """`named_sublayers` with ``include_self=True``: ``(name, layer)`` pairs, this layer first (name ``''``).

        Args:
            memo (set, optional): layers to skip. Default: None.
            prefix (str, optional): prepended to every name. Default: ''.
            remove_duplicate (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> [n for n, _ in paddle.nn.Sequential(paddle.nn.Linear(1, 1)).named_modules()]
            ['', '0']
        """
        return self.named_sublayers(prefix=prefix, include_self=True, layers_set=memo,
                                    remove_duplicate=remove_duplicate)

    # ------------------------------------------------------------------------------------------- buffers

    def register_buffer(self, name, tensor, persistable=True):
        """Register `tensor` (a Tensor or None) as a buffer: state that is not trained, such as running
        statistics. A persistable buffer is part of `state_dict`; a non-persistable one is not.

        Args:
            name (str): the attribute name.
            tensor (Tensor|None): the value.
            persistable (bool, optional): include it in state_dict. Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> layer = paddle.nn.Layer()
            >>> layer.register_buffer("mean", paddle.zeros([2]))
            >>> layer.register_buffer("cache", paddle.zeros([2]), persistable=False)
            >>> list(layer.state_dict()), [n for n, _ in layer.named_buffers()]
            (['mean'], ['mean', 'cache'])
        """
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of buffer should be a string, but received {type(name).__name__}")
        if "." in name:
            raise KeyError("The name of buffer can not contain \".\"")
        if name == "":
            raise KeyError("The name of buffer can not be empty.")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists.")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"The registered buffer should be a Tensor, but received {type(tensor).__name__}")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    def buffers(self, include_sublayers=True):
        """All buffers (each once), persistable or not.

        Args:
            include_sublayers (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> layer = paddle.nn.Layer()
            >>> layer.register_buffer("step", paddle.to_tensor([0]))
            >>> layer.buffers()[0].numpy()
            array([0])
        """
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def get_buffer(self, target):
        """The buffer at the dotted path `target`, e.g. ``'bn._mean'``.

        Args:
            target (str): ``'<sublayer path>.<name>'``.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Layer())
            >>> model[0].register_buffer("mean", paddle.zeros([1]))
            >>> model.get_buffer("0.mean").shape
            paddle.Size([1])
        """
        path, _, name = target.rpartition(".")
        layer = self.get_sublayer(path)
        if not hasattr(layer, name):
            raise AttributeError(f"{type(layer).__name__} has no attribute `{name}`")
        if name not in layer._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(layer, name)

    def named_buffers(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Iterate ``(name, buffer)`` with structured names (each buffer once).

        Args:
            prefix (str, optional): prepended to every name. Default: ''.
            include_sublayers (bool, optional): Default: True.
            remove_duplicate (bool, optional): yield a buffer reachable by several names once. Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Layer())
            >>> model[0].register_buffer("mean", paddle.zeros([1]))
            >>> [n for n, _ in model.named_buffers()]
            ['0.mean']
        """
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True, remove_duplicate=remove_duplicate) \
            if include_sublayers else [(prefix, self)]
        for layer_prefix, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or (remove_duplicate and id(b) in seen):
                    continue
                seen.add(id(b))
                yield (layer_prefix + "." + key if layer_prefix else key), b

    def create_variable(self, name=None, persistable=None, dtype=None):
        """A named, empty Tensor (``Tensor(Not initialized)``) for the layer to fill later; assign it to an
        attribute or `register_buffer` it to keep it.

        Args:
            name (str, optional): Default: ``<full_name>._generated_var_<n>``.
            persistable (bool, optional): recorded on the Tensor. Default: None.
            dtype (str, optional): Default: the layer's dtype.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Layer().create_variable(name="tmp")
            Tensor(Not initialized)
        """
        dt = _as_dtype(dtype if dtype is not None else self._dtype)
        empty = np.zeros((0,), dt.np)
        empty.flags.writeable = False
        t = _CreatedTensor.__new__(_CreatedTensor)
        Tensor.__init__(t, empty)
        t._empty = empty
        t.persistable = persistable
        t.name = name if name is not None else unique_name.generate(f"{self._full_name}._generated_var")
        return t

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """The same as `create_variable` (Paddle's two names for it).

        Args:
            name (str, optional): Default: ``<full_name>._generated_var_<n>``.
            persistable (bool, optional): Default: None.
            dtype (str, optional): Default: the layer's dtype.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Layer().create_tensor(name="saved").name
            'saved'
        """
        return self.create_variable(name=name, persistable=persistable, dtype=dtype)

    # ------------------------------------------------------------------------------------------- attributes

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise ValueError("super().__init__() should be called first")
            self._forget(name, "_buffers", "_sub_layers")
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"assignment to parameter '{name}' should be of type Parameter or None, but got "
                                f"'{type(value).__name__}'; wrap the value with paddle.nn.Parameter(value) or update "
                                f"the parameter in place with self.{name}.set_value(value)")
            params[name] = None
            return
        layers = d.get("_sub_layers")
        if isinstance(value, Layer):
            if layers is None:
                raise ValueError("super().__init__() should be called first")
            self._forget(name, "_parameters", "_buffers")
            layers[name] = value
            return
        if layers is not None and name in layers:
            if value is not None:
                raise TypeError(f"assignment to sublayer '{name}' should be of type Layer or None, but got "
                                f"'{type(value).__name__}'")
            layers[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, Tensor):
            if buffers is None:
                raise ValueError("super().__init__() should be called first")
            self._forget(name, "_parameters", "_sub_layers")
            if name not in buffers:
                self._non_persistable_buffer_names_set.add(name)  # only register_buffer makes it persistable
            buffers[name] = value
            return
        if buffers is not None and name in buffers:
            if value is not None:
                raise TypeError(f"assignment to buffer '{name}' should be of type Tensor or None, but got "
                                f"'{type(value).__name__}'")
            buffers[name] = None
            return
        object.__setattr__(self, name, value)

    def _forget(self, name, *stores):
        d = self.__dict__
        d.pop(name, None)
        for store in stores:
            s = d.get(store)
            if s is not None and name in s:
                del s[name]
                if store == "_buffers":
                    self._non_persistable_buffer_names_set.discard(name)

    def __delattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = d.get(store)
            if s is not None and name in s:
                del s[name]
                if store == "_buffers":
                    self._non_persistable_buffer_names_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(dir(type(self))) + list(self.__dict__) + list(self._parameters) + list(self._sub_layers) + \
            list(self._buffers)
        return sorted(set(keys))

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): {_addindent(repr(layer), 2)}" for name, layer in self._sub_layers.items()
                       if layer is not None]
        text = type(self).__name__ + "("
        if len(extra_lines) == 1:
            text += extra_lines[0]
        elif extra_lines:
            text += "\n  " + "\n  ".join(extra_lines) + "\n"
        if child_lines:
            text += "\n  " + "\n  ".join(child_lines) + "\n"
        return text + ")"

    def __deepcopy__(self, memo):
        # Values are immutable, so a copied layer gets new handles on the same values (nothing is copied but the
        # Python structure); Parameter.__deepcopy__ does the same for parameters.
        for _, _, _, _, t in _state_entries(self):
            if id(t) not in memo and not isinstance(t, Parameter):
                memo[id(t)] = _copy_tensor_handle(t)
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            object.__setattr__(new, k, copy.deepcopy(v, memo))
        return new


def _copy_tensor_handle(t):
    new = _new_handle(type(t), t.snapshot())
    new.stop_gradient = t.stop_gradient
    name = getattr(t, "name", None)
    if name is not None:
        new.name = name
    if isinstance(t, _CreatedTensor):
        new._empty, new.persistable = t._empty, t.persistable
    return new
