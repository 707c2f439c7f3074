"""jit: correctness against eager, caching, composition with every transform, control flow, devices, errors."""
import gc
import threading

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import ConcretizationError, TransformError
from paddle_fn.lowering import lower_program


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    # one disk cache for the whole module run, so repeated programs load instead of recompiling
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "iree-cache"))


def mlp_loss(params, x, y):
    h = paddle.tanh(paddle.matmul(x, params["W1"]) + params["b1"])
    out = paddle.matmul(h, params["W2"])
    return paddle.mean((out - y) ** 2)


def _params(dtype="float32"):
    rng = np.random.default_rng(0)
    return {"W1": paddle.to_tensor(rng.normal(size=(4, 8)).astype(dtype)),
            "b1": paddle.to_tensor(np.zeros(8, dtype)),
            "W2": paddle.to_tensor(rng.normal(size=(8, 2)).astype(dtype))}


def _data(dtype="float32"):
    rng = np.random.default_rng(1)
    return paddle.to_tensor(rng.normal(size=(5, 4)).astype(dtype)), paddle.to_tensor(rng.normal(size=(5, 2)).astype(dtype))


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float64", 1e-14)])
def test_jit_matches_eager_and_keeps_dtype(dtype, tol):
    params, (x, y) = _params(dtype), _data(dtype)
    vg = paddle.value_and_grad(mlp_loss)
    (v_e, g_e) = vg(params, x, y)
    (v_j, g_j) = paddle.jit(vg)(params, x, y)
    assert v_j.dtype == dtype and g_j["W1"].dtype == dtype
    np.testing.assert_allclose(v_j.numpy(), v_e.numpy(), rtol=tol)
    for k in params:
        np.testing.assert_allclose(g_j[k].numpy(), g_e[k].numpy(), rtol=tol * 10, atol=tol)


def test_jit_matches_eager_on_bool_unsigned_and_complex_values():
    # each of these once compiled to something else or not at all: bool add wrapped (True + True gave False),
    # IREE rejected reverse and cumulative sums/products of uint8/uint32, complex constants failed to lower (the
    # Paddle-level orderings and sorts of complex numbers now refuse them, as Paddle 3.3.1 does)
    nan = np.nan
    b = paddle.to_tensor([True, True, False, False])
    u8 = paddle.to_tensor(np.array([250, 3, 7, 255], np.uint8))
    u32 = paddle.to_tensor(np.array([2 ** 32 - 1, 5, 0, 2 ** 31], np.uint32))
    c = paddle.to_tensor(np.array([1 + 2j, 1 + 1j, complex(nan, 0), complex(1, nan)], np.complex64))
    d = paddle.to_tensor(np.array([1 + 1j, 1 + 1j, 2 - 1j, 0j], np.complex64))

    def cases(b, u8, u32, c, d):
        return [b + b[::-1], b * b[::-1], u8[::-1], paddle.flip(u32, 0), paddle.cumsum(u8), paddle.cumprod(u32, 0),
                u8 + u8, u32 < u32[::-1], c.sum(), paddle.prod(d), c == d, paddle.where(b, c, d)]
    eager, staged = cases(b, u8, u32, c, d), paddle.jit(cases)(b, u8, u32, c, d)
    for i, (e, j) in enumerate(zip(eager, staged)):
        assert e.dtype == j.dtype and e.numpy().dtype == j.numpy().dtype, i
        np.testing.assert_array_equal(j.numpy(), e.numpy(), err_msg=f"case {i}")


def test_jit_atan2_has_numpys_special_cases_in_every_float_type():
    # IREE's own float32/float16/bfloat16 atan2 gave nan for 0/0 and inf/inf and lost y's sign over negative x
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, -6e4, -0.3]
    y, x = (np.array(v, np.float32).ravel() for v in np.meshgrid(special, special))
    args = [paddle.to_tensor(v).astype(dt) for dt in ("float32", "float16", "bfloat16") for v in (y, x)]

    def atan2s(*args):
        return [paddle.atan2(args[i], args[i + 1]) for i in range(0, len(args), 2)]
    for e, j in zip(atan2s(*args), paddle.jit(atan2s)(*args)):
        e, j = e.numpy().astype(np.float32), j.numpy().astype(np.float32)
        np.testing.assert_allclose(j, e, rtol=1e-6)  # nan where numpy has nan, and nowhere else
        assert (np.signbit(j) == np.signbit(e))[~np.isnan(e)].all()


