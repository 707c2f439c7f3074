"""Complex decompositions under jit (paddle_fn.prims.linalg_complex): cholesky, lu, triangular_solve, qr, eigh and
svd, and so inv, solve, det, slogdet, pinv, lstsq, matrix_rank and svdvals, compile through real arithmetic and give
the eager (LAPACK) results, under vmap too. Eigenvectors and singular vectors are compared through gauge-free values
(|v|, u @ vh): their phases under jit follow the expansions' convention, not LAPACK's (docs/complex.md)."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.prims import linalg as la

# the expansions themselves: every jit program here builds its decompositions from IREE's operations
pytestmark = pytest.mark.usefixtures("without_host_kernels")

RNG = np.random.default_rng(0)
A64 = RNG.standard_normal((2, 4, 4)) + 1j * RNG.standard_normal((2, 4, 4))
B64 = RNG.standard_normal((2, 4, 3)) + 1j * RNG.standard_normal((2, 4, 3))
TOL = {"complex64": 2e-6, "complex128": 1e-13}


# the pseudo-inverse of a Hermitian matrix divides by its eigenvalues, the smallest of them 0.092 against 5.3 here:
# each eigenvalue is within eps ||A|| (2.9e-7 compiled, float32 eps 1.2e-7), which the division amplifies to
# ~1e-5 (compiled 1.5e-5 from the complex128 pseudo-inverse, eager LAPACK 7.5e-7)
CONDITIONING = {"pinv_hermitian": 10}


def _close(got, want, dtype, factor=1):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert np.abs(got - want).max() <= factor * TOL[dtype] * max(1.0, np.abs(want).max())


CASES = {
    "cholesky": (lambda a, b: paddle.linalg.cholesky(a @ paddle.conj(a).transpose([0, 2, 1]) + 4 * paddle.eye(4))),
    "lu": lambda a, b: la.lu(a)[0],
    "lu_permutation": lambda a, b: la.lu(a)[2],
    "lower_solve": lambda a, b: la.triangular_solve(a, b, lower=True, transpose_a=False, unit_diagonal=False),
    "upper_transposed_unit_solve": lambda a, b: la.triangular_solve(a, b, lower=False, transpose_a=True,
                                                                      unit_diagonal=True),
    "inv": lambda a, b: paddle.linalg.inv(a),
    "solve": lambda a, b: paddle.linalg.solve(a, b),
    "det": lambda a, b: paddle.linalg.det(a),
    "slogdet": lambda a, b: paddle.linalg.slogdet(a)[1],
}


# the decompositions with Jacobi and Householder loops, in both widths; the functions built on the SVD (and eigh) in
# complex64 only: they add products and elementwise steps, which the complex128 rows above already run
SPECTRAL = {
    "qr_q": lambda a, b: paddle.linalg.qr(b)[0],
    "qr_r": lambda a, b: paddle.linalg.qr(b)[1],
    "qr_complete_q": lambda a, b: paddle.linalg.qr(b, mode="complete")[0],
    "eigvalsh": lambda a, b: paddle.linalg.eigvalsh(a),
    "eigh_vector_sizes": lambda a, b: paddle.abs(paddle.linalg.eigh(a)[1]),
    "svdvals": lambda a, b: paddle.linalg.svdvals(b),
    "svd_wide_product": lambda a, b: _u_vh(paddle.conj(b).transpose([0, 2, 1])),
    "svd_tall_product": lambda a, b: _u_vh(b),
}
SVD_FUNCTIONS = {
    "pinv": lambda a, b: paddle.linalg.pinv(b),
    "pinv_hermitian": lambda a, b: paddle.linalg.pinv(a + paddle.conj(a).transpose([0, 2, 1]), hermitian=True),
    "lstsq": lambda a, b: paddle.linalg.lstsq(b, a[:, :, :2])[0],
    "matrix_rank": lambda a, b: paddle.linalg.matrix_rank(b[:, :, :2] @ b[:, :2, :]),
}


def _u_vh(m):
    u, _, vh = paddle.linalg.svd(m)
    return u @ vh


@pytest.mark.parametrize("dtype, cases", [("complex64", CASES), ("complex128", CASES), ("complex64", SPECTRAL),
                                          ("complex128", SPECTRAL), ("complex64", SVD_FUNCTIONS)],
                         ids=["lu_family-c64", "lu_family-c128", "spectral-c64", "spectral-c128", "svd_functions-c64"])
def test_complex_decompositions_compile_and_match_eager(dtype, cases):
    a, b = paddle.to_tensor(A64.astype(dtype)), paddle.to_tensor(B64.astype(dtype))
    jitted = paddle.jit(lambda a, b: {name: f(a, b) for name, f in cases.items()})(a, b)
    for name, f in cases.items():
        _close(jitted[name].numpy(), f(a, b).numpy(), dtype, CONDITIONING.get(name, 1))


def test_paddle_numbers_and_gradients_under_jit():
    a = paddle.to_tensor(np.array([[1 + 2j, 2], [3j, 4 - 1j]], dtype="complex64"))
    # Paddle 3.3.1's paddle.linalg.inv and det of this matrix
    want_inv = np.array([[0.6216216 - 0.27027032j, -0.3243243 + 0.05405406j],
                         [-0.08108111 - 0.48648646j, 0.21621624 + 0.29729727j]], dtype=np.complex64)
    np.testing.assert_allclose(paddle.jit(paddle.linalg.inv)(a).numpy(), want_inv, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(paddle.jit(paddle.linalg.det)(a).numpy(), 6 + 1j, rtol=1e-6)
    loss = lambda m: paddle.real(paddle.linalg.det(m) * paddle.conj(paddle.linalg.det(m)))  # noqa: E731
    m = paddle.to_tensor(A64[0])
    np.testing.assert_allclose(paddle.jit(paddle.grad(loss))(m).numpy(), paddle.grad(loss)(m).numpy(), rtol=1e-12)


def test_vmap_of_the_compiled_decompositions_matches_eager(dtype="complex128"):
    a, b = paddle.to_tensor(A64.astype(dtype)), paddle.to_tensor(B64.astype(dtype))
    h = a + paddle.conj(a).transpose([0, 2, 1])

    def values(h, b):
        u, s, vh = paddle.linalg.svd(b)
        return paddle.linalg.eigvalsh(h), paddle.linalg.qr(b)[1], s, u @ vh
    batched = paddle.jit(paddle.vmap(values))(h, b)
    for got, want in zip(batched, values(h[0], b[0])):
        _close(got[0].numpy(), want.numpy(), dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_two_by_two_hermitian_eigenvalues_under_jit(dtype):
    # IREE 3.13 compiled the cyclic (one rotation per loop iteration) 2x2 complex Jacobi program wrongly; the
    # parallel one, which the 2x2 runs as is, is right
    h = paddle.to_tensor(np.array([[2, 1j], [-1j, 3]], dtype=dtype))
    w, v = paddle.jit(paddle.linalg.eigh)(h)
    _close(w.numpy(), np.linalg.eigvalsh(h.numpy()), dtype)
    _close(np.abs(v.numpy()), np.abs(np.linalg.eigh(h.numpy())[1]), dtype)
