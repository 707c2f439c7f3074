"""Matrix decompositions and triangular solves: cholesky, triangular_solve, lu, qr, eigh, svd.

Every primitive acts on the last two dimensions and maps over any leading (batch) dimensions, so each batching
rule only moves the vmapped axis to the front. Eagerly they run numpy/scipy (LAPACK). Each has an expansion: an
algorithm written here with other primitives for one matrix (loops over columns, Householder reflections or
Jacobi rotations; for complex matrices the real-arithmetic forms of prims/linalg_complex.py), which
lowering.staged.lower_by_expansion maps over the batch dimensions, traces and inlines. StableHLO has no operation
for lu, qr, eigh and svd, so the expansion is their lowering; cholesky and triangular_solve lower to StableHLO's
operations, and lowering/targets.py lowers their expansion on the IREE targets, which reject those.

JVP rules are the standard matrix-calculus results (JAX's for complex matrices), written with these primitives and
dot_general so that they are themselves differentiable and batchable. Decompositions with a sign ambiguity (eigh,
svd) fix it for real matrices: each eigenvector / left singular vector has its entry of largest magnitude positive,
eagerly and under jit alike. Complex ones keep LAPACK's phases eagerly (as Paddle and numpy); the compiled
expansion makes each such entry real and positive instead.
"""
from __future__ import annotations

import warnings

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front
from paddle_fn.core.errors import DTypeError, ShapeError, UnsupportedError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import NONLINEAR, Primitive, RuntimeCheck, symbolic_zeros
from paddle_fn.core.trace import get_aval
from paddle_fn.lowering.staged import inline, lower_by_expansion, stage
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import linalg_complex as lc
from paddle_fn.prims._rules import fmt, scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reduce_sum, reshape
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.prims.elementwise import (abs, add, convert_element_type, div, eq, ge, gt, lt, mul, ne, neg,  # noqa: A004
                                         nonfinite_count, select, sqrt, sub)
from paddle_fn.prims.matrices import (adjoint, column_coherence, diagonal, each_column, each_row, entry, eye_like,
                                      gap_reciprocals, hermitian_part, index_mask, jacobi_rotation, jacobi_sweeps,
                                      masked, matmul, matrix_transpose, ndim_of, next_round, nonzero_or_one,
                                      off_diagonal_ratio, outer, padded_to_even, pair_entries, pair_row_products,
                                      permute_rows, rotate_pairs, shape_of, sort_columns, tril, triu, unpadded,
                                      unit_columns, with_pairs_reduced)
from paddle_fn.prims.matrices import permutation_matrix  # noqa: F401 - paddle_fn.linalg reads it from here
from paddle_fn.prims.reduction import argmax, dot_general
from paddle_fn.prims.slicing import dynamic_slice, dynamic_update_slice
from paddle_fn.prims.structural import iota, slice

# ---------------------------------------------------------------------------------------------- matrix helpers


