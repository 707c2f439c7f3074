"""LU factorization with partial pivoting of non-square matrices (``paddle.linalg.lu`` of an m x n matrix, m != n,
as LAPACK's getrf): a composite of min(m, n) elimination steps in a ``fori_loop``, so grad, vmap and jit see
through it. Square matrices use the ``lu`` primitive instead.

Step j swaps row j with the row at or below it of largest magnitude in column j (the first such row on ties, as
getrf), stores the multipliers below the pivot and subtracts their multiples of row j from the rows below. A zero
pivot (a singular matrix) leaves its column unscaled, as getrf does.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import get_aval
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.tensor.manipulation import broadcast_to, take_along_axis, where
from paddle_fn.tensor.math import abs as abs_, sum as sum_
from paddle_fn.tensor.promotion import as_tensor, cast
from paddle_fn.tensor.search import argmax


def lu_rectangular(a):
    """(packed L\\U [..., m, n], 0-based int32 pivots [..., min(m, n)]) of float matrices `a` [..., m, n].

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.tensor.lu_rectangular import lu_rectangular
        >>> packed, pivots = lu_rectangular(paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.]], dtype='float64'))
        >>> packed.numpy(), pivots.tolist()
        (array([[5. , 6. ],
               [0.2, 0.8],
               [0.6, 0.5]]), [2, 2])
    """
    shape = list(get_aval(a).shape)
    m, n = shape[-2:]
    k = min(m, n)
    rows = as_tensor(np.arange(m, dtype=np.int32))
    cols = as_tensor(np.arange(n, dtype=np.int32))
    steps = as_tensor(np.arange(k, dtype=np.int32))
    zero = as_tensor(np.zeros((), get_aval(a).dtype.np))

    def step(j, carry):
        a, pivots = carry
        in_column = cast(cols == j, get_aval(a).dtype)
        column = sum_(a * in_column, axis=-1)  # [..., m]
        candidates = where(rows >= j, abs_(column), -as_tensor(np.ones((), get_aval(a).dtype.np)))
        p = cast(argmax(candidates, axis=-1, keepdim=True), dtypes.int32)  # [..., 1]
        order = where(rows == j, p, where(rows == p, j, rows))  # rows j and p swapped
        a = take_along_axis(a, broadcast_to(order[..., :, None], shape), axis=-2)
        pivots = where(steps == j, p, pivots)
        pivot_row = sum_(a * cast(rows == j, get_aval(a).dtype)[:, None], axis=-2)  # [..., n]
        pivot = sum_(pivot_row * in_column, axis=-1, keepdim=True)  # [..., 1]
        column = sum_(a * in_column, axis=-1)
        below = rows > j
        multipliers = where(below, column / where(pivot == 0, pivot + 1, pivot), zero)  # [..., m]
        a = a - multipliers[..., :, None] * where(cols > j, pivot_row, zero)[..., None, :]
        return where(below[:, None] & (cols == j), multipliers[..., :, None], a), pivots

    pivots = broadcast_to(steps, shape[:-2] + [k])
    return fori_loop(0, k, step, (a, pivots))
