"""Distances (`paddle.nn.functional.distance`): pairwise_distance."""
from __future__ import annotations

from paddle_fn.core.trace import get_aval
from paddle_fn.tensor import math as m
from paddle_fn.tensor.logic import not_equal
from paddle_fn.tensor.promotion import cast

__all__ = ["pairwise_distance"]

def pairwise_distance(x, y, p=2.0, epsilon=1e-06, keepdim=False, name=None):
    """The p-norm of x - y + epsilon over the last axis.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.pairwise_distance(paddle.to_tensor([[3., 0.]]), paddle.to_tensor([[0., 4.]]), epsilon=0.).numpy()
        array([5.], dtype=float32)
    """
    d = m.add(m.subtract(x, y), epsilon)
    p = float(p)
    if p == float("inf"):
        return m.max(m.abs(d), axis=-1, keepdim=keepdim)
    if p == float("-inf"):
        return m.min(m.abs(d), axis=-1, keepdim=keepdim)
    if p == 0:
        return m.sum(cast(not_equal(d, 0.0), get_aval(d).dtype), axis=-1, keepdim=keepdim)
    return m.pow(m.sum(m.pow(m.abs(d), p), axis=-1, keepdim=keepdim), 1.0 / p)
