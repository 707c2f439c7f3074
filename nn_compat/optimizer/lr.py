"""Learning-rate schedulers with the API and the arithmetic of Paddle's ``paddle.optimizer.lr``.

A scheduler is a small stateful object that holds a Python float. Construct it (the constructor takes the first
step, so ``last_epoch`` is 0 and ``scheduler()`` is the learning rate of epoch 0), read the current learning rate
with ``scheduler()``, and call ``scheduler.step()`` once per epoch or per batch, after the optimizer's step.
``state_dict()`` / ``set_state_dict()`` save and restore the position, with Paddle's keys.

Every formula is evaluated in Python floats in the order Paddle evaluates it, so a schedule gives the same
numbers here as in Paddle. The classes are defined here and published as ``paddle_fn.optimizer.lr``.
"""
import math
import numbers
import warnings

import numpy as np

import paddle_fn

__all__ = [
    "LRScheduler",
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "LinearWarmup",
    "ExponentialDecay",
    "MultiStepDecay",
    "StepDecay",
    "LambdaDecay",
    "ReduceOnPlateau",
    "CosineAnnealingDecay",
    "MultiplicativeDecay",
    "OneCycleLR",
    "CyclicLR",
    "LinearLR",
    "CosineAnnealingWarmRestarts",
]

_PUBLIC_MODULE = "paddle_fn.optimizer.lr"


class LRSchedulerValueError(ValueError, AssertionError):
    """A scheduler argument has a bad value.

    It is a ``ValueError``; it is also an ``AssertionError`` because Paddle checks these arguments with ``assert``,
    so code written against Paddle that catches ``AssertionError`` keeps working.
    """


class LRSchedulerTypeError(TypeError, AssertionError):
    """A scheduler argument has a bad type where Paddle checks it with ``assert`` (a ``TypeError`` here)."""


# ----------------------------------------------------------------------------------------------------------------
# argument checks


def _is_real(x):
    return isinstance(x, numbers.Real)


def _is_int(x):
    return isinstance(x, numbers.Integral)


def _describe(x):
    return f"{x!r} of type {type(x).__name__}"


def _check_learning_rate(owner, name, value):
    if not _is_real(value):
        raise TypeError(f"{owner}: {name} must be a Python float or int, but received {_describe(value)}")
    if value < 0:
        raise ValueError(f"{owner}: invalid learning rate {name}={value}; it must be >= 0")


def _check_positive_int(owner, name, value):
    if not _is_int(value):
        raise LRSchedulerTypeError(f"{owner}: {name} must be a positive int, but received {_describe(value)}")
    if value <= 0:
        raise LRSchedulerValueError(f"{owner}: {name} must be a positive int, but received {value}")


def _check_real(owner, name, value, error=TypeError):
    if not _is_real(value):
        raise error(f"{owner}: {name} must be a float or int, but received {_describe(value)}")


def _scalar_value(owner, what, value):
    """A Python float from a one-element Tensor / ndarray, or a Python / numpy number."""
    if isinstance(value, (paddle_fn.Tensor, np.ndarray)):
        array = np.asarray(value.numpy() if isinstance(value, paddle_fn.Tensor) else value)
        if array.size != 1:
            raise LRSchedulerValueError(
                f"{owner}: {what} must hold exactly one value (shape [] or [1]), but it has shape "
                f"{list(array.shape)} ({array.size} values); reduce it first, e.g. with paddle.mean")
        return float(array.reshape(-1)[0])
    if isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (complex, np.complexfloating)):
        return float(value)
    raise TypeError(f"{owner}: {what} must be an int, a float, a numpy number, a one-element numpy.ndarray or a "
                    f"one-element paddle Tensor, but received {type(value).__name__}")


# ----------------------------------------------------------------------------------------------------------------
# base class


