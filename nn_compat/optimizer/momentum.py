"""``paddle.optimizer.Momentum``: SGD with (Nesterov) momentum."""
from __future__ import annotations

import numbers

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Momentum"]


class Momentum(Optimizer):
    r"""Momentum SGD (``paddle.optimizer.Momentum``), accumulator ``velocity``::

        velocity = momentum * velocity + grad
        param = param - learning_rate * velocity                           # use_nesterov=False
        param = param - (grad + momentum * velocity) * learning_rate       # use_nesterov=True

    L2 weight decay is fused into the kernel as in Paddle (``grad = grad * rescale_grad + coeff * param``).

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        momentum (float, optional): the momentum factor. Default: 0.9.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``momentum``,
            ``use_nesterov``, ``rescale_grad``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        use_nesterov (bool, optional): Nesterov momentum. Default: False.
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        multi_precision (bool, optional): float32 master weights for float16 / bfloat16 parameters. Default: False.
        rescale_grad (float, optional): multiplies the gradient first (e.g. ``1 / batch_size``). Default: 1.0.
        use_multi_tensor (bool, optional): Paddle's fused multi-tensor kernel, a speed option with the same
            arithmetic (every update is one kernel call per group here). Default: False.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0]))
        >>> opt = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.9, parameters=[w])
        >>> for _ in range(2):
        ...     (2.0 * w).sum().backward()      # the gradient is always 2
        ...     opt.step()
        ...     opt.clear_grad()
        >>> w.numpy()   # 1 - 0.1 * 2 - 0.1 * (0.9 * 2 + 2)
        array([0.42], dtype=float32)
    """

    _kernel = staticmethod(F.momentum)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
                 grad_clip=None, multi_precision=False, rescale_grad=1.0, use_multi_tensor=False, name=None):
        if momentum is None:
            raise ValueError("momentum is not set")
        if not isinstance(momentum, numbers.Real) or isinstance(momentum, bool):
            raise TypeError(f"Momentum: momentum must be a float, got {type(momentum).__name__}")
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad
        self._use_multi_tensor = bool(use_multi_tensor)
        self._multi_precision = bool(multi_precision)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "momentum"

    def _hyperparameter_defaults(self):
        return {"momentum": self._momentum, "use_nesterov": self._use_nesterov, "rescale_grad": self._rescale_grad}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "momentum": options["momentum"],
                "use_nesterov": options["use_nesterov"], "rescale_grad": options["rescale_grad"]}
