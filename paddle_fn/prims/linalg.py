"""Matrix decompositions and triangular solves: cholesky, triangular_solve, lu, qr, eigh, svd.

Every primitive acts on the last two dimensions and maps over any leading (batch) dimensions, so each batching
rule only moves the vmapped axis to the front. Eagerly they run numpy/scipy (LAPACK). IREE 3.13 compiles neither
stablehlo.cholesky nor stablehlo.triangular_solve ("failed to legalize operation ... explicitly marked
illegal", float32 and float64) and has no LAPACK custom calls, so each lowering is an algorithm written here with
other primitives (loops over columns or rotations of one matrix, mapped over the batch dimensions), traced and
inlined into the StableHLO.

JVP rules are the standard matrix-calculus results, written with these primitives and dot_general so that they
are themselves differentiable and batchable. Decompositions with a sign ambiguity (eigh, svd) fix it: each
eigenvector / left singular vector has its entry of largest magnitude positive, eagerly and under jit alike.
"""
from __future__ import annotations

import warnings

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front, vmap_flat
from paddle_fn.core.errors import DTypeError, ShapeError, UnsupportedError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import NONLINEAR, Primitive, RuntimeCheck, symbolic_zeros
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import linalg_complex as lc
from paddle_fn.prims._rules import fmt, scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reduce_sum, reshape, transpose
from paddle_fn.prims.bitwise import and_
from paddle_fn.prims.control_flow import fori_loop, while_loop
from paddle_fn.prims.elementwise import (abs, add, convert_element_type, div, eq, ge, gt, lt, mul, ne, neg,  # noqa: A004
                                         nonfinite_count, select, sqrt, sub)
from paddle_fn.prims.reduction import argmax, dot_general, reduce_max, sort
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


def _ndim(x):
    return get_aval(x).ndim


def _shape(x):
    return get_aval(x).shape


def matrix_transpose(x):
    """Swap the last two dimensions."""
    nd = _ndim(x)
    return transpose(x, permutation=tuple(range(nd - 2)) + (nd - 1, nd - 2))


def matmul(a, b):
    """Matrix product over the last two dimensions; the leading dimensions of a and b are equal batch dims."""
    nd = _ndim(a)
    batch = tuple(range(nd - 2))
    return dot_general(a, b, dimension_numbers=(((nd - 1,), (nd - 2,)), (batch, batch)))


def _band(shape, k, lower):
    """Boolean mask over the last two dims: column - row <= k (lower) or >= k (upper)."""
    nd = len(shape)
    rows = iota(dtype=dtypes.int32, shape=shape, dimension=nd - 2)
    cols = iota(dtype=dtypes.int32, shape=shape, dimension=nd - 1)
    diff, bound = sub(cols, rows), broadcast_in_dim(Tensor(np.int32(k)), shape=shape, broadcast_dimensions=())
    return ge(bound, diff) if lower else ge(diff, bound)


def _masked(x, mask):
    """x where mask, 0 elsewhere, as a product so that it is linear in x (transposable)."""
    return mul(x, convert_element_type(mask, new_dtype=get_aval(x).dtype))


def tril(x, k=0):
    return _masked(x, _band(_shape(x), k, True))


def triu(x, k=0):
    return _masked(x, _band(_shape(x), k, False))


def eye_like(x):
    """The identity with x's (square) shape and dtype."""
    shape = _shape(x)
    return convert_element_type(eq(iota(dtype=dtypes.int32, shape=shape, dimension=len(shape) - 2),
                                   iota(dtype=dtypes.int32, shape=shape, dimension=len(shape) - 1)),
                                new_dtype=get_aval(x).dtype)


def diagonal(x):
    """The main diagonal of square matrices: [..., n, n] -> [..., n]."""
    return reduce_sum(mul(x, eye_like(x)), axes=(_ndim(x) - 1,))


