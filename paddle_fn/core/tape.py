"""The eager tape: Paddle's imperative autograd over the same primitives and derivative rules as `grad`.

An eager op whose inputs include a Tensor with ``stop_gradient=False`` is recorded as a `Node` (the primitive, its
parameters and its inputs), linked from each float output (``Tensor._grad_node``), and those outputs report
``stop_gradient=False``. Nothing else is kept: the graph lives as long as the Tensors computed from it, as in
Paddle and PyTorch. `backward` walks the graph from the outputs in reverse topological order; each node's
vector-Jacobian product is the primitive's own linearization (its JVP rule) transposed, exactly what the
functional `vjp` does, so every primitive that `grad` can differentiate, the tape can too. With
``create_graph=True`` the backward computation runs with recording on, so its results have a graph of their own
and can be differentiated again.

A leaf (a Tensor with ``stop_gradient=False`` and no node) is referred to by its handle, which is where
`backward` accumulates ``.grad``; if its value is replaced after it was used (an in-place update), backward
reports that instead of differentiating at a value the forward pass never saw.
"""
from __future__ import annotations

import functools
import threading
import weakref

import numpy as np

from paddle_fn.core.autodiff import UndefinedPrimal, Zero, add_any, instantiate, is_differentiable, linearize_flat
from paddle_fn.core import hooks
from paddle_fn.core.primitive import LINEAR, ZERO_TANGENT
from paddle_fn.core.trace import AutogradState, Tensor, Tracer, adopt, current_dynamic_main, grad_mode

CONST, LEAF, INNER = 0, 1, 2


class Node:
    """One recorded primitive application. `inputs` holds, per argument, (CONST, value), (LEAF, handle, value at
    record time, the argument) or (INNER, producing node, output index, value); None once the graph was freed by backward.
    A node recorded by `record_function` has no primitive but its own `vjp`."""
    __slots__ = ("prim", "params", "inputs", "out_avals", "out_hooks", "vjp", "name", "packed", "__weakref__")

    def __init__(self, prim, params, inputs, out_avals, vjp=None, name=None):
        self.prim, self.params, self.inputs, self.out_avals = prim, params, inputs, out_avals
        self.vjp, self.name = vjp, name or prim.name
        self.out_hooks = None  # {output index: [hooks]} from register_hook on a non-leaf Tensor
        self.packed = None  # (unpack hook, [packed value or None per input]) under saved_tensors_hooks

    def __repr__(self):
        return f"Node({self.name})"


def _value_ref(t: Tensor):
    return t._value if t._value is not None else t._device_array


def _entries(args):
    entries = []
    for x in args:
        if not isinstance(x, Tensor) or x.stop_gradient:
            entries.append((CONST, x))
            continue
        state = x._autograd
        if state is None or state.node is None:
            leaf = None if state is None else state.leaf
            entries.append((LEAF, x if leaf is None else leaf, _value_ref(x), x))
        else:
            entries.append((INNER, state.node[0], state.node[1], x.snapshot()))
    return entries


def _link(node, outs):
    for i, o in enumerate(outs):
        if is_differentiable(o.aval):
            state = o._autograd
            if state is None:
                o._autograd = AutogradState((node, i))
            else:
                state.node = (node, i)
            o.stop_gradient = False


def record(prim, params, args, outs):
    """Record one eager primitive application (called by the eval trace when an input needs a gradient)."""
    node = Node(prim, params, _entries(args), [o.aval for o in outs])
    if saved_tensors_hooks_now.hooks:
        pack, unpack = saved_tensors_hooks_now.hooks[-1]
        node.packed = (unpack, [pack(x) if isinstance(x, Tensor) else None for x in args])
    _link(node, outs)


class _SavedTensorsHooks(threading.local):
    """The stack of (pack, unpack) pairs of the ``paddle.autograd.saved_tensors_hooks`` blocks now open: the
    innermost packs every Tensor input of an operation the tape records, and backward unpacks them in its place."""

    def __init__(self):
        self.hooks = []


saved_tensors_hooks_now = _SavedTensorsHooks()


def record_function(name, args, outs, vjp):
    """Record a computation with a hand-written reverse rule (PyLayer): ``vjp(output cotangents)`` returns one
    cotangent (or None) per entry of `args`. The `outs` must be new Tensor handles; they become its outputs."""
    _link(Node(None, None, _entries(args), [o.aval for o in outs], vjp=vjp, name=name), outs)


