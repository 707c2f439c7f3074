"""Randomized low-rank SVD and PCA (``paddle.linalg.svd_lowrank`` / ``pca_lowrank``, Halko, Martinsson and Tropp's
range finder, as Paddle 3.3 computes them): a Gaussian sketch from the global generator, `niter` rounds of
subspace iteration with a QR after each product, then the SVD of the small projected matrix. Composites of matmul,
qr and svd, so grad, vmap and jit see through them (for a fixed sketch).
"""
from __future__ import annotations

from paddle_fn.core.trace import get_aval
from paddle_fn.prims import linalg as la
from paddle_fn.random.global_seed import randn
from paddle_fn.tensor._util import static_int
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.manipulation import broadcast_to
from paddle_fn.tensor.math import mean
from paddle_fn.tensor.matrix_functions import float_matrices

__all__ = ["svd_lowrank", "pca_lowrank"]


def _rank(op, x, q, niter):
    m, n = get_aval(x).shape[-2:]
    q = min(6, m, n) if q is None else static_int(op, q, "q")
    if min(m, n) and not 0 <= q <= min(m, n):
        raise ValueError(f"paddle.linalg.{op}: q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)} (x has shape {list(get_aval(x).shape)})")
    if static_int(op, niter, "niter") < 0:
        raise ValueError(f"paddle.linalg.{op}: niter(={niter}) must be a non-negative integer")
    return q


def _basis(a, q, niter):
    """Orthonormal columns [..., m, q] spanning approximately the range of `a` [..., m, n]."""
    sketch = randn(list(get_aval(a).shape[-1:]) + [q], dtype=get_aval(a).dtype)
    a_t = la.matrix_transpose(a)
    basis = la.qr(matmul(a, sketch))[0]
    for _ in range(niter):
        basis = la.qr(matmul(a, la.qr(matmul(a_t, basis))[0]))[0]
    return basis


def svd_lowrank(x, q=None, niter=2, M=None, name=None):  # noqa: N803 - Paddle's parameter name
    """An approximate rank-`q` SVD ``(U [..., m, q], S [..., q], V [..., n, q])`` of `x` [..., m, n] (minus `M`,
    broadcast to x's shape, when given): ``x - M ~ U diag(S) V^T``. `q` defaults to min(6, m, n); `niter` rounds of
    subspace iteration sharpen it. The sketch draws from the global generator (``paddle.seed``).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[3., 0., 0.], [0., 2., 0.], [0., 0., 0.], [0., 0., 0.]], dtype='float64')
        >>> u, s, v = paddle.linalg.svd_lowrank(x, q=2)   # x has rank 2: recovered exactly
        >>> s.numpy().round(6), u.shape, v.shape
        (array([3., 2.]), paddle.Size([4, 2]), paddle.Size([3, 2]))
    """
    x = float_matrices("svd_lowrank", x)
    q = _rank("svd_lowrank", x, q, niter)
    if M is not None:
        x = x - broadcast_to(M, list(get_aval(x).shape))
    m, n = get_aval(x).shape[-2:]
    if m < n or n > q:  # from a basis of x^T's range: x ~ (x Q) Q^T
        basis = _basis(la.matrix_transpose(x), q, niter)
        u, s, vh = la.svd(matmul(x, basis))
        return u, s, matmul(basis, la.matrix_transpose(vh))
    basis = _basis(x, q, niter)  # x ~ Q (Q^T x)
    u, s, vh = la.svd(matmul(la.matrix_transpose(basis), x))
    return matmul(basis, u), s, la.matrix_transpose(vh)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Principal components of the rows of `x` [..., m, n]: `svd_lowrank` of x minus its column means (when
    `center`), ``(U [..., m, q], S [..., q], V [..., n, q])``; V's columns are the principal directions.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.]], dtype='float64')
        >>> u, s, v = paddle.linalg.pca_lowrank(x, q=1)
        >>> s.numpy().round(6), abs(v.numpy().round(6))
        (array([4.]), array([[0.707107],
               [0.707107]]))
    """
    x = float_matrices("pca_lowrank", x)
    q = _rank("pca_lowrank", x, q, niter)
    if not center:
        return svd_lowrank(x, q, niter=niter)
    return svd_lowrank(x - mean(x, axis=-2, keepdim=True), q, niter=niter)
