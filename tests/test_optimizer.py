"""paddle.optimizer: the stateful optimizers against real Paddle's trajectories, param groups, weight decay, clipping,
schedulers, state_dict round trips and errors.

REFERENCE holds Paddle 3.3.1's parameters (CPU, float32) after 4 steps of ``loss.backward(); opt.step();
opt.clear_grad()`` on the loss below, one entry per configuration; it was produced by this script::

    import numpy as np, paddle, json
    W0 = np.array([[0.5, -0.3, 0.8], [-0.2, 0.4, 0.1]], np.float32)
    B0 = np.array([0.1, -0.2, 0.3], np.float32)
    X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], np.float32)
    def params(wattr=None, battr=None):
        w = paddle.create_parameter([2, 3], "float32", attr=wattr,
                                    default_initializer=paddle.nn.initializer.Assign(W0))
        b = paddle.create_parameter([3], "float32", attr=battr, is_bias=True,
                                    default_initializer=paddle.nn.initializer.Assign(B0))
        return w, b
    def loss_fn(w, b):
        y = paddle.matmul(paddle.to_tensor(X), w) + b
        return (y * y).sum() + paddle.tanh(y).sum()
    def run(make, steps=4, wattr=None, battr=None, sched=None):
        w, b = params(wattr, battr)
        opt = make([w, b])
        for _ in range(steps):
            loss_fn(w, b).backward(); opt.step(); opt.clear_grad()
            if sched is not None: sched.step()
        return [w.numpy().tolist(), b.numpy().tolist()]
    O = paddle.optimizer
    cases = {"sgd": lambda: run(lambda ps: O.SGD(0.01, parameters=ps)), ...}   # the CASES below, same arguments
    print(json.dumps({k: f() for k, f in cases.items()}))
"""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn_compat.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from paddle_fn.regularizer import L1Decay, L2Decay

O = paddle.optimizer
W0 = np.array([[0.5, -0.3, 0.8], [-0.2, 0.4, 0.1]], np.float32)
B0 = np.array([0.1, -0.2, 0.3], np.float32)
X = np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], np.float32)

