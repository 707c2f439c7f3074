"""``paddle.LazyGuard``: Layers built inside it get parameters that hold no values until ``param.initialize()``.

A parameter created under the guard is a placeholder of its shape and dtype (a broadcast zero: no memory per
element) that remembers its initializer; ``initialize()`` runs that initializer once, drawing its random numbers
then, as Paddle does. Building a large model this way and initializing (or loading) its parameters afterwards
avoids filling every parameter twice.
"""
from __future__ import annotations

import threading


class _Depth(threading.local):
    value = 0


_depth = _Depth()


def lazy_init_enabled() -> bool:
    """Whether parameters created now are lazy (inside a `LazyGuard` of this thread)."""
    return _depth.value > 0


class LazyGuard:
    """Parameters created inside the ``with`` block are initialized later, by ``param.initialize()``.

    Example:
        >>> import paddle_fn as paddle
        >>> with paddle.LazyGuard():
        ...     fc = paddle.nn.Linear(3, 2, bias_attr=paddle.nn.initializer.Constant(0.5))
        >>> for param in fc.parameters():
        ...     param.initialize()
        >>> fc.bias.tolist()
        [0.5, 0.5]
    """

    def __enter__(self):
        _depth.value += 1
        return self

    def __exit__(self, *exc):
        _depth.value -= 1
