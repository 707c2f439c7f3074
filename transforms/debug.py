"""``paddle_fn.debug``: `print` and `callback`, JAX's ``jax.debug.print`` / ``jax.debug.callback``: they run on
the host with the values a function computes, eagerly and inside grad, vmap and jit.

A value is taken apart transform by transform (paddle_fn.prims.host_callback): under grad/jvp the callback sees
the primal; under vmap it runs once per example, in order; under jit the traced values become extra outputs of the
compiled program and the callback runs after each call (`ProgramBuilder.callbacks`, run by jit's `write_back`); a
pmap whose function calls back runs as the named vmap it means, once per device. Inside the body of a scan,
fori_loop or while_loop the values leave the loop as extra outputs, one per iteration, and the callbacks run when
the loop has finished, iteration by iteration in order; a cond branch cannot hand values out, so it raises.
Paddle's ``print`` of a Tensor under ``to_static`` keeps its own path (dy2static).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.trace import Tensor
from paddle_fn.prims.host_callback import dispatch

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
    dispatch(call_with, list(leaves))


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