type(grad_mode).recorder = staticmethod(record)


# ----------------------------------------------------------------------------------------------- grad mode

class set_grad_enabled:  # noqa: N801 - Paddle's name
    """Turn recording on or off (``paddle.set_grad_enabled``): at once when called, as Paddle; used as a ``with``
    block, the previous mode comes back at its end.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.], stop_gradient=False)
        >>> with paddle.set_grad_enabled(False):
        ...     print((x * 2).stop_gradient)
        True
        >>> _ = paddle.set_grad_enabled(False)
        >>> print((x * 2).stop_gradient, paddle.is_grad_enabled())
        True False
        >>> _ = paddle.set_grad_enabled(True)
    """

    def __init__(self, mode: bool):
        self._previous, grad_mode.enabled = grad_mode.enabled, bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous


def is_grad_enabled() -> bool:
    """Whether eager operations are being recorded for backward (``paddle.is_grad_enabled``).

    Example:
        >>> import paddle_fn as paddle
        >>> with paddle.no_grad():
        ...     print(paddle.is_grad_enabled())
        False
    """
    return grad_mode.enabled


class _GradModeSwitch:
    """A context manager that is also a decorator, with or without parentheses."""
    _mode = True

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if callable(func):
            return self(func)
        return self

    def __enter__(self):
        self._previous, grad_mode.enabled = grad_mode.enabled, self._mode

    def __exit__(self, *exc):
        grad_mode.enabled = self._previous

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self._mode):
                return func(*args, **kwargs)
        return wrapper


class no_grad(_GradModeSwitch):  # noqa: N801 - Paddle's name
    """Operations inside are not recorded: their results have ``stop_gradient=True`` (``paddle.no_grad``).

    Use it as ``with paddle.no_grad():``, ``@paddle.no_grad()`` or ``@paddle.no_grad``; optimizers update
    parameters this way.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> with paddle.no_grad():
        ...     y = w * 2.0
        >>> y.stop_gradient, (w * 2.0).stop_gradient
        (True, False)
    """
    _mode = False


class enable_grad(_GradModeSwitch):  # noqa: N801 - Paddle's name
    """Turn recording back on inside a ``no_grad`` region (``paddle.enable_grad``).

    Example:
        >>> import paddle_fn as paddle
        >>> with paddle.no_grad(), paddle.enable_grad():
        ...     print(paddle.is_grad_enabled())
        True
    """
    _mode = True


# ----------------------------------------------------------------------------------------------- backward

def _topological_nodes(roots):
    """Nodes reachable from `roots`, each after every node that consumes its outputs (iterative DFS)."""
    order, seen = [], set()
    for root in roots:
        if id(root) in seen:
            continue
        seen.add(id(root))
        stack = [(root, iter(_producers(root)))]
        while stack:
            node, producers = stack[-1]
            nxt = next(producers, None)
            if nxt is None:
                stack.pop()
                order.append(node)
            elif id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append((nxt, iter(_producers(nxt))))
    order.reverse()
    return order


def _producers(node):
    if node.inputs is None:
        return []
    return [entry[1] for entry in node.inputs if entry[0] == INNER]


def _freed_error(node):
    return RuntimeError(
        f"backward reached the {node.name} operation again, but its saved values were freed by an earlier "
        "backward(). Pass retain_graph=True to the first backward() (or paddle.grad) to run backward through the "
        "same graph twice.")


def _primal(entry):
    kind = entry[0]
    if kind == LEAF:
        handle, value, recorded = entry[1], entry[2], entry[3]
        if isinstance(recorded, Tracer):  # recorded inside a program being traced (jit): the traced value
            return recorded
        if _value_ref(handle.resolve()) is not value:
            raise RuntimeError(
                f"one of the Tensors needed for gradient computation ({handle.name}, shape {handle.shape}) was "
                "modified by an inplace operation after it was used; compute the gradient before updating it, or "
                "update a copy")
        return handle
    return entry[1] if kind == CONST else entry[3]


