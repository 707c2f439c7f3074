"""Keys: `key`, `split`, `fold_in`, `random_bits`, and the helpers every sampler shares (shapes, words, operands)."""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, concrete_or_error, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.random_bits import threefry2x32

_MASK32 = 0xFFFFFFFF



# ----------------------------------------------------------------------------------------------- helpers

def _const(value, dtype):
    return Tensor(np.asarray(value, dtype=dtype.np))


def _full(shape, value, dtype):
    return st.broadcast_in_dim(_const(value, dtype), shape=shape, broadcast_dimensions=())


def _static_shape(fn, shape) -> tuple:
    """A shape as a tuple of ints from an int, a list/tuple (of ints or one-element Tensors) or a 1-D Tensor."""
    fix = "pass the shape as a list of Python ints"
    if isinstance(shape, Tensor):
        shape = concrete_or_error(shape, f"{fn}: shape", fix).reshape(-1).tolist()
    elif isinstance(shape, (int, np.integer)):
        shape = [shape]
    elif not isinstance(shape, (list, tuple)):
        raise TypeError(f"{fn}: shape must be an int, a list or tuple of ints, or a 1-D integer Tensor, "
                        f"got {shape!r}")
    dims = []
    for d in shape:
        if isinstance(d, Tensor):
            d = concrete_or_error(d, f"{fn}: shape", fix)
            if d.size != 1:
                raise ShapeError(f"{fn}: every entry of shape must have one element, got one of shape {list(d.shape)}")
            d = d.reshape(()).item()
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{fn}: shape entries must be ints, got {d!r} in {shape!r}")
        if d < 0:
            raise ShapeError(f"{fn}: shape entries must be non-negative, got {list(shape)}")
        dims.append(int(d))
    return tuple(dims)


def _float_dtype(fn, dtype):
    dt = dtypes.default_float_dtype() if dtype is None else dtypes.as_dtype(dtype)
    if dt.kind != "f":
        raise DTypeError(f"{fn}: dtype must be a float dtype (float16, bfloat16, float32, float64), got {dt.name}; "
                         "use randint for integers")
    return dt


def _broadcast_operand(fn, what, value, shape, dtype):
    """`value` (a Python scalar or a Tensor broadcastable to `shape`, numpy-style) as a Tensor of `shape`, `dtype`."""
    if not isinstance(value, Tensor):
        return _full(shape, value, dtype)
    a = get_aval(value)
    lead = len(shape) - a.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(a.shape, shape[lead:])):
        raise ShapeError(f"{fn}: {what} has shape {list(a.shape)}, which does not broadcast to the requested "
                         f"shape {list(shape)}; pass a scalar or a Tensor whose shape broadcasts to it")
    value = el.convert_element_type(value, new_dtype=dtype)
    return st.broadcast_in_dim(value, shape=shape, broadcast_dimensions=tuple(range(lead, len(shape))))


def _check_key(fn, key):
    a = get_aval(key)
    if a.shape != (2,) or a.dtype != dtypes.uint32:
        raise DTypeError(f"{fn}: key must be a uint32[2] Tensor made by paddle_fn.random.key(seed), split or "
                         f"fold_in, got {a.str_short()}; to draw with a batch of keys, vmap over them")


def _key_words(key):
    """The two 0-d uint32 words (k1, k2) of a key."""
    return [st.reshape(st.slice(key, start_indices=(i,), limit_indices=(i + 1,)), new_sizes=()) for i in (0, 1)]


def _stack_words(y1, y2):
    """Words of shape S -> keys of shape S + (2,)."""
    shape = get_aval(y1).shape
    return st.concatenate(*(st.reshape(y, new_sizes=shape + (1,)) for y in (y1, y2)), dimension=len(shape))


def _seed_words(fn, x: int) -> np.ndarray:
    """The [hi, lo] uint32 words of the 64-bit two's complement of a Python int."""
    if not -2 ** 63 <= x < 2 ** 64:
        raise ValueError(f"{fn}: {x} does not fit in 64 bits; pass a value in [-2**63, 2**64)")
    x &= 2 ** 64 - 1
    return np.array([x >> 32, x & _MASK32], np.uint32)


