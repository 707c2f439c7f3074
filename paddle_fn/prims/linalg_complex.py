"""The compiled forms of the complex decompositions, written with real arithmetic only.

IREE 3.13 cannot compile the real algorithms of paddle_fn.prims.linalg run on complex matrices (it rejects their
complex constants, and gave wrong complex128 results where one complex buffer is updated in place by two chains),
so a complex matrix is lowered through real ones, each of these giving what the eager (LAPACK) form gives:

- `cholesky`: the interleaved real form R(A), whose 2x2 block (i, j) is [[re, -im], [im, re]] of a[i, j], is real
  symmetric positive definite when A is Hermitian positive definite, and R(L) is lower triangular with a positive
  diagonal when L is A's Cholesky factor, so (uniqueness) the real factor of R(A) is R(L): L is read from it.
- `lu`: Gaussian elimination with partial pivoting on the real and imaginary parts as a pair, choosing the pivot
  of largest |re| + |im| (LAPACK's izamax, which the eager scipy/LAPACK zgetrf uses).
- `triangular_solve`: the block real form [[X, -Y], [Y, X]] of op(A) = X + iY solves [[X, -Y], [Y, X]] [u; v] =
  [Re b; Im b] for x = u + iv, by the real LU and substitutions (op(A)'s triangle is not the real form's).
- `qr`: LAPACK's complex Householder reflections on the pair (R's diagonal real), so Q and R are numpy's.
- `eigh`, `svd`: complex Jacobi rotations on the pair (a phase that makes the pivot real, then the real rotation),
  eigenvalues and singular values as LAPACK's; the vectors' phases are fixed by making each column's entry of
  largest magnitude real and positive (LAPACK's phases come from its reduction to a real tridiagonal or bidiagonal
  form, which the Jacobi method does not have).
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims._rules import scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reduce_sum, reshape, transpose
from paddle_fn.prims.bitwise import or_
from paddle_fn.prims.complex_pairs import (pair_abs, pair_abs1, pair_abs_squared, pair_add, pair_adjoint, pair_conj,
                                           pair_conj_dot, pair_matmul, pair_of, pair_outer, pair_sub, pair_times,
                                           pair_unit_phase)
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.prims.elementwise import add, convert_element_type, div, eq, ge, gt, mul, ne, neg, select, sqrt, sub
from paddle_fn.prims.matrices import (adjoint, column_coherence, diagonal, each_column, each_row, eye_like,
                                      hermitian_part, index_mask, jacobi_rotation, jacobi_sweeps, next_round,
                                      nonzero_or_one, off_diagonal_ratio, padded_to_even, pair_entries,
                                      pair_row_products, permute_rows, rotate_pairs, scalar_entry, sort_columns, splat,
                                      triu, unit_columns, unpadded, with_pairs_reduced)
from paddle_fn.prims.reduction import argmax
from paddle_fn.prims.slicing import dynamic_slice, dynamic_update_slice
from paddle_fn.prims.structural import concatenate, iota, slice


def _stack_blocks(blocks):
    """[[b00, b01], [b10, b11]] (n x m real matrices) as the 2n x 2m matrix whose 2x2 block (i, j) is
    [[b00[i, j], b01[i, j]], [b10[i, j], b11[i, j]]]."""
    n, m = get_aval(blocks[0][0]).shape
    rows = [concatenate(*[reshape(b, new_sizes=(n, 1, m, 1)) for b in pair], dimension=3) for pair in blocks]
    return reshape(concatenate(*rows, dimension=1), new_sizes=(2 * n, 2 * m))


def _block(x, i, j):
    """Entry (i, j) of every 2x2 block of the 2n x 2m matrix x: an n x m matrix."""
    n, m = get_aval(x).shape[0] // 2, get_aval(x).shape[1] // 2
    four = reshape(x, new_sizes=(n, 2, m, 2))
    return reshape(slice(four, start_indices=(0, i, 0, j), limit_indices=(n, i + 1, m, j + 1)), new_sizes=(n, m))


def cholesky_algorithm(a, real_cholesky):
    """The complex Cholesky factor from the real factor of the interleaved real form of `a`."""
    re, im = cx.real(a), cx.imag(a)
    factor = real_cholesky(_stack_blocks([[re, neg(im)], [im, re]]))
    return cx.complex_(_block(factor, 0, 0), _block(factor, 1, 0))


def lu_algorithm(a):
    """LU with partial pivoting of a complex matrix on (re, im) pairs: [packed, pivots, permutation], as
    prims.linalg's real algorithm."""
    n = get_aval(a).shape[0]

    def step(k, carry):
        mr, mi, pivots, perm = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        zero = scalar_like(k, 0)
        col_r, col_i = (reshape(dynamic_slice(m, zero, k, slice_sizes=(n, 1)), new_sizes=(n,)) for m in (mr, mi))
        rows = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
        candidates = select(ge(rows, broadcast_in_dim(k, shape=(n,), broadcast_dimensions=())),
                            pair_abs1((col_r, col_i)), full_like(col_r, -1))
        p = argmax(candidates, axis=0, index_dtype=dtypes.int32)

        def swap(m):
            row_k = dynamic_slice(m, k, zero, slice_sizes=(1, n))
            row_p = dynamic_slice(m, p, zero, slice_sizes=(1, n))
            return dynamic_update_slice(dynamic_update_slice(m, row_p, k, zero), row_k, p, zero)
        mr, mi = swap(mr), swap(mi)
        perm_k, perm_p = dynamic_slice(perm, k, slice_sizes=(1,)), dynamic_slice(perm, p, slice_sizes=(1,))
        perm = dynamic_update_slice(dynamic_update_slice(perm, perm_p, k), perm_k, p)
        pivots = dynamic_update_slice(pivots, reshape(p, new_sizes=(1,)), k)
        # 1 / pivot = conj(pivot) / |pivot|^2, a zero pivot (a zero column) taken as 1
        pr, pi = (broadcast_in_dim(reshape(dynamic_slice(m, k, k, slice_sizes=(1, 1)), new_sizes=()),
                                   shape=(n, 1), broadcast_dimensions=()) for m in (mr, mi))
        norm = pair_abs_squared((pr, pi))
        singular = ge(full_like(norm, 0), norm)
        one = full_like(norm, 1)
        pr, pi, norm = select(singular, one, pr), select(singular, full_like(pi, 0), pi), select(singular, one, norm)
        cr, ci = (dynamic_slice(m, zero, k, slice_sizes=(n, 1)) for m in (mr, mi))
        below = index_mask(n, k, gt)
        zeros = full_like(cr, 0)
        lr = select(below, div(add(mul(cr, pr), mul(ci, pi)), norm), zeros)
        li = select(below, div(sub(mul(ci, pr), mul(cr, pi)), norm), zeros)
        right = reshape(index_mask(n, k, gt), new_sizes=(1, n))
        ur, ui = (select(right, dynamic_slice(m, k, zero, slice_sizes=(1, n)), full_like(get_aval(m), 0, (1, n)))
                  for m in (mr, mi))
        mr, mi = pair_sub((mr, mi), pair_outer((lr, li), (ur, ui)))
        mr = dynamic_update_slice(mr, select(below, lr, cr), zero, k)
        mi = dynamic_update_slice(mi, select(below, li, ci), zero, k)
        return mr, mi, pivots, perm

    index = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
    mr, mi, pivots, perm = fori_loop(0, n, step, (*pair_of(a), index, index))
    return cx.complex_(mr, mi), pivots, perm


