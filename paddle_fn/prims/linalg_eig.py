"""The eigen-decomposition of general square matrices: the `eig` primitive, [w] or [w, v] (vectors=True) of real or
complex matrices [..., n, n], complex results (A v = v diag(w)).

Eagerly it is LAPACK's geev in the input's precision (through scipy: sgeev for float32, whose results Paddle 3.3
prints; numpy would compute in float64). Derivatives follow ``jax.lax.linalg.eig`` (jax 0.10.2; for eigenvectors
its ``enable_eigvec_derivs=True``): nondegenerate perturbation theory,
``dw = diag(V^-1 dA V)`` and ``dV = V (F * V^-1 dA V) + V diag(c)`` with ``F[i, j] = 1 / (w_j - w_i)`` off the
diagonal, where c keeps the normalisation (each eigenvector of unit norm, its largest-magnitude entry real).
Repeated eigenvalues make the eigenvector derivatives infinite, as in JAX. The batching rule moves the vmapped axis
to the front, since the primitive maps over leading dimensions itself.

Compiled (StableHLO has no eigenvalue operation and IREE no LAPACK), the primitive lowers by its expansion, which is
LAPACK's own route for complex matrices (zgehrd, zlahqr, ztrevc) in real arithmetic on (real, imaginary) pairs
(prims/complex_pairs.py), as prims/linalg_complex.py does, since IREE 3.13 miscompiles complex loops:

1. Householder reflections reduce A to upper Hessenberg form H = Q^H A Q.
2. Shifted QR iterations (LAPACK's zlahqr: the complex single-shift step, its Wilkinson shift from the trailing 2x2
   block, the exceptional shifts after 10 and 20 iterations without deflation, the Ahues-Tisseur deflation test),
   each a bulge chased down the active block by Givens rotations, reduce H to upper triangular Schur form
   T = Z^H A Z, deflating eigenvalues from the bottom. The eigenvalues are T's diagonal, in its order.
3. Eigenvectors of T by back-substitution (ztrevc: a near-zero divisor replaced by ulp |t_jj|, a column rescaled
   when it grows large), multiplied by Z, each normalised to unit norm with its largest-magnitude entry made real
   and positive (zgeev's normalisation).

Real matrices run the same complex iteration with its shifts in pairs s, conj(s): two such single steps are one
step of the real double-shift iteration LAPACK's dgeev runs (dlahqr; the implicit Q theorem), so complex conjugate
eigenvalues deflate together, and the expansion puts each adjacent conjugate pair in dgeev's order, the positive
imaginary part first. What is guaranteed under jit: the same eigenvalues and eigenpairs as eagerly, to rounding; the
same order as LAPACK's for most matrices but not all (rounding, and LAPACK's refinements the expansion lacks -- the
balancing, dlahqr's start of a step below a second small subdiagonal entry -- change which eigenvalue deflates
first; measured in docs/complex.md); eigenvectors of real matrices may differ from LAPACK's by a sign (dgeev leaves
that sign as it comes), and real eigenvalues of real input may carry imaginary parts of rounding size. Without the
balancing (a diagonal scaling), badly scaled matrices lose more accuracy than in LAPACK. If an eigenvalue does not
converge within 30 max(10, n) iterations (LAPACK's limit), the results are NaN (geev reports that failure as
info > 0; a checked jit reports the NaN).
"""
from __future__ import annotations

import builtins

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.primitive import NONLINEAR, Primitive
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.staged import lower_by_expansion
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims._rules import fmt, scalar_like
from paddle_fn.prims.base import broadcast_in_dim, full_like, reduce_sum, reshape
from paddle_fn.prims.bitwise import and_, not_, or_
from paddle_fn.prims.complex_pairs import (pair_abs, pair_abs1, pair_abs_squared, pair_add, pair_adjoint, pair_conj,
                                           pair_div, pair_entry, pair_matmul, pair_neg, pair_of, pair_scale,
                                           pair_select, pair_splat, pair_sqrt, pair_sub, pair_times, pair_unit_phase)
from paddle_fn.prims.control_flow import fori_loop, while_loop
from paddle_fn.prims.elementwise import (abs, add, convert_element_type, div, eq, ge, gt, le, lt,  # noqa: A004
                                         max, min, mul, neg, rem, select, sqrt, sub)
