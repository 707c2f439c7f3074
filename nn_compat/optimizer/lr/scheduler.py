"""The base class of the learning-rate schedulers, `LRScheduler`, its argument checks and errors.

A scheduler is a small stateful object that holds a Python float. Construct it (the constructor takes the first
step, so ``last_epoch`` is 0 and ``scheduler()`` is the learning rate of epoch 0), read the current learning rate
with ``scheduler()``, and call ``scheduler.step()`` once per epoch or per batch, after the optimizer's step.
``state_dict()`` / ``set_state_dict()`` save and restore the position, with Paddle's keys.
"""
import numbers
import warnings

import numpy as np

import paddle_fn


class LRSchedulerValueError(ValueError, AssertionError):
    """A scheduler argument has a bad value.

    It is a ``ValueError``; it is also an ``AssertionError`` because Paddle checks these arguments with ``assert``,
    so code written against Paddle that catches ``AssertionError`` keeps working.
    """


class LRSchedulerTypeError(TypeError, AssertionError):
    """A scheduler argument has a bad type where Paddle checks it with ``assert`` (a ``TypeError`` here)."""


# ----------------------------------------------------------------------------------------------------------------
# argument checks


def is_real(x):
    return isinstance(x, numbers.Real)


def is_int(x):
    return isinstance(x, numbers.Integral)


def describe(x):
    return f"{x!r} of type {type(x).__name__}"


def check_learning_rate(owner, name, value):
    if not is_real(value):
        raise TypeError(f"{owner}: {name} must be a Python float or int, but received {describe(value)}")
    if value < 0:
        raise ValueError(f"{owner}: invalid learning rate {name}={value}; it must be >= 0")


def check_positive_int(owner, name, value):
    if not is_int(value):
        raise LRSchedulerTypeError(f"{owner}: {name} must be a positive int, but received {describe(value)}")
    if value <= 0:
        raise LRSchedulerValueError(f"{owner}: {name} must be a positive int, but received {value}")


def check_real(owner, name, value, error=TypeError):
    if not is_real(value):
        raise error(f"{owner}: {name} must be a float or int, but received {describe(value)}")


def scalar_value(owner, what, value):
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
        check_learning_rate(type(self).__name__, "learning_rate", learning_rate)
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
                value = scalar_value(f"{type(self).__name__}.state_dict", f"the Tensor in {key!r}", value)
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
