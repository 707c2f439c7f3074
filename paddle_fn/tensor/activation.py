"""Activation functions (also exposed by `paddle.nn.functional`): relu, relu6, gelu, silu, softplus,
leaky_relu, elu, softmax, log_softmax."""
from __future__ import annotations

import math

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axis, shape_of, write_out
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand, real_operand

__all__ = ["relu", "relu6", "gelu", "silu", "softplus", "leaky_relu", "elu", "softmax", "log_softmax"]


def relu(x, name=None):
    """max(x, 0); the derivative at 0 is 0, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.relu(paddle.to_tensor([-1., 0., 2.])).numpy()
        array([0., 0., 2.], dtype=float32)
    """
    x = real_operand("relu", x)
    zero = st.full_like(x, 0)
    return ew.select(ew.gt(x, zero), x, zero)


def relu6(x, name=None):
    """min(max(x, 0), 6).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.relu6(paddle.to_tensor([-1., 3., 8.])).numpy()
        array([0., 3., 6.], dtype=float32)
    """
    x = real_operand("relu6", x)
    return ew.select(ew.gt(x, st.full_like(x, 6)), st.full_like(x, 6), relu(x))


def gelu(x, approximate=False, name=None):
    """x * Phi(x) with the Gaussian CDF Phi; the tanh approximation with ``approximate=True`` or ``'tanh'``
    (Paddle 3's strings: ``'none'`` is the exact form).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.gelu(paddle.to_tensor([0., 1.])).numpy()
        array([0.       , 0.8413447], dtype=float32)
        >>> paddle.gelu(paddle.to_tensor([1.]), approximate='tanh').numpy()
        array([0.841192], dtype=float32)
    """
    if isinstance(approximate, str):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be a bool, 'none' or 'tanh', got {approximate!r}")
        approximate = approximate == "tanh"
    x = float_operand("gelu", x)
    half_x = ew.mul(st.full_like(x, 0.5), x)
    if approximate:
        cubic = ew.mul(st.full_like(x, 0.044715), ew.integer_pow(x, y=3))
        inner = ew.mul(st.full_like(x, math.sqrt(2.0 / math.pi)), ew.add(x, cubic))
        return ew.mul(half_x, ew.add(st.full_like(x, 1.0), ew.tanh(inner)))
    return ew.mul(half_x, ew.add(st.full_like(x, 1.0), ew.erf(ew.mul(x, st.full_like(x, 1.0 / math.sqrt(2.0))))))


def silu(x, inplace=False, name=None):
    """x * sigmoid(x). ``inplace=True`` also rebinds the Tensor `x` to the result, as Paddle's in-place form
    updates its input (values are never written; see paddle_fn.tensor.inplace).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.silu(paddle.to_tensor([0., 1.])).numpy()
        array([0.       , 0.7310586], dtype=float32)
        >>> x = paddle.to_tensor([1.0])
        >>> _ = paddle.silu(x, inplace=True); x.numpy()
        array([0.7310586], dtype=float32)
    """
    v = float_operand("silu", x)
    out = ew.mul(v, ew.logistic(v))
    if inplace:
        if not isinstance(x, Tensor):
            raise TypeError(f"silu: inplace=True needs a Tensor to update, got {type(x).__name__}")
        x._rebind(out)
        return x
    return out