class LRScheduler:
    """Base class of the learning-rate schedulers (Paddle's ``paddle.optimizer.lr.LRScheduler``).

    A subclass implements ``get_lr()``, which returns the learning rate of epoch ``self.last_epoch`` as a Python
    float, usually from ``self.base_lr`` (the initial learning rate) and sometimes from ``self.last_lr`` (the
    previous one). The constructor calls ``step()`` once, so a new scheduler is at ``last_epoch == 0`` (or
    ``last_epoch + 1`` when ``last_epoch`` is given) and ``last_lr`` is the learning rate of that epoch.

    Args:
        learning_rate (float): the initial learning rate, a Python float or int, at least 0. Default: 0.1.
        last_epoch (int, optional): the epoch before the first one; pass the epoch reached to resume training.
            Default: -1, which starts at epoch 0 with the initial learning rate.
        verbose (bool, optional): if True, every ``step`` prints
            ``Epoch {last_epoch}: {class name} set learning rate to {last_lr}.`` Default: False.

    Attributes:
        base_lr (float): the initial learning rate.
        last_lr (float): the learning rate of the current epoch (also ``scheduler()``).
        last_epoch (int): the current epoch.

    Methods: ``step(epoch=None)`` advances one epoch (or jumps to ``epoch``); ``scheduler()`` returns
    ``last_lr``; ``get_lr()`` computes it; ``state_dict()`` returns the entries named by ``state_keys()``
    (``last_epoch`` and ``last_lr`` unless a subclass says otherwise) and ``set_state_dict(d)`` (alias
    ``set_dict``) restores them.

    Example: a step-decay scheduler written as a subclass.

    >>> from paddle_fn.optimizer.lr import LRScheduler
    >>> class HalveEvery(LRScheduler):
    ...     def __init__(self, learning_rate, step_size, last_epoch=-1, verbose=False):
    ...         self.step_size = step_size
    ...         super().__init__(learning_rate, last_epoch, verbose)
    ...
    ...     def get_lr(self):
    ...         return self.base_lr * 0.5 ** (self.last_epoch // self.step_size)
    >>> scheduler = HalveEvery(learning_rate=1.0, step_size=2)
    >>> scheduler.last_epoch, scheduler()
    (0, 1.0)
    >>> lrs = []
    >>> for epoch in range(6):
    ...     lrs.append(scheduler())
    ...     scheduler.step()
    >>> lrs
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    >>> scheduler.state_dict()
    {'last_epoch': 6, 'last_lr': 0.125}
    """

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        _check_learning_rate(type(self).__name__, "learning_rate", learning_rate)
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self.step()

    def __call__(self):
        """The learning rate of the current epoch, as a Python float."""
        return float(self.last_lr)

    def step(self, epoch=None):
        """Advance to the next epoch, or to ``epoch`` when it is given, and update ``last_lr``.

        Call it after the optimizer's ``step``; the new learning rate applies to the next optimizer step. With
        an explicit ``epoch``, a scheduler that has a closed form (``CosineAnnealingDecay``) uses it instead of
        its recurrence.
        """
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, "_get_closed_form_lr", None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        self._announce()

    def _announce(self):
        if self.verbose:
            print(f"Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.")

    def get_lr(self):
        """The learning rate of epoch ``self.last_epoch``; every subclass implements it."""
        raise NotImplementedError(
            f"{type(self).__name__} does not implement get_lr(): a subclass of LRScheduler must return the "
            f"learning rate of epoch self.last_epoch (a Python float) from get_lr()")

    def state_keys(self):
        """Set ``self.keys``, the attribute names ``state_dict`` saves: ``['last_epoch', 'last_lr']`` here.

        A subclass with more state overrides it (``ReduceOnPlateau`` does).
        """
        self.keys = ["last_epoch", "last_lr"]

    def _nested_state_keys(self):
        return ()

    def state_dict(self):
        """The scheduler's state: a dict of the attributes named by ``state_keys()``.

        A one-element Tensor value is stored as a Python float.
        """
        self.state_keys()
        state = {}
        for key in self.keys:
            if key not in self.__dict__:
                continue
            value = self.__dict__[key]
            if isinstance(value, paddle_fn.Tensor):
                value = _scalar_value(f"{type(self).__name__}.state_dict", f"the Tensor in {key!r}", value)
            state[key] = value
        return state

    def set_state_dict(self, state_dict):
        """Restore the state saved by ``state_dict()``.

        Raises RuntimeError, before changing anything, when an entry of ``state_keys()`` is missing, and warns
        when ``state_dict`` has entries this scheduler does not use.
        """
        self.state_keys()
        name = type(self).__name__
        if not isinstance(state_dict, dict):
            raise TypeError(f"{name}.set_state_dict: expected the dict returned by state_dict(), "
                            f"but received {type(state_dict).__name__}")
        missing = [key for key in self.keys if key not in state_dict]
        if missing:
            raise RuntimeError(f"{name}.set_state_dict: the state_dict has no entry {missing[0]!r} "
                               f"(it needs {self.keys}); was it saved from a different scheduler?")
        for key in self.keys:
            self.__dict__[key] = state_dict[key]
        unused = sorted(set(state_dict) - set(self.keys) - set(self._nested_state_keys()), key=str)
        if unused:
            warnings.warn(f"{name}.set_state_dict: ignoring the unused entries {unused}; was the state_dict "
                          f"saved from a different scheduler?", stacklevel=2)

    def set_dict(self, state_dict):
        """Alias of ``set_state_dict``."""
        return self.set_state_dict(state_dict)


