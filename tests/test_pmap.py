"""pmap over 2 and 4 virtual CPU devices: it agrees with vmap(axis_name=...) on every collective, with gradients,
jit and vmap inside, nested over a 2 x 2 device mesh, and a data-parallel training step gives the single-device
numbers -- both as one multi-device module and as per-device segments with host collectives."""
import importlib

import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn.core.config import config
from paddle_fn.runtime import device as device_module
from paddle_fn.runtime import multi_device
from paddle_fn.transforms.pmap import ShardedArray
from paddle_fn.transforms.pmap_collectives import InProcessCollectives


@pytest.fixture(params=["module", "segments"])
def strategy(request):
    """Run the test with pmap's one-module path, then with its segment path."""
    before = config.pmap_strategy
    config.update("pmap_strategy", request.param)
    yield request.param
    config.update("pmap_strategy", before)


def _np(t):
    return np.asarray(t.numpy())


def _every_collective(v):
    """One body through all the collectives (v: this member's [4, 4] slice)."""
    n = pf.psum(pf.to_tensor(1.0), "i")                      # the axis size, from a constant
    s = pf.psum(v, "i") / n
    m = pf.pmax(v, "i") - pf.pmin(v, "i") + pf.pmean(v, "i")
    g = pf.all_gather(v[0], "i")                             # [n, 4]
    gt = pf.all_gather(v, "i", axis=1, tiled=True)           # [4, 4n]
    sc = pf.psum_scatter(gt, "i", scatter_dimension=1, tiled=True)   # [4, 4]
    k = pf.axis_index("i")
    size = g.shape[0]
    p = pf.ppermute(v, "i", [(j, (j + 1) % size) for j in range(size)])
    a = pf.all_to_all(v, "i", 0, 1)                          # [4 / n, 4 n]
    return s + m + sc + p * k.astype("float32"), g.sum(0), a


@pytest.mark.parametrize("n", [2, 4])
def test_pmap_equals_vmap_for_every_collective(cpus, n, strategy):
    x = pf.to_tensor(np.random.default_rng(n).normal(size=(n, 4, 4)).astype("float32"))
    got = pf.pmap(_every_collective, axis_name="i", devices=cpus[:n])(x)
    want = pf.vmap(_every_collective, axis_name="i")(x)
    for g, w in zip(got, want):
        assert isinstance(g.device_array, ShardedArray) and g.shape == w.shape
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-5, atol=1e-5)
    # and vmap's meaning against numpy
    xs = _np(x)
    np.testing.assert_allclose(_np(want[1])[0], xs[:, 0].sum(0), rtol=1e-5)
    np.testing.assert_allclose(_np(want[2])[1], np.concatenate([np.split(xs[j], n, axis=0)[1] for j in range(n)],
                                                               axis=1), rtol=1e-6)


