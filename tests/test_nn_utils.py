"""paddle.nn.utils: gradients clipped in place as Paddle 3.3 clips them (the numbers below are paddlepaddle 3.3.1's
for the same Linear layer and loss), and parameters to one vector and back."""
import math

import numpy as np
import pytest

import paddle_fn as paddle

RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 2)).astype("float32")
B = RNG.standard_normal(2).astype("float32")
X = RNG.standard_normal((4, 3)).astype("float32")


def _layer_after_backward():
    layer = paddle.nn.Linear(3, 2)
    layer.weight.set_value(W)
    layer.bias.set_value(B)
    (layer(paddle.to_tensor(X)) ** 3).sum().backward()
    return layer


@pytest.mark.parametrize("norm_type, total, weight, bias", [
    (2.0, 16.22834014892578, [-0.23984963, -0.23479575, -0.12969084], [0.31451932, 0.45748800]),
    (1.0, 39.755157470703125, [-0.09790836, -0.09584532, -0.05294074], [0.12838906, 0.18674991]),
    (0.0, 2.0, [-1.94617999, -1.90517199, -1.05233324], [2.55206251, 3.71213412]),
    (math.inf, 10.60610294342041, [-0.36699265, -0.35925972, -0.19843927], [0.48124436, 0.69999993])])
def test_clip_grad_norm_scales_the_gradients_in_place_as_paddle(norm_type, total, weight, bias):
    layer = _layer_after_backward()
    got = paddle.nn.utils.clip_grad_norm_(layer.parameters(), 0.7, norm_type=norm_type)
    assert got.shape == [] and got.stop_gradient
    np.testing.assert_allclose(float(got), total, rtol=1e-5)
    np.testing.assert_allclose(layer.weight.grad.numpy().ravel()[:3], weight, rtol=1e-5)
    np.testing.assert_allclose(layer.bias.grad.numpy(), bias, rtol=1e-5)


def test_clip_grad_norm_edge_cases():
    layer = _layer_after_backward()
    before = layer.bias.grad.numpy()
    paddle.nn.utils.clip_grad_norm_(layer.bias, 1e6)  # one Tensor; under the bound: unchanged
    np.testing.assert_allclose(layer.bias.grad.numpy(), before, rtol=1e-6)
    assert float(paddle.nn.utils.clip_grad_norm_(paddle.nn.Linear(2, 2).parameters(), 1.0)) == 0.0  # no gradients
    with pytest.raises(ValueError, match="norm_type must be inf, 0, 1 or 2"):
        paddle.nn.utils.clip_grad_norm_(layer.parameters(), 1.0, norm_type=3)
    layer.bias.grad.set_value(paddle.to_tensor([np.nan, 1.0]))
    with pytest.raises(RuntimeError, match="the total 2-norm of the gradients is nan"):
        paddle.nn.utils.clip_grad_norm_(layer.parameters(), 1.0, error_if_nonfinite=True)
    with pytest.raises(TypeError, match="an iterable of Tensors"):
        paddle.nn.utils.clip_grad_norm_([layer.weight, 3.0], 1.0)


def test_clip_grad_value_clamps_in_place():
    layer = _layer_after_backward()
    paddle.nn.utils.clip_grad_value_(layer.parameters(), 0.3)
    np.testing.assert_allclose(layer.weight.grad.numpy().ravel(), [-0.3, -0.3, -0.3, -0.3, 0.3, 0.3])
    np.testing.assert_allclose(layer.bias.grad.numpy(), [0.3, 0.3])


def test_parameters_to_vector_and_back():
    layer = paddle.nn.Linear(3, 2)
    vec = paddle.nn.utils.parameters_to_vector(layer.parameters())
    np.testing.assert_array_equal(vec.numpy(), np.concatenate([layer.weight.numpy().ravel(), layer.bias.numpy()]))
    paddle.nn.utils.vector_to_parameters(paddle.arange(9, dtype="float32"), layer.parameters())  # one spare element
    np.testing.assert_array_equal(layer.weight.numpy(), np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(layer.bias.numpy(), [6, 7])
    assert not layer.weight.stop_gradient  # still a trainable parameter
    with pytest.raises(ValueError, match="vec has 5 elements but the parameters hold 8"):
        paddle.nn.utils.vector_to_parameters(paddle.ones([5]), layer.parameters())
    with pytest.raises(ValueError, match="must be a 1-D Tensor"):
        paddle.nn.utils.vector_to_parameters(paddle.ones([2, 4]), layer.parameters())


def test_clipping_between_backward_and_step_trains():
    layer = _layer_after_backward()
    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=layer.parameters())
    paddle.nn.utils.clip_grad_norm_(layer.parameters(), 0.5)
    w = layer.weight.numpy().copy()
    opt.step()
    moved = np.sqrt(((layer.weight.numpy() - w) ** 2).sum() + 0.0)
    assert 0 < moved <= 0.5 + 1e-6


