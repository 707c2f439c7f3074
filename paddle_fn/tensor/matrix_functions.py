"""Paddle 3's matrix functions that need no LU solve (Paddle keeps them in `paddle.tensor.linalg`;
`paddle.linalg` re-exports them): `householder_product`, `ormqr`, `cholesky_inverse`, `svdvals` and `vecdot`. Composites
of the primitives, so grad, vmap and jit see through them.
"""
from __future__ import annotations


import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import linalg as la
from paddle_fn.tensor.manipulation import broadcast_to, where
from paddle_fn.tensor.math import multiply, sum as sum_
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand, inexact_operand

__all__ = ["vecdot", "svdvals", "householder_product", "ormqr", "cholesky_inverse"]


def float_matrices(op, x, square=False, complex_ok=False):
    """`x` as float32 or float64 matrices [..., m, n] (the dtypes the decompositions take), or complex64 and
    complex128 ones too if `complex_ok`."""
    x = inexact_operand(op, x) if complex_ok else float_operand(op, x)
    if get_aval(x).dtype not in (dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128):
        x = cast(x, dtypes.float32)
    rows_cols = get_aval(x).shape[-2:]
    if get_aval(x).ndim < 2 or (square and rows_cols[0] != rows_cols[1]):
        raise ShapeError(f"paddle.linalg.{op}: expected {'square ' if square else ''}matrices [..., m, n], got shape "
                         f"{list(get_aval(x).shape)}")
    return x


def vecdot(x, y, axis=-1, name=None):
    """The dot products of the vectors of `x` and `y` along `axis` (the other dimensions broadcast).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        >>> paddle.linalg.vecdot(x, x).tolist(), paddle.linalg.vecdot(x, x, axis=0).tolist()
        ([14.0, 77.0], [17.0, 29.0, 45.0])
    """
    return sum_(multiply(x, y), axis=axis)


def svdvals(x, name=None):
    """The singular values of each matrix of `x` [..., m, n] (real or complex), in descending order: shape
    [..., min(m, n)], real.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.linalg.svdvals(paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])).numpy()
        array([9.225027 , 2.4287577], dtype=float32)
    """
    return la.svd(float_matrices("svdvals", x, complex_ok=True))[1]


def householder_product(x, tau, name=None):
    """The first n columns of ``Q = H_1 H_2 ... H_k`` for the Householder reflectors ``H_i = I - tau_i v_i v_i^T``
    stored in `x` [..., m, n] (v_i is column i below the diagonal, with 1 on it), as LAPACK's orgqr.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, 0.0], [0.5, 1.0], [0.25, 0.5]], dtype='float64')
        >>> paddle.linalg.householder_product(x, paddle.to_tensor([1.2, 0.7], dtype='float64')).numpy()
        array([[-0.2    , -0.075  ],
               [-0.6    ,  0.2625 ],
               [-0.3    , -0.36875]])
    """
    x = float_matrices("householder_product", x)
    tau = cast(as_tensor(tau), get_aval(x).dtype)
    m, n = get_aval(x).shape[-2:]
    k = get_aval(tau).shape[-1]
    if k > n or m < n or list(get_aval(tau).shape[:-1]) != list(get_aval(x).shape[:-2]):
        raise ShapeError(f"paddle.linalg.householder_product: x [..., m, n] with m >= n and tau [..., k] with "
                         f"k <= n and the same batch, got shapes {list(get_aval(x).shape)} and "
                         f"{list(get_aval(tau).shape)}")
    rows = np.arange(m)
    q = la.eye_like(broadcast_to(x[..., :1], list(get_aval(x).shape[:-2]) + [m, m]))
    for i in range(k):
        column = x[..., :, i]
        v = where(as_tensor(rows > i), column, as_tensor((rows == i).astype(get_aval(x).dtype.np)))
        qv = la.matmul(q, v[..., :, None])  # [..., m, 1]
        q = q - tau[..., i, None, None] * la.matmul(qv, v[..., None, :])
    return q[..., :, :n]


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """`y` multiplied by the Q of Householder reflectors, as Paddle 3.3 defines it: Q = ``householder_product(x,
    tau)`` [..., m, n] (tau [..., n]), and the result is ``Q @ y`` (`left`) or ``y @ Q``, with Q^T in place of Q
    when `transpose`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[2.0, 0.5], [0.3, 1.5], [-0.4, 0.2]], dtype='float64')
        >>> tau = paddle.to_tensor([1.3, 0.6], dtype='float64')
        >>> paddle.linalg.ormqr(x, tau, paddle.to_tensor([[1., 2.], [3., 4.]], dtype='float64')).numpy()
        array([[-0.9552 , -1.4736 ],
               [ 0.61344,  0.55792],
               [ 0.42208,  0.90944]])
        >>> y = paddle.to_tensor([[1., 4.], [2., 5.], [3., 6.]], dtype='float64')
        >>> paddle.linalg.ormqr(x, tau, y, transpose=True).numpy()
        array([[ 0.48   , -0.03   ],
               [ 0.35264,  0.60296]])
    """
    x = float_matrices("ormqr", x)
    tau, y = cast(as_tensor(tau), get_aval(x).dtype), cast(as_tensor(y), get_aval(x).dtype)
    m, n = get_aval(x).shape[-2:]
    inner = n if left != transpose else m  # the size of Q's side that meets y
    y_side = get_aval(y).shape[-2 if left else -1] if get_aval(y).ndim >= 2 else None
    if get_aval(tau).ndim < 1 or get_aval(tau).shape[-1] != n or y_side != inner:
        raise ShapeError(f"paddle.linalg.ormqr: x [..., m, n] takes tau [..., n] and y [..., {'' if left else 'p, '}"
                         f"{inner}{', p' if left else ''}] (left={left}, transpose={transpose}); got shapes "
                         f"{list(get_aval(x).shape)}, {list(get_aval(tau).shape)} and {list(get_aval(y).shape)}")
    q = householder_product(x, tau)
    if transpose:
        q = la.matrix_transpose(q)
    return la.matmul(q, y) if left else la.matmul(y, q)


def cholesky_inverse(x, upper=False, name=None):
    """The inverse of ``A = L L^T`` (or ``U^T U`` with ``upper=True``) from its Cholesky factor `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> a = paddle.to_tensor([[4.0, 2.0], [2.0, 3.0]], dtype='float64')
        >>> paddle.linalg.cholesky_inverse(paddle.linalg.cholesky(a)).numpy()
        array([[ 0.375, -0.25 ],
               [-0.25 ,  0.5  ]])
    """
    factor = float_matrices("cholesky_inverse", x, square=True)
    inverse = la.triangular_solve(factor, la.eye_like(factor), lower=not upper)
    # lower: A^-1 = L^-T L^-1; upper: A^-1 = U^-1 U^-T
    if upper:
        return la.matmul(inverse, la.matrix_transpose(inverse))
    return la.matmul(la.matrix_transpose(inverse), inverse)