def test_sharded_result_indexes_converts_and_feeds_the_next_call_in_place(cpus, strategy):
    f = pf.pmap(lambda v: v * 2.0 + pf.axis_index("i").astype("float32"), axis_name="i", devices=cpus[:2])
    out = f(pf.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
    arr = out.device_array
    assert isinstance(arr, ShardedArray) and arr.devices == tuple(cpus[:2]) and out.shape == [2, 2]
    assert [s.device.id for s in arr.shards] == [0, 1]  # (small programs run on the local-sync twin)
    np.testing.assert_array_equal(_np(out[1]), [7.0, 9.0])
    np.testing.assert_array_equal(_np(out + 1), [[3.0, 5.0], [8.0, 10.0]])
    np.testing.assert_array_equal(np.asarray(out), [[2.0, 4.0], [7.0, 9.0]])
    seen, copied = [], []
    orig, orig_put = InProcessCollectives.all_reduce, device_module.device_put
    again = pf.pmap(lambda v: pf.psum(v, "i"), axis_name="i", devices=cpus[:2])
    try:
        InProcessCollectives.all_reduce = lambda self, arrays, op: seen.append(arrays) or orig(self, arrays, op)
        device_module.device_put = lambda array, device: copied.append(array) or orig_put(array, device)
        np.testing.assert_array_equal(_np(again(out)), [[9.0, 13.0]] * 2)
    finally:
        InProcessCollectives.all_reduce, device_module.device_put = orig, orig_put
    if strategy == "segments":  # the sum is taken on the host, of the two shards
        assert len(seen) == 1 and len(seen[0]) == 2
    else:  # inside the module: the shards go in as they are, nothing is copied
        assert not seen and not copied
    # a sharded value is also an ordinary input to jit
    np.testing.assert_array_equal(_np(pf.jit(lambda t: t.sum())(out)), 22.0)


def test_grad_of_psum_inside_pmap_matches_vmap_and_finite_differences(cpus):
    def loss(w, xb):
        h = pf.tanh(xb @ w)
        return pf.psum((h * h).sum(), "i")  # every device: the global loss

    rng = np.random.default_rng(0)
    w = pf.to_tensor(rng.normal(size=(3, 2)))
    xs = pf.to_tensor(rng.normal(size=(2, 5, 3)))
    grad = pf.grad(loss)
    got = pf.pmap(grad, axis_name="i", in_axes=(None, 0), devices=cpus[:2])(w, xs)
    want = pf.vmap(grad, axis_name="i", in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-12, atol=1e-12)
    # JAX's meaning: psum transposes to psum, so device i holds n x d(its own loss)/dw
    for i in range(2):
        def local_loss(wv, i=i):
            return float(np.sum(np.tanh(_np(xs)[i] @ wv) ** 2))
        eps, wv, fd = 1e-6, _np(w), np.zeros((3, 2))
        for idx in np.ndindex(3, 2):
            e = np.zeros((3, 2))
            e[idx] = eps
            fd[idx] = (local_loss(wv + e) - local_loss(wv - e)) / (2 * eps)
        np.testing.assert_allclose(_np(got)[i], 2 * fd, rtol=1e-6, atol=1e-8)


def test_jacobians_of_collectives_inside_the_map(cpus):
    """jacrev/hessian vmap over a basis inside the named map: their vmaps must not be taken for the named axis."""
    x = pf.to_tensor(np.arange(4.0).reshape(2, 2))
    f = pf.jacrev(lambda v: pf.psum(v * v, "i"))
    got = pf.pmap(f, axis_name="i", devices=cpus[:2])(x)
    np.testing.assert_allclose(_np(got), _np(pf.vmap(f, axis_name="i")(x)))
    np.testing.assert_allclose(_np(got), [np.diag(4 * _np(x)[i]) for i in range(2)])  # psum^T = psum: 2 x 2v
    h = pf.hessian(lambda v: pf.psum((v ** 3).sum(), "i"))
    np.testing.assert_allclose(_np(pf.pmap(h, axis_name="i", devices=cpus[:2])(x)),
                               [np.diag(12 * _np(x)[i]) for i in range(2)])


def _mlp_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = pf.nn.functional.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    return pf.nn.functional.cross_entropy(logits, y)


@pytest.mark.parametrize("n, strategy", [(4, "module"), (2, "segments")], indirect=["strategy"])
def test_data_parallel_training_step_equals_one_device(cpus, n, strategy):
    rng = np.random.default_rng(1)
    params = [pf.to_tensor(rng.normal(size=s).astype("float32") * 0.3) for s in [(6, 8), (8,), (8, 3), (3,)]]
    x = rng.normal(size=(16, 6)).astype("float32")
    y = rng.integers(0, 3, size=(16,)).astype("int64")

    def step(ps, xb, yb):
        loss, grads = pf.value_and_grad(_mlp_loss)(ps, xb, yb)
        grads = [pf.pmean(g, "i") for g in grads]
        return pf.pmean(loss, "i"), [p - 0.1 * g for p, g in zip(ps, grads)]

    dp = pf.pmap(step, axis_name="i", in_axes=(None, 0, 0), out_axes=(None, None), devices=cpus[:n])
    xs, ys = pf.to_tensor(x.reshape(n, -1, 6)), pf.to_tensor(y.reshape(n, -1))
    ref_loss, ref_grads = pf.value_and_grad(_mlp_loss)(params, pf.to_tensor(x), pf.to_tensor(y))
    loss, new = dp(params, xs, ys)
    np.testing.assert_allclose(_np(loss), _np(ref_loss), rtol=1e-5)
    for p, g, q in zip(params, ref_grads, new):
        np.testing.assert_allclose(_np(q), _np(p) - 0.1 * _np(g), rtol=1e-5, atol=1e-6)
    loss2, _ = dp(new, xs, ys)  # the second step reuses the compiled segments
    assert float(loss2) < float(loss)


def test_jit_and_vmap_inside_pmap_and_transforms_outside(cpus):
    def body(v, centre=lambda v: v - pf.pmean(v, "i")):
        return pf.vmap(lambda r: (r * r).sum())(centre(v))

    x = pf.to_tensor(np.arange(12.0).reshape(2, 3, 2))
    want = pf.vmap(body, axis_name="i")(x)
    jitted_centre = pf.jit(lambda v: v - pf.pmean(v, "i"))
    np.testing.assert_allclose(_np(pf.pmap(lambda v: body(v, jitted_centre), axis_name="i", devices=cpus[:2])(x)),
                               _np(want))
    mapped = pf.pmap(body, axis_name="i", devices=cpus[:2])
    np.testing.assert_allclose(_np(mapped(x)), _np(want))
    # under jit or grad, pmap means vmap with the axis name: the same numbers
    np.testing.assert_allclose(_np(pf.jit(mapped)(x)), _np(want))
    g = pf.grad(lambda t: mapped(t).sum())(x)
    np.testing.assert_allclose(_np(g), _np(pf.grad(lambda t: pf.vmap(body, axis_name="i")(t).sum())(x)))
    # nested: pmap over devices, an inner named vmap per device; collectives over both names
    inner = pf.pmap(lambda v: pf.vmap(lambda r: pf.psum(r, "j") + pf.psum(r, "i"), axis_name="j")(v),
                    axis_name="i", devices=cpus[:2])
    np.testing.assert_allclose(_np(inner(x)), _np(x).sum(1, keepdims=True) + _np(x).sum(0, keepdims=True))


def test_nested_pmap_maps_a_device_mesh(cpus, strategy):
    def f(v):
        k = pf.axis_index("i") * 10 + pf.axis_index("j")
        return v * k.astype(v.dtype) + pf.psum(v, "i") * 100.0 + pf.pmax(v.sum(), "j")

    x = pf.to_tensor(np.arange(12.0).reshape(2, 2, 3))
    out = pf.pmap(pf.pmap(f, axis_name="j"), axis_name="i")(x)
    assert out.device_array.mesh_shape == (2, 2) and len(out.device_array.devices) == 4
    np.testing.assert_allclose(_np(out), _np(pf.vmap(pf.vmap(f, axis_name="j"), axis_name="i")(x)))
    g = lambda v: pf.all_gather(v, "j").sum(0) - pf.pmean(v, "i")  # noqa: E731
    twice = pf.pmap(pf.pmap(g, axis_name="j"), axis_name="i")(out)  # the mesh-sharded result, fed back
    np.testing.assert_allclose(_np(twice), _np(pf.vmap(pf.vmap(g, axis_name="j"), axis_name="i")(out)))
    with pytest.raises(pf.TransformError, match="3 x 2 device mesh, which needs 6 devices"):
        pf.pmap(pf.pmap(f, axis_name="j"), axis_name="i")(pf.ones([3, 2, 1]))


def test_scan_and_fori_loop_with_collectives_loop_on_the_host(cpus):
    x = pf.to_tensor(np.arange(12.0).reshape(2, 3, 2))

    def f(v):
        def body(c, e):
            return c + pf.psum(e * c, "i").sum() * 0.01, pf.pmean(e, "i") + c
        return pf.scan(body, pf.to_tensor(1.0, dtype="float64"), v, reverse=True)

    for g, w in zip(pf.pmap(f, axis_name="i", devices=cpus[:2])(x), pf.vmap(f, axis_name="i")(x)):
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-12)

    def train(w, xb):  # three SGD steps with averaged gradients, inside the mapped function
        def step(i, w):
            return w - 0.01 * pf.pmean(pf.grad(lambda w: ((xb @ w) ** 2).mean())(w), "i")
        return pf.fori_loop(0, 3, step, w)

    w = pf.to_tensor(np.ones(2))
    got = pf.pmap(train, axis_name="i", in_axes=(None, 0), out_axes=None, devices=cpus[:2])(w, x)
    full = _np(x).reshape(-1, 2)
    want = np.ones(2)
    for _ in range(3):
        want = want - 0.01 * 2 * full.T @ (full @ want) / len(full)
    np.testing.assert_allclose(_np(got), want, rtol=1e-12)


