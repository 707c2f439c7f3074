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
from paddle_fn.prims.bitwise import and_, or_
from paddle_fn.prims.control_flow import scan, while_loop
from paddle_fn.prims.elementwise import (abs, add, convert_element_type, div, eq, ge, gt, lt, mul, ne,  # noqa: A004
                                         neg, select, sqrt, sub)
from paddle_fn.prims.reduction import dot_general, reduce_max, sort
from paddle_fn.prims.slicing import dynamic_slice
from paddle_fn.prims.structural import concatenate, iota, pad, slice


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
    """x where mask, 0 elsewhere (a select, linear in x: transposable)."""
    return select(mask, x, full_like(x, 0))


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


def scalar_entry(x, i, j):
    """x[i, j] of one matrix at traced indices, as a 0-d value."""
    return reshape(entry(x, i, j), new_sizes=())


def splat(value, shape):
    """The 0-d `value` broadcast to `shape`."""
    return broadcast_in_dim(value, shape=shape, broadcast_dimensions=())


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
    """Parallel cyclic Jacobi sweeps in the chess-tournament ordering (Brent and Luk) on an even number n of
    indices: in each round the indices at positions k and h + k (k < h = n / 2) are the pairs, and `rotate(x, v)
    -> (x, v)` rotates all h pairs at once (`rotate_pairs`) and then moves every index to its position in the next
    round (`next_round`). After the n - 1 rounds of a sweep every pair has met once and every index is back at its
    own position. Sweeps run until `residual(x)` (a real scalar) is below sqrt(n) times its dtype's eps, a sweep
    leaves a residual below sqrt(eps) no smaller, or MAX_SWEEPS have run. x and v may be pytrees (a complex matrix
    as its real and imaginary parts). Returns the final x, v."""
    if n < 2:
        return x, v
    start = residual(x)
    # rounding leaves each rotated pivot at about eps times its pair's size rather than zero, so the residual
    # levels off near sqrt(n) eps; once it is below sqrt(eps) (where the convergence is quadratic), a sweep that
    # leaves it no smaller has reached that floor
    eps = float(np.finfo(get_aval(start).dtype.np).eps)
    tol, floor_zone = eps * np.sqrt(n), np.sqrt(eps)

    def one_round(carry, _):
        return rotate(*carry), None

    def sweep(carry):
        x, v, count, off, _ = carry
        (x, v), _ = scan(one_round, (x, v), None, length=n - 1)
        return x, v, add(count, scalar_like(count, 1)), residual(x), off

    def unfinished(carry):
        _, _, count, off, before = carry
        improving = or_(lt(off, before), gt(off, scalar_like(off, floor_zone)))
        return and_(and_(lt(count, scalar_like(count, MAX_SWEEPS)), gt(off, scalar_like(off, tol))), improving)

    x, v, _, _, _ = while_loop(unfinished, sweep, (x, v, Tensor(np.int32(0)), start, full_like(start, np.inf)))
    return x, v


def _lines(x, axis, start, stop):
    """Lines start..stop-1 of x along axis (0: rows, 1: columns)."""
    shape = shape_of(x)
    return slice(x, start_indices=tuple(start if d == axis else 0 for d in range(len(shape))),
                 limit_indices=tuple(stop if d == axis else size for d, size in enumerate(shape)))


def next_round(x, axis):
    """The chess-tournament move of the indices along `axis` (of even length n = 2h) from one round to the next:
    the lines at positions 0, h, 1, ..., h - 2, h + 1, ..., n - 1, h - 1 go to positions 0, 1, ..., n - 1 (index 0
    stays, the others circulate), so that after n - 1 rounds every pair has met and every line is back."""
    n = shape_of(x)[axis]
    h = n // 2
    if h < 2:
        return x
    pieces = [(0, 1), (h, h + 1), (1, h - 1), (h + 1, n), (h - 1, h)]
    return concatenate(*[_lines(x, axis, a, b) for a, b in pieces if b > a], dimension=axis)