def _rows(v, n):
    """v [..., k] as a matrix whose every row is v: [..., n, k] (entry [i, j] = v[j])."""
    shape = _shape(v)
    nd = len(shape)
    return broadcast_in_dim(v, shape=shape[:-1] + (n,) + shape[-1:],
                            broadcast_dimensions=tuple(range(nd - 1)) + (nd,))


def _cols(v, k):
    """v [..., n] as a matrix whose every column is v: [..., n, k] (entry [i, j] = v[i])."""
    shape = _shape(v)
    return broadcast_in_dim(v, shape=shape + (k,), broadcast_dimensions=tuple(range(len(shape))))


def diag_matrix(v):
    n = _shape(v)[-1]
    return mul(_rows(v, n), eye_like(_rows(v, n)))


def adjoint(x):
    """The conjugate transpose of the last two dimensions (the transpose of real matrices)."""
    t = matrix_transpose(x)
    return cx.conj(t) if get_aval(x).dtype.kind == "c" else t


def _symmetrize(x):
    """The Hermitian (for real matrices, symmetric) part (A + A^H) / 2."""
    return mul(add(x, adjoint(x)), full_like(x, 0.5))


def _batch_rule(get_prim):
    """Move every vmapped axis to the front (materialising it on unbatched operands); the primitive maps over
    leading dimensions itself."""
    def batch(vals, dims, **params):
        prim = get_prim()
        size = batch_size(vals, dims)
        out = prim.bind(*[bdim_at_front(v, d, size) for v, d in zip(vals, dims)], **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)
    return batch


def _lower_algorithm(algorithm, multiple_results=False, complex_algorithm=None):
    """A lowering that traces `algorithm(*matrices, **params)` (one unbatched problem, written with primitives),
    vmapped over the operands' leading dimensions, and inlines the resulting program; complex operands take
    `complex_algorithm` (paddle_fn.prims.linalg_complex: real arithmetic only), where there is one."""
    def lower(ctx, *args, **params):
        chosen = algorithm
        if any(a.dtype.kind == "c" for a in ctx.avals_in):
            if complex_algorithm is None:
                raise UnsupportedError(
                    f"{algorithm.__name__.strip('_').removesuffix('_algorithm')}: complex matrices are not compiled "
                    "yet (IREE 3.13 cannot compile this algorithm on complex numbers, and no real form of it is "
                    "written); call it on complex matrices outside jit. inv, solve, det, slogdet, lu, cholesky "
                    "and triangular_solve of complex matrices do compile")
            chosen = complex_algorithm
        batch_shape = ctx.avals_in[0].shape[:-2]
        n_out = len(ctx.avals_out)

        def one(*xs):
            out = chosen(*xs, **params)
            return list(out) if multiple_results else [out]

        fun = one
        for size in reversed(batch_shape or (1,)):
            fun = (lambda f, size: lambda *xs: vmap_flat(f, list(xs), [0] * len(xs), size, [0] * n_out))(fun, size)
        if not batch_shape:
            # lowered as a batch of one: IREE 3.13 fails at run time ("indirect buffer reference slot 0 is out of
            # range") on the unbatched one-sided Jacobi SVD of a wide matrix, and the batched form is as fast
            batched = fun
            fun = lambda *xs: [reshape(o, new_sizes=get_aval(o).shape[1:])  # noqa: E731
                               for o in batched(*[reshape(x, new_sizes=(1,) + get_aval(x).shape) for x in xs])]
        prog, consts = trace_to_program(fun, list(ctx.avals_in), transform="lowering")
        const_names = [ctx.constant(c.concrete_value(), c.aval) for c in consts]
        outs = ctx.inline(prog, const_names + list(args))
        return outs if multiple_results else outs[0]
    return lower


def _map_matrices(fn, *arrays):
    """Apply the numpy function fn (of single matrices, returning a tuple of arrays) over leading dims."""
    batch = arrays[0].shape[:-2]
    results = [fn(*(a[idx] for a in arrays)) for idx in np.ndindex(*batch)]
    return [np.stack([r[i] for r in results]).reshape(batch + results[0][i].shape) if batch else results[0][i]
            for i in range(len(results[0]))]


