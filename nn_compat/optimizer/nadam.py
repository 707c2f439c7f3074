"""``paddle.optimizer.NAdam``: Adam with Nesterov momentum (Dozat 2016), as Paddle 3.3's kernel computes it, in a
pure form (``nadam(...)``, a ``FunctionalOptimizer``) and the stateful class."""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.functional import FunctionalOptimizer, _c, _check_floats
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["NAdam", "nadam"]

# the base of the momentum-decay schedule mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
_DECAY_BASE = 0.96


def float_attribute(x, dtype):
    """A hyperparameter as Paddle's kernels see a ``float`` attribute: rounded to float32, then to the compute
    dtype (so beta1=0.9 is 0.89999998 also for float64 parameters)."""
    return _c(float(np.float32(x)), dtype)


def check_range(what, **values):
    """Paddle's argument checks: every value in [0, 1) for betas, >= 0 otherwise (the key says which)."""
    for k, v in values.items():
        if k.startswith("beta") and not 0.0 <= v < 1.0:
            raise ValueError(f"Invalid {k}: {v}, expect 0. <= {k} < 1.0.")
        if not k.startswith("beta") and not 0.0 <= v:
            raise ValueError(f"Invalid {k} value: {v}, expect {k} >= 0.")


class _NAdam(FunctionalOptimizer):
    type = "nadam"
    _accumulators = ("momentum_decay_pow", "beta2_pow", "mu_product", "moment1", "moment2")
    _fp32_accumulators_for_low_precision = True

    def __init__(self, learning_rate, beta1, beta2, epsilon, momentum_decay, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("nadam", beta1=beta1, beta2=beta2, epsilon=epsilon, momentum_decay=momentum_decay)
        self.beta1, self.beta2, self.epsilon, self.momentum_decay = beta1, beta2, epsilon, momentum_decay

    def hyperparameters(self):
        return {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon,
                "momentum_decay": self.momentum_decay}

    def _init_leaf(self, p, dtype, o):
        ones = paddle.ones_like(p, dtype=dtype)
        return {"momentum_decay_pow": ones, "beta2_pow": ones, "mu_product": ones,
                "moment1": paddle.zeros_like(p, dtype=dtype), "moment2": paddle.zeros_like(p, dtype=dtype)}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        b1, b2 = float_attribute(self.beta1, dtype), float_attribute(self.beta2, dtype)
        eps, psi = float_attribute(self.epsilon, dtype), float_attribute(self.momentum_decay, dtype)
        decay_pow = accs["momentum_decay_pow"] * _DECAY_BASE
        beta2_pow = accs["beta2_pow"] * b2
        decayed = decay_pow ** psi
        mu_t = b1 * (1.0 - 0.5 * decayed)
        mu_next = b1 * (1.0 - 0.5 * decayed * _DECAY_BASE ** psi)
        mu_product = accs["mu_product"] * mu_t
        m1 = b1 * accs["moment1"] + (1.0 - b1) * g
        m2 = b2 * accs["moment2"] + (1.0 - b2) * g * g
        m1_hat = mu_next * m1 / (1.0 - mu_product * mu_next) + (1.0 - mu_t) * g / (1.0 - mu_product)
        m2_hat = m2 / (1.0 - beta2_pow)
        p = p - lr * m1_hat / (paddle.sqrt(m2_hat) + eps)
        return p, {"momentum_decay_pow": decay_pow, "beta2_pow": beta2_pow, "mu_product": mu_product,
                   "moment1": m1, "moment2": m2}


def nadam(learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-8, momentum_decay=0.004, *, weight_decay=None,
          grad_clip=None, need_clip=None, param_lr=1.0, regularizer=None, name=None):
    r"""NAdam (Paddle's ``paddle.optimizer.NAdam``), accumulators ``momentum_decay_pow``, ``beta2_pow``,
    ``mu_product``, ``moment1``, ``moment2`` (each the parameter's shape), at step t::

        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay)),  mu_(t+1) likewise
        moment1 = beta1 * moment1 + (1 - beta1) * grad;  moment2 = beta2 * moment2 + (1 - beta2) * grad ** 2
        m_hat = mu_(t+1) * moment1 / (1 - prod_(i<=t+1) mu_i) + (1 - mu_t) * grad / (1 - prod_(i<=t) mu_i)
        param = param - learning_rate * m_hat / (sqrt(moment2 / (1 - beta2 ** t)) + epsilon)

    See ``FunctionalOptimizer`` for the common arguments.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer.nadam import nadam
    >>> opt = nadam(learning_rate=0.1)
    >>> w = paddle.to_tensor([1.0, 1.0])
    >>> w, state = opt.update(paddle.to_tensor([2.0, -0.5]), opt.init(w), w)
    >>> w.numpy()
    array([0.8943548, 1.1056452], dtype=float32)
    """
    return _NAdam(learning_rate, beta1, beta2, epsilon, momentum_decay, weight_decay=weight_decay,
                  grad_clip=grad_clip, need_clip=need_clip, param_lr=param_lr, regularizer=regularizer, name=name)


class NAdam(Optimizer):
    r"""NAdam (``paddle.optimizer.NAdam``): Adam with Nesterov momentum; the update is ``nadam``'s.

    Args:
        learning_rate (float|LRScheduler, optional): default 0.002.
        beta1 (float, optional): the first moment's decay rate. Default: 0.9.
        beta2 (float, optional): the second moment's decay rate. Default: 0.999.
        epsilon (float, optional): default 1e-8.
        momentum_decay (float, optional): psi of the momentum schedule, default 0.004.
        parameters (list|tuple): the Parameters, or parameter-group dicts (options ``beta1``, ``beta2``,
            ``epsilon``, ``momentum_decay``, ``weight_decay``, ``learning_rate``, ``grad_clip``).
        weight_decay (float|L1Decay|L2Decay, optional): added to the gradient. Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 1.0]))
        >>> opt = paddle.optimizer.NAdam(learning_rate=0.1, parameters=[w])
        >>> (w * paddle.to_tensor([2.0, -0.5])).sum().backward()
        >>> opt.step()
        >>> w.numpy()
        array([0.8943548, 1.1056452], dtype=float32)
    """

    _kernel = staticmethod(nadam)

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-8, momentum_decay=0.004,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if isinstance(learning_rate, (int, float)) and learning_rate < 0:
            raise ValueError(f"Invalid learning rate: {learning_rate}, expect learning_rate >= 0.")
        check_range("NAdam", epsilon=epsilon, beta1=beta1, beta2=beta2, momentum_decay=momentum_decay)
        self._beta1, self._beta2, self._epsilon, self._momentum_decay = beta1, beta2, epsilon, momentum_decay
        super().__init__(float(learning_rate) if isinstance(learning_rate, int) else learning_rate, parameters,
                         weight_decay, grad_clip, name)
        self.type = "nadam"

    def _hyperparameter_defaults(self):
        return {"beta1": self._beta1, "beta2": self._beta2, "epsilon": self._epsilon,
                "momentum_decay": self._momentum_decay}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "beta1": options["beta1"], "beta2": options["beta2"],
                "epsilon": options["epsilon"], "momentum_decay": options["momentum_decay"]}
