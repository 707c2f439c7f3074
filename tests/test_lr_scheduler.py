"""paddle_fn.optimizer.lr: every Paddle learning-rate scheduler against its documented formula.

Each expected sequence is computed here from the closed form in Paddle's documentation (or written out by hand),
independently of the implementation, which follows Paddle's own recurrences where Paddle has one.
"""
import math
import pickle

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.optimizer import lr

APPROX = dict(rel=1e-12, abs=1e-15)


def lrs_of(scheduler, n):
    """The learning rates of epochs 0 .. n-1: read, then step (the order of a training loop)."""
    out = []
    for _ in range(n):
        out.append(scheduler())
        scheduler.step()
    return out


# ----------------------------------------------------------------------------------------------------------------
# the import surface


def test_import_paths():
    import paddle_fn.optimizer
    from paddle_fn.optimizer.lr import NoamDecay
    from paddle_fn.nn_compat.optimizer import lr as compat_lr

    assert paddle_fn.optimizer.lr.CosineAnnealingDecay is compat_lr.CosineAnnealingDecay
    assert NoamDecay is compat_lr.NoamDecay
    assert paddle.optimizer.lr.StepDecay is compat_lr.StepDecay
    assert paddle.optimizer.lr is lr
    assert set(lr.__all__) == {
        "LRScheduler", "NoamDecay", "PiecewiseDecay", "NaturalExpDecay", "InverseTimeDecay", "PolynomialDecay",
        "LinearWarmup", "ExponentialDecay", "MultiStepDecay", "StepDecay", "LambdaDecay", "ReduceOnPlateau",
        "CosineAnnealingDecay", "MultiplicativeDecay", "OneCycleLR", "CyclicLR", "LinearLR",
        "CosineAnnealingWarmRestarts"}
    for name in lr.__all__:
        cls = getattr(lr, name)
        assert cls.__module__ == "paddle_fn.optimizer.lr"
        assert issubclass(cls, lr.LRScheduler)
        assert cls.__doc__ and ">>>" in cls.__doc__, f"{name} needs a docstring with an example"


# ----------------------------------------------------------------------------------------------------------------
# the base protocol


def test_constructor_takes_the_first_step():
    s = lr.StepDecay(learning_rate=0.5, step_size=2)
    assert s.last_epoch == 0
    assert s.last_lr == 0.5 and s.base_lr == 0.5
    assert type(s()) is float and s() == 0.5
    s.step()
    assert s.last_epoch == 1


def test_last_epoch_argument_resumes():
    s = lr.StepDecay(learning_rate=1.0, step_size=2, gamma=0.5, last_epoch=4)
    assert s.last_epoch == 5
    assert s() == 0.25


def test_step_with_explicit_epoch():
    s = lr.ExponentialDecay(learning_rate=2.0, gamma=0.5)
    s.step(3)
    assert s.last_epoch == 3 and s() == 0.25
    s.step()
    assert s.last_epoch == 4 and s() == 0.125


def test_call_returns_python_float_for_int_inputs():
    s = lr.PiecewiseDecay(boundaries=[1], values=[1, 2])
    assert type(s()) is float and s() == 1.0


def test_verbose_prints_paddle_message(capsys):
    s = lr.StepDecay(learning_rate=0.5, step_size=1, gamma=0.5, verbose=True)
    s.step()
    assert capsys.readouterr().out == ("Epoch 0: StepDecay set learning rate to 0.5.\n"
                                       "Epoch 1: StepDecay set learning rate to 0.25.\n")


def test_incremental_training_program_a25(capsys):
    # ../shared/reference/paddle_api.md A25: the scheduler part of Paddle's incremental-training FAQ
    scheduler = paddle.optimizer.lr.NoamDecay(d_model=0.01, warmup_steps=100, verbose=True)
    assert capsys.readouterr().out == "Epoch 0: NoamDecay set learning rate to 0.0.\n"
    for _ in range(30):
        scheduler.step()
    capsys.readouterr()
    saved = scheduler.state_dict()
    assert saved == {"last_epoch": 30, "last_lr": scheduler()}
    resumed = paddle.optimizer.lr.NoamDecay(d_model=0.01, warmup_steps=100)
    resumed.set_state_dict(saved)
    assert lrs_of(resumed, 5) == lrs_of(scheduler, 5)


def test_subclass_without_get_lr():
    class NoRule(lr.LRScheduler):
        pass

    with pytest.raises(NotImplementedError, match="get_lr"):
        NoRule(0.1)