def _entry(x, i, j):
    """x[i, j] of a matrix at traced indices, as a 1x1 matrix."""
    return dynamic_slice(x, i, j, slice_sizes=(1, 1))


def _index_mask(n, k, compare, cols=1):
    """[n, cols] boolean: compare(row, k) for traced scalar k."""
    rows = iota(dtype=get_aval(k).dtype, shape=(n, cols), dimension=0)
    return compare(rows, broadcast_in_dim(k, shape=(n, cols), broadcast_dimensions=()))


def _outer(u, v):
    """u [n, 1] times v [1, k] -> [n, k]."""
    return dot_general(u, v, dimension_numbers=(((1,), (0,)), ((), ())))


def _fix_column_signs(u, *others):
    """Flip each column of u (and the same column / row of `others`) so its entry of largest magnitude is
    positive: a fixed choice of the sign gauge that eager and jit share."""
    n = _shape(u)[-2]
    nd = _ndim(u)
    biggest = argmax(abs(u), axis=nd - 2, index_dtype=dtypes.int32)                       # [..., k]
    rows = iota(dtype=dtypes.int32, shape=_shape(u), dimension=nd - 2)
    picked = reduce_sum(_masked(u, eq(rows, _rows(biggest, n))), axes=(nd - 2,))         # [..., k]
    signs = select(lt(picked, full_like(picked, 0)), full_like(picked, -1), full_like(picked, 1))
    return [mul(u, _rows(signs, n))] + [f(signs) for f in others]


def _np_fix_column_signs(u):
    """numpy version of _fix_column_signs: the signs that make u's largest-magnitude entries positive."""
    biggest = np.argmax(np.abs(u), axis=-2)
    picked = np.take_along_axis(u, biggest[..., None, :], axis=-2)[..., 0, :]
    return np.where(picked < 0, -1, 1).astype(u.dtype)


def _sweep_tolerance(dtype):
    return float(np.finfo(dtype.np).eps)


_MAX_SWEEPS = 40


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
    return _map_matrices(one, a, b)[0].astype(b.dtype)


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
    n, k = _shape(b)
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
        pivot = broadcast_in_dim(reshape(_entry(t, r, r), new_sizes=()), shape=(1, k), broadcast_dimensions=())
        solved = div(sub(b_row, matmul(t_row, x)), pivot)
        return dynamic_update_slice(x, solved, r, scalar_like(r, 0))

    return fori_loop(0, n, row, full_like(b, 0))


def _failure_check(name, failure):
    """A checked jit's "linalg" check of decomposition `name`: finite inputs gave a NaN or Inf result, which is
    how the compiled algorithms report `failure` (eagerly, the op raises)."""
    def check(inputs, outputs, **params):
        shapes = ", ".join(fmt(get_aval(x)) for x in inputs)
        zero = full_like(ShapedArray((), dtypes.int32), 0)  # inputs holding NaN or Inf are not this op's failure
        failures = select(eq(nonfinite_count(inputs), zero), nonfinite_count(outputs), zero)
        return [RuntimeCheck("linalg", failures, None,
                             f"{name} of {shapes}: {failure} ({{failures}} NaN or Inf values in its result)")]
    return check


def _complex_triangular_solve_algorithm(a, b, **params):
    return lc.triangular_solve_algorithm(a, b, **params, triangle_of=_triangle_of, eye_like=eye_like,
                                         real_lu=_lu_algorithm, real_triangular_solve=_triangular_solve_algorithm,
                                         permute=_permute_rows)


triangular_solve_p = Primitive("triangular_solve", shape_rule=_triangular_solve_shape, impl=_triangular_solve_impl,
                               jvp=_triangular_solve_jvp, transpose=_triangular_solve_transpose,
                               batch=_batch_rule(lambda: triangular_solve_p),
                               lower=_lower_algorithm(_triangular_solve_algorithm,
                                                      complex_algorithm=_complex_triangular_solve_algorithm),
                               error_check=_failure_check("triangular_solve", "the triangular matrix is singular"))


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
        return _map_matrices(one, sym)[0].astype(a.dtype)


