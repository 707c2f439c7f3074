"""``paddle.optimizer.AdamW``: Adam with decoupled weight decay."""
from __future__ import annotations

import numbers

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer import functional as F
from paddle_fn.nn_compat.optimizer.adam import Adam
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""AdamW (``paddle.optimizer.AdamW``): before Adam's update (see `Adam`), the parameter decays by
    ``learning_rate * lr_ratio(param) * weight_decay``, decoupled from the gradient::

        param = param - learning_rate * lr_ratio * weight_decay * param
        param = adam_update(param, grad, learning_rate * lr_ratio)

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        beta1 (float|Tensor, optional): decay rate of the first moment, default 0.9.
        beta2 (float|Tensor, optional): decay rate of the second moment, default 0.999.
        epsilon (float|Tensor, optional): added to the denominator for stability, default 1e-8.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``weight_decay``, ``beta1``,
            ``beta2``, ``epsilon``, ``lazy_mode``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|Tensor, optional): the decay coefficient. Default: 0.01.
        use_lowprecision_moment (bool, optional): keep the moments of float16 / bfloat16 parameters in their own
            dtype; only False (float32 moments) is supported here. Default: False.
        lr_ratio (callable, optional): ``lr_ratio(param) -> float``, a per-parameter learning-rate ratio.
            Default: None (1.0).
        apply_decay_param_fun (callable, optional): ``apply_decay_param_fun(param.name) -> bool``; parameters
            for which it returns False are not decayed. Default: None (decay all).
        grad_clip (ClipGradBase, optional): Default: None.
        lazy_mode (bool, optional): as for `Adam` (only sparse gradients would differ). Default: False.
        multi_precision (bool, optional): keep float32 master weights of float16/bfloat16 parameters.
            Default: False.
        amsgrad (bool, optional): use the maximum of past second moments (AMSGrad). Default: False.
        name (str, optional): prefix of the accumulator names. Default: None.

    A parameter's ``ParamAttr(regularizer=...)`` is still added to its gradient, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([2.0]), name="w")
        >>> b = paddle.nn.Parameter(paddle.to_tensor([2.0]), name="b")
        >>> opt = paddle.optimizer.AdamW(learning_rate=0.1, parameters=[w, b], weight_decay=0.5,
        ...                              apply_decay_param_fun=lambda name: name == "w")
        >>> (w * 0.0 + b * 0.0).sum().backward()    # zero gradients: only the decay moves w
        >>> opt.step()
        >>> w.numpy(), b.numpy()    # w * (1 - 0.1 * 0.5); b is not decayed
        (array([1.9], dtype=float32), array([2.], dtype=float32))
    """

    _kernel = staticmethod(F.adamw)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=0.01, use_lowprecision_moment=False, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False, name=None):
        if isinstance(weight_decay, paddle.Tensor):
            weight_decay = float(weight_decay)
        if not isinstance(weight_decay, numbers.Real) or isinstance(weight_decay, bool):
            raise TypeError(f"AdamW: weight_decay should be a float or a Tensor (the decay coefficient), got "
                            f"{type(weight_decay).__name__}; AdamW does not take L1Decay / L2Decay")
        for what, fn in (("lr_ratio", lr_ratio), ("apply_decay_param_fun", apply_decay_param_fun)):
            if fn is not None and not callable(fn):
                raise TypeError(f"AdamW: {what} must be a callable or None, got {type(fn).__name__}")
        if use_lowprecision_moment:
            raise NotImplementedError("AdamW: use_lowprecision_moment=True (float16 / bfloat16 moments) is not "
                                      "supported; the moments of low-precision parameters are kept in float32")
        self._weight_decay = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun
        self._use_lowprecision_moment = False
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip, lazy_mode,
                         multi_precision, False, amsgrad, name)
        self.type = "adamw"

    def _hyperparameter_defaults(self):
        return {**super()._hyperparameter_defaults(), "weight_decay": self._weight_decay}

    def _group_weight_decay(self, weight_decay):
        if isinstance(weight_decay, paddle.Tensor):
            weight_decay = float(weight_decay)
        if weight_decay is None:
            return self._weight_decay
        if not isinstance(weight_decay, numbers.Real) or isinstance(weight_decay, bool):
            raise TypeError(f"AdamW: the weight_decay of a parameter group should be a float, got "
                            f"{type(weight_decay).__name__}")
        return float(weight_decay)

    def _attach_group_options(self, param, group):
        # Paddle's AdamW leaves the parameters' regularizers alone: its weight_decay is the decoupled coefficient
        param.optimize_attr["learning_rate"] = group.get("learning_rate", 1.0)

    def _kernel_arguments(self, options, params):
        coeff = options["weight_decay"]
        decay = [coeff if self._apply_decay_param_fun is None or self._apply_decay_param_fun(p.name) else 0.0
                 for p in params]
        ratio = None if self._lr_ratio is None else [float(self._lr_ratio(p)) for p in params]
        return {**super()._kernel_arguments(options, params), "weight_decay": decay, "lr_ratio": ratio}

    def _common_arguments(self, options, params):
        out = Optimizer._common_arguments(self, options, params)
        del out["weight_decay"]   # AdamW's weight_decay is the decoupled coefficient (in _kernel_arguments)
        return out