def softplus(x, beta=1, threshold=20, name=None):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.softplus(paddle.to_tensor([0.])).numpy()
        array([0.6931472], dtype=float32)
    """
    x = float_operand("softplus", x)
    bx = ew.mul(x, st.full_like(x, beta))
    linear = ew.gt(bx, st.full_like(x, threshold))
    safe = ew.select(linear, st.full_like(x, 0), bx)  # keeps exp from overflowing in the branch that is not taken
    return ew.select(linear, x, ew.div(ew.log1p(ew.exp(safe)), st.full_like(x, beta)))


def leaky_relu(x, negative_slope=0.01, name=None):
    """x where x > 0, else negative_slope * x.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.leaky_relu(paddle.to_tensor([-2., 2.]), 0.1).numpy()
        array([-0.2,  2. ], dtype=float32)
    """
    x = as_tensor(x)
    return ew.select(ew.gt(x, st.full_like(x, 0)), x, ew.mul(x, st.full_like(x, negative_slope)))


def elu(x, alpha=1.0, name=None):
    """x where x > 0, else alpha * (exp(x) - 1).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.elu(paddle.to_tensor([-1., 1.])).numpy()
        array([-0.63212055,  1.        ], dtype=float32)
    """
    x = float_operand("elu", x)
    positive = ew.gt(x, st.full_like(x, 0))
    safe = ew.select(positive, st.full_like(x, 0), x)
    return ew.select(positive, x, ew.mul(st.full_like(x, alpha), ew.expm1(safe)))


def _shifted(x, axis):
    a = get_aval(x)
    ax = normalize_axis("softmax", axis, a.ndim)
    kept = tuple(i for i in range(a.ndim) if i != ax)
    m = red.reduce_max(x, axes=(ax,))
    # the shift only guards exp against overflow: an infinite max would turn into nan, so shift by 0 there. The
    # result does not depend on the shift, so no derivative flows through it (that would be the max's derivative,
    # summing to zero at the cost of a compare, a count and a division per row in every softmax gradient)
    m = ew.stop_gradient(ew.select(ew.is_finite(m), m, st.full(shape_of(m), 0, a.dtype)))
    return ew.sub(x, st.broadcast_in_dim(m, shape=a.shape, broadcast_dimensions=kept)), ax, kept


def _prepare(op, x, dtype):
    x = as_tensor(x)
    if dtype is not None:
        x = cast(x, dtypes.as_dtype(dtype))
    return float_operand(op, x)


def _over_one_axis(x, axis, normalized):
    """Apply `normalized(shifted, ax, kept)` along `axis`; a 0-D input is treated as one element and stays 0-D."""
    shape = shape_of(x)
    if not shape:
        x = st.reshape(x, new_sizes=(1,))
    s, ax, kept = _shifted(x, axis)
    return st.reshape(normalized(s, ax, kept), new_sizes=shape) if not shape else normalized(s, ax, kept)


# Paddle's CPU softmax kernels clip each x - max(x) at -64 (their ValueClip) before the exponential; their
# gradients are those of the unclipped functions. So softmax never gives an exact 0, log_softmax and the cross
# entropies built on it stop at 64 above the log-sum-exp.
_SHIFT_FLOOR = -64.0


def _floored(shifted):
    """`shifted` clipped below at -64, with the gradient of `shifted` itself (a masked -inf gets -64 and no
    gradient)."""
    floor = st.full_like(shifted, _SHIFT_FLOOR)
    clipped = ew.select(ew.lt(shifted, floor), floor, shifted)
    finite = ew.select(ew.is_finite(shifted), shifted, st.full_like(shifted, 0.0))
    return ew.add(finite, ew.stop_gradient(ew.sub(clipped, finite)))


def softmax(x, axis=-1, dtype=None, name=None, *, out=None):
    """exp(x) / sum(exp(x)) along `axis`, computed stably; as Paddle's kernel, each x - max(x) is clipped at -64
    first (so an entry 64 or more below the maximum gets exp(-64) relative weight, not 0), with the gradient of
    the unclipped softmax. `out` (Paddle 3.3), a Tensor made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.softmax(paddle.to_tensor([0., 0.])).numpy()
        array([0.5, 0.5], dtype=float32)
    """
    def normalized(s, ax, kept):
        e = ew.exp(_floored(s))
        return ew.div(e, st.broadcast_in_dim(red.reduce_sum(e, axes=(ax,)), shape=shape_of(s), broadcast_dimensions=kept))
    return write_out(_over_one_axis(_prepare("softmax", x, dtype), axis, normalized), out)


def log_softmax(x, axis=-1, dtype=None, name=None):
    """x - logsumexp(x) along `axis`, computed stably, with x - max(x) clipped at -64 as Paddle's kernel does (so
    no entry is below about -64 - log(n)); the gradient is the unclipped one.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.log_softmax(paddle.to_tensor([0., 0.])).numpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """
    def normalized(s, ax, kept):
        s = _floored(s)
        lse = ew.log(red.reduce_sum(ew.exp(s), axes=(ax,)))
        return ew.sub(s, st.broadcast_in_dim(lse, shape=shape_of(s), broadcast_dimensions=kept))
    return _over_one_axis(_prepare("log_softmax", x, dtype), axis, normalized)