from paddle_fn.prims.linalg import batch_rule, failure_check, map_matrices
from paddle_fn.prims.linalg_complex import fix_column_phases
from paddle_fn.prims.matrices import (diagonal, each_column, each_row, eye_like, gap_reciprocals, index_mask, matmul,
                                      ndim_of, nonzero_or_one, scalar_entry, shape_of, splat, triu)
from paddle_fn.prims.reduction import argmax, reduce_max
from paddle_fn.prims.slicing import dynamic_slice, dynamic_update_slice
from paddle_fn.prims.structural import iota, slice


def _limits(x):
    """(ulp, the smallest safe magnitude n / ulp * tiny) of x's real dtype, as LAPACK's zlahqr uses them."""
    info = np.finfo(get_aval(x).dtype.np)
    n = shape_of(x)[0]
    return float(info.eps), float(info.tiny) * (n / float(info.eps))


# ---------------------------------------------------------------------------------------------- Hessenberg form

def _steps(count, body, init):
    """body(k, carry) for k = 0..count-1 as a while loop (a scan would be unrolled, which multiplies the compile
    time of these large bodies)."""
    limit = Tensor(np.int32(count))
    _, out = while_loop(lambda c: lt(c[0], limit), lambda c: (add(c[0], scalar_like(c[0], 1)), body(c[0], c[1])),
                        (Tensor(np.int32(0)), init))
    return out


def _hessenberg(h, z):
    """Householder reduction of the pair matrix h to upper Hessenberg form; z (a pair, or () for none) accumulates
    the reflections: z <- z P for each reflection P, so z = Q when it starts as the identity."""
    n = shape_of(h[0])[0]

    def step(k, carry):
        h, z = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        zero, below = scalar_like(k, 0), index_mask(n, k, gt)
        x = tuple(select(below, dynamic_slice(part, zero, k, slice_sizes=(n, 1)), full_like(part, 0, (n, 1)))
                  for part in h)                                       # column k below the diagonal
        head = add(k, scalar_like(k, 1))
        alpha = pair_entry(x, head, zero)
        size = pair_abs(alpha)
        norm = sqrt(reduce_sum(pair_abs_squared(x), axes=(0, 1)))
        # P = I - 2 v v^H / (v^H v) with v = x + (alpha / |alpha|) ||x|| e_head maps x to a multiple of e_head
        phase = pair_unit_phase(alpha)
        at_head = convert_element_type(index_mask(n, head, eq), new_dtype=get_aval(size).dtype)
        v = pair_add(x, pair_scale(pair_splat(pair_scale(phase, norm), (n, 1)), at_head))
        v_sq = mul(add(norm, norm), add(norm, size))
        scale = select(eq(v_sq, full_like(v_sq, 0)), full_like(v_sq, 0), div(full_like(v_sq, 2),
                                                                              nonzero_or_one(v_sq)))
        sv, vh = pair_scale(v, splat(scale, (n, 1))), pair_adjoint(v)
        h = pair_sub(h, pair_matmul(sv, pair_matmul(vh, h)))
        h = pair_sub(h, pair_matmul(pair_matmul(h, sv), vh))
        if z:
            z = pair_sub(z, pair_matmul(pair_matmul(z, sv), vh))
        return h, z

    h, z = _steps(n - 2, step, (h, z))
    return (triu(h[0], -1), triu(h[1], -1)), z   # the annihilated entries exactly zero


# ---------------------------------------------------------------------------------------------- Schur form

def _givens(x, y):
    """(c, s), c real, of the unitary [[c, s], [-conj(s), c]] that maps the pair of complex values (x, y) to (r, 0):
    c = |x| / r and s = (x / |x|) conj(y) / r with r = ||(x, y)||; (0, 1) (a swap) when x is 0, (1, 0) when both
    are."""
    ax, ay = pair_abs(x), pair_abs(y)
    zero, one = full_like(ax, 0), full_like(ax, 1)
    big = nonzero_or_one(max(ax, ay))
    r = mul(big, sqrt(add(mul(div(ax, big), div(ax, big)), mul(div(ay, big), div(ay, big)))))
    x_zero = eq(ax, zero)
    c = select(x_zero, select(eq(ay, zero), one, zero), div(ax, select(x_zero, one, r)))
    s = pair_times(pair_scale(x, div(one, mul(select(x_zero, one, ax), select(x_zero, one, r)))), pair_conj(y))
    return c, pair_select(x_zero, (select(eq(ay, zero), zero, one), zero), s)


