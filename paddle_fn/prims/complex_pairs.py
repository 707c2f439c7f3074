"""Complex arithmetic on (real, imaginary) pairs of real arrays, for the expansions that IREE must compile without
complex numbers (prims/linalg_complex.py, prims/linalg_eig.py: IREE 3.13 rejects complex constants and miscompiles
complex buffers updated in loops).

A pair ``z = (re, im)`` stands for ``re + i im``; both parts have one shape and one real dtype, and a "real" operand
(of `pair_scale`) is one array of that shape. Every helper takes and returns pairs unless it says otherwise, and
calls public primitives only, so the expansions built from them stay differentiable and batchable.

    >>> import numpy as np
    >>> from paddle_fn.core.trace import Tensor
    >>> z = (Tensor(np.float32(3.0)), Tensor(np.float32(4.0)))             # 3 + 4i
    >>> [float(part) for part in pair_times(z, pair_conj(z))]             # (3 + 4i)(3 - 4i)
    [25.0, 0.0]
    >>> float(pair_abs(z))
    5.0
"""
from __future__ import annotations

from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims.base import full_like
from paddle_fn.prims.elementwise import abs, add, div, ge, lt, mul, ne, neg, select, sqrt, sub  # noqa: A004
from paddle_fn.prims.matrices import matmul, matrix_transpose, nonzero_or_one, outer, scalar_entry, splat
from paddle_fn.prims.reduction import dot_general


def pair_of(z):
    """The pair of the complex array z: (real(z), imag(z))."""
    return cx.real(z), cx.imag(z)


def pair_add(x, y):
    return add(x[0], y[0]), add(x[1], y[1])


def pair_sub(x, y):
    return sub(x[0], y[0]), sub(x[1], y[1])


def pair_neg(z):
    return neg(z[0]), neg(z[1])


def pair_conj(z):
    return z[0], neg(z[1])


def pair_scale(z, r):
    """z times the real array r (of z's parts' shape)."""
    return mul(z[0], r), mul(z[1], r)


def pair_select(pred, x, y):
    """x where the boolean pred, y elsewhere."""
    return select(pred, x[0], y[0]), select(pred, x[1], y[1])


def _complex_product(product, x, y):
    """The complex form of a real bilinear `product` (elementwise, matrix or outer) of the pairs x and y."""
    (xr, xi), (yr, yi) = x, y
    return sub(product(xr, yr), product(xi, yi)), add(product(xr, yi), product(xi, yr))


def pair_times(x, y):
    """The elementwise product x * y."""
    return _complex_product(mul, x, y)


def pair_matmul(x, y):
    """The matrix product x @ y over the last two dimensions (prims.matrices.matmul)."""
    return _complex_product(matmul, x, y)


def pair_outer(x, y):
    """The outer product of the column x [n, 1] and the row y [1, k]: [n, k] (prims.matrices.outer)."""
    return _complex_product(outer, x, y)


def pair_conj_dot(x, y, dimension_numbers):
    """dot_general(conj(x), y) with dot_general's `dimension_numbers` (x^H y for contracted rows)."""
    (xr, xi), (yr, yi) = x, y
    dot = lambda a, b: dot_general(a, b, dimension_numbers=dimension_numbers)  # noqa: E731
    return add(dot(xr, yr), dot(xi, yi)), sub(dot(xr, yi), dot(xi, yr))


def pair_adjoint(z):
    """The conjugate transpose of the last two dimensions."""
    return matrix_transpose(z[0]), neg(matrix_transpose(z[1]))


def pair_abs1(z):
    """|Re z| + |Im z| (a real array), LAPACK's cheap magnitude (cabs1)."""
    return add(abs(z[0]), abs(z[1]))


def pair_abs_squared(z):
    """|z|^2 = Re z^2 + Im z^2 (a real array)."""
    return add(mul(z[0], z[0]), mul(z[1], z[1]))


def pair_abs(z):
    """|z| (a real array), without a guard against the squares' overflow (pair_div scales first where it must)."""
    return sqrt(pair_abs_squared(z))


def pair_unit_phase(z):
    """z / |z|, and 1 where z is 0."""
    re, im = z
    size = pair_abs(z)
    nonzero = ne(size, full_like(size, 0))
    safe = nonzero_or_one(size)
    return select(nonzero, div(re, safe), full_like(re, 1)), select(nonzero, div(im, safe), full_like(im, 0))


def pair_div(x, y):
    """x / y, both scaled by y's cabs1 first so that the squares do not overflow (a zero y divides by one)."""
    scale = nonzero_or_one(pair_abs1(y))
    inverse = div(full_like(scale, 1), scale)
    (xr, xi), (yr, yi) = pair_scale(x, inverse), pair_scale(y, inverse)
    size = nonzero_or_one(pair_abs_squared((yr, yi)))
    return div(add(mul(xr, yr), mul(xi, yi)), size), div(sub(mul(xi, yr), mul(xr, yi)), size)


def pair_sqrt(z):
    """The principal square root, without the cancellation of (|z| - Re z) for the part it would hit."""
    re, im = z
    zero = full_like(re, 0)
    t_pos = sqrt(mul(add(pair_abs(z), abs(re)), full_like(re, 0.5)))  # |the larger part of the root|
    safe = nonzero_or_one(t_pos)
    other = div(abs(im), add(safe, safe))                              # |the other part|
    nonnegative = ge(re, zero)
    im_sign = select(lt(im, zero), full_like(re, -1), full_like(re, 1))
    return select(nonnegative, t_pos, other), mul(im_sign, select(nonnegative, other, t_pos))


def pair_entry(z, i, j):
    """z[i, j] of one pair matrix at traced indices, as a pair of 0-d values."""
    return scalar_entry(z[0], i, j), scalar_entry(z[1], i, j)


def pair_splat(z, shape):
    """The pair of 0-d values z broadcast to `shape`."""
    return splat(z[0], shape), splat(z[1], shape)
