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
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims._rules import scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reshape, transpose
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.prims.elementwise import abs, add, convert_element_type, div, ge, gt, mul, neg, select, sub  # noqa: A004
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


def lu_algorithm(a, index_mask, outer):
    """LU with partial pivoting of a complex matrix on (re, im) pairs: [packed, pivots, permutation], as
    prims.linalg's real algorithm (whose helpers `index_mask` and `outer` it takes)."""
    n = get_aval(a).shape[0]

    def step(k, carry):
        mr, mi, pivots, perm = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        zero = scalar_like(k, 0)
        col_r, col_i = (reshape(dynamic_slice(m, zero, k, slice_sizes=(n, 1)), new_sizes=(n,)) for m in (mr, mi))
        rows = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
        candidates = select(ge(rows, broadcast_in_dim(k, shape=(n,), broadcast_dimensions=())),
                            add(abs(col_r), abs(col_i)), full_like(col_r, -1))
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
        norm = add(mul(pr, pr), mul(pi, pi))
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
        mr = sub(mr, sub(outer(lr, ur), outer(li, ui)))
        mi = sub(mi, add(outer(lr, ui), outer(li, ur)))
        mr = dynamic_update_slice(mr, select(below, lr, cr), zero, k)
        mi = dynamic_update_slice(mi, select(below, li, ci), zero, k)
        return mr, mi, pivots, perm

    index = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
    mr, mi, pivots, perm = fori_loop(0, n, step, (cx.real(a), cx.imag(a), index, index))
    return cx.complex_(mr, mi), pivots, perm


def triangular_solve_algorithm(a, b, *, lower, transpose_a, unit_diagonal, triangle_of, eye_like, real_lu,
                               real_triangular_solve, permute):
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
    z = real_triangular_solve(packed, permute(perm, rhs), lower=True, transpose_a=False, unit_diagonal=True)
    z = real_triangular_solve(packed, z, lower=False, transpose_a=False, unit_diagonal=False)
    n, k = get_aval(b).shape
    return cx.complex_(slice(z, start_indices=(0, 0), limit_indices=(n, k)),
                       slice(z, start_indices=(n, 0), limit_indices=(2 * n, k)))