def test_cond_and_while_loop_with_collectives_decide_on_the_host(cpus):
    x = pf.to_tensor(np.arange(8.0).reshape(4, 2))

    def f(v):
        big = pf.psum(v.sum(), "i") > 10  # the same on every device
        return pf.cond(big, lambda: v / pf.psum(v.sum(), "i"), lambda: v * 0.0)

    np.testing.assert_allclose(_np(pf.pmap(f, axis_name="i", devices=cpus[:4])(x)), _np(x) / 28.0)

    def halve_until_small(v):  # a loop whose condition is a collective
        return pf.while_loop(lambda c: pf.pmax(c.abs().max(), "i") > 1.0, lambda c: c / 2.0, v)

    got = pf.pmap(halve_until_small, axis_name="i", devices=cpus[:4])(x)
    np.testing.assert_allclose(_np(got), _np(x) / 8.0)
    np.testing.assert_allclose(_np(got), _np(pf.vmap(halve_until_small, axis_name="i")(x)))


def test_in_axes_out_axes_and_static_arguments(cpus):
    x = pf.to_tensor(np.arange(8.0).reshape(4, 2))
    f = pf.pmap(lambda v, k: pf.psum(v * k, "i"), axis_name="i", in_axes=(1, None), out_axes=1,
                static_broadcasted_argnums=(1,), devices=cpus[:2])
    out = f(x, 3)
    np.testing.assert_array_equal(_np(out), np.stack([_np(x).sum(1) * 3] * 2, axis=1))
    assert f(x, 3).shape == [4, 2]