def test_custom_subclass():
    class Halve(lr.LRScheduler):
        def get_lr(self):
            return self.base_lr * 0.5 ** self.last_epoch

    assert lrs_of(Halve(learning_rate=1.0), 4) == [1.0, 0.5, 0.25, 0.125]
    assert lrs_of(Halve(), 2) == [0.1, 0.05]  # the base class's default learning_rate is 0.1


def test_state_keys_and_set_dict_alias():
    s = lr.StepDecay(0.5, 2)
    assert s.state_keys() is None and s.keys == ["last_epoch", "last_lr"]
    t = lr.StepDecay(0.5, 2)
    for _ in range(3):
        s.step()
    t.set_dict(s.state_dict())
    assert t.last_epoch == 3 and t() == s()


def test_set_state_dict_missing_and_unused_keys():
    s = lr.StepDecay(0.5, 2)
    with pytest.raises(RuntimeError, match="last_lr"):
        s.set_state_dict({"last_epoch": 3})
    assert s.last_epoch == 0  # nothing changed
    with pytest.warns(UserWarning, match="unused"):
        s.set_state_dict({"last_epoch": 3, "last_lr": 0.05, "best": 1.0})
    assert s.last_epoch == 3 and s() == 0.05
    with pytest.raises(TypeError, match="dict"):
        s.set_state_dict([("last_epoch", 3)])


def test_state_dict_stores_tensor_values_as_float():
    s = lr.StepDecay(0.5, 2)
    s.last_lr = paddle.to_tensor([0.25])
    state = s.state_dict()
    assert type(state["last_lr"]) is float and state["last_lr"] == 0.25


def test_state_dict_pickles():
    s = lr.CosineAnnealingDecay(learning_rate=0.1, T_max=5)
    for _ in range(3):
        s.step()
    state = pickle.loads(pickle.dumps(s.state_dict()))
    assert state == s.state_dict()


# ----------------------------------------------------------------------------------------------------------------
# each scheduler's sequence against its formula


def test_noam_decay():
    d_model, warmup, base = 64, 5, 2.0
    expected = [base * d_model ** -0.5 * min(1 if e == 0 else e ** -0.5, e * warmup ** -1.5) for e in range(20)]
    got = lrs_of(lr.NoamDecay(d_model=d_model, warmup_steps=warmup, learning_rate=base), 20)
    assert got == pytest.approx(expected, **APPROX)
    assert got[0] == 0.0
    assert got[5] == pytest.approx(2.0 / 8 / math.sqrt(5), **APPROX)  # the peak, at warmup_steps
    assert max(got) == got[5]


def test_piecewise_decay():
    got = lrs_of(lr.PiecewiseDecay(boundaries=[3, 6, 9], values=[0.1, 0.2, 0.3, 0.4]), 20)
    assert got == [0.1] * 3 + [0.2] * 3 + [0.3] * 3 + [0.4] * 11


def test_natural_exp_decay():
    got = lrs_of(lr.NaturalExpDecay(learning_rate=0.5, gamma=0.1), 20)
    assert got == pytest.approx([0.5 * math.exp(-0.1 * e) for e in range(20)], **APPROX)


def test_inverse_time_decay():
    got = lrs_of(lr.InverseTimeDecay(learning_rate=0.5, gamma=0.1), 20)
    assert got == pytest.approx([0.5 / (1 + 0.1 * e) for e in range(20)], **APPROX)
    assert got[10] == pytest.approx(0.25, **APPROX)


def test_polynomial_decay_without_cycle():
    base, end, steps, power = 0.5, 0.01, 10, 2.0
    got = lrs_of(lr.PolynomialDecay(learning_rate=base, decay_steps=steps, end_lr=end, power=power), 20)
    expected = [(base - end) * (1 - min(e, steps) / steps) ** power + end for e in range(20)]
    assert got == pytest.approx(expected, **APPROX)
    assert got[10:] == pytest.approx([end] * 10, **APPROX)


def test_polynomial_decay_with_cycle():
    got = lrs_of(lr.PolynomialDecay(learning_rate=1.0, decay_steps=4, end_lr=0.0, cycle=True), 20)
    # the period doubles, triples... (decay_steps * ceil(epoch / decay_steps)); epoch 0 uses one period
    expected = [1.0, 0.75, 0.5, 0.25, 0.0,          # period 4
                3 / 8, 2 / 8, 1 / 8, 0.0,            # epochs 5..8: period 8
                3 / 12, 2 / 12, 1 / 12, 0.0,         # epochs 9..12: period 12
                3 / 16, 2 / 16, 1 / 16, 0.0,
                3 / 20, 2 / 20, 1 / 20]
    assert got == pytest.approx(expected, **APPROX)


