"""Complex decompositions under jit (paddle_fn.prims.linalg_complex): cholesky, lu, triangular_solve and so inv,
solve, det, slogdet compile through real arithmetic and give the eager (LAPACK) results; the ones with no real form
yet (qr, eigh, svd, eig) say so."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.prims import linalg as la

RNG = np.random.default_rng(0)
A64 = RNG.standard_normal((2, 4, 4)) + 1j * RNG.standard_normal((2, 4, 4))
B64 = RNG.standard_normal((2, 4, 3)) + 1j * RNG.standard_normal((2, 4, 3))
TOL = {"complex64": 2e-6, "complex128": 1e-13}


def _close(got, want, dtype):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    assert np.abs(got - want).max() <= TOL[dtype] * max(1.0, np.abs(want).max())


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


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_decompositions_compile_and_match_eager(dtype):
    a, b = paddle.to_tensor(A64.astype(dtype)), paddle.to_tensor(B64.astype(dtype))
    jitted = paddle.jit(lambda a, b: {name: f(a, b) for name, f in CASES.items()})(a, b)
    for name, f in CASES.items():
        _close(jitted[name].numpy(), f(a, b).numpy(), dtype)


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


def test_decompositions_without_a_real_form_say_so_under_jit():
    a = paddle.to_tensor(A64[0].astype("complex64"))
    with pytest.raises(paddle.UnsupportedError, match="qr: complex matrices are not compiled"):
        paddle.jit(lambda m: paddle.linalg.qr(m)[1])(a)
