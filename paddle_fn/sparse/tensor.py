"""The sparse formats: `SparseCooTensor` and `SparseCsrTensor`, pytrees of dense Tensors plus a static shape.

A COO Tensor holds `indices` (int64, [sparse_dim, nnz]) and `values` ([nnz, *dense_shape]); a CSR Tensor holds
`crows` (int64, [rows + 1], or [batch * (rows + 1)] for a batch of matrices), `cols` (int64, [nnz]) and `values`
([nnz]). The shape, and `row_bound` (the most entries any row of the matrices holds, known when the Tensor was
built from concrete indices sorted by row), are static: they are the pytree's auxiliary data, so `grad`, `vmap`
and `jit` see the index and value Tensors as ordinary leaves, and a jitted function retraces only when a shape,
the number of stored entries or the row bound changes. Sparse Tensors are not `Tensor` subclasses (docs/architecture.md says why).
"""
from __future__ import annotations

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core import dtypes
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.pytree import register_pytree_node
from paddle_fn.core.size import Size
from paddle_fn.core.trace import Tensor, format_values
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.promotion import as_tensor

INDEX_DTYPE = dtypes.int64


def _concrete(op: str, *tensors) -> list:
    """The numpy values of `tensors`, or a clear error when one is traced: `op`'s result has as many stored
    entries as the values say, and a traced program needs that number to be static."""
    values = [eager_value(t) for t in tensors]
    if any(v is None for v in values):
        raise ConcretizationError(
            f"paddle.sparse.{op}: the number of stored entries of the result depends on the values, which are being "
            "traced (jit/vmap/grad); call it eagerly, outside the transform, and pass the sparse Tensor in")
    return values


def sorted_row_bound(coords: np.ndarray, shape) -> int | None:
    """The most entries any row holds in the pattern `coords` ([ndim, nnz] coordinates of a matrix or a batch of
    matrices) when its entries are sorted by row, which the sparse-dense product's fast form needs
    (paddle_fn/prims/sparse.py); None for other patterns."""
    if coords.shape[0] != len(shape) or len(shape) not in (2, 3):
        return None
    if coords.shape[1] == 0:
        return 0
    rows = np.ravel_multi_index(tuple(coords[:-1]), tuple(shape[:-1]))
    return int(np.bincount(rows).max()) if np.all(rows[1:] >= rows[:-1]) else None


class SparseTensor:
    """What COO and CSR Tensors share: the static shape, the values, and Paddle's queries and methods."""
    __slots__ = ("_values", "_shape", "row_bound")

    def __init__(self, values: Tensor, shape, row_bound):
        self._values = values
        self._shape = tuple(int(s) for s in shape)
        self.row_bound = row_bound

    @property
    def shape(self) -> Size:
        return Size(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return self.ndim

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def stop_gradient(self) -> bool:
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool):
        self._values.stop_gradient = value

    @property
    def grad(self):
        """The gradient `backward` accumulated into the values, as a sparse Tensor of the same pattern."""
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def values(self) -> Tensor:
        return self._values

    def nnz(self) -> int:
        """The number of stored entries (duplicates of an uncoalesced COO Tensor included; the one entry of a full
        `paddle.sparse.sum`, whose value is 0-D as in Paddle)."""
        return self._values.shape[0] if self._values.ndim else 1

    def is_sparse(self) -> bool:
        return True

    def is_dense(self) -> bool:
        return False

    def numel(self) -> int:
        return int(np.prod(self._shape, dtype=np.int64))

    def astype(self, dtype):
        return self._with_values(T.cast(self._values, dtype))

    def _header(self) -> str:
        return (f"Tensor(shape={list(self._shape)}, dtype=paddle.{self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient},\n")

    def __repr__(self):
        parts = [f"       {name}={format_values(np.asarray(t.concrete_value()), ' ' * (8 + len(name)))}"
                 for name, t in self._printed()]
        return self._header() + ",\n".join(parts) + ")"

    __str__ = __repr__

    # the operators are paddle.sparse's functions, installed by paddle_fn.sparse (they are written on top of this
    # module)
    def __neg__(self):
        return self._with_values(-self._values)


