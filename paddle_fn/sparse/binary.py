"""`paddle.sparse`'s arithmetic between sparse Tensors, and with dense Tensors and numbers.

Between two sparse Tensors of one format, `add`, `subtract` and `multiply` give the union of the two patterns, as
Paddle 3.3 does; `divide` stores every position (0 / 0 is NaN where neither operand stores a value). The union's
size depends on the coordinates, so it is computed eagerly; under a transform (jit, vmap, grad), where the
coordinates are traced, `add`/`subtract` store both operands' entries side by side (an uncoalesced result with
the same dense value) and `multiply` keeps the first operand's pattern (the product is zero elsewhere).
"""
from __future__ import annotations

import numbers

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor
from paddle_fn.sparse.tensor import (
    INDEX_DTYPE, SparseCooTensor, SparseTensor, _flat_coordinates, coo_to_csr, sorted_row_bound)
from paddle_fn.sparse.unary import check_sparse, map_values
from paddle_fn.tensor._util import eager_value

__all__ = ["add", "subtract", "multiply", "divide", "mask_as", "is_same_shape"]


def _check_pair(op, x, y):
    if list(x.shape) != list(y.shape):
        raise ShapeError(f"paddle.sparse.{op}: x has shape {list(x.shape)} and y {list(y.shape)}; sparse arithmetic "
                         "needs equal shapes (no broadcasting)")
    if isinstance(x, SparseTensor) and isinstance(y, SparseTensor) and x.is_sparse_coo() != y.is_sparse_coo():
        raise TypeError(f"paddle.sparse.{op}: x and y must both be COO or both CSR; convert one with "
                        "to_sparse_coo() / to_sparse_csr()")


def _as_coo(x: SparseTensor) -> SparseCooTensor:
    return x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()


def _like(x: SparseTensor, coo: SparseCooTensor) -> SparseTensor:
    """`coo` in `x`'s format."""
    return coo if isinstance(x, SparseCooTensor) else coo_to_csr(coo)


def _union(x: SparseCooTensor, y: SparseCooTensor):
    """(union COO with zero values, slots of x's entries in it, slots of y's entries), or None when the
    coordinates are traced."""
    ix, iy = eager_value(x.indices()), eager_value(y.indices())
    if ix is None or iy is None or x.sparse_dim() != y.sparse_dim():
        return None
    sparse_shape = x.shape[:x.sparse_dim()]
    fx, fy = _flat_coordinates(ix, sparse_shape), _flat_coordinates(iy, sparse_shape)
    flat = np.union1d(fx, fy)
    coords = np.stack(np.unravel_index(flat, sparse_shape)).astype(np.int64).reshape(len(sparse_shape), -1)
    return coords, np.searchsorted(flat, fx), np.searchsorted(flat, fy)


def _spread(values: Tensor, slots: np.ndarray, size: int, like: SparseCooTensor) -> Tensor:
    """The values placed at `slots` of `size` entries (zeros elsewhere; repeated slots add up)."""
    out = T.zeros([size] + like.shape[like.sparse_dim():], dtype=values.dtype)
    return T.scatter_nd_add(out, T.to_tensor(slots.reshape(-1, 1).astype(np.int64)), values)


def _sparse_binary(op, x, y, combine):
    cx, cy = _as_coo(x), _as_coo(y)
    union = _union(cx, cy)
    if union is None:
        return None
    coords, sx, sy = union
    n = coords.shape[1]
    vals = combine(_spread(cx.values(), sx, n, cx), _spread(cy.values(), sy, n, cy))
    return _like(x, SparseCooTensor(T.to_tensor(coords), vals, x.shape, sorted_row_bound(coords, x.shape)))


def _dense_at(dense: Tensor, x: SparseCooTensor) -> Tensor:
    """The elements (or dense blocks) of `dense` at `x`'s coordinates."""
    return T.gather_nd(dense, T.transpose(T.cast(x.indices(), INDEX_DTYPE), [1, 0]))


def _add_or_subtract(op, x, y, sign):
    if isinstance(y, numbers.Number):
        raise TypeError(f"paddle.sparse.{op}: adding a number to a sparse Tensor would store every position; use "
                        "x.to_dense() + y")
    _check_pair(op, x, y)
    if not isinstance(x, SparseTensor) or not isinstance(y, SparseTensor):  # a dense operand: a dense result
        dx = x.to_dense() if isinstance(x, SparseTensor) else x
        dy = y.to_dense() if isinstance(y, SparseTensor) else y
        return dx + dy if sign > 0 else dx - dy
    out = _sparse_binary(op, x, y, (lambda a, b: a + b) if sign > 0 else (lambda a, b: a - b))
    if out is not None:
        return out
    cx, cy = _as_coo(x), _as_coo(y)
    idx = T.concat([T.cast(cx.indices(), INDEX_DTYPE), T.cast(cy.indices(), INDEX_DTYPE)], axis=1)
    vals = T.concat([cx.values(), cy.values() if sign > 0 else -cy.values()])
    return _like(x, SparseCooTensor(idx, vals, x.shape))


