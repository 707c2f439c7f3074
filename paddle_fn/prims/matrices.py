"""Matrix helpers the decompositions' rules and expansions share (prims/linalg.py, prims/linalg_complex.py and the
Paddle-level linalg): products and transposes over the last two dimensions, triangles, diagonals and identities,
permutation matrices, and the cyclic Jacobi sweeps the eigenvalue and singular value expansions iterate. Each acts
on the last two dimensions (any leading dimensions are batch dimensions) unless it says it takes one matrix.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims._rules import scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reduce_sum, reshape, transpose
from paddle_fn.prims.bitwise import and_
from paddle_fn.prims.control_flow import fori_loop, while_loop
from paddle_fn.prims.elementwise import (abs, add, convert_element_type, div, eq, ge, gt, lt, mul, ne,  # noqa: A004
                                         select, sqrt, sub)
from paddle_fn.prims.reduction import dot_general, reduce_max, sort
from paddle_fn.prims.slicing import dynamic_slice, dynamic_update_slice
from paddle_fn.prims.structural import iota


def ndim_of(x):
    return get_aval(x).ndim


def shape_of(x):
    return get_aval(x).shape


def matrix_transpose(x):
    """Swap the last two dimensions."""
    nd = ndim_of(x)
    return transpose(x, permutation=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def matmul(a, b):
    """Matrix product over the last two dimensions; the leading dimensions of a and b are equal batch dims."""
    nd = ndim_of(a)
    batch = tuple(range(nd - 2))
    return dot_general(a, b, dimension_numbers=(((nd - 1,), (nd - 2,)), (batch, batch)))


def _band(shape, k, lower):
    """Boolean mask over the last two dims: column - row <= k (lower) or >= k (upper)."""
    nd = len(shape)
    rows = iota(dtype=dtypes.int32, shape=shape, dimension=nd - 2)
    cols = iota(dtype=dtypes.int32, shape=shape, dimension=nd - 1)
    diff, bound = sub(cols, rows), broadcast_in_dim(Tensor(np.int32(k)), shape=shape, broadcast_dimensions=())
    return ge(bound, diff) if lower else ge(diff, bound)


def masked(x, mask):
    """x where mask, 0 elsewhere, as a product so that it is linear in x (transposable)."""
    return mul(x, convert_element_type(mask, new_dtype=get_aval(x).dtype))


def tril(x, k=0):
    return masked(x, _band(shape_of(x), k, True))


def triu(x, k=0):
    return masked(x, _band(shape_of(x), k, False))


def eye_like(x):
    """The identity with x's (square) shape and dtype."""
    shape = shape_of(x)
    return convert_element_type(eq(iota(dtype=dtypes.int32, shape=shape, dimension=len(shape) - 2),
                                   iota(dtype=dtypes.int32, shape=shape, dimension=len(shape) - 1)),
                                new_dtype=get_aval(x).dtype)


def diagonal(x):
    """The main diagonal of square matrices: [..., n, n] -> [..., n]."""
    return reduce_sum(mul(x, eye_like(x)), axes=(ndim_of(x) - 1,))


def each_row(v, n):
    """v [..., k] as a matrix whose every row is v: [..., n, k] (entry [i, j] = v[j])."""
    shape = shape_of(v)
    nd = len(shape)
    return broadcast_in_dim(v, shape=shape[:-1] + (n,) + shape[-1:],
                            broadcast_dimensions=tuple(range(nd - 1)) + (nd,))


def each_column(v, k):
    """v [..., n] as a matrix whose every column is v: [..., n, k] (entry [i, j] = v[i])."""
    shape = shape_of(v)
    return broadcast_in_dim(v, shape=shape + (k,), broadcast_dimensions=tuple(range(len(shape))))


def adjoint(x):
    """The conjugate transpose of the last two dimensions (the transpose of real matrices)."""
    t = matrix_transpose(x)
    return cx.conj(t) if get_aval(x).dtype.kind == "c" else t


def hermitian_part(x):
    """The Hermitian (for real matrices, symmetric) part (A + A^H) / 2."""
    return mul(add(x, adjoint(x)), full_like(x, 0.5))


def entry(x, i, j):
    """x[i, j] of a matrix at traced indices, as a 1x1 matrix."""
    return dynamic_slice(x, i, j, slice_sizes=(1, 1))


def index_mask(n, k, compare, cols=1):
    """[n, cols] boolean: compare(row, k) for traced scalar k."""
    rows = iota(dtype=get_aval(k).dtype, shape=(n, cols), dimension=0)
    return compare(rows, broadcast_in_dim(k, shape=(n, cols), broadcast_dimensions=()))


def outer(u, v):
    """u [n, 1] times v [1, k] -> [n, k]."""
    return dot_general(u, v, dimension_numbers=(((1,), (0,)), ((), ())))


MAX_SWEEPS = 40


def permutation_matrix(perm, dtype):
    """P with P[i, j] = (perm[i] == j), so that P @ A = A[perm]."""
    shape = shape_of(perm) + shape_of(perm)[-1:]
    nd = len(shape)
    hit = eq(broadcast_in_dim(perm, shape=shape, broadcast_dimensions=tuple(range(nd - 1))),
             iota(dtype=dtypes.int32, shape=shape, dimension=nd - 1))
    return convert_element_type(hit, new_dtype=dtype)