REFERENCE = {
    'sgd': ([[0.42345926, -0.28965279, 0.67099297], [-0.24353702, 0.25923577, -0.04958795]],
        [0.00021273829, -0.29133883, 0.13938086]),
    'sgd_l2': ([[0.42168924, -0.2884956, 0.66817582], [-0.24268976, 0.25799, -0.049623996]],
        [-5.9900805e-05, -0.29043451, 0.13848963]),
    'sgd_l1': ([[0.41572315, -0.28194577, 0.66347599], [-0.23584858, 0.25173062, -0.052382585]],
        [-0.0076066554, -0.28388512, 0.13222089]),
    'momentum': ([[0.32824731, -0.27470338, 0.50785822], [-0.29528579, 0.086922817, -0.23781645]],
        [-0.12373462, -0.40350574, -0.062454015]),
    'momentum_nesterov_l2': ([[0.31129587, -0.2565203, 0.47249067], [-0.27898869, 0.082098238, -0.24402857]],
        [-0.13734078, -0.40625748, -0.086818434]),
    'adam': ([[0.30464214, -0.12239819, 0.6010592], [-0.34086835, 0.20225798, -0.097105131]],
        [-0.09464711, -0.39635599, 0.10156298]),
    'adam_amsgrad_l2': ([[0.30489418, -0.12220076, 0.60114735], [-0.32998565, 0.2024605, -0.09684404]],
        [-0.094213493, -0.39588872, 0.10170791]),
    'adamw': ([[0.29641482, -0.11991893, 0.58676606], [-0.33602798, 0.19589755, -0.097522743]],
        [-0.095222034, -0.39095697, 0.097122155]),
    'adamw_fn': ([[0.28038862, -0.11289168, 0.55889636], [-0.32724631, 0.18359004, -0.09839987]],
        [-0.094974175, -0.39613688, 0.10151013]),
    'adamax': ([[0.3239702, -0.14436398, 0.6103152], [-0.32178229, 0.21641652, -0.079758421]],
        [-0.073627941, -0.37819377, 0.11342926]),
    'rmsprop': ([[0.38271448, -0.19233787, 0.67732948], [-0.28106585, 0.2797474, -0.018568845]],
        [-0.016248452, -0.31793782, 0.17854208]),
    'rmsprop_centered': ([[0.34970537, -0.16441454, 0.64256966], [-0.30527103, 0.24556816, -0.052470576]],
        [-0.048940517, -0.351542, 0.14405313]),
    'adagrad': ([[0.27142206, -0.12371576, 0.54055202], [-0.23041733, 0.16389659, -0.13654885]],
        [-0.12767592, -0.42021868, 0.047453281]),
    'adadelta': ([[0.4909645, -0.29103237, 0.7909435], [-0.20891762, 0.3909514, 0.090967856]],
        [0.090973556, -0.20903724, 0.29095018]),
    'lamb': ([[0.41461745, -0.2174291, 0.71409523], [-0.28293476, 0.31446898, 0.014821608]],
        [0.057653546, -0.24227992, 0.25748375]),
    'lamb_exclude': ([[0.41332746, -0.21446772, 0.71057051], [-0.27514273, 0.31414956, 0.016812705]],
        [-0.096816726, -0.39719468, 0.10123331]),
    'clip_global': ([[0.49122542, -0.29942152, 0.78532672], [-0.20609763, 0.38282883, 0.081328459]],
        [0.088205457, -0.21107434, 0.28089663]),
    'clip_value_needclip': ([[0.48000002, -0.29362813, 0.78000003], [-0.21999998, 0.38000003, 0.079999991]],
        [-0.0012616329, -0.29572245, 0.13423696]),
    'clip_norm_adam': ([[0.30141518, -0.12123191, 0.59950936], [-0.33432156, 0.19996752, -0.099749319]],
        [-0.098200873, -0.39933696, 0.099636048]),
    'paramattr_lr_reg': ([[0.45406318, -0.28998947, 0.72698951], [-0.21830198, 0.31903893, 0.015001839]],
        [-0.001611704, -0.29289439, 0.13600175]),
    'groups': ([[0.44079441, -0.23884583, 0.74025846], [-0.25098521, 0.3410835, 0.041565388]],
        [-0.097165897, -0.39734891, 0.10116729]),
    'groups_momentum': ([[0.11088154, -0.041417688, 0.12826617], [-0.056665152, 0.051138237, -0.11816318]],
        [-0.54834491, -0.62834632, -0.69276887]),
    'sched': ([[0.15527436, -0.091576114, 0.20678312], [-0.12700799, 0.044883102, -0.15833767]],
        [-0.29299808, -0.43633351, -0.27307302]),
}


def params(wattr=None, battr=None):
    init = paddle.nn.initializer.Assign
    w = paddle.nn.create_parameter([2, 3], "float32", attr=wattr, default_initializer=init(W0))
    b = paddle.nn.create_parameter([3], "float32", attr=battr, is_bias=True, default_initializer=init(B0))
    return w, b


def loss_fn(w, b):
    y = paddle.matmul(paddle.to_tensor(X), w) + b
    return (y * y).sum() + paddle.tanh(y).sum()


def run(make, steps=4, wattr=None, battr=None, sched=None):
    w, b = params(wattr, battr)
    opt = make([w, b])
    for _ in range(steps):
        loss_fn(w, b).backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
    return w, b, opt


