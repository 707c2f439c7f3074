"""Paddle's global-seed random functions, drawn from a global key that each call splits (`seed`, `rand`, `randn`,
...), and `traced_global_key`, which makes that key a program input under `to_static`."""
from __future__ import annotations

import contextlib
import os
import threading

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import structural as st
from paddle_fn.prims.complex_parts import part_dtype
from paddle_fn.prims.random_bits import threefry2x32_p
from paddle_fn.prims.reduction import sort

_MASK32 = 0xFFFFFFFF


from paddle_fn.random.keys import (_broadcast_operand, _check_key, _seed_words, _static_shape, fold_in, key, split)
from paddle_fn.random.continuous import categorical, gumbel
from paddle_fn.random.discrete import binomial as _binomial
from paddle_fn.random.discrete import poisson as _poisson
from paddle_fn.random.gamma_samplers import gamma
from paddle_fn.random.samplers import (complex_of_pairs, is_complex_dtype, normal_fast, permutation, randint,
                                      uniform)


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

    def restore(self, words):
        with self._lock:
            self._key = np.array(words, np.uint32)

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


def next_global_key() -> Tensor:
    """A fresh key split from the global generator, advancing it as one Paddle-style draw does (inside
    `traced_global_key`, a subkey of the traced key). Code that draws with explicit keys uses it when no key is
    given, so ``seed(n)`` makes it reproducible.

    Example:
        >>> from paddle_fn import random
        >>> random.seed(4); a = random.uniform(random.next_global_key(), [2])
        >>> random.seed(4); bool((random.rand([2]) == a).all())
        True
    """
    return _GLOBAL.next()


def seed(seed):
    """Set the global seed of the Paddle-style functions (rand, randn, randint, uniform, normal, randperm ...).

    Example:
        >>> from paddle_fn import random
        >>> random.seed(7); a = random.rand([3]).numpy()
        >>> random.seed(7); b = random.rand([3]).numpy()
        >>> bool((a == b).all())
        True
    """
    _GLOBAL.reseed(int(seed))


def rand(shape, dtype=None, name=None):
    """Paddle's ``rand``: uniform floats in [0, 1) from the global key; a complex dtype draws the real and
    imaginary parts independently in [0, 1), as Paddle 3.3.1 does.

    Example:
        >>> from paddle_fn import random
        >>> random.rand([2, 3]).shape
        paddle.Size([2, 3])
        >>> random.rand([2], 'complex64').dtype
        paddle.complex64
    """
    shape = _static_shape("rand", shape)
    if is_complex_dtype(dtype):
        return complex_of_pairs(uniform(_GLOBAL.next(), (2,) + shape, part_dtype(dtype)))
    return uniform(_GLOBAL.next(), shape, dtype)


def randn(shape, dtype=None, name=None):
    """Paddle's ``randn``: standard normal floats from the global key.

    Example:
        >>> from paddle_fn import random
        >>> random.randn([2, 3], 'float64').dtype
        paddle.float64
    """
    return normal_fast(_GLOBAL.next(), _static_shape("randn", shape), dtype)


def standard_normal(shape, dtype=None, name=None):
    """Paddle's ``standard_normal`` (the same as `randn`).

    Example:
        >>> from paddle_fn import random
        >>> random.standard_normal([4]).shape
        paddle.Size([4])
    """
    return normal_fast(_GLOBAL.next(), _static_shape("standard_normal", shape), dtype)


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


def paddle_uniform(shape, dtype=None, min=0, max=1.0, seed=0, name=None):  # noqa: A002
    """Paddle's ``uniform``: floats in [min, max), [0, 1) by default (Paddle 3.3's defaults; Paddle 2 drew from
    [-1, 1)); a nonzero `seed` draws from ``key(seed)`` instead of the global key.

    Example:
        >>> from paddle_fn import random
        >>> a = random.paddle_uniform([3], seed=5).numpy(); b = random.paddle_uniform([3], seed=5).numpy()
        >>> bool((a == b).all() and a.min() >= 0 and a.max() < 1)
        True
    """
    k = key(seed) if seed else _GLOBAL.next()
    return uniform(k, _static_shape("uniform", shape), dtype, min=min, max=max)


def paddle_normal(mean=0.0, std=1.0, shape=None, name=None):
    """Paddle's ``normal``: ``mean + std * N(0, 1)``; `mean`/`std` may be Tensors, whose shape is then used.

    Example:
        >>> from paddle_fn import random
        >>> random.paddle_normal(1.0, 2.0, [2, 2]).shape
        paddle.Size([2, 2])
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
    z = normal_fast(_GLOBAL.next(), shape, dt)
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
        (paddle.Size([2, 3]), paddle.float64)
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
        paddle.Size([4])
    """
    shape, dt = _like("randn_like", x, dtype)
    if dt.kind != "f":
        raise DTypeError(f"randn_like: draws floats, but the dtype is {dt.name}; pass dtype='float32'")
    return _finish(normal_fast(_GLOBAL.next(), shape, dt), requires_grad)


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


def _float_tensor(fn, x):
    if not isinstance(x, Tensor) or get_aval(x).dtype.kind != "f":
        raise DTypeError(f"{fn}: x must be a float Tensor, got "
                         f"{get_aval(x).str_short() if isinstance(x, Tensor) else type(x).__name__}")
    return get_aval(x)