class SparseCooTensor(SparseTensor):
    """A COO sparse Tensor: entry ``k`` has coordinates ``indices[:, k]`` over the first ``sparse_dim`` axes and the
    value ``values[k]`` (a scalar, or a dense block over the remaining axes).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [2, 0]], [3., 4.], [2, 3])
        >>> x.nnz(), x.sparse_dim(), x.dense_dim(), x.is_sparse_coo()
        (2, 2, 0, True)
        >>> x.to_dense().numpy()
        array([[0., 0., 3.],
               [4., 0., 0.]], dtype=float32)
    """
    __slots__ = ("_indices", "_coalesced")

    def __init__(self, indices: Tensor, values: Tensor, shape, row_bound=None, coalesced=False):
        super().__init__(values, shape, row_bound)
        self._indices = indices
        self._coalesced = coalesced  # Paddle's flag: set by coalesce() and the conversions to COO only

    def indices(self) -> Tensor:
        return self._indices

    def sparse_dim(self) -> int:
        return self._indices.shape[0]

    def dense_dim(self) -> int:
        return self.ndim - self.sparse_dim()

    def is_sparse_coo(self) -> bool:
        return True

    def is_sparse_csr(self) -> bool:
        return False

    def is_coalesced(self) -> bool:
        """Whether this Tensor comes from ``coalesce()`` or a conversion to COO (a dense or CSR Tensor's), whose
        coordinates are sorted with no repeats. As in Paddle it is a mark, not a test of the coordinates: a Tensor
        made by ``sparse_coo_tensor`` or by another sparse op is not marked, even when its coordinates are sorted.
        """
        return self._coalesced

    def _with_values(self, values) -> "SparseCooTensor":
        return SparseCooTensor(self._indices, values, self._shape, self.row_bound)

    def _with_index_dtype(self, dtype) -> "SparseCooTensor":
        return SparseCooTensor(T.cast(self._indices, dtype), self._values, self._shape, self.row_bound)

    def _printed(self):
        return [("indices", self._indices), ("values", self._values)]

    def to_dense(self) -> Tensor:
        """The dense Tensor (repeated coordinates add up)."""
        out = T.zeros(list(self._shape), dtype=self.dtype)
        if self.nnz() == 0:
            return out
        if self._values.ndim == 0:  # a full sum's one entry
            return T.reshape(self._values, self.shape)
        return T.scatter_nd_add(out, T.transpose(self._indices, [1, 0]), self._values)

    def to_sparse_coo(self, sparse_dim: int | None = None) -> "SparseCooTensor":
        if sparse_dim is None or sparse_dim == self.sparse_dim():
            return self
        return to_sparse_coo(self.to_dense(), sparse_dim)

    def to_sparse_csr(self) -> "SparseCsrTensor":
        return coo_to_csr(self)

    def coalesce(self) -> "SparseCooTensor":
        return coalesce(self)


class SparseCsrTensor(SparseTensor):
    """A CSR sparse matrix (or batch of matrices): row ``i`` holds the entries ``crows[i]:crows[i + 1]`` of `cols`
    and `values`; a 3-D Tensor stores one `crows` of ``rows + 1`` offsets per matrix, each starting at 0.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 1, 3], [2, 0, 1], [1., 2., 3.], [2, 3])
        >>> x.nnz(), x.is_sparse_csr()
        (3, True)
        >>> x.to_dense().numpy()
        array([[0., 0., 1.],
               [2., 3., 0.]], dtype=float32)
    """
    __slots__ = ("_crows", "_cols")

    def __init__(self, crows: Tensor, cols: Tensor, values: Tensor, shape, row_bound=None):
        super().__init__(values, shape, row_bound)
        self._crows, self._cols = crows, cols

    def crows(self) -> Tensor:
        return self._crows

    def cols(self) -> Tensor:
        return self._cols

    def is_sparse_coo(self) -> bool:
        return False

    def is_sparse_csr(self) -> bool:
        return True

    def _with_values(self, values) -> "SparseCsrTensor":
        return SparseCsrTensor(self._crows, self._cols, values, self._shape, self.row_bound)

    def _with_index_dtype(self, dtype) -> "SparseCsrTensor":
        return SparseCsrTensor(T.cast(self._crows, dtype), T.cast(self._cols, dtype), self._values, self._shape,
                               self.row_bound)

    def _printed(self):
        return [("crows", self._crows), ("cols", self._cols), ("values", self._values)]

    def to_dense(self) -> Tensor:
        return csr_to_coo(self).to_dense()

    def sparse_dim(self) -> int:
        """2, as Paddle reports for CSR Tensors (a batch of matrices too): the row and column axes are sparse."""
        return 2

    def dense_dim(self) -> int:
        """0: a CSR Tensor's values are scalars."""
        return 0

    def to_sparse_coo(self, sparse_dim: int | None = None) -> SparseCooTensor:
        coo = csr_to_coo(self)
        return coo if sparse_dim in (None, self.ndim) else coo.to_sparse_coo(sparse_dim)

    def to_sparse_csr(self) -> "SparseCsrTensor":
        return self