def test_exponential_decay():
    got = lrs_of(lr.ExponentialDecay(learning_rate=0.5, gamma=0.9), 20)
    assert got == pytest.approx([0.5 * 0.9 ** e for e in range(20)], **APPROX)


def test_multi_step_decay():
    got = lrs_of(lr.MultiStepDecay(learning_rate=0.5, milestones=[2, 4, 6], gamma=0.8), 20)
    expected = [0.5] * 2 + [0.4] * 2 + [0.32] * 2 + [0.256] * 14
    assert got == pytest.approx(expected, **APPROX)


def test_step_decay():
    got = lrs_of(lr.StepDecay(learning_rate=0.5, step_size=5, gamma=0.8), 20)
    expected = [0.5] * 5 + [0.4] * 5 + [0.32] * 5 + [0.256] * 5
    assert got == pytest.approx(expected, **APPROX)


def test_lambda_decay():
    got = lrs_of(lr.LambdaDecay(learning_rate=0.5, lr_lambda=lambda e: 0.95 ** e), 20)
    assert got == pytest.approx([0.5 * 0.95 ** e for e in range(20)], **APPROX)
    assert got[:3] == pytest.approx([0.5, 0.475, 0.45125], **APPROX)


def test_multiplicative_decay():
    factor = lambda e: 1 - 0.01 * e  # noqa: E731
    expected = [0.5 * math.prod(factor(k) for k in range(1, e + 1)) for e in range(20)]
    assert lrs_of(lr.MultiplicativeDecay(learning_rate=0.5, lr_lambda=factor), 20) == pytest.approx(expected, **APPROX)
    s = lr.MultiplicativeDecay(learning_rate=0.5, lr_lambda=factor)
    s.step(7)  # a jump recomputes the product
    assert s() == pytest.approx(expected[7], **APPROX)
    s.step()
    assert s() == pytest.approx(expected[8], **APPROX)


def test_multiplicative_decay_calls_lambda_once_per_step():
    calls = []
    s = lr.MultiplicativeDecay(learning_rate=1.0, lr_lambda=lambda e: calls.append(e) or 0.99)
    for _ in range(200):
        s.step()
    assert len(calls) == 200
    assert s() == pytest.approx(0.99 ** 200, rel=1e-12)


def cosine(base, eta_min, t, period):
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * t / period)) / 2


def test_cosine_annealing_decay_matches_closed_form():
    # 30 epochs with T_max=3 cross the special case of the recurrence (t - 1 = (2k+1) T_max) five times
    got = lrs_of(lr.CosineAnnealingDecay(learning_rate=0.5, T_max=3, eta_min=0.1), 30)
    assert got == pytest.approx([cosine(0.5, 0.1, e, 3) for e in range(30)], rel=1e-12, abs=1e-14)
    assert got[3] == pytest.approx(0.1, abs=1e-14) and got[6] == pytest.approx(0.5, **APPROX)


def test_cosine_annealing_decay_uses_paddle_recurrence():
    s = lr.CosineAnnealingDecay(learning_rate=1.0, T_max=10, eta_min=0.0)
    s.step()
    s.step()
    state = s.state_dict()
    state["last_lr"] = 0.5  # the recurrence scales the previous learning rate, the closed form ignores it
    s.set_state_dict(state)
    s.step()
    ratio = (1 + math.cos(math.pi * 3 / 10)) / (1 + math.cos(math.pi * 2 / 10))
    assert s() == pytest.approx(0.5 * ratio, **APPROX)
    # at t - 1 = T_max the denominator vanishes and the recurrence adds the first step of the rise
    s.set_state_dict({"last_epoch": 10, "last_lr": 0.2})
    s.step()
    assert s() == pytest.approx(0.2 + (1 - math.cos(math.pi / 10)) / 2, **APPROX)
    # an explicit epoch uses the closed form
    s.step(4)
    assert s() == pytest.approx(cosine(1.0, 0.0, 4, 10), **APPROX)


def test_linear_warmup_around_a_float():
    got = lrs_of(lr.LinearWarmup(learning_rate=0.5, warmup_steps=10, start_lr=0.0, end_lr=0.5), 20)
    assert got == pytest.approx([0.05 * e for e in range(10)] + [0.5] * 10, **APPROX)


