"""`sparse_dense_dot`: a sparse matrix, given by the (row, column, value) of its stored entries, times a dense
matrix (what `paddle.sparse.matmul` computes).

Why a primitive, when the product is a gather and a segment sum of other primitives: eagerly, that composite
materializes one dense row per stored entry (nnz x n) and adds them up with numpy's unbuffered `add.at`, 1.3-1.8 s
for a 1%-dense 4096 x 4096 matrix times 4096 x 256, where scipy's CSR kernel takes 5-30 ms and the dense product
0.1-0.3 s (benchmarks/bench_sparse.py); this primitive's eager implementation is scipy's kernel. Its own lowering is
the composite in its generic form, a gather and a scatter-add, which IREE's CPU backend compiles to
a serial loop; there a row of lowering/targets.py lowers the `expansion` instead, the form IREE runs fast when the
entries come sorted by row and the most entries any row holds (`row_bound`) is known: an ELLPACK table of
`row_bound` slots per row, scanned over its slot columns (one gather of dense rows and one multiply-add per step,
fused by IREE). (Sorting the entries in the program instead is no option: IREE 3.13 fails to compile a sort of
167,772 entries, "exceeded stack allocation limit".) The cotangent of the dense operand is the same primitive on
the transposed pattern, whose entries are not sorted by column, so the reverse pass takes the scatter-add form.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.autodiff import Zero, is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front, not_mapped
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import Primitive, symbolic_zeros
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import base, elementwise as ew, reduction as red, slicing as sl, structural as st
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.control_flow import scan

_ROWS = sl.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_ELEMENTS = sl.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))


def _take(x, index):
    """x[index] for a 1-D int `index` into the first axis of a vector or a matrix."""
    a = get_aval(x)
    dn = _ROWS if a.ndim == 2 else _ELEMENTS
    sizes = (1, a.shape[1]) if a.ndim == 2 else (1,)
    return sl.gather(x, base.reshape(index, new_sizes=(get_aval(index).shape[0], 1)), dimension_numbers=dn,
                     slice_sizes=sizes)


def _add_at(target, index, updates):
    """`target` with `updates` added at the positions (rows) `index` of its first axis; repeats add up."""
    a = get_aval(target)
    dn = sl.ScatterDimensionNumbers(update_window_dims=(1,) if a.ndim == 2 else (), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
    return sl.scatter_add(target, base.reshape(index, new_sizes=(get_aval(index).shape[0], 1)), updates,
                          dimension_numbers=dn)


def _scaled_rows(dense, cols, values):
    rows = _take(dense, cols)
    return ew.mul(rows, base.broadcast_in_dim(values, shape=get_aval(rows).shape, broadcast_dimensions=(0,)))


def segment_form(rows, cols, values, dense, *, num_rows):
    """sum over entries e of values[e] * dense[cols[e]] into row rows[e]: a gather and a scatter-add."""
    n = get_aval(dense).shape[1]
    zeros = base.full((num_rows, n), 0, get_aval(dense).dtype)
    return _add_at(zeros, rows, _scaled_rows(dense, cols, values))


def ell_form(rows, cols, values, dense, *, num_rows, row_bound):
    """The same product through an ELLPACK table of `row_bound` slots per row, scanned over its slot columns; the
    entries must come sorted by row."""
    nnz = get_aval(values).shape[0]
    index = get_aval(rows).dtype
    entry = st.iota(dtype=index, shape=(nnz,), dimension=0)
    ones = base.full((nnz,), 1, index)
    counts = _add_at(base.full((num_rows,), 0, index), rows, ones)
    first = ew.sub(red.cumsum(counts, axis=0), counts)  # where each row's entries start
    position = ew.sub(entry, _take(first, rows))
    slot = ew.add(ew.mul(rows, base.full((nnz,), row_bound, index)), position)
    # slot (row, position) names entry `entry`; empty slots name the appended zero entry `nnz`
    table = _add_at(base.full((num_rows * row_bound,), nnz, index), slot, ew.sub(entry, base.full((nnz,), nnz, index)))
    table = base.transpose(base.reshape(table, new_sizes=(num_rows, row_bound)), permutation=(1, 0))
    padded_cols = st.concatenate(cols, base.full((1,), 0, get_aval(cols).dtype), dimension=0)
    padded_values = st.concatenate(values, base.full((1,), 0, get_aval(values).dtype), dimension=0)

    def add_slot(acc, slot_entries):
        return ew.add(acc, _scaled_rows(dense, _take(padded_cols, slot_entries), _take(padded_values, slot_entries))), None

    start = base.full((num_rows, get_aval(dense).shape[1]), 0, get_aval(dense).dtype)
    out, _ = scan(add_slot, start, table)
    return out


def _shape(rows, cols, values, dense, *, num_rows, row_bound):
    name = "sparse_dense_dot"
    if rows.ndim != 1 or cols.shape != rows.shape or values.shape != rows.shape or dense.ndim != 2:
        raise ShapeError(f"{name}: rows {fmt(rows)}, cols {fmt(cols)} and values {fmt(values)} must be vectors of one "
                         f"length (one entry each) and dense {fmt(dense)} a matrix")
    if rows.dtype.kind not in "iu" or cols.dtype.kind not in "iu":
        raise DTypeError(f"{name}: rows {fmt(rows)} and cols {fmt(cols)} must be integers")
    if values.dtype != dense.dtype or values.dtype.kind not in "fc":
        raise DTypeError(f"{name}: values {fmt(values)} and dense {fmt(dense)} must have one float dtype")
    if num_rows < 0 or row_bound is not None and row_bound < 0:
        raise ShapeError(f"{name}: num_rows {num_rows} and row_bound {row_bound} must not be negative")
    return ShapedArray((num_rows, dense.shape[1]), dense.dtype)


def _impl(rows, cols, values, dense, *, num_rows, row_bound):
    import scipy.sparse  # deliberate lazy import: scipy.sparse takes longer to import than paddle_fn itself
    compute = np.float32 if dense.dtype.itemsize < 4 else dense.dtype  # scipy has no float16 / bfloat16
    matrix = scipy.sparse.csr_matrix((values.astype(compute, copy=False), (rows, cols)), shape=(num_rows, dense.shape[0]))
    return np.asarray(matrix @ dense.astype(compute, copy=False)).astype(dense.dtype, copy=False)


def sparse_dense_dot(rows, cols, values, dense, *, num_rows: int, row_bound=None):
    """The (num_rows x dense.shape[0]) matrix with entries (rows[e], cols[e], values[e]) (repeats add up) times
    `dense`. `row_bound`, when given, promises that `rows` is sorted and no row holds more than `row_bound`
    entries (the compiled fast form)."""
    return sparse_dense_dot_p.bind(rows, cols, values, dense, num_rows=int(num_rows),
                                   row_bound=None if row_bound is None else int(row_bound))


@symbolic_zeros
def _jvp(primals, tangents, **params):
    rows, cols, values, dense = primals
    _, _, t_values, t_dense = tangents
    terms = []
    if not isinstance(t_values, Zero):
        terms.append(sparse_dense_dot_p.bind(rows, cols, t_values, dense, **params))
    if not isinstance(t_dense, Zero):
        terms.append(sparse_dense_dot_p.bind(rows, cols, values, t_dense, **params))
    tangent = terms[0] if len(terms) == 1 else ew.add(*terms)
    return sparse_dense_dot_p.bind(rows, cols, values, dense, **params), tangent


def _transpose(ct, rows, cols, values, dense, *, num_rows, row_bound):
    if is_undefined(values) and is_undefined(dense):
        raise TypeError("sparse_dense_dot: values and dense are both linear; their product is not linear")
    if is_undefined(values):  # d values[e] = <ct[rows[e]], dense[cols[e]]>
        return [None, None, base.reduce_sum(ew.mul(_take(ct, rows), _take(dense, cols)), axes=(1,)), None]
    num_cols = dense.aval.shape[0]
    return [None, None, None, sparse_dense_dot_p.bind(cols, rows, values, ct, num_rows=num_cols, row_bound=None)]


def _batch(vals, dims, *, num_rows, row_bound):
    rows, cols, values, dense = vals
    size = batch_size(vals, dims)
    if all(d is not_mapped for d in dims[:3]):  # one pattern: the batch rides along the dense operand's columns
        dense = bdim_at_front(dense, dims[3], size)
        k, n = get_aval(dense).shape[1:]
        wide = base.reshape(base.transpose(dense, permutation=(1, 0, 2)), new_sizes=(k, size * n))
        out = sparse_dense_dot_p.bind(rows, cols, values, wide, num_rows=num_rows, row_bound=row_bound)
        return base.reshape(out, new_sizes=(num_rows, size, n)), 1
    # a pattern per batch member: one block-diagonal product, member b's rows and columns offset by b blocks (the
    # offsets keep the rows sorted and each row's entries)
    rows, cols, values, dense = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    nnz = get_aval(rows).shape[1]
    k, n = get_aval(dense).shape[1:]
    member = st.iota(dtype=get_aval(rows).dtype, shape=(size, nnz), dimension=0)

    def offset(index, block):
        shifted = ew.add(index, ew.mul(member, base.full((size, nnz), block, get_aval(rows).dtype)))
        return base.reshape(shifted, new_sizes=(size * nnz,))

    cols = ew.convert_element_type(cols, new_dtype=get_aval(rows).dtype)
    out = sparse_dense_dot_p.bind(offset(rows, num_rows), offset(cols, k), base.reshape(values, new_sizes=(size * nnz,)),
                                  base.reshape(dense, new_sizes=(size * k, n)), num_rows=size * num_rows,
                                  row_bound=row_bound)
    return base.reshape(out, new_sizes=(size, num_rows, n)), 0


def _lower(ctx, rows, cols, values, dense, *, num_rows, row_bound):
    def product(rows, cols, values, dense):
        return [segment_form(rows, cols, values, dense, num_rows=num_rows)]

    prog, consts = trace_to_program(product, list(ctx.avals_in), transform="lowering")
    const_names = [ctx.constant(c.concrete_value(), c.aval) for c in consts]
    return ctx.inline(prog, const_names + [rows, cols, values, dense])[0]


def _expansion(rows, cols, values, dense, *, num_rows, row_bound):
    if row_bound:
        return ell_form(rows, cols, values, dense, num_rows=num_rows, row_bound=row_bound)
    return segment_form(rows, cols, values, dense, num_rows=num_rows)


sparse_dense_dot_p = Primitive(
    "sparse_dense_dot", shape_rule=_shape, impl=_impl, jvp=_jvp, transpose=_transpose, batch=_batch, lower=_lower,
    expansion=_expansion, cost=lambda avals_in, avals_out, **params: avals_in[2].size * avals_in[3].shape[1])
