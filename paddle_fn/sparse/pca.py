"""`paddle.sparse.pca_lowrank`: principal components of a sparse matrix by randomized subspace iteration (Halko,
Martinsson and Tropp, 2011), as Paddle 3.3 computes them, with the matrix touched only through sparse-dense
products: the centring is applied to those products (a rank-one correction), so no dense m x n matrix is formed.
"""
from __future__ import annotations

import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.linalg import qr, svd
from paddle_fn.random.global_seed import randn
from paddle_fn.sparse.manipulation import transpose
from paddle_fn.sparse.products import sparse_dense_matmul
from paddle_fn.sparse.unary import check_sparse

__all__ = ["pca_lowrank"]


def _basis(times, times_transposed, columns: int, q: int, niter: int, dtype):
    """An orthonormal [rows, q] basis of the range of the operator `times` (of `columns` columns): a Gaussian
    sketch, then `niter` rounds of power iteration, re-orthonormalized after every product."""
    basis = qr(times(randn([columns, q], dtype=dtype)))[0]
    for _ in range(niter):
        basis = qr(times_transposed(basis))[0]
        basis = qr(times(basis))[0]
    return basis


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """The first `q` principal components of the sparse matrix `x` ([m, n], COO or CSR): (U [m, q], S [q],
    V [n, q]) with ``x - mean ≈ U @ diag(S) @ V.T`` (the column means subtracted when `center`), by randomized
    subspace iteration from a Gaussian draw of the global generator (`paddle.seed`) with `niter` power iterations.
    `q` defaults to min(6, m, n); with q = min(m, n) the result is the exact singular value decomposition (up to
    the signs of the vectors).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[2., 0., 1.], [0., 3., 0.], [4., 0., 0.], [0., 1., 5.]]).to_sparse_coo(2)
        >>> U, S, V = paddle.sparse.pca_lowrank(x, q=3)
        >>> S.numpy().round(4)
        array([4.6956, 3.3872, 0.6916], dtype=float32)
        >>> centred = x.to_dense() - x.to_dense().mean(axis=0)
        >>> bool(paddle.allclose(U @ paddle.diag(S) @ V.T, centred, atol=1e-5))
        True
    """
    check_sparse("pca_lowrank", x)
    if x.ndim != 2:
        raise ShapeError(f"paddle.sparse.pca_lowrank: expects a sparse matrix, got shape {x.shape}")
    m, n = x.shape
    q = min(6, m, n) if q is None else int(q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"paddle.sparse.pca_lowrank: q (={q}) must be a non-negative integer not greater than "
                         f"min(m, n) = {min(m, n)}")
    if niter < 0:
        raise ValueError(f"paddle.sparse.pca_lowrank: niter (={niter}) must be a non-negative integer")
    dtype = x.dtype if x.dtype.kind == "f" else "float32"
    x = x.astype(dtype)
    x_t = transpose(x, [1, 0])
    mean = T.transpose(sparse_dense_matmul(x_t, T.ones([m, 1], dtype=dtype)), [1, 0]) / m if center else None

    def times(y):  # (x - 1 mean) @ y, for y [n, k]
        product = sparse_dense_matmul(x, y)
        return product if mean is None else product - T.matmul(T.ones([m, 1], dtype=dtype), T.matmul(mean, y))

    def times_transposed(y):  # (x - 1 mean)^T @ y, for y [m, k]
        product = sparse_dense_matmul(x_t, y)
        return product if mean is None else product - T.matmul(T.transpose(mean, [1, 0]), T.sum(y, axis=0,
                                                                                                   keepdim=True))

    if m < n or n > q:  # sketch the row space: (x - M) ≈ (x - M) Q Q^T
        basis = _basis(times_transposed, times, m, q, niter, dtype)
        u, s, vh = svd(times(basis), full_matrices=False)
        return u, s, T.matmul(basis, T.transpose(vh, [1, 0]))
    basis = _basis(times, times_transposed, n, q, niter, dtype)  # the column space: (x - M) ≈ Q Q^T (x - M)
    u, s, vh = svd(T.transpose(times_transposed(basis), [1, 0]), full_matrices=False)
    return T.matmul(basis, u), s, T.transpose(vh, [1, 0])