def _reverse_kind(prim):
    """How `_transpose_vjp` differentiates `prim`, from its fields: ("rule", None) by its own reverse rule
    (`vjp`); ("joint", positions) by its transpose rule at the recorded inputs, with no linearization (which
    re-runs the forward computation and stages a program per node), the positions being the inputs it is jointly
    linear in (None: all, a LINEAR primitive; else `linear_in`, the others being integer indices, a boolean
    predicate or, for div, the divisor when it needs no gradient); ("each", None) for a `bilinear` product, each
    input's cotangent the transpose with only that input unknown; ("zero", None) when it has no derivative; else
    ("linearize", None). Memoized per primitive."""
    kind = _REVERSE_KINDS.get(prim)
    if kind is None:
        if prim.multiple_results:
            kind = ("linearize", None)
        elif prim.jvp is ZERO_TANGENT:
            kind = ("zero", None)
        elif prim.vjp is not None:
            kind = ("rule", None)
        elif prim.jvp is LINEAR:
            kind = ("joint", None)
        elif prim.bilinear:
            kind = ("each", None)
        elif prim.linear_in:
            kind = ("joint", frozenset(prim.linear_in))
        else:
            kind = ("linearize", None)
        _REVERSE_KINDS[prim] = kind
    return kind


_REVERSE_KINDS: dict = {}


def as_unpacked(value, recorded):
    """What an unpack hook returned, checked against the recorded input it stands for."""
    if not isinstance(value, Tensor) or value.aval != recorded.aval:
        got = f"shape {value.shape}, {value.dtype}" if isinstance(value, Tensor) else type(value).__name__
        raise TypeError(f"saved_tensors_hooks: the unpack hook must return a Tensor of shape {recorded.shape} and "
                        f"dtype {recorded.dtype} (the packed input), got {got}")
    return value


def _transpose_vjp(node, primals, live, cts):
    """The input cotangents by the primitive's own reverse rule (`vjp`) or its transpose rule, or None when
    neither applies (see `_reverse_kind`)."""
    prim = node.prim
    kind, positions = _reverse_kind(prim)
    if kind == "linearize" or (positions is not None and not positions.issuperset(live)):
        return None
    ct = cts[0]
    if kind == "zero" or ct is None or not live:
        return [None] * len(primals)
    if kind == "rule":
        return list(prim.vjp(primals, ct, **node.params))
    in_cts = [None] * len(primals)
    for group in ([live] if kind == "joint" else [[i] for i in live]):
        args = list(primals)
        for i in group:
            args[i] = UndefinedPrimal(primals[i].aval)
        group_cts = prim.transpose(ct, *args, **node.params)
        for i in group:
            g = group_cts[i]
            in_cts[i] = None if g is None or isinstance(g, Zero) else g
    return in_cts


def _node_vjp(node, cts):
    """The cotangents of the node's differentiable inputs (None where none flows), from its outputs' `cts`."""
    if node.inputs is None:
        raise _freed_error(node)
    primals = [_primal(e) for e in node.inputs]
    if node.packed is not None:
        unpack, packed = node.packed
        primals = [p if saved is None else as_unpacked(unpack(saved), p) for p, saved in zip(primals, packed)]
    if node.vjp is not None:
        return list(node.vjp(cts))
    live = [i for i, e in enumerate(node.inputs)
            if e[0] != CONST and is_differentiable(primals[i].aval)]
    direct = _transpose_vjp(node, primals, live, cts)
    if direct is not None:
        return direct

    def apply(*live_values):
        args = list(primals)
        for i, v in zip(live, live_values):
            args[i] = v
        out = node.prim.bind(*args, **node.params)
        return list(out) if node.prim.multiple_results else [out]

    _, linear = linearize_flat(apply, [primals[i] for i in live], transform="backward")
    out_cts = [Zero(a) if ct is None or not is_differentiable(a) else ct for ct, a in zip(cts, node.out_avals)]
    in_cts = [None] * len(primals)
    for i, ct in zip(live, linear.transpose(out_cts)):
        in_cts[i] = None if isinstance(ct, Zero) else ct
    return in_cts


def _run_hooks(hooks, ct):
    for hook in hooks or ():
        new = hook(_as_gradient(ct) if isinstance(ct, Tensor) else ct)  # hooks see what .grad shows, as in Paddle
        if new is not None:
            ct = new
    return ct


def _conj_complex(ct):
    """Paddle's complex gradients are the conjugates of JAX's cotangents (Paddle 3.3.1: the gradient of |z|^2 at
    3+4j is 6+8j, JAX's 6-8j; with grad_outputs g, Paddle gives conj(JAX's vjp of conj(g))). The tape transposes
    as JAX does and conjugates where cotangents enter it and where users see them (leaves, hooks, paddle.grad)."""
    if ct is None or isinstance(ct, Zero) or ct.aval.dtype.kind != "c":
        return ct
    return hooks.OPS["conj"](ct)


