"""Decaying schedules: closed forms of the epoch (Noam, piecewise, natural-exponential, inverse-time, polynomial,
exponential, multi-step, step, a user's lambda) and those that scale the previous rate each step
(MultiplicativeDecay) or when a metric stops improving (ReduceOnPlateau)."""
import math

from paddle_fn.nn_compat.optimizer.lr.scheduler import (
    LRScheduler, LRSchedulerTypeError, LRSchedulerValueError, is_int, describe, check_learning_rate,
    check_positive_int, check_real, scalar_value)


class NoamDecay(LRScheduler):
    r"""The Noam schedule of *Attention Is All You Need*: linear warm-up, then inverse square root decay.

    .. math::

        lr = learning\_rate \cdot d_{model}^{-0.5} \cdot \min(epoch^{-0.5},\ epoch \cdot warmup\_steps^{-1.5})

    with ``epoch^{-0.5}`` taken as 1 at epoch 0 (so epoch 0 has learning rate 0).

    Args:
        d_model (int|float): the model's feature size, > 0.
        warmup_steps (int): the number of warm-up steps, > 0.
        learning_rate (float, optional): a multiplier. Default: 1.0.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import NoamDecay
    >>> scheduler = NoamDecay(d_model=0.01, warmup_steps=4)
    >>> lrs = []
    >>> for epoch in range(8):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.0, 1.25, 2.5, 3.75, 5.0, 4.4721, 4.0825, 3.7796]
    """

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        check_real("NoamDecay", "d_model", d_model)
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be greater than 0, but received {d_model}")
        check_real("NoamDecay", "warmup_steps", warmup_steps)
        if warmup_steps <= 0:
            raise ValueError(f"NoamDecay: warmup_steps must be greater than 0, but received {warmup_steps}")
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        inv_sqrt = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        warmup = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(inv_sqrt, warmup)



class PiecewiseDecay(LRScheduler):
    """A piecewise-constant schedule: ``values[i]`` while ``boundaries[i-1] <= epoch < boundaries[i]``.

    Epochs before ``boundaries[0]`` use ``values[0]``; epochs from ``boundaries[-1]`` on use ``values[-1]``.

    Args:
        boundaries (list|tuple): the epochs where the learning rate changes, increasing; not empty.
        values (list|tuple): the learning rates, one more than ``boundaries``.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import PiecewiseDecay
    >>> scheduler = PiecewiseDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1])
    >>> lrs = []
    >>> for epoch in range(6):
    ...     lrs.append(scheduler())
    ...     scheduler.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    """

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        for name, seq in (("boundaries", boundaries), ("values", values)):
            if not hasattr(seq, "__len__") or not hasattr(seq, "__getitem__"):
                raise TypeError(f"PiecewiseDecay: {name} must be a list or tuple, but received {type(seq).__name__}")
        if len(boundaries) == 0:
            raise ValueError("PiecewiseDecay: boundaries must not be empty")
        if len(values) < len(boundaries) + 1:
            raise ValueError(f"PiecewiseDecay: values must have one more element than boundaries, but received "
                             f"len(values) = {len(values)} and len(boundaries) = {len(boundaries)}")
        self.boundaries = boundaries
        self.values = values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[len(self.values) - 1]



class NaturalExpDecay(LRScheduler):
    r"""Natural exponential decay: :math:`lr = learning\_rate \cdot e^{-gamma \cdot epoch}`.

    Args:
        learning_rate (float): the initial learning rate.
        gamma (float): the decay rate, > 0.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import NaturalExpDecay
    >>> scheduler = NaturalExpDecay(learning_rate=0.5, gamma=0.1)
    >>> lrs = []
    >>> for epoch in range(4):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.4524, 0.4094, 0.3704]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        check_real("NaturalExpDecay", "gamma", gamma, LRSchedulerTypeError)
        if not gamma > 0.0:
            raise LRSchedulerValueError(f"NaturalExpDecay: gamma must be > 0 so that the learning rate decays, "
                                        f"but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)



class InverseTimeDecay(LRScheduler):
    r"""Inverse time decay: :math:`lr = \frac{learning\_rate}{1 + gamma \cdot epoch}`.

    Args:
        learning_rate (float): the initial learning rate.
        gamma (float): the decay rate.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import InverseTimeDecay
    >>> scheduler = InverseTimeDecay(learning_rate=0.5, gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(4):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.3333, 0.25, 0.2]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        check_real("InverseTimeDecay", "gamma", gamma)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)