def test_errors_are_clear(cpus):
    x = pf.to_tensor(np.ones((3, 2)))
    with pytest.raises(pf.TransformError, match="size 3 but 2 devices"):
        pf.pmap(lambda v: v, devices=cpus[:2])(x)
    with pytest.raises(pf.TransformError, match="PADDLE_FN_NUM_CPU_DEVICES=5"):
        pf.pmap(lambda v: v)(pf.to_tensor(np.ones((5, 2))))
    with pytest.raises(NameError, match="unbound axis name 'j'.*bound here are \\['i'\\]"):
        pf.pmap(lambda v: pf.psum(v, "j"), axis_name="i", devices=cpus[:3])(x)
    with pytest.raises(NameError, match="unbound axis name 'i'"):
        pf.psum(x, "i")
    with pytest.raises(pf.TransformError, match="different sizes"):
        pf.pmap(lambda a, b: a + b, devices=cpus[:2])(pf.ones([2, 1]), pf.ones([3, 1]))
    with pytest.raises(ValueError, match=r"disagree on the branch \(\[0, 1, 1\] in device order\)"):
        pf.pmap(lambda v: pf.cond(pf.axis_index("i") > 0, lambda: pf.psum(v, "i"), lambda: v), axis_name="i",
                devices=cpus[:3])(x)
    with pytest.raises(ValueError, match="repeats a destination"):
        pf.vmap(lambda v: pf.ppermute(v, "i", [(0, 1), (2, 1)]), axis_name="i")(x)
    with pytest.raises(pf.ShapeError, match="must equal the axis size 3"):
        pf.vmap(lambda v: pf.psum_scatter(v, "i"), axis_name="i")(x)
    with pytest.raises(NameError, match="unbound axis name 'i'"):
        pf.jit(lambda v: pf.psum(v, "i"))(x)
    # a jit called on constants inside a named vmap runs on its own, as one single-device program
    with pytest.raises(NotImplementedError, match="single-device program"):
        pf.vmap(lambda r: r + pf.jit(lambda q: pf.psum(q, "i"))(pf.ones([2])), axis_name="i")(x)