def test_linear_warmup_around_step_decay():
    inner = lr.StepDecay(learning_rate=0.4, step_size=3, gamma=0.5)
    s = lr.LinearWarmup(learning_rate=inner, warmup_steps=5, start_lr=0.1, end_lr=0.4)
    got = lrs_of(s, 20)
    warm = [0.1 + 0.3 * e / 5 for e in range(5)]
    after = [0.4 * 0.5 ** ((e - 5) // 3) for e in range(5, 20)]
    assert got == pytest.approx(warm + after, **APPROX)
    assert inner.last_epoch == 20 - 5  # the wrapped scheduler is stepped to epoch - warmup_steps


def test_linear_warmup_around_cosine_uses_closed_form():
    inner = lr.CosineAnnealingDecay(learning_rate=1.0, T_max=6, eta_min=0.2)
    got = lrs_of(lr.LinearWarmup(inner, warmup_steps=4, start_lr=0.0, end_lr=1.0), 20)
    expected = [e / 4 for e in range(4)] + [cosine(1.0, 0.2, e - 4, 6) for e in range(4, 20)]
    assert got == pytest.approx(expected, **APPROX)


def test_linear_warmup_state_dict_holds_the_inner_state():
    make = lambda: lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), warmup_steps=3,  # noqa: E731
                                   start_lr=0.0, end_lr=0.5)
    s = make()
    for _ in range(7):
        s.step()
    state = s.state_dict()
    assert set(state) == {"last_epoch", "last_lr", "LinearWarmup_LR"}
    assert state["LinearWarmup_LR"] == {"last_epoch": 4, "last_lr": pytest.approx(0.5 * 0.9 ** 4, **APPROX)}
    t = make()
    t.set_state_dict(state)
    assert t.learning_rate.last_epoch == 4
    assert lrs_of(t, 5) == lrs_of(s, 5)
    with pytest.raises(RuntimeError, match="LinearWarmup_LR"):
        make().set_state_dict({"last_epoch": 7, "last_lr": 0.1})


def test_one_cycle_lr_two_phase_cos():
    max_lr, total, div, end, pct = 1.0, 20, 25.0, 1e-4, 0.3
    init = max_lr / div
    up = pct * total - 1  # the peak is at step 5

    def expected(step):
        if step <= up:
            a, b, p = init, max_lr, step / up
        else:
            a, b, p = max_lr, end, (step - up) / (total - 1 - up)
        return b + (a - b) * (1 + math.cos(math.pi * p)) / 2

    s = lr.OneCycleLR(max_learning_rate=max_lr, total_steps=total, divide_factor=div, end_learning_rate=end,
                      phase_pct=pct)
    got = lrs_of(s, total)
    assert got == pytest.approx([expected(e) for e in range(total)], **APPROX)
    assert got[0] == pytest.approx(0.04, **APPROX) and got[5] == pytest.approx(1.0, **APPROX)
    assert got[-1] == pytest.approx(1e-4, **APPROX)
    with pytest.raises(ValueError, match="total_steps is 20"):
        s.step()  # step 21


def test_one_cycle_lr_three_phase_linear():
    s = lr.OneCycleLR(max_learning_rate=1.0, total_steps=21, divide_factor=10.0, end_learning_rate=0.0,
                      phase_pct=0.25, anneal_strategy="linear", three_phase=True)
    # phases end at steps 4.25 (up), 8.5 (back down to 0.1) and 20 (down to 0)
    up, back, last = 0.25 * 21 - 1, 2 * 0.25 * 21 - 2, 20

    def expected(step):
        if step <= up:
            return 0.1 + 0.9 * step / up
        if step <= back:
            return 1.0 - 0.9 * (step - up) / (back - up)
        return 0.1 - 0.1 * (step - back) / (last - back)

    assert lrs_of(s, 21) == pytest.approx([expected(e) for e in range(21)], **APPROX)


def test_cyclic_lr_triangular():
    got = lrs_of(lr.CyclicLR(base_learning_rate=0.1, max_learning_rate=0.5, step_size_up=3, step_size_down=1), 20)
    assert got == pytest.approx([0.1, 0.1 + 0.4 / 3, 0.1 + 0.8 / 3, 0.5] * 5, **APPROX)


