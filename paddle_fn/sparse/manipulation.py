"""`paddle.sparse`'s reductions and shape functions: `sum`, `transpose`, `reshape`, `slice`.

Coordinates are rewritten with static-shape arithmetic (so these work under jit), except where the number of
stored entries depends on them: `slice` keeps the entries inside the window, and `sum` over a sparse axis merges
the entries that meet, eagerly (traced, `sum` leaves them side by side: an uncoalesced result, same dense value).
"""
from __future__ import annotations

import builtins

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.sparse.tensor import (
    INDEX_DTYPE, SparseCooTensor, SparseCsrTensor, _concrete, coalesce, coo_to_csr)
from paddle_fn.sparse.unary import check_sparse
from paddle_fn.tensor._util import eager_value, normalize_axis

__all__ = ["sum", "transpose", "reshape", "slice"]


def _to_format(x, coo: SparseCooTensor):
    return coo if isinstance(x, SparseCooTensor) else coo_to_csr(coo)


def _merge_if_eager(coo: SparseCooTensor) -> SparseCooTensor:
    return coalesce(coo) if eager_value(coo.indices()) is not None else coo


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 - Paddle's name
    """The sum of sparse `x`'s elements along `axis` (None: all of them), as a sparse Tensor. A CSR Tensor sums
    over its last axis only, keeping it as size 1.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[-2., 0.], [1., 2.]]).to_sparse_coo(1)
        >>> paddle.sparse.sum(x).values().numpy()
        array(1., dtype=float32)
        >>> paddle.sparse.sum(x, axis=-1).values().numpy()
        array([-2.,  3.], dtype=float32)
    """
    check_sparse("sum", x)
    values = x.values() if dtype is None else T.cast(x.values(), dtype)
    if axis is None:
        return _sum_all(x, values, keepdim)
    axis = normalize_axis("paddle.sparse.sum", axis, x.ndim)
    if isinstance(x, SparseCsrTensor):
        return _sum_csr_rows(x, values, axis)
    sparse_dim = x.sparse_dim()
    shape = x.shape
    if axis >= sparse_dim:  # a dense axis: sum inside each stored block
        out_shape = shape[:axis] + ([1] if keepdim else []) + shape[axis + 1:]
        return SparseCooTensor(x.indices(), values.sum(axis=axis - sparse_dim + 1, keepdim=keepdim), out_shape,
                               x.row_bound)
    idx = T.cast(x.indices(), INDEX_DTYPE)
    if keepdim or sparse_dim == 1:  # the axis stays, as size 1 (a COO Tensor keeps one sparse axis)
        rows = [idx[i] if i != axis else T.zeros_like(idx[i]) for i in range(sparse_dim)]
        out_shape = shape[:axis] + [1] + shape[axis + 1:]
    else:
        rows = [idx[i] for i in range(sparse_dim) if i != axis]
        out_shape = shape[:axis] + shape[axis + 1:]
    return _merge_if_eager(SparseCooTensor(T.stack(rows), values, out_shape))


def _sum_all(x, values, keepdim):
    total = values.sum()
    if isinstance(x, SparseCsrTensor):  # Paddle 3.3 gives a 1 x 1 matrix for a batch too
        return SparseCsrTensor(T.to_tensor(np.array([0, 1], np.int64)), T.zeros([1], INDEX_DTYPE),
                               T.reshape(total, [1]), [1, 1], 1)
    if keepdim:
        return SparseCooTensor(T.zeros([x.ndim, 1], INDEX_DTYPE), T.reshape(total, [1]), [1] * x.ndim)
    # Paddle 3.3's layout for the full sum: a 1-D index and a 0-D value
    return SparseCooTensor(T.zeros([1], INDEX_DTYPE), total, [1])


def _sum_csr_rows(x: SparseCsrTensor, values, axis):
    if axis != x.ndim - 1:
        raise ShapeError(f"paddle.sparse.sum: a CSR Tensor sums over its last axis ({x.ndim - 1}) or all axes, got "
                         f"axis {axis}; convert with to_sparse_coo() for other axes")
    coo = x.to_sparse_coo()
    idx = T.cast(coo.indices(), INDEX_DTYPE)
    rows = T.stack([idx[i] for i in range(x.ndim - 1)] + [T.zeros_like(idx[0])])
    summed = _merge_if_eager(SparseCooTensor(rows, values, x.shape[:-1] + [1]))
    return coo_to_csr(summed)


