"""``paddle.optimizer.Lamb``: layer-wise adaptive moments (large-batch training)."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Lamb"]


class Lamb(Optimizer):
    r"""LAMB (``paddle.optimizer.Lamb``), accumulators as `Adam`'s::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        r = (moment1 / (1 - beta1_pow)) / (sqrt(moment2 / (1 - beta2_pow)) + epsilon) + lamb_weight_decay * param
        param = param - learning_rate * (||param|| / ||r||) * r

    (the trust ratio ``||param|| / ||r||`` is 1 when a norm is 0, or without weight decay unless ``always_adapt``).

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        lamb_weight_decay (float, optional): default 0.01.
        beta1 (float|Tensor, optional): decay rate of the first moment, default 0.9.
        beta2 (float|Tensor, optional): decay rate of the second moment, default 0.999.
        epsilon (float|Tensor, optional): default 1e-6.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``beta1``, ``beta2``,
            ``epsilon``, ``lamb_weight_decay``, ``exclude_from_weight_decay_fn``, ``learning_rate``,
            ``grad_clip``).
        grad_clip (ClipGradBase, optional): Default: None.
        exclude_from_weight_decay_fn (callable, optional): ``fn(param) -> bool``; True exempts the parameter from
            the decay. Default: None.
        multi_precision (bool, optional): float32 master weights for float16 / bfloat16 parameters. Default: False.
        always_adapt (bool, optional): apply the trust ratio even without weight decay. Default: False.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([3.0, 4.0]))
        >>> opt = paddle.optimizer.Lamb(learning_rate=0.1, lamb_weight_decay=0.01, parameters=[w])
        >>> w.sum().backward()
        >>> opt.step()
        >>> w.numpy().round(4)     # the step has length learning_rate * ||w|| = 0.5
        array([2.6482, 3.6447], dtype=float32)
    """

    _kernel = staticmethod(F.lamb)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None):
        for k, v in (("learning_rate", learning_rate), ("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"{k} is not set")
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be a callable or None, got "
                            f"{type(exclude_from_weight_decay_fn).__name__}")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lamb_weight_decay = lamb_weight_decay
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._multi_precision = bool(multi_precision)
        self.always_adapt = bool(always_adapt)
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self.type = "lamb"

    def _hyperparameter_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "lamb_weight_decay": self._lamb_weight_decay,
                "exclude_from_weight_decay_fn": self._exclude_from_weight_decay_fn}

    def _kernel_arguments(self, options, params):
        fn = options["exclude_from_weight_decay_fn"]
        decay = [0.0 if fn is not None and fn(p) else options["lamb_weight_decay"] for p in params]
        return {"learning_rate": float(self.get_lr()), "lamb_weight_decay": decay, "beta1": options["beta1"],
                "beta2": options["beta2"], "epsilon": options["epsilon"], "always_adapt": self.always_adapt}

    def _common_arguments(self, options, params):
        out = super()._common_arguments(options, params)
        del out["weight_decay"]   # Lamb's decay is lamb_weight_decay, inside its kernel
        return out