def triangular_solve_algorithm(a, b, *, lower, transpose_a, unit_diagonal, triangle_of, real_lu,
                               real_triangular_solve):
    """x with op(A) x = b for complex A and b, through the block real form of op(A) and the real LU."""
    t = triangle_of(a, lower, unit_diagonal)
    if unit_diagonal:
        t = add(t, eye_like(t))
    if transpose_a:
        t = transpose(t, permutation=(1, 0))
    x, y = cx.real(t), cx.imag(t)
    big = concatenate(concatenate(x, neg(y), dimension=1), concatenate(y, x, dimension=1), dimension=0)
    rhs = concatenate(cx.real(b), cx.imag(b), dimension=0)
    packed, _, perm = real_lu(big)
    z = real_triangular_solve(packed, permute_rows(perm, rhs), lower=True, transpose_a=False, unit_diagonal=True)
    z = real_triangular_solve(packed, z, lower=False, transpose_a=False, unit_diagonal=False)
    n, k = get_aval(b).shape
    return cx.complex_(slice(z, start_indices=(0, 0), limit_indices=(n, k)),
                       slice(z, start_indices=(n, 0), limit_indices=(2 * n, k)))


# qr, eigh and svd hold a complex matrix as its (real, imaginary) pair (prims/complex_pairs.py) and apply each
# unitary step to both parts.