def _int_words(fn, x):
    """A Python int or a 0-d integer Tensor -> (hi, lo) 0-d uint32 words of its 64-bit two's complement."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return tuple(Tensor(w) for w in _seed_words(fn, int(x)))
    if not isinstance(x, Tensor) or get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"{fn}: expected a Python int or an integer Tensor, got "
                         f"{get_aval(x).str_short() if isinstance(x, Tensor) else type(x).__name__}")
    if get_aval(x).ndim != 0:
        raise ShapeError(f"{fn}: expected a single integer, got shape {list(get_aval(x).shape)}; "
                         "vmap over a batch of integers instead")
    x64 = el.convert_element_type(x, new_dtype=dtypes.int64)
    hi = bw.shift_right_logical(x64, _const(32, dtypes.int64))
    lo = bw.and_(x64, _const(_MASK32, dtypes.int64))
    return (el.convert_element_type(hi, new_dtype=dtypes.uint32),
            el.convert_element_type(lo, new_dtype=dtypes.uint32))


def _words(fn, key, shape):
    """Threefry words (y1, y2), each uint32[shape], for counters (0, flat index)."""
    _check_key(fn, key)
    n = math.prod(shape)
    if n >= 2 ** 32:
        raise ShapeError(f"{fn}: shape {list(shape)} has {n} elements; one draw supports fewer than 2**32 "
                         "(split the key and draw in parts)")
    k1, k2 = (st.broadcast_in_dim(k, shape=shape, broadcast_dimensions=()) for k in _key_words(key))
    counters = st.reshape(st.iota(dtype=dtypes.uint32, shape=(n,), dimension=0), new_sizes=shape)
    return threefry2x32(k1, k2, _full(shape, 0, dtypes.uint32), counters)


# ----------------------------------------------------------------------------------------------- keys

def key(seed):
    """A new PRNG key (a uint32[2] Tensor) from an integer seed (Python int or integer Tensor, may be traced).

    The key is ``[hi, lo]``, the high and low 32 bits of the seed's 64-bit two's complement.

    Example:
        >>> from paddle_fn import random
        >>> random.key(42).numpy()
        array([ 0, 42], dtype=uint32)
        >>> random.key(-1).numpy()
        array([4294967295, 4294967295], dtype=uint32)
    """
    return _stack_words(*_int_words("key", seed))


PRNGKey = key


def split(key, num=2):
    """Split a key into `num` new independent keys, returned as uint32[num, 2].

    Example:
        >>> from paddle_fn import random
        >>> keys = random.split(random.key(0), 3)
        >>> keys.shape
        paddle.Size([3, 2])
        >>> bool((keys.numpy()[0] != keys.numpy()[1]).any())
        True
    """
    num = int(num)
    if num < 0:
        raise ValueError(f"split: num must be non-negative, got {num}")
    return _stack_words(*_words("split", key, (num,)))


def fold_in(key, data):
    """A new key from `key` and an integer `data` (Python int or integer Tensor, may be traced or batched).

    Different data give independent keys; ``fold_in(key, i)`` equals ``split(key, n)[i]`` for ``i < n``.

    Example:
        >>> from paddle_fn import random
        >>> k = random.key(0)
        >>> bool((random.fold_in(k, 1).numpy() != random.fold_in(k, 2).numpy()).any())
        True
    """
    _check_key("fold_in", key)
    hi, lo = _int_words("fold_in", data)
    return _stack_words(*threefry2x32(*_key_words(key), hi, lo))


def random_bits(key, shape, bits=32):
    """Uniformly random unsigned integers of `shape` (uint32; only bits=32 exists, there is no uint64).

    Example:
        >>> from paddle_fn import random
        >>> b = random.random_bits(random.key(0), (2, 2))
        >>> b.shape, b.dtype
        (paddle.Size([2, 2]), paddle.uint32)
    """
    if bits != 32:
        raise ValueError(f"random_bits: bits={bits} is not supported; only 32 (uint32) is: paddle_fn has no "
                         "uint64 or uint16 dtype")
    y1, y2 = _words("random_bits", key, _static_shape("random_bits", shape))
    return bw.xor(y1, y2)

