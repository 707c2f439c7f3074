"""The functional optimizers, regularizers and gradient clipping of nn_compat against independent numpy
implementations of Paddle's formulas; eager, under jit (no retrace for a new learning rate) and under vmap."""
import doctest
import importlib
import pathlib

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn_compat import clip as C
from paddle_fn.nn_compat import regularizer as R
from paddle_fn.nn_compat.optimizer import functional as F

ROOT = pathlib.Path(__file__).resolve().parents[1]
TOL = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


# ------------------------------------------------------------------------------------ numpy references (Paddle's)

class Ref:
    """One numpy optimizer over a dict of arrays: ``init`` and ``step`` follow Paddle's kernels."""

    def __init__(self, kind, lr_default=None, weight_decay=None, **hp):
        self.kind, self.hp, self.wd = kind, hp, weight_decay

    def init(self, params):
        hp, st = self.hp, {}
        for k, p in params.items():
            z = np.zeros_like(p)
            one = lambda v: np.full([1], v, p.dtype)  # noqa: E731
            st[k] = {"sgd": {},
                     "momentum": {"velocity": z},
                     "adam": {"moment1": z, "moment2": z, "beta1_pow_acc": one(hp.get("beta1", 0.9)),
                              "beta2_pow_acc": one(hp.get("beta2", 0.999))},
                     "adamax": {"moment": z, "inf_norm": z, "beta1_pow_acc": one(hp.get("beta1", 0.9))},
                     "rmsprop": {"momentum": z, "mean_square": z, "mean_grad": z},
                     "adagrad": {"moment": z + p.dtype.type(hp.get("initial_accumulator_value", 0.0))},
                     "adadelta": {"_avg_squared_grad": z, "_avg_squared_update": z},
                     }[{"adamw": "adam", "lamb": "adam"}.get(self.kind, self.kind)]
            if self.kind in ("adam", "adamw") and hp.get("amsgrad"):
                st[k]["moment2_max"] = z
        return st

    def step(self, params, grads, state, lr):
        out_p, out_s = {}, {}
        for k in params:
            out_p[k], out_s[k] = self._leaf(k, params[k], grads[k], dict(state[k]), lr)
        return out_p, out_s

    def _leaf(self, name, p, g, s, lr):
        dt = p.dtype.type
        c = lambda v: dt(v)  # noqa: E731
        hp, kind = self.hp, self.kind
        lr = c(lr)
        wd = self.wd[name] if isinstance(self.wd, dict) else self.wd
        if kind not in ("adamw", "lamb", "momentum") and wd is not None:
            g = g + (c(wd[1]) * np.sign(p) if wd[0] == "l1" else c(wd[1]) * p)
        if kind == "sgd":
            return p - lr * g, s
        if kind == "momentum":
            mu = c(hp.get("momentum", 0.9))
            if wd is not None and wd[0] == "l1":
                g = g + c(wd[1]) * np.sign(p)
            g = g * c(hp.get("rescale_grad", 1.0))
            if wd is not None and wd[0] == "l2":
                g = g + c(wd[1]) * p
            v = mu * s["velocity"] + g
            p = p - (g + mu * v) * lr if hp.get("use_nesterov") else p - lr * v
            return p, {"velocity": v}
        if kind in ("adam", "adamw"):
            b1, b2, eps = c(hp.get("beta1", 0.9)), c(hp.get("beta2", 0.999)), c(hp.get("epsilon", 1e-8))
            if kind == "adamw":
                ratio = hp.get("lr_ratio", {}).get(name, 1.0) if isinstance(hp.get("lr_ratio"), dict) else 1.0
                lr = lr * c(ratio)
                coeff = hp["coeff"][name] if isinstance(hp["coeff"], dict) else hp["coeff"]
                p = p - lr * c(coeff) * p
            b1p, b2p = s["beta1_pow_acc"][0], s["beta2_pow_acc"][0]
            lr_t = lr * np.sqrt(c(1) - b2p) / (c(1) - b1p)
            m = b1 * s["moment1"] + (c(1) - b1) * g
            v = b2 * s["moment2"] + (c(1) - b2) * g * g
            out = {"moment1": m, "moment2": v}
            if hp.get("amsgrad"):
                v = np.maximum(v, s["moment2_max"])
                out["moment2_max"] = v
            p = p - lr_t * (m / (np.sqrt(v) + eps * np.sqrt(c(1) - b2p)))
            out.update(beta1_pow_acc=s["beta1_pow_acc"] * b1, beta2_pow_acc=s["beta2_pow_acc"] * b2)
            return p, out
        if kind == "adamax":
            b1, b2, eps = c(hp.get("beta1", 0.9)), c(hp.get("beta2", 0.999)), c(hp.get("epsilon", 1e-8))
            m = b1 * s["moment"] + (c(1) - b1) * g
            u = np.maximum(np.abs(g), b2 * s["inf_norm"] + eps)
            p = p - lr / (c(1) - s["beta1_pow_acc"][0]) * (m / u)
            return p, {"moment": m, "inf_norm": u, "beta1_pow_acc": s["beta1_pow_acc"] * b1}
        if kind == "rmsprop":
            rho, eps, mu = c(hp.get("rho", 0.95)), c(hp.get("epsilon", 1e-6)), c(hp.get("momentum", 0.0))
            ms = rho * s["mean_square"] + (c(1) - rho) * g * g
            mg = s["mean_grad"]
            if hp.get("centered"):
                mg = rho * mg + (c(1) - rho) * g
                mom = mu * s["momentum"] + lr * g / np.sqrt(ms - mg * mg + eps)
            else:
                mom = mu * s["momentum"] + lr * g / np.sqrt(ms + eps)
            return p - mom, {"momentum": mom, "mean_square": ms, "mean_grad": mg}
        if kind == "adagrad":
            mom = s["moment"] + g * g
            return p - lr * g / (np.sqrt(mom) + c(hp.get("epsilon", 1e-6))), {"moment": mom}
        if kind == "adadelta":
            rho, eps = c(hp.get("rho", 0.95)), c(hp.get("epsilon", 1e-6))
            asg = rho * s["_avg_squared_grad"] + (c(1) - rho) * g * g
            upd = -np.sqrt((s["_avg_squared_update"] + eps) / (asg + eps)) * g
            asu = rho * s["_avg_squared_update"] + (c(1) - rho) * upd * upd
            return p + lr * upd, {"_avg_squared_grad": asg, "_avg_squared_update": asu}
        if kind == "lamb":
            b1, b2, eps = c(hp.get("beta1", 0.9)), c(hp.get("beta2", 0.999)), c(hp.get("epsilon", 1e-6))
            lwd = hp.get("lamb_weight_decay", 0.01)
            lwd = lwd[name] if isinstance(lwd, dict) else lwd
            m = b1 * s["moment1"] + (c(1) - b1) * g
            v = b2 * s["moment2"] + (c(1) - b2) * g * g
            r = (m / (c(1) - s["beta1_pow_acc"][0])) / (np.sqrt(v / (c(1) - s["beta2_pow_acc"][0])) + eps) + c(lwd) * p
            ratio = c(1)
            if lwd > 0 or hp.get("always_adapt"):
                pn, rn = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(r * r))
                ratio = pn / rn if pn > 0 and rn > 0 else c(1)
            return p - lr * ratio * r, {"moment1": m, "moment2": v, "beta1_pow_acc": s["beta1_pow_acc"] * b1,
                                        "beta2_pow_acc": s["beta2_pow_acc"] * b2}
        raise AssertionError(kind)