def test_cyclic_lr_triangular2_halves_each_cycle():
    got = lrs_of(lr.CyclicLR(0.1, 0.5, step_size_up=2, mode="triangular2"), 20)
    expected = []
    for e in range(20):
        cycle, pos = divmod(e, 4)
        height = pos / 2 if pos <= 2 else (4 - pos) / 2
        expected.append(0.1 + 0.4 * height / 2 ** cycle)
    assert got == pytest.approx(expected, **APPROX)


def test_cyclic_lr_exp_range_and_custom_scale():
    got = lrs_of(lr.CyclicLR(0.1, 0.5, step_size_up=2, mode="exp_range", exp_gamma=0.9), 20)
    height = [0, 0.5, 1, 0.5]
    assert got == pytest.approx([0.1 + 0.4 * height[e % 4] * 0.9 ** e for e in range(20)], **APPROX)

    seen = []
    s = lr.CyclicLR(0.1, 0.5, step_size_up=2, scale_fn=lambda x: seen.append(x) or 1 / x, scale_mode="cycle")
    got = lrs_of(s, 12)
    assert got == pytest.approx([0.1 + 0.4 * height[e % 4] / (1 + e // 4) for e in range(12)], **APPROX)
    assert seen[:5] == [1, 1, 1, 1, 2]
    s = lr.CyclicLR(0.1, 0.5, step_size_up=2, scale_fn=lambda it: 1 / (1 + it), scale_mode="iterations")
    assert lrs_of(s, 12) == pytest.approx([0.1 + 0.4 * height[e % 4] / (1 + e) for e in range(12)], **APPROX)


def test_linear_lr():
    base, total, sf, ef = 0.5, 10, 0.2, 0.9
    got = lrs_of(lr.LinearLR(learning_rate=base, total_steps=total, start_factor=sf, end_factor=ef), 20)
    expected = [base * (sf + (ef - sf) * min(e, total) / total) for e in range(20)]
    assert got == pytest.approx(expected, **APPROX)
    default = lrs_of(lr.LinearLR(learning_rate=0.3, total_steps=4), 6)
    assert default == pytest.approx([0.1, 0.15, 0.2, 0.25, 0.3, 0.3], **APPROX)


def restart_position(epoch, t0, mult):
    start, period = 0, t0
    while epoch >= start + period:
        start, period = start + period, period * mult
    return epoch - start, period


def test_restart_position_helper():
    assert [restart_position(e, 2, 2) for e in (0, 1, 2, 5, 6, 13, 14)] == [
        (0, 2), (1, 2), (0, 4), (3, 4), (0, 8), (7, 8), (0, 16)]


@pytest.mark.parametrize("t_mult", [1, 2, 3])
def test_cosine_annealing_warm_restarts(t_mult):
    s = lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=3, T_mult=t_mult, eta_min=0.05)
    expected = [cosine(0.5, 0.05, *restart_position(e, 3, t_mult)) for e in range(20)]
    assert lrs_of(s, 20) == pytest.approx(expected, **APPROX)


def test_cosine_annealing_warm_restarts_explicit_epochs():
    s = lr.CosineAnnealingWarmRestarts(learning_rate=1.0, T_0=2, T_mult=2)
    for epoch in [0, 1, 2, 5, 6, 13, 14, 29, 30]:
        s.step(epoch)
        assert s.last_epoch == epoch
        assert s() == pytest.approx(cosine(1.0, 0.0, *restart_position(epoch, 2, 2)), **APPROX)
    s.step(2.5)  # a fraction of an epoch
    assert s.last_epoch == 2
    assert s() == pytest.approx(cosine(1.0, 0.0, 0.5, 4), **APPROX)
    with pytest.raises(ValueError, match="non-negative"):
        s.step(-1)


def test_cosine_annealing_warm_restarts_restart_epochs_are_exact():
    # periods 1, 3, 9, 27, 81, 243: restarts at 1, 4, 13, 40, 121, 364, where the learning rate is back at its
    # maximum (a floating-point log(243, 3) just below 5 would put epoch 121 at the end of the previous period)
    s = lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=1, T_mult=3)
    for epoch in [1, 4, 13, 40, 121, 364]:
        s.step(epoch)
        assert (s.T_cur, s.T_i, s()) == (0, 2 * epoch + 1, 0.5)


def test_cosine_annealing_warm_restarts_resume_keeps_the_period():
    s = lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=2, T_mult=2)
    for _ in range(7):
        s.step()
    assert (s.T_cur, s.T_i) == (1, 8)
    resumed = lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=2, T_mult=2)
    resumed.set_state_dict(s.state_dict())  # Paddle's keys only: last_epoch and last_lr
    assert (resumed.T_cur, resumed.T_i) == (1, 8)
    assert lrs_of(resumed, 12) == lrs_of(s, 12)


