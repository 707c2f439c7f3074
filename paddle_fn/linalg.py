"""`paddle.linalg`: Paddle 2.3's linear-algebra namespace, composed from the decomposition primitives of
`paddle_fn.prims.linalg` (cholesky, triangular_solve, lu, qr, eigh, svd) and dot_general.

Every function maps over leading (batch) dimensions, is differentiable (grad and JVP) wherever the underlying
decomposition is (distinct eigenvalues / singular values, invertible factors), and works under vmap and jit
(the primitives lower to paddle_fn's own StableHLO algorithms), for complex matrices too; `eig`/`eigvals` of
general matrices (`paddle_fn.prims.linalg_eig`) too. See docs/linalg.md and docs/complex.md.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError, UnsupportedError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import linalg as la
from paddle_fn.prims import linalg_eig
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.tensor._util import accepts_out, eager_value, normalize_axes, shape_of, static_int, write_out
from paddle_fn.tensor.aliases import matrix_transpose
from paddle_fn.tensor.linalg import cross, diagonal, inner, matmul, outer
from paddle_fn.tensor.lowrank import pca_lowrank, svd_lowrank
from paddle_fn.tensor.lu_rectangular import lu_rectangular
from paddle_fn.tensor.manipulation import reshape, where
from paddle_fn.tensor.math import abs as abs_, ceil, log2, max as max_, maximum, sum as sum_
from paddle_fn.tensor.matrix_functions import cholesky_inverse, householder_product, ormqr, svdvals, vecdot
from paddle_fn.tensor.promotion import (as_tensor, broadcast_shapes, broadcast_to_shape, cast, float_operand,
                                        inexact_operand)

__all__ = ["matmul", "norm", "inv", "det", "slogdet", "solve", "triangular_solve", "cholesky", "cholesky_solve",
           "qr", "svd", "eigh", "eigvalsh", "eig", "eigvals", "lstsq", "lu", "lu_unpack", "pinv", "matrix_power",
           "cov", "inner", "outer", "multi_dot", "matrix_rank", "cond", "vector_norm", "matrix_norm", "corrcoef",
           "matrix_exp", "lu_solve", "vecdot", "svdvals", "householder_product", "ormqr", "cholesky_inverse", "cross",
           "diagonal", "matrix_transpose", "svd_lowrank", "pca_lowrank"]


# ---------------------------------------------------------------------------------------------- helpers

def _matrices(op, x, *, square=False, complex_ok=False):
    """x as a float Tensor of matrices [..., m, n] (square if asked), with errors that name the function;
    `complex_ok`: the function has a complex form, so complex64/complex128 pass too."""
    x = inexact_operand(op, x) if complex_ok else float_operand(op, x)
    shape = shape_of(x)
    if len(shape) < 2:
        raise ShapeError(f"paddle.linalg.{op}: expected a matrix or a batch of matrices (at least 2 dimensions), "
                         f"got shape {list(shape)}")
    if get_aval(x).dtype.name not in ("float32", "float64", "complex64", "complex128"):
        x = cast(x, dtypes.float32)  # LAPACK (and the lowerings) work in float32 or float64
    if square and shape[-1] != shape[-2]:
        raise ShapeError(f"paddle.linalg.{op}: expected square matrices, got shape {list(shape)} ({shape[-2]} rows, "
                         f"{shape[-1]} columns)")
    return x


def _broadcast_batch(op, x, y):
    """Broadcast the leading (batch) dimensions of two stacks of matrices and give them their promoted dtype."""
    xs, ys = shape_of(x), shape_of(y)
    batch = broadcast_shapes(op, xs[:-2], ys[:-2])
    dt = dtypes.result_dtype_tensors(get_aval(x).dtype, get_aval(y).dtype)
    return broadcast_to_shape(cast(x, dt), batch + xs[-2:]), broadcast_to_shape(cast(y, dt), batch + ys[-2:])


def _last(x, k=1):
    return tuple(range(get_aval(x).ndim - k, get_aval(x).ndim))


def _sum(x, axes):
    return red.reduce_sum(x, axes=axes)


def _identity(n, batch, dtype):
    shape = tuple(batch) + (n, n)
    return la.eye_like(st.full(shape, 0, dtype))


def _scale_columns(x, v):
    """x [..., m, k] times v [..., k] per column (real v scales complex x)."""
    v = ew.convert_element_type(v, new_dtype=get_aval(x).dtype)
    return ew.mul(x, st.broadcast_in_dim(v, shape=shape_of(x), broadcast_dimensions=tuple(
        range(get_aval(v).ndim - 1)) + (get_aval(x).ndim - 1,)))


def _keep(x, axes, keepdim):
    """Reinsert the reduced `axes` as size-1 dims if keepdim."""
    if keepdim:
        return st.expand_dims(x, dimensions=tuple(axes))
    return x


# ---------------------------------------------------------------------------------------------- factorizations

def cholesky(x, upper=False, name=None):
    """The Cholesky factor of symmetric (complex: Hermitian) positive-definite matrices: lower L with L L^H = x
    (or upper U = L^H with U^H U = x). Reads the Hermitian part (x + x^H)/2. A matrix that is not positive definite raises
    LinAlgError eagerly, as in Paddle; under jit the check cannot run and its factor there is nan.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.cholesky(paddle.to_tensor([[4., 2.], [2., 5.]])).numpy()
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    a = _matrices("cholesky", x, square=True, complex_ok=True)
    lower = la.cholesky(a)
    v, out = eager_value(a), eager_value(lower)
    # a finite matrix whose factor has a nan has a non-positive leading minor (under jit a constant matrix has a
    # value but its factor is traced: nothing to check)
    if v is not None and out is not None:
        _raise_for_flagged("cholesky", a, np.isnan(out).any(axis=(-2, -1)) & np.isfinite(v).all(axis=(-2, -1)),
                           "is not positive definite, so it has no Cholesky factor; check it is symmetric with "
                           "positive eigenvalues (adding eps * I to a positive semi-definite matrix makes it definite)")
    return la.adjoint(lower) if upper else lower


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """The solution `out` of x @ out = y (or x^T @ out = y) for triangular x, reading only its upper (or lower)
    triangle, and taking its diagonal as ones if `unitriangular`. Batch dimensions broadcast.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.triangular_solve(paddle.to_tensor([[2., 1.], [0., 4.]]), paddle.to_tensor([[4.], [8.]])).numpy()
        array([[1.],
               [2.]], dtype=float32)
    """
    x = _matrices("triangular_solve", x, square=True)
    y = _matrices("triangular_solve", y)
    _check_rows("triangular_solve", x, y)
    x, y = _broadcast_batch("triangular_solve", x, y)
    return la.triangular_solve(x, y, lower=not upper, transpose_a=bool(transpose), unit_diagonal=bool(unitriangular))