# ----------------------------------------------------------------------------------------------------------------
# closed-form schedules


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
        _check_real("NoamDecay", "d_model", d_model)
        if d_model <= 0:
            raise ValueError(f"NoamDecay: d_model must be greater than 0, but received {d_model}")
        _check_real("NoamDecay", "warmup_steps", warmup_steps)
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
        _check_real("NaturalExpDecay", "gamma", gamma, LRSchedulerTypeError)
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
        _check_real("InverseTimeDecay", "gamma", gamma)
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
        _check_positive_int("PolynomialDecay", "decay_steps", decay_steps)
        _check_real("PolynomialDecay", "end_lr", end_lr)
        _check_real("PolynomialDecay", "power", power, LRSchedulerTypeError)
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


class LinearWarmup(LRScheduler):
    r"""Linear warm-up from ``start_lr`` to ``end_lr`` over ``warmup_steps`` epochs, then ``learning_rate``.

    While ``epoch < warmup_steps``:

    .. math::

        lr = start\_lr + (end\_lr - start\_lr) \cdot \frac{epoch}{warmup\_steps}

    afterwards ``learning_rate`` itself, or, when ``learning_rate`` is a scheduler, that scheduler stepped to
    ``epoch - warmup_steps``. The wrapped scheduler's state is saved under ``"LinearWarmup_LR"`` in
    ``state_dict()``.

    Args:
        learning_rate (float|LRScheduler): the learning rate after warm-up, a number or a scheduler.
        warmup_steps (int): the length of the warm-up, > 0.
        start_lr (float): the learning rate of epoch 0.
        end_lr (float): the learning rate the warm-up ramps to; greater than ``start_lr``.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import LinearWarmup, StepDecay
    >>> scheduler = LinearWarmup(StepDecay(learning_rate=0.5, step_size=2, gamma=0.5),
    ...                          warmup_steps=4, start_lr=0.0, end_lr=0.5)
    >>> lrs = []
    >>> for epoch in range(9):
    ...     lrs.append(scheduler())
    ...     scheduler.step()
    >>> lrs
    [0.0, 0.125, 0.25, 0.375, 0.5, 0.5, 0.25, 0.25, 0.125]
    >>> scheduler.state_dict()
    {'last_epoch': 9, 'last_lr': 0.125, 'LinearWarmup_LR': {'last_epoch': 5, 'last_lr': 0.125}}
    """

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (numbers.Real, LRScheduler)):
            raise TypeError(f"LinearWarmup: learning_rate must be a float, an int or an LRScheduler, but received "
                            f"{_describe(learning_rate)}")
        _check_positive_int("LinearWarmup", "warmup_steps", warmup_steps)
        _check_real("LinearWarmup", "start_lr", start_lr)
        _check_real("LinearWarmup", "end_lr", end_lr)
        if not end_lr > start_lr:
            raise LRSchedulerValueError(f"LinearWarmup: end_lr ({end_lr}) must be greater than start_lr "
                                        f"({start_lr})")
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr = start_lr
        self.end_lr = end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate

    def _nested_state_keys(self):
        return ("LinearWarmup_LR",) if isinstance(self.learning_rate, LRScheduler) else ()

    def state_dict(self):
        """The state of the warm-up; the wrapped scheduler's state is under ``"LinearWarmup_LR"``."""
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state["LinearWarmup_LR"] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Restore the warm-up and, from ``"LinearWarmup_LR"``, the wrapped scheduler."""
        if isinstance(self.learning_rate, LRScheduler) and isinstance(state_dict, dict) \
                and "LinearWarmup_LR" not in state_dict:
            raise RuntimeError("LinearWarmup.set_state_dict: the state_dict has no entry 'LinearWarmup_LR' "
                               "with the state of the wrapped scheduler; was it saved from a different scheduler?")
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict["LinearWarmup_LR"])


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
        _check_real("ExponentialDecay", "gamma", gamma, LRSchedulerTypeError)
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
        _check_real("MultiStepDecay", "gamma", gamma)
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
        if not _is_int(step_size):
            raise TypeError(f"StepDecay: step_size must be an int, but received {_describe(step_size)}")
        _check_real("StepDecay", "gamma", gamma)
        if gamma >= 1.0:
            raise ValueError(f"StepDecay: gamma must be < 1.0, but received {gamma}")
        _check_positive_int("StepDecay", "step_size", step_size)
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


# ----------------------------------------------------------------------------------------------------------------
# schedules that follow a metric or their own previous value


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
        _check_real("ReduceOnPlateau", "factor", factor)
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor must be < 1.0 (new_lr = lr * factor), but received {factor}")
        if not isinstance(threshold_mode, str) or threshold_mode.lower() not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', but received "
                             f"{threshold_mode!r}")
        _check_learning_rate("ReduceOnPlateau", "learning_rate", learning_rate)
        for name, value in (("patience", patience), ("cooldown", cooldown), ("threshold", threshold),
                            ("min_lr", min_lr), ("epsilon", epsilon)):
            _check_real("ReduceOnPlateau", name, value)
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
        current = _scalar_value("ReduceOnPlateau.step", "metrics", metrics)

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


class CosineAnnealingDecay(LRScheduler):
    r"""Cosine annealing between ``learning_rate`` and ``eta_min`` with half-period ``T_max`` (SGDR without restarts).

    ``step()`` follows Paddle's recurrence, which updates the previous learning rate:

    .. math::

        \eta_t = \eta_{min} + (\eta_{t-1} - \eta_{min})
                 \frac{1 + \cos(\pi t / T_{max})}{1 + \cos(\pi (t - 1) / T_{max})}

    and, where the denominator vanishes (:math:`t - 1 = (2k+1) T_{max}`),
    :math:`\eta_t = \eta_{t-1} + (\eta_{max} - \eta_{min})(1 - \cos(\pi / T_{max})) / 2`. Started from
    :math:`\eta_0 = \eta_{max}` this equals the closed form
    :math:`\eta_t = \eta_{min} + (\eta_{max} - \eta_{min})(1 + \cos(\pi t / T_{max})) / 2`, which
    ``step(epoch)`` with an explicit epoch uses. The learning rate goes down to ``eta_min`` at ``T_max`` and back
    up to ``learning_rate`` at ``2 * T_max``.

    Args:
        learning_rate (float): the initial (maximum) learning rate :math:`\eta_{max}`.
        T_max (int): the half-period in epochs, > 0.
        eta_min (float|int, optional): the minimum learning rate. Default: 0.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import CosineAnnealingDecay
    >>> scheduler = CosineAnnealingDecay(learning_rate=1.0, T_max=4)
    >>> lrs = []
    >>> for epoch in range(9):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [1.0, 0.8536, 0.5, 0.1464, 0.0, 0.1464, 0.5, 0.8536, 1.0]
    """

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not _is_int(T_max):
            raise TypeError(f"CosineAnnealingDecay: T_max must be an int, but received {_describe(T_max)}")
        if not _is_real(eta_min):
            raise TypeError(f"CosineAnnealingDecay: eta_min must be a float or int, but received "
                            f"{_describe(eta_min)}")
        _check_positive_int("CosineAnnealingDecay", "T_max", T_max)
        self.T_max = T_max
        self.eta_min = float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        t, period = self.last_epoch, self.T_max
        if t == 0:
            return self.base_lr
        if (t - 1 - period) % (2 * period) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / period)) / 2
        return (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period)) * (
            self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


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


class OneCycleLR(LRScheduler):
    r"""The one-cycle policy: up from ``max_learning_rate / divide_factor`` to ``max_learning_rate``, then down.

    The first ``phase_pct * total_steps - 1`` steps anneal from the initial learning rate
    ``max_learning_rate / divide_factor`` up to ``max_learning_rate``; the rest anneal down to
    ``end_learning_rate`` at step ``total_steps - 1``. With ``three_phase=True`` the learning rate first comes
    back down to the initial value over as many steps as it went up, then anneals to ``end_learning_rate``.
    Annealing from ``a`` to ``b`` at fraction ``p`` of a phase is ``b + (a - b) / 2 * (1 + cos(pi * p))``
    (``'cos'``) or ``a + (b - a) * p`` (``'linear'``). Step the scheduler every batch; stepping past
    ``total_steps`` raises ValueError.

    Args:
        max_learning_rate (float): the peak learning rate.
        total_steps (int): the number of training steps, > 0.
        divide_factor (float, optional): the initial learning rate is ``max_learning_rate / divide_factor``.
            Default: 25.
        end_learning_rate (float, optional): the final learning rate. Default: 0.0001.
        phase_pct (float, optional): the fraction of the steps spent going up, in [0, 1] (below 0.5 with
            ``three_phase``). Default: 0.3.
        anneal_strategy (str, optional): ``'cos'`` or ``'linear'``. Default: ``'cos'``.
        three_phase (bool, optional): use the three-phase schedule of the paper. Default: False.
        last_epoch (int, optional): the step to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import OneCycleLR
    >>> scheduler = OneCycleLR(max_learning_rate=1.0, total_steps=10, divide_factor=10.0,
    ...                        end_learning_rate=0.0, phase_pct=0.5, anneal_strategy='linear')
    >>> lrs = []
    >>> for step in range(10):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.1, 0.325, 0.55, 0.775, 1.0, 0.8, 0.6, 0.4, 0.2, 0.0]
    """

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001, phase_pct=0.3,
                 anneal_strategy="cos", three_phase=False, last_epoch=-1, verbose=False):
        if not _is_real(max_learning_rate):
            raise TypeError(f"OneCycleLR: max_learning_rate must be a float or int, but received "
                            f"{_describe(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"OneCycleLR: max_learning_rate must be >= 0, but received {max_learning_rate}")
        if not _is_real(end_learning_rate):
            raise TypeError(f"OneCycleLR: end_learning_rate must be a float or int, but received "
                            f"{_describe(end_learning_rate)}")
        if end_learning_rate < 0:
            raise ValueError(f"OneCycleLR: end_learning_rate must be >= 0, but received {end_learning_rate}")
        if not _is_int(total_steps):
            raise TypeError(f"OneCycleLR: total_steps must be an int, but received {_describe(total_steps)}")
        if total_steps <= 0:
            raise ValueError(f"OneCycleLR: total_steps must be a positive int, but received {total_steps}")
        if not _is_real(phase_pct):
            raise TypeError(f"OneCycleLR: phase_pct must be a float, but received {_describe(phase_pct)}")
        if phase_pct < 0 or phase_pct > 1:
            raise ValueError(f"OneCycleLR: phase_pct must be between 0 and 1, but received {phase_pct}")
        if not _is_real(divide_factor):
            raise TypeError(f"OneCycleLR: divide_factor must be a float or int, but received "
                            f"{_describe(divide_factor)}")
        if divide_factor == 0:
            raise ValueError("OneCycleLR: divide_factor must not be 0 (the initial learning rate is "
                             "max_learning_rate / divide_factor)")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be 'cos' or 'linear', but received "
                             f"{anneal_strategy!r}")
        if three_phase and phase_pct >= 0.5:
            raise ValueError(f"OneCycleLR: with three_phase=True, phase_pct must be less than 0.5, but received "
                             f"{phase_pct}")
        self.total_steps = total_steps
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)

        # each phase: (last step of the phase, first step, length in steps, lr at the start, lr at the end);
        # the last phase also takes every later step
        up_end = phase_pct * self.total_steps - 1
        last = self.total_steps - 1
        if three_phase:
            back_end = 2 * phase_pct * self.total_steps - 2
            self._phases = [
                (up_end, 0, up_end - 0, initial_lr, max_learning_rate),
                (back_end, up_end, back_end - up_end, max_learning_rate, initial_lr),
                (last, back_end, last - back_end, initial_lr, min_lr),
            ]
        else:
            self._phases = [
                (up_end, 0, up_end - 0, initial_lr, max_learning_rate),
                (last, up_end, last - up_end, max_learning_rate, min_lr),
            ]
        if self._phases[0][2] == 0:
            raise ValueError(f"OneCycleLR: the warm-up phase is empty: phase_pct * total_steps = "
                             f"{phase_pct * total_steps} must not be 1")
        self.anneal_strategy = anneal_strategy
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: stepped to step {step}, but total_steps is {self.total_steps}")
        anneal = self._cos_annealing if self.anneal_strategy == "cos" else self._linear_annealing
        for index, (end_step, start_step, length, start_lr, end_lr) in enumerate(self._phases):
            if step <= end_step or index == len(self._phases) - 1:
                return anneal(start_lr, end_lr, (step - start_step) / length)


class CyclicLR(LRScheduler):
    r"""Cyclical learning rates: triangular cycles between ``base_learning_rate`` and ``max_learning_rate``.

    A cycle lasts ``step_size_up + step_size_down`` steps: the learning rate rises linearly for ``step_size_up``
    steps and falls for ``step_size_down``. The amplitude ``max_learning_rate - base_learning_rate`` is scaled by
    ``scale_fn(cycle)`` (cycles counted from 1) or ``scale_fn(iterations)``: 1 for ``'triangular'``,
    ``1 / 2 ** (cycle - 1)`` for ``'triangular2'``, ``exp_gamma ** iterations`` for ``'exp_range'``.

    Args:
        base_learning_rate (float): the lower bound of the cycle, and the learning rate of step 0.
        max_learning_rate (float): the upper bound (reached only with a scale of 1).
        step_size_up (int): the steps of the rising half, > 0.
        step_size_down (int, optional): the steps of the falling half, > 0. Default: ``step_size_up``.
        mode (str, optional): ``'triangular'``, ``'triangular2'`` or ``'exp_range'``; ignored when ``scale_fn``
            is given. Default: ``'triangular'``.
        exp_gamma (float, optional): the base of the ``'exp_range'`` scale. Default: 1.0.
        scale_fn (callable, optional): a custom scale function of one argument with values in [0, 1].
            Default: None.
        scale_mode (str, optional): whether ``scale_fn`` receives the cycle number (``'cycle'``) or the step
            (``'iterations'``). Default: ``'cycle'``.
        last_epoch (int, optional): the step to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import CyclicLR
    >>> scheduler = CyclicLR(base_learning_rate=0.1, max_learning_rate=0.5, step_size_up=2, mode='triangular2')
    >>> lrs = []
    >>> for step in range(9):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.1, 0.3, 0.5, 0.3, 0.1, 0.2, 0.3, 0.2, 0.1]
    """

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None, mode="triangular",
                 exp_gamma=1.0, scale_fn=None, scale_mode="cycle", last_epoch=-1, verbose=False):
        if not _is_real(max_learning_rate):
            raise TypeError(f"CyclicLR: max_learning_rate must be a float or int, but received "
                            f"{_describe(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"CyclicLR: max_learning_rate must be >= 0, but received {max_learning_rate}")
        _check_learning_rate("CyclicLR", "base_learning_rate", base_learning_rate)
        for name, value in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if value is None and name == "step_size_down":
                continue
            if not _is_int(value):
                raise TypeError(f"CyclicLR: {name} must be an int, but received {_describe(value)}")
            if value <= 0:
                raise ValueError(f"CyclicLR: {name} must be a positive int, but received {value}")
        if not _is_real(exp_gamma):
            raise TypeError(f"CyclicLR: exp_gamma must be a float, but received {_describe(exp_gamma)}")
        if scale_fn is None and mode not in ("triangular", "triangular2", "exp_range"):
            raise ValueError(f"CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range' when scale_fn is "
                             f"not given, but received {mode!r}")
        if scale_fn is not None and not callable(scale_fn):
            raise TypeError(f"CyclicLR: scale_fn must be a function, but received {type(scale_fn).__name__}")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"CyclicLR: scale_mode must be 'cycle' or 'iterations', but received {scale_mode!r}")

        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = self._triangular_scale_fn, "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = self._triangular2_scale_fn, "cycle"
        else:
            self.scale_fn, self.scale_mode = self._exp_range_scale_fn, "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x):
        return 1.0

    def _triangular2_scale_fn(self, x):
        return 1 / (2.0 ** (x - 1))

    def _exp_range_scale_fn(self, x):
        return self.gamma ** x

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        position = 1.0 + iterations / self.cycle_size - cycle  # fraction of the current cycle, in [0, 1)
        if position <= self.step_up_pct:
            height = position / self.step_up_pct
        else:
            height = (1 - position) / (1 - self.step_up_pct)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else iterations)
        return self.base_lr + self.amplitude * height * scale


class LinearLR(LRScheduler):
    r"""A linear ramp of the factor from ``start_factor`` to ``end_factor`` over ``total_steps`` steps.

    .. math::

        lr = learning\_rate \cdot \left(start\_factor + (end\_factor - start\_factor)
             \cdot \frac{\min(epoch, total\_steps)}{total\_steps}\right)

    computed, as in Paddle, by multiplying the previous learning rate by the ratio of consecutive factors.

    Args:
        learning_rate (float): the base learning rate.
        total_steps (int): the length of the ramp, > 0.
        start_factor (float, optional): the factor of step 0, in (0, 1]. Default: 1/3.
        end_factor (float, optional): the factor from ``total_steps`` on, in [0, 1]. Default: 1.0.
        last_epoch (int, optional): the step to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import LinearLR
    >>> scheduler = LinearLR(learning_rate=0.5, total_steps=4, start_factor=0.5)
    >>> lrs = []
    >>> for step in range(6):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [0.25, 0.3125, 0.375, 0.4375, 0.5, 0.5]
    """

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        _check_real("LinearLR", "start_factor", start_factor)
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"LinearLR: start_factor must be greater than 0 and at most 1, but received "
                             f"{start_factor}")
        _check_real("LinearLR", "end_factor", end_factor)
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"LinearLR: end_factor must be between 0 and 1, but received {end_factor}")
        _check_real("LinearLR", "total_steps", total_steps)
        if total_steps <= 0:
            raise ValueError(f"LinearLR: total_steps must be greater than 0, but received {total_steps}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        ramp = self.end_factor - self.start_factor
        previous = self.total_steps * self.start_factor + (self.last_epoch - 1) * ramp  # total_steps * factor(t-1)
        return self.last_lr * (1.0 + ramp / previous)


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR).

    .. math::

        \eta_t = \eta_{min} + \frac{1}{2}(\eta_{max} - \eta_{min})
                 \left(1 + \cos\left(\pi \frac{T_{cur}}{T_i}\right)\right)

    where :math:`T_{cur}` counts the epochs since the last restart and :math:`T_i` is the length of the current
    period: ``T_0`` first, multiplied by ``T_mult`` after every restart. ``step(epoch)`` accepts a fractional
    epoch (e.g. ``epoch + batch / batches``).

    Args:
        learning_rate (float): the initial (maximum) learning rate :math:`\eta_{max}`.
        T_0 (int): the length of the first period, > 0.
        T_mult (int, optional): the growth factor of the period, >= 1. Default: 1.
        eta_min (float, optional): the minimum learning rate. Default: 0.
        last_epoch (int, optional): the epoch to resume after. Default: -1.
        verbose (bool, optional): print each update. Default: False.

    >>> from paddle_fn.optimizer.lr import CosineAnnealingWarmRestarts
    >>> scheduler = CosineAnnealingWarmRestarts(learning_rate=1.0, T_0=2, T_mult=2)
    >>> lrs = []
    >>> for epoch in range(8):
    ...     lrs.append(round(scheduler(), 4))
    ...     scheduler.step()
    >>> lrs
    [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0, 0.9619]
    """

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if not _is_int(T_0) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive int, but received {T_0!r}")
        if not _is_int(T_mult) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, but received {T_mult!r}")
        _check_real("CosineAnnealingWarmRestarts", "eta_min", eta_min)
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def _position(self, epoch):
        """(T_cur, T_i) at ``epoch``: the epochs since the last restart and the current period."""
        if self.T_mult == 1:
            return epoch % self.T_0, self.T_0
        t_cur, t_i = epoch, self.T_0
        while t_cur >= t_i:
            t_cur, t_i = t_cur - t_i, t_i * self.T_mult
        return t_cur, t_i

    def step(self, epoch=None):
        """Advance one epoch, or go to ``epoch`` (an int or a float, >= 0), and update ``last_lr``."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if not _is_real(epoch):
                raise TypeError(f"CosineAnnealingWarmRestarts.step: epoch must be a number, but received "
                                f"{_describe(epoch)}")
            if epoch < 0:
                raise ValueError(f"CosineAnnealingWarmRestarts.step: epoch must be non-negative, but received "
                                 f"{epoch}")
            self.T_cur, self.T_i = self._position(epoch)
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._announce()

    def set_state_dict(self, state_dict):
        """Restore ``last_epoch`` and ``last_lr``; the position in the current period follows from the epoch."""
        super().set_state_dict(state_dict)
        if self.last_epoch >= 0:
            self.T_cur, self.T_i = self._position(self.last_epoch)
        else:
            self.T_cur, self.T_i = self.last_epoch, self.T_0


for _name in __all__ + ["LRSchedulerValueError", "LRSchedulerTypeError"]:
    globals()[_name].__module__ = _PUBLIC_MODULE
del _name