def transpose(x, perm, name=None):
    """Sparse `x` with its axes permuted by `perm` (a COO Tensor's sparse axes stay before its dense ones). COO
    coordinates keep their order; a CSR result is sorted by row.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0., -1., 2.], [3., 0., 0.]]).to_sparse_coo(2)
        >>> out = paddle.sparse.transpose(x, [1, 0])
        >>> out.shape, out.indices().numpy()
        (paddle.Size([3, 2]), array([[1, 2, 0],
               [0, 0, 1]]))
    """
    check_sparse("transpose", x)
    perm = [normalize_axis("paddle.sparse.transpose", p, x.ndim) for p in perm]
    if sorted(perm) != list(range(x.ndim)):
        raise ShapeError(f"paddle.sparse.transpose: perm {perm} is not a permutation of the {x.ndim} axes")
    coo = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()
    sparse_dim = coo.sparse_dim()
    if sorted(perm[:sparse_dim]) != list(range(sparse_dim)):
        raise ShapeError(f"paddle.sparse.transpose: perm {perm} moves a dense axis of a COO Tensor with {sparse_dim} "
                         "sparse axes among its sparse ones; convert with to_sparse_coo(x.ndim) first")
    idx = T.stack([coo.indices()[p] for p in perm[:sparse_dim]])
    dense_perm = [0] + [p - sparse_dim + 1 for p in perm[sparse_dim:]]
    values = coo.values() if dense_perm == list(range(len(dense_perm))) else T.transpose(coo.values(), dense_perm)
    return _to_format(x, SparseCooTensor(idx, values, [x.shape[p] for p in perm]))


def _resolve_shape(op, old_shape, shape):
    shape = [int(s) for s in shape]
    shape = [old_shape[i] if s == 0 else s for i, s in enumerate(shape)]
    total = int(np.prod(old_shape, dtype=np.int64))
    if shape.count(-1) > 1:
        raise ShapeError(f"paddle.sparse.{op}: at most one -1 in shape {shape}")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        shape[shape.index(-1)] = total // known if known else 0
    if int(np.prod(shape, dtype=np.int64)) != total:
        raise ShapeError(f"paddle.sparse.{op}: cannot reshape {old_shape} ({total} elements) to {shape}")
    return shape


def reshape(x, shape, name=None):
    """Sparse `x` with a new shape (0 keeps an axis, -1 is inferred); a COO Tensor's dense axes must stay.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0., -1., 0., 2.], [0., 0., -3., 0.], [4., 5., 0., 0.]]).to_sparse_coo(2)
        >>> out = paddle.sparse.reshape(x, [4, -1])
        >>> out.shape, out.indices().numpy()
        (paddle.Size([4, 3]), array([[0, 1, 2, 2, 3],
               [1, 0, 0, 2, 0]]))
    """
    check_sparse("reshape", x)
    coo = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()
    sparse_dim = coo.sparse_dim()
    dense_shape = x.shape[sparse_dim:]
    new_shape = _resolve_shape("reshape", x.shape, shape)
    new_sparse = len(new_shape) - len(dense_shape)
    if new_sparse < 1 or new_shape[new_sparse:] != dense_shape:
        raise ShapeError(f"paddle.sparse.reshape: the dense axes {dense_shape} of a COO Tensor must stay at the end of "
                         f"the new shape, got {new_shape}")
    idx = T.cast(coo.indices(), INDEX_DTYPE)
    flat = T.zeros([coo.nnz()], INDEX_DTYPE)
    for i, size in enumerate(x.shape[:sparse_dim]):
        flat = flat * size + idx[i]
    coords = []
    for size in reversed(new_shape[:new_sparse]):
        coords.append(flat % size)
        flat = flat // size
    return _to_format(x, SparseCooTensor(T.stack(coords[::-1]), coo.values(), new_shape))


def slice(x, axes, starts, ends, name=None):  # noqa: A001 - Paddle's name
    """The part of sparse `x` with ``starts[i] <= index < ends[i]`` along each of `axes` (negative values count
    from the end), as a sparse Tensor of the same format (eager only: the number of entries kept depends on the
    coordinates).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[4, 0, 7, 0], [0, 0, 5, 0], [-4, 2, 0, 0]]).to_sparse_coo(2)
        >>> out = paddle.sparse.slice(x, [0, 1], [1, 0], [3, -2])
        >>> out.indices().numpy(), out.values().numpy()
        (array([[1, 1],
               [0, 1]]), array([-4,  2]))
    """
    check_sparse("slice", x)
    if not (len(axes) == len(starts) == len(ends)):
        raise ShapeError(f"paddle.sparse.slice: axes {axes}, starts {starts} and ends {ends} must have one entry each")
    coo = x if isinstance(x, SparseCooTensor) else x.to_sparse_coo()
    sparse_dim = coo.sparse_dim()
    (idx,) = _concrete("slice", coo.indices())
    keep = np.ones(idx.shape[1], bool)
    shift = np.zeros((sparse_dim, 1), np.int64)
    shape = list(x.shape)
    values = coo.values()
    for axis, start, end in zip(axes, starts, ends):
        axis = normalize_axis("paddle.sparse.slice", int(axis), x.ndim)
        start, end, _ = builtins.slice(int(start), int(end)).indices(shape[axis])
        end = max(end, start)
        shape[axis] = end - start
        if axis < sparse_dim:
            keep &= (idx[axis] >= start) & (idx[axis] < end)
            shift[axis] = start
        else:
            values = T.slice(values, [axis - sparse_dim + 1], [start], [end])
    positions = np.flatnonzero(keep)
    values = T.gather(values, T.to_tensor(positions.astype(np.int64)))
    return _to_format(x, SparseCooTensor(T.to_tensor(idx[:, positions] - shift), values, shape))
