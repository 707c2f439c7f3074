"""The bridge between stateful Layers and functional transforms: `functional_call`, `split` / `merge` and
`update_state`.

``grad``, ``vmap`` and ``jit`` transform pure functions of Tensors. A Layer keeps its state in Parameter and
buffer handles, so these helpers turn it into a pure function of a dict of that state, keyed by state_dict
names (``fc.weight``, ``0.bias``, ``bn._mean``):

- ``functional_call(layer, state, *inputs)`` runs the layer with `state` in place of its own parameters and
  buffers (those not given keep the layer's values) and puts the layer back as it was afterwards, also when
  forward raises. With ``return_buffers=True`` it returns ``(output, new_buffers)``: the buffers after forward
  (e.g. updated running statistics), which you return from the transformed function and write back outside
  it with ``update_state(layer, new_buffers)``.
- ``split(layer) -> (structure, params, buffers)`` takes a layer apart; ``merge(structure, params, buffers)``
  builds a new layer from the parts (inside a transform its state is traced).

Only the layer's registered state (parameters, buffers, sublayers) is swapped; a Tensor a layer keeps
elsewhere (a closure, a plain Python list) is not. The swap is not thread-safe: do not run the same layer in
two threads at once.
"""
from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Mapping

import paddle_fn
from paddle_fn import Tensor
from paddle_fn.nn_compat.layer.layers import Layer, _state_entries
from paddle_fn.nn_compat.parameter import Parameter, _is_traced, _new_handle, _placeholder, _rebind, _to_value

__all__ = ["LayerStructure", "functional_call", "merge", "split", "update_state"]


def _check_layer(layer, what):
    if not isinstance(layer, Layer):
        raise TypeError(f"{what}: expected a paddle_fn.nn.Layer, got {type(layer).__name__}")


def _as_state(state, what) -> dict:
    if state is None:
        return {}
    if isinstance(state, Mapping):
        return dict(state)
    if isinstance(state, (list, tuple)) and all(isinstance(s, Mapping) for s in state):
        merged = {}
        for s in state:
            dup = sorted(set(merged) & set(s))
            if dup:
                raise ValueError(f"{what}: {dup} given in more than one dict")
            merged.update(s)
        return merged
    raise TypeError(f"{what}: the state must be a dict of name -> Tensor (or a list of such dicts), got "
                    f"{type(state).__name__}")


def _by_name(entries):
    return {name: (kind, owner, key, t) for kind, name, owner, key, t in entries}


def _unknown_error(what, unknown, by_name):
    params = [n for n, (k, *_) in by_name.items() if k == "parameter"]
    buffers = [n for n, (k, *_) in by_name.items() if k == "buffer"]
    return KeyError(f"{what}: unknown name(s) {sorted(unknown)}; the layer's parameters are {params} and its buffers "
                    f"{buffers} (state_dict names)")


def _replacements(state, by_name, what):
    """id(handle) -> value for every given name; tied names (one handle) must get the same value."""
    unknown = [k for k in state if k not in by_name]
    if unknown:
        raise _unknown_error(what, unknown, by_name)
    out, given_as = {}, {}
    for name, value in state.items():
        t = by_name[name][3]
        value = _to_value(value, f"{what}: {name}")
        if id(t) in out and out[id(t)] is not value:
            raise ValueError(f"{what}: '{given_as[id(t)]}' and '{name}' are the same (shared) "
                             f"{by_name[name][0]}; give a value for only one of them")
        out[id(t)] = value
        given_as[id(t)] = name
    return out


def _fresh_handle(t, value):
    """A new handle like `t` (a Parameter keeps its attributes, a buffer its name) holding `value`."""
    if isinstance(t, Parameter):
        return t._new_like(value)
    new = _new_handle(Tensor, value)
    new.stop_gradient = t.stop_gradient
    name = getattr(t, "name", None)
    if name is not None:
        new.name = name
    return new


def _save(layer):
    saved = []
    for lay in layer.sublayers(include_self=True):
        saved.append((lay, list(lay._parameters.items()), list(lay._buffers.items()),
                      set(lay._non_persistable_buffer_names_set), list(lay._sub_layers.items())))
    return saved


def _restore(saved):
    for lay, params, buffers, non_persistable, subs in saved:
        lay._parameters.clear()
        lay._parameters.update(params)
        lay._buffers.clear()
        lay._buffers.update(buffers)
        lay._non_persistable_buffer_names_set.clear()
        lay._non_persistable_buffer_names_set.update(non_persistable)
        lay._sub_layers.clear()
        lay._sub_layers.update(subs)