def _check_rows(op, x, y):
    if shape_of(y)[-2] != shape_of(x)[-1]:
        raise ShapeError(f"paddle.linalg.{op}: the right-hand side must have {shape_of(x)[-1]} rows to match x of "
                         f"shape {list(shape_of(x))}, got shape {list(shape_of(y))}")


def cholesky_solve(x, y, upper=False, name=None):
    """The solution of A @ out = x where `y` is the Cholesky factor of A (lower: A = y y^T; upper: A = y^T y).
    (Paddle's argument order: x is the right-hand side.)

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> factor = paddle.to_tensor([[2., 0.], [1., 2.]])
        >>> linalg.cholesky_solve(paddle.to_tensor([[8.], [12.]]), factor).numpy()
        array([[1.],
               [2.]], dtype=float32)
    """
    b = _matrices("cholesky_solve", x)
    factor = _matrices("cholesky_solve", y, square=True)
    _check_rows("cholesky_solve", factor, b)
    factor, b = _broadcast_batch("cholesky_solve", factor, b)
    lower = not upper
    # lower: L L^T out = b; upper: U^T U out = b
    z = la.triangular_solve(factor, b, lower=lower, transpose_a=not lower)
    return la.triangular_solve(factor, z, lower=lower, transpose_a=lower)


def lu(x, pivot=True, get_infos=False, name=None):
    """LU factorisation with partial pivoting: (LU, pivots[, infos]) of matrices [..., m, n] as LAPACK's getrf.

    LU [..., m, n] packs U (upper triangle) and L's multipliers (below the diagonal; L has a unit diagonal);
    pivots [..., min(m, n)] (int32, 1-based) says row i was swapped with row pivots[i]; infos (int32) is 0, or
    k > 0 when U[k-1, k-1] is exactly zero (the matrix is singular). `lu_unpack` rebuilds P [m, m], L [m, k]
    and U [k, n] with x = P @ L @ U.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> packed, pivots = linalg.lu(paddle.to_tensor([[1., 2.], [3., 4.]]))
        >>> packed.numpy(), pivots.numpy()
        (array([[3.        , 4.        ],
               [0.33333334, 0.6666666 ]], dtype=float32), array([2, 2], dtype=int32))
        >>> packed, pivots = linalg.lu(paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.]], dtype='float64'))
        >>> packed.numpy(), pivots.numpy()
        (array([[5. , 6. ],
               [0.2, 0.8],
               [0.6, 0.5]]), array([3, 3], dtype=int32))
    """
    if not pivot:
        raise UnsupportedError("paddle.linalg.lu: pivot=False is not supported (unpivoted LU is unstable); use "
                               "pivot=True and lu_unpack")
    x = _matrices("lu", x)
    m, n = shape_of(x)[-2:]
    packed, pivots = la.lu(x)[:2] if m == n else lu_rectangular(x)
    one_based = ew.add(pivots, st.full(shape_of(pivots), 1, dtypes.int32))
    if not get_infos:
        return packed, one_based
    k = min(m, n)
    return packed, one_based, _lu_infos(packed[..., :k, :k])