def paddle_poisson(x, name=None):
    """Paddle's ``poisson``: a Poisson draw for each rate in `x`, as floats of x's dtype, from the global key.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> y = paddle.poisson(paddle.full([2000], 3.0))
        >>> y.dtype, bool(abs(float(y.mean()) - 3) < 0.2)
        (paddle.float32, True)
    """
    a = _float_tensor("poisson", x)
    return el.convert_element_type(_poisson(_GLOBAL.next(), x, None, "int64"), new_dtype=a.dtype)


def paddle_bernoulli(x, p=None, name=None):
    """Paddle's ``bernoulli``: 1.0 with probability `x` (elementwise), else 0.0, in x's dtype; with `p`, every
    element has probability `p` and `x` gives only the shape and dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> paddle.bernoulli(paddle.to_tensor([0.0, 1.0, 1.0])).numpy()
        array([0., 1., 1.], dtype=float32)
    """
    a = _float_tensor("bernoulli", x)
    probs = x if p is None else st.broadcast_in_dim(Tensor(np.asarray(p, a.dtype.np)), shape=a.shape,
                                                      broadcast_dimensions=())
    u = uniform(_GLOBAL.next(), a.shape, a.dtype)
    return el.convert_element_type(el.lt(u, probs), new_dtype=a.dtype)


def paddle_multinomial(x, num_samples=1, replacement=False, name=None, *, out=None):
    """Paddle's ``multinomial``: `num_samples` category indices (int64) per row of the (unnormalized)
    probabilities `x` (1-D or 2-D); without `replacement` the indices of a row differ (Gumbel top-k).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> sorted(paddle.multinomial(paddle.to_tensor([0.2, 0.3, 0.5]), 3).numpy().tolist())
        [0, 1, 2]
    """
    a = _float_tensor("multinomial", x)
    if a.ndim not in (1, 2):
        raise ValueError(f"multinomial: x must be 1-D or 2-D (a row of probabilities each), got shape {list(a.shape)}")
    n = a.shape[-1]
    if not replacement and num_samples > n:
        raise ValueError(f"multinomial: num_samples ({num_samples}) exceeds the number of categories ({n}); "
                         "pass replacement=True to draw more")
    logits = el.log(x)
    if replacement:
        drawn = el.convert_element_type(categorical(_GLOBAL.next(), logits, axis=-1, shape=(num_samples,) + a.shape[:-1]),
                                        new_dtype=dtypes.int64)  # Paddle's indices are int64, JAX's int32
        return drawn if a.ndim == 1 else st.transpose(drawn, permutation=(1, 0))
    # the num_samples largest of logits + Gumbel noise are a draw without replacement
    noisy = el.neg(el.add(logits, gumbel(_GLOBAL.next(), a.shape, a.dtype)))
    order = st.broadcast_in_dim(st.iota(dtype=dtypes.int64, shape=(n,), dimension=0), shape=a.shape,
                                broadcast_dimensions=(a.ndim - 1,))
    _, order = sort(noisy, order, dimension=a.ndim - 1, is_stable=True, num_keys=1)
    return st.slice(order, start_indices=(0,) * a.ndim, limit_indices=a.shape[:-1] + (num_samples,))


def standard_gamma(x, name=None):
    """Paddle's ``standard_gamma``: a Gamma(x, 1) draw for each concentration in `x`, from the global key
    (differentiable in `x`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> y = paddle.standard_gamma(paddle.full([2000], 2.0))
        >>> bool(abs(float(y.mean()) - 2) < 0.15)
        True
    """
    _float_tensor("standard_gamma", x)
    return gamma(_GLOBAL.next(), x)


def paddle_binomial(count, prob, name=None):
    """Paddle's ``binomial``: a Binomial(count, prob) draw per element (int64), from the global key.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> y = paddle.binomial(paddle.to_tensor([10, 0]), paddle.to_tensor([0.5, 0.5]))
        >>> y.dtype, int(y[1])
        (paddle.int64, 0)
    """
    _float_tensor("binomial", prob)
    drawn = _binomial(_GLOBAL.next(), count, prob)
    return el.convert_element_type(drawn, new_dtype=dtypes.int64)


def get_rng_state(device=None):
    """Paddle's ``get_rng_state``: the global generator's state, a list with its key (for `set_rng_state`).

    Example:
        >>> import paddle_fn as paddle
        >>> state = paddle.get_rng_state(); a = paddle.rand([2])
        >>> paddle.set_rng_state(state); bool((paddle.rand([2]) == a).all())
        True
    """
    return [global_key_state()]


def set_rng_state(state_list, device=None):
    """Paddle's ``set_rng_state``: restore a state that `get_rng_state` returned.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.set_rng_state(paddle.get_rng_state())
    """
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1:
        raise ValueError("set_rng_state: pass the list get_rng_state() returned (one state per device; paddle_fn "
                         f"has one generator), got {state_list!r}")
    _check_key("set_rng_state", state_list[0])
    _GLOBAL.restore(np.asarray(state_list[0].numpy(), np.uint32))


PADDLE_API = {"seed": seed, "rand": rand, "randn": randn, "standard_normal": standard_normal,
              "randint": paddle_randint, "uniform": paddle_uniform, "normal": paddle_normal, "randperm": randperm,
              "rand_like": rand_like, "randn_like": randn_like, "randint_like": randint_like, "poisson": paddle_poisson,
              "bernoulli": paddle_bernoulli, "multinomial": paddle_multinomial, "standard_gamma": standard_gamma,
              "binomial": paddle_binomial, "get_rng_state": get_rng_state, "set_rng_state": set_rng_state,
              "get_cuda_rng_state": get_rng_state, "set_cuda_rng_state": set_rng_state}