def permute_rows(perm, x):
    """x[perm] for a permutation vector: P x."""
    return matmul(permutation_matrix(perm, get_aval(x).dtype), x)


def gap_reciprocals(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (w: [..., n])."""
    n = shape_of(w)[-1]
    gaps = sub(each_row(w, n), each_column(w, n))
    on_diag = ne(eye_like(gaps), full_like(gaps, 0))
    return select(on_diag, full_like(gaps, 0), div(full_like(gaps, 1), select(on_diag, full_like(gaps, 1), gaps)))


def jacobi_sweeps(x, v, n, rotate, residual):
    """Cyclic Jacobi sweeps: `rotate(x, v, p, q) -> (x, v)` for every index pair p < q of 0..n-1 (traced scalars),
    sweep after sweep until `residual(x)` (a real scalar) is below its dtype's eps or MAX_SWEEPS have run. x and v
    may be pytrees (a complex matrix as its real and imaginary parts). Returns the final x, v."""
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    if not pairs:
        return x, v
    ps, qs = (Tensor(np.array(column, np.int32)) for column in zip(*pairs))
    start = residual(x)
    tol = float(np.finfo(get_aval(start).dtype.np).eps)

    def rotate_pair(i, carry):
        p, q = (reshape(dynamic_slice(column, i, slice_sizes=(1,)), new_sizes=()) for column in (ps, qs))
        return rotate(*carry, p, q)

    def sweep(carry):
        x, v, count, _ = carry
        x, v = fori_loop(0, len(pairs), rotate_pair, (x, v))
        return x, v, add(count, scalar_like(count, 1)), residual(x)

    def unfinished(carry):
        _, _, count, off = carry
        return and_(lt(count, scalar_like(count, MAX_SWEEPS)), gt(off, scalar_like(off, tol)))

    x, v, _, _ = while_loop(unfinished, sweep, (x, v, Tensor(np.int32(0)), start))
    return x, v


def jacobi_rotation(a_pp, a_qq, a_pq):
    """(c, s) of the rotation that zeroes a_pq of a symmetric 2x2 block (Rutishauser's stable form)."""
    nonzero = ne(a_pq, scalar_like(a_pq, 0))
    theta = div(sub(a_qq, a_pp), mul(scalar_like(a_pq, 2), select(nonzero, a_pq, scalar_like(a_pq, 1))))
    sign = select(ge(theta, scalar_like(theta, 0)), scalar_like(theta, 1), scalar_like(theta, -1))
    t = div(sign, add(abs(theta), sqrt(add(mul(theta, theta), scalar_like(theta, 1)))))
    t = select(nonzero, t, scalar_like(t, 0))
    c = div(scalar_like(t, 1), sqrt(add(mul(t, t), scalar_like(t, 1))))
    return c, mul(t, c)


def rotate_lines(x, p, q, c, s, zero, *, rows):
    """Apply the rotation to rows p, q of x (x <- J^T x) or to its columns p, q (x <- x J), J = [[c, s], [-s, c]]
    in the (p, q) plane."""
    shape = shape_of(x)
    size = (1, shape[1]) if rows else (shape[0], 1)
    at = (lambda i: (i, zero)) if rows else (lambda i: (zero, i))
    line_p, line_q = dynamic_slice(x, *at(p), slice_sizes=size), dynamic_slice(x, *at(q), slice_sizes=size)
    cs, ss = (broadcast_in_dim(t, shape=size, broadcast_dimensions=()) for t in (c, s))
    new_p, new_q = sub(mul(cs, line_p), mul(ss, line_q)), add(mul(ss, line_p), mul(cs, line_q))
    return dynamic_update_slice(dynamic_update_slice(x, new_p, *at(p)), new_q, *at(q))


def off_diagonal_ratio(squares):
    """||off-diagonal part|| / ||m|| of one matrix m from its squared magnitudes `squares` (0 for a zero matrix)."""
    total = reduce_sum(squares, axes=(0, 1))
    off = reduce_sum(sub(squares, mul(squares, eye_like(squares))), axes=(0, 1))
    return sqrt(div(off, nonzero_or_one(total)))


def column_coherence(gram_magnitudes):
    """max |w_p^H w_q| / (|w_p| |w_q|) over the column pairs of one matrix w, from |w^H w| (0 where a column is
    zero)."""
    d = diagonal(gram_magnitudes)
    n = shape_of(d)[0]
    scale = sqrt(mul(each_row(d, n), each_column(d, n)))
    off = sub(gram_magnitudes, mul(gram_magnitudes, eye_like(gram_magnitudes)))
    return reduce_max(div(off, nonzero_or_one(scale)), axes=(0, 1))


def nonzero_or_one(x):
    """x with its zeros replaced by ones (a divisor that leaves a zero numerator zero)."""
    return select(eq(x, full_like(x, 0)), full_like(x, 1), x)


def sort_columns(keys, *matrices):
    """keys [n] sorted ascending, and the columns of each matrix [m, n] in the same order (one matrix each)."""
    n = shape_of(keys)[0]
    keys, order = sort(keys, iota(dtype=dtypes.int32, shape=(n,), dimension=0), dimension=0)
    return keys, [matmul(x, matrix_transpose(permutation_matrix(order, get_aval(x).dtype))) for x in matrices]
