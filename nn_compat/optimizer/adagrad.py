"""``paddle.optimizer.Adagrad``."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad (``paddle.optimizer.Adagrad``), accumulator ``moment``::

        moment = moment + grad * grad
        param = param - learning_rate * grad / (sqrt(moment) + epsilon)

    Args:
        learning_rate (float|LRScheduler): required.
        epsilon (float, optional): default 1e-6.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``epsilon``,
            ``initial_accumulator_value``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.
        initial_accumulator_value (float, optional): the moment's initial value. Default: 0.0.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]))
        >>> opt = paddle.optimizer.Adagrad(learning_rate=0.1, parameters=[w], initial_accumulator_value=1.0)
        >>> (3.0 * w).sum().backward()
        >>> opt.step()
        >>> w.numpy()     # 1 - 0.1 * 3 / sqrt(1 + 9)
        array([0.9051317], dtype=float32)
    """

    _kernel = staticmethod(F.adagrad)

    def __init__(self, learning_rate, epsilon=1.0e-6, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if epsilon is None:
            raise ValueError("epsilon is not set")
        self._epsilon, self.initial_accumulator_value = epsilon, initial_accumulator_value
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "adagrad"

    def _hyperparameter_defaults(self):
        return {"epsilon": self._epsilon, "initial_accumulator_value": self.initial_accumulator_value}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "epsilon": options["epsilon"],
                "initial_accumulator_value": options["initial_accumulator_value"]}
