"""``paddle.optimizer.Adamax``."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax (``paddle.optimizer.Adamax``), accumulators ``moment``, ``inf_norm``, ``beta1_pow_acc``::

        moment = beta1 * moment + (1 - beta1) * grad
        inf_norm = max(|grad|, beta2 * inf_norm + epsilon)
        param = param - learning_rate / (1 - beta1_pow) * moment / inf_norm

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        beta1 (float|Tensor, optional): decay rate of the first moment, default 0.9.
        beta2 (float|Tensor, optional): decay rate of the infinity norm, default 0.999.
        epsilon (float|Tensor, optional): default 1e-8.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``beta1``, ``beta2``,
            ``epsilon``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 1.0]))
        >>> opt = paddle.optimizer.Adamax(learning_rate=0.1, parameters=[w])
        >>> (w * paddle.to_tensor([2.0, -0.5])).sum().backward()
        >>> opt.step()
        >>> w.numpy()     # the first step moves each entry by learning_rate * sign(grad)
        array([0.9, 1.1], dtype=float32)
    """

    _kernel = staticmethod(F.adamax)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        for k, v in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"{k} is not set")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "adamax"

    def _hyperparameter_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "beta1": options["beta1"], "beta2": options["beta2"],
                "epsilon": options["epsilon"]}
