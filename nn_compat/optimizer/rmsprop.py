"""``paddle.optimizer.RMSProp``."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    r"""RMSProp (``paddle.optimizer.RMSProp``), accumulators ``momentum``, ``mean_square``, ``mean_grad``::

        mean_square = rho * mean_square + (1 - rho) * grad * grad
        mean_grad = rho * mean_grad + (1 - rho) * grad                  # centered=True only
        momentum = momentum * momentum_acc + learning_rate * grad / sqrt(mean_square [- mean_grad ** 2] + epsilon)
        param = param - momentum

    Args:
        learning_rate (float|LRScheduler): required.
        rho (float, optional): default 0.95.
        epsilon (float, optional): default 1e-6 (inside the square root, as in Paddle).
        momentum (float, optional): default 0.0.
        centered (bool, optional): normalize by the estimated variance. Default: False.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``rho``, ``epsilon``,
            ``momentum``, ``centered``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]))
        >>> opt = paddle.optimizer.RMSProp(learning_rate=0.01, rho=0.9, parameters=[w])
        >>> (3.0 * w).sum().backward()
        >>> opt.step()
        >>> w.numpy()     # 1 - 0.01 * 3 / sqrt(0.1 * 9 + 1e-6)
        array([0.96837723], dtype=float32)
    """

    _kernel = staticmethod(F.rmsprop)

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        for k, v in (("rho", rho), ("epsilon", epsilon), ("momentum", momentum)):
            if v is None:
                raise ValueError(f"{k} is not set.")
            if not v >= 0.0:
                raise ValueError(f"Invalid value of {k}, expect {k} >= 0.")
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "rmsprop"

    def _hyperparameter_defaults(self):
        return {"rho": self._rho, "epsilon": self._epsilon, "momentum": self._momentum, "centered": self._centered}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "rho": options["rho"], "epsilon": options["epsilon"],
                "momentum": options["momentum"], "centered": options["centered"]}
