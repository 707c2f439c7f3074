"""``paddle.optimizer.RAdam``: Adam with the variance of its adaptive rate rectified (Liu et al. 2019), as Paddle
3.3's kernel computes it, in a pure form (``radam(...)``) and the stateful class."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.functional import FunctionalOptimizer, _check_floats
from paddle_fn.nn_compat.optimizer.nadam import check_range, float_attribute
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["RAdam", "radam"]

# below this length of the approximated simple moving average the adaptive rate is not used (Liu et al.)
_RECTIFY_ABOVE = 5.0


class _RAdam(FunctionalOptimizer):
    type = "radam"
    _accumulators = ("beta1_pow", "beta2_pow", "rho", "moment1", "moment2")
    _fp32_accumulators_for_low_precision = True

    def __init__(self, learning_rate, beta1, beta2, epsilon, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("radam", beta1=beta1, beta2=beta2, epsilon=epsilon)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def hyperparameters(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon}

    def _init_leaf(self, p, dtype, o):
        ones = paddle.ones_like(p, dtype=dtype)
        return {"beta1_pow": ones, "beta2_pow": ones, "rho": ones, "moment1": paddle.zeros_like(p, dtype=dtype),
                "moment2": paddle.zeros_like(p, dtype=dtype)}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        b1, b2, eps = (float_attribute(v, dtype) for v in (self.beta1, self.beta2, self.epsilon))
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        beta1_pow, beta2_pow = accs["beta1_pow"] * b1, accs["beta2_pow"] * b2
        # rho holds t * beta2^t / (1 - beta2^t), updated without t
        rho = (accs["rho"] * (b2 - beta2_pow) + beta2_pow) / (1.0 - beta2_pow)
        m1 = b1 * accs["moment1"] + (1.0 - b1) * g
        m2 = b2 * accs["moment2"] + (1.0 - b2) * g * g
        m1_hat = m1 / (1.0 - beta1_pow)
        rho_t = rho_inf - 2.0 * rho
        rectify = rho_t > _RECTIFY_ABOVE
        safe = paddle.where(rectify, rho_t, paddle.full_like(rho_t, 2 * _RECTIFY_ABOVE))  # no sqrt of a negative
        r_t = paddle.sqrt((safe - 4.0) * (safe - 2.0) * rho_inf / ((rho_inf - 4.0) * (rho_inf - 2.0) * safe))
        l_t = paddle.sqrt(1.0 - beta2_pow) / (paddle.sqrt(m2) + eps)
        p = p - lr * m1_hat * paddle.where(rectify, r_t * l_t, paddle.ones_like(l_t))
        return p, {"beta1_pow": beta1_pow, "beta2_pow": beta2_pow, "rho": rho, "moment1": m1, "moment2": m2}


def radam(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, *, weight_decay=None, grad_clip=None,
          need_clip=None, param_lr=1.0, regularizer=None, name=None):
    r"""RAdam (Paddle's ``paddle.optimizer.RAdam``), accumulators ``beta1_pow``, ``beta2_pow``, ``rho``,
    ``moment1``, ``moment2`` (each the parameter's shape), at step t::

        moment1, moment2 as Adam's;  rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        rho_t > 5:  param -= learning_rate * moment1 / (1 - beta1^t) * r_t * sqrt(1 - beta2^t) / (sqrt(moment2) + eps)
                    with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        otherwise:  param -= learning_rate * moment1 / (1 - beta1^t)

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer.radam import radam
    >>> opt = radam(learning_rate=0.1)
    >>> w = paddle.to_tensor([1.0, 1.0])
    >>> w, state = opt.update(paddle.to_tensor([2.0, -0.5]), opt.init(w), w)
    >>> w.numpy()     # the first steps are plain momentum steps
    array([0.8 , 1.05], dtype=float32)
    """
    return _RAdam(learning_rate, beta1, beta2, epsilon, weight_decay=weight_decay, grad_clip=grad_clip,
                  need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class RAdam(Optimizer):
    r"""RAdam (``paddle.optimizer.RAdam``): Adam whose adaptive rate is used only once its variance is tractable,
    with a rectification factor; the update is ``radam``'s.

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        beta1 (float, optional): the first moment's decay rate. Default: 0.9.
        beta2 (float, optional): the second moment's decay rate. Default: 0.999.
        epsilon (float, optional): default 1e-8.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``beta1``, ``beta2``,
            ``epsilon``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): added to the gradient. Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 1.0]))
        >>> opt = paddle.optimizer.RAdam(learning_rate=0.1, parameters=[w])
        >>> (w * paddle.to_tensor([2.0, -0.5])).sum().backward()
        >>> opt.step()
        >>> w.numpy()
        array([0.8 , 1.05], dtype=float32)
    """

    _kernel = staticmethod(radam)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
        check_range("RAdam", epsilon=epsilon, beta1=beta1, beta2=beta2)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        super().__init__(float(learning_rate) if isinstance(learning_rate, int) else learning_rate, parameters,
                         weight_decay, grad_clip, name)
        self.type = "radam"

    def _hyperparameter_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "beta1": options["beta1"], "beta2": options["beta2"],
                "epsilon": options["epsilon"]}