# ----------------------------------------------------------------------------------------------------------------
# ReduceOnPlateau


def test_reduce_on_plateau_min_rel_with_cooldown_and_min_lr():
    s = lr.ReduceOnPlateau(learning_rate=1.0, mode="min", factor=0.5, patience=2, threshold=0.1,
                           threshold_mode="rel", cooldown=1, min_lr=0.2)
    assert s.last_epoch == 0 and s.best is None  # no step in the constructor
    metrics = [10, 9.5, 8.9, 8.5, 8.5, 8.5, 1.0, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5, 8.5]
    got = []
    for m in metrics:
        s.step(m)
        got.append(s())
    # 9.5 is not below 10 * 0.9; 8.9 is; three bad epochs (> patience) halve the lr; the epoch after a
    # reduction is a cooldown that ignores its metric (even 1.0); min_lr stops the decay at 0.2
    assert got == [1.0] * 5 + [0.5] * 4 + [0.25] * 4 + [0.2] * 5
    assert s.best == 8.9 and s.last_epoch == 18


def test_reduce_on_plateau_max_abs():
    s = lr.ReduceOnPlateau(learning_rate=1.0, mode="max", factor=0.1, patience=1, threshold=0.5,
                           threshold_mode="abs")
    got = []
    for m in [1.0, 1.4, 1.6, 1.7, 1.8, 3.0, 3.1]:
        s.step(m)
        got.append(s())
    assert got == [1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1]
    assert s.best == 3.0


@pytest.mark.parametrize("mode,metrics", [
    ("min", [1.0, 0.99995, 0.9998]),  # 0.99995 is not below 1 * (1 - 1e-4); 0.9998 is
    ("max", [1.0, 1.00005, 1.0002]),  # 1.00005 is not above 1 * (1 + 1e-4); 1.0002 is
])
def test_reduce_on_plateau_rel_threshold(mode, metrics):
    s = lr.ReduceOnPlateau(learning_rate=1.0, mode=mode, patience=0)
    got = []
    for m in metrics:
        s.step(m)
        got.append(s())
    assert got == pytest.approx([1.0, 0.1, 0.1], **APPROX)
    assert s.best == metrics[2] and s.num_bad_epochs == 0


def test_reduce_on_plateau_epsilon():
    s = lr.ReduceOnPlateau(learning_rate=1.5e-8, patience=0)
    s.step(1.0)
    s.step(1.0)
    assert s() == pytest.approx(1.5e-9, **APPROX)  # a change of 1.35e-8 > epsilon
    s.step(1.0)
    assert s() == pytest.approx(1.5e-9, **APPROX)  # a change of 1.35e-9 < epsilon is skipped


@pytest.mark.parametrize("metric", [
    2.0, 2, np.float32(2.0), np.float64(2.0), np.array(2.0), np.array([2.0]),
    paddle.to_tensor(2.0), paddle.to_tensor([2.0]), paddle.to_tensor([2.0], dtype="float64"),
])
def test_reduce_on_plateau_metric_kinds(metric):
    s = lr.ReduceOnPlateau(learning_rate=1.0, patience=0)
    s.step(metric)
    assert s.best == 2.0 and type(s.best) is float
    s.step(metric)
    assert s() == pytest.approx(0.1, **APPROX)


def test_reduce_on_plateau_bad_metrics():
    s = lr.ReduceOnPlateau(learning_rate=1.0)
    with pytest.raises(ValueError, match=r"exactly one value.*\[2\]"):
        s.step(paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="exactly one value"):
        s.step(np.zeros((1, 2)))
    with pytest.raises(AssertionError):  # Paddle asserts here
        s.step(np.zeros(3))
    with pytest.raises(TypeError, match="metrics"):
        s.step("0.5")
    with pytest.raises(TypeError, match="metrics"):
        s.step(None)


def test_reduce_on_plateau_state_dict():
    s = lr.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1, cooldown=2)
    for m in [5.0, 6.0, 6.0, 4.0]:
        s.step(m)
    state = s.state_dict()
    assert state == {"cooldown_counter": 1, "best": 5.0, "num_bad_epochs": 0, "last_epoch": 4, "last_lr": 0.5}
    t = lr.ReduceOnPlateau(learning_rate=1.0, factor=0.5, patience=1, cooldown=2)
    t.set_state_dict(state)
    for m in [7.0, 7.0, 7.0, 3.0, 7.0, 7.0]:
        s.step(m)
        t.step(m)
        assert t.state_dict() == s.state_dict()