CASES = {
    "sgd": dict(make=lambda ps: O.SGD(0.01, parameters=ps)),
    "sgd_l2": dict(make=lambda ps: O.SGD(0.01, parameters=ps, weight_decay=0.1)),
    "sgd_l1": dict(make=lambda ps: O.SGD(0.01, parameters=ps, weight_decay=L1Decay(0.2))),
    "momentum": dict(make=lambda ps: O.Momentum(0.01, momentum=0.9, parameters=ps)),
    "momentum_nesterov_l2": dict(make=lambda ps: O.Momentum(0.01, momentum=0.8, use_nesterov=True, weight_decay=0.05,
                                                            parameters=ps)),
    "adam": dict(make=lambda ps: O.Adam(0.05, parameters=ps)),
    "adam_amsgrad_l2": dict(make=lambda ps: O.Adam(0.05, beta1=0.8, beta2=0.9, parameters=ps, amsgrad=True,
                                                   weight_decay=0.1)),
    "adamw": dict(make=lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.1)),
    "adamw_fn": dict(make=lambda ps: O.AdamW(0.05, parameters=ps, weight_decay=0.3,
                                             apply_decay_param_fun=lambda n: n == ps[0].name)),
    "adamax": dict(make=lambda ps: O.Adamax(0.05, parameters=ps)),
    "rmsprop": dict(make=lambda ps: O.RMSProp(0.01, parameters=ps)),
    "rmsprop_centered": dict(make=lambda ps: O.RMSProp(0.01, rho=0.9, momentum=0.5, centered=True, parameters=ps)),
    "adagrad": dict(make=lambda ps: O.Adagrad(0.1, parameters=ps, initial_accumulator_value=0.1)),
    "adadelta": dict(make=lambda ps: O.Adadelta(0.5, parameters=ps)),
    "lamb": dict(make=lambda ps: O.Lamb(0.05, parameters=ps)),
    "lamb_exclude": dict(make=lambda ps: O.Lamb(0.05, lamb_weight_decay=0.1, parameters=ps,
                                                exclude_from_weight_decay_fn=lambda p: p.name == ps[1].name)),
    "clip_global": dict(make=lambda ps: O.SGD(0.01, parameters=ps, grad_clip=ClipGradByGlobalNorm(1.0))),
    "clip_value_needclip": dict(make=lambda ps: O.SGD(0.01, parameters=ps, grad_clip=ClipGradByValue(0.5)),
                                battr=lambda: paddle.nn.ParamAttr(need_clip=False)),
    "clip_norm_adam": dict(make=lambda ps: O.Adam(0.05, parameters=ps, grad_clip=ClipGradByNorm(0.7))),
    "paramattr_lr_reg": dict(make=lambda ps: O.SGD(0.01, parameters=ps, weight_decay=0.1),
                             wattr=lambda: paddle.nn.ParamAttr(learning_rate=0.5, regularizer=L1Decay(0.3))),
    "groups": dict(make=lambda ps: O.Adam(0.05, parameters=[
        {"params": [ps[0]], "learning_rate": 0.3, "beta1": 0.5, "weight_decay": 0.2}, {"params": [ps[1]]}],
        weight_decay=0.01)),
    "groups_momentum": dict(make=lambda ps: O.Momentum(0.05, parameters=[
        {"params": [ps[0]], "momentum": 0.5, "weight_decay": 0.2}, {"params": [ps[1]]}])),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_trajectory_matches_paddle(case):
    spec = CASES[case]
    w, b, _ = run(spec["make"], wattr=spec.get("wattr", lambda: None)(), battr=spec.get("battr", lambda: None)())
    ref_w, ref_b = REFERENCE[case]
    np.testing.assert_allclose(w.numpy(), np.array(ref_w, np.float32), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(b.numpy(), np.array(ref_b, np.float32), rtol=2e-5, atol=2e-6)


def test_scheduler_drives_the_learning_rate():
    scheduler = O.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    w, b, opt = run(lambda ps: O.SGD(scheduler, parameters=ps), sched=scheduler)
    np.testing.assert_allclose(w.numpy(), np.array(REFERENCE["sched"][0], np.float32), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(b.numpy(), np.array(REFERENCE["sched"][1], np.float32), rtol=2e-5, atol=2e-6)
    assert opt.get_lr() == 0.025
    assert opt.state_dict()["LR_Scheduler"] == {"last_epoch": 4, "last_lr": 0.025}


# ------------------------------------------------------------------------------------------------ what step updates

def test_step_keeps_the_parameter_objects_and_skips_frozen_and_gradless_parameters():
    w, b = params()
    frozen = paddle.nn.Parameter(paddle.to_tensor([1.0]), trainable=False)
    unused = paddle.nn.Parameter(paddle.to_tensor([2.0]))
    opt = O.Adam(0.1, parameters=[w, b, frozen, unused])
    before = {id(w), id(b)}
    (loss_fn(w, b) + (frozen * 3.0).sum()).backward()
    opt.step()
    assert {id(w), id(b)} == before and not w.stop_gradient and w.grad is not None
    assert float(frozen) == 1.0 and float(unused) == 2.0
    assert not any(unused.name in k or frozen.name in k for k in opt.state_dict())
    assert not np.allclose(w.numpy(), W0)


def test_step_records_nothing_on_the_tape():
    w, b = params()
    opt = O.SGD(0.1, parameters=[w, b])
    loss_fn(w, b).backward()
    opt.step()
    assert w.is_leaf and not w.stop_gradient
    loss_fn(w, b).backward()   # a second backward through the updated parameters works
    assert w.grad is not None


def test_clear_grad_zero_and_none_and_minimize():
    w, b = params()
    opt = O.SGD(0.1, parameters=[w, b])
    loss_fn(w, b).backward()
    opt.clear_grad()
    assert np.all(w.grad.numpy() == 0)
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None and b.grad is None
    with pytest.warns(UserWarning, match="call loss.backward"):
        assert opt.minimize(loss_fn(w, b)) == ([], [])
    loss = loss_fn(w, b)
    loss.backward()
    grad_w = w.grad.numpy()
    ops, pairs = opt.minimize(loss, no_grad_set={b.name})
    assert ops == [] and [p is w for p, _ in pairs] == [True]
    np.testing.assert_allclose(w.numpy(), W0 - 0.1 * grad_w, rtol=1e-6)
    np.testing.assert_array_equal(b.numpy(), B0)


def test_apply_gradients_from_paddle_grad():
    w, b = params()
    opt = O.SGD(0.5, parameters=[w, b])
    gw, gb = paddle.grad(loss_fn(w, b), [w, b])
    opt.apply_gradients([(w, gw), (b, gb)])
    np.testing.assert_allclose(w.numpy(), W0 - 0.5 * gw.numpy(), rtol=1e-6)
    stranger = paddle.nn.Parameter(paddle.to_tensor([1.0]))
    with pytest.raises(ValueError, match="not optimized by this optimizer"):
        opt.apply_gradients([(stranger, paddle.to_tensor([1.0]))])


def test_adamw_lr_ratio_scales_the_step_of_its_parameter():
    # lr_ratio(p) = 0.5 is AdamW with half the learning rate for p, decay included (Paddle implements lr_ratio on
    # GPU only, with this arithmetic); only w is optimized, so the runs see the same b
    def final_w(lr, **kw):
        w, b = params()
        opt = O.AdamW(lr, parameters=[w], weight_decay=0.2, **kw)
        for _ in range(3):
            loss_fn(w, b).backward()
            opt.step()
            opt.clear_grad()
        return w.numpy()
    np.testing.assert_allclose(final_w(0.1, lr_ratio=lambda p: 0.5), final_w(0.05), rtol=1e-6)
    np.testing.assert_array_equal(final_w(0.1, lr_ratio=lambda p: 1.0), final_w(0.1))


def test_paramattr_learning_rate_zero_freezes_and_group_learning_rate_is_written_to_the_parameter():
    w, b, _ = run(lambda ps: O.Momentum(0.1, parameters=ps), wattr=paddle.nn.ParamAttr(learning_rate=0.0))
    np.testing.assert_array_equal(w.numpy(), W0)
    assert not np.allclose(b.numpy(), B0)
    w, b = params()
    O.SGD(0.1, parameters=[{"params": [w], "learning_rate": 0.25, "weight_decay": 0.5}, {"params": b}])
    assert w.optimize_attr == {"learning_rate": 0.25} and w.regularizer == L2Decay(0.5)
    assert b.optimize_attr == {"learning_rate": 1.0} and b.regularizer is None


# ------------------------------------------------------------------------------------------------ state_dict

def test_state_dict_uses_paddle_names_and_order():
    w, b = params()
    opt = O.Adam(0.1, parameters=[w, b])
    assert opt.state_dict() == {}
    loss_fn(w, b).backward()
    opt.step()
    sd = opt.state_dict()
    assert list(sd) == [f"{p.name}_{acc}_0" for acc in ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")
                        for p in (w, b)]
    assert sd[f"{w.name}_beta1_pow_acc_0"].shape == [1] and sd[f"{w.name}_moment1_0"].shape == [2, 3]
    np.testing.assert_allclose(sd[f"{w.name}_beta2_pow_acc_0"].numpy(), [0.999 ** 2], rtol=1e-6)
    named = O.Momentum(0.1, parameters=[w], name="myopt")
    loss_fn(w, b).backward()
    named.step()
    assert list(named.state_dict()) == [f"{w.name}_myopt_velocity_0"]
    sgd = O.SGD(0.1, parameters=[w])
    sgd.step()
    assert sgd.state_dict() == {}


@pytest.mark.parametrize("make", [
    lambda ps, s: O.Adam(s, parameters=ps, amsgrad=True),
    lambda ps, s: O.Momentum(s, parameters=ps, use_nesterov=True),
    lambda ps, s: O.RMSProp(s, centered=True, momentum=0.3, parameters=ps),
    lambda ps, s: O.Lamb(s, parameters=ps),
], ids=["adam", "momentum", "rmsprop", "lamb"])
def test_state_dict_round_trip_resumes_identically(make):
    w, b = params()
    scheduler = O.lr.ExponentialDecay(0.05, gamma=0.7)
    opt = make([w, b], scheduler)
    for _ in range(2):
        loss_fn(w, b).backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()
    saved = {k: (v if k == "LR_Scheduler" else v.clone()) for k, v in opt.state_dict().items()}
    values = [w.numpy().copy(), b.numpy().copy()]
    for _ in range(2):
        loss_fn(w, b).backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()
    # a fresh optimizer (accumulators created from the loaded state at its first step) and a scheduler restored
    w2 = paddle.nn.Parameter(paddle.to_tensor(values[0]), name=w.name)
    b2 = paddle.nn.Parameter(paddle.to_tensor(values[1]), name=b.name)
    scheduler2 = O.lr.ExponentialDecay(0.05, gamma=0.7)
    opt2 = make([w2, b2], scheduler2)
    opt2.set_state_dict(saved)
    assert scheduler2.last_epoch == 2
    for _ in range(2):
        loss_fn(w2, b2).backward()
        opt2.step()
        opt2.clear_grad()
        scheduler2.step()
    np.testing.assert_array_equal(w2.numpy(), w.numpy())
    np.testing.assert_array_equal(b2.numpy(), b.numpy())
    # loading into an optimizer whose accumulators exist overwrites them
    opt.set_state_dict(saved)
    for k, v in opt.state_dict().items():
        if k != "LR_Scheduler":
            np.testing.assert_array_equal(v.numpy(), saved[k].numpy())


def test_set_state_dict_errors():
    w, b = params()
    scheduler = O.lr.StepDecay(0.1, step_size=1)
    opt = O.Adam(scheduler, parameters=[w, b])
    with pytest.raises(KeyError, match="LR_Scheduler"):
        opt.set_state_dict({})
    opt.set_state_dict({"LR_Scheduler": scheduler.state_dict(), "unrelated_0": paddle.zeros([1])})
    loss_fn(w, b).backward()
    with pytest.raises(KeyError, match="moment1"):
        opt.step()
    opt = O.Adam(0.1, parameters=[w, b])
    loss_fn(w, b).backward()
    opt.step()
    bad = {k: paddle.zeros([7]) for k in opt.state_dict()}
    with pytest.raises(ValueError, match="shape"):
        opt.set_state_dict(bad)


# ------------------------------------------------------------------------------------------------ learning rate

def test_get_lr_set_lr_and_scheduler_errors():
    w, b = params()
    opt = O.SGD(0.1, parameters=[w, b])
    opt.set_lr(1)
    assert opt.get_lr() == 1.0 and isinstance(opt.get_lr(), float)
    with pytest.raises(TypeError, match="must be float"):
        opt.set_lr("0.1")
    with pytest.raises(TypeError, match="must be LRScheduler"):
        opt.set_lr_scheduler(0.1)
    scheduler = O.lr.PiecewiseDecay([1], [0.5, 0.25])
    opt.set_lr_scheduler(scheduler)
    assert opt.get_lr() == 0.5
    with pytest.raises(RuntimeError, match="can't be LRScheduler"):
        opt.set_lr(0.3)
    loss_fn(w, b).backward()
    g = w.grad.numpy()
    opt.step()
    np.testing.assert_allclose(w.numpy(), W0 - 0.5 * g, rtol=1e-6)


# ------------------------------------------------------------------------------------------------ errors

def test_constructor_errors_follow_paddle():
    w, b = params()
    with pytest.raises(AttributeError, match="should not be None in dygraph mode"):
        O.Adam(0.1)
    with pytest.raises(TypeError, match="iterable of paddle Tensors"):
        O.Adam(0.1, parameters=w)
    with pytest.raises(TypeError, match="should not get dict type"):
        O.Adam(0.1, parameters={"params": [w]})
    with pytest.raises(TypeError, match="learning rate should be float or LRScheduler"):
        O.Adam(1, parameters=[w])
    with pytest.raises(TypeError, match="GradientClipBase"):
        O.SGD(0.1, parameters=[w], grad_clip=1.0)
    with pytest.raises(TypeError, match="weight_decay"):
        O.SGD(0.1, parameters=[w], weight_decay="0.1")
    with pytest.raises(ValueError, match="more than one parameter group"):
        O.Adam(0.1, parameters=[{"params": [w]}, {"params": [w, b]}])
    with pytest.raises(TypeError, match="received set"):
        O.Adam(0.1, parameters=[{"params": {w}}])
    with pytest.raises(TypeError, match="AdamW does not take L1Decay"):
        O.AdamW(0.1, parameters=[w], weight_decay=L2Decay(0.1))
    with pytest.raises(NotImplementedError, match="use_lowprecision_moment"):
        O.AdamW(0.1, parameters=[w], use_lowprecision_moment=True)
    with pytest.raises(ValueError, match="rho"):
        O.RMSProp(0.1, rho=-1.0, parameters=[w])
    opt = O.SGD(0.1, parameters=[w])
    with pytest.raises(ValueError, match="gradient of .* has shape"):
        opt.apply_gradients([(w, paddle.ones([3]))])
    with pytest.raises(NotImplementedError, match="startup_program"):
        opt.minimize(loss_fn(w, b), startup_program=object())


def test_multi_precision_keeps_float32_master_weights():
    c = paddle.to_tensor([1.0, -1.0, 0.5])   # the gradient, exact in float16
    start = np.array([1.0, 2.0, -3.0], np.float16)
    p16 = paddle.nn.Parameter(paddle.to_tensor(start), name="p16")
    p32 = paddle.nn.Parameter(paddle.to_tensor(start.astype(np.float32)), name="p32")
    opt16 = O.Adam(0.01, parameters=[p16], multi_precision=True)
    opt32 = O.Adam(0.01, parameters=[p32])
    for _ in range(3):
        for p, opt in ((p16, opt16), (p32, opt32)):
            (p.astype("float32") * c).sum().backward()
            opt.step()
            opt.clear_grad()
    sd = opt16.state_dict()
    master = sd["master_weights"]["p16"]
    assert master.dtype == paddle.float32 and p16.dtype == paddle.float16
    np.testing.assert_array_equal(master.numpy(), p32.numpy())
    np.testing.assert_array_equal(p16.numpy(), p32.numpy().astype(np.float16))
    assert "p16_fp32_master_0_moment1_0" in sd
    with pytest.warns(UserWarning, match="multi_precision=True"):
        plain = O.Momentum(0.01, parameters=[p16])
        (p16.astype("float32") * c).sum().backward()
        plain.step()