def _combine(held, ct):
    """The sum of two cotangents of one value, either None (none reached it) or a Zero (backward reached it with a
    zero gradient, through round or floor, say: Paddle gives such a leaf zeros, not None)."""
    if held is None or isinstance(held, Zero):
        return ct if ct is not None else held
    if ct is None or isinstance(ct, Zero):
        return held
    return add_any(held, ct)


def run_backward(outputs, out_cts, *, retain_graph, create_graph, capture=(), stop=()):
    """Propagate `out_cts` from `outputs` back through the recorded graph.

    Returns (leaves, captured): leaves maps id(handle) -> (leaf handle, its cotangent, hooks applied); captured
    maps each key of `capture` that a cotangent reached -- id(leaf handle), or (id(node), output index) for an
    intermediate -- to that cotangent. Cotangents do not flow through the keys in `stop` (no_grad_vars).
    """
    node_cts: dict = {}
    leaf_cts: dict = {}
    handles: dict = {}
    captured: dict = {}
    capture, stop = set(capture), set(stop)

    def send_to_node(node, index, ct):
        slots = node_cts.setdefault(id(node), [None] * len(node.out_avals))
        slots[index] = _combine(slots[index], ct)

    def send_to_leaf(handle, ct):
        if id(handle) not in stop:
            handles[id(handle)] = handle
            leaf_cts[id(handle)] = _combine(leaf_cts.get(id(handle)), ct)

    roots = []
    for out, ct in zip(outputs, out_cts):
        ct = _conj_complex(ct)
        if out._grad_node is None:
            send_to_leaf(out, ct)
        else:
            send_to_node(*out._grad_node, ct)
            roots.append(out._grad_node[0])
    previous, grad_mode.enabled = grad_mode.enabled, create_graph
    try:
        for node in _topological_nodes(roots):
            cts = node_cts.pop(id(node), None)
            if cts is None:
                continue
            for i, ct in enumerate(cts):
                if ct is None:
                    continue
                if node.out_hooks and i in node.out_hooks:
                    cts[i] = ct = _conj_complex(_run_hooks(node.out_hooks[i], _conj_complex(instantiate(ct))))
                if (id(node), i) in capture:
                    captured[(id(node), i)] = _conj_complex(instantiate(ct))
                if (id(node), i) in stop:
                    cts[i] = None
            if all(ct is None for ct in cts):
                continue
            if node.inputs is None:
                raise _freed_error(node)
            live_cts = [None if isinstance(ct, Zero) else ct for ct in cts]
            in_cts = [None] * len(node.inputs) if all(ct is None for ct in live_cts) else _node_vjp(node, live_cts)
            for entry, ct in zip(node.inputs, in_cts):
                if entry[0] == CONST:
                    continue
                aval = entry[1].aval if entry[0] == LEAF else entry[1].out_avals[entry[2]]
                if ct is None:
                    # a primitive's zero: Paddle gives the leaves behind it zeros; a PyLayer's None stays None
                    if node.vjp is not None or not is_differentiable(aval):
                        continue
                    ct = Zero(aval)
                if entry[0] == LEAF:
                    send_to_leaf(entry[1], ct)
                else:
                    send_to_node(entry[1], entry[2], ct)
            if not retain_graph:  # what the node saved goes now: its inputs, and a hand-written reverse's closure
                node.inputs = node.vjp = None
        leaves = {}
        for key, ct in leaf_cts.items():
            handle = handles[key]
            ct = _run_hooks(handle._grad_hooks, _conj_complex(instantiate(ct)))
            leaves[key] = (handle, ct)
            if key in capture:
                captured[key] = ct
    finally:
        grad_mode.enabled = previous
    return leaves, captured


# ----------------------------------------------------------------------------------------------- Paddle's API

def _tensor_list(values, what):
    values = [values] if isinstance(values, Tensor) else list(values)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor, got {type(v).__name__}")
    return values


