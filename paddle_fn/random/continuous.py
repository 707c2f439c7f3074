"""Samplers that transform one uniform draw, written as JAX writes them so the same key gives JAX's numbers:
`exponential`, `laplace`, `logistic`, `gumbel`, `cauchy`, and `categorical` and `choice` (Gumbel-max and inverse-CDF
selections on top of them)."""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as el
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import reduce_sum
from paddle_fn.random import xla_math
from paddle_fn.random.keys import _float_dtype, _full, _static_shape
from paddle_fn.random.samplers import _as_operand, _take, _uniform, permutation, randint


def _draw(fn, key, shape, dtype, minval, maxval):
    dt = _float_dtype(fn, dtype)
    shape = _static_shape(fn, shape)
    return _uniform(fn, key, shape, dt, minval(dt), maxval), shape, dt


def exponential(key, shape=(), dtype=None):
    """Exponential floats with rate 1: ``-log1p(-u)`` for u uniform in [0, 1), as JAX.

    Example:
        >>> from paddle_fn import random
        >>> x = random.exponential(random.key(0), [10000], 'float64').numpy()
        >>> bool(x.min() >= 0 and abs(x.mean() - 1) < 0.05)
        True
    """
    u, shape, dt = _draw("exponential", key, shape, dtype, lambda dt: 0.0, 1.0)
    return el.neg(xla_math.log1p(el.neg(u)))


def laplace(key, shape=(), dtype=None):
    """Laplace floats (density ``exp(-|x|) / 2``): ``sign(u) * log1p(-|u|)`` for u uniform in (-1, 1), as JAX.

    Example:
        >>> from paddle_fn import random
        >>> x = random.laplace(random.key(0), [10000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.05 and abs(x.var() - 2) < 0.2)
        True
    """
    u, shape, dt = _draw("laplace", key, shape, dtype, lambda dt: -1.0 + float(dtypes.finfo(dt).epsneg), 1.0)
    return el.mul(el.sign(u), xla_math.log1p(el.neg(el.abs(u))))


def logistic(key, shape=(), dtype=None):
    """Logistic floats: ``log(u) - log1p(-u)`` for u uniform in [tiny, 1), as JAX.

    Example:
        >>> from paddle_fn import random
        >>> x = random.logistic(random.key(0), [10000], 'float64').numpy()
        >>> bool(abs(x.mean()) < 0.1)
        True
    """
    u, shape, dt = _draw("logistic", key, shape, dtype, lambda dt: float(dtypes.finfo(dt).tiny), 1.0)
    return el.sub(xla_math.log(u), xla_math.log1p(el.neg(u)))


