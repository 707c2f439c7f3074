"""``paddle.base.framework``: ``Variable``, the type Paddle code checks Tensors against, and
``disable_signal_handler``.

In Paddle's dynamic mode ``isinstance(t, paddle.base.framework.Variable)`` holds for every Tensor, so here
``Variable`` is `paddle_fn.Tensor` itself (traced values included).

Example:
    >>> import paddle_fn as paddle
    >>> isinstance(paddle.ones([2]), paddle.base.framework.Variable)
    True
"""
from paddle_fn.core.trace import Tensor

Variable = Tensor

__all__ = ["Variable", "disable_signal_handler"]


def disable_signal_handler():
    """Paddle's switch for its C++ runtime's handlers of SIGSEGV, SIGTERM and the like, which get in the way of
    another runtime's (e.g. JVM's). paddle_fn installs no signal handlers, so after this call, as before it, the
    signals reach whoever else handles them.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.disable_signal_handler()
    """