class PolynomialDecay(LRScheduler):
    r"""Polynomial decay from ``learning_rate`` to ``end_lr`` over ``decay_steps`` epochs.

    .. math::

        lr = (learning\_rate - end\_lr) \cdot \left(1 - \frac{epoch}{decay\_steps}\right)^{power} + end\_lr

    Without ``cycle``, ``epoch`` is clipped to ``decay_steps`` (the learning rate stays at ``end_lr``). With
    ``cycle``, ``decay_steps`` is multiplied by ``ceil(epoch / decay_steps)`` (1 at epoch 0), so the learning rate
    jumps back up after each period and decays again over a longer one.

    Args:
        learning_rate (float): the initial learning rate.
        decay_steps (int): the decay period, > 0.
        end_lr (float, optional): the final learning rate. Default: 0.0001.
        power (float, optional): the power of the polynomial, > 0. Default: 1.0.
        cycle (bool, optional): restart the decay after each period. Default: False.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import PolynomialDecay
    >>> scheduler = PolynomialDecay(learning_rate=1.0, decay_steps=4, end_lr=0.0, cycle=True)
    >>> lrs = []
    >>> for epoch in range(10):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [1.0, 0.75, 0.5, 0.25, 0.0, 0.375, 0.25, 0.125, 0.0, 0.25]
    """

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        check_positive_int("PolynomialDecay", "decay_steps", decay_steps)
        check_real("PolynomialDecay", "end_lr", end_lr)
        check_real("PolynomialDecay", "power", power, LRSchedulerTypeError)
        if not power > 0.0:
            raise LRSchedulerValueError(f"PolynomialDecay: power must be > 0 so that the learning rate decays, "
                                        f"but received {power}")
        self.decay_steps = decay_steps
        self.end_lr = end_lr
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, period = self.last_epoch, self.decay_steps
        if self.cycle:
            periods = 1 if self.last_epoch == 0 else math.ceil(float(self.last_epoch) / float(self.decay_steps))
            period = self.decay_steps * periods
        else:
            epoch = min(self.last_epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(period)) ** self.power) + self.end_lr



class ExponentialDecay(LRScheduler):
    r"""Exponential decay: :math:`lr = learning\_rate \cdot gamma^{epoch}`.

    Args:
        learning_rate (float): the initial learning rate.
        gamma (float): the factor per epoch, in (0, 1).
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import ExponentialDecay
    >>> scheduler = ExponentialDecay(learning_rate=0.5, gamma=0.9)
    >>> lrs = []
    >>> for epoch in range(4):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.45, 0.405, 0.3645]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        check_real("ExponentialDecay", "gamma", gamma, LRSchedulerTypeError)
        if not 0.0 < gamma < 1.0:
            raise LRSchedulerValueError(f"ExponentialDecay: gamma must be in the interval (0.0, 1.0) so that the "
                                        f"learning rate decays, but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** self.last_epoch)



class MultiStepDecay(LRScheduler):
    """Multiply the learning rate by ``gamma`` at each epoch of ``milestones``.

    ``lr = learning_rate * gamma ** i`` where ``i`` is the number of milestones ``<= epoch``.

    Args:
        learning_rate (float): the initial learning rate.
        milestones (list|tuple): increasing epochs at which the learning rate is multiplied by ``gamma``.
        gamma (float, optional): the factor, < 1.0. Default: 0.1.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import MultiStepDecay
    >>> scheduler = MultiStepDecay(learning_rate=1.0, milestones=[2, 5], gamma=0.5)
    >>> lrs = []
    >>> for epoch in range(7):
    ...     lrs.append(scheduler())
    ...     scheduler.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError(f"MultiStepDecay: milestones must be a tuple or a list, but received "
                            f"{type(milestones).__name__}")
        if not all(a < b for a, b in zip(milestones[:-1], milestones[1:])):
            raise ValueError(f"MultiStepDecay: the elements of milestones must be increasing, but received "
                             f"{list(milestones)}")
        check_real("MultiStepDecay", "gamma", gamma)
        if gamma >= 1.0:
            raise ValueError(f"MultiStepDecay: gamma must be < 1.0, but received {gamma}")
        self.milestones = milestones
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                return self.base_lr * (self.gamma ** i)
        return self.base_lr * (self.gamma ** len(self.milestones))