def gumbel(key, shape=(), dtype=None):
    """Standard Gumbel floats: ``-log(-log(u))`` for u uniform in [tiny, 1), as JAX's default ("low") mode.

    Example:
        >>> from paddle_fn import random
        >>> x = random.gumbel(random.key(0), [10000], 'float64').numpy()
        >>> bool(abs(x.mean() - 0.5772) < 0.05)
        True
    """
    u, shape, dt = _draw("gumbel", key, shape, dtype, lambda dt: float(dtypes.finfo(dt).tiny), 1.0)
    return el.neg(xla_math.log(el.neg(xla_math.log(u))))


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy floats: ``tan(pi * (u - 0.5))`` for u uniform in [eps, 1), as JAX (the tangent correctly
    rounded, which glibc's tanf, the one JAX calls, is not always: see docs/random.md).

    Example:
        >>> from paddle_fn import random
        >>> x = random.cauchy(random.key(0), [10001], 'float64').numpy()
        >>> bool(abs(float(sorted(x)[5000])) < 0.1)
        True
    """
    u, shape, dt = _draw("cauchy", key, shape, dtype, lambda dt: float(dtypes.finfo(dt).eps), 1.0)
    return xla_math.tan(el.mul(_full(shape, math.pi, dt), el.sub(u, _full(shape, 0.5, dt))))


def categorical(key, logits, axis=-1, shape=None):
    """Indices drawn with probabilities ``softmax(logits, axis)``: the Gumbel-max trick, ``argmax(logits +
    gumbel)``, as JAX (int32 indices). `shape` defaults to logits' shape without `axis`; a longer shape draws more
    samples, its trailing dims matching that batch shape.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> idx = random.categorical(random.key(0), paddle.log(paddle.to_tensor([0.2, 0.8])), shape=[1000]).numpy()
        >>> bool(abs(idx.mean() - 0.8) < 0.05)
        True
    """
    logits = _as_operand(logits)
    a = get_aval(logits)
    if a.ndim == 0:
        raise ShapeError("categorical: logits is 0-d; it needs an axis of categories")
    if not -a.ndim <= axis < a.ndim:
        raise ShapeError(f"categorical: axis {axis} is out of range for logits of shape {list(a.shape)}")
    axis %= a.ndim
    batch = tuple(d for i, d in enumerate(a.shape) if i != axis)
    shape = batch if shape is None else _static_shape("categorical", shape)
    if shape[len(shape) - len(batch):] != batch:
        raise ShapeError(f"categorical: shape {list(shape)} must end with the batch shape {list(batch)} (logits "
                         f"{list(a.shape)} without axis {axis})")
    prefix = shape[:len(shape) - len(batch)]
    draw_shape = prefix + a.shape
    g = gumbel(key, draw_shape, a.dtype)
    expanded = st.broadcast_in_dim(logits, shape=draw_shape,
                                   broadcast_dimensions=tuple(range(len(prefix), len(draw_shape))))
    return red.argmax(el.add(g, expanded), axis=len(prefix) + axis, index_dtype=dtypes.int32)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Draw from ``range(a)`` (an int) or from the slices of `a` along `axis`, with or without replacement, with
    probabilities `p` (default: uniform), as JAX: ``randint`` or ``permutation`` without `p`; with `p`, inverse-CDF
    sampling (with replacement) or the Gumbel top-k trick (without).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn import random
        >>> sorted(random.choice(random.key(0), 5, [5], replace=False).numpy().tolist())
        [0, 1, 2, 3, 4]
        >>> random.choice(random.key(0), paddle.to_tensor([10., 20.]), [3], p=paddle.to_tensor([0., 1.])).tolist()
        [20.0, 20.0, 20.0]
    """
    shape = _static_shape("choice", shape)
    scalar = isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))
    arr = None if scalar else _as_operand(a)
    if arr is not None and get_aval(arr).ndim == 0:
        raise ShapeError("choice: a is 0-d; pass a Python int n to choose from range(n), or a Tensor of rank >= 1")
    if arr is not None and not -get_aval(arr).ndim <= axis < get_aval(arr).ndim:
        raise ShapeError(f"choice: axis {axis} is out of range for a of shape {list(get_aval(arr).shape)}")
    n = int(a) if scalar else get_aval(arr).shape[axis % get_aval(arr).ndim]
    axis = 0 if scalar else axis % get_aval(arr).ndim
    draws = math.prod(shape)
    if not replace and draws > n:
        raise ValueError(f"choice: cannot take {draws} samples from a population of {n} without replacement "
                         "(replace=False)")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n)
        else:
            ind = st.slice(permutation(key, n), start_indices=(0,), limit_indices=(draws,))
    else:
        p = _as_operand(p)
        if tuple(get_aval(p).shape) != (n,):
            raise ShapeError(f"choice: p must be a 1-D Tensor of {n} probabilities (the population size), got "
                             f"shape {list(get_aval(p).shape)}")
        p = el.convert_element_type(p, new_dtype=_float_dtype("choice", get_aval(p).dtype))
        ind = _weighted_choice(key, p, shape, draws, replace)
    flat = st.reshape(ind, new_sizes=(draws,))
    if scalar:
        return st.reshape(flat, new_sizes=shape)
    out = _take(arr, flat, axis)
    ashape = get_aval(arr).shape
    return st.reshape(out, new_sizes=ashape[:axis] + shape + ashape[axis + 1:])


def _weighted_choice(key, p, shape, draws, replace):
    dt = get_aval(p).dtype
    n = get_aval(p).shape[0]
    if replace:
        cdf = red.cumsum(p, axis=0)
        total = st.reshape(st.slice(cdf, start_indices=(n - 1,), limit_indices=(n,)), new_sizes=())
        u = _uniform("choice", key, shape, dt, 0.0, 1.0)
        r = el.mul(st.broadcast_in_dim(total, shape=shape, broadcast_dimensions=()), el.sub(_full(shape, 1.0, dt), u))
        # searchsorted(cdf, r, side='left'): how many cdf entries are below r
        below = el.lt(st.broadcast_in_dim(cdf, shape=shape + (n,), broadcast_dimensions=(len(shape),)),
                      st.broadcast_in_dim(r, shape=shape + (n,), broadcast_dimensions=tuple(range(len(shape)))))
        return reduce_sum(el.convert_element_type(below, new_dtype=dtypes.int32), axes=(len(shape),))
    scores = el.add(gumbel(key, (n,), dt), xla_math.log(p))
    # top_k: the indices of the largest scores, the lower index first on ties
    _, order = red.sort(el.neg(scores), st.iota(dtype=dtypes.int32, shape=(n,), dimension=0), dimension=0,
                        is_stable=True, num_keys=1)
    return st.slice(order, start_indices=(0,), limit_indices=(draws,))