# (id, factory kwargs, Ref kwargs)
CASES = [
    ("sgd", lambda: F.sgd(0.1), dict(kind="sgd")),
    ("sgd-l2float", lambda: F.sgd(0.1, weight_decay=0.05), dict(kind="sgd", weight_decay=("l2", 0.05))),
    ("sgd-l1", lambda: F.sgd(0.1, weight_decay=R.L1Decay(0.05)), dict(kind="sgd", weight_decay=("l1", 0.05))),
    ("momentum", lambda: F.momentum(0.1, momentum=0.8), dict(kind="momentum", momentum=0.8)),
    ("momentum-nesterov-l2-rescale",
     lambda: F.momentum(0.1, 0.9, use_nesterov=True, weight_decay=R.L2Decay(0.01), rescale_grad=0.5),
     dict(kind="momentum", use_nesterov=True, rescale_grad=0.5, weight_decay=("l2", 0.01))),
    ("momentum-l1-rescale", lambda: F.momentum(0.1, 0.9, weight_decay=R.L1Decay(0.01), rescale_grad=0.5),
     dict(kind="momentum", rescale_grad=0.5, weight_decay=("l1", 0.01))),
    ("adam", lambda: F.adam(0.01), dict(kind="adam")),
    ("adam-betas-l2", lambda: F.adam(0.01, beta1=0.8, beta2=0.99, epsilon=1e-3, weight_decay=0.1),
     dict(kind="adam", beta1=0.8, beta2=0.99, epsilon=1e-3, weight_decay=("l2", 0.1))),
    ("adam-amsgrad", lambda: F.adam(0.01, amsgrad=True), dict(kind="adam", amsgrad=True)),
    ("adamw", lambda: F.adamw(0.01, weight_decay=0.1), dict(kind="adamw", coeff=0.1)),
    ("adamw-perleaf", lambda: F.adamw(0.01, weight_decay={"w": 0.1, "b": 0.0}, lr_ratio={"w": 0.5, "b": 1.0}),
     dict(kind="adamw", coeff={"w": 0.1, "b": 0.0}, lr_ratio={"w": 0.5, "b": 1.0})),
    ("adamax", lambda: F.adamax(0.01, beta1=0.85, epsilon=1e-4), dict(kind="adamax", beta1=0.85, epsilon=1e-4)),
    ("rmsprop", lambda: F.rmsprop(0.01), dict(kind="rmsprop")),
    ("rmsprop-centered-momentum", lambda: F.rmsprop(0.01, rho=0.9, epsilon=1e-4, momentum=0.7, centered=True),
     dict(kind="rmsprop", rho=0.9, epsilon=1e-4, momentum=0.7, centered=True)),
    ("adagrad", lambda: F.adagrad(0.1, initial_accumulator_value=0.3), dict(kind="adagrad",
                                                                            initial_accumulator_value=0.3)),
    ("adadelta", lambda: F.adadelta(0.5, epsilon=1e-4, rho=0.9), dict(kind="adadelta", epsilon=1e-4, rho=0.9)),
    ("lamb", lambda: F.lamb(0.01), dict(kind="lamb")),
    ("lamb-exclude", lambda: F.lamb(0.01, lamb_weight_decay={"w": 0.05, "b": 0.0}),
     dict(kind="lamb", lamb_weight_decay={"w": 0.05, "b": 0.0})),
    ("lamb-always-adapt", lambda: F.lamb(0.01, lamb_weight_decay=0.0, always_adapt=True),
     dict(kind="lamb", lamb_weight_decay=0.0, always_adapt=True)),
]
IDS = [c[0] for c in CASES]