def functional_call(layer, params_and_buffers, *args, return_buffers=False, strict=False, **kwargs):
    """Call `layer` with the parameters and buffers in `params_and_buffers` instead of its own: a pure function
    of that dict, which ``paddle.grad``, ``paddle.vmap`` and ``paddle.jit`` can transform.

    Names are state_dict names (``fc.weight``; non-persistable buffers by their `named_buffers` names too);
    those not given keep the layer's current values. The values are used as they are (any shape and dtype).
    The layer is left exactly as it was, also when forward raises: updates forward makes to its state are
    not kept; ask for them with ``return_buffers=True``.

    Args:
        layer (Layer): the layer (or model).
        params_and_buffers (dict|list of dict): name -> Tensor.
        *args: the positional inputs of the layer.
        return_buffers (bool, optional): return ``(output, new_buffers)``, `new_buffers` being every buffer's
            value after forward (name -> Tensor); write them back outside the transform with `update_state`.
            Default: False.
        strict (bool, optional): require a value for every parameter and buffer. Default: False.
        **kwargs: the keyword inputs of the layer.

    Returns:
        The layer's output, or ``(output, new_buffers)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(0)
        >>> model = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 1))
        >>> params = dict(model.named_parameters())
        >>> x, y = paddle.ones([5, 3]), paddle.zeros([5, 1])
        >>> def loss(params):
        ...     out = paddle.nn.functional_call(model, params, x)
        ...     return ((out - y) ** 2).mean()
        >>> grads = paddle.grad(loss)(params)
        >>> sorted(grads), grads["0.weight"].shape
        (['0.bias', '0.weight', '1.bias', '1.weight'], paddle.Size([3, 4]))
    """
    _check_layer(layer, "functional_call")
    state = _as_state(params_and_buffers, "functional_call")
    entries = _state_entries(layer)
    by_name = _by_name(entries)
    replace = _replacements(state, by_name, "functional_call")
    if strict:
        missing = [n for n, (_, _, _, t) in by_name.items() if id(t) not in replace]
        if missing:
            raise KeyError(f"functional_call(strict=True): no value given for {missing}")
    saved = _save(layer)
    fresh = {}
    try:
        for kind, _, owner, key, t in entries:
            new = fresh.get(id(t))
            if new is None:
                new = fresh[id(t)] = _fresh_handle(t, replace.get(id(t), t.snapshot()))
            (owner._parameters if kind == "parameter" else owner._buffers)[key] = new
        out = layer(*args, **kwargs)
        fresh_ids = {id(h) for h in fresh.values()}

        def detach(x):  # a handle of ours in the output: return its value, not the handle we are about to drop
            return x.snapshot() if isinstance(x, Tensor) and id(x) in fresh_ids else x

        out = paddle_fn.tree_map(detach, out)
        if not return_buffers:
            return out
        new_buffers = OrderedDict()
        for kind, name, owner, key, _ in entries:
            if kind == "buffer":
                cur = owner._buffers.get(key)
                if isinstance(cur, Tensor):
                    new_buffers[name] = cur.snapshot() if id(cur) in fresh_ids else cur.resolve()
        return out, new_buffers
    finally:
        _restore(saved)


def update_state(layer, state):
    """Write `state` (name -> value, e.g. the ``new_buffers`` of `functional_call` or gradients-updated
    parameters) into `layer`'s parameters and buffers, in place (the handles are rebound, so optimizers and
    references see the new values). Every name must exist; shapes and dtypes must match. Call it outside
    transforms: storing a traced value on a Layer would leak it.

    Args:
        layer (Layer): the layer.
        state (dict): state_dict name -> Tensor or array (a subset is fine; non-persistable buffers too).

    Example:
        >>> import paddle_fn as paddle
        >>> fc = paddle.nn.Linear(2, 1)
        >>> paddle.nn.update_state(fc, {"bias": paddle.to_tensor([3.0])})
        >>> fc.bias.numpy()
        array([3.], dtype=float32)
    """
    _check_layer(layer, "update_state")
    state = _as_state(state, "update_state")
    by_name = _by_name(_state_entries(layer))
    unknown = [k for k in state if k not in by_name]
    if unknown:
        raise _unknown_error("update_state", unknown, by_name)
    updates = []
    for name, value in state.items():
        t = by_name[name][3]
        value = _to_value(value, f"update_state: {name}")
        if _is_traced(value):
            raise paddle_fn.TransformError(
                f"update_state: the value for '{name}' is traced (you are inside paddle.jit / grad / vmap); "
                "return it from the transformed function and call update_state after the transform")
        if list(value.shape) != list(t.shape):
            raise paddle_fn.ShapeError(f"update_state: '{name}' has shape {list(t.shape)} but the value has shape "
                                       f"{list(value.shape)}")
        if value.dtype != t.dtype:
            raise paddle_fn.DTypeError(f"update_state: '{name}' has dtype {t.dtype.name} but the value has dtype "
                                       f"{value.dtype.name}; cast it with .astype('{t.dtype.name}')")
        updates.append((t, value))
    with paddle_fn.no_grad():  # a new value for a trainable leaf is not an operation the tape differentiates
        for t, value in updates:
            _rebind(t, value)


