"""paddle.linalg.eig / eigvals derivatives (paddle_fn/prims/linalg_eig.py) against jax 0.10.2's
jax.lax.linalg.eig(enable_eigvec_derivs=True) and jnp.linalg.eigvals, recorded as literals (float64)."""
import numpy as np

import paddle_fn as paddle

A = paddle.to_tensor(np.array([[1., 2., 0.5], [-1., 3., 1.], [0.3, 0.2, -2.]]))
DA = paddle.to_tensor(np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [0.7, 0.8, 0.9]]))

# jax.jvp(lambda m: lax.linalg.eig(m, compute_left_eigenvectors=False, enable_eigvec_derivs=True), (A,), (DA,))
JAX_DW = np.array([0.4096496848594133 - 8.9759634272557387e-01j, 0.40964968485941333 + 8.9759634272557409e-01j,
                   0.6807006302811736 + 0j])
JAX_DV = np.array([[-0.05862215026715922 + 0j, -0.05862215026715917 + 0j, -0.166907174202226 + 0j],
                   [-0.12387717251601028 + 3.1155879058976016e-01j, -0.12387717251601026 - 3.1155879058976010e-01j,
                    0.07641589246752499 + 0j],
                   [-0.24949291932465353 - 2.1455208638495094e-02j, -0.24949291932465353 + 2.1455208638495094e-02j,
                    0.01055388966867246 + 0j]])
# jax.grad(lambda m: jnp.real(jnp.linalg.eigvals(m)**2).sum() + jnp.imag(jnp.linalg.eigvals(m)).sum())(A)
JAX_GRAD_EIGVALS = np.array([[2.0, -2.0, 0.6], [4.0, 6.0, 0.4], [1.0, 2.0, -4.0]])
# jax.grad(lambda m: jnp.sum(jnp.abs(lax.linalg.eig(m, ..., enable_eigvec_derivs=True)[1][0])**2 * jnp.arange(1,4)))
JAX_GRAD_EIGVECS = np.array([[-0.01335483323265541, 0.30406917839514835, 0.04954773741534733],
                             [0.7037228267538601, 0.00404880808995994, 0.0491797442349495],
                             [0.12052168540854946, 0.02647405323271139, 0.00930602514269535]])


def test_jvp_matches_jax():
    (w, v), (dw, dv) = paddle.jvp(paddle.linalg.eig, (A,), (DA,))
    np.testing.assert_allclose(dw.numpy(), JAX_DW, atol=1e-12)
    np.testing.assert_allclose(dv.numpy(), JAX_DV, atol=1e-12)
    (_,), (dw_only,) = paddle.jvp(lambda m: (paddle.linalg.eigvals(m),), (A,), (DA,))
    np.testing.assert_allclose(dw_only.numpy(), JAX_DW, atol=1e-12)


def test_gradients_match_jax():
    g = paddle.grad(lambda m: paddle.real(paddle.linalg.eigvals(m) ** 2).sum()
                    + paddle.imag(paddle.linalg.eigvals(m)).sum())(A)
    np.testing.assert_allclose(g.numpy(), JAX_GRAD_EIGVALS, atol=1e-12)
    g = paddle.grad(lambda m: (paddle.abs(paddle.linalg.eig(m)[1][0]) ** 2
                               * paddle.arange(1, 4).astype("float64")).sum())(A)
    np.testing.assert_allclose(g.numpy(), JAX_GRAD_EIGVECS, atol=1e-12)


def test_complex_input_derivatives_match_finite_differences():
    rng = np.random.default_rng(1)
    z = paddle.to_tensor(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    dz = paddle.to_tensor(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))
    (_,), (dw,) = paddle.jvp(lambda m: (paddle.linalg.eigvals(m),), (z,), (dz,))
    eps = 1e-6  # a small step keeps LAPACK's order of the eigenvalues
    w = lambda m: paddle.linalg.eigvals(paddle.to_tensor(m)).numpy()  # noqa: E731
    fd = (w(z.numpy() + eps * dz.numpy()) - w(z.numpy() - eps * dz.numpy())) / (2 * eps)
    np.testing.assert_allclose(dw.numpy(), fd, atol=1e-6)

