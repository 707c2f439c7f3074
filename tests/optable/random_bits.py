"""Op-table rows for paddle_fn.prims.random_bits.

The reference is a scalar, pure-Python Threefry-2x32 written straight from the Random123 specification, kept
independent of the vectorised numpy impl it checks.
"""
import numpy as np

from paddle_fn.prims import random_bits as R

from optable import Arg, OpRow

_MASK = 0xFFFFFFFF
_ROT = (13, 15, 26, 6, 17, 29, 16, 24)


def threefry2x32_scalar(k1, k2, x1, x2):
    ks = (k1, k2, k1 ^ k2 ^ 0x1BD11BDA)
    x1, x2 = (x1 + k1) & _MASK, (x2 + k2) & _MASK
    for r in range(20):
        x1 = (x1 + x2) & _MASK
        rot = _ROT[r % 8]
        x2 = (((x2 << rot) | (x2 >> (32 - rot))) & _MASK) ^ x1
        if r % 4 == 3:
            s = r // 4 + 1
            x1 = (x1 + ks[s % 3]) & _MASK
            x2 = (x2 + ks[(s + 1) % 3] + s) & _MASK
    return x1, x2


def _reference(k1, k2, x1, x2):
    pairs = [threefry2x32_scalar(*map(int, ws)) for ws in zip(k1.ravel(), k2.ravel(), x1.ravel(), x2.ravel())]
    return [np.array([p[i] for p in pairs], np.uint32).reshape(x1.shape) for i in (0, 1)]


def _row(name, shape):
    return OpRow(name, R.threefry2x32_p, R.threefry2x32, tuple(Arg(shape, "uint32", "uint") for _ in range(4)),
                 _reference)


ROWS = [
    _row("threefry2x32", (2, 3)),
    _row("threefry2x32_scalar", ()),
]