def test_collectives_in_sub_programs_inside_a_named_vmap():
    """jit, cond and scan inside vmap(axis_name=...) batch their sub-programs with a vmap of their own: that vmap
    carries the named axis, and an unnamed user vmap nested in between does not."""
    x = pf.to_tensor(np.arange(6.0).reshape(3, 2))
    want = np.broadcast_to(_np(x).sum(0), (3, 2))
    via_jit = pf.vmap(lambda v: pf.jit(lambda q: pf.psum(q, "i"))(v), axis_name="i")(x)
    via_cond = pf.vmap(lambda v: pf.cond(v.sum() > 100, lambda: v, lambda: pf.psum(v, "i")), axis_name="i")(x)
    np.testing.assert_allclose(_np(via_jit), want)
    np.testing.assert_allclose(_np(via_cond), want)
    via_scan = pf.vmap(lambda v: pf.scan(lambda c, e: (c + pf.psum(e, "i"), c), v[0] * 0, v)[0], axis_name="i")(x)
    np.testing.assert_allclose(_np(via_scan), [_np(x).sum()] * 3)
    inner = pf.vmap(lambda v: pf.vmap(lambda e: pf.jit(lambda q: pf.psum(q, "i"))(e))(v), axis_name="i")(x)
    np.testing.assert_allclose(_np(inner), want)


def test_auto_strategy_runs_one_module_where_it_can_and_segments_otherwise(cpus, monkeypatch):
    monkeypatch.setattr(config, "pmap_strategy", "auto")
    loaded = []
    monkeypatch.setattr(importlib.import_module("paddle_fn.transforms.pmap"), "load_multi_device",
                        lambda *a, **k: loaded.append(a[1]) or multi_device.load_multi_device(*a, **k))
    x = pf.to_tensor(np.arange(8.0, dtype="float32").reshape(2, 4))
    out = pf.pmap(lambda v: v - pf.pmean(v, "i"), axis_name="i", devices=cpus[:2])(x)
    np.testing.assert_allclose(_np(out), _np(x) - _np(x).mean(0))
    assert loaded == [cpus[:2]]  # one module over both devices

    def looped(v):  # a collective inside a loop: the loop runs on the host, between segments
        return pf.while_loop(lambda c: pf.pmax(c.max(), "i") < 100.0, lambda c: pf.psum(c, "i") + 1.0, v)
    loaded.clear()
    np.testing.assert_allclose(_np(pf.pmap(looped, axis_name="i", devices=cpus[:2])(x)),
                               _np(pf.vmap(looped, axis_name="i")(x)))
    assert loaded == []
    monkeypatch.setattr(config, "pmap_strategy", "module")
    with pytest.raises(pf.UnsupportedError, match="cannot run as one multi-device module: a loop or cond holds"):
        pf.pmap(looped, axis_name="i", devices=cpus[:2])(x)
    with pytest.raises(ValueError, match="pmap_strategy is 'fastest'; expected one of auto, module, segments"):
        config.update("pmap_strategy", "fastest")  # checked when set, however it is set
    with pytest.raises(ValueError, match="pmap_strategy is 'fastest'"):
        config.pmap_strategy = "fastest"
    assert config.pmap_strategy == "module"