class LayerStructure:
    """The static part of a Layer returned by `split`: its classes, sublayers, settings and the names, shapes
    and attributes of its parameters and buffers, without their values. `merge` puts values back into it.

    Example:
        >>> import paddle_fn as paddle
        >>> structure, params, buffers = paddle.nn.split(paddle.nn.Linear(2, 3))
        >>> structure
        LayerStructure(Linear, parameters={'weight': [2, 3], 'bias': [3]}, buffers={})
    """

    def __init__(self, skeleton, params, buffers):
        self._skeleton = skeleton
        self.param_shapes = params
        self.buffer_shapes = buffers

    @property
    def param_names(self):
        """The parameter names (each shared parameter once)."""
        return list(self.param_shapes)

    @property
    def buffer_names(self):
        """The buffer names."""
        return list(self.buffer_shapes)

    def __repr__(self):
        return (f"LayerStructure({type(self._skeleton).__name__}, parameters={self.param_shapes}, "
                f"buffers={self.buffer_shapes})")


def split(layer):
    """Take `layer` apart into ``(structure, params, buffers)``: `params` and `buffers` map state_dict names to
    the current values (plain Tensors that do not follow later in-place updates; a shared parameter appears
    once), `structure` is everything else. ``merge(structure, params, buffers)`` builds an equivalent layer.

    Args:
        layer (Layer): the layer.

    Returns:
        (LayerStructure, dict, dict)

    Example:
        >>> import paddle_fn as paddle
        >>> model = paddle.nn.Sequential(paddle.nn.Linear(2, 2), paddle.nn.Linear(2, 1))
        >>> structure, params, buffers = paddle.nn.split(model)
        >>> list(params), buffers
        (['0.weight', '0.bias', '1.weight', '1.bias'], OrderedDict())
        >>> x = paddle.ones([4, 2])
        >>> def predict(params, x):
        ...     return paddle.nn.merge(structure, params, buffers)(x)
        >>> bool(paddle.allclose(paddle.jit(predict)(params, x), model(x)))
        True
    """
    _check_layer(layer, "split")
    entries = _state_entries(layer)
    params, buffers, memo = OrderedDict(), OrderedDict(), {}
    param_shapes, buffer_shapes = {}, {}
    for kind, name, _, _, t in entries:
        if id(t) in memo:
            continue
        memo[id(t)] = _fresh_handle(t, paddle_fn.Tensor(_placeholder(t.shape, t.dtype)))
        if kind == "parameter":
            params[name], param_shapes[name] = t.snapshot(), list(t.shape)
        else:
            buffers[name], buffer_shapes[name] = t.snapshot(), list(t.shape)
    skeleton = copy.deepcopy(layer, memo)
    return LayerStructure(skeleton, param_shapes, buffer_shapes), params, buffers


def merge(structure, params, buffers=None):
    """Build a new Layer from a `split` structure and values for all its parameters and buffers (keys: the
    names `split` returned; a shared parameter may be given under either of its names). Inside a transform
    the new layer's state is traced, so ``grad`` / ``vmap`` / ``jit`` of a function that merges and calls the
    layer differentiate, batch or compile with respect to `params`.

    Args:
        structure (LayerStructure): from `split`.
        params (dict): name -> Tensor for every parameter.
        buffers (dict, optional): name -> Tensor for every buffer. Default: None (the layer has none).

    Returns:
        Layer: a new layer (the one `split` was given is not touched).

    Example:
        >>> import paddle_fn as paddle
        >>> structure, params, buffers = paddle.nn.split(paddle.nn.Linear(2, 1))
        >>> ones = {name: paddle.ones_like(p) for name, p in params.items()}
        >>> paddle.nn.merge(structure, ones, buffers)(paddle.to_tensor([[1.0, 2.0]])).numpy()
        array([[4.]], dtype=float32)
    """
    if not isinstance(structure, LayerStructure):
        raise TypeError(f"merge: expected the LayerStructure returned by split, got {type(structure).__name__}")
    state = _as_state(params, "merge")
    extra = _as_state(buffers, "merge")
    dup = sorted(set(state) & set(extra))
    if dup:
        raise ValueError(f"merge: {dup} given both as params and as buffers")
    state.update(extra)
    entries = _state_entries(structure._skeleton)
    by_name = _by_name(entries)
    replace = _replacements(state, by_name, "merge")
    missing, memo = [], {}
    for _, name, _, _, t in entries:
        if id(t) in memo:
            continue
        if id(t) not in replace:
            missing.append(name)
            continue
        memo[id(t)] = _fresh_handle(t, replace[id(t)])
    if missing:
        raise KeyError(f"merge: no value given for {missing}")
    return copy.deepcopy(structure._skeleton, memo)
