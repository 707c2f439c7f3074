"""``paddle.optimizer.ASGD``: Paddle 3.3's "averaged" SGD, the stochastic average gradient of Schmidt, Le Roux and
Bach (it keeps the last gradient of each of `batch_num` batches and steps along their mean), in a pure form
(``asgd(...)``) and the stateful class."""
from __future__ import annotations

import paddle_fn as paddle
from paddle_fn.nn_compat.optimizer.functional import FunctionalOptimizer
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer

__all__ = ["ASGD", "asgd"]


class _ASGD(FunctionalOptimizer):
    type = "asgd"
    _accumulators = ("d", "y", "m")

    def __init__(self, learning_rate, batch_num, **kw):
        super().__init__(learning_rate, **kw)
        if isinstance(batch_num, bool) or not isinstance(batch_num, int) or batch_num < 1:
            raise ValueError(f"batch_num should be an int greater than 0, got {batch_num!r}")
        self.batch_num = batch_num

    def hyperparameters(self):
        return {"batch_num": self.batch_num}

    def _init_leaf(self, p, dtype, o):
        return {"d": paddle.zeros_like(p, dtype=dtype), "y": paddle.zeros([self.batch_num, *p.shape], dtype=dtype),
                "m": paddle.zeros([1], dtype="int64")}

    def _update_leaf(self, p, g, accs, lr, o, dtype):
        m = accs["m"]
        slot = paddle.arange(self.batch_num, dtype="int64").reshape([-1] + [1] * len(p.shape)) == m % self.batch_num
        stored = (accs["y"] * slot.astype(dtype)).sum(axis=0)  # y[m % batch_num], the gradient it replaces
        d = accs["d"] - stored + g
        count = paddle.minimum(m + 1, paddle.full_like(m, self.batch_num)).astype(dtype).reshape([])
        p = p - lr / count * d
        y = paddle.where(slot, paddle.broadcast_to(g, accs["y"].shape), accs["y"])
        return p, {"d": d, "y": y, "m": m + 1}


def asgd(learning_rate=0.001, batch_num=1, *, weight_decay=None, grad_clip=None, need_clip=None, param_lr=1.0,
         regularizer=None, name=None):
    r"""ASGD (Paddle's ``paddle.optimizer.ASGD``), accumulators ``d`` (the sum of the stored gradients), ``y`` (the
    last gradient of each of the `batch_num` batches, shape ``[batch_num, *param.shape]``) and ``m`` (the step
    count, int64 [1])::

        i = m % batch_num;  d = d - y[i] + grad;  y[i] = grad;  m = m + 1
        param = param - learning_rate / min(m, batch_num) * d

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.optimizer.asgd import asgd
    >>> opt = asgd(learning_rate=0.1, batch_num=2)
    >>> w = paddle.to_tensor([1.0])
    >>> state = opt.init(w)
    >>> for g in ([1.0], [3.0], [5.0]):
    ...     w, state = opt.update(paddle.to_tensor(g), state, w)
    >>> w.numpy(), state["d"].numpy()    # steps of 0.1, 0.2 and 0.4 (the mean of the last two gradients)
    (array([0.3], dtype=float32), array([8.], dtype=float32))
    """
    return _ASGD(learning_rate, batch_num, weight_decay=weight_decay, grad_clip=grad_clip, need_clip=need_clip,
                 param_lr=param_lr, regularizer=regularizer, name=name)


class ASGD(Optimizer):
    r"""ASGD (``paddle.optimizer.ASGD``): steps along the mean of the last gradient of each of `batch_num` batches;
    the update is ``asgd``'s.

    Args:
        learning_rate (float|LRScheduler, optional): default 0.001.
        batch_num (int, optional): the number of batches in an epoch, default 1 (plain SGD).
        parameters (list|tuple): the Parameters, or parameter-group dicts.
        weight_decay (float|L1Decay|L2Decay, optional): added to the gradient. Default: None.
        grad_clip (ClipGradBase, optional): Default: None.
        multi_precision (bool, optional): keep float32 master weights of float16/bfloat16 parameters.
        name (str, optional): Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter(paddle.to_tensor([1.0, 1.0]))
        >>> opt = paddle.optimizer.ASGD(learning_rate=0.1, batch_num=3, parameters=[w])
        >>> (w * paddle.to_tensor([2.0, -0.5])).sum().backward()
        >>> opt.step()
        >>> w.numpy()
        array([0.8 , 1.05], dtype=float32)
    """

    _kernel = staticmethod(asgd)
    _supports_multi_precision = True

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate should not be none")
        if batch_num is None:
            raise ValueError("batch_num should not be none")
        if not 0 < batch_num:
            raise ValueError("batch_num should be greater than 0")
        self._batch_num = batch_num
        self._multi_precision = multi_precision
        super().__init__(float(learning_rate) if isinstance(learning_rate, int) else learning_rate, parameters,
                         weight_decay, grad_clip, name)
        self.type = "asgd"

    def _hyperparameter_defaults(self):
        return {"batch_num": self._batch_num}

    def _kernel_arguments(self, options, params):
        return {"learning_rate": float(self.get_lr()), "batch_num": options["batch_num"]}
