"""Paddle's in-place idioms, functionalized: handles are rebound, values are never written."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import EscapedTracerError, ShapeError


def t(v):
    return paddle.to_tensor(np.asarray(v, dtype=np.float64))


def test_eager_inplace_methods():
    x = t([1.0, -2.0, 3.0])
    assert x.add_(t([1.0, 1.0, 1.0])) is x
    np.testing.assert_allclose(x.numpy(), [2.0, -1.0, 4.0])
    x.scale_(2.0)
    np.testing.assert_allclose(x.numpy(), [4.0, -2.0, 8.0])
    x.clip_(min=-1.0, max=5.0)
    np.testing.assert_allclose(x.numpy(), [4.0, -1.0, 5.0])
    x[1] = 7.0
    np.testing.assert_allclose(x.numpy(), [4.0, 7.0, 5.0])
    x[:2] = t([0.5, 0.25])
    np.testing.assert_allclose(x.numpy(), [0.5, 0.25, 5.0])
    x.zero_()
    np.testing.assert_allclose(x.numpy(), [0.0, 0.0, 0.0])
    x.fill_(3)
    assert x.dtype == "float64"
    np.testing.assert_allclose(x.numpy(), [3.0, 3.0, 3.0])
    x.set_value(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(x.numpy(), [1.0, 2.0, 3.0])
    x.reshape_([3, 1])
    assert x.shape == [3, 1]


def test_inplace_keeps_shape_and_reports_broadcast_errors():
    x = t([1.0, 2.0])
    with pytest.raises(ShapeError, match="cannot change the shape"):
        x.add_(t([[1.0], [2.0]]))
    with pytest.raises(ShapeError, match="set_value"):
        x.set_value(np.zeros(3))


def test_values_held_elsewhere_never_change():
    x = t([1.0, 2.0])
    y = x * 1.0           # another value
    arr = x.numpy()       # a numpy view of the old value
    x.add_(t([10.0, 10.0]))
    np.testing.assert_allclose(y.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(arr, [1.0, 2.0])
    alias = x             # the same handle, as in Paddle
    x.scale_(2.0)
    np.testing.assert_allclose(alias.numpy(), [22.0, 24.0])


def test_residuals_are_not_affected_by_later_updates():
    w = t([2.0, 3.0])
    out, vjp_fn = paddle.vjp(lambda x: x * w, t([1.0, 1.0]))
    w.add_(t([100.0, 100.0]))  # the residual captured w's value, not the handle
    np.testing.assert_allclose(vjp_fn(t([1.0, 1.0]))[0].numpy(), [2.0, 3.0])


def inplace_fn(x):
    buf = paddle.zeros([3], dtype="float64")
    buf[1] = paddle.sum(x * x)          # fill a buffer with a traced value
    y = x * 1.0
    y.scale_(3.0)
    y[0] = y[0] * y[2]
    return paddle.sum(buf) + paddle.sum(y)


def functional_fn(x):
    y = x * 3.0
    y = y.at[0].set(y[0] * y[2])
    return paddle.sum(x * x) + paddle.sum(y)


@pytest.mark.parametrize("transform", ["grad", "vmap", "jit", "jit_grad", "grad_jit"])
def test_inplace_under_transforms_matches_functional(transform):
    x = t([1.0, 2.0, 3.0])
    xs = t([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    apply = {
        "grad": lambda f: paddle.grad(f)(x),
        "vmap": lambda f: paddle.vmap(f)(xs),
        "jit": lambda f: paddle.jit(f)(x),
        "jit_grad": lambda f: paddle.jit(paddle.grad(f))(x),
        "grad_jit": lambda f: paddle.grad(paddle.jit(f))(x),
    }[transform]
    np.testing.assert_allclose(apply(inplace_fn).numpy(), apply(functional_fn).numpy(), rtol=1e-13)


def test_jitted_function_does_not_change_callers_tensor():
    f = paddle.jit(lambda a: (a.add_(paddle.ones([2], dtype="float64")), a * 2.0)[1])
    x = t([1.0, 2.0])
    np.testing.assert_allclose(f(x).numpy(), [4.0, 6.0])
    np.testing.assert_allclose(x.numpy(), [1.0, 2.0])


def test_global_buffer_updated_with_traced_value_cannot_escape():
    buf = paddle.zeros([2], dtype="float64")

    def f(x):
        buf[0] = paddle.sum(x)
        return paddle.sum(x * x)

    paddle.grad(f)(t([1.0, 2.0]))
    with pytest.raises(EscapedTracerError):
        buf + 1.0


def test_random_fills_in_place_have_their_distributions():
    paddle.seed(7)
    n = 20000
    x = paddle.zeros([n], dtype="float64")
    assert x.normal_(mean=2.0, std=0.5) is x
    assert abs(x.mean().item() - 2.0) < 0.02 and abs(x.std().item() - 0.5) < 0.02
    b = paddle.zeros([n]).bernoulli_(0.3).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.02
    g = paddle.zeros([n], dtype="float64").geometric_(0.25).numpy()
    assert g.min() == 1 and np.all(g == np.round(g)) and abs(g.mean() - 4.0) < 0.15  # mean 1/p
    c = paddle.zeros([n], dtype="float64").cauchy_(loc=1.0, scale=2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.15  # quartiles loc -+ scale
    ln = paddle.zeros([n], dtype="float64").log_normal_(mean=0.5, std=0.25).numpy()
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.02 and abs(np.log(ln).std() - 0.25) < 0.02