def _cholesky_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    factor = cholesky(a)
    # L dL^H + dL L^H = dA  =>  dL = L phi(L^-1 dA L^-H), phi: the lower triangle with the diagonal halved
    half_solved = adjoint(triangular_solve(factor, _symmetrize(ta), lower=True))
    inner = triangular_solve(factor, half_solved, lower=True)
    phi = sub(tril(inner), mul(full_like(inner, 0.5), mul(inner, eye_like(inner))))
    return factor, matmul(factor, phi)


def _cholesky_algorithm(a):
    """Column by column: l[:, j] = (a[:, j] - l l[j, :]^T) / sqrt(pivot) below the diagonal (the columns of l
    from j on are still zero). A non-positive pivot gives nan, as the eager version."""
    n = _shape(a)[0]
    a = _symmetrize(a)

    def column(j, factor):
        zero = scalar_like(j, 0)
        row = dynamic_slice(factor, j, zero, slice_sizes=(1, n))
        v = sub(dynamic_slice(a, zero, j, slice_sizes=(n, 1)), dot_general(factor, row, dimension_numbers=(
            ((1,), (1,)), ((), ()))))
        root = broadcast_in_dim(reshape(sqrt(_entry(v, j, zero)), new_sizes=()), shape=(n, 1),
                                broadcast_dimensions=())
        col = select(_index_mask(n, j, ge), div(v, root), full_like(v, 0))
        return dynamic_update_slice(factor, col, zero, j)

    return fori_loop(0, n, column, full_like(a, 0))


cholesky_p = Primitive("cholesky", shape_rule=_cholesky_shape, impl=_cholesky_impl, jvp=_cholesky_jvp,
                       transpose=NONLINEAR, batch=_batch_rule(lambda: cholesky_p),
                       lower=_lower_algorithm(_cholesky_algorithm,
                                              complex_algorithm=lambda a: lc.cholesky_algorithm(a, _cholesky_algorithm)),
                       error_check=_failure_check("cholesky", "the matrix is not positive definite"))


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
    packed, piv, perm = _map_matrices(one, a)
    return [packed.astype(a.dtype), piv, perm]


def lu_solve(packed, perm, b):
    """x with A x = b from A's LU factors (A[perm] = L U)."""
    pb = matmul(permutation_matrix(perm, get_aval(b).dtype), b)
    z = triangular_solve(packed, pb, lower=True, unit_diagonal=True)
    return triangular_solve(packed, z, lower=False)


def _permute_rows(perm, x):
    """x[perm] for a permutation vector: P x."""
    return matmul(permutation_matrix(perm, get_aval(x).dtype), x)


def permutation_matrix(perm, dtype):
    """P with P[i, j] = (perm[i] == j), so that P @ A = A[perm]."""
    shape = _shape(perm) + _shape(perm)[-1:]
    nd = len(shape)
    hit = eq(broadcast_in_dim(perm, shape=shape, broadcast_dimensions=tuple(range(nd - 1))),
             iota(dtype=dtypes.int32, shape=shape, dimension=nd - 1))
    return convert_element_type(hit, new_dtype=dtype)


def _lu_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    packed, pivots, perm = lu(a)
    unit_lower = add(tril(packed, -1), eye_like(packed))
    u = triu(packed)
    # P A = L U  =>  L^-1 P dA U^-1 = L^-1 dL + dU U^-1, strictly lower plus upper
    pda = matmul(permutation_matrix(perm, get_aval(a).dtype), ta)
    y = triangular_solve(packed, pda, lower=True, unit_diagonal=True)
    x = matrix_transpose(triangular_solve(packed, matrix_transpose(y), lower=False, transpose_a=True))
    return [packed, pivots, perm], [add(matmul(unit_lower, tril(x, -1)), matmul(triu(x), u)), None, None]


