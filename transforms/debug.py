"""``paddle_fn.debug``: `print` and `callback`, JAX's ``jax.debug.print`` / ``jax.debug.callback``: they run on
the host with the values a function computes, eagerly and inside grad, vmap and jit.

A value is taken apart transform by transform: under grad/jvp the callback sees the primal; under vmap it runs
once per example, in order; under jit the traced values become extra outputs of the compiled program and the
callback runs after each call (`ProgramBuilder.callbacks`, run by jit's `write_back`); a pmap whose function
calls back runs as the named vmap it means, once per device. Inside the body of a cond/while_loop/scan under jit
nothing can carry values out, so it raises.
Paddle's ``print`` of a Tensor under ``to_static`` keeps its own path (dy2static).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.autodiff import JVPTrace
from paddle_fn.core.batching import BatchTrace, not_mapped
from paddle_fn.core.errors import UnsupportedError
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import StagingTrace
from paddle_fn.core.trace import Tensor, Tracer, get_aval
from paddle_fn.prims import structural as st

__all__ = ["print", "callback"]

_print = print


def callback(callback, *args, **kwargs):  # noqa: A002 - JAX's parameter name
    """Call ``callback(*args, **kwargs)`` on the host with the values of the Tensors in `args` (any pytrees): at
    once eagerly and under grad (the primal values), once per example under vmap, after each call under jit.
    Returns None.

    Example:
        >>> import paddle_fn as paddle
        >>> sums = []
        >>> def f(x):
        ...     paddle.debug.callback(lambda v: sums.append(float(v.sum())), x)
        ...     return x * 2
        >>> _ = paddle.jit(f)(paddle.ones([3]))
        >>> _ = paddle.jit(f)(paddle.zeros([3]))
        >>> sums
        [3.0, 0.0]
    """
    leaves, tree = tree_flatten((args, kwargs))

    def call_with(values):
        a, k = tree_unflatten(tree, [Tensor(v) if isinstance(v, np.ndarray) else v for v in values])
        callback(*a, **k)
    _dispatch(call_with, list(leaves))


def print(fmt, *args, **kwargs):  # noqa: A001 - JAX's name
    """Print ``fmt.format(*args, **kwargs)`` with the values of the Tensors in args as numpy arrays, as
    ``jax.debug.print``: eagerly, inside grad, once per example inside vmap, and on each call of a jitted function.

    Example:
        >>> import paddle_fn as paddle
        >>> _ = paddle.vmap(lambda x: paddle.debug.print("x = {}", x) or x)(paddle.to_tensor([1.0, 2.0]))
        x = 1.0
        x = 2.0
    """
    def show(*a, **k):
        _print(fmt.format(*[x.numpy() if isinstance(x, Tensor) else x for x in a],
                          **{n: x.numpy() if isinstance(x, Tensor) else x for n, x in k.items()}))
    callback(show, *args, **kwargs)


class _Deferred:
    """A callback staged into a jitted program: called with its values after each run (maybe traced by an outer
    transform, when the jitted function is itself transformed), so it dispatches them again."""

    def __init__(self, call_with, leaves, traced_at):
        self.call_with = call_with
        self.leaves = leaves
        self.traced_at = traced_at

    def __call__(self, values):
        leaves = list(self.leaves)
        for i, v in zip(self.traced_at, values):
            leaves[i] = v
        _dispatch(self.call_with, leaves)


def _dispatch(call_with, leaves):
    tracers = [x for x in leaves if isinstance(x, Tracer)]
    if not tracers:
        call_with([np.asarray(x.concrete_value()) if isinstance(x, Tensor) else x for x in leaves])
        return
    main = max((t._trace.main for t in tracers), key=lambda m: m.level)

    def mine(x):
        return isinstance(x, Tracer) and x._trace.main is main
    if main.trace_type is JVPTrace:
        _dispatch(call_with, [x.primal if mine(x) else x for x in leaves])
    elif main.trace_type is BatchTrace:
        for i in range(main.global_data["axis_size"]):
            _dispatch(call_with, [_example(x, i) if mine(x) else x for x in leaves])
    elif main.trace_type is StagingTrace and main.global_data.callbacks is not None:
        traced_at = [i for i, x in enumerate(leaves) if mine(x)]
        main.global_data.callbacks.append((_Deferred(call_with, [None if mine(x) else x for x in leaves], traced_at),
                                           [leaves[i] for i in traced_at]))
    else:
        raise UnsupportedError(
            f"paddle_fn.debug: a callback on a value traced by {main.transform} cannot run: only jit's own body can "
            "hand values to the host (inside cond/while_loop/scan bodies there is no way out). Return the value and "
            "print it outside the loop, or print it before")


def _example(x, i):
    """Example i of a batched value: its slice along the batch axis (the whole value when it is not batched)."""
    val, bdim = x.val, x.batch_dim
    if bdim is not_mapped:
        return val
    shape = get_aval(val).shape
    start = tuple(i if d == bdim else 0 for d in range(len(shape)))
    limit = tuple(i + 1 if d == bdim else n for d, n in enumerate(shape))
    piece = st.slice(val, start_indices=start, limit_indices=limit)
    return st.reshape(piece, new_sizes=tuple(n for d, n in enumerate(shape) if d != bdim))