def _problem(dtype, steps=4, seed=0):
    rng = np.random.default_rng(seed)
    params = {"w": rng.normal(size=(3, 4)).astype(dtype), "b": rng.normal(size=(4,)).astype(dtype)}
    grads = [{k: rng.normal(size=v.shape).astype(dtype) for k, v in params.items()} for _ in range(steps)]
    return params, grads


def _t(tree):
    return paddle.tree_map(lambda a: paddle.to_tensor(a), tree)


def _np(tree):
    return paddle.tree_map(lambda t: t.numpy(), tree)


def _assert_state(ours, ref, dtype):
    """ours: {acc: {param: array}}; ref: {param: {acc: array}}."""
    for k, per in ref.items():
        for acc, want in per.items():
            got = ours[acc][k]
            assert got.dtype == np.dtype(dtype), (acc, k, got.dtype)
            np.testing.assert_allclose(got, want, err_msg=f"{acc}[{k}]", **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make,ref_kw", [c[1:] for c in CASES], ids=IDS)
def test_matches_numpy_reference_over_steps(make, ref_kw, dtype):
    opt, ref = make(), Ref(**ref_kw)
    params, grads = _problem(dtype)
    p, s = _t(params), opt.init(_t(params))
    rp, rs = params, ref.init(params)
    _assert_state(_np(s), rs, dtype)
    for i, g in enumerate(grads):
        lr = [0.1, 0.05, 0.02, 0.01][i]
        p, s = opt.update(_t(g), s, p, learning_rate=lr)
        rp, rs = ref.step(rp, g, rs, lr)
        for k in params:
            assert p[k].dtype == paddle.to_tensor(params[k]).dtype
            np.testing.assert_allclose(p[k].numpy(), rp[k], err_msg=f"step {i} param {k}", **TOL[dtype])
        _assert_state(_np(s), rs, dtype)


@pytest.mark.parametrize("make,ref_kw", [c[1:] for c in CASES if c[0] in ("adam", "momentum-nesterov-l2-rescale",
                                                                            "rmsprop-centered-momentum", "lamb",
                                                                            "adamw-perleaf", "adadelta")],
                         ids=["adam", "momentum-nesterov-l2-rescale", "rmsprop-centered-momentum", "adamw-perleaf",
                              "adadelta", "lamb"])
def test_jit_matches_eager_and_does_not_retrace_for_a_new_learning_rate(make, ref_kw):
    opt = make()
    params, grads = _problem("float32", steps=3)
    traces = []

    def step(p, s, g, lr):
        traces.append(1)
        return opt.update(g, s, p, learning_rate=lr)

    jstep = paddle.jit(step)
    pe, se = _t(params), opt.init(_t(params))
    pj, sj = pe, se
    for i, (g, lr) in enumerate(zip(grads, [0.1, paddle.to_tensor(0.05), 0.01])):
        pe, se = opt.update(_t(g), se, pe, learning_rate=lr)
        pj, sj = jstep(pj, sj, _t(g), lr)
    assert len(traces) == 1, "a new learning rate value must not retrace"
    for k in params:
        np.testing.assert_allclose(pj[k].numpy(), pe[k].numpy(), rtol=1e-5, atol=1e-6)
    for acc in opt.accumulators:
        for k in params:
            np.testing.assert_allclose(sj[acc][k].numpy(), se[acc][k].numpy(), rtol=1e-5, atol=1e-6)


def test_jit_float64_keeps_float64():
    opt = F.adam(0.01)
    params, grads = _problem("float64", steps=2)
    ref = Ref("adam")
    jstep = paddle.jit(lambda p, s, g, lr: opt.update(g, s, p, learning_rate=lr))
    p, s = _t(params), opt.init(_t(params))
    rp, rs = params, ref.init(params)
    for g in grads:
        p, s = jstep(p, s, _t(g), paddle.to_tensor(0.01, dtype="float64"))
        rp, rs = ref.step(rp, g, rs, 0.01)
    assert p["w"].dtype == paddle.float64
    np.testing.assert_allclose(p["w"].numpy(), rp["w"], rtol=1e-10)


@pytest.mark.parametrize("make,ref_kw", [c[1:] for c in CASES if c[0] in ("adam-amsgrad", "lamb-exclude",
                                                                            "momentum")],
                         ids=["momentum", "adam-amsgrad", "lamb-exclude"])
def test_vmap_over_an_ensemble_of_parameter_sets(make, ref_kw):
    opt, ref = make(), Ref(**ref_kw)
    members = [_problem("float32", steps=2, seed=s) for s in range(3)]
    stack = lambda trees: {k: np.stack([t[k] for t in trees]) for k in trees[0]}  # noqa: E731
    P = _t(stack([m[0] for m in members]))
    S = paddle.vmap(opt.init)(P)
    for acc in opt.accumulators:
        assert S[acc]["w"].shape[0] == 3
    vstep = paddle.vmap(lambda p, s, g: opt.update(g, s, p, learning_rate=0.05))
    refs = [(m[0], ref.init(m[0])) for m in members]
    for step in range(2):
        G = _t(stack([m[1][step] for m in members]))
        P, S = vstep(P, S, G)
        refs = [ref.step(rp, m[1][step], rs, 0.05) for (rp, rs), m in zip(refs, members)]
    for i, (rp, rs) in enumerate(refs):
        for k in rp:
            np.testing.assert_allclose(P[k].numpy()[i], rp[k], **TOL["float32"])
        _assert_state({acc: {k: S[acc][k].numpy()[i] for k in rp} for acc in opt.accumulators}, rs, "float32")


def test_jit_of_vmap_ensemble_step():
    opt = F.adam(0.05, grad_clip=C.ClipGradByGlobalNorm(1.0))
    P = {"w": paddle.to_tensor(np.random.default_rng(1).normal(size=(4, 3)).astype("float32"))}
    G = {"w": paddle.ones([4, 3]) * 5.0}
    S = paddle.vmap(opt.init)(P)
    step = paddle.jit(paddle.vmap(lambda p, s, g: opt.update(g, s, p)))
    P1, S1 = step(P, S, G)
    P2, S2 = paddle.vmap(lambda p, s, g: opt.update(g, s, p))(P, S, G)
    np.testing.assert_allclose(P1["w"].numpy(), P2["w"].numpy(), rtol=1e-5, atol=1e-6)


def test_adam_converges_on_a_quadratic():
    target = paddle.to_tensor([1.0, -2.0, 3.0])
    loss = lambda w: paddle.sum((w - target) ** 2)  # noqa: E731
    opt = F.adam(learning_rate=0.1)
    w = paddle.zeros([3])
    state = opt.init(w)
    step = paddle.jit(lambda w, s: opt.update(paddle.grad(loss)(w), s, w))
    for _ in range(300):
        w, state = step(w, state)
    assert float(loss(w)) < 1e-4
    np.testing.assert_allclose(w.numpy(), target.numpy(), atol=1e-2)


# ------------------------------------------------------------------------------------ weight decay

def test_regularizer_objects():
    w, g = paddle.to_tensor([2.0, -3.0, 0.0]), paddle.to_tensor([1.0, 1.0, 1.0])
    np.testing.assert_allclose(R.L2Decay(0.1).apply(w, g).numpy(), [1.2, 0.7, 1.0], rtol=1e-6)
    np.testing.assert_allclose(R.L1Decay(0.1).apply(w, g).numpy(), [1.1, 0.9, 1.0], rtol=1e-6)
    assert R.L2Decay(0.1) == R.L2Decay(0.1) and R.L2Decay(0.1) != R.L1Decay(0.1)
    assert R.L2Decay(0.25).coeff == 0.25 and R.L2Decay(0.25)._regularization_coeff == 0.25
    assert R.as_regularizer(0.5) == R.L2Decay(0.5) and R.as_regularizer(None) is None
    with pytest.raises(TypeError):
        R.as_regularizer("l2")
    with pytest.raises(AttributeError):
        R.L2Decay(0.1).coeff = 3.0
    import paddle_fn.regularizer as public
    assert public.L2Decay is R.L2Decay and public.L1Decay is R.L1Decay


def test_param_regularizer_wins_over_the_optimizers():
    params = {"w": np.array([1.0, -2.0], "float32"), "b": np.array([3.0], "float32")}
    grads = {"w": np.array([0.5, 0.5], "float32"), "b": np.array([0.5], "float32")}
    opt = F.sgd(1.0, weight_decay=0.1, regularizer={"w": R.L1Decay(0.2), "b": None})
    p, _ = opt.update(_t(grads), {}, _t(params))
    np.testing.assert_allclose(p["w"].numpy(), [1.0 - (0.5 + 0.2), -2.0 - (0.5 - 0.2)], rtol=1e-6)
    np.testing.assert_allclose(p["b"].numpy(), [3.0 - (0.5 + 0.3)], rtol=1e-6)
    out = R.append_regularization(_t(params), _t(grads), R.L2Decay(0.1), {"w": R.L1Decay(0.2), "b": None})
    np.testing.assert_allclose(out["w"].numpy(), [0.7, 0.3], rtol=1e-6)


def test_momentum_fuses_a_params_l2_after_rescale_and_adamw_keeps_param_regularizer_coupled():
    w, g = paddle.to_tensor([2.0]), paddle.to_tensor([1.0])
    opt = F.momentum(1.0, momentum=0.0, rescale_grad=0.5, weight_decay=R.L1Decay(9.0), regularizer=R.L2Decay(0.1))
    p, _ = opt.update(g, opt.init(w), w)
    np.testing.assert_allclose(p.numpy(), [2.0 - (0.5 * 1.0 + 0.1 * 2.0)], rtol=1e-6)
    # AdamW: a parameter's own regularizer is added to the gradient, the coefficient decays decoupled
    opt = F.adamw(0.1, weight_decay=0.5, regularizer=R.L2Decay(1.0))
    p, _ = opt.update(paddle.to_tensor([-2.0]), opt.init(w), w)
    decayed = 2.0 - 0.1 * 0.5 * 2.0
    # the regularized gradient is -2 + 1 * 2 = 0, so Adam's step is 0
    np.testing.assert_allclose(p.numpy(), [decayed], rtol=1e-6)
    with pytest.raises(TypeError, match="AdamW does not take"):
        F.adamw(0.1, weight_decay=R.L2Decay(0.1))


def test_per_parameter_learning_rate_and_none_gradients():
    params = _t({"w": np.ones(2, "float32"), "b": np.ones(1, "float32")})
    opt = F.momentum(0.1, momentum=0.9, param_lr={"w": 2.0, "b": 1.0})
    s = opt.init(params)
    p, s2 = opt.update({"w": paddle.ones([2]), "b": None}, s, params)
    np.testing.assert_allclose(p["w"].numpy(), [0.8, 0.8], rtol=1e-6)
    assert p["b"] is params["b"] and s2["velocity"]["b"] is s["velocity"]["b"]


# ------------------------------------------------------------------------------------ clipping

class _P:
    def __init__(self, need_clip=True):
        self.need_clip = need_clip


def _np_global_scale(gs, clip_norm):
    norm = np.sqrt(sum(float(np.sum(np.asarray(g, np.float64) ** 2)) for g in gs))
    return clip_norm / max(norm, clip_norm)


def test_clip_by_value_norm_and_global_norm_formulas():
    rng = np.random.default_rng(3)
    gs = [rng.normal(size=s).astype("float32") * 3 for s in [(3, 4), (4,), (2, 2)]]
    tg = [paddle.to_tensor(g) for g in gs]
    out = C.ClipGradByValue(max=0.5, min=-0.2).clip(tg)
    for o, g in zip(out, gs):
        np.testing.assert_allclose(o.numpy(), np.clip(g, -0.2, 0.5))
    out = C.ClipGradByNorm(clip_norm=1.0).clip(tg)
    for o, g in zip(out, gs):
        n = np.linalg.norm(g)
        np.testing.assert_allclose(o.numpy(), g * (1.0 / n if n > 1.0 else 1.0), rtol=1e-5)
    out = C.ClipGradByGlobalNorm(clip_norm=1.0).clip(tg)
    scale = _np_global_scale(gs, 1.0)
    for o, g in zip(out, gs):
        np.testing.assert_allclose(o.numpy(), g * scale, rtol=1e-5)
    # below the limit nothing changes
    out = C.ClipGradByGlobalNorm(clip_norm=1e3).clip(tg)
    for o, g in zip(out, gs):
        np.testing.assert_allclose(o.numpy(), g, rtol=1e-6)
    np.testing.assert_allclose(float(C.global_norm(tg)), np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in gs)),
                               rtol=1e-5)