def test_reduce_on_plateau_verbose(capsys):
    s = lr.ReduceOnPlateau(learning_rate=1.0, patience=0, factor=0.5, verbose=True)
    s.step(1.0)
    assert capsys.readouterr().out == ""
    s.step(1.0)
    assert capsys.readouterr().out == "Epoch 2: ReduceOnPlateau set learning rate to 0.5.\n"


# ----------------------------------------------------------------------------------------------------------------
# state_dict round trips in the middle of every schedule

FACTORIES = {
    "NoamDecay": lambda: lr.NoamDecay(d_model=16, warmup_steps=4),
    "PiecewiseDecay": lambda: lr.PiecewiseDecay([3, 6], [0.3, 0.2, 0.1]),
    "NaturalExpDecay": lambda: lr.NaturalExpDecay(0.5, gamma=0.2),
    "InverseTimeDecay": lambda: lr.InverseTimeDecay(0.5, gamma=0.2),
    "PolynomialDecay": lambda: lr.PolynomialDecay(0.5, decay_steps=4, cycle=True),
    "LinearWarmup": lambda: lr.LinearWarmup(lr.CosineAnnealingDecay(0.5, T_max=4), 3, 0.0, 0.5),
    "ExponentialDecay": lambda: lr.ExponentialDecay(0.5, gamma=0.8),
    "MultiStepDecay": lambda: lr.MultiStepDecay(0.5, milestones=[2, 5, 9]),
    "StepDecay": lambda: lr.StepDecay(0.5, step_size=3),
    "LambdaDecay": lambda: lr.LambdaDecay(0.5, lambda e: 1 / (1 + e)),
    "CosineAnnealingDecay": lambda: lr.CosineAnnealingDecay(0.5, T_max=3, eta_min=0.01),
    "MultiplicativeDecay": lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9 + 0.001 * e),
    "OneCycleLR": lambda: lr.OneCycleLR(1.0, total_steps=40),
    "CyclicLR": lambda: lr.CyclicLR(0.1, 0.4, step_size_up=3, mode="exp_range", exp_gamma=0.95),
    "LinearLR": lambda: lr.LinearLR(0.5, total_steps=12),
    "CosineAnnealingWarmRestarts": lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2),
}


def test_every_scheduler_has_a_round_trip():
    assert set(FACTORIES) | {"LRScheduler", "ReduceOnPlateau"} == set(lr.__all__)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_state_dict_round_trip_mid_schedule(name):
    make = FACTORIES[name]
    reference = make()
    for _ in range(9):
        reference.step()
    state = reference.state_dict()
    keys = {"last_epoch", "last_lr"} | ({"LinearWarmup_LR"} if name == "LinearWarmup" else set())
    assert set(state) == keys  # Paddle's keys
    assert state["last_epoch"] == 9
    resumed = make()
    resumed.set_state_dict(state)
    assert resumed() == reference()
    assert lrs_of(resumed, 15) == lrs_of(reference, 15)


# ----------------------------------------------------------------------------------------------------------------
# errors for bad arguments

