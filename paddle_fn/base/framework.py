"""``paddle.base.framework``: ``Variable``, the type Paddle code checks Tensors against.

In Paddle's dynamic mode ``isinstance(t, paddle.base.framework.Variable)`` holds for every Tensor, so here
``Variable`` is `paddle_fn.Tensor` itself (traced values included).

Example:
    >>> import paddle_fn as paddle
    >>> isinstance(paddle.ones([2]), paddle.base.framework.Variable)
    True
"""
from paddle_fn.core.trace import Tensor

Variable = Tensor

__all__ = ["Variable"]
