"""Paddle 3's paddle.linalg additions (vector_norm, matrix_norm, vecdot, svdvals, matrix_exp, lu_solve,
householder_product, cholesky_inverse, corrcoef): Paddle 3.3.1's answers (recorded from paddlepaddle 3.3.1 on CPU),
scipy's, errors, and grad/jit/vmap."""
import numpy as np
import pytest
import scipy.linalg as sl

import paddle_fn as paddle
from paddle_fn.core.errors import ShapeError

L = paddle.linalg
X = [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]
SPD = [[4.0, 1.0, 2.0], [1.0, 5.0, 3.0], [2.0, 3.0, 6.0]]


def test_norms_give_paddles_answers():
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(L.vector_norm(x).item(), 9.539392471313477, rtol=1e-7)
    assert L.vector_norm(x, p=1, axis=1).tolist() == [6.0, 15.0] and L.vector_norm(x, p=float("inf")).item() == 6.0
    assert L.vector_norm(x, p=0).item() == 6.0 and L.vector_norm(x, p=-float("inf"), axis=0).tolist() == [1, 2, 3]
    np.testing.assert_allclose(L.vector_norm(x, p=3, axis=[0, 1], keepdim=True).numpy(), [[7.611662864685059]],
                               rtol=1e-6)
    paddle_matrix = {"fro": 9.539392471313477, 1: 9.0, float("inf"): 15.0, 2: 9.225027084350586,
                     "nuc": 11.65378475189209, -2: 2.428757667541504, -1: 5.0}
    for p, want in paddle_matrix.items():
        np.testing.assert_allclose(L.matrix_norm(x, p=p).item(), want, rtol=2e-7)
    np.testing.assert_allclose(L.svdvals(x).numpy(), [9.225027084350586, 2.428757667541504], rtol=2e-7)
    assert L.vecdot(x, x).tolist() == [14.0, 77.0] and paddle.vecdot(x, x, axis=0).tolist() == [17.0, 29.0, 45.0]


def test_matrix_functions_give_paddles_answers():
    np.testing.assert_allclose(L.matrix_exp(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], dtype="float64")).numpy(),
                               [[51.968956198705555, 74.73656456700401], [112.1048468505061, 164.0738030492117]],
                               rtol=1e-13)
    a = paddle.to_tensor(SPD, dtype="float64")
    packed, pivots = L.lu(a)
    b = paddle.to_tensor([[1.0], [2.0], [3.0]], dtype="float64")
    np.testing.assert_allclose(L.lu_solve(b, packed, pivots).numpy(), [[0.0], [1 / 7], [3 / 7]], atol=1e-15)
    np.testing.assert_allclose(L.lu_solve(b, packed, pivots, trans="T").numpy(), [[0.0], [1 / 7], [3 / 7]],
                               atol=1e-15)
    want = [[0.3, 0.0, -0.1], [0.0, 0.28571428571428564, -0.14285714285714282],
            [-0.1, -0.14285714285714282, 0.2714285714285714]]
    factor = L.cholesky(a)
    np.testing.assert_allclose(L.cholesky_inverse(factor).numpy(), want, atol=1e-15)
    np.testing.assert_allclose(L.cholesky_inverse(factor.T, upper=True).numpy(), want, atol=1e-15)
    np.testing.assert_allclose(L.corrcoef(paddle.to_tensor([[1.0, 2, 3, 5], [2, 1, 0, 3]])).numpy(),
                               [[0.9999999403953552, 0.37796446681022644], [0.37796443700790405, 1.0]], rtol=1e-7)
    h = paddle.to_tensor([[1.0, 0.0], [0.5, 1.0], [0.25, 0.5]], dtype="float64")
    np.testing.assert_allclose(L.householder_product(h, paddle.to_tensor([1.2, 0.7], dtype="float64")).numpy(),
                               [[-0.2, -0.075], [-0.6, 0.2625], [-0.3, -0.36875]], atol=1e-15)


def test_matrix_exp_and_lu_solve_against_scipy_batched_and_under_jit():
    rng = np.random.default_rng(0)
    for a in (rng.normal(size=(4, 4)) * 30, np.array([[0.0, 1000.0], [-1000.0, 0.0]]), np.zeros((3, 3))):
        want = sl.expm(a)
        for fn in (L.matrix_exp, paddle.jit(L.matrix_exp)):
            np.testing.assert_allclose(fn(paddle.to_tensor(a)).numpy(), want, rtol=0, atol=1e-11 * abs(want).max())
    stack = rng.normal(size=(3, 4, 4))
    np.testing.assert_allclose(paddle.vmap(L.matrix_exp)(paddle.to_tensor(stack)).numpy(),
                               [sl.expm(m) for m in stack], rtol=1e-10)
    a, b = rng.normal(size=(2, 4, 4)), rng.normal(size=(2, 4, 3))
    packed, pivots = L.lu(paddle.to_tensor(a))
    np.testing.assert_allclose(L.lu_solve(paddle.to_tensor(b), packed, pivots).numpy(), np.linalg.solve(a, b),
                               rtol=1e-12)
    np.testing.assert_allclose(L.lu_solve(paddle.to_tensor(b), packed, pivots, trans="T").numpy(),
                               np.linalg.solve(a.transpose(0, 2, 1), b), rtol=1e-12)


def test_gradients():
    a = paddle.to_tensor([[0.3, 0.2], [-0.4, 0.1]], dtype="float64")
    g = paddle.grad(lambda m: L.matrix_exp(m).sum())(a)
    eps, fd = 1e-6, np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            bump = np.zeros((2, 2))
            bump[i, j] = eps
            fd[i, j] = (sl.expm(a.numpy() + bump).sum() - sl.expm(a.numpy() - bump).sum()) / (2 * eps)
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-8)
    x = paddle.to_tensor(X, dtype="float64")
    np.testing.assert_allclose(paddle.grad(lambda v: L.vector_norm(v))(x).numpy(),
                               np.array(X) / np.linalg.norm(X), rtol=1e-12)
    spd = paddle.to_tensor(SPD, dtype="float64")
    g = paddle.grad(lambda m: L.cholesky_inverse(L.cholesky(m)).sum())(spd)
    inverse = np.linalg.inv(SPD)
    np.testing.assert_allclose(g.numpy(), -inverse.T @ np.ones((3, 3)) @ inverse.T, rtol=1e-10)


def test_errors():
    with pytest.raises(ValueError, match="matrix_norm: p must be 'fro', 'nuc'"):
        L.matrix_norm(paddle.ones([2, 2]), p=3)
    with pytest.raises(ShapeError, match="matrix_norm: axis must name two dimensions"):
        L.matrix_norm(paddle.ones([2, 2]), axis=0)
    with pytest.raises(ValueError, match="vector_norm: p must be a number"):
        L.vector_norm(paddle.ones([2]), p="fro")
    with pytest.raises(ValueError, match="lu_solve: trans must be 'N', 'T' or 'C'"):
        L.lu_solve(paddle.ones([2, 1]), *L.lu(paddle.eye(2)), trans="X")
    with pytest.raises(ShapeError, match="householder_product: x"):
        L.householder_product(paddle.ones([2, 3]), paddle.ones([2]))
