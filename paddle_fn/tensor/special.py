"""Special functions Paddle 3 added: the modified Bessel functions of the first kind (i0, i0e, i1, i1e), gammaln,
polygamma with Paddle's argument order, and the multivariate log-gamma. Composites of the elementwise
primitives, so grad, vmap and jit see through them; integer inputs compute in the default float dtype.

The Bessel functions sum their power series below |x| = 20 and their asymptotic expansion at and above it; both
are summed to below float64's rounding (45 series terms; the expansion's terms shrink below 1e-16 of the first
within 30 terms for x >= 20). Each branch gets an argument clamped into its own range, so the branch that `where`
discards never overflows and never sends a NaN into the gradient.
"""
from __future__ import annotations

import math

from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import static_int
from paddle_fn.tensor.manipulation import where
from paddle_fn.tensor.math import abs as abs_, exp, lgamma, sign, sqrt
from paddle_fn.tensor.promotion import float_operand

__all__ = ["i0", "i0e", "i1", "i1e", "gammaln", "polygamma", "multigammaln"]

_SWITCH = 20.0
_SERIES_TERMS = 45
_ASYMPTOTIC_TERMS = 30


def _series(x, order):
    """sum_k (x^2/4)^k / (k! (k + order)!), by Horner's rule from the last term (order 0 or 1)."""
    y = x * x * 0.25
    s = st.full_like(x, 1.0)
    for k in range(_SERIES_TERMS, 0, -1):
        s = 1.0 + s * y / (k * (k + order))
    return s / math.factorial(order)


def _asymptotic(x, order):
    """sum_k (-1)^k a_k(order) / x^k of the large-x expansion I_order(x) ~ e^x / sqrt(2 pi x) * (that sum)."""
    term, total = st.full_like(x, 1.0), st.full_like(x, 1.0)
    for k in range(1, _ASYMPTOTIC_TERMS + 1):
        term = term * (((2 * k - 1) ** 2 - 4 * order * order) / (8.0 * k)) / x
        total = total + term
    return total


def _bessel(op, x, order, scaled):
    """I_order(x), times exp(-|x|) when `scaled`; I0 is even and I1 odd."""
    x = float_operand(op, x)
    ax = abs_(x)
    small = ax < _SWITCH
    xs = where(small, ax, st.full_like(ax, 0.0))
    xl = where(small, st.full_like(ax, _SWITCH), ax)
    near = _series(xs, order) * (xs * 0.5) ** order
    far = _asymptotic(xl, order) / sqrt(xl * (2 * math.pi))
    if scaled:
        near = near * exp(-xs)
    else:
        # e^x = (e^(x/2))^2 keeps I(x) finite up to float64's own overflow near x = 713
        half = exp(xl * 0.5)
        far = far * half * half
    out = where(small, near, far)
    return out * sign(x) if order else out


def i0(x, name=None):
    """The modified Bessel function of the first kind of order 0, elementwise.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.i0(paddle.to_tensor([0.0, 1.0, 2.0, 3.0, 4.0])).numpy()
        array([ 1.       ,  1.2660658,  2.2795851,  4.8807926, 11.301922 ], dtype=float32)
    """
    return _bessel("i0", x, 0, scaled=False)


def i0e(x, name=None):
    """The exponentially scaled modified Bessel function of order 0: ``exp(-|x|) * i0(x)``, finite for any x.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.i0e(paddle.to_tensor([0.0, 1.0, 2.0, 3.0, 4.0])).numpy()
        array([1.        , 0.46575958, 0.30850834, 0.24300034, 0.20700192],
              dtype=float32)
    """
    return _bessel("i0e", x, 0, scaled=True)


def i1(x, name=None):
    """The modified Bessel function of the first kind of order 1, elementwise.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.i1(paddle.to_tensor([0.0, 1.0, 2.0, 3.0, 4.0])).numpy()
        array([0.       , 0.5651591, 1.5906368, 3.95337  , 9.759465 ],
              dtype=float32)
    """
    return _bessel("i1", x, 1, scaled=False)


def i1e(x, name=None):
    """The exponentially scaled modified Bessel function of order 1: ``exp(-|x|) * i1(x)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.i1e(paddle.to_tensor([0.0, 1.0, 2.0, 3.0, 4.0])).numpy()
        array([0.        , 0.20791039, 0.21526928, 0.1968267 , 0.17875084],
              dtype=float32)
    """
    return _bessel("i1e", x, 1, scaled=True)


def gammaln(x, name=None):
    """The logarithm of the absolute value of the gamma function (the same as ``lgamma``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.gammaln(paddle.to_tensor([0.5, 3.0, -1.5])).numpy()
        array([0.5723649 , 0.6931472 , 0.86004704], dtype=float32)
    """
    return lgamma(float_operand("gammaln", x))


def polygamma(x, n, name=None):
    """The `n`-th derivative of the digamma function (``n = 0`` is digamma itself), elementwise.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.polygamma(paddle.to_tensor([0.5, 3.0]), 2).numpy()
        array([-16.828796 ,  -0.1541138], dtype=float32)
    """
    n = static_int("polygamma", n, "n")
    if n < 0:
        raise ValueError(f"polygamma: the order n must be a non-negative int, got {n}")
    return ew.polygamma(float_operand("polygamma", x), m=n)


def multigammaln(x, p, name=None):
    """The log of the multivariate gamma function of dimension `p`:
    ``p (p - 1) / 4 * log(pi) + sum_{j < p} lgamma(x - j / 2)``, defined for x > (p - 1) / 2.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.multigammaln(paddle.to_tensor([2.5, 3.0]), 2).numpy()
        array([0.8570478, 1.550195 ], dtype=float32)
    """
    p = static_int("multigammaln", p, "p")
    if p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p}")
    x = float_operand("multigammaln", x)
    total = lgamma(x)
    for j in range(1, p):
        total = total + lgamma(x - j / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)
