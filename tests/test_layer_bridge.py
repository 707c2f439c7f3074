"""Running a Layer as a pure function (functional_call / split / merge / update_state) under grad, vmap and jit,
and the eager tape on Layers: loss.backward() fills every parameter's grad with the functional gradient."""
import numpy as np
import pytest

import paddle_fn as paddle

nn = paddle.nn
F = paddle.nn.functional


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 2)
        self.register_buffer("calls", paddle.zeros([1]))

    def forward(self, x):
        self.calls = self.calls + 1  # a buffer update, like running statistics
        return self.fc2(F.tanh(self.fc1(x)))


def _by_hand(p, x):
    """The same network written as a function of the parameter dict."""
    h = paddle.tanh(x @ p["fc1.weight"] + p["fc1.bias"])
    return h @ p["fc2.weight"] + p["fc2.bias"]


@pytest.fixture
def setup():
    paddle.seed(0)
    net = MLP()
    x = paddle.to_tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3))
    return net, dict(net.named_parameters()), x


def test_functional_call_equals_hand_written_and_leaves_layer_unchanged(setup):
    net, params, x = setup
    before = {k: v.numpy() for k, v in net.state_dict().items()}
    np.testing.assert_allclose(nn.functional_call(net, params, x).numpy(), _by_hand(params, x).numpy(), rtol=1e-6)
    zero = {k: paddle.zeros_like(v) for k, v in params.items()}
    assert float(nn.functional_call(net, zero, x).abs().sum()) == 0.0
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])  # parameters and the buffer are untouched
    out, new_buffers = nn.functional_call(net, params, x, return_buffers=True)
    assert list(new_buffers) == ["calls"] and new_buffers["calls"].numpy().tolist() == [1.0]
    nn.update_state(net, new_buffers)
    assert net.calls.numpy().tolist() == [1.0]
    with pytest.raises(KeyError, match="unknown name"):
        nn.functional_call(net, {"fc3.weight": params["fc1.weight"]}, x)
    with pytest.raises(KeyError, match="no value given"):
        nn.functional_call(net, {}, x, strict=True)


def test_grad_vmap_jit_of_functional_call(setup):
    net, params, x = setup

    def loss(p, x):
        return (nn.functional_call(net, p, x) ** 2).mean()

    def loss_by_hand(p, x):
        return (_by_hand(p, x) ** 2).mean()

    g, want = paddle.grad(loss)(params, x), paddle.grad(loss_by_hand)(params, x)
    assert sorted(g) == sorted(params)
    for k in params:
        np.testing.assert_allclose(g[k].numpy(), want[k].numpy(), rtol=1e-5, atol=1e-7)
    per_example = paddle.vmap(lambda xi: nn.functional_call(net, params, xi[None])[0])(x)
    np.testing.assert_allclose(per_example.numpy(), net(x).numpy(), rtol=1e-6)
    jitted = paddle.jit(loss)
    np.testing.assert_allclose(float(jitted(params, x)), float(loss_by_hand(params, x)), rtol=1e-6)


def test_split_merge_round_trip_under_jit(setup):
    net, _, x = setup
    structure, params, buffers = nn.split(net)
    assert structure.param_names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert structure.buffer_names == ["calls"]

    @paddle.jit
    def predict(params, buffers, x):
        return nn.merge(structure, params, buffers)(x)

    np.testing.assert_allclose(predict(params, buffers, x).numpy(), _by_hand(params, x).numpy(), rtol=1e-6)
    with pytest.raises(KeyError, match="no value given"):
        nn.merge(structure, {}, buffers)


def test_update_state_rejects_bad_values(setup):
    net, _, _ = setup
    with pytest.raises(paddle.ShapeError, match="has shape \\[2\\] but the value has shape \\[3\\]"):
        nn.update_state(net, {"fc2.bias": paddle.zeros([3])})
    with pytest.raises(paddle.DTypeError, match="float32"):
        nn.update_state(net, {"fc2.bias": paddle.zeros([2], "float64")})


def test_parameters_are_trainable_leaves():
    fc = nn.Linear(2, 2)
    assert all(p.is_leaf and not p.stop_gradient for p in fc.parameters())
    frozen = nn.Linear(2, 2, weight_attr=nn.ParamAttr(trainable=False))
    assert frozen.weight.stop_gradient and not frozen.bias.stop_gradient


# --------------------------------------------------------------------------------------------- the eager tape


def test_backward_fills_grads_equal_to_functional_grad(setup):
    net, params, x = setup
    loss = (net(x) ** 2).mean()
    loss.backward()
    want = paddle.grad(lambda p: (nn.functional_call(net, p, x) ** 2).mean())(
        {k: v.detach() for k, v in params.items()})
    for name, p in net.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape
        np.testing.assert_allclose(p.grad.numpy(), want[name].numpy(), rtol=1e-5, atol=1e-7)
    assert net.calls.grad is None  # buffers are not leaves of the loss


def test_backward_accumulates_and_clear_gradients_resets(setup):
    net, _, x = setup
    net(x).sum().backward()
    first = {n: p.grad.numpy().copy() for n, p in net.named_parameters()}
    net(x).sum().backward()
    for n, p in net.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), 2 * first[n], rtol=1e-6)
    net.clear_gradients()
    assert all(not p.grad.numpy().any() for p in net.parameters())
    net.clear_gradients(set_to_zero=False)
    assert all(p.grad is None for p in net.parameters())
    net(x).sum().backward()
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_frozen_parameter_gets_no_grad_and_conversion_stays_untracked(setup):
    net, _, x = setup
    net.fc1.weight.trainable = False
    net(x).sum().backward()
    assert net.fc1.weight.grad is None and net.fc1.bias.grad is not None
    net.to(dtype="float64")  # converting a trainable leaf is not an in-place op on the tape
    assert net.fc2.weight.dtype == paddle.float64 and net.fc2.weight.is_leaf
    with paddle.no_grad():
        out = net(x.astype("float64"))
    assert out.stop_gradient