BAD_ARGUMENTS = [
    (lambda: lr.ExponentialDecay("0.1", gamma=0.5), TypeError, "learning_rate"),
    (lambda: lr.StepDecay(-0.5, step_size=2), ValueError, "invalid learning rate"),
    (lambda: lr.StepDecay(paddle.to_tensor(0.5), step_size=2), TypeError, "learning_rate"),
    (lambda: lr.NoamDecay(d_model=0, warmup_steps=10), ValueError, "d_model"),
    (lambda: lr.NoamDecay(d_model=8, warmup_steps=0), ValueError, "warmup_steps"),
    (lambda: lr.PiecewiseDecay(boundaries=[], values=[0.1]), ValueError, "boundaries"),
    (lambda: lr.PiecewiseDecay(boundaries=[2, 4], values=[0.1, 0.2]), ValueError, "one more element"),
    (lambda: lr.NaturalExpDecay(0.5, gamma=0.0), ValueError, "gamma"),
    (lambda: lr.PolynomialDecay(0.5, decay_steps=0), ValueError, "decay_steps"),
    (lambda: lr.PolynomialDecay(0.5, decay_steps=2.5), TypeError, "decay_steps"),
    (lambda: lr.PolynomialDecay(0.5, decay_steps=10, power=0), ValueError, "power"),
    (lambda: lr.LinearWarmup("0.5", warmup_steps=5, start_lr=0, end_lr=0.5), TypeError, "learning_rate"),
    (lambda: lr.LinearWarmup(0.5, warmup_steps=0, start_lr=0, end_lr=0.5), ValueError, "warmup_steps"),
    (lambda: lr.LinearWarmup(0.5, warmup_steps=5, start_lr=0.5, end_lr=0.1), ValueError, "end_lr"),
    (lambda: lr.ExponentialDecay(0.5, gamma=1.0), ValueError, r"\(0.0, 1.0\)"),
    (lambda: lr.MultiStepDecay(0.5, milestones=3), TypeError, "milestones"),
    (lambda: lr.MultiStepDecay(0.5, milestones=[3, 3]), ValueError, "increasing"),
    (lambda: lr.MultiStepDecay(0.5, milestones=[3], gamma=1.5), ValueError, "gamma"),
    (lambda: lr.StepDecay(0.5, step_size=2.0), TypeError, "step_size"),
    (lambda: lr.StepDecay(0.5, step_size=0), ValueError, "step_size"),
    (lambda: lr.StepDecay(0.5, step_size=2, gamma=1.0), ValueError, "gamma"),
    (lambda: lr.LambdaDecay(0.5, lr_lambda=0.9), TypeError, "lr_lambda"),
    (lambda: lr.MultiplicativeDecay(0.5, lr_lambda=0.9), TypeError, "lr_lambda"),
    (lambda: lr.ReduceOnPlateau(1.0, mode="low"), ValueError, "mode"),
    (lambda: lr.ReduceOnPlateau(1.0, factor=1.0), ValueError, "factor"),
    (lambda: lr.ReduceOnPlateau(1.0, threshold_mode="relative"), ValueError, "threshold_mode"),
    (lambda: lr.ReduceOnPlateau("1.0"), TypeError, "learning_rate"),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=2.0), TypeError, "T_max"),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=0), ValueError, "T_max"),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=5, eta_min="0"), TypeError, "eta_min"),
    (lambda: lr.OneCycleLR("1.0", total_steps=10), TypeError, "max_learning_rate"),
    (lambda: lr.OneCycleLR(-1.0, total_steps=10), ValueError, "max_learning_rate"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, end_learning_rate=-1.0), ValueError, "end_learning_rate"),
    (lambda: lr.OneCycleLR(1.0, total_steps=0), ValueError, "total_steps"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10.0), TypeError, "total_steps"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, phase_pct=1.5), ValueError, "phase_pct"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, phase_pct=0.5, three_phase=True), ValueError, "three_phase"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, anneal_strategy="exp"), ValueError, "anneal_strategy"),
    (lambda: lr.OneCycleLR(1.0, total_steps=10, phase_pct=0.1), ValueError, "phase_pct"),
    (lambda: lr.CyclicLR(0.1, "0.5", step_size_up=2), TypeError, "max_learning_rate"),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=0), ValueError, "step_size_up"),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=2, step_size_down=1.5), TypeError, "step_size_down"),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=2, mode="square"), ValueError, "mode"),
    (lambda: lr.CyclicLR(0.1, 0.5, step_size_up=2, scale_mode="epochs"), ValueError, "scale_mode"),
    (lambda: lr.LinearLR(0.5, total_steps=5, start_factor=0), ValueError, "start_factor"),
    (lambda: lr.LinearLR(0.5, total_steps=5, end_factor=1.5), ValueError, "end_factor"),
    (lambda: lr.LinearLR(0.5, total_steps=0), ValueError, "total_steps"),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=0), ValueError, "T_0"),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=0), ValueError, "T_mult"),
]


@pytest.mark.parametrize("make,error,match", BAD_ARGUMENTS, ids=[f"{i}" for i in range(len(BAD_ARGUMENTS))])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_value_errors_are_assertion_errors_where_paddle_asserts():
    # Paddle checks these with assert; the errors here are ValueError / TypeError and also AssertionError
    for make in (lambda: lr.ExponentialDecay(0.5, gamma=2.0), lambda: lr.StepDecay(0.5, step_size=-1),
                 lambda: lr.PolynomialDecay(0.5, decay_steps=1.5),
                 lambda: lr.LinearWarmup(0.5, warmup_steps=5, start_lr=0.5, end_lr=0.1)):
        with pytest.raises(AssertionError):
            make()
