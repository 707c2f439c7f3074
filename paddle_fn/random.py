"""Random numbers: functional, counter-based (JAX-like), plus Paddle's global-seed helpers on top.

**Functional API** (``paddle_fn.random.*``). A key is a ``uint32[2]`` Tensor; every function is a pure function
of its key, so the same key gives the same numbers eagerly, under ``jit`` and under ``vmap``, and a batch of
keys under ``vmap`` gives independent draws per lane. Never reuse a key for two draws: derive new ones with
`split` or `fold_in`.

    >>> from paddle_fn import random
    >>> k = random.key(0)
    >>> k_noise, k_init = random.split(k)
    >>> random.normal(k_noise, (2, 3)).shape
    [2, 3]

How the bits are made. Everything comes from the Threefry-2x32 block cipher (primitive
``paddle_fn.prims.random_bits.threefry2x32``). A draw of shape ``S`` from key ``(k1, k2)`` encrypts, for the
element of row-major flat index ``i``, the 64-bit counter ``(hi, lo) = (0, i)``; this gives two 32-bit words
``(y1, y2)`` per element, and ``random_bits`` returns ``y1 ^ y2``. This is the layout of JAX's
``jax_threefry_partitionable`` mode. Each element depends only on the key and its own index, never on how a
computation is batched. Other details:

* ``key(seed)`` holds the 64-bit two's complement of ``seed`` as ``[hi, lo]``.
* ``split(key, n)[i]`` is ``(y1, y2)`` for counter ``(0, i)``, so ``fold_in(key, i) == split(key, n)[i]``.
* ``uniform`` uses ``p`` random bits for a float of precision ``p`` (24 for float32, 53 for float64, which
  takes the top 21 bits of ``y1`` and all 32 bits of ``y2``). It forms ``k * 2**-p`` exactly and then scales.
* ``normal`` is ``sqrt(2) * erf_inv(u)`` with ``u`` uniform in the open interval (-1, 1), as in JAX.

**Paddle-style API**: `seed`, `rand`, `randn`, `standard_normal`, `randperm`, `paddle_randint`,
`paddle_uniform` and `paddle_normal`. `PADDLE_API` maps their Paddle names to them. They draw from a global key:
each call splits it, so ``seed(1); a = rand([2]); seed(1); b = rand([2])`` gives ``a == b``. Without `seed` the
global key starts from OS entropy, as Paddle's default generator does. Use these in eager code. Under ``jit`` the
key a call takes is fixed when the function is traced, so every run of the compiled function gives the same
numbers. In code you transform, pass keys explicitly. ``paddle.jit.to_static`` is the exception: it runs the
program inside `traced_global_key` with a key drawn from the global generator on each call, so these functions
(and Dropout) draw fresh numbers per call there. Their ``name`` arguments are accepted for Paddle
compatibility and ignored.
"""
from __future__ import annotations

import contextlib
import math
import os
import threading

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, concrete_or_error, get_aval
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.random_bits import threefry2x32, threefry2x32_p
from paddle_fn.prims.reduction import sort

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
    hi = el.shift_right_logical(x64, _const(32, dtypes.int64))
    lo = el.and_(x64, _const(_MASK32, dtypes.int64))
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
        [3, 2]
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
        ([2, 2], paddle.uint32)
    """
    if bits != 32:
        raise ValueError(f"random_bits: bits={bits} is not supported; only 32 (uint32) is: paddle_fn has no "
                         "uint64 or uint16 dtype")
    y1, y2 = _words("random_bits", key, _static_shape("random_bits", shape))
    return el.xor(y1, y2)


# ----------------------------------------------------------------------------------------------- distributions

def _unit_interval(fn, key, shape, dt):
    """Uniform floats k * 2**-p in [0, 1), k a random p-bit integer, p the dtype's precision (exact in dt)."""
    precision = dtypes.finfo(dt).nmant + 1
    y1, y2 = _words(fn, key, shape)
    if precision <= 32:
        k = el.shift_right_logical(el.xor(y1, y2), _full(shape, 32 - precision, dtypes.uint32))
        return el.mul(el.convert_element_type(k, new_dtype=dt), _full(shape, 2.0 ** -precision, dt))
    # float64: 21 high bits of y1 and 32 bits of y2 make a 53-bit integer, assembled exactly in float64
    hi = el.convert_element_type(el.shift_right_logical(y1, _full(shape, 64 - precision, dtypes.uint32)),
                                 new_dtype=dt)
    k = el.add(el.mul(hi, _full(shape, 2.0 ** 32, dt)), el.convert_element_type(y2, new_dtype=dt))
    return el.mul(k, _full(shape, 2.0 ** -precision, dt))