def qr_algorithm(a, *, full_matrices):
    """Householder QR of a complex matrix as LAPACK's zgeqrf/zungqr compute it (so the factors match numpy's):
    step k maps column k's x (rows >= k) to beta e_k with beta = -sign(Re x_k) ||x||, real, by H^H = I + w w^H /
    (beta d) with w = x - beta e_k and d = x_k - beta; Q accumulates H = I + w w^H / (beta conj(d)). A column with
    nothing below a real diagonal is left alone (LAPACK's tau = 0). R's diagonal is real."""
    m, n = get_aval(a).shape
    k_max = min(m, n)
    rows_only = (((0,), (0,)), ((), ()))

    def step(k, carry):
        r, q = carry
        zero = scalar_like(k, 0)
        xr, xi = (select(index_mask(m, k, ge), dynamic_slice(x, zero, k, slice_sizes=(m, 1)), full_like(x, 0, (m, 1)))
                  for x in r)
        alr, ali = scalar_entry(xr, k, zero), scalar_entry(xi, k, zero)
        below = index_mask(m, k, gt)
        tail_sq = reduce_sum(select(below, pair_abs_squared((xr, xi)), full_like(xr, 0)), axes=(0, 1))
        norm = sqrt(add(pair_abs_squared((alr, ali)), tail_sq))
        beta = select(ge(alr, scalar_like(alr, 0)), neg(norm), norm)
        dr = sub(alr, beta)
        reflect = or_(ne(tail_sq, scalar_like(tail_sq, 0)), ne(ali, scalar_like(ali, 0)))
        denom = select(reflect, mul(beta, pair_abs_squared((dr, ali))), scalar_like(beta, 1))
        sigma = tuple(splat(select(reflect, div(part, denom), scalar_like(part, 0)), (m, 1)) for part in (dr, ali))
        w = (sub(xr, mul(convert_element_type(index_mask(m, k, eq), new_dtype=get_aval(xr).dtype),
                         splat(beta, (m, 1)))), xi)
        # R <- R + conj(sigma) w (w^H R);  Q <- Q + sigma (Q w) w^H
        r = pair_add(r, pair_outer(pair_times(pair_conj(sigma), w), pair_conj_dot(w, r, rows_only)))
        q = pair_add(q, pair_outer(pair_times(sigma, pair_matmul(q, w)), pair_adjoint(w)))
        return r, q

    identity = eye_like(full_like(cx.real(a), 0, (m, m)))
    (rr, ri), (qr, qi) = fori_loop(0, k_max, step, (pair_of(a), (identity, full_like(identity, 0))))
    r, q = cx.complex_(triu(rr), triu(ri, 1)), cx.complex_(qr, qi)
    if full_matrices:
        return q, r
    return (slice(q, start_indices=(0, 0), limit_indices=(m, k_max)),
            slice(r, start_indices=(0, 0), limit_indices=(k_max, n)))


def _rotate(x, c, s, phase, axis, *, move=True):
    """Rotate the line pairs (k, h + k) along `axis` of the complex matrix x (a pair): line h + k times phase[k] (a
    pair of vectors), then the real rotation of prims.matrices.rotate_pairs on both parts, then (if `move`) the
    move to the next round's positions."""
    ones = full_like(phase[0], 1)
    full = (concatenate(ones, phase[0], dimension=0), concatenate(full_like(ones, 0), phase[1], dimension=0))
    other = get_aval(x[0]).shape[1 - axis]
    spread = tuple((each_column(part, other) if axis == 0 else each_row(part, other)) for part in full)
    rotated = tuple(rotate_pairs(part, c, s, axis) for part in pair_times(x, spread))
    return tuple(next_round(part, axis) for part in rotated) if move else rotated


def fix_column_phases(u, *others):
    """Multiply each column of u (a pair) by the unit phase that makes its entry of largest magnitude real and
    positive (the complex form of the real expansions' sign gauge), and each matrix of `others` (pairs) by the same
    phases, column by column."""
    ur, ui = u
    n = get_aval(ur).shape[0]
    biggest = argmax(pair_abs_squared(u), axis=0, index_dtype=dtypes.int32)
    at_biggest = convert_element_type(eq(iota(dtype=dtypes.int32, shape=get_aval(ur).shape, dimension=0),
                                         each_row(biggest, n)), new_dtype=get_aval(ur).dtype)
    phase = pair_conj(pair_unit_phase(tuple(reduce_sum(mul(part, at_biggest), axes=(0,)) for part in u)))
    return [pair_times(x, tuple(each_row(part, get_aval(x[0]).shape[0]) for part in phase)) for x in (u,) + others]


