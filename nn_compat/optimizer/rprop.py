"""``paddle.optimizer.Rprop``: resilient backpropagation, a step size per element that grows while the gradient
keeps its sign and shrinks when it flips, as Paddle 3.3's kernel computes it, in a pure form (``rprop(...)``) and
the stateful class."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.functional import FunctionalOptimizer, _check_floats
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["Rprop", "rprop"]


def _check_rprop(learning_rate, learning_rate_range, etas):
    if not 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]:
        raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]' must be true")
    if not 0.0 < etas[0] < 1.0 < etas[1]:
        raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")


class _Rprop(FunctionalOptimizer):
    type = "rprop"
    _accumulators = ("prevs", "learning_rates")

    def __init__(self, learning_rate, learning_rate_range, etas, **kw):
        super().__init__(learning_rate, **kw)
        _check_floats("rprop", learning_rate=learning_rate, lr_min=learning_rate_range[0],
                      lr_max=learning_rate_range[1], eta_minus=etas[0], eta_plus=etas[1])
        _check_rprop(learning_rate, learning_rate_range, etas)
        self.learning_rate_range, self.etas = tuple(learning_rate_range), tuple(etas)

    def hyperparameters(self):
        return {"learning_rate_range": self.learning_rate_range, "etas": self.etas}

    def _init_leaf(self, p, dtype, o):
        return {"prevs": paddle.zeros_like(p, dtype=dtype),
                "learning_rates": paddle.full_like(p, self.learning_rate, dtype=dtype)}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        # the step sizes live in `learning_rates`; `lr` (the global rate) only seeds them at init, as in Paddle
        (lr_min, lr_max), (eta_minus, eta_plus) = self.learning_rate_range, self.etas
        agreement = paddle.sign(g * accs["prevs"])
        steps = accs["learning_rates"]
        steps = paddle.where(agreement > 0, paddle.minimum(steps * eta_plus, paddle.full_like(steps, lr_max)),
                             paddle.where(agreement < 0,
                                          paddle.maximum(steps * eta_minus, paddle.full_like(steps, lr_min)), steps))
        g = paddle.where(agreement < 0, paddle.zeros_like(g), g)  # after a sign flip, pause this element once
        return p - paddle.sign(g) * steps, {"prevs": g, "learning_rates": steps}


def rprop(learning_rate=0.001, learning_rate_range=(1e-5, 50), etas=(0.5, 1.2), *, grad_clip=None, need_clip=None,
          name=None):
    r"""Rprop (Paddle's ``paddle.optimizer.Rprop``), accumulators ``prevs`` (the last gradient used) and
    ``learning_rates`` (each element's step size, starting at `learning_rate`)::

        same sign as prevs:      step = min(step * etas[1], learning_rate_range[1])
        opposite sign:           step = max(step * etas[0], learning_rate_range[0]);  grad = 0
        param = param - sign(grad) * step;  prevs = grad

    The step sizes replace the learning rate after the first step (a scheduler does not change them, as in
    Paddle); Paddle's Rprop has no weight decay.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer.rprop import rprop
    >>> opt = rprop(learning_rate=0.1)
    >>> w = paddle.to_tensor([1.0, 1.0])
    >>> state = opt.init(w)
    >>> for g in ([2.0, -0.5], [1.0, 0.5]):
    ...     w, state = opt.update(paddle.to_tensor(g), state, w)
    >>> w.numpy(), state["learning_rates"].numpy()
    (array([0.78, 1.1 ], dtype=float32), array([0.12, 0.05], dtype=float32))
    """
    return _Rprop(learning_rate, learning_rate_range, etas, grad_clip=grad_clip, need_clip=need_clip, name=name)


class Rprop(Optimizer):
    r"""Rprop (``paddle.optimizer.Rprop``): per-element step sizes adapted to the sign of the gradient; the update
    is ``rprop``'s.

    Args:
        learning_rate (float|LRScheduler, optional): the initial step size, default 0.001.
        learning_rate_range (tuple, optional): the smallest and largest step sizes, default (1e-5, 50).
        parameters (list|tuple): the Parameters, or parameter-group dicts.
        etas (tuple, optional): the factors that shrink and grow a step, default (0.5, 1.2).
        grad_clip (ClipGradBase, optional): Default: None.
        multi_precision (bool, optional): keep float32 master weights of float16/bfloat16 parameters.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 1.0]))
        >>> opt = paddle.optimizer.Rprop(learning_rate=0.1, parameters=[w])
        >>> (w * paddle.to_tensor([2.0, -0.5])).sum().backward()
        >>> opt.step()
        >>> w.numpy()
        array([0.9, 1.1], dtype=float32)
    """

    _kernel = staticmethod(rprop)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None, etas=(0.5, 1.2),
                 grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if isinstance(learning_rate, (int, float)):
            _check_rprop(learning_rate, learning_rate_range, etas)
        self._learning_rate_range, self._etas = tuple(learning_rate_range), tuple(etas)
        self._multi_precision = multi_precision
        super().__init__(float(learning_rate) if isinstance(learning_rate, int) else learning_rate, parameters,
                         None, grad_clip, name)
        self.type = "rprop"

    def _hyperparameter_defaults(self):
        return {"learning_rate_range": self._learning_rate_range, "etas": self._etas}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "learning_rate_range": options["learning_rate_range"],
                "etas": options["etas"]}

    def _common_arguments(self, options, params):
        common = super()._common_arguments(options, params)
        return {"grad_clip": common["grad_clip"], "need_clip": common["need_clip"]}
