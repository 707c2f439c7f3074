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