def eigh_algorithm(a):
    """Complex Jacobi on the Hermitian part: each rotation first gives row q the phase of a_pq and column q its
    conjugate, which makes a_pq real (|a_pq|), then applies the real rotation that zeroes it (n/2 disjoint pairs
    per round; an odd n gets a decoupled zero row and column, whose eigenpair is dropped); eigenvalues sorted
    ascending, eigenvector phases fixed by fix_column_phases."""
    hr, hi = pair_of(hermitian_part(a))
    n = get_aval(hr).shape[0]
    hr, hi = padded_to_even(hr, (0, 1)), padded_to_even(hi, (0, 1))

    def rotate(m, vt):
        d_top, d_bottom, pivot_re = pair_entries(m[0])
        pivot = (pivot_re, pair_entries(m[1])[2])
        phase = pair_unit_phase(pivot)
        size = pair_abs(pivot)
        c, s = jacobi_rotation(d_top, d_bottom, size)
        mr, mi = _rotate(_rotate(m, c, s, phase, 0, move=False), c, s, pair_conj(phase), 1, move=False)
        shift = mul(div(s, c), size)
        m = (with_pairs_reduced(mr, d_top, d_bottom, shift),
             with_pairs_reduced(mi, full_like(d_top, 0), full_like(d_top, 0), full_like(d_top, 0)))
        return tuple(next_round(next_round(part, 0), 1) for part in m), _rotate(vt, c, s, pair_conj(phase), 0)

    identity = eye_like(hr)
    (mr, _), vt = jacobi_sweeps((hr, hi), (identity, full_like(identity, 0)), get_aval(hr).shape[0], rotate,
                                lambda m: off_diagonal_ratio(pair_abs_squared(m)))
    v = unit_columns(*(transpose(unpadded(part, (n, n)), permutation=(1, 0)) for part in vt))
    w, v = sort_columns(unpadded(diagonal(mr), (n,)), *v)
    (vr, vi), = fix_column_phases(tuple(v))
    return w, cx.complex_(vr, vi)


def _one_sided_jacobi(w):
    """One-sided Jacobi on the tall complex matrix w (a pair): each rotation gives column q the phase that makes
    w_p^H w_q real, then the real rotation that zeroes it (n/2 disjoint column pairs per round, on the transposes
    as prims.linalg's real form; an odd n gets a zero column, dropped at the end). Returns u (a pair), s
    (descending), V (a pair)."""
    m, n = get_aval(w[0]).shape
    wt = tuple(padded_to_even(transpose(part, permutation=(1, 0)), (0,)) for part in w)

    def rotate(wt, vt):
        (rr_top, rr_bottom, rr_cross), (ii_top, ii_bottom, ii_cross) = (pair_row_products(x, x) for x in wt)
        ri_cross, ir_cross = pair_row_products(wt[0], wt[1])[2], pair_row_products(wt[1], wt[0])[2]
        gamma = (add(rr_cross, ii_cross), sub(ri_cross, ir_cross))  # w_p^H w_q of each pair
        c, s = jacobi_rotation(add(rr_top, ii_top), add(rr_bottom, ii_bottom), pair_abs(gamma))
        phase = pair_conj(pair_unit_phase(gamma))
        return _rotate(wt, c, s, phase, 0), _rotate(vt, c, s, phase, 0)

    def coherence(wt):
        return column_coherence(pair_abs(pair_conj_dot(wt, wt, (((1,), (1,)), ((), ())))))

    k = get_aval(wt[0]).shape[0]
    identity = eye_like(full_like(wt[0], 0, (k, k)))
    wt, vt = jacobi_sweeps(wt, (identity, full_like(identity, 0)), k, rotate, coherence)
    w = tuple(transpose(unpadded(part, (n, m)), permutation=(1, 0)) for part in wt)
    v = unit_columns(*(transpose(unpadded(part, (n, n)), permutation=(1, 0)) for part in vt))
    norms = sqrt(reduce_sum(pair_abs_squared(w), axes=(0,)))
    neg_s, (wr, wi, vr, vi) = sort_columns(neg(norms), *w, *v)
    s = neg(neg_s)
    scale = each_row(nonzero_or_one(s), m)
    return (div(wr, scale), div(wi, scale)), s, (vr, vi)


def svd_algorithm(a):
    """One-sided Jacobi on the tall orientation (a^H for a wide a), then u's phases fixed by fix_column_phases
    and v's columns given the same phases, so that a = u diag(s) v^H still holds."""
    m, n = get_aval(a).shape
    if m >= n:
        u, s, v = _one_sided_jacobi(pair_of(a))
    else:  # a^H = u' s v'^H  =>  a = v' s u'^H
        t = adjoint(a)
        v, s, u = _one_sided_jacobi(pair_of(t))
    u, v = fix_column_phases(u, v)
    return cx.complex_(*u), s, adjoint(cx.complex_(*v))