def _rotate(x, p, q, c, t, *, rows):
    """Lines p and q (rows, or columns) of the pair matrix x: (line p, line q) <- (c p + t q, c q - conj(t) p), for
    a real c and a complex t (a pair of 0-d values)."""
    n = shape_of(x[0])[0]
    size = (1, n) if rows else (n, 1)
    zero = scalar_like(p, 0)
    at = (lambda i: (i, zero)) if rows else (lambda i: (zero, i))
    line_p, line_q = (tuple(dynamic_slice(part, *at(i), slice_sizes=size) for part in x) for i in (p, q))
    cs, ts = splat(c, size), pair_splat(t, size)
    new_p = pair_add(pair_scale(line_p, cs), pair_times(ts, line_q))
    new_q = pair_sub(pair_scale(line_q, cs), pair_times(pair_conj(ts), line_p))
    return tuple(dynamic_update_slice(dynamic_update_slice(part, u, *at(p)), w, *at(q))
                 for part, u, w in zip(x, new_p, new_q))


def _deflation_point(h, ihi, ulp, smlnum):
    """The largest k <= ihi whose subdiagonal entry h[k, k-1] is negligible (zlahqr's test, with Ahues and
    Tisseur's refinement), or 0: the active block is rows and columns k..ihi."""
    n = shape_of(h[0])[0]
    d = tuple(diagonal(part) for part in h)
    below = tuple(diagonal(slice(part, start_indices=(1, 0), limit_indices=(n, n - 1))) for part in h)  # h[k, k-1]
    above = tuple(diagonal(slice(part, start_indices=(0, 1), limit_indices=(n - 1, n))) for part in h)  # h[k-1, k]
    prev = tuple(slice(part, start_indices=(0,), limit_indices=(n - 1,)) for part in d)
    cur = tuple(slice(part, start_indices=(1,), limit_indices=(n,)) for part in d)
    s, up = pair_abs1(below), pair_abs1(above)
    scalar = lambda value: full_like(s, value)  # noqa: E731
    ab, ba = max(s, up), min(s, up)
    aa, bb = max(pair_abs1(cur), pair_abs1(pair_sub(prev, cur))), min(pair_abs1(cur), pair_abs1(pair_sub(prev, cur)))
    total = nonzero_or_one(add(aa, ab))
    refined = le(mul(ba, div(ab, total)), max(scalar(smlnum), mul(scalar(ulp), mul(bb, div(aa, total)))))
    small = or_(le(s, scalar(smlnum)), and_(le(s, mul(scalar(ulp), add(pair_abs1(prev), pair_abs1(cur)))), refined))
    steps = add(iota(dtype=dtypes.int32, shape=(n - 1,), dimension=0), full_like(get_aval(ihi), 1, (n - 1,)))
    active = and_(small, le(steps, splat(ihi, (n - 1,))))
    return reduce_max(select(active, steps, full_like(steps, 0)), axes=(0,))


