"""paddle.nn.initializer: exact formulas (fans, gains, bounds) and sample statistics, checked against Paddle."""
import math

import numpy as np
import pytest

import paddle_fn as paddle

I = paddle.nn.initializer


def _param(shape, init, dtype="float32"):
    return paddle.nn.create_parameter(shape, dtype, default_initializer=init).numpy()


@pytest.mark.parametrize("shape, fans", [([], (1, 1)), ([7], (7, 7)), ([3, 5], (3, 5)),
                                         ([8, 4, 3, 3], (36, 72)), ([6, 2, 5], (10, 30))])
def test_fans_follow_paddle(shape, fans):
    assert I.Initializer()._compute_fans(shape) == fans


def test_calculate_gain_values_and_errors():
    assert [I.calculate_gain(n) for n in ("sigmoid", "linear", "conv2d", "conv_transpose2d")] == [1, 1, 1, 1]
    assert I.calculate_gain("tanh") == 5.0 / 3 and I.calculate_gain("relu") == math.sqrt(2.0)
    assert I.calculate_gain("selu") == 0.75
    assert I.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert I.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    with pytest.raises(ValueError, match="'foo' is not supported"):
        I.calculate_gain("foo")


def test_constant_assign_and_defaults():
    np.testing.assert_array_equal(_param([2, 3], I.Constant(1.5)), np.full([2, 3], 1.5, np.float32))
    value = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(_param([2, 3], I.Assign(value)), value.astype(np.float32))
    np.testing.assert_array_equal(_param([2, 3], I.Assign(paddle.to_tensor(value))), value.astype(np.float32))
    with pytest.raises(ValueError, match="has shape \\[2, 3\\] but the parameter has shape \\[3, 2\\]"):
        _param([3, 2], I.Assign(value))
    bias = paddle.nn.create_parameter([4], "float32", is_bias=True).numpy()
    np.testing.assert_array_equal(bias, np.zeros(4, np.float32))  # default bias: zeros
    ints = paddle.nn.create_parameter([4], "int64").numpy()
    assert ints.dtype == np.int64 and not ints.any()  # integer parameters are zeros too


@pytest.mark.parametrize("shape", [[400, 300], [64, 32, 3, 3]])
def test_xavier_uniform_and_normal_scale(shape):
    paddle.seed(11)
    fan_in, fan_out = I.Initializer()._compute_fans(shape)
    w = _param(shape, I.XavierUniform(gain=2.0))
    limit = 2.0 * math.sqrt(6.0 / (fan_in + fan_out))
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    np.testing.assert_allclose(w.std(), limit / math.sqrt(3), rtol=0.03)
    w = _param(shape, I.XavierNormal(fan_in=10, fan_out=40))
    np.testing.assert_allclose(w.std(), math.sqrt(2.0 / 50), rtol=0.03)
    np.testing.assert_allclose(w.mean(), 0.0, atol=0.01)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_scale(mode):
    paddle.seed(12)
    shape = [64, 32, 3, 3]
    fan = 32 * 9 if mode == "fan_in" else 64 * 9
    w = _param(shape, I.KaimingNormal(mode=mode))
    np.testing.assert_allclose(w.std(), math.sqrt(2.0 / fan), rtol=0.03)
    gain = math.sqrt(2.0 / (1 + 0.2 ** 2))
    w = _param(shape, I.KaimingUniform(negative_slope=0.2, nonlinearity="leaky_relu", mode=mode))
    limit = gain * math.sqrt(3.0 / fan)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = _param([100, 50], I.KaimingNormal(fan_in=8, nonlinearity="tanh"))
    np.testing.assert_allclose(w.std(), 5.0 / 3 / math.sqrt(8), rtol=0.05)
    with pytest.raises(ValueError, match="mode must be"):
        I.KaimingNormal(mode="fan")


def test_normal_uniform_truncated_statistics_and_seed():
    paddle.seed(5)
    w = _param([300, 300], I.Normal(mean=1.0, std=0.5))
    np.testing.assert_allclose([w.mean(), w.std()], [1.0, 0.5], atol=0.01)
    w = _param([300, 300], I.Uniform(low=-2.0, high=4.0))
    assert w.min() >= -2.0 and w.max() < 4.0
    np.testing.assert_allclose(w.mean(), 1.0, atol=0.03)  # 5 standard errors of the mean
    np.testing.assert_allclose(w.std(), 6 / math.sqrt(12), rtol=0.01)
    w = _param([300, 300], I.TruncatedNormal(mean=0.5, std=1.0, a=-0.5, b=2.5))
    assert w.min() >= -0.5 and w.max() <= 2.5
    # the mean of N(0.5, 1) truncated to [-0.5, 2.5]: mu + sigma * (phi(alpha) - phi(beta)) / (Phi(beta) - Phi(alpha))
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    np.testing.assert_allclose(w.mean(), 0.5 + (phi(-1) - phi(2)) / (cdf(2) - cdf(-1)), atol=0.01)
    paddle.seed(7)
    a = _param([4, 4], I.Normal())
    paddle.seed(7)
    np.testing.assert_array_equal(a, _param([4, 4], I.Normal()))
    with pytest.raises(ValueError, match="low must be less than high"):
        I.Uniform(1.0, 0.0)


def test_orthogonal_dirac_bilinear():
    w = _param([3, 5], I.Orthogonal(gain=2.0))
    np.testing.assert_allclose(w @ w.T, 4.0 * np.eye(3), atol=1e-5)
    w = _param([6, 2, 2], I.Orthogonal())  # rows > cols: orthonormal columns of the [6, 4] matrix
    m = w.reshape(6, 4)
    np.testing.assert_allclose(m.T @ m, np.eye(4), atol=1e-5)
    # Dirac and Bilinear equal what Paddle 3.3.1 produces
    assert np.argwhere(_param([6, 2, 3, 3], I.Dirac(groups=3))).tolist() == [
        [0, 0, 1, 1], [1, 1, 1, 1], [2, 0, 1, 1], [3, 1, 1, 1], [4, 0, 1, 1], [5, 1, 1, 1]]
    np.testing.assert_allclose(_param([1, 1, 4, 4], I.Bilinear()).ravel()[:8],
                               [0.0625, 0.28125, 0.375, 0.15625, 0.1875, 0.65625, 0.75, 0.21875])
    with pytest.raises(ValueError, match="divisible by groups"):
        _param([5, 2, 3], I.Dirac(groups=2))


def test_initializer_call_and_half_precision():
    p = paddle.nn.Parameter([2, 2], "float16")
    assert I.Constant(2.0)(p) is p and p.dtype == paddle.float16 and p.numpy().tolist() == [[2.0, 2.0]] * 2
    assert _param([8, 8], I.XavierNormal(), "bfloat16").dtype.name == "bfloat16"


def test_set_global_initializer_and_param_attr_precedence():
    try:
        I.set_global_initializer(I.Constant(0.5), I.Constant(-1.0))
        fc = paddle.nn.Linear(2, 2)
        assert fc.weight.numpy().tolist() == [[0.5, 0.5]] * 2 and fc.bias.numpy().tolist() == [-1.0, -1.0]
        fc = paddle.nn.Linear(2, 2, weight_attr=I.Constant(3.0))  # a ParamAttr's initializer wins
        assert fc.weight.numpy().tolist() == [[3.0, 3.0]] * 2
    finally:
        I.set_global_initializer(None)
    assert paddle.nn.Linear(2, 2).bias.numpy().tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="weight_init must be"):
        I.set_global_initializer("normal")