def _lu_infos(packed):
    diag = la.diagonal(packed)
    zero = ew.convert_element_type(ew.eq(diag, st.full_like(diag, 0)), new_dtype=dtypes.int32)
    first = red.argmax(zero, axis=get_aval(zero).ndim - 1, index_dtype=dtypes.int32)
    any_zero = red.reduce_max(zero, axes=_last(zero))
    return ew.mul(any_zero, ew.add(first, st.full(shape_of(first), 1, dtypes.int32)))


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from `lu`'s packed factor x [..., m, n] and 1-based pivots y, with A = P @ L @ U: P [..., m, m],
    L [..., m, k], U [..., k, n], k = min(m, n). P and/or L, U are None when not asked for.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> a = paddle.to_tensor([[1., 2.], [3., 4.]])
        >>> p, l, u = linalg.lu_unpack(*linalg.lu(a))
        >>> (p @ l @ u).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
        >>> p, l, u = linalg.lu_unpack(*linalg.lu(paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.]])))
        >>> p.shape, l.shape, u.shape
        (paddle.Size([3, 3]), paddle.Size([3, 2]), paddle.Size([2, 2]))
    """
    packed = _matrices("lu_unpack", x)
    m, n = shape_of(packed)[-2:]
    k = min(m, n)
    perm = lower = upper = None
    if unpack_ludata:
        lower_part = packed[..., :, :k]
        lower = ew.add(la.tril(lower_part, -1), la.eye_like(lower_part))
        upper = la.triu(packed[..., :k, :])
    if unpack_pivots:
        pivots = ew.sub(as_tensor(y, dtypes.int32), st.full(shape_of(y), 1, dtypes.int32))
        perm = la.matrix_transpose(la.permutation_matrix(_permutation_of_pivots(pivots, m),
                                                         get_aval(packed).dtype))
    return perm, lower, upper


def _permutation_of_pivots(pivots, m):
    """The row order of m rows (A[perm] = L U) produced by swapping row i with row pivots[i] for i = 0, 1, ...
    (batched)."""
    shape = shape_of(pivots)
    nd = len(shape)
    batch_dims = tuple(range(nd - 1))
    pivot_positions = st.iota(dtype=dtypes.int32, shape=shape, dimension=nd - 1)
    perm_shape = tuple(shape[:-1]) + (m,)
    positions = st.iota(dtype=dtypes.int32, shape=perm_shape, dimension=nd - 1)

    def at(where_shape, i):
        return st.broadcast_in_dim(ew.convert_element_type(i, new_dtype=dtypes.int32), shape=where_shape,
                                   broadcast_dimensions=())

    def pick(values, mask):
        return st.broadcast_in_dim(_sum(ew.mul(values, ew.convert_element_type(mask, new_dtype=dtypes.int32)),
                                        (nd - 1,)), shape=perm_shape, broadcast_dimensions=batch_dims)

    def swap(i, perm):
        p = _sum(ew.mul(pivots, ew.convert_element_type(ew.eq(pivot_positions, at(shape, i)),
                                                        new_dtype=dtypes.int32)), (nd - 1,))
        at_i = ew.eq(positions, at(perm_shape, i))
        at_p = ew.eq(positions, st.broadcast_in_dim(p, shape=perm_shape, broadcast_dimensions=batch_dims))
        return ew.select(at_i, pick(perm, at_p), ew.select(at_p, pick(perm, at_i), perm))

    return fori_loop(0, shape[-1], swap, positions)


def qr(x, mode="reduced", name=None):
    """QR factorisation x = Q @ R (numpy's signs): mode 'reduced' (Q [.., m, k], R [.., k, n], k = min(m, n)),
    'complete' (Q [.., m, m]) or 'r' (R only).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> q, r = linalg.qr(paddle.to_tensor([[3., 1.], [4., 2.]]))
        >>> r.numpy().round(4)
        array([[-5. , -2.2],
               [ 0. ,  0.4]], dtype=float32)
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"paddle.linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = la.qr(_matrices("qr", x, complex_ok=True), full_matrices=mode == "complete")
    return r if mode == "r" else (q, r)


@accepts_out
def svd(x, full_matrices=False, name=None):
    """Reduced singular value decomposition (U, S, VH) with x = U @ diag(S) @ VH and S descending; each column of
    U has its entry of largest magnitude positive.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> u, s, vh = linalg.svd(paddle.to_tensor([[3., 0.], [0., -4.]]))
        >>> s.numpy(), u.numpy(), vh.numpy()
        (array([4., 3.], dtype=float32), array([[0., 1.],
               [1., 0.]], dtype=float32), array([[-0., -1.],
               [ 1.,  0.]], dtype=float32))
    """
    if full_matrices:
        raise UnsupportedError("paddle.linalg.svd: full_matrices=True is not supported (the extra columns of U or "
                               "rows of VH are not unique, so they have no derivative); use full_matrices=False, and "
                               "qr(u, mode='complete') to complete U if needed")
    return tuple(la.svd(_matrices("svd", x, complex_ok=True)))


def _symmetric_from(op, x, uplo):
    """The symmetric (complex: Hermitian, with the real part of the diagonal, as LAPACK reads it) matrix described
    by the lower ('L') or upper ('U') triangle of x, differentiated as the Hermitian part (x + x^H) / 2, as Paddle's
    and JAX's eigh are (the value reads one triangle; the gradient is Hermitian)."""
    if uplo not in ("L", "U"):
        raise ValueError(f"paddle.linalg.{op}: UPLO must be 'L' or 'U', got {uplo!r}")
    x = _matrices(op, x, square=True, complex_ok=True)
    strict = la.tril(x, -1) if uplo == "L" else la.triu(x, 1)
    diag = la.tril(la.triu(x))
    if x.dtype.kind == "c":
        diag = cx.complex_(cx.real(diag), st.full_like(cx.real(diag), 0))
    hermitian = la.hermitian_part(x)
    return ew.add(ew.stop_gradient(ew.sub(ew.add(ew.add(diag, strict), la.adjoint(strict)), hermitian)), hermitian)


def eigh(x, UPLO="L", name=None):  # noqa: N803 - Paddle's parameter name
    """Eigenvalues (ascending) and eigenvectors of symmetric (complex: Hermitian) matrices given by their lower
    ('L') or upper ('U') triangle; each real eigenvector has its entry of largest magnitude positive, complex ones
    keep LAPACK's phases (as Paddle). Derivatives need distinct eigenvalues.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> w, v = linalg.eigh(paddle.to_tensor([[2., 1.], [1., 2.]]))
        >>> w.numpy(), v.numpy().round(4)
        (array([1., 3.], dtype=float32), array([[ 0.7071,  0.7071],
               [-0.7071,  0.7071]], dtype=float32))
    """
    return tuple(la.eigh(_symmetric_from("eigh", x, UPLO)))


def eigvalsh(x, UPLO="L", name=None):  # noqa: N803
    """The eigenvalues (ascending) of symmetric matrices given by one triangle.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.eigvalsh(paddle.to_tensor([[2., 1.], [1., 2.]])).numpy()
        array([1., 3.], dtype=float32)
    """
    return la.eigh(_symmetric_from("eigvalsh", x, UPLO))[0]


def eig(x, name=None):
    """Eigenvalues and eigenvectors of general real or complex square matrices [..., n, n], as complex Tensors
    (complex64 for float32 or complex64 input, complex128 for float64 or complex128): A v = v diag(w), each
    eigenvector of unit norm with its entry of largest magnitude real. Eagerly LAPACK's geev (Paddle's results);
    under jit and vmap paddle_fn's own Hessenberg-QR algorithm (the same eigenpairs, almost always in LAPACK's
    order; docs/complex.md says what is guaranteed). Differentiable as JAX's
    ``lax.linalg.eig(enable_eigvec_derivs=True)`` where the eigenvalues are distinct; use eigh for symmetric
    matrices.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> w, v = linalg.eig(paddle.to_tensor([[0., -1.], [1., 0.]]))
        >>> w.dtype, sorted(w.numpy().imag.tolist())
        (paddle.complex64, [-1.0, 1.0])
        >>> w = paddle.jit(linalg.eigvals)(paddle.to_tensor([[2., 1.], [0., 3.]], dtype="float64"))
        >>> np.round(w.numpy(), 6)
        array([2.+0.j, 3.+0.j])
    """
    return linalg_eig.eig(inexact_operand("eig", x), vectors=True)


def eigvals(x, name=None):
    """Eigenvalues of general square matrices, as a complex Tensor (differentiable, under jit and vmap too; see
    `eig`).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.eigvals(paddle.to_tensor([[2., 0.], [0., 3.]], dtype="float64")).numpy()
        array([2.+0.j, 3.+0.j])
    """
    return linalg_eig.eig(inexact_operand("eigvals", x), vectors=False)[0]


# ---------------------------------------------------------------------------------------------- solves and inverses

def _raise_for_flagged(op, a, flagged, problem):
    """Raise LinAlgError naming the first matrix of the stack `a` that `flagged` (a bool per matrix) marks."""
    if flagged.any():
        where = f" (batch index {np.argwhere(flagged)[0].tolist()})" if flagged.ndim else ""
        raise np.linalg.LinAlgError(f"paddle.linalg.{op}: the matrix{where} of x (shape {list(shape_of(a))}, "
                                    f"{get_aval(a).dtype.name}) {problem}")


def _check_nonsingular(op, a, packed):
    """A zero pivot of the LU factorization means a singular matrix: raise as Paddle and numpy do rather than
    return inf/nan."""
    v = eager_value(packed)
    if v is not None:
        _raise_for_flagged(op, a, (np.diagonal(v, axis1=-2, axis2=-1) == 0).any(axis=-1),
                           "is singular, so it has no inverse; use paddle.linalg.pinv or paddle.linalg.lstsq for a "
                           "least-squares answer")


@accepts_out
def solve(x, y, left=True, name=None):
    """The solution of x @ out = y for square x (LU with partial pivoting); y is [..., n, k] or a vector [n].
    ``left=False`` solves out @ x = y instead (y [..., k, n]). A singular x raises LinAlgError eagerly, as in
    Paddle; under jit the check cannot run and the result there is inf/nan.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.solve(paddle.to_tensor([[3., 1.], [1., 2.]]), paddle.to_tensor([9., 8.])).numpy()
        array([2., 3.], dtype=float32)
        >>> linalg.solve(paddle.to_tensor([[2., 0.], [1., 1.]]), paddle.to_tensor([[4., 2.]]), left=False).tolist()
        [[1.0, 2.0]]
    """
    a = _matrices("solve", x, square=True, complex_ok=True)
    b = as_tensor(y, get_aval(a).dtype)
    if not left:  # out @ a = b  <=>  a^T @ out^T = b^T
        a = la.matrix_transpose(a)
        b = b if get_aval(b).ndim == 1 else la.matrix_transpose(b)
        solved = solve(a, b)
        return solved if get_aval(solved).ndim == 1 else la.matrix_transpose(solved)
    vector = get_aval(b).ndim == 1
    if vector:
        b = st.reshape(b, new_sizes=shape_of(b) + (1,))
    _check_rows("solve", a, b)
    a, b = _broadcast_batch("solve", a, b)
    packed, _, perm = la.lu(a)
    _check_nonsingular("solve", a, packed)
    out = la.lu_solve(packed, perm, b)
    return st.reshape(out, new_sizes=shape_of(out)[:-1]) if vector else out


def inv(x, name=None):
    """The inverse of square matrices (LU with partial pivoting). A singular matrix raises LinAlgError eagerly, as
    in Paddle; under jit the check cannot run and the result there is inf/nan.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.inv(paddle.to_tensor([[2., 0.], [0., 4.]])).numpy()
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    a = _matrices("inv", x, square=True, complex_ok=True)
    packed, _, perm = la.lu(a)
    _check_nonsingular("inv", a, packed)
    return la.lu_solve(packed, perm, la.eye_like(a))


def _permutation_sign(pivots, dtype):
    """(-1) ** (number of actual row swaps). For a complex dtype the sign is made real and then complex (its
    imaginary part a zero): an integer-to-complex64 conversion there made IREE 3.13 compile det to 0."""
    swaps = ew.ne(pivots, st.iota(dtype=dtypes.int32, shape=shape_of(pivots), dimension=get_aval(pivots).ndim - 1))
    count = _sum(ew.convert_element_type(swaps, new_dtype=dtypes.int32), _last(pivots))
    real = cx.part_dtype(dtype) if dtypes.as_dtype(dtype).kind == "c" else dtype
    odd = ew.convert_element_type(ew.rem(count, st.full(shape_of(count), 2, dtypes.int32)), new_dtype=real)
    sign = ew.sub(st.full_like(odd, 1), ew.mul(st.full_like(odd, 2), odd))
    return cx.complex_(sign, st.full_like(sign, 0)) if real != dtype else sign


def det(x, name=None):
    """Determinants of square matrices (product of U's diagonal times the permutation's sign).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> round(linalg.det(paddle.to_tensor([[1., 2.], [3., 4.]])).item(), 4)
        -2.0
    """
    a = _matrices("det", x, square=True, complex_ok=True)
    packed, pivots, _ = la.lu(a)
    out = ew.mul(_permutation_sign(pivots, get_aval(a).dtype), red.reduce_prod(la.diagonal(packed), axes=_last(pivots)))
    return out


def slogdet(x, name=None):
    """Sign and log of the absolute value of determinants, stacked as Paddle 2.3 returns them: shape [2, *batch]
    (for one matrix, [2]: [sign, logabsdet]).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.slogdet(paddle.to_tensor([[1., 2.], [3., 4.]])).numpy().round(4)
        array([-1.    ,  0.6931], dtype=float32)
    """
    a = _matrices("slogdet", x, square=True, complex_ok=True)
    packed, pivots, _ = la.lu(a)
    d = la.diagonal(packed)
    dtype = get_aval(a).dtype
    # complex: a phase d / |d|, differentiable as JAX's (the sign primitive's derivative is zero)
    phases = _phases(d) if dtype.kind == "c" else ew.sign(d)
    sign = ew.mul(_permutation_sign(pivots, dtype), red.reduce_prod(phases, axes=_last(d)))
    logabs = ew.convert_element_type(_sum(ew.log(ew.abs(d)), _last(d)), new_dtype=dtype)  # stacked with the sign
    return st.concatenate(*[st.expand_dims(v, dimensions=(0,)) for v in (sign, logabs)], dimension=0)


def _phases(z):
    """z / |z| of complex z (0 where z is 0)."""
    size = ew.abs(z)
    zero = ew.eq(size, st.full_like(size, 0))
    safe = ew.convert_element_type(ew.select(zero, st.full_like(size, 1), size), new_dtype=get_aval(z).dtype)
    return ew.select(zero, st.full_like(z, 0), ew.div(z, safe))


def _svd_cutoff(s, rcond):
    """Singular values above rcond * max(s) (per matrix), as a mask; and the reciprocals where kept (else 0)."""
    top = red.reduce_max(s, axes=_last(s))
    rcond = broadcast_to_shape(as_tensor(rcond, get_aval(s).dtype), shape_of(top))
    cutoff = st.broadcast_in_dim(ew.mul(top, rcond), shape=shape_of(s),
                                 broadcast_dimensions=tuple(range(get_aval(s).ndim - 1)))
    keep = ew.gt(s, cutoff)
    return keep, ew.select(keep, ew.div(st.full_like(s, 1), ew.select(keep, s, st.full_like(s, 1))), st.full_like(s, 0))


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The Moore-Penrose pseudo-inverse through the SVD (or eigh if `hermitian`), dropping singular values at or
    below rcond * the largest one.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.pinv(paddle.to_tensor([[1., 0.], [0., 0.]])).numpy()
        array([[1., 0.],
               [0., 0.]], dtype=float32)
    """
    a = _matrices("pinv", x, square=bool(hermitian), complex_ok=True)
    if hermitian:
        w, v = la.eigh(a)
        _, w_inv = _svd_cutoff_signed(w, rcond)
        return la.matmul(_scale_columns(v, w_inv), la.adjoint(v))
    u, s, vh = la.svd(a)
    _, s_inv = _svd_cutoff(s, rcond)
    return la.matmul(_scale_columns(la.adjoint(vh), s_inv), la.adjoint(u))


def _svd_cutoff_signed(w, rcond):
    keep, _ = _svd_cutoff(ew.abs(w), rcond)
    return keep, ew.select(keep, ew.div(st.full_like(w, 1), ew.select(keep, w, st.full_like(w, 1))), st.full_like(w, 0))


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least-squares solutions of x @ out = y through the SVD (numpy's gelsd semantics, whatever `driver`):
    returns (solution, residuals, rank, singular_values). Singular values at or below rcond * the largest are
    dropped (rcond defaults to eps * max(m, n)); residuals are the squared residual norms per column when m > n,
    else an empty Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> x = paddle.to_tensor([[1., 0.], [1., 1.], [1., 2.]])
        >>> sol, res, rank, sv = linalg.lstsq(x, paddle.to_tensor([[1.], [2.], [4.]]))
        >>> sol.numpy().round(4), rank.numpy()
        (array([[0.8333],
               [1.5   ]], dtype=float32), array(2, dtype=int32))
    """
    a = _matrices("lstsq", x, complex_ok=True)
    b = _matrices("lstsq", y, complex_ok=True)
    if shape_of(b)[-2] != shape_of(a)[-2]:
        raise ShapeError(f"paddle.linalg.lstsq: y must have {shape_of(a)[-2]} rows to match x of shape "
                         f"{list(shape_of(a))}, got shape {list(shape_of(b))}")
    a, b = _broadcast_batch("lstsq", a, b)
    m, n = shape_of(a)[-2:]
    if rcond is None:
        rcond = float(np.finfo(get_aval(a).dtype.np).eps) * max(m, n)
    u, s, vh = la.svd(a)
    keep, s_inv = _svd_cutoff(s, rcond)
    solution = la.matmul(_scale_columns(la.adjoint(vh), s_inv), la.matmul(la.adjoint(u), b))
    rank = _sum(ew.convert_element_type(keep, new_dtype=dtypes.int32), _last(keep))
    if m > n:
        r = ew.sub(la.matmul(a, solution), b)
        size = ew.abs(r)
        residuals = _sum(ew.mul(size, size), (get_aval(r).ndim - 2,))
    else:
        residuals = st.full((0,), 0, get_aval(s).dtype)
    return solution, residuals, rank, s


# ---------------------------------------------------------------------------------------------- norms and friends

def _vector_norm(x, p, axes):
    abs_x = ew.abs(x)
    if p == np.inf:
        return red.reduce_max(abs_x, axes=axes)
    if p == -np.inf:
        return red.reduce_min(abs_x, axes=axes)
    if p == 0:
        return _sum(ew.convert_element_type(ew.ne(x, st.full_like(x, 0)), new_dtype=get_aval(x).dtype), axes)
    if p == 1:
        return _sum(abs_x, axes)
    if p == 2:
        return ew.sqrt(_sum(ew.mul(x, x), axes))
    powered = _sum(ew.pow(abs_x, st.full_like(abs_x, float(p))), axes)
    return ew.pow(powered, st.full(shape_of(powered), 1.0 / float(p), get_aval(x).dtype))


def _matrix_norm(x, p, axes):
    """Induced / Schatten matrix norms over `axes` (row axis, column axis), as numpy.linalg.norm."""
    r, c = axes
    if p == "fro":
        return ew.sqrt(_sum(ew.mul(x, x), axes))
    if p in (1, -1, np.inf, -np.inf):
        # 1: largest column sum (sum over rows first); inf: largest row sum
        first, second = (r, c) if p in (1, -1) else (c, r)
        sums = _sum(ew.abs(x), (first,))
        pick = red.reduce_max if p > 0 else red.reduce_min
        return pick(sums, axes=(second - (first < second),))
    if p in ("nuc", 2, -2):
        rest = tuple(d for d in range(get_aval(x).ndim) if d not in axes)
        s = la.svd(st.transpose(x, permutation=rest + (r, c)))[1]
        if p == "nuc":
            return _sum(s, _last(s))
        return (red.reduce_max if p == 2 else red.reduce_min)(s, axes=_last(s))
    raise ValueError(f"paddle.linalg.norm: unsupported matrix norm p={p!r}; use 'fro', 'nuc', 1, -1, 2, -2, inf or "
                     "-inf")


def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None):
    """Vector or matrix norms; `dtype` casts `x` first, `out` (a Tensor) is made to hold the result.

    axis None: p='fro' (or 2) is the 2-norm of all elements, a number p the vector p-norm of the flattened x.
    axis an int (or one-element list): the vector norm along it, p in {'fro', 2, 1, inf, -inf, 0, any float}.
    axis a pair: the matrix norm over those two dimensions, p in {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}
    (induced norms, as numpy.linalg.norm; Paddle 2.3 computed entrywise p-norms over two axes instead).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> x = paddle.to_tensor([[3., -4.], [0., 1.]])
        >>> round(linalg.norm(x).item(), 4), linalg.norm(x, p=1, axis=[0, 1]).numpy()
        (5.099, array(5., dtype=float32))
        >>> linalg.norm(paddle.to_tensor([3, 4]), dtype='float64').item()
        5.0
    """
    x = as_tensor(x) if dtype is None else cast(as_tensor(x), dtype)
    return write_out(_norm(x, "fro" if p is None else p, axis, keepdim), out)


def _norm(x, p, axis, keepdim):
    spectral = p == "nuc" or (p in (2, -2) and axis is not None and np.size(axis) == 2)  # need a complex SVD
    if x.dtype.kind == "c" and not spectral:
        x = ew.abs(x)  # the other norms depend on the magnitudes only (Paddle 3.3.1: norm([3+4j, -1-2j]) = 5.4772)
    x = inexact_operand("norm", x) if spectral else float_operand("norm", x)  # a complex SVD's singular values
    nd = get_aval(x).ndim
    if isinstance(p, str) and p not in ("fro", "nuc"):
        raise ValueError(f"paddle.linalg.norm: p must be 'fro', 'nuc' or a number, got {p!r}")
    if axis is None:
        if p == "nuc":
            axes = (nd - 2, nd - 1)
        else:
            axes = tuple(range(nd))
            return _keep(_vector_norm(x, 2 if p == "fro" else p, axes), axes, keepdim)
    else:
        # in the given order: for a matrix norm the first is the row axis
        axes = tuple(normalize_axes("norm", [a], nd)[0] for a in (axis if isinstance(axis, (list, tuple)) else [axis]))
        if len(set(axes)) != len(axes):
            raise ShapeError(f"paddle.linalg.norm: axis {axis!r} names a dimension twice")
    if len(axes) == 1:
        if p == "nuc":
            raise ValueError("paddle.linalg.norm: p='nuc' needs two axes (a matrix norm)")
        return _keep(_vector_norm(x, 2 if p == "fro" else p, axes), axes, keepdim)
    if len(axes) != 2:
        raise ShapeError(f"paddle.linalg.norm: axis must be an int or a pair of ints, got {axis!r}")
    if isinstance(p, numbers.Number) and p not in (1, -1, 2, -2, np.inf, -np.inf):
        raise ValueError(f"paddle.linalg.norm: p={p} is not a matrix norm; use 'fro', 'nuc', 1, -1, 2, -2, inf or "
                         "-inf with two axes, or one axis for a vector norm")
    return _keep(_matrix_norm(x, p, axes), tuple(sorted(axes)), keepdim)


def matrix_power(x, n, name=None):
    """x raised to the integer power n by repeated squaring (n < 0 inverts first; n = 0 gives the identity).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.matrix_power(paddle.to_tensor([[1., 1.], [0., 1.]]), 3).numpy()
        array([[1., 3.],
               [0., 1.]], dtype=float32)
    """
    a = _matrices("matrix_power", x, square=True)
    k = static_int("matrix_power", n, "n")
    if k < 0:
        a, k = inv(a), -k
    return la.eye_like(a) if k == 0 else ew.multiplied_out(a, k, la.matmul)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance matrix of the variables in the rows (or, with rowvar=False, the columns) of x, with optional
    integer frequency weights and observation weights, as numpy.cov. ddof=True divides by N - 1.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.cov(paddle.to_tensor([[0., 1., 2.], [2., 1., 0.]])).numpy()
        array([[ 1., -1.],
               [-1.,  1.]], dtype=float32)
    """
    x = float_operand("cov", x)
    if get_aval(x).ndim > 2:
        raise ShapeError(f"paddle.linalg.cov: x must be 1-D or 2-D, got shape {list(shape_of(x))}")
    if get_aval(x).ndim == 1:
        x = st.reshape(x, new_sizes=(1,) + shape_of(x))
    if not rowvar:
        x = la.matrix_transpose(x)
    n_obs = shape_of(x)[1]
    dtype = get_aval(x).dtype
    w = None
    for given, what in ((fweights, "fweights"), (aweights, "aweights")):
        if given is not None:
            g = as_tensor(given, dtype)
            if shape_of(g) != (n_obs,):
                raise ShapeError(f"paddle.linalg.cov: {what} must have shape [{n_obs}] (one per observation), got "
                                 f"{list(shape_of(g))}")
            w = g if w is None else ew.mul(w, g)
    if w is None:
        w = st.full((n_obs,), 1, dtype)
    w_sum = _sum(w, (0,))
    mean = ew.div(_sum(ew.mul(x, st.broadcast_in_dim(w, shape=shape_of(x), broadcast_dimensions=(1,))), (1,)),
                  st.broadcast_in_dim(w_sum, shape=shape_of(x)[:1], broadcast_dimensions=()))
    centered = ew.sub(x, st.broadcast_in_dim(mean, shape=shape_of(x), broadcast_dimensions=(0,)))
    if not ddof:
        norm_ = w_sum
    elif aweights is None:
        norm_ = ew.sub(w_sum, st.full((), 1, dtype))
    else:
        aw = as_tensor(aweights, dtype)
        norm_ = ew.sub(w_sum, ew.div(_sum(ew.mul(w, aw), (0,)), w_sum))
    weighted = ew.mul(centered, st.broadcast_in_dim(w, shape=shape_of(x), broadcast_dimensions=(1,)))
    c = red.dot_general(weighted, centered, dimension_numbers=(((1,), (1,)), ((), ())))
    out = ew.div(c, st.broadcast_in_dim(norm_, shape=shape_of(c), broadcast_dimensions=()))
    return st.reshape(out, new_sizes=()) if shape_of(out) == (1, 1) else out


def multi_dot(x, name=None):
    """The product of a list of matrices, multiplied in the cheapest order (the first may be a row vector [n],
    the last a column vector [n]).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.multi_dot([paddle.ones([2, 3]), paddle.ones([3, 4]), paddle.ones([4])]).numpy()
        array([12., 12.], dtype=float32)
    """
    mats = [as_tensor(m) for m in x]
    if len(mats) < 2:
        raise ValueError(f"paddle.linalg.multi_dot: expected a list of at least 2 Tensors, got {len(mats)}")
    first_vec, last_vec = get_aval(mats[0]).ndim == 1, get_aval(mats[-1]).ndim == 1
    if first_vec:
        mats[0] = st.reshape(mats[0], new_sizes=(1,) + shape_of(mats[0]))
    if last_vec:
        mats[-1] = st.reshape(mats[-1], new_sizes=shape_of(mats[-1]) + (1,))
    for i, m in enumerate(mats):
        if get_aval(m).ndim != 2:
            raise ShapeError(f"paddle.linalg.multi_dot: Tensor {i} must be 2-D (only the first and last may be 1-D), "
                             f"got shape {list(shape_of(m))}")
        if i and shape_of(mats[i - 1])[1] != shape_of(m)[0]:
            raise ShapeError(f"paddle.linalg.multi_dot: Tensor {i - 1} of shape {list(shape_of(mats[i - 1]))} "
                             f"cannot be multiplied by Tensor {i} of shape {list(shape_of(m))}")
    dims = [shape_of(mats[0])[0]] + [shape_of(m)[1] for m in mats]
    out = _chain_product(mats, _chain_order(dims), 0, len(mats) - 1)
    out_shape = shape_of(out)[int(first_vec):2 - int(last_vec)] if (first_vec or last_vec) else shape_of(out)
    return st.reshape(out, new_sizes=tuple(out_shape))


def _chain_order(dims):
    """The matrix-chain dynamic programme: split[i][j] is where the cheapest product of matrices i..j splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min((cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                                          for k in range(i, j))
    return split


def _chain_product(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return matmul(_chain_product(mats, split, i, k), _chain_product(mats, split, k + 1, j))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The number of singular values (|eigenvalues| if hermitian) above `tol` (default: the largest one times
    max(m, n) * eps), as int64. Instead of `tol`, `atol` and `rtol` give the threshold max(atol, rtol * the largest
    one), atol None counting as 0 and rtol None as max(m, n) * eps (0 where atol > 0), as in Paddle 3.3.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.matrix_rank(paddle.to_tensor([[1., 2.], [2., 4.]])).numpy()
        array(1)
        >>> linalg.matrix_rank(paddle.to_tensor([[1., 0.], [0., 1e-3]]), atol=0.01).item()
        1
    """
    a = _matrices("matrix_rank", x, square=bool(hermitian), complex_ok=True)
    s = ew.abs(la.eigh(a)[0]) if hermitian else la.svd(a)[1]
    if atol is not None or rtol is not None:
        if tol is not None:
            raise ValueError("paddle.linalg.matrix_rank: give tol, or atol and rtol, not both")
        return _rank_above(s, _relative_threshold(a, s, atol, rtol))
    if tol is None:
        m, n = shape_of(a)[-2:]
        keep, _ = _svd_cutoff(s, float(np.finfo(get_aval(a).dtype.np).eps) * max(m, n))
    else:
        return _rank_above(s, as_tensor(tol, get_aval(s).dtype))
    return _sum(ew.convert_element_type(keep, new_dtype=dtypes.int64), _last(keep))


def _relative_threshold(a, s, atol, rtol):
    """Per matrix, max(atol, rtol * the largest value of s) (Paddle 3.3's matrix_rank with atol/rtol)."""
    top = red.reduce_max(s, axes=_last(s))
    zero = st.full_like(top, 0)
    atol = zero if atol is None else broadcast_to_shape(as_tensor(atol, get_aval(s).dtype), shape_of(top))
    if rtol is None:
        m, n = shape_of(a)[-2:]
        default = st.full_like(top, float(np.finfo(get_aval(a).dtype.np).eps) * max(m, n))
        rtol = ew.select(ew.gt(atol, zero), zero, default)
    else:
        rtol = broadcast_to_shape(as_tensor(rtol, get_aval(s).dtype), shape_of(top))
    return maximum(atol, ew.mul(rtol, top))


def _rank_above(s, bound):
    """The number of values of s above `bound` (one per matrix), as int64."""
    keep = ew.gt(s, broadcast_to_shape(st.expand_dims(bound, dimensions=(get_aval(bound).ndim,))
                                       if get_aval(bound).ndim else bound, shape_of(s)))
    return _sum(ew.convert_element_type(keep, new_dtype=dtypes.int64), _last(keep))


def cond(x, p=None, name=None):
    """The condition number: p None/2 (-2) is the ratio of the largest (smallest) to the smallest (largest)
    singular value; 'fro', 'nuc', 1, -1, inf, -inf give norm(x, p) * norm(inv(x), p) for square x.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.cond(paddle.to_tensor([[2., 0.], [0., 0.5]])).numpy()
        array(4., dtype=float32)
    """
    a = _matrices("cond", x)
    if p is None or p in (2, -2):
        s = la.svd(a)[1]
        big, small = red.reduce_max(s, axes=_last(s)), red.reduce_min(s, axes=_last(s))
        return ew.div(big, small) if p != -2 else ew.div(small, big)
    a = _matrices("cond", a, square=True)
    nd = get_aval(a).ndim
    axes = [nd - 2, nd - 1]
    return ew.mul(norm(a, p, axes), norm(inv(a), p, axes))


# ---------------------------------------------------------------------------------------------- Paddle 3 additions

@accepts_out
def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None):
    """The vector p-norm of `x` over `axis` (None: all elements; an int or a list of ints, taken as one vector):
    p any float, 0 (the count of nonzeros), inf or -inf. `dtype` casts `x` first.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        >>> paddle.linalg.vector_norm(x, p=1, axis=1).tolist(), paddle.linalg.vector_norm(x, p=0).item()
        ([6.0, 15.0], 6.0)
    """
    x = float_operand("vector_norm", x if dtype is None else cast(as_tensor(x), dtype))
    if isinstance(p, str):
        raise ValueError(f"paddle.linalg.vector_norm: p must be a number, got {p!r} (matrix norms are matrix_norm's)")
    axes = normalize_axes("vector_norm", axis, get_aval(x).ndim)
    return _keep(_vector_norm(x, float(p), axes), axes, keepdim)


def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None):  # noqa: B006 - Paddle's default
    """The matrix norm of each matrix of `x` in the plane `axis` (row axis, column axis): 'fro', 'nuc' (the sum of
    singular values), 1 / -1 (largest / smallest column sum), inf / -inf (row sums), 2 / -2 (largest / smallest
    singular value).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        >>> paddle.linalg.matrix_norm(x, p=1).item(), paddle.linalg.matrix_norm(x, p=float('inf')).item()
        (9.0, 15.0)
    """
    x = inexact_operand("matrix_norm", x)  # norm takes the magnitudes of complex x where the norm needs only those
    axes = [a for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    if len(axes) != 2:
        raise ShapeError(f"paddle.linalg.matrix_norm: axis must name two dimensions, got {axis!r}")
    if p not in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        raise ValueError(f"paddle.linalg.matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, got {p!r}")
    return norm(x, p=p, axis=axes, keepdim=keepdim)


def corrcoef(x, rowvar=True, name=None):
    """The Pearson correlation coefficients of the variables in the rows (columns with ``rowvar=False``) of `x`:
    ``cov(x)`` normalised by the standard deviations, clipped to [-1, 1].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.linalg.corrcoef(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0], [3.0, 0.0]]), rowvar=False).tolist()
        [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(x, rowvar=rowvar)
    if get_aval(c).ndim == 0:
        return ew.div(c, c)
    d = ew.sqrt(la.diagonal(c))
    c = ew.div(ew.div(c, st.broadcast_in_dim(d, shape=shape_of(c), broadcast_dimensions=(0,))),
               st.broadcast_in_dim(d, shape=shape_of(c), broadcast_dimensions=(1,)))
    one = st.full_like(c, 1)
    return ew.clamp(ew.neg(one), c, one)


# Pade approximant of degree 13 and the norm below which it is accurate to float64's rounding (Higham, "The
# scaling and squaring method for the matrix exponential revisited", 2005)
_PADE_DEGREE = 13
_PADE_THETA = 5.371920351148152
_PADE = [math.factorial(2 * _PADE_DEGREE - j) * math.factorial(_PADE_DEGREE) /
         (math.factorial(2 * _PADE_DEGREE) * math.factorial(j) * math.factorial(_PADE_DEGREE - j))
         for j in range(_PADE_DEGREE + 1)]
# traced inputs square a fixed number of times, each step kept only while it is one of the s the norm asks for;
# 2^40 * theta covers every matrix whose exponential is finite in float64 and then some
_MAX_SQUARINGS = 40


def matrix_exp(x, name=None):
    """The matrix exponential of each square matrix of `x`, by scaling and squaring with a degree-13 Pade
    approximant (Higham 2005).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> linalg.matrix_exp(paddle.to_tensor([[0.0, 1.0], [-1.0, 0.0]], dtype='float64')).numpy()
        array([[ 0.54030231,  0.84147098],
               [-0.84147098,  0.54030231]])
    """
    a = _matrices("matrix_exp", x, square=True)
    eye = la.eye_like(a)
    norm1 = max_(sum_(abs_(a), axis=-2), axis=-1, keepdim=True)  # [..., 1]
    squarings = maximum(ceil(log2(norm1 / _PADE_THETA)), 0.0)  # [..., 1]
    scaled = a / reshape(2.0 ** squarings, list(get_aval(norm1).shape) + [1])
    c = _PADE
    a2 = la.matmul(scaled, scaled)
    a4 = la.matmul(a2, a2)
    a6 = la.matmul(a4, a2)
    u = la.matmul(scaled, la.matmul(a6, c[13] * a6 + c[11] * a4 + c[9] * a2) + c[7] * a6 + c[5] * a4 + c[3] * a2 +
                  c[1] * eye)
    v = la.matmul(a6, c[12] * a6 + c[10] * a4 + c[8] * a2) + c[6] * a6 + c[4] * a4 + c[2] * a2 + c[0] * eye
    packed, _, perm = la.lu(v - u)
    result = la.lu_solve(packed, perm, v + u)
    known = eager_value(squarings)
    steps = int(known.max()) if known is not None and known.size else _MAX_SQUARINGS
    for step in range(steps):
        keep = reshape(squarings > step, list(get_aval(norm1).shape) + [1])
        result = where(keep, la.matmul(result, result), result)
    return result


def lu_solve(b, lu, pivots, trans="N", name=None):
    """The solution of ``A @ out = b`` (``trans='N'``) or ``A^T @ out = b`` ('T'; 'C' is the same for real
    matrices) from A's LU factorization as ``paddle.linalg.lu`` returns it (the packed factor and the 1-based
    pivots).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import linalg
        >>> a = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]])
        >>> packed, pivots = linalg.lu(a)
        >>> linalg.lu_solve(paddle.to_tensor([[9.0], [8.0]]), packed, pivots).numpy()
        array([[2.],
               [3.]], dtype=float32)
    """
    if trans not in ("N", "T", "C"):
        raise ValueError(f"paddle.linalg.lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    packed = _matrices("lu_solve", lu, square=True)
    b = cast(as_tensor(b), get_aval(packed).dtype)
    if get_aval(b).ndim < 2 or get_aval(b).shape[-2] != get_aval(packed).shape[-1]:
        raise ShapeError(f"paddle.linalg.lu_solve: b must be [..., {get_aval(packed).shape[-1]}, k] to match lu "
                         f"(shape {list(get_aval(packed).shape)}), got shape {list(get_aval(b).shape)}")
    perm = _permutation_of_pivots(cast(as_tensor(pivots), dtypes.int32) - 1, get_aval(packed).shape[-1])
    if trans == "N":
        return la.lu_solve(packed, perm, b)
    # A = P^T L U, so A^T x = b is U^T L^T (P x) = b
    z = la.triangular_solve(packed, b, lower=False, transpose_a=True)
    w = la.triangular_solve(packed, z, lower=True, transpose_a=True, unit_diagonal=True)
    return la.matmul(la.matrix_transpose(la.permutation_matrix(perm, get_aval(w).dtype)), w)