def _shift(h, l, i, its, previous, paired):
    """zlahqr's shift for the active block l..i: the eigenvalue of the trailing 2x2 block nearer its last diagonal
    entry (Wilkinson's), computed on the block scaled to magnitude about 1; after every 10th iteration without a
    deflation an exceptional shift (h[l, l] + 3/4 |Re h[l+1, l]|, or at every 20th h[i, i] + 3/4 |Re h[i, i-1]|).
    With `paired` (real matrices), every second iteration instead takes the conjugate of the `previous` shift: two
    single steps with shifts s and conj(s) are one real double-shift step (the implicit Q theorem), so the
    iterations deflate as LAPACK's real dlahqr does, in its order."""
    one = scalar_like(i, 1)
    above = sub(i, one)
    h_11, h_1i, h_i1, h_ii = (pair_entry(h, r, c) for r, c in ((above, above), (above, i), (i, above), (i, i)))
    scale = nonzero_or_one(add(add(pair_abs1(h_11), pair_abs1(h_1i)), add(pair_abs1(h_i1), pair_abs1(h_ii))))
    inv = div(full_like(scale, 1), scale)
    h_11, h_1i, h_i1, h_ii = (pair_scale(e, inv) for e in (h_11, h_1i, h_i1, h_ii))
    x = pair_scale(pair_sub(h_11, h_ii), full_like(scale, 0.5))
    u2 = pair_times(h_1i, h_i1)
    y = pair_sqrt(pair_add(pair_times(x, x), u2))
    opposite = lt(add(mul(x[0], y[0]), mul(x[1], y[1])), full_like(scale, 0))
    y = pair_select(opposite, pair_neg(y), y)
    wilkinson = pair_scale(pair_sub(h_ii, pair_div(u2, pair_add(x, y))), scale)
    three_quarters = full_like(scale, 0.75)
    at_l = pair_add(pair_entry(h, l, l), (mul(three_quarters, abs(scalar_entry(h[0], add(l, one), l))), full_like(scale, 0)))
    at_i = pair_add(pair_entry(h, i, i), (mul(three_quarters, abs(scalar_entry(h[0], i, above))), full_like(scale, 0)))
    every = lambda k: eq(rem(its, scalar_like(its, k)), scalar_like(its, 0))  # noqa: E731
    if paired:
        wilkinson = pair_select(every(2), pair_conj(previous), wilkinson)
    return pair_select(every(20), at_i, pair_select(every(10), at_l, wilkinson))


def _schur(h, z, *, paired):
    """Shifted QR iterations on the upper Hessenberg pair matrix h down to upper triangular (Schur) form, deflating
    from the bottom; z (a pair, or ()) accumulates the rotations. Returns (t, z, failed): failed is true when an
    eigenvalue did not converge within 30 max(10, n) iterations."""
    n = shape_of(h[0])[0]
    ulp, smlnum = _limits(h[0])
    rows, cols = (iota(dtype=dtypes.int32, shape=(n, n), dimension=d) for d in (0, 1))
    zeros = full_like(h[0], 0)

    def at(i, j):
        """The boolean [n, n] mask of entry (i, j)."""
        return and_(eq(rows, splat(i, (n, n))), eq(cols, splat(j, (n, n))))

    def iterate(carry):
        h, z, ihi, its, previous, previous_l = carry
        one = scalar_like(ihi, 1)
        # paired: the second step of a pair is the second half of a real double-shift step, on the first's block,
        # with no deflation between them (dlahqr tests for deflation after the double step only)
        second = and_(eq(rem(its, scalar_like(its, 2)), one), Tensor(np.bool_(paired)))
        l = select(second, previous_l, _deflation_point(h, ihi, ulp, smlnum))
        h = pair_select(and_(at(l, sub(l, one)), splat(and_(gt(l, scalar_like(l, 0)), not_(second)), (n, n))),
                     (zeros, zeros), h)
        converged = and_(ge(l, ihi), not_(second))
        its = add(its, one)
        sigma = _shift(h, l, ihi, its, previous, paired)

        def chase(k, carry):
            """One Givens rotation of the QR step: at k = l it starts the bulge from the shifted first column,
            after that it moves the bulge h[k+1, k-1] one row down."""
            h, z = carry
            first = eq(k, l)
            left = max(sub(k, one), scalar_like(k, 0))
            below = add(k, one)
            x = pair_select(first, pair_sub(pair_entry(h, k, k), sigma), pair_entry(h, k, left))
            y = pair_select(first, pair_entry(h, below, k), pair_entry(h, below, left))
            c, s = _givens(x, y)
            h = _rotate(_rotate(h, k, below, c, s, rows=True), k, below, c, pair_conj(s), rows=False)
            if z:
                z = _rotate(z, k, below, c, pair_conj(s), rows=False)
            bulge_gone = and_(at(below, left), splat(not_(first), (n, n)))
            return pair_select(bulge_gone, (zeros, zeros), h), z

        h, z = fori_loop(l, select(converged, l, ihi), chase, (h, z))
        return h, z, select(converged, sub(ihi, one), ihi), select(converged, scalar_like(its, 0), its), sigma, l

    def unfinished(carry):
        _, _, ihi, its, _, _ = carry
        return and_(gt(ihi, scalar_like(ihi, 0)), le(its, scalar_like(its, 30 * builtins.max(10, n))))

    no_shift = full_like(h[0], 0, ())
    start = (h, z, Tensor(np.int32(n - 1)), Tensor(np.int32(0)), (no_shift, no_shift), Tensor(np.int32(0)))
    h, z, ihi, _, _, _ = while_loop(unfinished, iterate, start)
    return (triu(h[0]), triu(h[1])), z, gt(ihi, scalar_like(ihi, 0))