def test_float64_precision_survives():
    f = paddle.jit(lambda x: x + 1e-12)
    out = f(paddle.to_tensor(np.array([1.0])))
    assert out.dtype == "float64" and out.numpy()[0] != 1.0
    g = paddle.jit(lambda x: paddle.sin(x) * paddle.tanh(x))  # float64 transcendentals compile exactly
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(g(paddle.to_tensor(x)).numpy(), np.sin(x) * np.tanh(x), rtol=1e-15, atol=1e-15)


def test_cache_retrace_only_on_new_signature():
    traces = []

    @paddle.jit
    def f(x, n):
        traces.append(1)
        return x * n

    f = paddle.jit(f.fun, static_argnums=1)
    a = paddle.to_tensor([1.0, 2.0])
    f(a, 2); f(a, 2); f(paddle.to_tensor([3.0, 4.0]), 2)
    assert len(traces) == 1
    f(a, 3)
    assert len(traces) == 2
    f(paddle.to_tensor([1.0, 2.0, 3.0]), 3)
    assert len(traces) == 3
    np.testing.assert_allclose(f(a, 3).numpy(), [3.0, 6.0])


def test_unhashable_static_argument_is_a_clear_error():
    f = paddle.jit(lambda x, shape: paddle.reshape(x, shape), static_argnums=1)
    with pytest.raises(TypeError, match="static argument 'shape'.*list.*not hashable.*tuple"):
        f(paddle.ones([4]), [2, 2])
    assert f(paddle.ones([4]), (2, 2)).shape == [2, 2]


def test_outputs_stay_on_device_and_chain_without_numpy():
    f = paddle.jit(lambda x: x * 2.0)
    y = f(paddle.to_tensor([1.0, 2.0]))
    assert y.device_array is not None and y._value is None
    z = f(y)
    assert y._value is None, "passing a jit output into another jit must not convert it to numpy"
    np.testing.assert_allclose(z.numpy(), [4.0, 8.0])
    assert "Tensor(shape=[2]" in repr(z)


def test_outputs_know_their_shape_without_asking_the_device():
    """A jitted call's outputs take their avals from the program and their buffers' shapes from the executable's
    declaration: the next call's cache key costs no query of IREE's buffer views."""
    f = paddle.jit(lambda x: (x * 2.0, (x > 1.0).astype("int32").sum()))
    y, n = f(paddle.to_tensor([1.0, 2.0]))
    assert y.shape == [2] and n.shape == [] and str(n.dtype) == "paddle.int64"
    assert y.device_array._view is None and n.device_array._view is None
    assert f(y)[0].aval is y.aval  # the same signature: the key compares by identity
    assert n.item() == 1 and y.numpy().tolist() == [2.0, 4.0]


def test_composition_with_every_transform():
    def f(x):
        return paddle.sum(paddle.sin(x) * x)
    x = paddle.to_tensor(np.array([0.3, -0.7, 1.1]))
    g_ref = np.sin(x.numpy()) + x.numpy() * np.cos(x.numpy())
    np.testing.assert_allclose(paddle.jit(paddle.grad(f))(x).numpy(), g_ref, rtol=1e-13)
    np.testing.assert_allclose(paddle.grad(paddle.jit(f))(x).numpy(), g_ref, rtol=1e-13)
    xs = paddle.to_tensor(np.array([[0.3, -0.7, 1.1], [0.1, 0.2, 0.3]]))
    np.testing.assert_allclose(paddle.vmap(paddle.jit(paddle.grad(f)))(xs).numpy(),
                               paddle.vmap(paddle.grad(f))(xs).numpy(), rtol=1e-13)
    np.testing.assert_allclose(paddle.jit(paddle.vmap(paddle.grad(f)))(xs).numpy(),
                               paddle.vmap(paddle.grad(f))(xs).numpy(), rtol=1e-13)
    H = paddle.hessian(paddle.jit(f))(x).numpy()
    np.testing.assert_allclose(H, paddle.hessian(f)(x).numpy(), rtol=1e-12, atol=1e-13)
    _, t = paddle.jvp(paddle.jit(f), (x,), (paddle.ones_like(x),))
    np.testing.assert_allclose(t.numpy(), [g_ref.sum()], rtol=1e-13)


