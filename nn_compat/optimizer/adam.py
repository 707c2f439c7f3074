"""``paddle.optimizer.Adam``."""
from __future__ import annotations

from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam (``paddle.optimizer.Adam``), accumulators ``moment1``, ``moment2`` (``moment2_max`` with
    ``amsgrad``), ``beta1_pow_acc``, ``beta2_pow_acc``::

        moment1 = beta1 * moment1 + (1 - beta1) * grad
        moment2 = beta2 * moment2 + (1 - beta2) * grad * grad
        lr_t = learning_rate * sqrt(1 - beta2_pow) / (1 - beta1_pow)
        param = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2_pow))

    ``weight_decay`` is added to the gradient (coupled L2); use `AdamW` for decoupled decay.

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        beta1 (float|Tensor, optional): default 0.9.
        beta2 (float|Tensor, optional): default 0.999.
        epsilon (float|Tensor, optional): default 1e-8.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``beta1``, ``beta2``,
            ``epsilon``, ``lazy_mode``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        lazy_mode (bool, optional): Paddle's lazy update of the rows of sparse (SelectedRows) gradients; gradients
            are dense here, for which Paddle's lazy and regular updates are the same. Default: False.
        multi_precision (bool, optional): float32 master weights for float16 / bfloat16 parameters. Default: False.
        use_multi_tensor (bool, optional): Paddle's fused multi-tensor kernel, a speed option with the same
            arithmetic. Default: False.
        amsgrad (bool, optional): use the running maximum of ``moment2``. Default: False.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, -1.0]))
        >>> adam = paddle.optimizer.Adam(learning_rate=0.1, parameters=[w])
        >>> for _ in range(3):
        ...     loss = (w * w).sum()
        ...     loss.backward()
        ...     adam.step()
        ...     adam.clear_grad()
        >>> w.numpy().round(4)   # each of Adam's first steps has a length close to learning_rate
        array([ 0.7016, -0.7016], dtype=float32)
        >>> sorted(adam.state_dict())[:2]
        ['_eager_param_base_..._beta1_pow_acc_0', '_eager_param_base_..._beta2_pow_acc_0']
    """

    _kernel = staticmethod(F.adam)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, use_multi_tensor=False,
                 amsgrad=False, name=None):
        for k, v in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if v is None:
                raise ValueError(f"{k} is not set")
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._lazy_mode = bool(lazy_mode)
        self._multi_precision = bool(multi_precision)
        self._use_multi_tensor = bool(use_multi_tensor)
        self._amsgrad = bool(amsgrad)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self.type = "adam"

    def _hyperparameter_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon, "lazy_mode": self._lazy_mode}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "beta1": options["beta1"], "beta2": options["beta2"],
                "epsilon": options["epsilon"], "amsgrad": self._amsgrad}