def _linear(seed=1):
    layer = paddle.nn.Linear(3, 2)
    layer.weight.set_value(np.random.default_rng(seed).standard_normal((3, 2)).astype("float32"))
    return layer


def test_weight_norm_keeps_the_function_and_names_the_parameters_as_paddle():
    x = paddle.to_tensor(X)
    for dim, g_shape in ((0, [3]), (1, [2]), (None, []), (-1, [])):
        layer = _linear()
        want = layer(x).numpy()
        paddle.nn.utils.weight_norm(layer, dim=dim)
        assert list(layer.state_dict()) == ["bias", "weight_v", "weight_g"] and layer.weight_g.shape == g_shape
        np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-5, atol=1e-6)
    conv = paddle.nn.utils.weight_norm(paddle.nn.Conv2D(3, 4, 3), dim=2)
    norms = np.sqrt((conv.weight_v.numpy() ** 2).sum(axis=(0, 1, 3)))
    np.testing.assert_allclose(conv.weight_g.numpy(), norms, rtol=1e-5)


def test_weight_norm_trains_magnitude_and_direction_and_is_removed():
    layer = paddle.nn.utils.weight_norm(_linear())
    g, v = layer.weight_g.numpy().copy(), layer.weight_v.numpy().copy()
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())

    @paddle.jit.to_static
    def step(x):
        loss = (layer(x) ** 2).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    step(paddle.to_tensor(X))
    assert np.abs(layer.weight_g.numpy() - g).max() > 1e-4 and np.abs(layer.weight_v.numpy() - v).max() > 1e-4
    weight = layer.weight_g.numpy()[:, None] * layer.weight_v.numpy() / np.linalg.norm(layer.weight_v.numpy(),
                                                                                        axis=1, keepdims=True)
    paddle.nn.utils.remove_weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"] and not layer._forward_pre_hooks
    np.testing.assert_allclose(layer.weight.numpy(), weight, rtol=1e-5)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        paddle.nn.utils.remove_weight_norm(layer)
    paddle.nn.utils.weight_norm(layer)
    with pytest.raises(RuntimeError, match="already weight normalized"):
        paddle.nn.utils.weight_norm(layer)
    with pytest.raises(ValueError, match=r"dim must lie in \[-2, 2\)"):
        paddle.nn.utils.weight_norm(_linear(), dim=2)


def _power_iteration(w, u, v, steps):
    for _ in range(steps):
        v = w.T @ u / max(np.linalg.norm(w.T @ u), 1e-12)
        u = w @ v / max(np.linalg.norm(w @ v), 1e-12)
    return u, v, u @ w @ v


def test_spectral_norm_divides_by_the_power_iterations_estimate_as_paddle():
    layer = paddle.nn.utils.spectral_norm(_linear(), n_power_iterations=2)  # Linear: rows along dim 1
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert layer.weight_u.shape == [2] and layer.weight_v.shape == [3]
    u0, v0 = np.array([0.6, 0.8], "float32"), np.array([1.0, 0.0, 0.0], "float32")
    layer.weight_u.set_value(paddle.to_tensor(u0))
    layer.weight_v.set_value(paddle.to_tensor(v0))
    w = layer.weight_orig.numpy()
    u, v, sigma = _power_iteration(w.T, u0, v0, 2)
    np.testing.assert_allclose(layer(paddle.to_tensor(X)).numpy(), X @ (w / sigma) + layer.bias.numpy(), rtol=1e-5)
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-5)  # moved by the training call
    layer.eval()
    layer(paddle.to_tensor(X))
    np.testing.assert_allclose(layer.weight_u.numpy(), u, rtol=1e-5)  # not in eval mode
    conv = paddle.nn.utils.spectral_norm(paddle.nn.Conv2DTranspose(3, 4, 3))
    assert conv.weight_u.shape == [4] and conv.weight_v.shape == [27]  # rows along the output features
    with pytest.raises(ValueError, match="n_power_iterations must be positive"):
        paddle.nn.utils.spectral_norm(_linear(), n_power_iterations=0)
    with pytest.raises(RuntimeError, match="already spectrally normalized"):
        paddle.nn.utils.spectral_norm(layer)