register_pytree_node(
    SparseCooTensor, lambda x: ((x._indices, x._values), (x._shape, x.row_bound)),
    lambda aux, ch: SparseCooTensor(ch[0], ch[1], aux[0], aux[1]))
register_pytree_node(
    SparseCsrTensor, lambda x: ((x._crows, x._cols, x._values), (x._shape, x.row_bound)),
    lambda aux, ch: SparseCsrTensor(ch[0], ch[1], ch[2], aux[0], aux[1]))


def _flat_coordinates(indices: np.ndarray, sparse_shape) -> np.ndarray:
    """Row-major positions of the coordinates `indices` ([sparse_dim, nnz]) in an array of `sparse_shape`."""
    if indices.shape[0] == 0:
        return np.zeros(indices.shape[1], np.int64)
    return np.ravel_multi_index(tuple(indices), tuple(sparse_shape)) if indices.size else np.zeros(0, np.int64)


def _index_tensor(data, op: str, what: str) -> Tensor:
    t = as_tensor(data)
    if not t.dtype.is_integer:
        raise TypeError(f"paddle.sparse.{op}: {what} must be integers, got {t.dtype.name}")
    return T.cast(t, INDEX_DTYPE)


def _values_tensor(values, dtype, place, stop_gradient) -> Tensor:
    """The values as given (a Tensor keeps its gradient link), cast to `dtype`; `stop_gradient=False` asks for a
    gradient, as in Paddle."""
    if isinstance(values, Tensor):
        v = values if dtype is None else T.cast(values, dtype)
        if not stop_gradient:
            v.stop_gradient = False
        return v
    return T.to_tensor(values, dtype=dtype, place=place, stop_gradient=stop_gradient)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO sparse Tensor from `indices` ([sparse_dim, nnz] integers) and `values` ([nnz, *dense_shape]).
    Without `shape`, each sparse axis is one past its largest index. Repeated coordinates are kept (the Tensor is
    uncoalesced) and add up in `to_dense`; `coalesce` merges them.

    Example:
        >>> import paddle_fn as paddle
        >>> coo = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
        >>> print(coo)
        Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
               indices=[[0, 1, 2],
                        [1, 2, 0]],
               values=[1., 2., 3.])
    """
    idx = _index_tensor(indices, "sparse_coo_tensor", "indices")
    vals = _values_tensor(values, dtype, place, stop_gradient)
    if idx.ndim != 2 or vals.ndim < 1 or idx.shape[1] != vals.shape[0]:
        raise ShapeError(f"paddle.sparse.sparse_coo_tensor: indices {idx.shape} must be [sparse_dim, nnz] and values "
                         f"{vals.shape} [nnz, *dense_shape] with the same nnz")
    concrete = eager_value(idx)
    sparse_dim = idx.shape[0]
    if shape is None:
        if concrete is None:
            raise ConcretizationError("paddle.sparse.sparse_coo_tensor: give `shape` when the indices are traced")
        extent = concrete.max(axis=1) + 1 if concrete.shape[1] else np.zeros(sparse_dim, np.int64)
        shape = [int(s) for s in extent] + vals.shape[1:]
    shape = [int(s) for s in shape]
    if len(shape) != sparse_dim + vals.ndim - 1 or list(shape[sparse_dim:]) != vals.shape[1:]:
        raise ShapeError(f"paddle.sparse.sparse_coo_tensor: shape {shape} must be the {sparse_dim} sparse axes of the "
                         f"indices followed by the dense axes of values {vals.shape[1:]}")
    row_bound = None
    if concrete is not None:
        if concrete.size and (concrete.min() < 0 or np.any(concrete.max(axis=1) >= np.array(shape[:sparse_dim]))):
            raise ShapeError(f"paddle.sparse.sparse_coo_tensor: indices must lie in [0, shape) for shape "
                             f"{shape[:sparse_dim]}")
        row_bound = sorted_row_bound(concrete, shape)
    return SparseCooTensor(idx, vals, shape, row_bound)


def _inferred_csr_shape(crows: Tensor, cols: Tensor) -> list:
    offsets = np.asarray(crows.numpy()).reshape(-1)
    batch = int(np.sum(offsets[:-1] > offsets[1:])) + 1
    if offsets.size % batch:
        raise ValueError(f"paddle.sparse.sparse_csr_tensor: the {offsets.size} row offsets do not split into the "
                         f"{batch} batches where they drop; pass shape")
    rows = offsets.size // batch - 1
    columns = int(np.asarray(cols.numpy()).max()) + 1 if cols.shape[0] else 0
    return [rows, columns] if batch == 1 else [batch, rows, columns]


def sparse_csr_tensor(crows, cols, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A CSR sparse matrix of `shape` ([rows, cols], or [batch, rows, cols]) from the row offsets `crows`, the
    column of each entry `cols` and the `values`. Without `shape` it is inferred as Paddle does: a batch starts
    wherever the offsets drop, the rows are the offsets per batch less one, the columns the largest column + 1.

    Example:
        >>> import paddle_fn as paddle
        >>> csr = paddle.sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
        >>> print(csr)
        Tensor(shape=[3, 4], dtype=paddle.int64, place=Place(cpu), stop_gradient=True,
               crows=[0, 2, 3, 5],
               cols=[1, 3, 2, 0, 1],
               values=[1, 2, 3, 4, 5])
    """
    crows_t = _index_tensor(crows, "sparse_csr_tensor", "crows")
    cols_t = _index_tensor(cols, "sparse_csr_tensor", "cols")
    vals = _values_tensor(values, dtype, place, stop_gradient)
    shape = _inferred_csr_shape(crows_t, cols_t) if shape is None else [int(s) for s in shape]
    if len(shape) not in (2, 3):
        raise ShapeError(f"paddle.sparse.sparse_csr_tensor: shape {shape} must be [rows, cols] or "
                         "[batch, rows, cols]")
    batch = shape[0] if len(shape) == 3 else 1
    if crows_t.shape != [batch * (shape[-2] + 1)] or cols_t.ndim != 1 or vals.shape != cols_t.shape:
        raise ShapeError(f"paddle.sparse.sparse_csr_tensor: for shape {shape}, crows needs {batch * (shape[-2] + 1)} "
                         f"offsets (got {crows_t.shape}) and cols and values one entry each per stored value (got "
                         f"{cols_t.shape} and {vals.shape})")
    concrete, concrete_cols = eager_value(crows_t), eager_value(cols_t)
    row_bound = None
    if concrete is not None:
        counts = np.diff(concrete.reshape(batch, shape[-2] + 1), axis=1)
        if counts.size and counts.min() < 0 or counts.sum() != cols_t.shape[0]:
            raise ShapeError(f"paddle.sparse.sparse_csr_tensor: crows {concrete.tolist()} must be non-decreasing "
                             f"from 0 in each matrix and end at the {cols_t.shape[0]} entries in all")
        if concrete_cols is not None:
            grow = np.repeat(np.arange(batch * shape[-2]), counts.ravel())
            leading = [grow // shape[-2], grow % shape[-2]] if len(shape) == 3 else [grow]
            row_bound = sorted_row_bound(np.stack(leading + [concrete_cols]), shape)
    return SparseCsrTensor(crows_t, cols_t, vals, shape, row_bound)


def csr_row_ids(x: SparseCsrTensor) -> Tensor:
    """The global row (batch * rows + row) of each stored entry, from `crows` with static-shape operations: a 1 is
    added at each row's first entry offset, and the running sum counts the rows begun."""
    rows = x.shape[-2]
    batch = x.shape[0] if x.ndim == 3 else 1
    nnz = x.nnz()
    crows = T.reshape(T.cast(x.crows(), INDEX_DTYPE), [batch, rows + 1])
    ends = crows[:, -1:]
    starts = T.cumsum(T.concat([T.zeros([1], INDEX_DTYPE), ends[:-1, 0]]), axis=0)  # where each matrix starts
    row_starts = T.reshape(crows[:, 1:rows] + starts[:, None], [-1]) if rows > 1 else None
    batch_starts = starts[1:]
    marks = T.zeros([nnz + 1], INDEX_DTYPE)
    if row_starts is not None:
        marks = T.scatter_nd_add(marks, row_starts[:, None], T.ones_like(row_starts))
    if batch > 1:  # a new matrix begins a new row too
        marks = T.scatter_nd_add(marks, batch_starts[:, None], T.ones_like(batch_starts))
    return T.cumsum(marks, axis=0)[:nnz]


def csr_to_coo(x: SparseCsrTensor) -> SparseCooTensor:
    grow = csr_row_ids(x)
    rows = x.shape[-2]
    cols = T.cast(x.cols(), INDEX_DTYPE)
    indices = T.stack([grow // rows, grow % rows, cols] if x.ndim == 3 else [grow, cols])
    return SparseCooTensor(indices, x.values(), x.shape, x.row_bound, coalesced=True)


def coo_to_csr(x: SparseCooTensor) -> SparseCsrTensor:
    """Sort the entries by their coordinates and count them per row (static shapes: works under jit)."""
    if x.ndim not in (2, 3) or x.dense_dim() != 0:
        raise ShapeError(f"to_sparse_csr: a CSR Tensor is a matrix or a batch of matrices with scalar values; this "
                         f"COO Tensor has shape {x.shape} with {x.sparse_dim()} sparse axes")
    idx = T.cast(x.indices(), INDEX_DTYPE)
    rows = x.shape[-2]
    grow = idx[0] * rows + idx[1] if x.ndim == 3 else idx[0]
    flat = grow * x.shape[-1] + idx[-1]
    order = T.argsort(flat, axis=0)
    grow_sorted = T.gather(grow, order)
    n_rows = (x.shape[0] if x.ndim == 3 else 1) * rows
    counts = T.scatter_nd_add(T.zeros([n_rows], INDEX_DTYPE), grow_sorted[:, None], T.ones_like(grow_sorted))
    counts = T.reshape(counts, [-1, rows])
    crows = T.reshape(T.concat([T.zeros([counts.shape[0], 1], INDEX_DTYPE), T.cumsum(counts, axis=1)], axis=1), [-1])
    return SparseCsrTensor(crows, T.gather(idx[-1], order), T.gather(x.values(), order), x.shape, x.row_bound)


def to_sparse_coo(x: Tensor, sparse_dim: int) -> SparseCooTensor:
    """The entries of dense `x` that are not zero, over its first `sparse_dim` axes (a block over the other axes is
    stored when any of its elements is not zero). Eager only: the number of entries depends on the values."""
    x = as_tensor(x)
    sparse_dim = int(sparse_dim)
    if not 0 < sparse_dim <= x.ndim:
        raise ShapeError(f"to_sparse_coo: sparse_dim must be in [1, {x.ndim}] for a Tensor of shape {x.shape}, "
                         f"got {sparse_dim}")
    (value,) = _concrete("to_sparse_coo", x)
    present = value != 0
    if sparse_dim < x.ndim:
        present = present.any(axis=tuple(range(sparse_dim, x.ndim)))
    coords = np.stack(np.nonzero(present)).astype(np.int64).reshape(sparse_dim, -1)
    idx = T.to_tensor(coords)
    values = T.gather_nd(x, T.transpose(idx, [1, 0])) if coords.shape[1] else T.zeros(
        [0] + x.shape[sparse_dim:], dtype=x.dtype)
    return SparseCooTensor(idx, values, x.shape, sorted_row_bound(coords, x.shape), coalesced=True)


def to_sparse_csr(x: Tensor) -> SparseCsrTensor:
    """The entries of dense `x` (a matrix or a batch of matrices) that are not zero, in CSR form (eager only)."""
    x = as_tensor(x)
    if x.ndim not in (2, 3):
        raise ShapeError(f"to_sparse_csr: a CSR Tensor is a matrix or a batch of matrices, got shape {x.shape}")
    return coo_to_csr(to_sparse_coo(x, x.ndim))


def coalesce(x: SparseCooTensor, name=None) -> SparseCooTensor:
    """Sort the coordinates of COO `x` and add up the values of repeated ones (eager only: the number of entries
    depends on the coordinates).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
        >>> x = paddle.sparse.coalesce(x)
        >>> x.indices().numpy()
        array([[0, 1],
               [1, 2]])
        >>> x.values().numpy()
        array([3., 3.], dtype=float32)
    """
    if not isinstance(x, SparseCooTensor):
        raise TypeError(f"paddle.sparse.coalesce: expects a COO sparse Tensor, got {type(x).__name__}")
    (idx,) = _concrete("coalesce", x.indices())
    sparse_shape = x.shape[:idx.shape[0]]
    flat = _flat_coordinates(idx, sparse_shape)
    unique, slot = np.unique(flat, return_inverse=True)
    coords = np.stack(np.unravel_index(unique, sparse_shape)).astype(np.int64).reshape(idx.shape[0], -1)
    values = T.scatter_nd_add(T.zeros([unique.size] + x.shape[idx.shape[0]:], dtype=x.dtype),
                              T.to_tensor(slot.reshape(-1, 1).astype(np.int64)), x.values())
    return SparseCooTensor(T.to_tensor(coords), values, x.shape, sorted_row_bound(coords, x.shape), coalesced=True)