@pytest.mark.parametrize("clip", [C.ClipGradByValue(0.1), C.ClipGradByNorm(0.1), C.ClipGradByGlobalNorm(0.1)],
                         ids=["value", "norm", "global"])
def test_need_clip_as_attribute_as_list_and_none_gradients(clip):
    gs = [paddle.to_tensor([3.0, 4.0]), paddle.to_tensor([5.0]), paddle.to_tensor([1.0])]
    pairs = [(_P(True), gs[0]), (_P(False), gs[1]), (_P(True), None), (object(), gs[2])]
    out = clip(pairs)
    assert len(out) == 3 and out[1][1] is gs[1]  # the None pair is left out; need_clip=False passes through
    assert [p for p, _ in out] == [pairs[0][0], pairs[1][0], pairs[3][0]]
    want = clip.clip([gs[0], gs[2]])
    np.testing.assert_allclose(out[0][1].numpy(), want[0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(out[2][1].numpy(), want[1].numpy(), rtol=1e-6)
    # an explicit parallel list overrides the attributes
    out = clip([(_P(False), gs[0]), (_P(True), gs[1])], need_clip=[True, False])
    np.testing.assert_allclose(out[0][1].numpy(), clip.clip([gs[0]])[0].numpy(), rtol=1e-6)
    assert out[1][1] is gs[1]
    # pytree form with a pytree of flags; None gradients pass through
    tree = {"a": gs[0], "b": gs[1], "c": None}
    res = clip.clip(tree, need_clip={"a": True, "b": False, "c": True})
    assert res["c"] is None and res["b"] is gs[1]
    np.testing.assert_allclose(res["a"].numpy(), clip.clip([gs[0]])[0].numpy(), rtol=1e-6)


def test_global_norm_excludes_unclipped_and_mixes_dtypes_in_float64():
    g32, g64, frozen = paddle.to_tensor([3.0]), paddle.to_tensor([4.0], dtype="float64"), paddle.to_tensor([100.0])
    norm = C.global_norm([g32, g64, frozen], need_clip=[True, True, False])
    assert norm.dtype == paddle.float64 and float(norm) == 5.0
    out = C.clip_grad_by_global_norm([g32, g64, frozen], 1.0, need_clip=[True, True, False])
    assert out[0].dtype == paddle.float32 and out[1].dtype == paddle.float64
    np.testing.assert_allclose([float(out[0]), float(out[1]), float(out[2])], [0.6, 0.8, 100.0], rtol=1e-6)
    assert C.clip_grad_by_global_norm([frozen], 1.0, need_clip=False)[0] is frozen


def test_clipping_inside_an_optimizer_under_jit_and_vmap():
    opt = F.sgd(1.0, grad_clip=C.ClipGradByGlobalNorm(1.0), need_clip={"w": True, "b": False})
    params = {"w": paddle.zeros([2]), "b": paddle.zeros([1])}
    grads = {"w": paddle.to_tensor([3.0, 4.0]), "b": paddle.to_tensor([10.0])}
    p, _ = opt.update(grads, {}, params)
    np.testing.assert_allclose(p["w"].numpy(), [-0.6, -0.8], rtol=1e-6)
    np.testing.assert_allclose(p["b"].numpy(), [-10.0], rtol=1e-6)
    pj, _ = paddle.jit(lambda g, p: opt.update(g, {}, p))(grads, params)
    np.testing.assert_allclose(pj["w"].numpy(), [-0.6, -0.8], rtol=1e-6)
    G = {"w": paddle.to_tensor([[3.0, 4.0], [0.3, 0.4]]), "b": paddle.to_tensor([[10.0], [1.0]])}
    P = paddle.tree_map(lambda g: paddle.zeros_like(g), G)
    pv, _ = paddle.vmap(lambda g, p: opt.update(g, {}, p))(G, P)
    np.testing.assert_allclose(pv["w"].numpy(), [[-0.6, -0.8], [-0.3, -0.4]], rtol=1e-6)
    for c in (C.ClipGradByNorm(1.0), C.ClipGradByValue(1.0)):
        got = paddle.jit(lambda g: c.clip(g))(grads)
        want = c.clip(grads)
        np.testing.assert_allclose(got["w"].numpy(), want["w"].numpy(), rtol=1e-6)


def test_clip_by_norm_function_and_reprs():
    x = paddle.to_tensor([[2.0, 2.0], [2.0, 2.0]])
    np.testing.assert_allclose(C.clip_by_norm(x, 1.0).numpy(), np.full((2, 2), 0.5), rtol=1e-6)
    np.testing.assert_allclose(C.clip_by_norm(paddle.zeros([3]), 1.0).numpy(), np.zeros(3))
    assert str(C.ClipGradByGlobalNorm(1.0)) == "Gradient Clip By GlobalNorm, global_norm=1.000000"
    assert C.ClipGradByGlobalNorm(1.0, group_name="g").group_name == "g"
    assert (C.ClipGradByValue(2.0).min, C.ClipGradByValue(2.0).max) == (-2.0, 2.0)
    with pytest.raises(ValueError):
        C.ClipGradByValue(-1.0)


# ------------------------------------------------------------------------------------ state_dict names, errors

def test_paddle_state_dict_names_and_round_trip():
    params = {"w": paddle.ones([2, 2]), "b": paddle.ones([2])}
    names = {"w": "linear_0.w_0", "b": "linear_0.b_0"}
    opt = F.adam(0.1)
    state = opt.init(params)
    params2, state = opt.update(paddle.tree_map(lambda p: p * 0.5, params), state, params)
    sd = opt.state_dict(state, names)
    assert list(sd) == ["linear_0.b_0_moment1_0", "linear_0.w_0_moment1_0", "linear_0.b_0_moment2_0",
                        "linear_0.w_0_moment2_0", "linear_0.b_0_beta1_pow_acc_0", "linear_0.w_0_beta1_pow_acc_0",
                        "linear_0.b_0_beta2_pow_acc_0", "linear_0.w_0_beta2_pow_acc_0"]
    assert sd["linear_0.w_0_beta1_pow_acc_0"].shape == [1]
    np.testing.assert_allclose(sd["linear_0.w_0_beta1_pow_acc_0"].numpy(), [0.81], rtol=1e-6)
    # from numpy arrays (as a loaded .pdopt holds them), with another counter suffix for one entry
    loaded = {k: v.numpy() for k, v in sd.items()}
    loaded["linear_0.w_0_moment1_3"] = loaded.pop("linear_0.w_0_moment1_0")
    back = opt.set_state_dict(loaded, params2, names)
    for acc in opt.accumulators:
        for k in params:
            np.testing.assert_array_equal(back[acc][k].numpy(), state[acc][k].numpy())
    with pytest.raises(KeyError):
        opt.set_state_dict({}, params2, names)
    named = F.adadelta(0.1, name="opt")
    assert list(named.state_dict(named.init({"w": paddle.ones([1])}), {"w": "fc.w_0"})) == [
        "fc.w_0_opt__avg_squared_grad_0", "fc.w_0_opt__avg_squared_update_0"]
    assert F.accumulator_name("p", "velocity") == "p_velocity_0"


def test_accumulator_names_per_optimizer():
    want = {"sgd": (), "momentum": ("velocity",),
            "adam": ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"),
            "adamw": ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc"),
            "adamax": ("moment", "inf_norm", "beta1_pow_acc"), "rmsprop": ("momentum", "mean_square", "mean_grad"),
            "adagrad": ("moment",), "adadelta": ("_avg_squared_grad", "_avg_squared_update"),
            "lamb": ("moment1", "moment2", "beta1_pow_acc", "beta2_pow_acc")}
    for name, accs in want.items():
        opt = getattr(F, name)(0.1)
        assert opt.accumulators == accs and opt.type == name
    assert F.adam(amsgrad=True).accumulators == ("moment1", "moment2", "moment2_max", "beta1_pow_acc",
                                                 "beta2_pow_acc")


def test_low_precision_params_keep_float32_adam_moments():
    w = paddle.ones([3], dtype="float16")
    opt = F.adam(0.1)
    s = opt.init(w)
    assert s["moment1"].dtype == paddle.float32 and s["beta1_pow_acc"].dtype == paddle.float32
    w2, s2 = opt.update(paddle.ones([3], dtype="float16"), s, w)
    assert w2.dtype == paddle.float16 and s2["moment2"].dtype == paddle.float32
    np.testing.assert_allclose(w2.numpy().astype("float32"), [0.9] * 3, rtol=1e-3)


def test_errors_are_clear():
    opt = F.adam(0.1)
    params = {"w": paddle.ones([2])}
    with pytest.raises(ValueError, match="grads have structure"):
        opt.update([paddle.ones([2])], opt.init(params), params)
    with pytest.raises(ValueError, match="state must be a dict"):
        opt.update(params, {}, params)
    with pytest.raises(TypeError, match="scheduler"):
        opt.update(params, opt.init(params), params, learning_rate="0.1")
    with pytest.raises(ValueError, match="structure"):
        F.sgd(0.1, param_lr={"w": 1.0, "x": 2.0}).update(params, {}, params)
    with pytest.raises(ValueError, match="beta1"):
        F.adam(beta1=1.5)
    with pytest.raises(TypeError, match="grad_clip"):
        F.sgd(0.1, grad_clip=lambda x: x)
    with pytest.raises(TypeError, match="weight_decay"):
        F.adam(0.1, weight_decay={"w": "l2"})
    with pytest.raises(TypeError, match="regularizer"):
        F.adam(0.1, regularizer=0.5j)


# ------------------------------------------------------------------------------------ docs

@pytest.mark.parametrize("module", ["paddle_fn.nn_compat.optimizer.functional", "paddle_fn.nn_compat.clip",
                                    "paddle_fn.nn_compat.regularizer", "paddle_fn.regularizer"])
def test_docstring_examples(module):
    mod = importlib.import_module(module)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(mod, module):
        runner.run(test)
    assert runner.failures == 0


def test_tutorial_page():
    failures, _ = doctest.testfile(str(ROOT / "docs" / "optimizer_functional.md"), module_relative=False,
                                   optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert failures == 0
