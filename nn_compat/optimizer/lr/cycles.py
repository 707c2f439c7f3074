"""Schedules with a shape in time: linear warm-up and linear ramps, cosine annealing (with warm restarts), the
one-cycle policy and cyclical learning rates."""
import math
import numbers

from paddle_fn.nn_compat.optimizer.lr.scheduler import (
    LRScheduler, LRSchedulerValueError, is_real, is_int, describe, check_learning_rate, check_positive_int,
    check_real)


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
                            f"{describe(learning_rate)}")
        check_positive_int("LinearWarmup", "warmup_steps", warmup_steps)
        check_real("LinearWarmup", "start_lr", start_lr)
        check_real("LinearWarmup", "end_lr", end_lr)
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
        check_real("LinearLR", "start_factor", start_factor)
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"LinearLR: start_factor must be greater than 0 and at most 1, but received "
                             f"{start_factor}")
        check_real("LinearLR", "end_factor", end_factor)
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"LinearLR: end_factor must be between 0 and 1, but received {end_factor}")
        check_real("LinearLR", "total_steps", total_steps)
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
        if not is_int(T_max):
            raise TypeError(f"CosineAnnealingDecay: T_max must be an int, but received {describe(T_max)}")
        if not is_real(eta_min):
            raise TypeError(f"CosineAnnealingDecay: eta_min must be a float or int, but received "
                            f"{describe(eta_min)}")
        check_positive_int("CosineAnnealingDecay", "T_max", T_max)
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
        if not is_int(T_0) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_0 must be a positive int, but received {T_0!r}")
        if not is_int(T_mult) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: T_mult must be an int >= 1, but received {T_mult!r}")
        check_real("CosineAnnealingWarmRestarts", "eta_min", eta_min)
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
            if not is_real(epoch):
                raise TypeError(f"CosineAnnealingWarmRestarts.step: epoch must be a number, but received "
                                f"{describe(epoch)}")
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
        if not is_real(max_learning_rate):
            raise TypeError(f"OneCycleLR: max_learning_rate must be a float or int, but received "
                            f"{describe(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"OneCycleLR: max_learning_rate must be >= 0, but received {max_learning_rate}")
        if not is_real(end_learning_rate):
            raise TypeError(f"OneCycleLR: end_learning_rate must be a float or int, but received "
                            f"{describe(end_learning_rate)}")
        if end_learning_rate < 0:
            raise ValueError(f"OneCycleLR: end_learning_rate must be >= 0, but received {end_learning_rate}")
        if not is_int(total_steps):
            raise TypeError(f"OneCycleLR: total_steps must be an int, but received {describe(total_steps)}")
        if total_steps <= 0:
            raise ValueError(f"OneCycleLR: total_steps must be a positive int, but received {total_steps}")
        if not is_real(phase_pct):
            raise TypeError(f"OneCycleLR: phase_pct must be a float, but received {describe(phase_pct)}")
        if phase_pct < 0 or phase_pct > 1:
            raise ValueError(f"OneCycleLR: phase_pct must be between 0 and 1, but received {phase_pct}")
        if not is_real(divide_factor):
            raise TypeError(f"OneCycleLR: divide_factor must be a float or int, but received "
                            f"{describe(divide_factor)}")
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
        if not is_real(max_learning_rate):
            raise TypeError(f"CyclicLR: max_learning_rate must be a float or int, but received "
                            f"{describe(max_learning_rate)}")
        if max_learning_rate < 0:
            raise ValueError(f"CyclicLR: max_learning_rate must be >= 0, but received {max_learning_rate}")
        check_learning_rate("CyclicLR", "base_learning_rate", base_learning_rate)
        for name, value in (("step_size_up", step_size_up), ("step_size_down", step_size_down)):
            if value is None and name == "step_size_down":
                continue
            if not is_int(value):
                raise TypeError(f"CyclicLR: {name} must be an int, but received {describe(value)}")
            if value <= 0:
                raise ValueError(f"CyclicLR: {name} must be a positive int, but received {value}")
        if not is_real(exp_gamma):
            raise TypeError(f"CyclicLR: exp_gamma must be a float, but received {describe(exp_gamma)}")
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
