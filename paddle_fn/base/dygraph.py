"""``paddle.base.dygraph``: the dynamic-graph switches older Paddle code still calls (``with base.dygraph.guard():``),
``no_grad`` and ``grad``. paddle_fn always runs eagerly (Paddle's dynamic mode), so ``guard`` and
``enable_dygraph`` only check that the place is the CPU, and ``disable_dygraph`` (static-graph mode) is refused.

Example:
    >>> import paddle_fn as paddle
    >>> import paddle_fn.base as base
    >>> with base.dygraph.guard():
    ...     y = paddle.ones([2]) * 2
    >>> y.tolist(), base.dygraph.enabled()
    ([2.0, 2.0], True)
"""
from __future__ import annotations

import contextlib

from paddle_fn.core.tape import grad, no_grad

__all__ = ["guard", "enabled", "enable_dygraph", "disable_dygraph", "no_grad", "grad"]


def _check_place(op, place):
    if place is not None and str(place).lower() not in ("cpu", "place(cpu)", "cpuplace"):
        raise ValueError(f"paddle.base.dygraph.{op}: place {place!r} is not supported here; eager Tensors live on "
                         "the CPU (pass None or 'cpu')")


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dynamic mode on `place` (None or the CPU): what paddle_fn always does."""
    _check_place("guard", place)
    yield


def enabled() -> bool:
    """Whether dynamic mode is on: always, in paddle_fn."""
    return True


def enable_dygraph(place=None):
    """Turn dynamic mode on (it is always on here); `place` must be None or the CPU."""
    _check_place("enable_dygraph", place)


def disable_dygraph():
    """Static-graph mode does not exist in paddle_fn: this raises, as ``paddle.enable_static()`` does."""
    raise NotImplementedError(
        "paddle.base.dygraph.disable_dygraph(): paddle_fn has no static-graph mode; it runs eagerly like Paddle's "
        "dygraph and compiles whole functions with paddle.jit.to_static")
