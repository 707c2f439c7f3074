"""paddle_fn.debug.print / callback (JAX's jax.debug): eagerly, under grad (primal values), once per example under
vmap, after every call of a jitted function (also when the jitted function is transformed), once per device under
pmap; a clear error where no value can get out (a loop body under jit)."""
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


def test_a_loop_body_under_jit_says_why():
    with pytest.raises(paddle.UnsupportedError, match="scan"):
        paddle.jit(lambda v: paddle.scan(lambda c, y: (c + f(y).sum(), y), paddle.to_tensor(0.0), v))(X)