def _lu_algorithm(a):
    """Gaussian elimination with partial pivoting (largest magnitude, first on ties, as LAPACK); a zero pivot
    column is left as it is (LAPACK's info > 0 case)."""
    n = _shape(a)[0]

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
        pivot = reshape(_entry(m, k, k), new_sizes=())
        pivot = select(eq(pivot, scalar_like(pivot, 0)), scalar_like(pivot, 1), pivot)
        col = dynamic_slice(m, zero, k, slice_sizes=(n, 1))
        below = _index_mask(n, k, gt)
        multipliers = select(below, div(col, broadcast_in_dim(pivot, shape=(n, 1), broadcast_dimensions=())),
                             full_like(col, 0))
        u_row = select(reshape(_index_mask(n, k, gt), new_sizes=(1, n)), dynamic_slice(m, k, zero, slice_sizes=(1, n)),
                       full_like(row_k, 0))
        m = sub(m, _outer(multipliers, u_row))
        m = dynamic_update_slice(m, select(below, multipliers, col), zero, k)
        return m, pivots, perm

    index = iota(dtype=dtypes.int32, shape=(n,), dimension=0)
    m, pivots, perm = fori_loop(0, n, step, (a, index, index))
    return m, pivots, perm


lu_p = Primitive("lu", shape_rule=_lu_shape, impl=_lu_impl, jvp=_lu_jvp, transpose=NONLINEAR,
                 batch=_batch_rule(lambda: lu_p),
                 lower=_lower_algorithm(_lu_algorithm, multiple_results=True,
                                        complex_algorithm=lambda a: lc.lu_algorithm(a, _index_mask, _outer)),
                 multiple_results=True, error_check=_failure_check("lu", "the factorization failed"))


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
    m, n = _shape(a)[-2:]
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
    m, n = _shape(a)
    k_max = min(m, n)

    def step(k, carry):
        r, q = carry
        zero = scalar_like(k, 0)
        x = select(_index_mask(m, k, ge), dynamic_slice(r, zero, k, slice_sizes=(m, 1)), full_like(r, 0, (m, 1)))
        alpha = reshape(_entry(x, k, zero), new_sizes=())
        tail = select(_index_mask(m, k, gt), x, full_like(x, 0))
        tail_sq = reduce_sum(mul(tail, tail), axes=(0, 1))
        norm = sqrt(add(mul(alpha, alpha), tail_sq))
        beta = select(ge(alpha, scalar_like(alpha, 0)), neg(norm), norm)
        e_k = convert_element_type(_index_mask(m, k, eq), new_dtype=get_aval(x).dtype)
        v = sub(x, mul(e_k, broadcast_in_dim(beta, shape=(m, 1), broadcast_dimensions=())))
        vtv = reduce_sum(mul(v, v), axes=(0, 1))
        reflect = ne(tail_sq, scalar_like(tail_sq, 0))
        scale = select(reflect, div(scalar_like(vtv, 2), select(reflect, vtv, scalar_like(vtv, 1))),
                       scalar_like(vtv, 0))
        v_scaled = mul(v, broadcast_in_dim(scale, shape=(m, 1), broadcast_dimensions=()))
        r = sub(r, _outer(v_scaled, dot_general(v, r, dimension_numbers=(((0,), (0,)), ((), ())))))
        q = sub(q, _outer(matmul(q, v_scaled), matrix_transpose(v)))
        return r, q

    r, q = fori_loop(0, k_max, step, (a, eye_like(full_like(a, 0, (m, m)))))
    r = triu(r)
    if full_matrices:
        return q, r
    return (slice(q, start_indices=(0, 0), limit_indices=(m, k_max)),
            slice(r, start_indices=(0, 0), limit_indices=(k_max, n)))


qr_p = Primitive("qr", shape_rule=_qr_shape, impl=_qr_impl, jvp=_qr_jvp, transpose=NONLINEAR,
                 batch=_batch_rule(lambda: qr_p), lower=_lower_algorithm(_qr_algorithm, multiple_results=True),
                 multiple_results=True, error_check=_failure_check("qr", "the factorization failed"))


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