class StepDecay(LRScheduler):
    """Multiply the learning rate by ``gamma`` every ``step_size`` epochs.

    ``lr = learning_rate * gamma ** (epoch // step_size)``.

    Args:
        learning_rate (float): the initial learning rate.
        step_size (int): the interval in epochs, > 0.
        gamma (float, optional): the factor, < 1.0. Default: 0.1.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> import paddle_fn as paddle
    >>> scheduler = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
    >>> lrs = []
    >>> for epoch in range(6):
    ...     lrs.append(round(scheduler(), 6))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.5, 0.05, 0.05, 0.005, 0.005]
    """

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not is_int(step_size):
            raise TypeError(f"StepDecay: step_size must be an int, but received {describe(step_size)}")
        check_real("StepDecay", "gamma", gamma)
        if gamma >= 1.0:
            raise ValueError(f"StepDecay: gamma must be < 1.0, but received {gamma}")
        check_positive_int("StepDecay", "step_size", step_size)
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))



class LambdaDecay(LRScheduler):
    """The initial learning rate times a factor computed from the epoch: ``lr = learning_rate * lr_lambda(epoch)``.

    Args:
        learning_rate (float): the initial learning rate.
        lr_lambda (callable): a function of the epoch (an int) that returns the factor.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import LambdaDecay
    >>> scheduler = LambdaDecay(learning_rate=0.5, lr_lambda=lambda epoch: 0.95 ** epoch)
    >>> lrs = []
    >>> for epoch in range(3):
    ...     lrs.append(round(scheduler(), 6))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.475, 0.45125]
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"LambdaDecay: lr_lambda must be a function of the epoch, but received "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)



class MultiplicativeDecay(LRScheduler):
    """Multiply the learning rate by ``lr_lambda(epoch)`` at every epoch.

    ``lr(epoch) = learning_rate * lr_lambda(1) * lr_lambda(2) * ... * lr_lambda(epoch)``.

    Args:
        learning_rate (float): the initial learning rate.
        lr_lambda (callable): a function of the epoch (an int) that returns the factor for that epoch.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import MultiplicativeDecay
    >>> scheduler = MultiplicativeDecay(learning_rate=0.5, lr_lambda=lambda epoch: 0.95)
    >>> lrs = []
    >>> for epoch in range(3):
    ...     lrs.append(round(scheduler(), 6))
    ...     scheduler.step()
    >>> lrs
    [0.5, 0.475, 0.45125]
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError(f"MultiplicativeDecay: lr_lambda must be a function of the epoch, but received "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        self._product = None  # (epoch, learning rate of that epoch): steps by one reuse it
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        cached = self._product
        if cached is not None and cached[0] == epoch - 1 and epoch >= 1:
            lr = cached[1] * self.lr_lambda(epoch)
        else:
            lr = self.base_lr
            for e in range(1, epoch + 1):
                lr = lr * self.lr_lambda(e)
        self._product = (epoch, lr)
        return lr



class ReduceOnPlateau(LRScheduler):
    """Reduce the learning rate when a metric has stopped improving.

    ``step(metrics)`` takes the monitored value (a float, or a Tensor / ndarray with one element: shape ``[]`` or
    ``[1]``). When the metric has not improved on the best value seen for more than ``patience`` calls, the
    learning rate becomes ``max(lr * factor, min_lr)`` (a change smaller than ``epsilon`` is skipped) and the
    next ``cooldown`` calls are ignored. Improving means, for ``mode='min'``: below ``best * (1 - threshold)``
    (``threshold_mode='rel'``) or ``best - threshold`` (``'abs'``); for ``mode='max'``: above
    ``best * (1 + threshold)`` or ``best + threshold``.

    Unlike the other schedulers, the constructor does not step: ``last_epoch`` starts at 0.

    Args:
        learning_rate (float): the initial learning rate.
        mode (str, optional): ``'min'`` (the metric should fall, e.g. a loss) or ``'max'`` (it should rise, e.g.
            an accuracy). Default: ``'min'``.
        factor (float, optional): the reduction factor, < 1.0. Default: 0.1.
        patience (int, optional): the number of calls without improvement that is tolerated. Default: 10.
        threshold (float, optional): the smallest change that counts as an improvement. Default: 1e-4.
        threshold_mode (str, optional): ``'rel'`` (relative to the best value) or ``'abs'``. Default: ``'rel'``.
        cooldown (int, optional): the number of calls to skip after a reduction. Default: 0.
        min_lr (float, optional): the lower bound of the learning rate. Default: 0.
        epsilon (float, optional): reductions smaller than this are skipped. Default: 1e-8.
        verbose (bool, optional): print each reduction. Default: False.

    >>> from paddle_fn.optimizer.lr import ReduceOnPlateau
    >>> scheduler = ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1)
    >>> for loss in [3.0, 2.0, 2.5, 2.4, 2.3, 1.0]:
    ...     scheduler.step(loss)
    ...     print(loss, scheduler())
    3.0 1.0
    2.0 1.0
    2.5 1.0
    2.4 0.5
    2.3 0.5
    1.0 0.5
    >>> scheduler.state_dict()
    {'cooldown_counter': 0, 'best': 1.0, 'num_bad_epochs': 0, 'last_epoch': 6, 'last_lr': 0.5}
    """

    def __init__(self, learning_rate, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        if not isinstance(mode, str) or mode.lower() not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', but received {mode!r}")
        check_real("ReduceOnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0 (new_lr = lr * factor), but received {factor}")
        if not isinstance(threshold_mode, str) or threshold_mode.lower() not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', but received "
                             f"{threshold_mode!r}")
        check_learning_rate("ReduceOnPlateau", "learning_rate", learning_rate)
        for name, value in (("patience", patience), ("cooldown", cooldown), ("threshold", threshold),
                            ("min_lr", min_lr), ("epsilon", epsilon)):
            check_real("ReduceOnPlateau", name, value)
        self.mode = mode.lower()
        self.factor = factor
        self.threshold_mode = threshold_mode.lower()
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon

        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0

        # no first step: the epoch count starts at 0 and advances with each step(metrics)
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose

    def state_keys(self):
        """``state_dict`` saves ``cooldown_counter``, ``best``, ``num_bad_epochs``, ``last_epoch`` and ``last_lr``."""
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch=None):
        """Record ``metrics`` for this epoch (or for ``epoch``) and reduce the learning rate on a plateau.

        ``metrics`` is an int, a float, a numpy number, or a numpy array / Tensor with one element.
        """
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        current = scalar_value("ReduceOnPlateau.step", "metrics", metrics)

        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1

        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._announce()

    def _is_better(self, current, best):
        if self.mode == "min":
            if self.threshold_mode == "rel":
                return current < best - best * self.threshold
            return current < best - self.threshold
        if self.threshold_mode == "rel":
            return current > best + best * self.threshold
        return current > best + self.threshold
