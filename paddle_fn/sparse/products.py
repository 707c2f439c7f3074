"""Products with sparse Tensors: `matmul`, `mv`, `addmm`, `masked_matmul`.

A sparse-dense product is the primitive `sparse_dense_dot` (paddle_fn/prims/sparse.py): scipy's CSR kernel eagerly,
and compiled, a scan over an ELLPACK table when the row bound is known (a Tensor built from concrete indices sorted
by row), else a gather and a scatter-add. Its rules give gradients for the values and the dense operand.
"""
from __future__ import annotations

import numbers

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.prims.sparse import sparse_dense_dot
from paddle_fn.sparse.binary import add
from paddle_fn.sparse.tensor import (
    INDEX_DTYPE, SparseCooTensor, SparseCsrTensor, SparseTensor, _concrete, coo_to_csr, csr_row_ids, sorted_row_bound)
from paddle_fn.sparse.unary import check_sparse
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["matmul", "mv", "addmm", "masked_matmul"]


def _entries(x: SparseTensor):
    """(row, column, value) of each stored entry of a sparse matrix or batch of matrices, rows and columns numbered
    across the batch (batch * rows + row, batch * cols + col)."""
    if isinstance(x, SparseCsrTensor):
        rows = csr_row_ids(x)
        cols = T.cast(x.cols(), INDEX_DTYPE)
        if x.ndim == 3:
            cols = cols + (rows // x.shape[1]) * x.shape[2]
        return rows, cols, x.values()
    if x.dense_dim() != 0:
        raise ShapeError(f"paddle.sparse.matmul: a COO operand needs scalar values (dense_dim 0), got shape {x.shape} "
                         f"with {x.sparse_dim()} sparse axes")
    idx = T.cast(x.indices(), INDEX_DTYPE)
    if x.ndim == 3:
        return idx[0] * x.shape[1] + idx[1], idx[0] * x.shape[2] + idx[2], x.values()
    return idx[0], idx[1], x.values()


def sparse_dense_matmul(x: SparseTensor, y) -> T.Tensor:
    """sparse x ([m, k] or [b, m, k]) @ dense y ([k, n] or [b, k, n]) -> dense."""
    y = as_tensor(y)
    if x.ndim not in (2, 3) or y.ndim != x.ndim or y.shape[-2] != x.shape[-1] or (
            x.ndim == 3 and y.shape[0] != x.shape[0]):
        raise ShapeError(f"paddle.sparse.matmul: x {x.shape} @ y {y.shape}: needs [m, k] @ [k, n] or "
                         "[b, m, k] @ [b, k, n]")
    rows, cols, values = _entries(x)
    batch = x.shape[0] if x.ndim == 3 else 1
    dense = T.reshape(y, [batch * y.shape[-2], y.shape[-1]])
    if dense.dtype.kind not in "fc":
        raise TypeError(f"paddle.sparse.matmul: y must be a float Tensor, got {dense.dtype.name}")
    out = sparse_dense_dot(rows, cols, T.cast(values, dense.dtype), dense, num_rows=batch * x.shape[-2],
                           row_bound=x.row_bound)
    return T.reshape(out, x.shape[:-1] + [y.shape[-1]])


def _pattern_counts(x: SparseTensor) -> np.ndarray:
    """1 where sparse `x` stores an entry, 0 elsewhere (eager only)."""
    coo = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()
    (idx,) = _concrete("matmul", coo.indices())
    counts = np.zeros(x.shape, np.int64)
    counts[tuple(idx)] = 1
    return counts


def _sparse_sparse_matmul(x: SparseTensor, y: SparseTensor) -> SparseTensor:
    """The product's pattern is where a row of x and a column of y share a stored index (computed eagerly); its
    values are those of x @ dense(y) there."""
    product = sparse_dense_matmul(x, y.to_dense())
    pattern = np.matmul(_pattern_counts(x), _pattern_counts(y)) > 0
    coords = np.stack(np.nonzero(pattern)).astype(np.int64).reshape(pattern.ndim, -1)
    idx = T.to_tensor(coords)
    coo = SparseCooTensor(idx, T.gather_nd(product, T.transpose(idx, [1, 0])), product.shape,
                          sorted_row_bound(coords, pattern.shape))
    return coo if isinstance(x, SparseCooTensor) else coo_to_csr(coo)


def matmul(x, y, name=None):
    """Matrix product with a sparse `x` (COO or CSR, [m, k] or a batch [b, m, k]): with a dense `y` the result is
    dense; with a sparse `y` of the same format it is sparse (computed eagerly: its pattern depends on both).

    Example:
        >>> import paddle_fn as paddle
        >>> csr = paddle.sparse.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], [1., 2., 3.], [3, 3])
        >>> paddle.sparse.matmul(csr, paddle.ones([3, 2])).numpy()
        array([[1., 1.],
               [2., 2.],
               [3., 3.]], dtype=float32)
    """
    check_sparse("matmul", x)
    if isinstance(y, SparseTensor):
        if x.is_sparse_coo() != y.is_sparse_coo():
            raise TypeError("paddle.sparse.matmul: x and y must both be COO or both CSR")
        return _sparse_sparse_matmul(x, y)
    return sparse_dense_matmul(x, y)


def mv(x, vec, name=None):
    """Sparse matrix `x` ([m, n], COO or CSR) times the dense vector `vec` ([n]): a dense [m] vector.

    Example:
        >>> import paddle_fn as paddle
        >>> csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2., 3., 4., 5.], [3, 4])
        >>> paddle.sparse.mv(csr, paddle.to_tensor([1., 2., 3., 4.])).numpy()
        array([10.,  9., 14.], dtype=float32)
    """
    check_sparse("mv", x)
    vec = as_tensor(vec)
    if x.ndim != 2 or vec.ndim != 1:
        raise ShapeError(f"paddle.sparse.mv: needs a sparse matrix and a vector, got shapes {x.shape} and {vec.shape}")
    return sparse_dense_matmul(x, T.reshape(vec, [-1, 1]))[:, 0]


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002 - Paddle's argument name
    """beta * input + alpha * (x @ y) with a sparse `x`: dense when `y` is dense, sparse when `input`, `x` and `y`
    are all sparse.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], [1., 2., 3.], [3, 3])
        >>> paddle.sparse.addmm(paddle.ones([3, 2]), x, paddle.ones([3, 2]), 3.0, 2.0).numpy()
        array([[ 5.,  5.],
               [ 7.,  7.],
               [ 9.,  9.]], dtype=float32)
    """
    if not isinstance(beta, numbers.Number) or not isinstance(alpha, numbers.Number):
        raise TypeError("paddle.sparse.addmm: beta and alpha must be numbers")
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        scaled = product._with_values(product.values() * alpha)
        if isinstance(input, SparseTensor):
            return add(input._with_values(input.values() * beta), scaled)
        return beta * input + alpha * product.to_dense()
    dense_input = input.to_dense() if isinstance(input, SparseTensor) else as_tensor(input)
    return beta * dense_input + alpha * product


def masked_matmul(x, y, mask, name=None):
    """The dense product x @ y evaluated only at the stored positions of sparse `mask` (its pattern and format):
    each stored value is one row of x dotted with one column of y, so nothing of size m x n is formed.

    Example:
        >>> import paddle_fn as paddle
        >>> mask = paddle.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1., 1.], [2, 2])
        >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> paddle.sparse.masked_matmul(x, paddle.to_tensor([[1., 0.], [0., 1.]]), mask).values().numpy()
        array([2., 3.], dtype=float32)
    """
    check_sparse("masked_matmul", mask)
    x, y = as_tensor(x), as_tensor(y)
    if x.ndim != mask.ndim or y.ndim != mask.ndim or x.shape[-1] != y.shape[-2] or (
            x.shape[:-1] + y.shape[-1:] != mask.shape):
        raise ShapeError(f"paddle.sparse.masked_matmul: x {x.shape} @ y {y.shape} must have the mask's shape "
                         f"{mask.shape}")
    rows, cols, _ = _entries(mask)
    x_rows = T.reshape(x, [-1, x.shape[-1]])
    y_cols = T.reshape(T.transpose(y, list(range(y.ndim - 2)) + [y.ndim - 1, y.ndim - 2]), [-1, y.shape[-2]])
    values = (T.gather(x_rows, rows) * T.gather(y_cols, cols)).sum(axis=-1)
    return mask._with_values(values)