# ---------------------------------------------------------------------------------------------- eigenvectors

def _triangular_eigenvectors(t):
    """The eigenvectors of the upper triangular pair matrix t as the columns of an upper triangular pair matrix x
    with x[j, j] = 1 (before rescaling): row by row from the bottom, x[i, j] = -(t[i, i+1:] x[i+1:, j]) /
    (t[i, i] - t[j, j]), a divisor below ulp |t[j, j]| replaced by that (ztrevc's perturbation), and a column
    scaled down whenever its entries grow past 1 / ulp^2 (each column is defined up to scale)."""
    n = shape_of(t[0])[0]
    ulp, smlnum = _limits(t[0])
    d = tuple(each_row(diagonal(part), 1) for part in t)                        # [1, n]
    smallest = max(mul(full_like(d[0], ulp), pair_abs1(d)), full_like(d[0], smlnum))
    cols = iota(dtype=dtypes.int32, shape=(1, n), dimension=1)
    zeros = full_like(d[0], 0)
    big = 1 / ulp ** 2

    def row(j, x):
        i = convert_element_type(sub(scalar_like(j, n - 2), j), new_dtype=dtypes.int32)
        zero = scalar_like(i, 0)
        right = gt(cols, splat(i, (1, n)))
        t_row = tuple(select(right, dynamic_slice(part, i, zero, slice_sizes=(1, n)), zeros) for part in t)
        rhs = pair_matmul(t_row, x)
        gap = pair_sub(pair_splat(pair_entry(t, i, i), (1, n)), d)
        gap = pair_select(lt(pair_abs1(gap), smallest), (smallest, zeros), gap)
        solved = pair_div(pair_neg(rhs), gap)
        old = tuple(dynamic_slice(part, i, zero, slice_sizes=(1, n)) for part in x)
        x = tuple(dynamic_update_slice(part, new, i, zero) for part, new in zip(x, pair_select(right, solved, old)))
        grown = reduce_max(pair_abs1(x), axes=(0,))
        factor = select(gt(grown, full_like(grown, big)), div(full_like(grown, 1), grown), full_like(grown, 1))
        return pair_scale(x, each_row(factor, n))

    identity = eye_like(t[0])
    return _steps(n - 1, row, (identity, full_like(identity, 0)))


def _normalized(v):
    """The columns of the pair matrix v scaled to unit 2-norm (after a scaling by their largest cabs1, so that
    the squares do not overflow), each with its entry of largest magnitude real and positive (zgeev's)."""
    n = shape_of(v[0])[0]
    for size_of in (lambda v: reduce_max(pair_abs1(v), axes=(0,)),
                    lambda v: sqrt(reduce_sum(pair_abs_squared(v), axes=(0,)))):
        size = nonzero_or_one(size_of(v))
        v = pair_scale(v, each_row(div(full_like(size, 1), size), n))
    (vr, vi), = fix_column_phases(v)
    return vr, vi


def _conjugates_in_lapack_order(w, v):
    """For a real matrix: each adjacent pair w[k], w[k+1] that are complex conjugates (to sqrt(ulp) relative),
    taken from the top, put in LAPACK's order, the one with the positive imaginary part first (with v's columns,
    when v is not ())."""
    n = shape_of(w[0])[0]
    tol = float(np.sqrt(_limits(w[0])[0]))

    def step(k, carry):
        w, v, taken = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        after = add(k, scalar_like(k, 1))
        a, b = (tuple(reshape(dynamic_slice(part, i, slice_sizes=(1,)), new_sizes=()) for part in w) for i in (k, after))
        pair = and_(le(pair_abs1(pair_sub(a, pair_conj(b))), mul(scalar_like(a[0], tol), pair_abs1(a))), not_(taken))
        swap = and_(pair, lt(a[1], scalar_like(a[1], 0)))
        first, second = pair_select(swap, b, a), pair_select(swap, a, b)
        w = tuple(dynamic_update_slice(dynamic_update_slice(part, reshape(u, new_sizes=(1,)), k),
                                       reshape(s, new_sizes=(1,)), after) for part, u, s in zip(w, first, second))
        if v:
            zero = scalar_like(k, 0)
            col_a, col_b = (tuple(dynamic_slice(part, zero, i, slice_sizes=(n, 1)) for part in v) for i in (k, after))
            swaps = splat(swap, (n, 1))
            first, second = pair_select(swaps, col_b, col_a), pair_select(swaps, col_a, col_b)
            v = tuple(dynamic_update_slice(dynamic_update_slice(part, u, zero, k), s, zero, after)
                      for part, u, s in zip(v, first, second))
        return w, v, pair

    w, v, _ = _steps(n - 1, step, (w, v, Tensor(np.bool_(False))))
    return w, v