def test_nested_jit_is_inlined():
    inner = paddle.jit(lambda x: paddle.exp(x))
    outer = paddle.jit(lambda x: inner(x) + 1.0)
    assert "jit_call" in str(paddle.make_ir(outer)(paddle.ones([2])))
    text = outer.lower(paddle.ones([2])).as_text()
    assert text.count("func.func") == 1 and "stablehlo.exponential" in text
    np.testing.assert_allclose(outer(paddle.ones([2])).numpy(), np.e + 1, rtol=1e-6)


def test_control_flow_lowers_without_unrolling():
    def f(x):
        def body(i, c):
            return paddle.cond(c[0] > 0, lambda v: v * 0.5, lambda v: v + 1.0, c)
        y = paddle.fori_loop(0, 20, body, x)
        s, ys = paddle.scan(lambda c, v: (c + v, c * v), paddle.zeros([1]), paddle.reshape(y, [-1, 1]))
        n = paddle.while_loop(lambda c: c[0] < 100.0, lambda c: c * 2.0, paddle.abs(s) + 1.0)
        return n, ys
    jf = paddle.jit(f)
    x = paddle.to_tensor([3.0, -2.0, 5.0])
    # tracing keeps each loop one primitive; the generic lowering keeps it one loop (on llvm-cpu, lowering/
    # llvm_cpu_scan.py then runs several steps of a scan per iteration on purpose)
    text = lower_program(jf.lower(x).program, use_overrides=False)
    assert "stablehlo.while" in text and "stablehlo.case" in text
    assert text.count("stablehlo.case") < 4, "control flow must not be unrolled"
    for a, b in zip(jf(x), f(x)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    g = paddle.jit(paddle.grad(lambda x: paddle.sum(f(x)[1])))(x)
    np.testing.assert_allclose(g.numpy(), paddle.grad(lambda x: paddle.sum(f(x)[1]))(x).numpy(), rtol=1e-5)


def test_python_bool_of_traced_value_names_the_argument():
    @paddle.jit
    def f(x, threshold):
        if paddle.sum(x) > threshold:
            return x
        return -x
    with pytest.raises(ConcretizationError, match=r"argument .*x.*threshold|argument threshold, x|argument x, threshold"):
        f(paddle.ones([2]), paddle.to_tensor(0.0))
    with pytest.raises(ConcretizationError, match="static_argnums"):
        f(paddle.ones([2]), paddle.to_tensor(0.0))
    fixed = paddle.jit(lambda x, t: paddle.where(paddle.sum(x) > t, x, -x))
    np.testing.assert_allclose(fixed(paddle.ones([2]), paddle.to_tensor(5.0)).numpy(), [-1.0, -1.0])


def test_aot_lower_and_compile():
    lowered = paddle.jit(lambda x, y: paddle.matmul(x, y)).lower(paddle.ones([2, 3]), paddle.ones([3, 4]))
    assert "stablehlo.dot_general" in lowered.as_text()
    assert lowered.input_types == ["f32[2,3]", "f32[3,4]"] and lowered.output_types == ["f32[2,4]"]
    compiled = lowered.compile()
    np.testing.assert_allclose(compiled(paddle.ones([2, 3]), paddle.ones([3, 4])).numpy(), np.full((2, 4), 3.0))
    with pytest.raises(TransformError, match="lowered for inputs"):
        compiled(paddle.ones([2, 2]), paddle.ones([2, 4]))


def test_methods_and_decorator_forms():
    class Model:
        def __init__(self, w):
            self.w = w

        @paddle.jit
        def __call__(self, x):
            return x * self.w

    m = Model(paddle.to_tensor([2.0]))
    np.testing.assert_allclose(m(paddle.to_tensor([3.0])).numpy(), [6.0])

    @paddle.jit(static_argnames="power")
    def p(x, power):
        return x ** power
    np.testing.assert_allclose(p(paddle.to_tensor([2.0]), power=3).numpy(), [8.0])


def test_compile_failure_is_reported_and_does_not_poison(monkeypatch):
    import importlib
    from paddle_fn import runtime
    loader = importlib.import_module("paddle_fn.runtime.executable")  # where jit's executables are compiled
    real = loader.compile_stablehlo

    def failing(text, **kw):
        raise runtime.CompileError("simulated IREE failure: error: boom", diagnostics="error: boom", mlir_path=None)
    monkeypatch.setattr(loader, "compile_stablehlo", failing)
    f = paddle.jit(lambda x: x * 3.0 + 0.0078125)  # a program no other test loads (loaded ones are shared)
    with pytest.raises(runtime.CompileError, match="boom"):
        f(paddle.ones([3]))
    monkeypatch.setattr(loader, "compile_stablehlo", real)
    np.testing.assert_allclose(f(paddle.ones([3])).numpy(), [3.0078125] * 3)


def test_explain_cache_misses_and_log_compiles(caplog):
    import logging
    paddle.config.update("explain_cache_misses", True)
    try:
        f = paddle.jit(lambda x: x + 1.0)
        with caplog.at_level(logging.WARNING, logger="paddle_fn"):
            f(paddle.ones([2]))
            f(paddle.ones([3]))
        assert any("f32[2] to f32[3]" in r.getMessage() for r in caplog.records)
    finally:
        paddle.config.update("explain_cache_misses", False)


def test_devices_and_places():
    assert paddle.devices()[0].platform == "cpu"
    assert paddle.get_device() == "cpu"
    d = paddle.set_device(paddle.CPUPlace())
    assert d.platform == "cpu"
    x = paddle.device_put(paddle.to_tensor([1.0, 2.0]))
    assert x.device_array is not None
    f = paddle.jit(lambda v: v * v, device="cpu")
    np.testing.assert_allclose(f(x).numpy(), [1.0, 4.0])
    if not any(d.platform == "cuda" for d in paddle.devices()):
        with pytest.raises(paddle.PaddleFnError, match="no cuda device"):
            paddle.jit(lambda v: v, device=paddle.CUDAPlace(0))(x)


def test_random_is_identical_under_jit():
    key = paddle.random.key(3)
    draw = lambda k: (paddle.random.uniform(k, (4,)), paddle.random.randint(k, (4,), 0, 100),  # noqa: E731
                      paddle.random.normal(k, (4,)))
    (u_e, r_e, n_e), (u_j, r_j, n_j) = draw(key), paddle.jit(draw)(key)
    np.testing.assert_array_equal(u_e.numpy(), u_j.numpy())  # the bits are identical
    np.testing.assert_array_equal(r_e.numpy(), r_j.numpy())
    # normal goes through erf_inv, whose IREE and scipy implementations may differ in the last bit
    np.testing.assert_allclose(n_e.numpy(), n_j.numpy(), rtol=4e-7, atol=1e-7)


def test_closed_over_tensor_updated_in_place_is_seen_by_the_next_call():
    traces = []
    W = paddle.to_tensor([[1.0, 0.0], [0.0, 1.0]])

    @paddle.jit
    def f(x):
        traces.append(1)
        return paddle.matmul(x, W)

    x = paddle.ones([1, 2])
    np.testing.assert_allclose(f(x).numpy(), [[1.0, 1.0]])
    f(x)
    assert len(traces) == 1, "an unchanged closure must not retrace"
    W.set_value([[2.0, 0.0], [0.0, 3.0]])
    np.testing.assert_allclose(f(x).numpy(), [[2.0, 3.0]])
    W[0, 0] = 10.0
    np.testing.assert_allclose(f(x).numpy(), [[10.0, 3.0]])
    assert len(traces) == 3


def test_cross_compile_for_gpu_targets_without_a_gpu():
    lowered = paddle.jit(lambda a, b: paddle.tanh(paddle.matmul(a, b))).lower(paddle.ones([4, 8]), paddle.ones([8, 2]))
    for target in ("cuda", "vulkan-spirv"):
        artifact = lowered.cross_compile(target)
        assert isinstance(artifact.vmfb, bytes) and len(artifact.vmfb) > 1000


def test_lowered_text_is_the_simplified_program_that_is_compiled():
    from paddle_fn.transforms.jit import stablehlo_text
    lowered = paddle.jit(lambda x, y: paddle.matmul(x, paddle.transpose(y, [1, 0]))).lower(
        paddle.ones([2, 3]), paddle.ones([4, 3]))
    text = lowered.as_text()
    assert text == stablehlo_text(lowered.program)
    assert "stablehlo.transpose" not in text, "simplify folds the transpose into dot_general before compiling"


def test_compile_log_says_why_the_program_was_traced(caplog):
    import logging
    paddle.config.update("log_compiles", True)
    try:
        f = paddle.jit(lambda x: x * 0.00390625 - 1.0)
        with caplog.at_level(logging.INFO, logger="paddle_fn"):
            f(paddle.ones([2]))
            f(paddle.ones([5]))
        compiles = [r.getMessage() for r in caplog.records if r.getMessage().startswith("jit(")]
        assert any("first call" in m for m in compiles), compiles
        assert any("f32[2] to f32[5]" in m for m in compiles), compiles
    finally:
        paddle.config.update("log_compiles", False)


def test_flat_and_pytree_calls_share_the_semantics():
    f = paddle.jit(lambda x, y=None: x * 2.0 if y is None else x * 2.0 + y["b"])
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(f(x).numpy(), [2.0, 4.0])
    np.testing.assert_allclose(f(np.array([1.0, 2.0], np.float32)).numpy(), [2.0, 4.0])  # same signature
    assert len(f._cache) == 1
    np.testing.assert_allclose(f(x, {"b": x}).numpy(), [3.0, 6.0])
    np.testing.assert_allclose(f(x, y={"b": x}).numpy(), [3.0, 6.0])
    assert len(f._cache) == 3
    with pytest.raises(TypeError):
        paddle.jit(lambda v: v, donate_argnums=0)  # removed: it was accepted and ignored


def test_jitted_calls_do_not_grow():
    import gc
    from paddle_fn import runtime
    f = paddle.jit(lambda x: x + 1.0)
    x = paddle.device_put(paddle.ones([4]))
    for _ in range(50):
        f(x)
    gc.collect()
    objects, loaded = len(gc.get_objects()), runtime.loaded_count()
    for _ in range(2000):
        f(x)
    gc.collect()
    assert len(gc.get_objects()) - objects <= 20
    assert runtime.loaded_count() == loaded and len(f._cache) == 1


def test_executables_of_dead_functions_are_freed(monkeypatch):
    import gc
    import importlib
    import weakref
    loader = importlib.import_module("paddle_fn.runtime.executable")
    monkeypatch.setattr(loader, "KEEP_RECENT", 2)
    x = paddle.ones([3])
    alive = []
    for k in range(5):
        f = paddle.jit(lambda v, k=k: v * float(k) - 0.0625)  # a distinct program each
        np.testing.assert_allclose(f(x).numpy(), [k - 0.0625] * 3)
        (traced,) = f._cache.values()
        alive.append(weakref.ref(traced.executable))
    del f, traced
    gc.collect()
    assert sum(ref() is not None for ref in alive) <= 2, "only the most recently loaded are kept once unused"


def test_the_cyclic_collector_pauses_while_jit_traces_and_resumes_after():
    seen = []

    @paddle.jit
    def f(x):
        seen.append(gc.isenabled())
        return x * 2.0

    assert gc.isenabled()
    np.testing.assert_allclose(f(paddle.ones([3])).numpy(), 2.0)
    assert seen == [False] and gc.isenabled()


def test_a_collector_the_user_disabled_stays_disabled_and_a_failed_trace_resumes_it():
    def broken(x):
        raise ValueError("user error while tracing")

    with pytest.raises(ValueError, match="user error"):
        paddle.jit(broken)(paddle.ones([2]))
    assert gc.isenabled()
    gc.disable()
    try:
        paddle.jit(lambda x: x + 1.0)(paddle.ones([2]))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_resumes_only_when_the_last_of_concurrent_traces_is_done():
    inside, release = threading.Event(), threading.Event()

    @paddle.jit
    def slow(x):
        inside.set()
        release.wait(10)
        return x - 1.0

    worker = threading.Thread(target=lambda: slow(paddle.ones([4])))
    worker.start()
    assert inside.wait(10)
    np.testing.assert_allclose(paddle.jit(lambda x: x * 3.0)(paddle.ones([4])).numpy(), 3.0)
    assert not gc.isenabled()  # the other thread still traces
    release.set()
    worker.join(10)
    assert gc.isenabled()
