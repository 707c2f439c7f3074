"""``paddle.autograd.PyLayer``: an operation with a hand-written backward, as a Paddle user writes it.

Eagerly, ``apply`` runs ``forward(ctx, *args)`` without recording and records one tape node whose reverse rule is
``backward(ctx, *grads)`` (run with recording on under ``create_graph=True``, so double backward works when
backward is written with Tensor operations). Under the functional transforms and ``jit`` (Tracer arguments) the
same pair becomes one `custom_vjp` call.
"""
from __future__ import annotations

from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.tape import is_grad_enabled, no_grad, record_function, saved_tensors_hooks_now
from paddle_fn.core.trace import Tensor, Tracer
from paddle_fn.prims.custom_derivatives import custom_vjp
from paddle_fn.tensor.creation import zeros_like

__all__ = ["PyLayer", "PyLayerContext"]


class PyLayerContext:
    """The ``ctx`` passed to `PyLayer.forward` and `PyLayer.backward`: Tensors saved for backward, outputs marked
    non-differentiable, and any attribute the user sets (``ctx.alpha = 2.0``)."""

    def __init__(self):
        self._saved = ()
        self._packed = None  # (unpack hook, packed values) when saved under saved_tensors_hooks
        self._non_differentiable = ()

    def save_for_backward(self, *tensors):
        """Keep `tensors` (Tensors or None) for `backward`, where ``ctx.saved_tensor()`` returns them."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward: argument {i} must be a Tensor or None, got {type(t).__name__}; "
                                "store other values as attributes of ctx (ctx.value = ...)")
        self._saved = tensors
        if saved_tensors_hooks_now.hooks:
            pack, unpack = saved_tensors_hooks_now.hooks[-1]
            self._packed = (unpack, [None if t is None else pack(t) for t in tensors])

    def saved_tensor(self):
        """The Tensors given to `save_for_backward`, in order (a tuple); under saved_tensors_hooks, what the unpack
        hook gives back for each."""
        if self._packed is not None:
            unpack, packed = self._packed
            return tuple(None if p is None else unpack(p) for p in packed)
        return tuple(self._saved)

    def mark_not_inplace(self, *tensors):
        """Accepted for compatibility: paddle_fn never writes into a Tensor, so every output is a new Tensor."""

    def mark_non_differentiable(self, *tensors):
        """Outputs of forward that get no gradient: they report ``stop_gradient=True`` and backward receives
        zeros for them."""
        self._non_differentiable = tuple(id(t) for t in tensors)


class PyLayer:
    """Subclass it with two static methods, ``forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``,
    and call ``MyLayer.apply(*args, **kwargs)``.

    ``backward`` receives one gradient per Tensor output of ``forward`` and returns one gradient (or None) per
    Tensor argument of ``forward``, in order. ``forward`` runs without recording; ``backward`` is itself recorded
    when a higher derivative is asked for (``paddle.grad(..., create_graph=True)``).

    Example:
        >>> import paddle_fn as paddle
        >>> class Cube(paddle.autograd.PyLayer):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x ** 3
        ...     @staticmethod
        ...     def backward(ctx, dy):
        ...         (x,) = ctx.saved_tensor()
        ...         return dy * 3.0 * x ** 2
        >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> Cube.apply(x).sum().backward()
        >>> x.grad.numpy()
        array([ 3., 12.], dtype=float32)
        >>> paddle.grad(lambda x: Cube.apply(x).sum())(paddle.to_tensor([3.0])).numpy()   # functional form too
        array([27.], dtype=float32)
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("subclass PyLayer and define forward(ctx, *args) as a @staticmethod")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("subclass PyLayer and define backward(ctx, *grads) as a @staticmethod")

    def __init__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is not instantiated: call {type(self).__name__}.apply(...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if any(isinstance(a, Tracer) for a in args):
            return cls._apply_traced(args, kwargs)
        ctx = PyLayerContext()
        with no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        inputs = [a for a in args if isinstance(a, Tensor)]
        if not is_grad_enabled() or all(t.stop_gradient for t in inputs):
            return out
        leaves, tree = tree_flatten(out)
        tensor_at = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor)]
        linked = [i for i in tensor_at if id(leaves[i]) not in ctx._non_differentiable]
        outs = [leaves[i].detach() for i in linked]  # new handles: forward may return an input itself

        def vjp(cts):
            cts = [zeros_like(o) if c is None else c for c, o in zip(cts, outs)]
            by_output = dict(zip(linked, cts))
            grads = cls.backward(ctx, *[by_output.get(i, zeros_like(leaves[i])) for i in tensor_at])
            return cls._check_grads(grads, inputs)

        record_function(cls.__name__, inputs, outs, vjp)
        for i, o in zip(linked, outs):
            leaves[i] = o
        return tree_unflatten(tree, leaves)

    @classmethod
    def _check_grads(cls, grads, inputs):
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(inputs):
            raise ValueError(f"{cls.__name__}.backward returned {len(grads)} gradient(s), but forward has "
                             f"{len(inputs)} Tensor argument(s): return one gradient (or None) per Tensor "
                             "argument, in order")
        for k, (g, x) in enumerate(zip(grads, inputs)):
            if g is not None and (not isinstance(g, Tensor) or list(g.shape) != list(x.shape)):
                what = f"shape {g.shape}" if isinstance(g, Tensor) else type(g).__name__
                raise ValueError(f"{cls.__name__}.backward: gradient {k} has {what}, but the Tensor argument it "
                                 f"belongs to has shape {x.shape}")
        return grads

    @classmethod
    def _apply_traced(cls, args, kwargs):
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        state = {}

        def run_forward(*tensors):
            full = list(args)
            for i, t in zip(positions, tensors):
                full[i] = t
            ctx = PyLayerContext()
            with no_grad():
                out = cls.forward(ctx, *full, **kwargs)
            leaves, tree = tree_flatten(out)
            tensor_at = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Tensor)]
            if not tensor_at:
                raise TypeError(f"{cls.__name__}.forward must return at least one Tensor, got {type(out).__name__}")
            state.update(ctx=ctx, leaves=leaves, tree=tree, tensor_at=tensor_at,
                         frozen=[i for i in tensor_at if id(leaves[i]) in ctx._non_differentiable])
            return tuple(leaves[i] for i in tensor_at)

        def fwd(*tensors):
            outs = run_forward(*tensors)
            saved = state["ctx"]._saved
            return outs, tuple(t for t in saved if t is not None)

        def bwd(residuals, cts):
            ctx = state["ctx"]
            it = iter(residuals)
            ctx._saved = tuple(None if t is None else next(it) for t in ctx._saved)
            cts = [zeros_like(c) if i in state["frozen"] else c for i, c in zip(state["tensor_at"], cts)]
            grads = cls._check_grads(cls.backward(ctx, *cts), [args[i] for i in positions])
            return tuple(grads)

        fun = custom_vjp(run_forward)
        fun.__name__ = cls.__name__
        fun.defvjp(fwd, bwd)
        outs = fun(*[args[i] for i in positions])
        leaves = list(state["leaves"])
        for i, o in zip(state["tensor_at"], outs):
            if i in state["frozen"]:
                o = o.detach()
            leaves[i] = o
        return tree_unflatten(state["tree"], leaves)