def _eig_algorithm(a, *, vectors):
    """The expansion: Hessenberg reduction, QR iterations to Schur form, then the eigenvectors (see the module
    docstring); NaN results where the iterations failed."""
    n = shape_of(a)[0]
    complex_ = get_aval(a).dtype.kind == "c"
    parts = pair_of(a) if complex_ else (a, full_like(a, 0))
    if n <= 1:
        w, v = tuple(reshape(part, new_sizes=(n,)) for part in parts), (eye_like(parts[0]), full_like(parts[0], 0))
    else:
        z = (eye_like(parts[0]), full_like(parts[0], 0)) if vectors else ()
        h, z = _hessenberg(parts, z)
        t, z, failed = _schur(h, z, paired=not complex_)
        w = tuple(diagonal(part) for part in t)
        v = _normalized(pair_matmul(z, _triangular_eigenvectors(t))) if vectors else ()
        if not complex_:
            w, v = _conjugates_in_lapack_order(w, v)
        nan = lambda x: select(splat(failed, shape_of(x)), full_like(x, np.nan), x)  # noqa: E731
        w, v = tuple(nan(part) for part in w), tuple(nan(part) for part in v)
    return [cx.complex_(*w)] + ([cx.complex_(*v)] if vectors else [])


# ---------------------------------------------------------------------------------------------- the primitive

def _complex_dtype(dtype):
    return dtypes.complex128 if dtype in (dtypes.float64, dtypes.complex128) else dtypes.complex64


def _eig_shape(a, *, vectors):
    allowed = ("float32", "float64", "complex64", "complex128")
    if a.dtype.name not in allowed:
        raise DTypeError(f"eig: expected {', '.join(allowed)} matrices, got {fmt(a)}; cast with .astype('float32')")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"eig: expected square matrices [..., n, n], got {fmt(a)}")
    w = a.update(shape=a.shape[:-1], dtype=_complex_dtype(a.dtype))
    return [w, a.update(dtype=w.dtype)] if vectors else [w]


def _eig_impl(a, *, vectors):
    """LAPACK's geev in a's own precision (scipy: sgeev for float32, as Paddle; numpy would compute in float64),
    matrix by matrix."""
    from scipy.linalg import eig as geev  # deliberate lazy import: scipy is heavy and only eager eig needs it
    ctype = np.complex128 if a.dtype in (np.float64, np.complex128) else np.complex64
    w, v = map_matrices(lambda m: geev(m, check_finite=False), a)
    return [w.astype(ctype), v.astype(ctype)] if vectors else [w.astype(ctype)]