def uniform(key, shape=(), dtype=None, min=0.0, max=1.0):  # noqa: A002 - Paddle's argument names
    """Uniform floats in [min, max) (up to rounding of ``u * (max - min) + min``, as in JAX).

    Args:
        key: a uint32[2] key.
        shape: output shape (int, list or tuple).
        dtype: a float dtype; default: the default float dtype.
        min: the lower bound, a Python scalar or a Tensor broadcastable to `shape`.
        max: the upper bound, likewise.

    Example:
        >>> from paddle_fn import random
        >>> x = random.uniform(random.key(0), [1000], 'float64', min=2.0, max=3.0).numpy()
        >>> bool(x.min() >= 2.0 and x.max() < 3.0)
        True
    """
    return _uniform("uniform", key, _static_shape("uniform", shape), _float_dtype("uniform", dtype), min, max)


def _uniform(fn, key, shape, dt, min, max):  # noqa: A002
    lo = _broadcast_operand(fn, "min", min, shape, dt)
    hi = _broadcast_operand(fn, "max", max, shape, dt)
    u = _unit_interval(fn, key, shape, dt)
    return el.max(lo, el.add(el.mul(u, el.sub(hi, lo)), lo))


def normal(key, shape=(), dtype=None):
    """Standard normal floats, ``sqrt(2) * erf_inv(u)`` with u uniform in the open interval (-1, 1).

    Example:
        >>> from paddle_fn import random
        >>> x = random.normal(random.key(0), [10000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.05 and abs(x.std() - 1) < 0.05)
        True
    """
    dt = _float_dtype("normal", dtype)
    shape = _static_shape("normal", shape)
    above_minus_one = float(np.nextafter(np.array(-1, dt.np), np.array(0, dt.np)))
    u = _uniform("normal", key, shape, dt, above_minus_one, 1.0)
    return el.mul(_full(shape, math.sqrt(2.0), dt), el.erf_inv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal floats truncated to [lower, upper] (inverse-CDF sampling, as JAX).

    Args:
        lower: the lower bound, a Python scalar or a Tensor (infinities allowed).
        upper: the upper bound, likewise.
        shape: output shape; default: the broadcast shape of lower and upper.

    Example:
        >>> from paddle_fn import random
        >>> x = random.truncated_normal(random.key(0), -1.0, 2.0, [1000]).numpy()
        >>> bool(x.min() >= -1.0 and x.max() <= 2.0)
        True
    """
    dt = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = np.broadcast_shapes(*(tuple(get_aval(b).shape) for b in (lower, upper) if isinstance(b, Tensor)))
    shape = _static_shape("truncated_normal", shape)
    lo = _broadcast_operand("truncated_normal", "lower", lower, shape, dt)
    hi = _broadcast_operand("truncated_normal", "upper", upper, shape, dt)
    inv_sqrt2 = _full(shape, 1 / math.sqrt(2.0), dt)
    u = _uniform("truncated_normal", key, shape, dt, el.erf(el.mul(lo, inv_sqrt2)), el.erf(el.mul(hi, inv_sqrt2)))
    # keep erf_inv finite where a bound is infinite (erf = -1 or 1)
    nextafter = np.nextafter(np.array([-1, 1], dt.np), np.array(0, dt.np))
    u = el.clamp(_const(nextafter[0], dt), u, _const(nextafter[1], dt))
    return el.clamp(lo, el.mul(_full(shape, math.sqrt(2.0), dt), el.erf_inv(u)), hi)


def bernoulli(key, p=0.5, shape=None):
    """Random booleans, True with probability `p` (a Python float or a float Tensor broadcastable to shape).

    Example:
        >>> from paddle_fn import random
        >>> b = random.bernoulli(random.key(0), 0.3, [10000]).numpy()
        >>> b.dtype, bool(abs(b.mean() - 0.3) < 0.02)
        (dtype('bool'), True)
    """
    if isinstance(p, Tensor):
        dt = _float_dtype("bernoulli", get_aval(p).dtype)
        shape = get_aval(p).shape if shape is None else _static_shape("bernoulli", shape)
    else:
        dt = dtypes.default_float_dtype()
        shape = () if shape is None else _static_shape("bernoulli", shape)
    u = _uniform("bernoulli", key, shape, dt, 0.0, 1.0)
    return el.lt(u, _broadcast_operand("bernoulli", "p", p, shape, dt))


def randint(key, shape, minval, maxval, dtype="int64"):
    """Uniform integers in [minval, maxval) (minval where maxval <= minval).

    Each value is a 63-bit random integer reduced modulo ``maxval - minval``, so the bias is at most
    ``(maxval - minval) / 2**63``. ``maxval - minval`` must fit in int64.

    Args:
        minval: the lower bound (inclusive), a Python int or an integer Tensor broadcastable to `shape`; clipped to
            the range of `dtype`.
        maxval: the upper bound (exclusive), likewise.
        dtype: an integer dtype.

    Example:
        >>> from paddle_fn import random
        >>> x = random.randint(random.key(0), [1000], 3, 7, 'int32').numpy()
        >>> x.dtype, sorted(set(x.tolist()))
        (dtype('int32'), [3, 4, 5, 6])
    """
    dt = dtypes.as_dtype(dtype)
    if dt.kind not in "iu":
        raise DTypeError(f"randint: dtype must be an integer dtype, got {dt.name}; use uniform for floats")
    shape = _static_shape("randint", shape)
    lo = _broadcast_operand("randint", "minval", minval, shape, dtypes.int64)
    hi = _broadcast_operand("randint", "maxval", maxval, shape, dtypes.int64)
    if dt.bits < 64:
        info = np.iinfo(dt.np)
        lo = el.clamp(_const(info.min, dtypes.int64), lo, _const(info.max, dtypes.int64))
        hi = el.clamp(_const(info.min, dtypes.int64), hi, _const(info.max + 1, dtypes.int64))
    y1, y2 = _words("randint", key, shape)
    high31 = el.convert_element_type(el.shift_right_logical(y1, _full(shape, 1, dtypes.uint32)), new_dtype=dtypes.int64)
    bits63 = el.or_(el.shift_left(high31, _full(shape, 32, dtypes.int64)),
                    el.convert_element_type(y2, new_dtype=dtypes.int64))
    span = el.max(el.sub(hi, lo), _full(shape, 1, dtypes.int64))
    return el.convert_element_type(el.add(lo, el.rem(bits63, span)), new_dtype=dt)


def permutation(key, x_or_n, axis=0):
    """A random permutation of ``range(n)`` (int64) for an int `n`, or `x` shuffled along `axis`.

    Every slice along `axis` moves the same way. The permutation sorts random uint32 sort keys, over
    ``ceil(3 * ln(n) / ln(2**32))`` rounds (one round below n = 1625), which makes ties between keys unlikely.

    Example:
        >>> from paddle_fn import random
        >>> sorted(random.permutation(random.key(0), 5).numpy().tolist())
        [0, 1, 2, 3, 4]
    """
    if isinstance(x_or_n, (int, np.integer)) and not isinstance(x_or_n, (bool, np.bool_)):
        if x_or_n < 0:
            raise ValueError(f"permutation: n must be non-negative, got {x_or_n}")
        x, axis = st.iota(dtype=dtypes.int64, shape=(int(x_or_n),), dimension=0), 0
    else:
        x = x_or_n if isinstance(x_or_n, Tensor) else Tensor(np.asarray(x_or_n))
        shape = get_aval(x).shape
        if not shape:
            raise ShapeError("permutation: x is 0-d; pass a Python int n to permute range(n), or a Tensor of "
                             "rank >= 1")
        if not -len(shape) <= axis < len(shape):
            raise ShapeError(f"permutation: axis {axis} is out of range for x of shape {list(shape)}")
        axis %= len(shape)
    shape = get_aval(x).shape
    n = shape[axis]
    rounds = math.ceil(3 * math.log(n) / math.log(2 ** 32)) if n > 1 else 0
    for r in range(rounds):
        sort_keys = random_bits(fold_in(key, r), (n,))
        sort_keys = st.broadcast_in_dim(sort_keys, shape=shape, broadcast_dimensions=(axis,))
        _, x = sort(sort_keys, x, dimension=axis, is_stable=True, num_keys=1)
    return x


# ----------------------------------------------------------------------------------------------- Paddle style

class _GlobalKey:
    """Paddle's global generator, functionally: a key that each stateful draw splits into (next key, subkey).

    The split runs on the numpy impl of threefry2x32 so the global key stays concrete even when a draw happens
    inside a transform; it equals ``split(key)``.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self.reseed(int.from_bytes(os.urandom(8), "little"))  # what secrets.randbits reads, without its imports

    def reseed(self, n):
        with self._lock:
            self._key = _seed_words("seed", n)

    def state(self) -> Tensor:
        with self._lock:
            return Tensor(np.array(self._key, np.uint32))

    def next(self) -> Tensor:
        if _traced.stack:
            # inside a compiled program: the generator's state is a program input and splits in the program as
            # it would here, so the program draws what eager code would (see traced_global_key)
            draws = _traced.stack[-1]
            if draws.blocks:
                # inside a traced cond branch / loop body, which eager code may or may not run: a key of a
                # separate stream, so the draws after the block still match eager's
                draws.other += 1
                return fold_in(draws.key, 2 ** 31 + draws.other)
            draws.count += 1
            return draws.subkey(draws.count - 1)
        with self._lock:
            k1, k2 = self._key
            y1, y2 = threefry2x32_p.impl(np.full(2, k1), np.full(2, k2), np.zeros(2, np.uint32),
                                         np.arange(2, dtype=np.uint32))
            self._key = np.array([y1[0], y2[0]], np.uint32)
            return Tensor(np.array([y1[1], y2[1]], np.uint32))


class _TracedKeys(threading.local):
    def __init__(self):
        self.stack = []  # the _Draws of each active traced_global_key


class _Draws:
    """The key of a `traced_global_key` block and how many draws took keys from it so far."""

    def __init__(self, key):
        self.key = key
        self.count = 0  # draws eager code makes too, in order
        self.blocks = 0  # depth of traced control-flow blocks being traced (see next())
        self.other = 0  # draws inside them

    def subkey(self, i):
        """The key eager draw `i` takes from state `key`: split i times, then the second half of one more split.
        Computed from `key` each time (not carried from the previous draw), so a draw inside a cond branch or
        loop body, traced separately, leaves nothing traced behind for the next draw."""
        state = self.key
        for _ in range(i):
            state = split(state)[0]
        return split(state)[1]


_traced = _TracedKeys()
_GLOBAL = _GlobalKey()


@contextlib.contextmanager
def traced_global_key(key):
    """Inside, the Paddle-style global draws (`rand`, `randn`, dropout without a key ...) split `key` instead of
    the global generator's state, exactly as they split that state eagerly. `paddle.jit.to_static` runs the traced
    program in it with the generator's state (`global_key_state`) as a program input and afterwards advances the
    generator by the number of draws (`advance_global_key`), so a compiled Dropout draws the masks eager code would
    draw: fresh per call, and the same as eager after the same `seed`. The block's value counts the draws
    (``.count``).

    Args:
        key (Tensor): a key (``uint32[2]``), traced or concrete.

    Example:
        >>> from paddle_fn import random
        >>> random.seed(3)
        >>> with random.traced_global_key(random.global_key_state()):
        ...     a = random.rand([2])
        >>> random.seed(3)
        >>> bool((a == random.rand([2])).all())
        True
    """
    _check_key("traced_global_key", key)
    draws = _Draws(key)
    _traced.stack.append(draws)
    try:
        yield draws
    finally:
        _traced.stack.pop()


def global_key_state() -> Tensor:
    """The global generator's current state (a key), without advancing it.

    Example:
        >>> from paddle_fn import random
        >>> random.seed(1); bool((random.global_key_state() == random.key(1)).all())
        True
    """
    return _GLOBAL.state()


def advance_global_key(n):
    """Advance the global generator by `n` draws (what a compiled program that drew `n` times from its state did).

    Example:
        >>> from paddle_fn import random
        >>> random.seed(1); random.advance_global_key(1); a = random.rand([2])
        >>> random.seed(1); _ = random.rand([5]); bool((random.rand([2]) == a).all())
        True
    """
    for _ in range(int(n)):
        _GLOBAL.next()


def traced_draws():
    """The innermost active `traced_global_key` block (its ``.count`` of draws so far), or None.

    Example:
        >>> from paddle_fn import random
        >>> with random.traced_global_key(random.key(0)):
        ...     _ = random.rand([1])
        ...     n = random.traced_draws().count
        >>> n, random.traced_draws()
        (1, None)
    """
    return _traced.stack[-1] if _traced.stack else None


def global_key_is_traced() -> bool:
    """True inside `traced_global_key`: global draws are then pure functions of a program input.

    Example:
        >>> from paddle_fn import random
        >>> with random.traced_global_key(random.key(0)):
        ...     inside = random.global_key_is_traced()
        >>> inside, random.global_key_is_traced()
        (True, False)
    """
    return bool(_traced.stack)


def seed(n):
    """Set the global seed of the Paddle-style functions (rand, randn, randint, uniform, normal, randperm ...).

    Example:
        >>> from paddle_fn import random
        >>> random.seed(7); a = random.rand([3]).numpy()
        >>> random.seed(7); b = random.rand([3]).numpy()
        >>> bool((a == b).all())
        True
    """
    _GLOBAL.reseed(int(n))


def rand(shape, dtype=None, name=None):
    """Paddle's ``rand``: uniform floats in [0, 1) from the global key.

    Example:
        >>> from paddle_fn import random
        >>> random.rand([2, 3]).shape
        [2, 3]
    """
    return uniform(_GLOBAL.next(), _static_shape("rand", shape), dtype)


def randn(shape, dtype=None, name=None):
    """Paddle's ``randn``: standard normal floats from the global key.

    Example:
        >>> from paddle_fn import random
        >>> random.randn([2, 3], 'float64').dtype
        paddle.float64
    """
    return normal(_GLOBAL.next(), _static_shape("randn", shape), dtype)


def standard_normal(shape, dtype=None, name=None):
    """Paddle's ``standard_normal`` (the same as `randn`).

    Example:
        >>> from paddle_fn import random
        >>> random.standard_normal([4]).shape
        [4]
    """
    return normal(_GLOBAL.next(), _static_shape("standard_normal", shape), dtype)


def paddle_randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006 - Paddle's default
    """Paddle's ``randint``: uniform integers in [low, high), or in [0, low) when `high` is None (int64 default).

    Example:
        >>> from paddle_fn import random
        >>> x = random.paddle_randint(5, shape=[100]).numpy()
        >>> x.dtype, bool(x.min() >= 0 and x.max() < 5)
        (dtype('int64'), True)
    """
    if high is None:
        low, high = 0, low
    if not isinstance(low, Tensor) and not isinstance(high, Tensor) and high <= low:
        raise ValueError(f"randint: low must be less than high, got low={low}, high={high}")
    return randint(_GLOBAL.next(), _static_shape("randint", shape), low, high, "int64" if dtype is None else dtype)


def paddle_uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    """Paddle's ``uniform``: floats in [min, max); a nonzero `seed` draws from ``key(seed)`` instead of the global key.

    Example:
        >>> from paddle_fn import random
        >>> a = random.paddle_uniform([3], seed=5).numpy(); b = random.paddle_uniform([3], seed=5).numpy()
        >>> bool((a == b).all() and a.min() >= -1 and a.max() < 1)
        True
    """
    k = key(seed) if seed else _GLOBAL.next()
    return uniform(k, _static_shape("uniform", shape), dtype, min=min, max=max)


def paddle_normal(mean=0.0, std=1.0, shape=None, name=None):
    """Paddle's ``normal``: ``mean + std * N(0, 1)``; `mean`/`std` may be Tensors, whose shape is then used.

    Example:
        >>> from paddle_fn import random
        >>> random.paddle_normal(1.0, 2.0, [2, 2]).shape
        [2, 2]
    """
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    if tensors:
        shape = np.broadcast_shapes(*(tuple(get_aval(t).shape) for t in tensors))
        dt = get_aval(tensors[0]).dtype
    elif shape is None:
        raise ValueError("normal: give `shape` when mean and std are Python numbers, e.g. normal(0.0, 1.0, [3])")
    else:
        dt = dtypes.default_float_dtype()
    shape = _static_shape("normal", shape)
    z = normal(_GLOBAL.next(), shape, dt)
    return el.add(el.mul(z, _broadcast_operand("normal", "std", std, shape, dt)),
                  _broadcast_operand("normal", "mean", mean, shape, dt))


def randperm(n, dtype="int64", name=None):
    """Paddle's ``randperm``: a random permutation of ``range(n)``.

    Example:
        >>> from paddle_fn import random
        >>> sorted(random.randperm(6).numpy().tolist())
        [0, 1, 2, 3, 4, 5]
    """
    perm = permutation(_GLOBAL.next(), int(n))
    return el.convert_element_type(perm, new_dtype=dtypes.as_dtype(dtype))


def _like(fn, x, dtype):
    """The shape and dtype a ``*_like`` function draws: `x`'s, or `dtype`."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    return tuple(get_aval(x).shape), dtypes.as_dtype(get_aval(x).dtype if dtype is None else dtype)


def _finish(out, requires_grad):
    out.stop_gradient = not requires_grad
    return out


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):  # noqa: A002 - Paddle's name
    """Uniform floats in [0, 1) of `input`'s shape and dtype (or `dtype`), from the global key. `device` is accepted
    for Paddle's signature: results are made where every eager Tensor is.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.rand_like(paddle.zeros([2, 3], 'float64'))
        >>> x.shape, x.dtype
        ([2, 3], paddle.float64)
    """
    shape, dt = _like("rand_like", input, dtype)
    if dt.kind != "f":
        raise DTypeError(f"rand_like: draws floats, but the dtype is {dt.name}; pass dtype='float32'")
    return _finish(uniform(_GLOBAL.next(), shape, dt), requires_grad)


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """Standard normal floats of `x`'s shape and dtype (or `dtype`), from the global key; `device` as in
    `rand_like`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.randn_like(paddle.zeros([4])).shape
        [4]
    """
    shape, dt = _like("randn_like", x, dtype)
    if dt.kind != "f":
        raise DTypeError(f"randn_like: draws floats, but the dtype is {dt.name}; pass dtype='float32'")
    return _finish(normal(_GLOBAL.next(), shape, dt), requires_grad)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """Uniform integers in [low, high) (in [0, low) when `high` is None) of `x`'s shape, in `x`'s dtype (or
    `dtype`), from the global key.

    Example:
        >>> import paddle_fn as paddle
        >>> v = paddle.randint_like(paddle.zeros([50], 'int32'), 3, 6).numpy()
        >>> v.dtype, bool(v.min() >= 3 and v.max() < 6)
        (dtype('int32'), True)
    """
    shape, dt = _like("randint_like", x, dtype)
    if high is None:
        low, high = 0, low
    if high <= low:
        raise ValueError(f"randint_like: low must be less than high, got low={low}, high={high}")
    drawn = randint(_GLOBAL.next(), shape, low, high, "int64")
    return el.convert_element_type(drawn, new_dtype=dt)


PADDLE_API = {"seed": seed, "rand": rand, "randn": randn, "standard_normal": standard_normal,
              "randint": paddle_randint, "uniform": paddle_uniform, "normal": paddle_normal, "randperm": randperm,
              "rand_like": rand_like, "randn_like": randn_like, "randint_like": randint_like}