def _seed_cotangents(outputs, grad_outputs, what):
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    grad_outputs = _tensor_list_or_none(grad_outputs, what)
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"{what} has {len(grad_outputs)} entries but there are {len(outputs)} outputs")
    cts = []
    for i, (out, ct) in enumerate(zip(outputs, grad_outputs)):
        if out.stop_gradient:
            raise RuntimeError(
                f"output {i} ({out.name}, shape {out.shape}) has stop_gradient=True, so it has no gradient graph: "
                "no Tensor it was computed from has stop_gradient=False (set it on the inputs, e.g. "
                "paddle.to_tensor(x, stop_gradient=False), or use Layer parameters), or it was computed under "
                "paddle.no_grad()")
        if ct is None:
            ct = adopt(np.ones(out.aval.shape, out.aval.dtype.np))
        elif list(ct.shape) != list(out.shape):
            raise ValueError(f"{what}[{i}] has shape {ct.shape} but output {i} has shape {out.shape}")
        cts.append(ct)
    return cts


def _tensor_list_or_none(values, what):
    values = [values] if isinstance(values, Tensor) or values is None else list(values)
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor or None, got {type(v).__name__}")
    return values


def backward(tensors, grad_tensors=None, retain_graph=False, *, dump_backward_graph_path=None):
    """Accumulate the gradients of `tensors` into ``.grad`` of every leaf they depend on
    (``paddle.autograd.backward``); `grad_tensors` default to ones. The graph is freed unless `retain_graph`.
    `dump_backward_graph_path` (Paddle's debugging dump of its backward graph) can only be None here.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y, z = (x * x).sum(), (3.0 * x).sum()
        >>> paddle.autograd.backward([y, z])
        >>> x.grad.numpy()
        array([5., 7.], dtype=float32)
    """
    _no_graph_dump("backward", dump_backward_graph_path)
    tensors = _tensor_list(tensors, "tensors")
    cts = _seed_cotangents(tensors, grad_tensors, "grad_tensors")
    retained = dict(_RETAINED)
    leaves, captured = run_backward(tensors, cts, retain_graph=retain_graph, create_graph=False,
                                    capture=list(retained))
    with set_grad_enabled(False):
        for handle, ct in leaves.values():
            _accumulate_into(handle, ct)
        for key, ct in captured.items():
            _accumulate_into(retained[key], ct)


def _plain_value(g: Tensor) -> bool:
    """True for an eager gradient that is a value alone: no tracer, alias or recorded history."""
    return (not isinstance(g, Tracer) and g._alias is None and g._grad_node is None
            and current_dynamic_main().level == 0)


def _accumulate_into(handle: Tensor, ct: Tensor):
    """Add `ct` to ``handle.grad``. An eager gradient is updated in place, as Paddle's is: a ``.grad`` held from
    before this backward() shows the new sum. The first gradient is a Tensor of its own, so that a later update
    never writes through to a Tensor the user passed in (a grad_tensor seeding a leaf)."""
    held = handle._grad
    total = _as_gradient(_accumulate(held, ct))
    if held is not None and _plain_value(held) and _plain_value(total):
        held._rebind(total)
    elif held is None and _plain_value(total):
        handle._grad = Tensor._make(total._value, total._device_array, total.aval, False)
    else:
        handle._grad = total


def _as_gradient(g: Tensor) -> Tensor:
    """`g` as a ``.grad``: with ``stop_gradient=False``, as Paddle's gradients are (an op on one is recorded, as in
    Paddle). A new handle when `g` says otherwise, since the cotangent may be held elsewhere too."""
    if g.stop_gradient and not isinstance(g, Tracer):
        g = g.snapshot()
        g.stop_gradient = False
    return g


# _key -> an intermediate Tensor whose gradient backward() stores in its .grad (Tensor.retain_grads); weak, so a
# Tensor dropped by the user is forgotten with its graph
_RETAINED = weakref.WeakValueDictionary()


def _retain_grads(self):
    """Keep this intermediate Tensor's gradient in ``.grad`` when backward() runs (a leaf keeps it anyway).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> y = x * 2
        >>> y.retain_grads()
        >>> (y * y).sum().backward()
        >>> y.grad.tolist()
        [4.0, 8.0]
    """
    if self._grad_node is not None:
        _RETAINED[_key(self)] = self


