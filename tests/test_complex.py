"""Complex numbers through the Tensor API, promotion, printing, the functional transforms (JAX's conventions), the
eager tape (Paddle's) and jit. Expected values are literals measured with numpy 2.4, JAX 0.10.2 (x64) and Paddle
3.3.1 (CPU), as each comment says."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError, TransformError

Z0 = 3 + 4j


def c128(v):
    return paddle.to_tensor(v, dtype="complex128")


# ----------------------------------------------------------------------------------------------- values

def test_issue_examples_keep_the_imaginary_part():
    z = paddle.to_tensor(Z0)
    np.testing.assert_allclose(paddle.sin(z).numpy(), np.sin(np.complex64(Z0)), rtol=1e-6)
    np.testing.assert_allclose(paddle.exp(c128(1j * np.pi)).numpy(), -1, atol=1e-15)
    assert (z * 1j).numpy() == np.complex64(-4 + 3j)
    assert paddle.abs(z).dtype == paddle.float32 and float(paddle.abs(z)) == 5.0


def test_promotion_gives_complex_of_the_matching_width():
    x32, x64 = paddle.to_tensor([1.5, -2.0]), paddle.to_tensor([1.5, -2.0], dtype="float64")
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    assert (x32 * 1j).dtype == paddle.complex64 and (x64 * 1j).dtype == paddle.complex128
    assert (x64 + z).dtype == paddle.complex128 and (paddle.to_tensor([1, 2]) + z).dtype == paddle.complex64
    # Paddle 3.3.1: x + z == [4.5+4j, -3-2j]
    np.testing.assert_array_equal((x32 + z).numpy(), np.array([4.5 + 4j, -3 - 2j], np.complex64))


# Paddle 3.3.1, z = [3+4j, -1-2j] (complex64)
PADDLE_VALUES = {
    "sign": [0.60000002 + 0.80000001j, -0.44721359 - 0.89442718j],
    "angle": [0.92729521, -2.03444386],
    "sqrt": [2 + 1j, 0.78615141 - 1.27201962j],
    "reciprocal": [0.12 - 0.16j, -0.2 + 0.40000001j],
    "square": [-7 + 24j, -3 + 4j],
    "asinh": [2.29991412 + 0.91761684j, -1.46935165 - 1.06343997j],
    "acosh": [2.30550909 + 0.93681240j, 1.52857101 - 1.99787486j],
    "atanh": [0.11750092 + 1.40992105j, -0.17328680 - 1.17809725j],
    "log2": [2.32192802 + 1.33780420j, 1.16096401 - 2.93508196j],
    "exp": [-13.12878323 - 15.20078468j, -0.15309188 - 0.33451182j],
    "tanh": [1.00070965 + 0.00490826j, -1.16673625 + 0.24345821j],
    "sigmoid": [1.03207219 - 0.04019551j, -0.02141536 - 0.40343869j],
    "mean": 1 + 1j, "sum": 2 + 2j, "prod": 5 - 10j,
    "cumsum": [3 + 4j, 2 + 2j], "cumprod": [3 + 4j, 5 - 10j],
}


@pytest.mark.parametrize("name", sorted(PADDLE_VALUES))
def test_matches_paddle(name):
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    np.testing.assert_allclose(getattr(paddle, name)(z).numpy(), PADDLE_VALUES[name], rtol=2e-6, atol=1e-7)


def test_parts_and_construction_match_paddle():
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    x = paddle.to_tensor([1.5, -2.0])
    assert z.real().tolist() == [3.0, -1.0] and paddle.imag(z).tolist() == [4.0, -2.0]
    assert paddle.conj(z).tolist() == [3 - 4j, -1 + 2j] and paddle.conj(x).tolist() == [1.5, -2.0]
    np.testing.assert_allclose(paddle.angle(x).numpy(), [0, 3.14159274])  # Paddle 3.3.1
    assert paddle.as_real(z).tolist() == [[3, 4], [-1, -2]]
    assert paddle.as_complex(paddle.to_tensor([[1., 2.], [3., 4.]])).tolist() == [1 + 2j, 3 + 4j]
    np.testing.assert_allclose(paddle.polar(paddle.to_tensor([1., 2.]), paddle.to_tensor([0.5, 1.0])).numpy(),
                               [0.87758261 + 0.47942555j, 1.08060455 + 1.68294191j], rtol=1e-6)  # Paddle 3.3.1
    c = paddle.complex(paddle.to_tensor([1., 2.], dtype="float64"), paddle.to_tensor([0.5, 1.0], dtype="float64"))
    assert c.dtype == paddle.complex128 and c.tolist() == [1 + 0.5j, 2 + 1j]
    assert paddle.is_complex(z) and not paddle.is_complex(x)
    with pytest.raises(DTypeError, match="float32"):
        paddle.complex(paddle.to_tensor([1, 2]), paddle.to_tensor([0, 1]))


def test_nan_inf_tests_and_equality():
    w = paddle.to_tensor([complex(np.nan, 0), complex(0, np.inf), 1j])
    assert paddle.isnan(w).tolist() == [True, False, False]
    assert paddle.isinf(w).tolist() == [False, True, False]
    assert paddle.isfinite(w).tolist() == [False, False, True]
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    assert (z == z).tolist() == [True, True] and paddle.isclose(z, z + 1e-7).tolist() == [True, True]


def test_cast_to_real_keeps_the_real_part_and_ops_never_do():
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    assert z.astype("float32").tolist() == [3.0, -1.0] and paddle.cast(z, "int32").tolist() == [3, -1]
    np.testing.assert_allclose((1 / z).numpy(), [0.12 - 0.16j, -0.2 + 0.4j], rtol=1e-6)


@pytest.mark.parametrize("op", [
    lambda z: paddle.maximum(z, z), lambda z: z < z, lambda z: paddle.sort(z), lambda z: paddle.max(z),
    lambda z: paddle.argmax(z), lambda z: paddle.clip(z, 0, 1), lambda z: paddle.floor(z), lambda z: z // z,
    lambda z: z % z, lambda z: paddle.topk(z, 1), lambda z: paddle.logsumexp(z)])
def test_ordering_ops_refuse_complex(op):
    with pytest.raises(DTypeError, match="complex numbers have no order"):
        op(paddle.to_tensor([3 + 4j, -1 - 2j]))


def test_printing_matches_paddle():
    # Paddle 3.3.1's strings
    assert str(paddle.to_tensor([3 + 4j, -1 - 2j])).endswith(
        "[ (3.00000000+4.00000000j), (-1.00000000-2.00000000j)])")
    assert str(c128([[1.5 + 2j, 0j], [1e-5 - 3j, 100 + 0.25j]])).endswith(
        "[[(1.50000000+2.00000000j)  , (0.00000000+0.00000000j)  ],\n"
        "        [(0.00001000-3.00000000j)  , (100.00000000+0.25000000j)]])")
    assert str(paddle.to_tensor(Z0)).endswith("\n       (3.00000000+4.00000000j))")
    assert str(paddle.cumprod(paddle.to_tensor([3 + 4j, -1 - 2j]), dim=0)).endswith(
        "[(3.00000000+4.00000000j) , (5.00000000-10.00000000j)])")


def test_randn_complex_has_half_variance_parts():
    paddle.seed(0)
    r = paddle.randn([100000], dtype="complex64").numpy()
    assert r.dtype == np.complex64  # Paddle 3.3.1: var 0.5014 and 0.4991 per part
    assert abs(r.real.var() - 0.5) < 0.01 and abs(r.imag.var() - 0.5) < 0.01 and abs(r.mean()) < 0.01
    assert paddle.standard_normal([2], dtype="complex128").dtype == paddle.complex128
    u = paddle.rand([100000], dtype="complex64").numpy()  # Paddle 3.3.1: both parts uniform in [0, 1)
    assert u.dtype == np.complex64 and 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min()
    assert abs(u.real.mean() - 0.5) < 0.01 and abs(u.imag.mean() - 0.5) < 0.01


def test_long_complex_rows_wrap_as_paddle():
    z = paddle.to_tensor(np.array([-1.7270751 - 0.24999772j, -1.43944263 - 0.53879702j, 0.14534183 - 0.83336169j],
                                  np.complex64))
    assert str(z).endswith("[(-1.72707510-0.24999772j), (-1.43944263-0.53879702j),\n"
                           "         (0.14534183-0.83336169j)])")  # Paddle 3.3.1


# ----------------------------------------------------------------------------------------------- derivatives

# JAX 0.10.2 at z = 3+4j (jax.grad; holomorphic=True where marked)
JAX_GRADS = [
    (lambda z: paddle.abs(z) ** 2, False, 6 - 8j),
    (lambda z: paddle.real(z * z), False, 6 + 8j),
    (lambda z: paddle.abs(z), False, 0.6 - 0.8j),
    (lambda z: paddle.imag(z * z), False, 8 - 6j),
    (lambda z: paddle.angle(z), False, -0.16 - 0.12j),
    (paddle.sin, True, -27.034945603074224 - 3.851153334811777j),
    (lambda z: z * z, True, 6 + 8j),
]


@pytest.mark.parametrize("i", range(len(JAX_GRADS)))
def test_functional_grad_follows_jax(i):
    f, holomorphic, want = JAX_GRADS[i]
    np.testing.assert_allclose(paddle.grad(f, holomorphic=holomorphic)(c128(Z0)).numpy(), want, rtol=1e-14)
    np.testing.assert_allclose(paddle.jit(paddle.grad(f, holomorphic=holomorphic))(c128(Z0)).numpy(), want,
                               rtol=1e-12)


def test_functional_transforms_follow_jax():
    z = c128(Z0)
    # JAX 0.10.2: vjp of conj and of sin with cotangent 1+2j; jvp of abs with tangent 1+2j
    assert paddle.vjp(paddle.conj, z)[1](c128(1 + 2j))[0].item() == 1 - 2j
    np.testing.assert_allclose(paddle.vjp(paddle.sin, z)[1](c128(1 + 2j))[0].numpy(),
                               -19.33263893345067 - 57.921044540960224j, rtol=1e-14)
    np.testing.assert_allclose(paddle.jvp(paddle.abs, (z,), (c128(1 + 2j),))[1].numpy(), 2.2, rtol=1e-14)
    zz = c128([Z0, 1j])
    want = np.diag([-27.0349456 - 3.85115333j, 1.54308063])
    np.testing.assert_allclose(paddle.jacrev(paddle.sin, holomorphic=True)(zz).numpy(), want, rtol=1e-8)
    np.testing.assert_allclose(paddle.jacfwd(paddle.sin, holomorphic=True)(zz).numpy(), want, rtol=1e-8)
    np.testing.assert_allclose(paddle.jacrev(lambda z: paddle.abs(z) ** 2)(zz).numpy(), np.diag([6 - 8j, -2j]))
    # a real input through complex arithmetic: JAX 0.10.2 and Paddle 3.3.1 both give 30
    x = paddle.to_tensor(3.0, dtype="float64")
    assert paddle.grad(lambda x: paddle.abs(x * (1 + 2j)) ** 2)(x).item() == pytest.approx(30.0)


def test_holomorphic_hessian_follows_jax():
    # JAX 0.10.2: jax.hessian(lambda z: jnp.sum(z ** 3), holomorphic=True) at [3+4j, -1-2j] is diag(6 z)
    np.testing.assert_allclose(paddle.hessian(lambda z: paddle.sum(z ** 3), holomorphic=True)(c128([Z0, -1 - 2j]))
                               .numpy(), np.diag([18 + 24j, -6 - 12j]), rtol=1e-14)


def test_transforms_refuse_like_jax():
    with pytest.raises(TransformError, match="holomorphic=True"):
        paddle.grad(paddle.sin)(c128(Z0))
    with pytest.raises(TransformError, match="complex"):
        paddle.grad(lambda z: z * z, holomorphic=True)(paddle.to_tensor(3.0))
    with pytest.raises(TransformError, match="holomorphic=True"):
        paddle.jacfwd(paddle.sin)(c128([Z0]))
    with pytest.raises(TransformError, match="holomorphic=True"):
        paddle.jacrev(paddle.sin)(c128([Z0]))


# Paddle 3.3.1 at z = 3+4j: x.grad after y.backward()
PADDLE_TAPE = [
    (lambda z: paddle.abs(z) ** 2, 6 + 8j),
    (lambda z: paddle.real(z * z), 6 - 8j),
    (lambda z: paddle.abs(z), 0.6 + 0.8j),
    (lambda z: paddle.imag(z * z), 8 + 6j),
    (lambda z: paddle.angle(z), -0.16 + 0.12j),
    (paddle.sin, -27.034945603074224 + 3.851153334811777j),
]


@pytest.mark.parametrize("i", range(len(PADDLE_TAPE)))
def test_eager_tape_follows_paddle(i):
    f, want = PADDLE_TAPE[i]
    x = paddle.to_tensor(Z0, dtype="complex128", stop_gradient=False)
    f(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)


def test_paddle_grad_with_complex_grad_outputs():
    x = paddle.to_tensor(Z0, dtype="complex128", stop_gradient=False)
    (g,) = paddle.grad([paddle.sin(x)], [x], [c128(1 + 2j)])
    np.testing.assert_allclose(g.numpy(), -34.73725227269778 - 50.21873787133667j, rtol=1e-14)  # Paddle 3.3.1


def test_vmap_and_jit_of_a_complex_network():
    w = c128([[1 + 1j, 2 - 1j], [0.5j, -1]])

    def loss(w, x):
        return paddle.sum(paddle.abs(paddle.tanh(paddle.matmul(x, w))) ** 2)

    x = c128([[0.1 + 0.2j, -0.3j], [0.4, 0.5 - 0.1j]])
    g = paddle.grad(loss)(w, x)
    np.testing.assert_allclose(paddle.jit(paddle.grad(loss))(w, x).numpy(), g.numpy(), rtol=1e-12)
    per_row = paddle.vmap(paddle.grad(loss), in_axes=(None, 0))(w, x.reshape([2, 1, 2]))
    np.testing.assert_allclose(per_row.sum(0).numpy(), g.numpy(), rtol=1e-12)


# ----------------------------------------------------------------------------------------------- linear algebra

A0 = [[2 + 1j, 1 - 1j], [0.5j, 3 + 0j]]


def test_complex_inv_solve_det_slogdet_match_paddle():
    a = c128(A0)
    # Paddle 3.3.1
    np.testing.assert_allclose(paddle.linalg.inv(a).numpy(), [[0.452054794520548 - 0.20547945205479454j,
                                                               -0.08219178082191782 + 0.2191780821917808j],
                                                              [-0.03424657534246575 - 0.07534246575342465j,
                                                               0.3698630136986301 + 0.0136986301369863j]], rtol=1e-14)
    assert paddle.linalg.det(a).item() == pytest.approx(5.5 + 2.5j)
    np.testing.assert_allclose(paddle.linalg.slogdet(a).numpy(),
                               [0.9103664774626047 + 0.413802944301184j, 1.798656130294223], rtol=1e-14)
    b = c128([[1 + 0j], [2j]])
    np.testing.assert_allclose(paddle.linalg.solve(a, b).numpy(), np.linalg.solve(np.array(A0), np.array(b.numpy())))
    w = paddle.linalg.eigvals(a).numpy()  # the imaginary parts of a complex matrix count
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(np.array(A0))), rtol=1e-14)


def test_complex_linalg_derivatives_follow_jax_and_paddle():
    a = c128(A0)
    # JAX 0.10.2
    np.testing.assert_allclose(paddle.grad(paddle.linalg.det, holomorphic=True)(a).numpy(),
                               [[3, -0.5j], [-1 + 1j, 2 + 1j]], atol=1e-15)
    np.testing.assert_allclose(paddle.grad(lambda m: paddle.abs(paddle.linalg.det(m)) ** 2)(a).numpy(),
                               [[33 - 15j, -2.5 - 5.5j], [-6 + 16j, 27 + 1j]], rtol=1e-14)
    np.testing.assert_allclose(paddle.grad(lambda m: paddle.real(paddle.linalg.inv(m).sum()))(a).numpy(),
                               [[-0.15837868267967722 + 0.09814224057046352j, -0.12291236629761683 + 0.1200037530493526j],
                                [-0.10320885719647216 - 0.0900731844623757j,
                                 -0.11090260836930003 - 0.06042409457684369j]], rtol=1e-13)
    # Paddle 3.3.1: the conjugate on the tape
    x = paddle.to_tensor(A0, dtype="complex128", stop_gradient=False)
    (paddle.abs(paddle.linalg.det(x)) ** 2).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[33 + 15j, -2.5 + 5.5j], [-6 - 16j, 27 - 1j]], rtol=1e-14)


def test_complex_qr_compiles_to_lapacks_factors():
    a = c128(A0)
    np.testing.assert_allclose(paddle.jit(lambda a: paddle.linalg.qr(a)[1])(a).numpy(), np.linalg.qr(a.numpy())[1],
                               atol=1e-13)


def test_norm_and_linspace_of_complex():
    z = paddle.to_tensor([3 + 4j, -1 - 2j])
    assert paddle.linalg.norm(z).item() == pytest.approx(5.47722578)  # Paddle 3.3.1
    np.testing.assert_allclose(paddle.linspace(0, 1, 3, dtype="complex64").numpy(), [0, 0.5, 1])  # no rounding
    assert paddle.linalg.norm(z.reshape([1, 2]), p="nuc").item() == pytest.approx(5.47722558)  # one singular value


H3 = [[4, 1 - 2j, 0.5j], [1 + 2j, 3, 1], [-0.5j, 1, 5]]


def test_hermitian_eigh_matches_paddle_and_its_derivatives_jax():
    w, v = paddle.linalg.eigh(c128(H3))
    # Paddle 3.3.1 (LAPACK's phases, as numpy's)
    assert w.dtype == paddle.float64
    np.testing.assert_allclose(w.numpy(), [0.9265304574722042, 5.1301161190041995, 5.9433534235235985], rtol=1e-14)
    np.testing.assert_allclose(v.numpy()[:, 0], [0.594215, -0.325067 - 0.690034j, 0.079801 + 0.242334j], atol=1e-6)
    np.testing.assert_allclose(paddle.linalg.eigvalsh(c128(H3), UPLO="U").numpy(), w.numpy(), rtol=1e-14)
    # JAX 0.10.2's gradients G of w[0] and of |v[0, 0]|^2, compared along a Hermitian direction D: Re(sum(G * D))
    # (the gradient here flows into the UPLO triangle; JAX and Paddle split it between both)
    rng = np.random.default_rng(0)
    d = rng.normal(size=(3, 3)) + 1j * rng.normal(size=(3, 3))
    d = d + d.conj().T
    jax_w0 = [[0.3530912013688028, -0.19315937680264256 - 0.41002819524784845j,
               0.04741888328512636 + 0.14399857168644767j],
              [-0.19315937680264256 + 0.41002819524784845j, 0.5818147406352902,
               -0.19315937680264259 - 0.02370944164256318j],
              [0.04741888328512636 - 0.14399857168644767j, -0.19315937680264259 + 0.02370944164256318j,
               0.06509405799590734]]
    jax_v00 = [[-0.096818969784173, 0.013405951067590906 + 0.02640227106217638j,
                0.0008192621460109059 - 0.005883713387784548j],
               [0.013405951067590906 - 0.02640227106217638j, 0.08354890256038701,
                -0.03401293221753548 - 0.0004096310730054677j],
               [0.0008192621460109059 + 0.005883713387784548j, -0.03401293221753548 + 0.0004096310730054677j,
                0.013270067223786005]]
    for f, g in ((lambda m: paddle.linalg.eigvalsh(m)[0], jax_w0),
                 (lambda m: paddle.abs(paddle.linalg.eigh(m)[1][0, 0]) ** 2, jax_v00)):
        ours = paddle.grad(f)(c128(H3)).numpy()
        assert np.real(np.sum(ours * d)) == pytest.approx(np.real(np.sum(np.array(g) * d)), rel=1e-12)


def test_complex_cholesky_follows_numpy_and_jax():
    # Paddle 3.3.1 has no complex cholesky kernel; the factor is numpy's, the gradient JAX 0.10.2's
    lower = paddle.linalg.cholesky(c128(H3))
    np.testing.assert_allclose(lower.numpy(), np.linalg.cholesky(np.array(H3)), rtol=1e-14)
    upper = paddle.linalg.cholesky(c128(H3), upper=True).numpy()
    np.testing.assert_allclose(upper.conj().T @ upper, H3, atol=1e-14)
    g = paddle.grad(lambda m: paddle.abs(paddle.linalg.cholesky(m)[2, 1]) ** 2)(c128(H3)).numpy()
    np.testing.assert_allclose(g, [[-0.2547831632653061, 0.13775510204081629 + 0.346938775510204j,
                                    -0.14285714285714285 - 0.37499999999999994j],
                                   [0.13775510204081629 - 0.346938775510204j, -0.5153061224489794,
                                    0.7142857142857142 + 0.07142857142857141j],
                                   [-0.14285714285714285 + 0.37499999999999994j,
                                    0.7142857142857142 - 0.07142857142857141j, 0]], atol=1e-14)


def test_complex_qr_matches_paddle_and_jax():
    a = c128([[2 + 1j, 1 - 1j], [0.5j, 3 + 0j], [1, -1 + 2j]])
    q, r = paddle.linalg.qr(a)
    np.testing.assert_allclose(r.numpy(), [[-2.5, 1j], [0, -3.87298335]], atol=1e-8)  # Paddle 3.3.1
    np.testing.assert_allclose(q.numpy()[:, 0], [-0.8 - 0.4j, -0.2j, -0.4], atol=1e-12)

    def f(m):
        q, r = paddle.linalg.qr(m)
        return paddle.abs(r[0, 1]) ** 2 + paddle.real(q[2, 0])
    jax_grad = [[0.288 - 0.544j, 0.8 + 1.6j], [-2.272j, 0.4], [-2.256 + 0.8j, 0.8j]]  # JAX 0.10.2
    np.testing.assert_allclose(paddle.grad(f)(a).numpy(), jax_grad, atol=1e-12)
    x = paddle.to_tensor(a.numpy(), stop_gradient=False)
    f(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.conj(jax_grad), atol=1e-12)  # Paddle 3.3.1: the conjugate


def test_complex_svd_matches_paddle_and_jax():
    a = np.array([[2 + 1j, 1 - 1j], [0.5j, 3 + 0j], [1, -1 + 2j]])
    u, s, vh = paddle.linalg.svd(c128(a))
    assert s.dtype == paddle.float64  # Paddle 3.3.1: s, and U's first column with LAPACK's phases
    np.testing.assert_allclose(s.numpy(), [4.074757876267347, 2.3762045892130623], rtol=1e-14)
    np.testing.assert_allclose(u.numpy()[:, 0], [-0.35376206 - 0.29615979j, -0.74447371j, 0.41951279 + 0.23855753j],
                               atol=1e-8)

    def f(m):
        u, s, vh = paddle.linalg.svd(m)
        return paddle.sum(s ** 3) + paddle.abs(u[0, 0]) ** 2 + paddle.real(u[1, 0] * vh[0, 1])
    # JAX 0.10.2, tall and wide
    tall = [[16.03877727009814 - 8.597247874054496j, 13.195258759722911 + 14.350977237733757j],
            [0.03297949061770951 - 7.2460917922643695j, 36.42476598284163 - 0.005496581769618544j],
            [5.07948374345428 + 1.1392287327019923j, -11.859761913558364 - 22.58029509441473j]]
    wide = [[16.00431031821952 - 8.58781197829247j, -7.278183184705536j, 5.073871063196208 + 1.1713136383654204j],
            [13.064117330305217 + 14.23543096867064j, 36.4959611166607, -11.892803691939799 - 22.61429374551417j]]
    np.testing.assert_allclose(paddle.grad(f)(c128(a)).numpy(), tall, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(paddle.grad(f)(c128(a.T.copy())).numpy(), wide, rtol=1e-12, atol=1e-12)


# jax 0.10.2: jax.grad(lambda m: jnp.linalg.norm(m, p))(NORM_A) for p = 'nuc' and 2
NORM_A = np.array([[1 + 2j, -0.5j, 0.3], [2 - 1j, 1.5, -1 + 1j]])
JAX_GRAD_NUC = np.array([[0.3939105616163975 - 0.7373430039159803j, 0.01514343579504439 + 0.4527110853467263j,
                          0.2748235987647675 - 0.14302133806430825j],
                         [0.49437498960437914 + 0.2219484351437822j, 0.6290609527076529 + 0.00504781193168149j,
                          -0.37203670991244453 - 0.4149431113317372j]])
JAX_GRAD_2 = np.array([[0.1922341611433254 - 0.43407692674862286j, -0.01488258133859157 - 0.1552331820356626j,
                        -0.09628178750398919 + 0.14055771264225422j],
                       [0.6728596762255818 + 0.3612341403437769j, 0.2508140643387625 - 0.00496086044619716j,
                        -0.21373122307684655 - 0.1715639092841704j]])


def test_spectral_matrix_norms_of_complex_matrices():
    """'nuc', 2 and -2 over two axes are the sum, largest and smallest singular values of the complex matrix (Paddle
    3.3.1 and numpy: 5.118668856409353, 3.4223566090356443, 1.6963122473737087), with JAX's gradients, eagerly and
    under jit."""
    x = paddle.to_tensor(NORM_A)
    for p, want in (("nuc", 5.118668856409353), (2, 3.4223566090356443), (-2, 1.6963122473737087)):
        assert abs(paddle.linalg.norm(x, p=p, axis=[0, 1]).item() - want) < 1e-12
        assert abs(paddle.linalg.matrix_norm(x, p=p).item() - want) < 1e-12
    assert abs(paddle.linalg.norm(x, p="nuc").item() - 5.118668856409353) < 1e-12
    batch = paddle.jit(lambda t: paddle.linalg.norm(t, p="nuc", axis=[1, 2]))(paddle.stack([x, 2 * x])).numpy()
    np.testing.assert_allclose(batch, [5.118668856409353, 2 * 5.118668856409353], rtol=1e-12)
    for p, want in (("nuc", JAX_GRAD_NUC), (2, JAX_GRAD_2)):
        np.testing.assert_allclose(paddle.grad(lambda t: paddle.linalg.norm(t, p=p, axis=[0, 1]))(x).numpy(), want,
                                   atol=1e-12)