def _inverse(v):
    """V^-1 of the complex matrices v [..., n, n]: Gauss-Jordan elimination with partial pivoting on their (real,
    imaginary) pairs, rows picked and replaced by masks so that it maps over the batch dimensions. (prims.linalg's
    complex LU and triangular solves give the same, but their compiled forms multiplied the compile time of the
    derivatives, and IREE 3.13 first rejects their float64 form with data tiling.)"""
    shape = shape_of(v)
    n, nd = shape[-1], len(shape)
    rows, cols = (iota(dtype=dtypes.int32, shape=shape, dimension=d) for d in (nd - 2, nd - 1))
    below_index = iota(dtype=dtypes.int32, shape=shape[:-1], dimension=nd - 2)

    def line(x, mask, axis):
        """The row (axis nd-2) or column (axis nd-1) of the pair x that `mask` marks, as [..., n]."""
        return tuple(reduce_sum(select(mask, part, full_like(part, 0)), axes=(axis,)) for part in x)

    def step(k, carry):
        m, inv = carry
        k = convert_element_type(k, new_dtype=dtypes.int32)
        at_k = eq(rows, splat(k, shape))
        column = line(m, eq(cols, splat(k, shape)), nd - 1)
        candidates = select(ge(below_index, splat(k, shape[:-1])), pair_abs1(column), full_like(column[0], -1))
        pivot_row = argmax(candidates, axis=nd - 2, index_dtype=dtypes.int32)
        at_p = eq(rows, broadcast_in_dim(pivot_row, shape=shape, broadcast_dimensions=tuple(range(nd - 2))))

        def swapped(x):
            row_k, row_p = line(x, at_k, nd - 2), line(x, at_p, nd - 2)
            return tuple(select(at_k, each_row(pk, n), select(at_p, each_row(kk, n), part))
                         for part, kk, pk in zip(x, row_k, row_p))
        m, inv = swapped(m), swapped(inv)
        factors = line(m, eq(cols, splat(k, shape)), nd - 1)              # column k, its pivot at row k
        pivot = tuple(reduce_sum(select(eq(below_index, splat(k, shape[:-1])), part, full_like(part, 0)),
                                 axes=(nd - 2,)) for part in factors)
        factors = tuple(select(eq(below_index, splat(k, shape[:-1])), full_like(part, 0), part) for part in factors)

        def eliminated(x):
            row = pair_div(line(x, at_k, nd - 2), tuple(
                broadcast_in_dim(part, shape=shape[:-1], broadcast_dimensions=tuple(range(nd - 2))) for part in pivot))
            update = pair_times(tuple(each_column(part, n) for part in factors),
                                tuple(each_row(part, n) for part in row))
            x = pair_sub(x, update)
            return tuple(select(at_k, each_row(part, n), whole) for part, whole in zip(row, x))
        return eliminated(m), eliminated(inv)

    identity = eye_like(cx.real(v))
    _, (inv_r, inv_i) = _steps(n, step, (pair_of(v), (identity, full_like(identity, 0))))
    return cx.complex_(inv_r, inv_i)


def _v_inverse_da_v(da, v):
    """V^-1 dA V, with dA in V's complex dtype."""
    if get_aval(da).dtype.kind != "c":
        da = cx.complex_(da, full_like(da, 0))
    return matmul(_inverse(v), matmul(da, v))


def _eig_jvp(primals, tangents, *, vectors):
    (a,), (da,) = primals, tangents
    w, v = eig(a, vectors=True)
    p = _v_inverse_da_v(da, v)
    if not vectors:
        return [w], [diagonal(p)]
    shape, nd = shape_of(v), ndim_of(v)
    u = matmul(v, mul(convert_element_type(gap_reciprocals(w), new_dtype=get_aval(v).dtype), p))
    # dv_j = u_j + c_j v_j: Re(v_j^H dv_j) = 0 keeps the unit norm, Im(dv[k_j, j]) = 0 the largest entry real
    # (k_j its row, where |v| is largest in column j)
    largest = argmax(abs(v), axis=nd - 2, index_dtype=dtypes.int32)
    rows = iota(dtype=dtypes.int32, shape=shape, dimension=nd - 2)
    at_largest = convert_element_type(eq(rows, each_row(largest, shape[-2])), new_dtype=get_aval(v).dtype)
    column_sum = lambda m: reduce_sum(m, axes=(nd - 2,))  # noqa: E731
    c = cx.complex_(neg(cx.real(column_sum(mul(cx.conj(v), u)))),
                    neg(div(cx.imag(column_sum(mul(at_largest, u))), cx.real(column_sum(mul(at_largest, v))))))
    return [w, v], [diagonal(p), add(u, mul(v, each_row(c, shape[-2])))]


eig_p = Primitive("eig", shape_rule=_eig_shape, impl=_eig_impl, jvp=_eig_jvp, transpose=NONLINEAR,
                  batch=batch_rule(lambda: eig_p), lower=lower_by_expansion(_eig_algorithm, multiple_results=True),
                  multiple_results=True,
                  error_check=failure_check("eig", "the QR iterations did not converge"))


def eig(a, *, vectors: bool):
    """The eigenvalues w of the square matrices a [..., n, n] (real or complex), and with `vectors` the
    eigenvectors v (A v = v diag(w), columns of unit norm with their largest entry real): [w] or [w, v], complex."""
    return eig_p.bind(a, vectors=vectors)
