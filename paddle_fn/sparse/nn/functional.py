"""`paddle.sparse.nn.functional`: activations of sparse Tensors, and the convolutions and pooling of
`paddle_fn.sparse.nn.conv`. `relu`, `relu6` and `leaky_relu` map the stored values (each maps 0 to 0); `softmax`
normalizes the stored values of each row, the entries that are not stored taking no part (as if they were -inf)."""
from __future__ import annotations

import numpy as np

import paddle_fn.nn.functional as F
import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.prims.elementwise import stop_gradient
from paddle_fn.sparse.nn.conv import (  # noqa: F401 - Paddle's names in this namespace
    conv2d, conv3d, max_pool3d, subm_conv2d, subm_conv2d_igemm, subm_conv3d, subm_conv3d_igemm)
from paddle_fn.sparse.tensor import INDEX_DTYPE, SparseCsrTensor, csr_row_ids
from paddle_fn.sparse.unary import check_sparse, map_values
from paddle_fn.tensor._util import normalize_axis

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv2d_igemm", "subm_conv3d", "subm_conv3d_igemm", "max_pool3d",
           "relu", "relu6", "leaky_relu", "softmax"]


def relu(x, name=None):
    """max(x, 0) of the stored values of sparse `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 1.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.functional.relu(x).values().numpy()
        array([0., 1.], dtype=float32)
    """
    return map_values("nn.functional.relu", F.relu, x)


def relu6(x, name=None):
    """min(max(x, 0), 6) of the stored values of sparse `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 8.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.functional.relu6(x).values().numpy()
        array([0., 6.], dtype=float32)
    """
    return map_values("nn.functional.relu6", F.relu6, x)


def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x >= 0, negative_slope * x elsewhere, of the stored values of sparse `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 5.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.functional.leaky_relu(x, 0.5).values().numpy()
        array([-1.,  5.], dtype=float32)
    """
    return map_values("nn.functional.leaky_relu", F.leaky_relu, x, negative_slope)


def _row_groups(x):
    """(row of each stored entry, number of rows, the row's column of each entry, row length)."""
    if isinstance(x, SparseCsrTensor):
        return csr_row_ids(x), int(np.prod(x.shape[:-1])), T.cast(x.cols(), INDEX_DTYPE), x.shape[-1]
    if x.dense_dim() != 0:
        raise ShapeError(f"paddle.sparse.nn.functional.softmax: a COO Tensor needs scalar values (dense_dim 0), got "
                         f"shape {x.shape} with {x.sparse_dim()} sparse axes")
    idx = T.cast(x.indices(), INDEX_DTYPE)
    row = T.zeros([x.nnz()], INDEX_DTYPE)
    for i, size in enumerate(x.shape[:-1]):
        row = row * size + idx[i]
    return row, int(np.prod(x.shape[:-1])), idx[-1], x.shape[-1]


def softmax(x, axis=-1, name=None):
    """Softmax over the last axis of sparse `x` (COO or CSR) among the stored values of each row.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2., 5.], [2, 3])
        >>> paddle.sparse.nn.functional.softmax(x).values().numpy()
        array([0.2689414, 0.7310586, 1.       ], dtype=float32)
    """
    check_sparse("nn.functional.softmax", x)
    if normalize_axis("paddle.sparse.nn.functional.softmax", axis, x.ndim) != x.ndim - 1:
        raise ShapeError(f"paddle.sparse.nn.functional.softmax: only the last axis ({x.ndim - 1}) is supported, got "
                         f"axis {axis}")
    row, num_rows, col, row_length = _row_groups(x)
    values = x.values()
    # each row's largest stored value, a constant shift (softmax does not change with it) for exp's range
    grid = T.put_along_axis(T.full([num_rows * row_length], float("-inf"), values.dtype), row * row_length + col,
                            stop_gradient(values), 0)
    row_max = T.amax(T.reshape(grid, [num_rows, row_length]), axis=1)
    exps = T.exp(values - T.gather(row_max, row))
    totals = T.scatter_nd_add(T.zeros([num_rows], values.dtype), row[:, None], exps)
    return x._with_values(exps / T.gather(totals, row))
