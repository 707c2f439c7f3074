"""``paddle.optimizer.SGD``: stochastic gradient descent."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (``paddle.optimizer.SGD``): ``param = param - learning_rate * grad``.

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        parameters (list|tuple): the Parameters, or parameter-group dicts (see `Optimizer`).
        weight_decay (float|L1Decay|L2Decay, optional): added to the gradient. Default: None.
        grad_clip (ClipGradBase, optional): gradient clipping. Default: None.
        multi_precision (bool, optional): keep float32 master weights for float16 / bfloat16 parameters.
            Default: False.
        name (str, optional): goes into accumulator names. Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(1, 1, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> sgd = paddle.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> x, y = paddle.to_tensor([[2.0]]), paddle.to_tensor([[5.0]])
        >>> loss = paddle.nn.functional.mse_loss(linear(x), y)   # (2 w + b - 5) ** 2 = 9
        >>> loss.backward()
        >>> sgd.step()
        >>> sgd.clear_grad()
        >>> linear.weight.numpy(), linear.bias.numpy()   # w + 0.1 * 12, b + 0.1 * 6
        (array([[2.2]], dtype=float32), array([0.6], dtype=float32))
    """

    _kernel = staticmethod(F.sgd)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "sgd"