def _gap_reciprocals(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (w: [..., n])."""
    n = _shape(w)[-1]
    gaps = sub(_rows(w, n), _cols(w, n))
    on_diag = ne(eye_like(gaps), full_like(gaps, 0))
    return select(on_diag, full_like(gaps, 0), div(full_like(gaps, 1), select(on_diag, full_like(gaps, 1), gaps)))


def _eigh_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    w, v = eigh(a)
    # A V = V diag(w): dw = diag(V^H dA V), dV = V (F o V^H dA V) with F the reciprocal eigenvalue gaps (JAX's
    # rule; for complex matrices dw is the real part, and dV the change with V^H dV zero on its diagonal)
    x = matmul(adjoint(v), matmul(_symmetrize(ta), v))
    gaps = _gap_reciprocals(w)
    if get_aval(x).dtype.kind == "c":
        return [w, v], [cx.real(diagonal(x)), matmul(v, mul(convert_element_type(gaps, new_dtype=get_aval(x).dtype),
                                                                 x))]
    return [w, v], [diagonal(x), matmul(v, mul(gaps, x))]


def _jacobi_sweeps(x, v, n, rotate, residual):
    """Cyclic Jacobi sweeps: `rotate(x, v, p, q) -> (x, v)` for every index pair p < q of 0..n-1 (traced scalars),
    sweep after sweep until `residual(x)` is below eps or _MAX_SWEEPS have run. Returns the final x, v."""
    pairs = [(p, q) for p in range(n) for q in range(p + 1, n)]
    if not pairs:
        return x, v
    ps, qs = (Tensor(np.array(column, np.int32)) for column in zip(*pairs))
    tol = _sweep_tolerance(get_aval(x).dtype)

    def rotate_pair(i, carry):
        p, q = (reshape(dynamic_slice(column, i, slice_sizes=(1,)), new_sizes=()) for column in (ps, qs))
        return rotate(*carry, p, q)

    def sweep(carry):
        x, v, count, _ = carry
        x, v = fori_loop(0, len(pairs), rotate_pair, (x, v))
        return x, v, add(count, scalar_like(count, 1)), residual(x)

    def unfinished(carry):
        _, _, count, off = carry
        return and_(lt(count, scalar_like(count, _MAX_SWEEPS)), gt(off, scalar_like(off, tol)))

    x, v, _, _ = while_loop(unfinished, sweep, (x, v, Tensor(np.int32(0)), residual(x)))
    return x, v


def _eigh_algorithm(a):
    """Cyclic Jacobi rotations until the off-diagonal part is below eps relative to the whole, then the
    eigenvalues sorted ascending and the eigenvector signs fixed."""
    n = _shape(a)[0]
    a = _symmetrize(a)

    def rotate(m, v, p, q):
        zero = scalar_like(p, 0)
        a_pp, a_qq, a_pq = (reshape(_entry(m, r, c), new_sizes=()) for r, c in ((p, p), (q, q), (p, q)))
        c, s = _jacobi_rotation(a_pp, a_qq, a_pq)
        m = _rotate_lines(m, p, q, c, s, zero, rows=True)
        m = _rotate_lines(m, p, q, c, s, zero, rows=False)
        return m, _rotate_lines(v, p, q, c, s, zero, rows=False)

    m, v = _jacobi_sweeps(a, eye_like(a), n, rotate, _off_diagonal_ratio)
    w, order = sort(diagonal(m), iota(dtype=dtypes.int32, shape=(n,), dimension=0), dimension=0)
    v = matmul(v, matrix_transpose(permutation_matrix(order, get_aval(v).dtype)))
    return w, _fix_column_signs(v)[0]


def _jacobi_rotation(a_pp, a_qq, a_pq):
    """(c, s) of the rotation that zeroes a_pq of a symmetric 2x2 block (Rutishauser's stable form)."""
    nonzero = ne(a_pq, scalar_like(a_pq, 0))
    theta = div(sub(a_qq, a_pp), mul(scalar_like(a_pq, 2), select(nonzero, a_pq, scalar_like(a_pq, 1))))
    sign = select(ge(theta, scalar_like(theta, 0)), scalar_like(theta, 1), scalar_like(theta, -1))
    t = div(sign, add(abs(theta), sqrt(add(mul(theta, theta), scalar_like(theta, 1)))))
    t = select(nonzero, t, scalar_like(t, 0))
    c = div(scalar_like(t, 1), sqrt(add(mul(t, t), scalar_like(t, 1))))
    return c, mul(t, c)


def _rotate_lines(x, p, q, c, s, zero, *, rows):
    """Apply the rotation to rows p, q of x (x <- J^T x) or to its columns p, q (x <- x J), J = [[c, s], [-s, c]]
    in the (p, q) plane."""
    shape = _shape(x)
    size = (1, shape[1]) if rows else (shape[0], 1)
    at = (lambda i: (i, zero)) if rows else (lambda i: (zero, i))
    line_p, line_q = dynamic_slice(x, *at(p), slice_sizes=size), dynamic_slice(x, *at(q), slice_sizes=size)
    cs, ss = (broadcast_in_dim(t, shape=size, broadcast_dimensions=()) for t in (c, s))
    new_p, new_q = sub(mul(cs, line_p), mul(ss, line_q)), add(mul(ss, line_p), mul(cs, line_q))
    return dynamic_update_slice(dynamic_update_slice(x, new_p, *at(p)), new_q, *at(q))


def _off_diagonal_ratio(m):
    """||off-diagonal part|| / ||m|| (0 for a zero matrix)."""
    total = reduce_sum(mul(m, m), axes=(0, 1))
    off_part = sub(m, mul(m, eye_like(m)))
    off = reduce_sum(mul(off_part, off_part), axes=(0, 1))
    return sqrt(div(off, select(eq(total, scalar_like(total, 0)), scalar_like(total, 1), total)))


eigh_p = Primitive("eigh", shape_rule=_eigh_shape, impl=_eigh_impl, jvp=_eigh_jvp, transpose=NONLINEAR,
                   batch=_batch_rule(lambda: eigh_p), lower=_lower_algorithm(_eigh_algorithm, multiple_results=True),
                   multiple_results=True, error_check=_failure_check("eigh", "the eigensolver failed"))


def eigh(a):
    """Eigen-decomposition of the symmetric (complex: Hermitian) part (A + A^H)/2: [w, v] with w ascending and real
    and A v = v diag(w); each real eigenvector's entry of largest magnitude is positive, complex ones keep LAPACK's
    phases. Its derivative needs distinct eigenvalues."""
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
    m, n = _shape(a)[-2:]
    k = min(m, n)
    dp = matmul(adjoint(u), matmul(ta, v))  # U^H dA V, k x k
    sc = convert_element_type(s, new_dtype=dtype)  # s in the matrices' dtype (the same one for real matrices)
    s_j, s_i = _rows(sc, k), _cols(sc, k)
    f = convert_element_type(_gap_reciprocals(mul(s, s)), new_dtype=dtype)  # 1 / (s_j^2 - s_i^2)
    inner_u = mul(f, add(mul(dp, s_j), mul(s_i, adjoint(dp))))
    ds = diagonal(dp)
    if dtype.kind == "c":  # JAX's rule: the anti-Hermitian diagonal of U^H dA V / s goes to dU; ds is real
        nonzero = ne(s, full_like(s, 0))
        s_inv = convert_element_type(select(nonzero, div(full_like(s, 1), select(nonzero, s, full_like(s, 1))),
                                            full_like(s, 0)), new_dtype=dtype)
        half_skew = mul(sub(dp, adjoint(dp)), full_like(dp, 0.5))
        inner_u = add(inner_u, mul(half_skew, mul(eye_like(dp), _rows(s_inv, k))))
        ds = cx.real(ds)
    du = matmul(u, inner_u)
    dv = matmul(v, mul(f, add(mul(s_i, dp), mul(adjoint(dp), s_j))))
    if m > k:  # the part of dA V outside the column space of U
        du = add(du, div(sub(matmul(ta, v), matmul(u, dp)), _rows(sc, m)))
    if n > k:
        dv = add(dv, div(sub(matmul(adjoint(ta), u), matmul(v, adjoint(dp))), _rows(sc, n)))
    return [u, s, vh], [du, ds, adjoint(dv)]


def _svd_algorithm(a):
    """One-sided Jacobi (Hestenes) on the tall orientation, then the signs fixed on u."""
    m, n = _shape(a)
    if m >= n:
        u, s, v = _one_sided_jacobi(a)
    else:  # a^T = u' s v'^T  =>  a = v' s u'^T
        v, s, u = _one_sided_jacobi(matrix_transpose(a))
    u, v = _fix_column_signs(u, lambda signs: mul(v, _rows(signs, n)))
    return u, s, matrix_transpose(v)


def _one_sided_jacobi(a):
    """Rotate column pairs of a tall `a` until they are orthogonal to eps: a V = W; then s = the column norms of W
    sorted descending and u = W's columns / s (a zero singular value gives a zero column). Returns u, s, V."""
    m, n = _shape(a)

    def rotate(w, v, p, q):
        zero = scalar_like(p, 0)
        w_p, w_q = dynamic_slice(w, zero, p, slice_sizes=(m, 1)), dynamic_slice(w, zero, q, slice_sizes=(m, 1))
        dots = [reduce_sum(mul(x, y), axes=(0, 1)) for x, y in ((w_p, w_p), (w_q, w_q), (w_p, w_q))]
        c, s = _jacobi_rotation(*dots)
        return _rotate_lines(w, p, q, c, s, zero, rows=False), _rotate_lines(v, p, q, c, s, zero, rows=False)

    w, v = _jacobi_sweeps(a, eye_like(full_like(a, 0, (n, n))), n, rotate, _column_coherence)
    norms = sqrt(reduce_sum(mul(w, w), axes=(0,)))
    neg_s, order = sort(neg(norms), iota(dtype=dtypes.int32, shape=(n,), dimension=0), dimension=0)
    s = neg(neg_s)
    to_order = matrix_transpose(permutation_matrix(order, get_aval(w).dtype))
    w, v = matmul(w, to_order), matmul(v, to_order)
    zero_s = eq(s, full_like(s, 0))
    return div(w, _rows(select(zero_s, full_like(s, 1), s), m)), s, v


def _column_coherence(w):
    """max |w_p . w_q| / (|w_p| |w_q|) over column pairs (0 where a column is zero)."""
    gram = dot_general(w, w, dimension_numbers=(((0,), (0,)), ((), ())))
    d = diagonal(gram)
    scale = sqrt(mul(_rows(d, _shape(d)[0]), _cols(d, _shape(d)[0])))
    zero = eq(scale, full_like(scale, 0))
    ratio = div(abs(sub(gram, mul(gram, eye_like(gram)))), select(zero, full_like(scale, 1), scale))
    return reduce_max(ratio, axes=(0, 1))


svd_p = Primitive("svd", shape_rule=_svd_shape, impl=_svd_impl, jvp=_svd_jvp, transpose=NONLINEAR,
                  batch=_batch_rule(lambda: svd_p), lower=_lower_algorithm(_svd_algorithm, multiple_results=True),
                  multiple_results=True, error_check=_failure_check("svd", "the decomposition failed"))


def svd(a):
    """Reduced singular value decomposition: [u, s, vh] with a = u diag(s) vh, s descending, u [..., m, k],
    vh [..., k, n], k = min(m, n); each column of u has its entry of largest magnitude positive. Its derivative
    needs distinct nonzero singular values."""
    return svd_p.bind(a)

