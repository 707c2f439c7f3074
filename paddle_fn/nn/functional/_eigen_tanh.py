"""Eigen's float32 tanh, which Paddle's CPU kernels evaluate (``x.tanh()`` on an Eigen expression): a rational
function of degree 13/6 on the input clamped to +-7.905311, x itself below 4e-4 in magnitude, all in float32
arithmetic. It is within a few ulp of tanh, but where a kernel subtracts it from x (tanhshrink) those ulp are the
leading digits of the result, so reproducing Paddle's numbers there needs the same function, bit for bit."""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.tensor import math as m
from paddle_fn.tensor.manipulation import where

# Eigen 3.4's generic_fast_tanh_float: odd numerator and even denominator coefficients, lowest degree first
_NUMERATOR = (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05, 5.12229709037114e-08,
              -8.60467152213735e-11, 2.00018790482477e-13, -2.76076847742355e-16)
_DENOMINATOR = (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04, 1.19825839466702e-06)
_CLAMP = 7.90531110763549805
_TINY = 0.0004


def eigen_tanh_float32(x):
    """tanh of a float32 Tensor as Eigen computes it (Horner's rule, multiply then add, in float32)."""
    if x.dtype != dtypes.float32:
        raise TypeError(f"eigen_tanh_float32: expects float32, got {x.dtype}")
    clamped = m.clip(x, -_CLAMP, _CLAMP)
    square = clamped * clamped
    numerator = square * np.float32(_NUMERATOR[-1]) + np.float32(_NUMERATOR[-2])
    for coefficient in reversed(_NUMERATOR[:-2]):
        numerator = square * numerator + np.float32(coefficient)
    denominator = square * np.float32(_DENOMINATOR[-1]) + np.float32(_DENOMINATOR[-2])
    for coefficient in reversed(_DENOMINATOR[:-2]):
        denominator = square * denominator + np.float32(coefficient)
    return where(m.abs(x) < _TINY, x, clamped * numerator / denominator)