def rotate_pairs(x, c, s, axis):
    """Rotate the line pairs (k, h + k) of x along `axis` (of length 2h) by c[k], s[k]: line k becomes
    c x_k - s x_{h+k}, line h + k becomes s x_k + c x_{h+k} (rows: x <- J^T x, columns: x <- x J with
    J = [[c, s], [-s, c]] in each (k, h + k) plane)."""
    n = shape_of(x)[axis]
    top, bottom = _lines(x, axis, 0, n // 2), _lines(x, axis, n // 2, n)
    other = shape_of(x)[1 - axis]
    cs, ss = ((each_column(t, other) if axis == 0 else each_row(t, other)) for t in (c, s))
    return concatenate(sub(mul(cs, top), mul(ss, bottom)), add(mul(ss, top), mul(cs, bottom)), dimension=axis)


def pair_entries(x):
    """(x[k, k], x[h + k, h + k], x[k, h + k]) for k < h of the square x of size 2h: the diagonal entries and the
    pivot of each pair, as strided slices of the flattened matrix."""
    n = shape_of(x)[0]
    h, step = n // 2, n + 1
    flat = reshape(x, new_sizes=(n * n,))
    diag = slice(flat, start_indices=(0,), limit_indices=(n * n,), strides=(step,))
    pivots = slice(flat, start_indices=(h,), limit_indices=(h + (h - 1) * step + 1,), strides=(step,))
    return (slice(diag, start_indices=(0,), limit_indices=(h,)), slice(diag, start_indices=(h,), limit_indices=(n,)),
            pivots)


def with_pairs_reduced(x, a_pp, a_qq, shift):
    """The square x (size 2h) after a round's two-sided rotations, with each pair's 2x2 block set to what the
    rotation makes it exactly: diagonal a_pp - shift, a_qq + shift (shift = t a_pq, Rutishauser's update) and a zero
    pivot. Rotated entry by entry, these cancel to an error of eps times the block, and over hundreds of rounds
    every eigenvalue drifted (1e-5 relative in float32 at 64 x 64); the update keeps them within a few eps."""
    n = shape_of(x)[0]
    rows, cols = (iota(dtype=dtypes.int32, shape=(n, n), dimension=d) for d in (0, 1))
    gap = sub(cols, rows)
    half = full_like(gap, n // 2)
    on_pivot = or_(eq(gap, half), eq(gap, neg(half)))
    diag = concatenate(sub(a_pp, shift), add(a_qq, shift), dimension=0)
    return select(eq(gap, full_like(gap, 0)), each_column(diag, n), select(on_pivot, full_like(x, 0), x))


def unit_columns(*parts):
    """The columns of a matrix (given as its parts: one real matrix, or the real and imaginary parts) scaled to
    norm 1: each round's rotations are orthogonal only to rounding, and over hundreds of rounds the accumulated
    eigenvectors drifted from norm 1 by about 1e-5 in float32."""
    norms = sqrt(reduce_sum(add(*[mul(p, p) for p in parts]) if len(parts) > 1 else mul(parts[0], parts[0]),
                            axes=(0,)))
    scale = each_row(nonzero_or_one(norms), shape_of(parts[0])[0])
    return tuple(div(p, scale) for p in parts)


def pair_row_products(x, y):
    """(sum_j x[k, j] y[k, j], sum_j x[h + k, j] y[h + k, j], sum_j x[k, j] y[h + k, j]) for k < h of matrices with
    2h rows: the Gram entries of each row pair (for x = y)."""
    n = shape_of(x)[0]
    (xt, xb), (yt, yb) = ((_lines(m, 0, 0, n // 2), _lines(m, 0, n // 2, n)) for m in (x, y))
    return tuple(reduce_sum(mul(a, b), axes=(1,)) for a, b in ((xt, yt), (xb, yb), (xt, yb)))


def padded_to_even(x, axes):
    """x with a zero line appended along each of `axes` when their length is odd (and above 1: one index needs no
    rotation): an index that pairs with every other with a zero pivot, so every rotation with it is the identity
    and it stays decoupled."""
    n = shape_of(x)[axes[0]]
    if n % 2 == 0 or n == 1:
        return x
    return pad(x, scalar_like(x, 0), padding_config=tuple((0, 1 if d in axes else 0, 0)
                                                          for d in range(ndim_of(x))))


def unpadded(x, shape):
    """x cut back to `shape` (undoing padded_to_even)."""
    return slice(x, start_indices=(0,) * len(shape), limit_indices=tuple(shape))


def jacobi_rotation(a_pp, a_qq, a_pq):
    """(c, s) of the rotation that zeroes a_pq of a symmetric 2x2 block (Rutishauser's stable form), elementwise over
    arrays of blocks."""
    nonzero = ne(a_pq, full_like(a_pq, 0))
    theta = div(sub(a_qq, a_pp), mul(full_like(a_pq, 2), select(nonzero, a_pq, full_like(a_pq, 1))))
    sign = select(ge(theta, full_like(theta, 0)), full_like(theta, 1), full_like(theta, -1))
    t = div(sign, add(abs(theta), sqrt(add(mul(theta, theta), full_like(theta, 1)))))
    t = select(nonzero, t, full_like(t, 0))
    c = div(full_like(t, 1), sqrt(add(mul(t, t), full_like(t, 1))))
    return c, mul(t, c)


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
