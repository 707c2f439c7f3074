"""cond / switch / while_loop / fori_loop / scan: eager results, JVP, reverse mode, batching, errors, IREE."""
import re

import numpy as np
import pytest

import paddle_fn
from paddle_fn.core.autodiff import jvp_flat
from paddle_fn.core.errors import DTypeError, ShapeError, TransformError, UnsupportedError
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import control_flow as C
from paddle_fn.prims import elementwise as E
from paddle_fn.prims import reduction as R
from paddle_fn.prims import structural as St


def T(x, dtype="float64"):
    return Tensor(np.asarray(x, dtype=dtype))


def full_like(x, value):
    a = get_aval(x)
    return St.broadcast_in_dim(T(value, a.dtype.np), shape=a.shape, broadcast_dimensions=())


def total(x):
    return R.reduce_sum(x, axes=tuple(range(get_aval(x).ndim)))


def fd_grad(f, x, eps=1e-6):
    """Central-difference gradient of a scalar numpy function."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def value(f):
    return lambda x: float(np.asarray(f(T(x))))


RNG = np.random.default_rng(0)
X3 = RNG.normal(size=3)
XS = RNG.normal(size=(5, 3))


# ----------------------------------------------------------------------------------------------- eager

def test_cond_eager_pytree_and_scalar_operands():
    ops = {"a": T(X3), "k": 2.0}
    true_fn = lambda d: (E.mul(d["a"], full_like(d["a"], 2.0)), d["k"])  # noqa: E731
    false_fn = lambda d: (E.neg(d["a"]), d["k"])  # noqa: E731
    for pred, want in ((True, 2 * X3), (T(False, "bool"), -X3), (T(3, "int32"), 2 * X3), (T(0, "int64"), -X3)):
        out, k = C.cond(pred, true_fn, false_fn, ops)
        np.testing.assert_allclose(out.numpy(), want)
        assert float(k) == 2.0


def test_switch_clamps_the_index():
    branches = [lambda x: E.sin(x), lambda x: E.cos(x), lambda x: E.neg(x)]
    for i, want in ((-4, np.sin(X3)), (1, np.cos(X3)), (2, -X3), (9, -X3)):
        np.testing.assert_allclose(C.switch(T(i, "int32"), branches, T(X3)).numpy(), want)


def test_while_loop_python_scalar_and_pytree_carry():
    def body(c):
        i, (x, acc) = c
        return E.add(i, T(1, "int64")), (E.mul(x, T(1.5, "float32")), E.add(acc, x))
    i, (x, acc) = C.while_loop(lambda c: E.lt(c[0], T(4, "int64")), body, (0, (1.0, T(0.0, "float32"))))
    assert int(i) == 4 and x.dtype.name == "float32"
    np.testing.assert_allclose(float(x), 1.5 ** 4)
    np.testing.assert_allclose(float(acc), 1 + 1.5 + 1.5 ** 2 + 1.5 ** 3, rtol=1e-6)


def test_scan_matches_python_loop_pytrees_reverse_and_no_xs():
    xs = {"u": T(XS), "v": T(XS[:, 0])}

    def step(carry, x):
        a, n = carry
        a = E.add(E.mul(a, x["u"]), St.broadcast_in_dim(x["v"], shape=(3,), broadcast_dimensions=()))
        return (a, E.add(n, T(1, "int64"))), {"sq": E.mul(a, a)}

    for reverse in (False, True):
        (a, n), ys = C.scan(step, (T(np.ones(3)), 0), xs, reverse=reverse)
        want_a, want_ys = np.ones(3), [None] * 5
        for i in (reversed(range(5)) if reverse else range(5)):
            want_a = want_a * XS[i] + XS[i, 0]
            want_ys[i] = want_a ** 2
        np.testing.assert_allclose(a.numpy(), want_a)
        np.testing.assert_allclose(ys["sq"].numpy(), np.stack(want_ys))
        assert int(n) == 5
    carry, ys = C.scan(lambda c, _: (E.mul(c, T(2.0)), c), T(1.0), None, length=4)
    assert float(carry) == 16.0 and ys.numpy().tolist() == [1.0, 2.0, 4.0, 8.0]


def test_fori_loop_concrete_bounds_is_a_scan_and_traced_bounds_a_while():
    body = lambda i, x: E.add(x, E.convert_element_type(i, new_dtype="float64"))  # noqa: E731
    assert float(C.fori_loop(2, 6, body, T(0.0))) == 2 + 3 + 4 + 5
    prog, _ = trace_to_program(lambda x: [C.fori_loop(0, 3, body, x)], [get_aval(T(0.0))])
    assert [e.prim.name for e in prog.eqns] == ["scan"]
    prog, _ = trace_to_program(lambda n: [C.fori_loop(0, n, body, T(0.0))], [get_aval(T(3, "int64"))])
    assert "while" in [e.prim.name for e in prog.eqns]
    out = paddle_fn.vmap(lambda n: C.fori_loop(0, n, body, T(0.0)))(T([0, 1, 4], "int64"))
    np.testing.assert_allclose(out.numpy(), [0.0, 0.0, 6.0])


# ----------------------------------------------------------------------------------------------- forward mode

def _jvp_vs_fd(f, x, t, eps=1e-6, rtol=1e-6):
    _, (tan,) = jvp_flat(lambda a: [f(a)], [T(x)], [T(t)])
    fd = (np.asarray(f(T(x + eps * t))) - np.asarray(f(T(x - eps * t)))) / (2 * eps)
    np.testing.assert_allclose(tan.numpy(), fd, rtol=rtol, atol=1e-8)


def test_jvp_of_cond_while_and_scan():
    t = RNG.normal(size=3)
    _jvp_vs_fd(lambda x: C.cond(E.gt(total(x), T(0.0)), E.sin, lambda a: E.mul(a, a), x), X3, t)
    _jvp_vs_fd(lambda x: C.cond(E.lt(total(x), T(0.0)), E.sin, lambda a: E.mul(a, a), x), X3, t)
    # the trip count depends on x (held fixed by the perturbation): |x|^2 doubles until it passes 100
    grow = lambda x: C.while_loop(lambda v: E.lt(total(E.mul(v, v)), T(100.0)),  # noqa: E731
                                  lambda v: E.add(E.mul(v, full_like(v, 2.0)), E.sin(v)), x)
    _jvp_vs_fd(grow, X3, t)
    _jvp_vs_fd(lambda x: C.scan(lambda c, xi: (E.mul(E.sin(c), xi), c), x, T(XS))[1], X3, t)


def test_jvp_of_jvp_through_while():
    def f(x):
        return C.while_loop(lambda c: E.lt(c[0], T(3, "int32")),
                            lambda c: (E.add(c[0], T(1, "int32")), E.sin(E.mul(c[1], c[1]))), (T(0, "int32"), x))[1]

    def df(x):
        return jvp_flat(lambda a: [f(a)], [x], [T(1.0)])[1][0]
    _, (d2,) = jvp_flat(lambda a: [df(a)], [T(0.7)], [T(1.0)])
    eps = 1e-5
    fd = (float(df(T(0.7 + eps))) - float(df(T(0.7 - eps)))) / (2 * eps)
    np.testing.assert_allclose(float(d2), fd, rtol=1e-6)


def test_linearize_through_while_keeps_primal_outputs_concrete():
    def f(x):
        return C.while_loop(lambda c: E.lt(c[0], T(3, "int32")),
                            lambda c: (E.add(c[0], T(1, "int32")), E.sin(c[1])), (T(0, "int32"), x))[1]
    y, f_jvp = paddle_fn.linearize(f, T(0.7))
    assert type(y) is Tensor
    np.testing.assert_allclose(float(y), np.sin(np.sin(np.sin(0.7))))
    np.testing.assert_allclose(float(f_jvp(T(2.0))), float(paddle_fn.jvp(f, (T(0.7),), (T(2.0),))[1]))


# ----------------------------------------------------------------------------------------------- reverse mode

def _scan_loss(w):
    def step(c, x):
        c = E.tanh(E.add(E.mul(c, w), x))
        return c, E.mul(c, x)
    c, ys = C.scan(step, E.cos(w), T(XS))
    return E.add(total(c), total(E.mul(ys, ys)))


def _cond_loss(w):
    inner = C.cond(E.gt(total(w), T(0.0)), lambda a, b: E.mul(E.sin(a), b), lambda a, b: E.exp(a), w, T(X3))
    return total(E.mul(inner, inner))


def test_grad_through_scan_and_cond_matches_finite_differences():
    for loss in (_scan_loss, _cond_loss):
        for w in (X3, -X3):
            g = paddle_fn.grad(loss)(T(w))
            np.testing.assert_allclose(g.numpy(), fd_grad(value(loss), w), rtol=1e-6, atol=1e-8)


def test_grad_through_fori_loop_nested_cond_and_reverse_scan():
    def loss(w):
        def body(i, x):
            odd = E.ne(E.rem(i, T(2, "int64")), T(0, "int64"))
            return C.cond(odd, lambda a: E.sin(E.mul(a, w)), lambda a: E.add(a, E.mul(w, w)), x)
        x = C.fori_loop(0, 4, body, w)
        _, ys = C.scan(lambda c, xi: (E.mul(c, xi), E.add(c, xi)), total(w), x, reverse=True)
        return total(E.mul(ys, ys))
    g = paddle_fn.grad(loss)(T(X3))
    np.testing.assert_allclose(g.numpy(), fd_grad(value(loss), X3), rtol=1e-6, atol=1e-8)


def test_grad_of_grad_through_scan():
    def f(w):
        _, ys = C.scan(lambda c, x: (E.sin(E.mul(c, x)), E.mul(c, c)), w, T(XS[:, 0]))
        return total(ys)
    g = paddle_fn.grad(f)
    gg = paddle_fn.grad(g)(T(0.4))
    eps = 1e-5
    np.testing.assert_allclose(float(gg), (float(g(T(0.4 + eps))) - float(g(T(0.4 - eps)))) / (2 * eps), rtol=1e-6)


def test_reverse_mode_of_while_loop_is_a_clear_error():
    def f(x):
        return total(C.while_loop(lambda v: E.lt(total(v), T(10.0)), lambda v: E.mul(v, full_like(v, 2.0)), x))
    with pytest.raises(UnsupportedError, match="scan.*fori_loop"):
        paddle_fn.grad(f)(T([1.0, 2.0]))


# ----------------------------------------------------------------------------------------------- batching

def test_vmap_cond_with_batched_predicate():
    xs = T(XS)
    out = paddle_fn.vmap(lambda x: C.cond(E.gt(total(x), T(0.0)), E.sin, E.neg, x))(xs)
    want = np.stack([np.sin(x) if x.sum() > 0 else -x for x in XS])
    np.testing.assert_allclose(out.numpy(), want)
    idx = T([0, 2, 1, 1, 0], "int32")
    out = paddle_fn.vmap(lambda i, x: C.switch(i, [E.sin, E.cos, E.exp], x))(idx, xs)
    want = np.stack([[np.sin, np.cos, np.exp][i](x) for i, x in zip([0, 2, 1, 1, 0], XS)])
    np.testing.assert_allclose(out.numpy(), want)


def test_vmap_while_with_per_lane_trip_counts():
    def f(x):
        return C.while_loop(lambda c: E.lt(c[1], T(20.0)), lambda c: (E.add(c[0], T(1, "int32")), E.mul(c[1], T(3.0))),
                            (T(0, "int32"), x))
    starts = np.array([1.0, 25.0, 0.5, 7.0])
    n, x = paddle_fn.vmap(f)(T(starts))
    want_n = [int(np.ceil(np.log(20 / s) / np.log(3))) if s < 20 else 0 for s in starts]
    assert n.numpy().tolist() == want_n
    np.testing.assert_allclose(x.numpy(), starts * 3.0 ** np.array(want_n))


def test_vmap_scan_over_batched_consts_carries_and_xs():
    ws = RNG.normal(size=(4, 3))

    def f(w, xs):
        return C.scan(lambda c, x: (E.add(E.mul(c, w), x), E.sin(c)), T(np.zeros(3)), xs)
    c, ys = paddle_fn.vmap(f, in_axes=(0, None))(T(ws), T(XS))
    for b in range(4):
        cb, yb = f(T(ws[b]), T(XS))
        np.testing.assert_allclose(c.numpy()[b], cb.numpy())
        np.testing.assert_allclose(ys.numpy()[b], yb.numpy())


def test_vmap_of_grad_through_scan():
    gs = paddle_fn.vmap(paddle_fn.grad(_scan_loss))(T(np.stack([X3, -X3])))
    for b, w in enumerate((X3, -X3)):
        np.testing.assert_allclose(gs.numpy()[b], paddle_fn.grad(_scan_loss)(T(w)).numpy(), rtol=1e-12)


# ----------------------------------------------------------------------------------------------- errors

def test_cond_branch_mismatch_names_both_branches():
    with pytest.raises(TransformError, match=r"true_fn.*f64\[3\].*false_fn.*f64\[\]|false_fn.*true_fn"):
        C.cond(True, lambda x: x, lambda x: total(x), T(X3))
    with pytest.raises(TransformError, match="branch 0.*branch 1"):
        C.switch(T(0, "int32"), [lambda x: (x, x), lambda x: x], T(X3))


def test_predicate_and_carry_errors():
    with pytest.raises(DTypeError, match="bool or integer"):
        C.cond(T(1.0), E.sin, E.cos, T(X3))
    with pytest.raises(ShapeError, match="scalar"):
        C.cond(T([True, False], "bool"), E.sin, E.cos, T(X3))
    with pytest.raises(DTypeError, match="bool scalar"):
        C.while_loop(lambda x: total(x), E.sin, T(X3))
    with pytest.raises(TransformError, match="init_val"):
        C.while_loop(lambda x: T(False, "bool"), lambda x: E.convert_element_type(x, new_dtype="float32"), T(X3))
    with pytest.raises(TransformError, match="carry"):
        C.scan(lambda c, x: (total(c), x), T(X3), T(XS))
    with pytest.raises(ShapeError, match="leading"):
        C.scan(lambda c, x: (c, x), T(0.0), (T(XS), T(X3)))
    with pytest.raises(TransformError, match="length"):
        C.scan(lambda c, x: (c, x), T(0.0), None)


# ----------------------------------------------------------------------------------------------- IREE

@pytest.mark.heavy
def test_lowered_control_flow_runs_on_iree():
    """One module with cond, switch, while (batched predicate) and scan (and its gradient) functions.

    float32: IREE's CPU backend has no float64 sin/cos/tanh (linking fails on the libm symbols).
    """
    import iree.compiler as ic
    import iree.runtime as rt
    from paddle_fn.lowering import lower_program

    f32 = lambda x: T(x, "float32")  # noqa: E731
    xs32 = XS.astype(np.float32)

    def scan_loss(w):
        def step(c, x):
            c = E.tanh(E.add(E.mul(c, w), x))
            return c, E.mul(c, x)
        c, ys = C.scan(step, E.cos(w), f32(xs32))
        return E.add(total(c), total(E.mul(ys, ys)))

    cases = {
        "cond": (lambda x: [C.cond(E.gt(total(x), f32(0.0)), E.sin, E.exp, x)], [X3.astype(np.float32)]),
        "switch": (lambda i, x: [C.switch(i, [E.sin, E.cos, E.neg], x)], [np.int32(1), X3.astype(np.float32)]),
        "while": (lambda x: list(paddle_fn.vmap(lambda v: C.while_loop(
            lambda c: E.lt(c[1], f32(20.0)), lambda c: (E.add(c[0], T(1, "int32")), E.mul(c[1], f32(3.0))),
            (T(0, "int32"), v)))(x)), [np.array([1.0, 25.0, 0.5], np.float32)]),
        "scan": (lambda w: [scan_loss(w), paddle_fn.grad(scan_loss)(w)], [X3.astype(np.float32)]),
        "scan_reverse": (lambda xs: list(C.scan(lambda c, x: (E.add(E.mul(c, x), x), c), f32(np.ones(3)), xs,
                                                reverse=True)), [xs32]),
    }
    funcs, captured = [], {}
    for name, (f, args) in cases.items():
        prog, consts = trace_to_program(f, [get_aval(Tensor(a)) for a in args])
        captured[name] = [c.numpy() for c in consts]
        text = lower_program(prog, name=name)
        funcs.append(text[text.index("func.func"):text.rindex("}")])
    module = "module @control_flow {\n" + "\n".join(funcs) + "\n}\n"
    vmfb = ic.compile_str(module, target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"])
    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    for name, (f, args) in cases.items():
        got = getattr(ctx.modules.control_flow, name)(*captured[name], *args)
        got = [got] if not isinstance(got, (list, tuple)) else got
        want = f(*[Tensor(a) for a in args])
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=2e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("length", [5, 12, 17, 64])
def test_compiled_scans_run_several_steps_per_iteration_and_match_eager(length):
    """On llvm-cpu a scan runs up to 8 steps per loop iteration (lowering/llvm_cpu_scan.py): a scan of at most 8
    steps is unrolled whole (5), a longer one runs a divisor of its length per iteration (12: 6, 64: 8), a prime
    length keeps one step (17). Forward and reverse scans with xs, ys and two carries, and their reverse mode,
    agree with eager evaluation."""
    rng = np.random.default_rng(length)
    w, h0 = paddle_fn.to_tensor(rng.normal(size=(4, 4)) * 0.5), paddle_fn.to_tensor(rng.normal(size=4))
    xs = paddle_fn.to_tensor(rng.normal(size=(length, 4)))

    def step(carry, x):
        h, count = carry
        h = paddle_fn.tanh(h @ w + x)
        return (h, count + 1.0), (2.0 * h, h.sum())

    def loss(h0, xs):
        (h, count), (ys, sums) = paddle_fn.scan(step, (h0, paddle_fn.to_tensor(0.0, "float64")), xs)
        (g, _), (zs, _) = paddle_fn.scan(step, (h, count), ys, reverse=True)
        return (g ** 2).sum() + 0.1 * zs.sum() + (sums ** 2).sum() + count

    f = paddle_fn.value_and_grad(loss, argnums=(0, 1))
    lines = paddle_fn.jit(f).lower(h0, xs).as_text().splitlines()
    # every loop's trip count: the constant its condition compares the counter with
    trips = {re.search(r"dense<(\d+)> : tensor<i32>", lines[i + 1]).group(1) for i, line in enumerate(lines)
             if line.strip() == "cond {"}
    per_iteration = {5: 5, 12: 6, 17: 1, 64: 8}[length]
    assert trips == (set() if per_iteration == length else {str(length // per_iteration)})
    (value, grads), (want_value, want_grads) = paddle_fn.jit(f)(h0, xs), f(h0, xs)
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-12)
    for g, e in zip(grads, want_grads):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-11, atol=1e-12)