def test_every_collective_primitive_has_a_mesh_lowering():
    """A collective is a primitive with a mesh lowering, set in its block: the ones of prims/collectives.py."""
    from paddle_fn.core.primitive import all_primitives
    from paddle_fn.prims import collectives
    with_mesh = {p.name for p in all_primitives().values() if p.lower_on_mesh is not None}
    defined = {v.name for v in vars(collectives).values() if getattr(v, "lower", None) is not None and
               getattr(v.lower, "__qualname__", "").startswith("_no_lowering")}
    assert with_mesh == defined == {"psum", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all",
                                    "axis_index"}


def test_a_collective_needs_both_of_its_pmap_rules():
    """A collective half-declared (a mesh lowering without the host rule pmap's segment path needs, or the
    reverse) is refused when its block runs, not when a pmap first cuts at it."""
    from paddle_fn.core.primitive import NONLINEAR, Primitive
    rules = dict(shape_rule=lambda x: x, impl=lambda x: x, jvp=NONLINEAR, transpose=NONLINEAR, batch=NONLINEAR,
                 lower=lambda ctx, x: x)
    with pytest.raises(TypeError, match="'half_collective': a collective needs both lower_on_mesh and run_on_host"):
        Primitive("half_collective", **rules, lower_on_mesh=lambda mesh, values, group: values)
    with pytest.raises(TypeError, match="'other_half': a collective needs both"):
        Primitive("other_half", **rules, run_on_host=lambda backend, values, first: values)


def test_collectives_take_pytrees_under_pmap_and_vmap(cpus, strategy):
    from typing import NamedTuple

    class Grads(NamedTuple):
        w: object
        b: object

    x = np.arange(8, dtype=np.float32).reshape(4, 2)

    def step(v):
        tree = {"w": v, "parts": [v * 2.0, Grads(v, v[0])]}
        mean = pf.pmean(tree, "i")
        return (mean, pf.psum(Grads(v, v[1]), "i"), pf.pmax([v], "i"), pf.pmin((v,), "i"),
                pf.all_gather({"a": v}, "i"), pf.ppermute([v], "i", [(k, (k + 1) % 4) for k in range(4)]),
                pf.psum(1.0, "i"))

    for mapped in (pf.pmap(step, axis_name="i", devices=cpus), pf.vmap(step, axis_name="i")):
        mean, total, mx, mn, gathered, shifted, count = mapped(pf.to_tensor(x))
        assert set(mean) == {"w", "parts"} and isinstance(mean["parts"][1], Grads) and isinstance(total, Grads)
        np.testing.assert_allclose(_np(mean["w"]), np.broadcast_to(x.mean(0), (4, 2)))
        np.testing.assert_allclose(_np(mean["parts"][0]), np.broadcast_to(2 * x.mean(0), (4, 2)))
        np.testing.assert_allclose(_np(mean["parts"][1].b), np.full(4, x[:, 0].mean()))
        np.testing.assert_allclose(_np(total.w), np.broadcast_to(x.sum(0), (4, 2)))
        np.testing.assert_allclose(_np(total.b), np.full(4, x[:, 1].sum()))
        np.testing.assert_allclose(_np(mx[0]), np.broadcast_to(x.max(0), (4, 2)))
        np.testing.assert_allclose(_np(mn[0]), np.broadcast_to(x.min(0), (4, 2)))
        np.testing.assert_allclose(_np(gathered["a"]), np.broadcast_to(x, (4, 4, 2)))
        np.testing.assert_allclose(_np(shifted[0]), np.roll(x, 1, axis=0))
        np.testing.assert_allclose(_np(count), np.full(4, 4.0))
    swapped = pf.vmap(lambda v: pf.all_to_all({"a": v}, "i", 0, 0), axis_name="i")(pf.to_tensor(x[:2]))
    np.testing.assert_allclose(_np(swapped["a"]), x[:2].T)
    scattered = pf.vmap(lambda v: pf.psum_scatter([v], "i", tiled=True), axis_name="i")(pf.to_tensor(x[:2]))
    np.testing.assert_allclose(_np(scattered[0]), x[:2].sum(0)[:, None])
