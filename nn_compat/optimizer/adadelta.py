"""``paddle.optimizer.Adadelta``."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta (``paddle.optimizer.Adadelta``), accumulators ``_avg_squared_grad``, ``_avg_squared_update``::

        avg_squared_grad = rho * avg_squared_grad + (1 - rho) * grad * grad
        update = -sqrt((avg_squared_update + epsilon) / (avg_squared_grad + epsilon)) * grad
        param = param + learning_rate * update
        avg_squared_update = rho * avg_squared_update + (1 - rho) * update * update

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        epsilon (float, optional): default 1e-6.
        rho (float, optional): default 0.95.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``epsilon``, ``rho``,
            ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]))
        >>> opt = paddle.optimizer.Adadelta(learning_rate=1.0, epsilon=1e-2, rho=0.5, parameters=[w])
        >>> w.sum().backward()
        >>> opt.step()
        >>> w.numpy()     # 1 - sqrt(0.01 / 0.51)
        array([0.859972], dtype=float32)
    """

    _kernel = staticmethod(F.adadelta)

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None):
        for k, v in (("learning_rate", learning_rate), ("epsilon", epsilon), ("rho", rho)):
            if v is None:
                raise ValueError(f"{k} is not set.")
        self._epsilon, self._rho = epsilon, rho
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "adadelta"

    def _hyperparameter_defaults(self):
        return {"epsilon": self._epsilon, "rho": self._rho}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "epsilon": options["epsilon"], "rho": options["rho"]}
