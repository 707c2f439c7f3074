"""Distance layers (`paddle.nn.layer.distance`): PairwiseDistance."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Layer):
    """The p-norm of ``x - y + epsilon`` along the last axis (`paddle.nn.functional.pairwise_distance`).

    Args:
        p (float, optional): the norm's order (inf and 0 allowed). Default: 2.0.
        epsilon (float, optional): added to the difference to avoid division by zero. Default: 1e-6.
        keepdim (bool, optional): keep the reduced axis. Default: False.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.PairwiseDistance()
        >>> m
        PairwiseDistance(p=2.0)
        >>> m(paddle.to_tensor([[3.0, 4.0]]), paddle.to_tensor([[0.0, 0.0]])).numpy()
        array([5.0000014], dtype=float32)
    """

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, p=self.p, epsilon=self.epsilon, keepdim=self.keepdim)

    def extra_repr(self):
        text = f"p={self.p}"
        if self.epsilon != 1e-6:
            text += f", epsilon={self.epsilon}"
        if self.keepdim:
            text += ", keepdim=True"
        return text + (f", name={self.name}" if self.name else "")