def add(x, y, name=None):
    """x + y for sparse Tensors of one format (the union of their patterns), or with a dense Tensor (a dense
    result).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
        >>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
        >>> z = paddle.sparse.add(x.to_sparse_csr(), y.to_sparse_csr())
        >>> z.to_dense().numpy()
        array([[ 0., -1.,  0.,  0.],
               [ 0.,  2., -6.,  0.],
               [ 6.,  8.,  4.,  8.]], dtype=float32)
        >>> z.crows().numpy()
        array([0, 2, 4, 8])
    """
    return _add_or_subtract("add", x, y, 1)


def subtract(x, y, name=None):
    """x - y for sparse Tensors of one format (the union of their patterns), or with a dense Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
        >>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
        >>> paddle.sparse.subtract(x.to_sparse_csr(), y.to_sparse_csr()).to_dense().numpy()
        array([[ 0., -1.,  0.,  4.],
               [ 0., -2.,  0.,  0.],
               [ 2.,  2., -4., -8.]], dtype=float32)
    """
    return _add_or_subtract("subtract", x, y, -1)


def multiply(x, y, name=None):
    """x * y: elementwise, for sparse Tensors of one format (the union of their patterns), a sparse and a dense
    Tensor (the sparse pattern), or a sparse Tensor and a number.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
        >>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
        >>> paddle.sparse.multiply(x.to_sparse_csr(), y.to_sparse_csr()).to_dense().numpy()
        array([[ 0., -0.,  0., -4.],
               [ 0.,  0.,  9.,  0.],
               [ 8., 15.,  0.,  0.]], dtype=float32)
        >>> paddle.sparse.multiply(x.to_sparse_coo(2), 2.0).values().numpy()
        array([-2.,  4., -6.,  8., 10.], dtype=float32)
    """
    if isinstance(y, numbers.Number):
        return map_values("multiply", lambda v: v * y, x)
    if isinstance(x, numbers.Number):
        return map_values("multiply", lambda v: x * v, y)
    _check_pair("multiply", x, y)
    if not isinstance(x, SparseTensor):
        x, y = y, x
    check_sparse("multiply", x)
    if isinstance(y, SparseTensor):
        out = _sparse_binary("multiply", x, y, lambda a, b: a * b)
        if out is not None:
            return out
        y = y.to_dense()
    cx = _as_coo(x)
    return _like(x, cx._with_values(cx.values() * _dense_at(T.cast(y, x.dtype), cx)))


def divide(x, y, name=None):
    """x / y: for two sparse Tensors every position is stored (where neither stores a value, 0 / 0 gives NaN, as
    in Paddle 3.3); a sparse Tensor over a number keeps its pattern.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
        >>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
        >>> paddle.sparse.divide(x.to_sparse_csr(), y.to_sparse_csr()).to_dense().numpy()
        array([[       nan,       -inf,        nan, -1.       ],
               [       nan,  0.       ,  1.       ,        nan],
               [ 2.       ,  1.6666666,  0.       ,  0.       ]], dtype=float32)
    """
    if isinstance(y, numbers.Number):
        return map_values("divide", lambda v: v / y, x)
    check_sparse("divide", x)
    _check_pair("divide", x, y)
    quotient = x.to_dense() / (y.to_dense() if isinstance(y, SparseTensor) else y)
    if not isinstance(y, SparseTensor):
        return quotient
    return _like(x, full_pattern(quotient, x.sparse_dim() if isinstance(x, SparseCooTensor) else x.ndim))


def full_pattern(dense: Tensor, sparse_dim: int) -> SparseCooTensor:
    """A COO Tensor that stores every position of `dense`'s first `sparse_dim` axes (static: works traced)."""
    sparse_shape = dense.shape[:sparse_dim]
    coords = np.stack(np.unravel_index(np.arange(int(np.prod(sparse_shape))), sparse_shape)).astype(np.int64)
    values = T.reshape(dense, [-1] + dense.shape[sparse_dim:])
    return SparseCooTensor(T.to_tensor(coords.reshape(sparse_dim, -1)), values, dense.shape,
                           sorted_row_bound(coords, dense.shape))


def mask_as(x, mask, name=None):
    """The elements of dense `x` at the stored positions of sparse `mask`, as a sparse Tensor of `mask`'s pattern
    and format.

    Example:
        >>> import paddle_fn as paddle
        >>> mask = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1., 1., 1.], [3, 3])
        >>> x = paddle.arange(9, dtype='float32').reshape([3, 3])
        >>> paddle.sparse.mask_as(x, mask).values().numpy()
        array([1., 5., 6.], dtype=float32)
    """
    check_sparse("mask_as", mask)
    _check_pair("mask_as", x, mask)
    if isinstance(mask, SparseCooTensor):
        return mask._with_values(_dense_at(x, mask))
    return mask._with_values(_dense_at(x, mask.to_sparse_coo()))


def is_same_shape(x, y):
    """Whether `x` and `y` (sparse or dense) have the same shape.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.rand([2, 3, 8])
        >>> paddle.sparse.is_same_shape(x, paddle.rand([2, 3, 8]).to_sparse_csr())
        True
        >>> paddle.sparse.is_same_shape(x, paddle.rand([2, 5]))
        False
    """
    return list(x.shape) == list(y.shape)

