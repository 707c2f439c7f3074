"""logaddexp, hypot, heaviside, sinc, sgn, isin and the float-representation functions: against numpy on the
edge values (signed zeros, subnormals, infinities, nan, the ends of the range), in float32 and float64, with the
dtypes Paddle 3.3.1 gives, and under grad, jit and vmap."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError

T = paddle.to_tensor
EDGES = [-3.0, -0.0, 0.0, 0.3, 8.0, 1e-40, np.inf, -np.inf, np.nan, 5e37, 3.4e38, -1.5, 1.0, 2.0 ** -126]
OTHER = [1.0, -1.0, 5.0, -5.0, 0.0, 0.0, 0.0, -np.inf, 1.0, np.inf, 0.0, -1.5, 2.0, -0.0]


def _same(got, want):
    got = got.numpy() if hasattr(got, "numpy") else got
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)  # nan matches nan; -0.0 vs 0.0 is checked through signbit below


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_representation_functions_are_numpys_bit_for_bit(dtype):
    a, b = np.array(EDGES, dtype), np.array(OTHER, dtype)
    _same(paddle.signbit(T(a)), np.signbit(a))
    _same(paddle.copysign(T(a), T(b)), np.copysign(a, b))
    _same(paddle.signbit(paddle.copysign(T(a), T(b))), np.signbit(np.copysign(a, b)))
    _same(paddle.nextafter(T(a), T(b)), np.nextafter(a, b))
    m, e = paddle.frexp(T(a))
    nm, ne = np.frexp(a)
    _same(m, nm)
    _same(e, ne.astype(dtype))  # Paddle gives the exponent in x's dtype
    k = np.array([2, -3, 0, 5, -126, 130, 1, 1, 1, -2, -1, 3, 0, 127], np.int32)
    _same(paddle.ldexp(T(a), T(k)), np.ldexp(a, k))
    _same(paddle.isposinf(T(a)), np.isposinf(a))
    _same(paddle.isneginf(T(a)), np.isneginf(a))
    _same(paddle.isreal(T(a)), np.isreal(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_hypot_heaviside_sinc_are_numpys(dtype):
    a, b = np.array(EDGES, dtype), np.array(OTHER, dtype)
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(paddle.logaddexp(T(a), T(b)).numpy(), np.logaddexp(a, b), rtol=rtol)
    np.testing.assert_allclose(paddle.hypot(T(a), T(b)).numpy(), np.hypot(a, b), rtol=rtol)
    _same(paddle.heaviside(T(a), T(b)), np.heaviside(a, b))
    finite = a[np.isfinite(a) & (np.abs(a) < 1e6)]
    np.testing.assert_allclose(paddle.sinc(T(finite)).numpy(), np.sinc(finite), rtol=rtol, atol=1e-7)
    _same(paddle.sgn(T(a)), np.sign(a))


def test_dtypes_follow_paddle():
    i = T([1, -2, 3], "int32")
    assert paddle.copysign(i, i).dtype == paddle.int32 and paddle.copysign(i, T([-1, 1, 1], "int32")).tolist() == \
        [-1, 2, 3]
    assert paddle.heaviside(i, i).tolist() == [1, 0, 1] and paddle.heaviside(i, i).dtype == paddle.int32
    assert paddle.signbit(i).tolist() == [False, True, False] and paddle.signbit(T([1], "uint8")).tolist() == [False]
    assert paddle.isposinf(i).tolist() == [False] * 3
    for fn in (paddle.logaddexp, paddle.hypot, paddle.ldexp):
        assert fn(i, i).dtype == paddle.float32, fn  # Paddle computes these in float for integer inputs
    assert paddle.sinc(i).dtype == paddle.float32
    assert paddle.ldexp(T([1.0, 2.0], "float64"), T([2, 3])).dtype == paddle.float64
    np.testing.assert_allclose(paddle.logaddexp(i, i).numpy(), np.logaddexp([1.0, -2.0, 3.0], [1.0, -2.0, 3.0]),
                               rtol=1e-6)


def test_isin_is_numpys():
    x = np.array([[1, 2, 3], [4, 5, 6]])
    t = np.array([6, 2, 9, 2])
    _same(paddle.isin(T(x), T(t)), np.isin(x, t))
    _same(paddle.isin(T(x), T(t), invert=True), np.isin(x, t, invert=True))
    _same(paddle.isin(T([1.0, 2.5]), T([2.5], "float64")), np.array([False, True]))
    _same(paddle.isin(T(3), T([[1, 3]])), np.bool_(True))


def test_gradients():
    x, y = T([0.5, -1.0, 3.0], "float64"), T([2.0, -1.0, -4.0], "float64")
    gx, gy = paddle.grad(lambda a, b: paddle.logaddexp(a, b).sum(), argnums=(0, 1))(x, y)
    soft = np.exp(x.numpy()) / (np.exp(x.numpy()) + np.exp(y.numpy()))
    np.testing.assert_allclose(gx.numpy(), soft, rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), 1 - soft, rtol=1e-12)
    gx, gy = paddle.grad(lambda a, b: paddle.hypot(a, b).sum(), argnums=(0, 1))(x, y)
    h = np.hypot(x.numpy(), y.numpy())
    np.testing.assert_allclose(gx.numpy(), x.numpy() / h, rtol=1e-12)
    np.testing.assert_allclose(gy.numpy(), y.numpy() / h, rtol=1e-12)
    g = paddle.grad(lambda a: paddle.sinc(a).sum())(T([0.0, 0.25], "float64")).numpy()
    z = np.pi * 0.25
    np.testing.assert_allclose(g, [0.0, np.pi * (np.cos(z) * z - np.sin(z)) / z ** 2], atol=1e-12)
    g = paddle.grad(lambda a: paddle.copysign(a, T([-1.0, 1.0, 1.0], "float64")).sum())(x).numpy()
    np.testing.assert_allclose(g, [-1.0, -1.0, 1.0])


def test_jit_and_vmap_agree_with_eager():
    a = T(np.array([-3.0, 0.3, 8.0, 1e30, -2.5], np.float32))
    b = T(np.array([1.0, -1.0, 5.0, 1e30, 0.0], np.float32))

    def f(x, y):
        m, e = paddle.frexp(x)
        return (paddle.logaddexp(x, y), paddle.hypot(x, y), paddle.copysign(x, y), m, e, paddle.ldexp(m, e),
                paddle.nextafter(x, y), paddle.isin(x, y), paddle.heaviside(x, y))
    for got, want in zip(paddle.jit(f)(a, b), f(a, b), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6)
    small = T(np.array([-3.0, 0.0, 0.3, 8.0, -2.5], np.float32))  # IREE's CPU sin is inaccurate for large x
    np.testing.assert_allclose(paddle.jit(paddle.sinc)(small).numpy(), paddle.sinc(small).numpy(), atol=1e-6)
    rows = np.array([[1.0, -2.0], [0.0, 4.0]], np.float32)
    batched = paddle.vmap(lambda r: paddle.copysign(paddle.hypot(r, r), -r))(T(rows))
    np.testing.assert_allclose(batched.numpy(), np.copysign(np.hypot(rows, rows), -rows))


def test_complex_inputs_are_refused():
    with pytest.raises(DTypeError, match="hypot: complex numbers are not supported"):
        paddle.hypot(T(np.array([1 + 1j])), T([1.0]))
