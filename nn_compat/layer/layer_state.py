"""The state half of `paddle.nn.Layer`: state_dict / set_state_dict / load_state_dict, dtype and device
conversion (to, astype, float, double, float16, bfloat16, type, cpu, cuda) and gradient clearing.

`Layer` inherits these methods from `LayerStateMixin`; they act on the ``_parameters``, ``_buffers`` and
``_sub_layers`` stores that `Layer` keeps (see nn_compat/layer/layers.py).
"""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict, namedtuple

import paddle_fn
from paddle_fn.nn_compat.parameter import _as_dtype, _rebind, _to_value, _untracked

__all__ = ["HookRemoveHelper", "LayerStateMixin"]

_DTYPE_NAMES = ("bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "complex64",
                "complex128", "bool")


def _checked_dtype(dtype):
    """`dtype` as a DType, or Paddle's ValueError listing the dtypes a Layer can be cast to."""
    try:
        dt = _as_dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or dt.name not in _DTYPE_NAMES:
        raise ValueError(f"dtype value error, must be {', '.join(repr(n) for n in _DTYPE_NAMES[:-1])}, or 'bool', "
                         f"or paddle.dtype, numpy.dtype, but receive {dtype}")
    return dt


class HookRemoveHelper:
    """The handle the ``register_*_hook`` methods return: ``.remove()`` unregisters the hook (and its flags).

    Example:
        >>> import paddle_fn as paddle
        >>> fc = paddle.nn.Linear(2, 2)
        >>> handle = fc.register_forward_post_hook(lambda layer, inputs, output: output * 0)
        >>> float(fc(paddle.ones([1, 2])).sum())
        0.0
        >>> handle.remove()
        >>> len(fc._forward_post_hooks)
        0
    """

    next_hook_id = 0

    def __init__(self, hooks, *, extra_hook_dict=None):
        self._hooks_ref = weakref.ref(hooks)
        self._hook_id = HookRemoveHelper.next_hook_id
        HookRemoveHelper.next_hook_id += 1
        extra = extra_hook_dict if isinstance(extra_hook_dict, list) else (
            [] if extra_hook_dict is None else [extra_hook_dict])
        self._extra_hooks_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self):
        """Unregister the hook (doing it twice is harmless)."""
        for ref in (self._hooks_ref, *self._extra_hooks_ref):
            hooks = ref()
            if hooks is not None and self._hook_id in hooks:
                del hooks[self._hook_id]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What `LayerStateMixin.load_state_dict` returns: ``(missing_keys, unexpected_keys)``, printed as
    ``<All keys matched successfully>`` when both are empty (as Paddle's)."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class LayerStateMixin:
    """The state_dict, conversion and gradient methods of `paddle.nn.Layer` (documented there)."""

    # ------------------------------------------------------------------------------------------- state_dict

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        """The parameters and persistable buffers by structured name (``fc.weight``, ``0.bias`` in a
        Sequential); non-persistable buffers are left out. The values are the Parameter / buffer handles
        themselves (``keep_vars=False`` gives detached snapshots that do not follow later updates).

        Args:
            destination (dict, optional): fill this dict instead of a new OrderedDict.
            include_sublayers (bool, optional): Default: True.
            structured_name_prefix (str, optional): prepended to every key. Default: ''.
            use_hook (bool, optional): apply state_dict hooks. Default: True.
            keep_vars (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 1, bias_attr=False))
            >>> list(model.state_dict())
            ['0.weight', '0.bias', '1.weight']
        """
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix, False, use_hook,
                                     keep_vars)

    def to_static_state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                             use_hook=True, keep_vars=True):
        """Like `state_dict`, with the non-persistable buffers too.

        Example:
            >>> import paddle_fn as paddle
            >>> layer = paddle.nn.Layer()
            >>> layer.register_buffer("cache", paddle.zeros([1]), persistable=False)
            >>> list(layer.state_dict()), list(layer.to_static_state_dict())
            ([], ['cache'])
        """
        return self._state_dict_impl(destination, include_sublayers, structured_name_prefix, True, use_hook,
                                     keep_vars)

    def _state_dict_impl(self, destination=None, include_sublayers=True, structured_name_prefix="",
                         include_non_persistable_buffer=False, use_hook=True, keep_vars=True):
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[structured_name_prefix + name] = p if keep_vars else p.snapshot()
        for name, b in self._buffers.items():
            if b is None or (not include_non_persistable_buffer and name in self._non_persistable_buffer_names_set):
                continue
            destination[structured_name_prefix + name] = b if keep_vars else b.snapshot()
        if include_sublayers:
            for layer_name, layer in self._sub_layers.items():
                if layer is not None:
                    destination = layer._state_dict_impl(destination, True, structured_name_prefix + layer_name + ".",
                                                         include_non_persistable_buffer, use_hook, keep_vars)
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(destination)
                if result is not None:
                    destination = result
        return destination

    def register_state_dict_hook(self, hook):
        """Register ``hook(state_dict)``, applied by `state_dict` (``use_hook=True``) to the finished dict; a
        non-None return value replaces it. Returns a `HookRemoveHelper`.

        Args:
            hook (callable): ``hook(state_dict) -> None | new state_dict``.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 2)
            >>> h = fc.register_state_dict_hook(lambda sd: {"w": sd["weight"]})
            >>> list(fc.state_dict()), list(fc.state_dict(use_hook=False))
            (['w'], ['weight', 'bias'])
        """
        handle = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._hook_id] = hook
        return handle

    _register_state_dict_hook = register_state_dict_hook

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load parameters and persistable buffers from `state_dict` (values: Tensors or numpy arrays), as
        Paddle does: a key of the layer that `state_dict` lacks, or whose value has another shape, is skipped
        with a warning and reported in `missing_keys`; keys the layer does not have are reported in
        `unexpected_keys`. A dtype mismatch is an error (nothing is loaded). Returns
        ``(missing_keys, unexpected_keys)``. Aliases: `set_dict`, `load_dict`.

        Args:
            state_dict (dict): name -> value, e.g. from `state_dict` or ``paddle.load``.
            use_structured_name (bool, optional): match keys by structured name (``fc.weight``); False matches
                by parameter name (``linear_0.w_0``). Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> a, b = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
            >>> b.set_state_dict(a.state_dict())
            ([], [])
            >>> bool((a.weight == b.weight).all())
            True
        """
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"set_state_dict: state_dict must be a dict, got {type(state_dict).__name__}")
        missing, matched, used = [], [], set()
        for key, target in self._state_dict_impl(use_hook=False).items():
            key_name = key if use_structured_name else getattr(target, "name", key)
            if key_name not in state_dict:
                missing.append(key)
                warnings.warn(f"Skip loading for {key}. {key_name} is not found in the provided dict.", stacklevel=2)
                continue
            value = _to_value(state_dict[key_name], f"set_state_dict: {key_name}")
            if list(value.shape) != list(target.shape):
                missing.append(key)
                warnings.warn(f"Skip loading for {key}. {key_name} receives a shape {list(value.shape)}, but the "
                              f"expected shape is {list(target.shape)}.", stacklevel=2)
                continue
            if value.dtype != target.dtype:
                raise paddle_fn.DTypeError(
                    f"set_state_dict: {key_name} has dtype {value.dtype.name} but the layer's {key} has dtype "
                    f"{target.dtype.name}; cast the value first (state_dict[{key_name!r}] = "
                    f"value.astype('{target.dtype.name}')) or convert the layer (layer.to(dtype=...)). "
                    "Nothing was loaded.")
            used.add(key_name)
            matched.append((target, value))
        unexpected = [k for k in state_dict.keys() if k not in used]
        for target, value in matched:
            target.set_value(value)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Load `state_dict` like `set_state_dict` (keys by structured name); with `strict`, a missing or
        unexpected key is a RuntimeError listing them (after the matching entries were loaded, as in Paddle).
        Returns ``(missing_keys, unexpected_keys)`` as a named tuple.

        Args:
            state_dict (dict): name -> Tensor or array.
            strict (bool, optional): raise on missing or unexpected keys. Default: True.
            assign (bool, optional): Paddle's flag for keeping the given Tensors instead of copying into the
                parameters. Values are immutable here, so loading never copies: the parameters keep their
                attributes and share the given values either way. Default: False.

        Example:
            >>> import paddle_fn as paddle
            >>> a, b = paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 2)
            >>> b.load_state_dict(a.state_dict())
            <All keys matched successfully>
            >>> b.load_state_dict({"weight": a.weight}, strict=False)
            _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(assign, bool):
            raise TypeError(f"load_state_dict: assign must be a bool, got {assign!r}")
        with warnings.catch_warnings():
            if strict:  # the RuntimeError below names every key the warnings would
                warnings.simplefilter("ignore")
            missing, unexpected = self.set_state_dict(state_dict, use_structured_name=True)
        errors = []
        if strict and missing:
            errors.append("Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if strict and unexpected:
            errors.append("Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------------------------------- dtype, device

    def to(self, device=None, dtype=None, blocking=None):
        """Move every parameter and buffer to `device` and/or cast it to `dtype`, in place (the handles are
        rebound); returns self.

        Args:
            device (str|Place, optional): e.g. 'cpu', 'gpu:0', ``paddle.CPUPlace()``. Default: unchanged.
            dtype (str, optional): e.g. 'float64'. Default: unchanged.
            blocking (bool, optional): accepted for compatibility.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 2).to(dtype='float64')
            >>> fc.weight.dtype, fc(paddle.ones([1, 2], 'float64')).dtype
            (paddle.float64, paddle.float64)
        """
        self._to_impl(device=device, dtype=dtype, floating_only=False, include_sublayers=True)
        return self

    def _to_impl(self, device=None, dtype=None, floating_only=False, include_sublayers=True):
        dt = _as_dtype(dtype) if dtype is not None else None
        seen = set()
        for layer in (self.sublayers(include_self=True) if include_sublayers else [self]):
            for store in (layer._parameters, layer._buffers):
                for t in store.values():
                    if t is None or id(t) in seen:
                        continue
                    seen.add(id(t))
                    new = value = _untracked(t)
                    if dt is not None and t.dtype != dt and (not floating_only or paddle_fn.is_floating_point(t)):
                        new = new.astype(dt)
                    if device is not None:
                        new = paddle_fn.device_put(new, device)
                    if new is not value:
                        _rebind(t, new)
            if dt is not None and (not floating_only or dt.is_floating_point):
                layer._dtype = dt.name

    def _cast_floating(self, dtype, excluded_layers):
        if excluded_layers is None:
            excluded = []
        elif isinstance(excluded_layers, (list, tuple)):
            excluded = list(excluded_layers)
        else:
            excluded = [excluded_layers]
        types = tuple(e for e in excluded if isinstance(e, type))
        for layer in self.sublayers(include_self=True):
            if (types and isinstance(layer, types)) or any(layer is e for e in excluded):
                continue
            layer._to_impl(dtype=dtype, floating_only=True, include_sublayers=False)
        return self

    def astype(self, dtype=None):
        """Cast every parameter and buffer (integer ones too) to `dtype`, in place, and make it the dtype of this
        layer and its sublayers; returns self. (`float`, `double`, `float16` and `bfloat16` cast only the
        floating-point ones.)

        Args:
            dtype (str|paddle.dtype|numpy.dtype, optional): 'bfloat16', 'float16', 'float32', 'float64', 'int8',
                'int16', 'int32', 'int64', 'uint8', 'complex64', 'complex128' or 'bool'. Default: None (no change).

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).astype('float64').bias.dtype
            paddle.float64
        """
        if dtype is None:
            return self
        _checked_dtype(dtype)
        self._to_impl(dtype=dtype, floating_only=False, include_sublayers=True)
        return self

    def float(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to float32 (except in `excluded_layers`: layer types or
        instances); returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).double().float().weight.dtype
            paddle.float32
        """
        return self._cast_floating("float32", excluded_layers)

    def double(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to float64; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).double().weight.dtype
            paddle.float64
        """
        return self._cast_floating("float64", excluded_layers)

    def float16(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to float16; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).float16().weight.dtype
            paddle.float16
        """
        return self._cast_floating("float16", excluded_layers)

    half = float16

    def bfloat16(self, excluded_layers=None):
        """Cast floating-point parameters and buffers to bfloat16; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).bfloat16().weight.dtype
            paddle.bfloat16
        """
        return self._cast_floating("bfloat16", excluded_layers)

    def type(self, dst_type):
        """Cast every parameter and buffer to `dst_type` (as `astype`); returns self.

        Args:
            dst_type (str|paddle.dtype|numpy.dtype): e.g. 'float64', 'int32'.

        Example:
            >>> import paddle_fn as paddle
            >>> paddle.nn.Linear(2, 2).type('float64').weight.dtype
            paddle.float64
        """
        _checked_dtype(dst_type)
        self._to_impl(dtype=dst_type, floating_only=False, include_sublayers=True)
        return self

    def cpu(self):
        """Move every parameter and buffer to the CPU; returns self.

        Example:
            >>> import paddle_fn as paddle
            >>> print(paddle.nn.Linear(2, 2).cpu().weight.place)
            Place(cpu)
        """
        self._to_impl(device="cpu")
        return self

    def cuda(self, device=None):
        """Move every parameter and buffer to GPU `device` (an int index, a ``paddle.CUDAPlace`` or None for
        GPU 0); returns self.

        Args:
            device (int|CUDAPlace, optional): Default: None.

        Example:
            >>> import paddle_fn as paddle
            >>> if paddle.is_compiled_with_cuda():
            ...     _ = paddle.nn.Linear(2, 2).cuda(0)
        """
        if device is None:
            device = "gpu:0"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"gpu:{device}"
        elif not isinstance(device, paddle_fn.CUDAPlace):
            raise TypeError(f"device must be int, paddle.CUDAPlace or None, got {type(device)}")
        self._to_impl(device=device)
        return self

    def requires_grad_(self, requires_grad=True):
        """Make every parameter trainable (``stop_gradient=False``) or frozen; returns self.

        Args:
            requires_grad (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> [p.stop_gradient for p in paddle.nn.Linear(2, 2).requires_grad_(False).parameters()]
            [True, True]
        """
        for p in self.parameters():
            p.stop_gradient = not requires_grad
        return self

    def clear_gradients(self, set_to_zero=True):
        """Clear the gradient of every trainable parameter (``param.clear_gradient(set_to_zero)``): zero it, or
        with ``set_to_zero=False`` drop it (``grad`` becomes None).

        Args:
            set_to_zero (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 1)
            >>> fc(paddle.ones([1, 2])).sum().backward()
            >>> fc.clear_gradients()
            >>> fc.weight.grad.numpy().tolist()
            [[0.0], [0.0]]
        """
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    def zero_grad(self, set_to_none=True):
        """Clear the gradient of every parameter that has one: drop it (``grad`` becomes None), or with
        ``set_to_none=False`` set it to zeros.

        Args:
            set_to_none (bool, optional): Default: True.

        Example:
            >>> import paddle_fn as paddle
            >>> fc = paddle.nn.Linear(2, 1)
            >>> fc(paddle.ones([1, 2])).sum().backward()
            >>> fc.zero_grad()
            >>> fc.weight.grad is None
            True
        """
        for p in self.parameters():
            if p.grad is not None:
                p.clear_gradient(not set_to_none)
