"""The regularized incomplete gamma functions ``gammainc`` (P) and ``gammaincc`` (Q = 1 - P), Paddle 3.3's
``paddle.gammainc(x, y)``: x the shape parameter a >= 0, y the point >= 0.

P(a, y) comes from its power series when y < a + 1 and Q(a, y) from its continued fraction otherwise (the branch
where each converges fast), each with a fixed number of terms in a ``fori_loop``: the result is a composite of
primitives, so grad (in y and in a), vmap and jit see through it. 300 terms reach float64's rounding up to
a ~ 1000 (the series' terms fall like exp(-n^2 / 2a) at y ~ a). Each branch gets arguments clamped into its own
range, so the branch that ``where`` discards never produces a NaN that reaches the gradient. As in Paddle 3.3.1,
a = 0 gives P = 0, Q = 1, and an infinite y gives NaN.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.trace import get_aval
from paddle_fn.prims import structural as st
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.manipulation import where
from paddle_fn.tensor.math import exp, lgamma, log
from paddle_fn.tensor.promotion import binary_operands, cast, float_operand

__all__ = ["gammainc", "gammaincc"]

_TERMS = 300


def _series(a, y):
    """P(a, y) = y^a e^-y / Gamma(a + 1) * sum_n prod_{k<=n} y / (a + k), for y < a + 1."""
    def term(n, carry):
        t, total = carry
        t = t * y / (a + cast(n, get_aval(a).dtype))
        return t, total + t
    _, total = fori_loop(1, _TERMS, term, (st.full_like(a, 1.0), st.full_like(a, 1.0)))
    return exp(a * log(y) - y - lgamma(a + 1.0)) * total


def _fraction(a, y):
    """Q(a, y) = y^a e^-y / Gamma(a) / (b_0 - a_1 / (b_1 - a_2 / ...)), b_n = y + 2n + 1 - a, a_n = n (n - a),
    evaluated from its tail, for y >= a + 1."""
    dtype = get_aval(a).dtype

    def level(i, tail):
        n = cast(_TERMS - 1 - i, dtype)
        return n * (n - a) / (y + 2.0 * n + 1.0 - a - tail)
    tail = fori_loop(0, _TERMS - 1, level, st.full_like(a, 0.0))
    return exp(a * log(y) - y - lgamma(a)) / (y + 1.0 - a - tail)


def _lower_and_upper(op, x, y):
    """(P, Q) of the broadcast float operands."""
    x, y = binary_operands(op, float_operand(op, x), float_operand(op, y))
    for name, value in (("x", x), ("y", y)):
        known = eager_value(value)
        if known is not None and np.any(known < 0):
            raise ValueError(f"{op}: the input argument {name} must be greater than or equal to 0, got "
                             f"{known[known < 0].reshape(-1)[0]} (shape {list(known.shape)})")
    use_series = y < x + 1.0
    positive, infinite = x > 0, y == float("inf")
    one, nan = st.full_like(x, 1.0), st.full_like(x, float("nan"))
    # the series with y kept below a + 1 (and > 0 for its log); the fraction with a finite y at or above a + 1
    a = where(positive, x, one)
    y_series = where(use_series, where(y > 0, y, one), a * 0.5)
    y_fraction = where(use_series | infinite, a + 1.0, y)
    p_series = where(y > 0, _series(a, y_series), st.full_like(x, 0.0))
    q_fraction = _fraction(a, y_fraction)
    lower = where(infinite, nan, where(use_series, p_series, 1.0 - q_fraction))
    upper = where(infinite, nan, where(use_series, 1.0 - p_series, q_fraction))
    return where(positive, lower, st.full_like(x, 0.0)), where(positive, upper, one)


def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y) = 1/Gamma(x) * int_0^y t^(x-1) e^-t dt, elementwise
    (x, y >= 0, broadcast together; integer inputs compute in the default float dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([0.5, 0.5, 0.5, 0.5, 0.5], dtype="float32")
        >>> y = paddle.to_tensor([0, 1, 10, 100, 1000], dtype="float32")
        >>> paddle.gammainc(x, y)
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.84270078, 0.99999225, 1.        , 1.        ])
    """
    return _lower_and_upper("gammainc", x, y)[0]


def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y), elementwise (x, y >= 0).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([0.5, 0.5, 0.5], dtype="float64")
        >>> paddle.gammaincc(x, paddle.to_tensor([0., 1., 10.], dtype="float64")).numpy()
        array([1.00000000e+00, 1.57299207e-01, 7.74421643e-06])
    """
    return _lower_and_upper("gammaincc", x, y)[1]