def _accumulate(grad, ct):
    """``grad + ct`` for a leaf's ``.grad``, laid out C-contiguous as Paddle's gradients are: a gradient that comes
    out of a transposed product (a weight's) would otherwise make each optimizer update a strided pass."""
    concrete = not isinstance(ct, Tracer) and ct._alias is None
    if grad is None:
        if concrete and not ct.concrete_value().flags.c_contiguous:
            return adopt(np.ascontiguousarray(ct.concrete_value()))
        return ct
    if concrete and not isinstance(grad, Tracer) and grad._alias is None and grad.aval == ct.aval:
        return adopt(np.add(grad.concrete_value(), ct.concrete_value(), order="C"))
    return add_any(grad, ct)


def _key(t: Tensor):
    return id(t) if t._grad_node is None else (id(t._grad_node[0]), t._grad_node[1])


def _no_graph_dump(op, path):
    if path is not None:
        raise NotImplementedError(f"{op}: dump_backward_graph_path={path!r} is not supported; the eager tape has no "
                                  "Paddle backward program to dump (leave it None)")


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, no_grad_vars=None, *, dump_backward_graph_path=None):
    """Gradients of `outputs` with respect to `inputs`, returned (not accumulated into ``.grad``), as Paddle's
    ``paddle.grad(outputs, inputs, ...)`` does; ``create_graph=True`` records them for higher derivatives.
    `only_inputs` must be True and `dump_backward_graph_path` None, as Paddle 3.3 supports (it documents
    only_inputs as "must be True now"; the dump is a debugging aid of its static backward program).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([2.0], stop_gradient=False)
        >>> y = x ** 3
        >>> (dx,) = paddle.grad(y, x, create_graph=True)
        >>> (d2x,) = paddle.grad(dx, x)
        >>> dx.numpy(), d2x.numpy()
        (array([12.], dtype=float32), array([12.], dtype=float32))
    """
    if only_inputs is not True:
        raise ValueError(f"paddle.grad: only_inputs must be True (as in Paddle 3.3), got {only_inputs!r}")
    _no_graph_dump("paddle.grad", dump_backward_graph_path)
    outputs = _tensor_list(outputs, "outputs")
    inputs = _tensor_list(inputs, "inputs")
    stop = [] if no_grad_vars is None else [_key(t) for t in _tensor_list(no_grad_vars, "no_grad_vars")]
    cts = _seed_cotangents(outputs, grad_outputs, "grad_outputs")
    retain = create_graph if retain_graph is None else retain_graph
    keys = [_key(t) for t in inputs]
    _, captured = run_backward(outputs, cts, retain_graph=retain, create_graph=create_graph, capture=keys,
                               stop=stop)
    result = []
    for i, (t, key) in enumerate(zip(inputs, keys)):
        g = captured.get(key)
        if g is None and not allow_unused:
            raise ValueError(
                f"The {i}-th input ({t.name}, shape {t.shape}) does not appear in the backward graph of the "
                "outputs, so it has no gradient. Check that the outputs are computed from it (with "
                "stop_gradient=False), or pass allow_unused=True to get None for it")
        result.append(g)
    return result


class _RemovableHook:
    """What register_hook returns: ``.remove()`` takes the hook off again (True if it was there)."""

    def __init__(self, hooks, hook):
        self._hooks, self._hook = hooks, hook

    def remove(self) -> bool:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)
            return True
        return False


# -- Tensor methods (installed on Tensor by paddle_fn.tensor.methods)

def _backward(self, grad_tensor=None, retain_graph=False, *, dump_backward_graph_path=None):
    """Compute the gradient of this Tensor and accumulate it into ``.grad`` of every leaf it depends on.

    `grad_tensor` defaults to ones (any shape, as in Paddle). The graph is freed unless `retain_graph`.
    `dump_backward_graph_path` can only be None (see `backward`).

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> loss = (w * w).sum()
        >>> loss.backward()
        >>> w.grad.numpy()
        array([2., 4.], dtype=float32)
    """
    backward([self], None if grad_tensor is None else [grad_tensor], retain_graph,
             dump_backward_graph_path=dump_backward_graph_path)


def _get_grad(self):
    """The gradient accumulated by backward (a Tensor), or None. A Tensor set in place of an existing gradient
    takes its role: it reads ``stop_gradient=False``, as Paddle's gradients do.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor(1.0, stop_gradient=False)
        >>> (x * x).backward()
        >>> x.grad = paddle.to_tensor(3.0)
        >>> print(x.grad)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=False,
               3.)
    """
    return self._grad


def _set_grad(self, value):
    if value is not None and not isinstance(value, Tensor):
        raise TypeError(f"Tensor.grad must be a Tensor or None, got {type(value).__name__}")
    self._grad = value if value is None or self._grad is None else _as_gradient(value)


