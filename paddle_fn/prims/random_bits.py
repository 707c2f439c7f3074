"""Counter-based random bits: the Threefry-2x32 block cipher as one primitive.

Threefry-2x32 with 20 rounds (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
SC 2011; the Random123 library) encrypts a 64-bit counter (x1, x2) under a 64-bit key (k1, k2). Being a pure
function of (key, counter), it needs no state: paddle_fn.random derives every random value from it, so draws
are reproducible eagerly, under jit and under vmap.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import ELEMENTWISE, NONLINEAR, ZERO_TANGENT, Primitive
from paddle_fn.prims._rules import fmt

# Rotation distances of Threefry-2x32 (Random123's R_32x2_*); rounds use them cyclically.
_ROTATIONS = (13, 15, 26, 6, 17, 29, 16, 24)
# The key-schedule parity constant of Threefish/Threefry for 32-bit words.
_KS_PARITY = 0x1BD11BDA
_ROUNDS = 20


def _threefry_rounds(k1, k2, x1, x2, *, add, xor, rotl, const):
    """The 20 rounds of Threefry-2x32 over any word representation: `add` wraps modulo 2**32, `rotl(x, r)`
    rotates left, `const(c)` makes a word constant. Shared by the numpy impl and the StableHLO lowering."""
    ks = (k1, k2, xor(xor(k1, k2), const(_KS_PARITY)))
    x1, x2 = add(x1, ks[0]), add(x2, ks[1])
    for r in range(_ROUNDS):
        x1 = add(x1, x2)
        x2 = xor(rotl(x2, _ROTATIONS[r % 8]), x1)
        if r % 4 == 3:
            # key injection s after every four rounds: words shifted by s, plus s on the second word
            s = r // 4 + 1
            x1 = add(x1, ks[s % 3])
            x2 = add(add(x2, ks[(s + 1) % 3]), const(s))
    return x1, x2


# ---------------------------------------------------------------------------------------------- threefry2x32

def _threefry2x32_shape(k1, k2, x1, x2):
    avals = (k1, k2, x1, x2)
    if any(a.dtype != dtypes.uint32 for a in avals):
        raise DTypeError("threefry2x32: keys and counters must be uint32, got " + ", ".join(fmt(a) for a in avals) +
                         " (convert them with convert_element_type(x, new_dtype='uint32'))")
    if any(a.shape != x1.shape for a in avals):
        raise ShapeError("threefry2x32: keys and counters must have identical shapes, got " +
                         ", ".join(fmt(a) for a in avals) + " (broadcast the keys with broadcast_in_dim first)")
    return [ShapedArray(x1.shape, dtypes.uint32)] * 2


# Words enciphered per pass of the numpy impl: the ~120 array operations of the rounds then work on data that stays
# in the CPU caches (128 KiB per word array) instead of streaming whole arrays through memory: 10^7 words took
# 0.30 s instead of 1.35 s (2^17 words per pass already fell back to 1.0 s), which is most of the time a large
# Layer's initialisation takes.
_CHUNK = 1 << 15


def _threefry2x32_impl(k1, k2, x1, x2):
    def rotl(x, r):
        return (x << np.uint32(r)) | (x >> np.uint32(32 - r))

    words = [np.asarray(a, np.uint32).reshape(-1) for a in (k1, k2, x1, x2)]
    y1, y2 = np.empty_like(words[2]), np.empty_like(words[2])
    with np.errstate(over="ignore"):  # uint32 additions wrap around, as the cipher wants
        for start in range(0, y1.size, _CHUNK):
            part = slice(start, start + _CHUNK)
            y1[part], y2[part] = _threefry_rounds(*(w[part] for w in words), add=np.add, xor=np.bitwise_xor,
                                                  rotl=rotl, const=np.uint32)
    shape = np.shape(x1)
    return [y1.reshape(shape), y2.reshape(shape)]


def _threefry2x32_lower(ctx, k1, k2, x1, x2):
    aval = ctx.avals_out[0]
    consts: dict[int, str] = {}

    def const(c):
        c = int(c)
        if c not in consts:
            consts[c] = ctx.constant(c, aval)
        return consts[c]

    def binop(hlo):
        return lambda a, b: ctx.op(hlo, [a, b], aval, in_avals=[aval, aval])

    shl, shr, or_ = binop("stablehlo.shift_left"), binop("stablehlo.shift_right_logical"), binop("stablehlo.or")

    def rotl(x, r):
        return or_(shl(x, const(r)), shr(x, const(32 - r)))

    return list(_threefry_rounds(k1, k2, x1, x2, add=binop("stablehlo.add"), xor=binop("stablehlo.xor"),
                                 rotl=rotl, const=const))


threefry2x32_p = Primitive("threefry2x32", shape_rule=_threefry2x32_shape, impl=_threefry2x32_impl, jvp=ZERO_TANGENT,
                           transpose=NONLINEAR, batch=ELEMENTWISE, lower=_threefry2x32_lower, multiple_results=True)


def threefry2x32(k1, k2, x1, x2):
    """Threefry-2x32 (20 rounds): encrypt counters (x1, x2) under key (k1, k2); returns [y1, y2].

    All four operands are uint32 of one shape (no broadcasting); the cipher is applied elementwise.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.core.trace import Tensor
        >>> zero = Tensor(np.zeros((), np.uint32))
        >>> [hex(int(y)) for y in threefry2x32(zero, zero, zero, zero)]
        ['0x6b200159', '0x99ba4efe']
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)
