"""Scalars are 0-D Tensors, as in Paddle 3.x, numpy and JAX: eagerly and under every transform; functions that
need a scalar still accept Paddle 2.3's one-element [1]; FLAGS_set_to_1d serves code that indexes .numpy()[0]."""
import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn.incubate.autograd import Hessian

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)


def _scalars(x):
    """Every kind of op that gives a single value."""
    logits, labels = x, paddle.to_tensor([0, 2])
    return {
        "sum": paddle.sum(x), "mean": x.mean(), "max": x.max(), "prod": paddle.prod(x), "std": paddle.std(x),
        "logsumexp": paddle.logsumexp(x), "norm": paddle.linalg.norm(x), "index": x[0, 1], "row_index": x[1][0],
        "dot": paddle.dot(x[0], x[1]), "matmul_vv": paddle.matmul(x[0], x[1]), "trace": paddle.trace(x[:, :2]),
        "einsum": paddle.einsum("ij,ij", x, x), "median": paddle.median(x),
        "cross_entropy": F.cross_entropy(logits, labels), "mse_loss": F.mse_loss(x, x * 0.5),
        "kl_div": F.kl_div(F.log_softmax(x), F.softmax(x * 2.0), reduction="batchmean"),
        "bce_logits": F.binary_cross_entropy_with_logits(x, paddle.ones_like(x)),
    }


def test_every_single_value_is_0d_eagerly():
    x = paddle.to_tensor(X)
    for name, out in _scalars(x).items():
        assert out.shape == [], name
        assert out.numpy().shape == (), name
        assert float(np.asarray(out)) == float(out)  # what failed with numpy >= 2.4 under the [1] rule
    assert paddle.to_tensor(3.0).shape == [] and paddle.to_tensor([3.0]).shape == [1]
    assert paddle.sum(x, keepdim=True).shape == [1, 1] and paddle.sum(x, axis=1).shape == [2]
    assert paddle.argmax(x).shape == [] and paddle.numel(x).shape == [] and paddle.rank(x).shape == []
    assert paddle.allclose(x, x).shape == [] and paddle.equal_all(x, x).shape == []
    assert paddle.softmax(paddle.to_tensor(2.0)).shape == []


def test_0d_under_jit_vmap_and_grad():
    x = paddle.to_tensor(X)
    eager = _scalars(x)
    jitted = paddle.jit(_scalars)(x)
    for name in eager:
        assert jitted[name].shape == [], name
        np.testing.assert_allclose(jitted[name].numpy(), eager[name].numpy(), rtol=2e-5, atol=1e-6)
    batched = paddle.vmap(_scalars)(paddle.to_tensor(np.stack([X, 2 * X])))
    for name in eager:
        assert batched[name].shape == [2], name
        np.testing.assert_allclose(batched[name].numpy()[0], eager[name].numpy(), rtol=2e-5, atol=1e-6)
    assert paddle.grad(lambda v: paddle.sum(v * v))(x).shape == [2, 3]
    assert paddle.jacrev(lambda v: paddle.sum(v * v))(x).shape == [2, 3]  # no spurious axis
    tree = paddle.jacrev(lambda p: {"s": paddle.sum(p["a"] ** 2)})({"a": x})
    assert tree["s"]["a"].shape == [2, 3]
    assert paddle.hessian(lambda v: paddle.sum(v ** 3))(x[0]).shape == [3, 3]


def test_scalar_consumers_accept_0d_and_one_element():
    x = paddle.to_tensor([1.0, 2.0])
    g0 = paddle.grad(lambda v: paddle.sum(v * v))(x)
    g1 = paddle.grad(lambda v: paddle.sum(v * v, keepdim=True))(x)
    np.testing.assert_array_equal(g0.numpy(), g1.numpy())
    h1 = paddle.hessian(lambda v: paddle.sum(v ** 3, keepdim=True))(x)
    assert h1.shape == [2, 2]
    for pred in (paddle.sum(x) > 0, paddle.sum(x, keepdim=True) > 0):
        assert paddle.cond(pred, lambda v: v * 2.0, lambda v: -v, x).numpy().tolist() == [2.0, 4.0]
    for reduce in (paddle.sum, lambda v: paddle.sum(v, keepdim=True)):
        H = Hessian(lambda v: reduce(v ** 3), x)
        np.testing.assert_allclose(H[:].numpy(), np.diag([6.0, 12.0]))
        assert H[0, 0].shape == []


def test_set_to_1d_flag_changes_numpy_only():
    loss = paddle.mean(paddle.to_tensor([1.0, 3.0]))
    assert paddle.get_flags("FLAGS_set_to_1d") == {"FLAGS_set_to_1d": False}
    paddle.set_flags({"FLAGS_set_to_1d": True})
    try:
        assert loss.numpy().shape == (1,) and loss.numpy()[0] == 2.0
        assert loss.shape == [] and loss.item() == 2.0
        assert paddle.to_tensor([1.0, 2.0]).numpy().shape == (2,)
    finally:
        paddle.set_flags({"FLAGS_set_to_1d": False})
    assert loss.numpy().shape == ()


def test_flags_reject_unknown_names_and_values():
    with pytest.raises(ValueError, match="FLAGS_not_a_flag.*FLAGS_set_to_1d"):
        paddle.set_flags({"FLAGS_not_a_flag": True})
    with pytest.raises(ValueError, match="FLAGS_nope"):
        paddle.get_flags(["FLAGS_set_to_1d", "FLAGS_nope"])
    with pytest.raises(TypeError, match="dict"):
        paddle.set_flags("FLAGS_set_to_1d")
    with pytest.raises(TypeError, match="bool flag"):
        paddle.set_flags({"FLAGS_set_to_1d": "yes"})
    assert paddle.get_flags("FLAGS_set_to_1d") == {"FLAGS_set_to_1d": False}


def test_device_queries():
    assert paddle.is_compiled_with_cuda() == bool(paddle.devices("cuda"))
    assert paddle.device.is_compiled_with_rocm() == bool(paddle.devices("rocm"))
    assert paddle.is_compiled_with_xpu() is False


def test_a_0d_tensor_formats_as_its_python_scalar_as_paddle():
    # Paddle 3.3.1: '{}'.format(paddle.to_tensor(3.5)) is '3.5', f'{t:.2f}' is '3.50'; a vector refuses a spec
    loss = paddle.to_tensor(3.5)
    assert ("{}".format(loss), f"{loss:.2f}", f"{loss:>6}", format(paddle.to_tensor(3), "d")) == (
        "3.5", "3.50", "   3.5", "3")
    assert "{}".format(paddle.to_tensor([1.5])).startswith("Tensor(shape=[1]")
    with pytest.raises(TypeError, match="needs a 0-D Tensor"):
        f"{paddle.to_tensor([1.5, 2.5]):.2f}"
    seen = []
    paddle.jit(lambda x: seen.append(f"{x}") or x * 2)(paddle.to_tensor(1.0))  # traced: its repr, no error
    assert seen[0].startswith("Traced<f32[]>")
