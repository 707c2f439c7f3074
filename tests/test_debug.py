"""paddle_fn.debug.print / callback (JAX's jax.debug): eagerly, under grad (primal values), once per example under
vmap, after every call of a jitted function (also when the jitted function is transformed), once per device under
pmap; inside scan / fori_loop / while_loop bodies once per iteration, in order (the values leave the loop as extra
outputs and the callbacks run when it finishes); a clear error where no value can get out (a cond branch)."""
import numpy as np
import pytest

import paddle_fn as paddle


def f(v):
    paddle.debug.print("v={} s={s}", v, s=v.sum())
    return v * 2


X = paddle.to_tensor([1.0, 2.0])
WHOLE = "v=[1. 2.] s=3.0\n"
PER_EXAMPLE = "v=1.0 s=1.0\nv=2.0 s=2.0\n"


@pytest.mark.parametrize("run,printed", [
    (lambda: f(X), WHOLE),
    (lambda: paddle.grad(lambda v: f(v).sum())(X), WHOLE),
    (lambda: paddle.vmap(f)(X), PER_EXAMPLE),
    (lambda: paddle.jit(paddle.vmap(f))(X), PER_EXAMPLE),
    (lambda: paddle.vmap(paddle.jit(f))(X), PER_EXAMPLE),
    (lambda: paddle.jit(paddle.grad(lambda v: f(v).sum()))(X), WHOLE),
    (lambda: paddle.grad(lambda v: paddle.jit(f)(v).sum())(X), WHOLE),
    (lambda: paddle.pmap(f)(paddle.to_tensor([[1.0, 2.0]])), WHOLE),
    (lambda: paddle.pmap(f, axis_name="i")(paddle.to_tensor([[1.0, 2.0]])), WHOLE),
])
def test_prints_the_values_under_each_transform(capsys, run, printed):
    run()
    assert capsys.readouterr().out == printed


def test_jit_prints_on_every_call_and_keeps_gradients(capsys):
    jf = paddle.jit(f)
    jf(X)
    jf(X + 1.0)
    assert capsys.readouterr().out == WHOLE + "v=[2. 3.] s=5.0\n"
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    jf(w).sum().backward()  # a callback is not a state update: the call is still recorded on the tape
    assert w.grad.tolist() == [2.0, 2.0]


def test_callback_gets_tensors_and_pytrees():
    seen = []
    paddle.jit(lambda t: paddle.debug.callback(lambda d, k=None: seen.append((d["a"].numpy(), k)), {"a": t}, k=3)
               or t)(paddle.ones([2]))
    np.testing.assert_array_equal(seen[0][0], np.ones(2, np.float32))
    assert seen[0][1] == 3 and isinstance(paddle.debug.callback(lambda: None), type(None))


def scan_sum(v):
    def body(c, y):
        paddle.debug.print("c={} y={}", c, y)
        return c + y, c * 2
    return paddle.scan(body, paddle.to_tensor(0.0), v)


SCANNED = "c=0.0 y=1.0\nc=1.0 y=2.0\n"


@pytest.mark.parametrize("run,printed", [
    (lambda: scan_sum(X), SCANNED),
    (lambda: paddle.jit(scan_sum)(X), SCANNED),
    (lambda: paddle.grad(lambda v: scan_sum(v)[0])(X), SCANNED),
    (lambda: paddle.jit(paddle.grad(lambda v: scan_sum(v)[0]))(X), SCANNED),
    (lambda: paddle.vmap(scan_sum)(paddle.stack([X, X * 10])), SCANNED + "c=0.0 y=10.0\nc=10.0 y=20.0\n"),
    (lambda: paddle.scan(lambda c, y: (c, paddle.debug.print("y={}", y)), 0, X, reverse=True), "y=2.0\ny=1.0\n"),
])
def test_scan_bodies_call_back_once_per_iteration_in_order(capsys, run, printed):
    run()
    assert capsys.readouterr().out == printed


def count_to(n, shift):
    def body(i, c):
        paddle.debug.print("i={} c={} shift={}", i, c, shift)
        return c + i
    return paddle.fori_loop(0, n, body, paddle.to_tensor(0))


COUNTED = "i=0 c=0 shift=7.0\ni=1 c=0 shift=7.0\ni=2 c=1 shift=7.0\n"


@pytest.mark.parametrize("run", [
    lambda: count_to(3, paddle.to_tensor(7.0)),  # concrete bounds: a scan
    lambda: paddle.jit(count_to)(paddle.to_tensor(3), paddle.to_tensor(7.0)),  # traced bounds: a while_loop
    lambda: paddle.while_loop(lambda c: c[0] < 3, count_step, (paddle.to_tensor(0), paddle.to_tensor(0))),  # eager
])
def test_fori_and_while_loops_call_back_once_per_iteration(capsys, run):
    run()
    assert capsys.readouterr().out == COUNTED


def count_step(c):
    paddle.debug.print("i={} c={} shift={}", c[0], c[1], 7.0)
    return c[0] + 1, c[1] + c[0]


def test_while_loops_under_vmap_and_nested_loops_keep_the_order(capsys):
    paddle.vmap(lambda n: count_to(n, paddle.to_tensor(1.0)))(paddle.to_tensor([1, 2]))
    assert capsys.readouterr().out == "i=0 c=0 shift=1.0\ni=0 c=0 shift=1.0\ni=1 c=0 shift=1.0\n"

    def nested(v):
        def outer(c, x):
            def inner(d, y):
                paddle.debug.print("inner {} {} {}", d, y, x)
                return d + y, None
            d, _ = paddle.scan(inner, c, paddle.to_tensor([1.0, 2.0]))
            paddle.debug.print("outer {}", d)
            return d, None
        return paddle.scan(outer, paddle.to_tensor(0.0), v)[0]
    paddle.jit(nested)(paddle.to_tensor([10.0, 20.0]))
    assert capsys.readouterr().out == ("inner 0.0 1.0 10.0\ninner 1.0 2.0 10.0\nouter 3.0\n"
                                       "inner 3.0 1.0 20.0\ninner 4.0 2.0 20.0\nouter 6.0\n")
    paddle.jit(lambda v: paddle.fori_loop(0, 2, lambda i, c: paddle.debug.print("hi") or c, v))(X)
    assert capsys.readouterr().out == "hi\nhi\n"  # no traced value: still once per iteration


def test_a_while_loop_records_up_to_the_configured_capacity(capsys, monkeypatch):
    monkeypatch.setattr(paddle.config, "debug_loop_capacity", 2)
    with pytest.warns(UserWarning, match="ran 3 iterations"):
        paddle.jit(count_to)(paddle.to_tensor(3), paddle.to_tensor(7.0))
    assert capsys.readouterr().out == COUNTED.rsplit("i=2", 1)[0]


def test_a_cond_branch_says_why():
    with pytest.raises(paddle.UnsupportedError, match="cond branch"):
        paddle.jit(lambda v: paddle.cond(v.sum() > 0, lambda u: f(u), lambda u: u, v))(X)