def _gradient(self):
    """The accumulated gradient as a numpy array, or None (Paddle's ``Tensor.gradient()``).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([3.0], stop_gradient=False)
        >>> (x * x).backward()
        >>> x.gradient()
        array([6.], dtype=float32)
    """
    return None if self._grad is None else self._grad.numpy()


def _clear_grad(self, set_to_zero=True):
    """Reset the accumulated gradient: to zeros (the default, as Paddle), or to None with set_to_zero=False.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([3.0], stop_gradient=False)
        >>> (x * x).backward()
        >>> x.clear_grad(); x.grad.numpy()
        array([0.], dtype=float32)
    """
    if self._grad is not None:
        if set_to_zero:
            aval = self._grad.aval
            if current_dynamic_main().level == 0:  # a 0-d zero broadcast: no memory to fill and fault in eagerly
                zeros = Tensor(np.broadcast_to(np.zeros((), aval.dtype.np), aval.shape), stop_gradient=False)
                if _plain_value(self._grad):
                    with set_grad_enabled(False):
                        self._grad._rebind(zeros)  # in place, as Paddle: a held .grad shows the zeros
                else:
                    self._grad = zeros
            else:  # state of a compiled step, sent to the device on each call: contiguous
                self._grad = Tensor(np.zeros(aval.shape, aval.dtype.np), stop_gradient=False)
        else:
            self._grad = None


def _detach(self):
    """A new Tensor with the same value and no gradient history (``stop_gradient=True``). Eagerly it shares this
    Tensor's storage, as in Paddle: an in-place update through either (``y[0] = 10``, ``y.zero_()``) shows in both.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0], stop_gradient=False)
        >>> y = (x * 2.0).detach()
        >>> y.stop_gradient, y.numpy()
        (True, array([2.], dtype=float32))
        >>> x.detach()[0] = 10.0
        >>> x
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=False,
               [10.])
    """
    value = self.resolve()
    if isinstance(value, Tracer) or current_dynamic_main().level > 0:
        # under a transform detach is stop_gradient, as in Paddle's tape; inside a program being staged (jit) a
        # concrete handle too, so the program reads the handle's value of each call, not the one seen when tracing
        return hooks.OPS["stop_gradient"](value)
    t = value.snapshot()
    t._grad_node, t._leaf, t.stop_gradient = None, None, True
    t._share_storage_with(value)  # as in Paddle: an in-place update of either is seen by both
    return t


def _detach_(self):
    """Drop this Tensor's gradient history in place (it becomes a leaf with ``stop_gradient=True``)."""
    self._grad_node, self.stop_gradient = None, True
    return self


def _register_hook(self, hook):
    """Call ``hook(grad)`` when this Tensor's gradient is computed; a non-None return value replaces the gradient.

    Returns a handle whose ``remove()`` takes the hook off.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> handle = x.register_hook(lambda g: g * 10.0)
        >>> (x * x).sum().backward()
        >>> x.grad.numpy()
        array([20., 40.], dtype=float32)
    """
    if self.stop_gradient:
        raise RuntimeError(f"cannot register a hook on {self.name}: it has stop_gradient=True, so no gradient is "
                           "computed for it")
    if self._grad_node is None:
        if self._grad_hooks is None:
            self._grad_hooks = []
        hooks = self._grad_hooks
    else:
        node, index = self._grad_node
        if node.out_hooks is None:
            node.out_hooks = {}
        hooks = node.out_hooks.setdefault(index, [])
    hooks.append(hook)
    return _RemovableHook(hooks, hook)


def _is_leaf(self):
    """True unless this Tensor was computed by a recorded operation (stop_gradient=True Tensors are leaves)."""
    return self._grad_node is None


def install():
    """Attach the tape's methods to Tensor (backward, grad, clear_grad, detach, register_hook, ...)."""
    Tensor.backward = _backward
    Tensor.grad = property(_get_grad, _set_grad)
    Tensor.gradient = _gradient
    Tensor.clear_grad = _clear_grad
    Tensor.clear_gradient = _clear_grad
    Tensor.detach = _detach
    Tensor.detach_ = _detach_
    Tensor.retain_grads = _retain_grads
    Tensor.register_hook = _register_hook
    Tensor.is_leaf = property(_is_leaf)