def _check_matrix(name, a, *, square=False, complex_ok=False):
    """`complex_ok`: the decomposition has a complex form (LU and triangular solves, whose derivatives are
    holomorphic: no conjugate transposes)."""
    allowed = ("float32", "float64") + (("complex64", "complex128") if complex_ok else ())
    if a.dtype.name not in allowed:
        raise DTypeError(f"{name}: expected {' or '.join(allowed)} matrices, got {fmt(a)}; cast with "
                         ".astype('float32')")
    if a.ndim < 2:
        raise ShapeError(f"{name}: expected a matrix or a batch of matrices (at least 2 dimensions), got {fmt(a)}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"{name}: expected square matrices, got {fmt(a)} ({a.shape[-2]} rows, {a.shape[-1]} "
                         "columns)")


def batch_rule(get_prim):
    """Move every vmapped axis to the front (materialising it on unbatched operands); the primitive maps over
    leading dimensions itself."""
    def batch(vals, dims, **params):
        prim = get_prim()
        size = batch_size(vals, dims)
        out = prim.bind(*[bdim_at_front(v, d, size) for v, d in zip(vals, dims)], **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    return batch


def _expansion(real_algorithm, complex_algorithm):
    """The expansion of one problem: `real_algorithm` on real matrices, `complex_algorithm` (prims/linalg_complex.py:
    real arithmetic on the parts, which IREE 3.13 compiles where complex loops went wrong) on complex ones."""
    def expand(*matrices, **params):
        complex_ = get_aval(matrices[0]).dtype.kind == "c"
        return (complex_algorithm if complex_ else real_algorithm)(*matrices, **params)
    return expand


def map_matrices(fn, *arrays):
    """Apply the numpy function fn (of single matrices, returning a tuple of arrays) over leading dims."""
    batch = arrays[0].shape[:-2]
    results = [fn(*(a[idx] for a in arrays)) for idx in np.ndindex(*batch)]
    return [np.stack([r[i] for r in results]).reshape(batch + results[0][i].shape) if batch else results[0][i]
            for i in range(len(results[0]))]


def _fix_column_signs(u, *others):
    """Flip each column of u (and the same column / row of `others`) so its entry of largest magnitude is
    positive: a fixed choice of the sign gauge that eager and jit share."""
    n = shape_of(u)[-2]
    nd = ndim_of(u)
    biggest = argmax(abs(u), axis=nd - 2, index_dtype=dtypes.int32)                       # [..., k]
    rows = iota(dtype=dtypes.int32, shape=shape_of(u), dimension=nd - 2)
    picked = reduce_sum(masked(u, eq(rows, each_row(biggest, n))), axes=(nd - 2,))         # [..., k]
    signs = select(lt(picked, full_like(picked, 0)), full_like(picked, -1), full_like(picked, 1))
    return [mul(u, each_row(signs, n))] + [f(signs) for f in others]


def _np_fix_column_signs(u):
    """numpy version of _fix_column_signs: the signs that make u's largest-magnitude entries positive."""
    if u.shape[-2] == 0:  # no entries (a 0 x 0 matrix's eigenvectors): nothing to turn
        return np.ones(u.shape[:-2] + u.shape[-1:], u.dtype)
    biggest = np.argmax(np.abs(u), axis=-2)
    picked = np.take_along_axis(u, biggest[..., None, :], axis=-2)[..., 0, :]
    return np.where(picked < 0, -1, 1).astype(u.dtype)


# ---------------------------------------------------------------------------------------------- triangular_solve

def _triangular_solve_shape(a, b, *, lower, transpose_a, unit_diagonal):
    _check_matrix("triangular_solve", a, square=True, complex_ok=True)
    _check_matrix("triangular_solve", b, complex_ok=True)
    if a.dtype != b.dtype:
        raise DTypeError(f"triangular_solve: a is {fmt(a)} but b is {fmt(b)}; cast one with .astype()")
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise ShapeError(f"triangular_solve: a {fmt(a)} and b {fmt(b)} must have the same batch dimensions and "
                         f"b must have {a.shape[-1]} rows (broadcast first; paddle_fn.linalg.triangular_solve does)")
    return b


def _triangular_solve_impl(a, b, *, lower, transpose_a, unit_diagonal):
    from scipy.linalg import solve_triangular  # deliberate lazy import: scipy is heavy and only eager solves need it

    def one(m, r):
        try:
            return (solve_triangular(m, r, lower=lower, trans=int(transpose_a), unit_diagonal=unit_diagonal,
                                     check_finite=False),)
        except np.linalg.LinAlgError:  # a zero on the diagonal: substitute anyway, giving inf/nan as the lowering
            return (_substitute(m, r, lower, transpose_a, unit_diagonal),)
    return map_matrices(one, a, b)[0].astype(b.dtype)


def _substitute(m, r, lower, transpose_a, unit_diagonal):
    t = np.tril(m) if lower else np.triu(m)
    if unit_diagonal:
        np.fill_diagonal(t, 1)
    t = t.T if transpose_a else t
    n = t.shape[0]
    x = np.zeros_like(r)
    order = range(n) if lower != transpose_a else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            x[i] = (r[i] - t[i] @ x) / t[i, i]
    return x


def _triangle_of(a, lower, unit_diagonal):
    """The part of `a` the solve reads: its lower or upper triangle, with the diagonal left out if unit."""
    if unit_diagonal:
        return tril(a, -1) if lower else triu(a, 1)
    return tril(a) if lower else triu(a)


@symbolic_zeros
def _triangular_solve_jvp(primals, tangents, *, lower, transpose_a, unit_diagonal):
    (a, b), (ta, tb) = primals, tangents
    params = dict(lower=lower, transpose_a=transpose_a, unit_diagonal=unit_diagonal)
    x = triangular_solve(a, b, **params)
    # op(A) x = b  =>  op(A) dx = db - op(dA) x
    rhs = None if isinstance(tb, Zero) else tb
    if not isinstance(ta, Zero):
        dt = _triangle_of(ta, lower, unit_diagonal)
        da_x = matmul(matrix_transpose(dt) if transpose_a else dt, x)
        rhs = neg(da_x) if rhs is None else sub(rhs, da_x)
    return x, (None if rhs is None else triangular_solve(a, rhs, **params))


def _triangular_solve_transpose(ct, a, b, *, lower, transpose_a, unit_diagonal):
    if is_undefined(a):
        raise UnsupportedError("triangular_solve is linear in b only; its matrix a cannot be a linear input")
    return [None, triangular_solve(a, ct, lower=lower, transpose_a=not transpose_a, unit_diagonal=unit_diagonal)]


def _triangular_solve_algorithm(a, b, *, lower, transpose_a, unit_diagonal):
    """Substitution one row at a time; unsolved rows of x are still zero, so each row is a full-row product."""
    n, k = shape_of(b)
    t = _triangle_of(a, lower, unit_diagonal)
    if transpose_a:
        t = matrix_transpose(t)
    if unit_diagonal:
        t = add(t, eye_like(t))
    forward = lower != transpose_a

    def row(i, x):
        r = i if forward else sub(scalar_like(i, n - 1), i)
        t_row = dynamic_slice(t, r, scalar_like(r, 0), slice_sizes=(1, n))
        b_row = dynamic_slice(b, r, scalar_like(r, 0), slice_sizes=(1, k))
        pivot = broadcast_in_dim(reshape(entry(t, r, r), new_sizes=()), shape=(1, k), broadcast_dimensions=())
        solved = div(sub(b_row, matmul(t_row, x)), pivot)
        return dynamic_update_slice(x, solved, r, scalar_like(r, 0))

    return fori_loop(0, n, row, full_like(b, 0))


def failure_check(name, failure):
    """A checked jit's "linalg" check of decomposition `name`: finite inputs gave a NaN or Inf result, which is
    how the compiled algorithms report `failure` (eagerly, the op raises)."""
    def check(inputs, outputs, **params):
        shapes = ", ".join(fmt(get_aval(x)) for x in inputs)
        zero = full_like(ShapedArray((), dtypes.int32), 0)  # inputs holding NaN or Inf are not this op's failure
        failures = select(eq(nonfinite_count(inputs), zero), nonfinite_count(outputs), zero)
        return [RuntimeCheck("linalg", failures, None,
                             f"{name} of {shapes}: {failure} ({{failures}} NaN or Inf values in its result)")]
    return check


def _lower_triangular_solve(ctx, a, b, *, lower, transpose_a, unit_diagonal):
    """StableHLO's triangular_solve (IREE rejects it: targets.py lowers the expansion instead)."""
    flags = dict(lower=lower, unit_diagonal=unit_diagonal)
    return ctx.generic_op("stablehlo.triangular_solve", [a, b], attrs="left_side = true, " + ", ".join(
        f"{k} = {str(v).lower()}" for k, v in flags.items()) + ", transpose_a = #stablehlo<transpose "
        f"{'TRANSPOSE' if transpose_a else 'NO_TRANSPOSE'}>")


def _complex_triangular_solve_algorithm(a, b, **params):
    return lc.triangular_solve_algorithm(a, b, **params, triangle_of=_triangle_of, real_lu=_lu_algorithm,
                                         real_triangular_solve=_triangular_solve_algorithm)


triangular_solve_p = Primitive("triangular_solve", shape_rule=_triangular_solve_shape, impl=_triangular_solve_impl,
                               jvp=_triangular_solve_jvp, transpose=_triangular_solve_transpose,
                               batch=batch_rule(lambda: triangular_solve_p),
                               lower=_lower_triangular_solve,
                               expansion=_expansion(_triangular_solve_algorithm, _complex_triangular_solve_algorithm),
                               error_check=failure_check("triangular_solve", "the triangular matrix is singular"))


def triangular_solve(a, b, *, lower: bool, transpose_a: bool = False, unit_diagonal: bool = False):
    """x with op(A) x = b, where A is the lower (or upper) triangle of `a` (with ones on its diagonal if
    `unit_diagonal`) and op(A) is A or its transpose; a [..., n, n], b [..., n, k] with equal batch dims."""
    return triangular_solve_p.bind(a, b, lower=bool(lower), transpose_a=bool(transpose_a),
                                   unit_diagonal=bool(unit_diagonal))


# ---------------------------------------------------------------------------------------------- cholesky

def _cholesky_shape(a):
    _check_matrix("cholesky", a, square=True, complex_ok=True)
    return a


def _cholesky_impl(a):
    sym = (a + np.conj(np.swapaxes(a, -1, -2))) / 2

    def one(m):
        try:
            return (np.linalg.cholesky(m),)
        except np.linalg.LinAlgError:  # not positive definite: nan, as the lowering's sqrt of a negative pivot
            return (np.full_like(m, np.nan),)
    try:
        return np.linalg.cholesky(sym).astype(a.dtype)
    except np.linalg.LinAlgError:
        return map_matrices(one, sym)[0].astype(a.dtype)


def _cholesky_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    factor = cholesky(a)
    # L dL^H + dL L^H = dA  =>  dL = L phi(L^-1 dA L^-H), phi: the lower triangle with the diagonal halved
    half_solved = adjoint(triangular_solve(factor, hermitian_part(ta), lower=True))
    inner = triangular_solve(factor, half_solved, lower=True)
    phi = sub(tril(inner), mul(full_like(inner, 0.5), mul(inner, eye_like(inner))))
    return factor, matmul(factor, phi)


def _cholesky_algorithm(a):
    """Column by column: l[:, j] = (a[:, j] - l l[j, :]^T) / sqrt(pivot) below the diagonal (the columns of l
    from j on are still zero). A non-positive pivot gives nan, as the eager version."""
    n = shape_of(a)[0]
    a = hermitian_part(a)

    def column(j, factor):
        zero = scalar_like(j, 0)
        row = dynamic_slice(factor, j, zero, slice_sizes=(1, n))
        v = sub(dynamic_slice(a, zero, j, slice_sizes=(n, 1)), dot_general(factor, row, dimension_numbers=(
            ((1,), (1,)), ((), ()))))
        root = broadcast_in_dim(reshape(sqrt(entry(v, j, zero)), new_sizes=()), shape=(n, 1),
                                broadcast_dimensions=())
        col = select(index_mask(n, j, ge), div(v, root), full_like(v, 0))
        return dynamic_update_slice(factor, col, zero, j)

    return fori_loop(0, n, column, full_like(a, 0))


def _lower_cholesky(ctx, a):
    """StableHLO's cholesky of the Hermitian part, its strict upper triangle zeroed (StableHLO leaves that part
    unspecified); IREE rejects it: targets.py lowers the expansion instead."""
    (aval,) = ctx.avals_in
    (hermitian,) = inline(ctx, *stage(lambda x: [hermitian_part(x)], [aval]), [a])
    factor = ctx.generic_op("stablehlo.cholesky", [hermitian], aval, attrs="lower = true", in_avals=[aval])
    return inline(ctx, *stage(lambda x: [tril(x)], [aval]), [factor])[0]


cholesky_p = Primitive("cholesky", shape_rule=_cholesky_shape, impl=_cholesky_impl, jvp=_cholesky_jvp,
                       transpose=NONLINEAR, batch=batch_rule(lambda: cholesky_p),
                       lower=_lower_cholesky,
                       expansion=_expansion(_cholesky_algorithm, lambda a: lc.cholesky_algorithm(a, _cholesky_algorithm)),
                       error_check=failure_check("cholesky", "the matrix is not positive definite"))


def cholesky(a):
    """The lower Cholesky factor L (L L^T = A) of the symmetric part (A + A^T)/2 of each matrix; nan where it is
    not positive definite."""
    return cholesky_p.bind(a)


# ---------------------------------------------------------------------------------------------- lu

def _lu_shape(a):
    _check_matrix("lu", a, square=True, complex_ok=True)
    index = ShapedArray(a.shape[:-1], dtypes.int32)
    return [a, index, index]


def _lu_impl(a):
    from scipy.linalg import lu_factor  # deliberate lazy import: scipy is heavy and only eager LU needs it

    def one(m):
        with np.errstate(all="ignore"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy warns on an exactly singular factor; infos report it
                packed, piv = lu_factor(m, check_finite=False)
        perm = np.arange(m.shape[0])
        for k, p in enumerate(piv):
            perm[[k, p]] = perm[[p, k]]
        return packed, piv.astype(np.int32), perm.astype(np.int32)
    packed, piv, perm = map_matrices(one, a)
    return [packed.astype(a.dtype), piv, perm]


def lu_solve(packed, perm, b):
    """x with A x = b from A's LU factors (A[perm] = L U)."""
    pb = permute_rows(perm, b)
    z = triangular_solve(packed, pb, lower=True, unit_diagonal=True)
    return triangular_solve(packed, z, lower=False)


def _lu_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    packed, pivots, perm = lu(a)
    unit_lower = add(tril(packed, -1), eye_like(packed))
    u = triu(packed)
    # P A = L U  =>  L^-1 P dA U^-1 = L^-1 dL + dU U^-1, strictly lower plus upper
    pda = permute_rows(perm, ta)
    y = triangular_solve(packed, pda, lower=True, unit_diagonal=True)
    x = matrix_transpose(triangular_solve(packed, matrix_transpose(y), lower=False, transpose_a=True))
    return [packed, pivots, perm], [add(matmul(unit_lower, tril(x, -1)), matmul(triu(x), u)), None, None]


def _lu_algorithm(a):
    """Gaussian elimination with partial pivoting (largest magnitude, first on ties, as LAPACK); a zero pivot
    column is left as it is (LAPACK's info > 0 case)."""
    n = shape_of(a)[0]

    def step(k, carry):
        m, pivots, perm = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        zero = scalar_like(k, 0)
        col = reshape(dynamic_slice(m, zero, k, slice_sizes=(n, 1)), new_sizes=(n,))
        rows = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
        candidates = select(ge(rows, broadcast_in_dim(k, shape=(n,), broadcast_dimensions=())), abs(col),
                            full_like(col, -1))
        p = argmax(candidates, axis=0, index_dtype=dtypes.int32)
        row_k = dynamic_slice(m, k, zero, slice_sizes=(1, n))
        row_p = dynamic_slice(m, p, zero, slice_sizes=(1, n))
        m = dynamic_update_slice(dynamic_update_slice(m, row_p, k, zero), row_k, p, zero)
        perm_k, perm_p = dynamic_slice(perm, k, slice_sizes=(1,)), dynamic_slice(perm, p, slice_sizes=(1,))
        perm = dynamic_update_slice(dynamic_update_slice(perm, perm_p, k), perm_k, p)
        pivots = dynamic_update_slice(pivots, reshape(p, new_sizes=(1,)), k)
        pivot = reshape(entry(m, k, k), new_sizes=())
        pivot = select(eq(pivot, scalar_like(pivot, 0)), scalar_like(pivot, 1), pivot)
        col = dynamic_slice(m, zero, k, slice_sizes=(n, 1))
        below = index_mask(n, k, gt)
        multipliers = select(below, div(col, broadcast_in_dim(pivot, shape=(n, 1), broadcast_dimensions=())),
                             full_like(col, 0))
        u_row = select(reshape(index_mask(n, k, gt), new_sizes=(1, n)), dynamic_slice(m, k, zero, slice_sizes=(1, n)),
                       full_like(row_k, 0))
        m = sub(m, outer(multipliers, u_row))
        m = dynamic_update_slice(m, select(below, multipliers, col), zero, k)
        return m, pivots, perm

    index = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
    m, pivots, perm = fori_loop(0, n, step, (a, index, index))
    return m, pivots, perm


lu_p = Primitive("lu", shape_rule=_lu_shape, impl=_lu_impl, jvp=_lu_jvp, transpose=NONLINEAR,
                 batch=batch_rule(lambda: lu_p),
                 lower=lower_by_expansion(_expansion(_lu_algorithm, lc.lu_algorithm), multiple_results=True),
                 multiple_results=True, error_check=failure_check("lu", "the factorization failed"))


def lu(a):
    """LU factorisation with partial pivoting of square matrices: [packed, pivots, permutation].

    packed holds U on and above the diagonal and L's multipliers below it (L has a unit diagonal); pivots
    (int32, 0-based) says row k was swapped with row pivots[k] at step k; permutation (int32) satisfies
    A[permutation] = L @ U.
    """
    return lu_p.bind(a)


# ---------------------------------------------------------------------------------------------- qr

def _qr_shape(a, *, full_matrices):
    _check_matrix("qr", a, complex_ok=True)
    m, n = a.shape[-2:]
    k = m if full_matrices else min(m, n)
    return [a.update(shape=a.shape[:-2] + (m, k)), a.update(shape=a.shape[:-2] + (k, n))]


def _qr_impl(a, *, full_matrices):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q.astype(a.dtype), r.astype(a.dtype)]


def _qr_jvp(primals, tangents, *, full_matrices):
    (a,), (ta,) = primals, tangents
    m, n = shape_of(a)[-2:]
    if m < n or (full_matrices and m > n):
        raise UnsupportedError(f"qr: the derivative is defined for tall or square matrices in reduced mode; got "
                               f"{fmt(get_aval(a))} with full_matrices={full_matrices}. Differentiate "
                               "qr(x, mode='reduced') of the tall matrix (or of x^T for a wide one)")
    q, r = qr(a, full_matrices=full_matrices)
    # dA = dQ R + Q dR with Q^H dQ anti-Hermitian and dR upper triangular (JAX's rule: for complex matrices the
    # imaginary part of diag(Q^H dA R^-1) goes to dQ, so that R's diagonal stays real)
    y = matrix_transpose(triangular_solve(r, matrix_transpose(ta), lower=False, transpose_a=True))   # dA R^-1
    c = matmul(adjoint(q), y)
    omega = sub(tril(c, -1), adjoint(tril(c, -1)))
    if get_aval(c).dtype.kind == "c":
        imaginary = sub(c, cx.complex_(cx.real(c), full_like(cx.real(c), 0)))
        omega = add(omega, mul(imaginary, eye_like(c)))
    dq = add(matmul(q, omega), sub(y, matmul(q, c)))
    dr = matmul(sub(c, omega), r)
    return [q, r], [dq, dr]


def _qr_algorithm(a, *, full_matrices):
    """Householder reflections with LAPACK's sign convention (R[k, k] = -sign(a_kk) * norm), so the factors
    match numpy's; a column that is already reduced is left alone (LAPACK's tau = 0)."""
    m, n = shape_of(a)
    k_max = min(m, n)

    def step(k, carry):
        r, q = carry
        zero = scalar_like(k, 0)
        x = select(index_mask(m, k, ge), dynamic_slice(r, zero, k, slice_sizes=(m, 1)), full_like(r, 0, (m, 1)))
        alpha = reshape(entry(x, k, zero), new_sizes=())
        tail = select(index_mask(m, k, gt), x, full_like(x, 0))
        tail_sq = reduce_sum(mul(tail, tail), axes=(0, 1))
        norm = sqrt(add(mul(alpha, alpha), tail_sq))
        beta = select(ge(alpha, scalar_like(alpha, 0)), neg(norm), norm)
        e_k = convert_element_type(index_mask(m, k, eq), new_dtype=get_aval(x).dtype)
        v = sub(x, mul(e_k, broadcast_in_dim(beta, shape=(m, 1), broadcast_dimensions=())))
        vtv = reduce_sum(mul(v, v), axes=(0, 1))
        reflect = ne(tail_sq, scalar_like(tail_sq, 0))
        scale = select(reflect, div(scalar_like(vtv, 2), select(reflect, vtv, scalar_like(vtv, 1))),
                       scalar_like(vtv, 0))
        v_scaled = mul(v, broadcast_in_dim(scale, shape=(m, 1), broadcast_dimensions=()))
        r = sub(r, outer(v_scaled, dot_general(v, r, dimension_numbers=(((0,), (0,)), ((), ())))))
        q = sub(q, outer(matmul(q, v_scaled), matrix_transpose(v)))
        return r, q

    r, q = fori_loop(0, k_max, step, (a, eye_like(full_like(a, 0, (m, m)))))
    r = triu(r)
    if full_matrices:
        return q, r
    return (slice(q, start_indices=(0, 0), limit_indices=(m, k_max)),
            slice(r, start_indices=(0, 0), limit_indices=(k_max, n)))


qr_p = Primitive("qr", shape_rule=_qr_shape, impl=_qr_impl, jvp=_qr_jvp, transpose=NONLINEAR,
                 batch=batch_rule(lambda: qr_p), lower=lower_by_expansion(_expansion(_qr_algorithm, lc.qr_algorithm),
                                                                  multiple_results=True),
                 multiple_results=True, error_check=failure_check("qr", "the factorization failed"))


def qr(a, *, full_matrices: bool = False):
    """QR factorisation: [q, r] with q orthonormal columns and r upper triangular (numpy's sign convention).
    q is [..., m, k], r [..., k, n] with k = min(m, n), or k = m if full_matrices."""
    return qr_p.bind(a, full_matrices=bool(full_matrices))


# ---------------------------------------------------------------------------------------------- eigh

def _eigh_shape(a):
    _check_matrix("eigh", a, square=True, complex_ok=True)
    real = cx.part_dtype(a.dtype) if a.dtype.kind == "c" else a.dtype
    return [a.update(shape=a.shape[:-1], dtype=real), a]


def _eigh_impl(a):
    w, v = np.linalg.eigh((a + np.conj(np.swapaxes(a, -1, -2))) / 2)
    if a.dtype.kind != "c":  # complex eigenvectors keep LAPACK's phases, as Paddle 3.3.1's (and numpy's) do
        v = v * _np_fix_column_signs(v)[..., None, :]
    return [w.astype(a.real.dtype), v.astype(a.dtype)]


def _eigh_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    w, v = eigh(a)
    # A V = V diag(w): dw = diag(V^H dA V), dV = V (F o V^H dA V) with F the reciprocal eigenvalue gaps (JAX's
    # rule; for complex matrices dw is the real part, and dV the change with V^H dV zero on its diagonal)
    x = matmul(adjoint(v), matmul(hermitian_part(ta), v))
    gaps = gap_reciprocals(w)
    if get_aval(x).dtype.kind == "c":
        return [w, v], [cx.real(diagonal(x)), matmul(v, mul(convert_element_type(gaps, new_dtype=get_aval(x).dtype),
                                                                 x))]
    return [w, v], [diagonal(x), matmul(v, mul(gaps, x))]


def _eigh_algorithm(a):
    """Parallel cyclic Jacobi rotations (prims/matrices.py's jacobi_sweeps: n/2 disjoint pairs per round, J^T M J
    on both sides of M and V J on the eigenvectors) until the off-diagonal part is below eps relative to the whole,
    then the eigenvalues sorted ascending and the eigenvector signs fixed. An odd n gets a decoupled zero row and
    column, whose eigenpair is dropped."""
    n = shape_of(a)[0]
    m = padded_to_even(hermitian_part(a), (0, 1))

    def rotate(m, vt):
        a_pp, a_qq, a_pq = pair_entries(m)
        c, s = jacobi_rotation(a_pp, a_qq, a_pq)
        m = with_pairs_reduced(rotate_pairs(rotate_pairs(m, c, s, 0), c, s, 1), a_pp, a_qq, mul(div(s, c), a_pq))
        return next_round(next_round(m, 0), 1), next_round(rotate_pairs(vt, c, s, 0), 0)

    m, vt = jacobi_sweeps(m, eye_like(m), shape_of(m)[0], rotate, lambda m: off_diagonal_ratio(mul(m, m)))
    w, (v,) = sort_columns(unpadded(diagonal(m), (n,)), unit_columns(matrix_transpose(unpadded(vt, (n, n))))[0])
    return w, _fix_column_signs(v)[0]


eigh_p = Primitive("eigh", shape_rule=_eigh_shape, impl=_eigh_impl, jvp=_eigh_jvp, transpose=NONLINEAR,
                   batch=batch_rule(lambda: eigh_p), lower=lower_by_expansion(
                       _expansion(_eigh_algorithm, lc.eigh_algorithm), multiple_results=True),
                   multiple_results=True, error_check=failure_check("eigh", "the eigensolver failed"))


def eigh(a):
    """Eigen-decomposition of the symmetric (complex: Hermitian) part (A + A^H)/2: [w, v] with w ascending and real
    and A v = v diag(w); each real eigenvector's entry of largest magnitude is positive, complex ones keep LAPACK's
    phases eagerly and have that entry real and positive under jit. Its derivative needs distinct eigenvalues."""
    return eigh_p.bind(a)


# ---------------------------------------------------------------------------------------------- svd

def _svd_shape(a):
    _check_matrix("svd", a, complex_ok=True)
    m, n = a.shape[-2:]
    k, batch = min(m, n), a.shape[:-2]
    real = cx.part_dtype(a.dtype) if a.dtype.kind == "c" else a.dtype
    return [a.update(shape=batch + (m, k)), a.update(shape=batch + (k,), dtype=real),
            a.update(shape=batch + (k, n))]


def _svd_impl(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    if a.dtype.kind != "c":  # complex singular vectors keep LAPACK's phases, as Paddle 3.3.1's (and numpy's) do
        signs = _np_fix_column_signs(u)
        u, vh = u * signs[..., None, :], vh * signs[..., :, None]
    return [u.astype(a.dtype), s.astype(a.real.dtype), vh.astype(a.dtype)]


def _svd_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    u, s, vh = svd(a)
    v = adjoint(vh)
    dtype = get_aval(a).dtype
    m, n = shape_of(a)[-2:]
    k = min(m, n)
    dp = matmul(adjoint(u), matmul(ta, v))  # U^H dA V, k x k
    sc = convert_element_type(s, new_dtype=dtype)  # s in the matrices' dtype (the same one for real matrices)
    s_j, s_i = each_row(sc, k), each_column(sc, k)
    f = convert_element_type(gap_reciprocals(mul(s, s)), new_dtype=dtype)  # 1 / (s_j^2 - s_i^2)
    inner_u = mul(f, add(mul(dp, s_j), mul(s_i, adjoint(dp))))
    ds = diagonal(dp)
    if dtype.kind == "c":  # JAX's rule: the anti-Hermitian diagonal of U^H dA V / s goes to dU; ds is real
        nonzero = ne(s, full_like(s, 0))
        s_inv = convert_element_type(select(nonzero, div(full_like(s, 1), select(nonzero, s, full_like(s, 1))),
                                            full_like(s, 0)), new_dtype=dtype)
        half_skew = mul(sub(dp, adjoint(dp)), full_like(dp, 0.5))
        inner_u = add(inner_u, mul(half_skew, mul(eye_like(dp), each_row(s_inv, k))))
        ds = cx.real(ds)
    du = matmul(u, inner_u)
    dv = matmul(v, mul(f, add(mul(s_i, dp), mul(adjoint(dp), s_j))))
    if m > k:  # the part of dA V outside the column space of U
        du = add(du, div(sub(matmul(ta, v), matmul(u, dp)), each_row(sc, m)))
    if n > k:
        dv = add(dv, div(sub(matmul(adjoint(ta), u), matmul(v, adjoint(dp))), each_row(sc, n)))
    return [u, s, vh], [du, ds, adjoint(dv)]


def _svd_algorithm(a):
    """One-sided Jacobi (Hestenes) on the tall orientation, then the signs fixed on u."""
    m, n = shape_of(a)
    if m >= n:
        u, s, v = _one_sided_jacobi(a)
    else:  # a^T = u' s v'^T  =>  a = v' s u'^T
        v, s, u = _one_sided_jacobi(matrix_transpose(a))
    u, v = _fix_column_signs(u, lambda signs: mul(v, each_row(signs, n)))
    return u, s, matrix_transpose(v)


def _one_sided_jacobi(a):
    """Rotate column pairs of a tall `a` until they are orthogonal to eps (jacobi_sweeps: n/2 disjoint pairs per
    round): a V = W; then s = the column norms of W sorted descending and u = W's columns / s (a zero singular value
    gives a zero column). Returns u, s, V. The sweeps run on the transposes W^T and V^T, whose pairs are rows:
    contiguous lines to rotate, move and sum (columns made strided copies). An odd n gets a zero column, dropped at
    the end."""
    m, n = shape_of(a)
    wt = padded_to_even(matrix_transpose(a), (0,))

    def rotate(wt, vt):
        c, s = jacobi_rotation(*pair_row_products(wt, wt))
        return next_round(rotate_pairs(wt, c, s, 0), 0), next_round(rotate_pairs(vt, c, s, 0), 0)

    def coherence(wt):
        return column_coherence(abs(dot_general(wt, wt, dimension_numbers=(((1,), (1,)), ((), ())))))

    k = shape_of(wt)[0]
    wt, vt = jacobi_sweeps(wt, eye_like(full_like(wt, 0, (k, k))), k, rotate, coherence)
    w, (v,) = matrix_transpose(unpadded(wt, (n, m))), unit_columns(matrix_transpose(unpadded(vt, (n, n))))
    neg_s, (w, v) = sort_columns(neg(sqrt(reduce_sum(mul(w, w), axes=(0,)))), w, v)
    s = neg(neg_s)
    return div(w, each_row(nonzero_or_one(s), m)), s, v


svd_p = Primitive("svd", shape_rule=_svd_shape, impl=_svd_impl, jvp=_svd_jvp, transpose=NONLINEAR,
                  batch=batch_rule(lambda: svd_p), lower=lower_by_expansion(
                      _expansion(_svd_algorithm, lc.svd_algorithm), multiple_results=True),
                  multiple_results=True, error_check=failure_check("svd", "the decomposition failed"))


def svd(a):
    """Reduced singular value decomposition: [u, s, vh] with a = u diag(s) vh, s descending, u [..., m, k],
    vh [..., k, n], k = min(m, n); each column of real u has its entry of largest magnitude positive (complex u:
    LAPACK's phases eagerly, that entry real and positive under jit). Its derivative needs distinct nonzero singular
    values."""
    return svd_p.bind(a)

