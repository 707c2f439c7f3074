"""Transforms: invertible maps with log-det-Jacobians, for `TransformedDistribution` and normalizing flows.

Each transform knows the event rank of its domain and codomain (``_domain_rank`` / ``_codomain_rank``: 0 for
elementwise maps, 1 for maps of vectors), which is how a chain of them sums log-det-Jacobians over the right axes.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence

import paddle_fn as paddle
from paddle_fn.distribution.distribution import Distribution, sum_rightmost

F = paddle.nn.functional

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform"]


class Type(enum.Enum):
    """What kind of map a transform is: only injective ones have a log-det-Jacobian."""
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"


def _tensor(owner, name, value):
    if not isinstance(value, paddle.Tensor):
        raise TypeError(f"{owner}: {name} must be a Tensor, got {type(value).__name__}")
    return value


class Transform:
    """The base class of transforms ``y = f(x)``. Calling a transform on a Tensor applies it, on a Distribution
    makes a `TransformedDistribution`, and on another transform chains the two.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.ExpTransform()
        >>> t(paddle.to_tensor([0.0, 1.0])).numpy()
        array([1.      , 2.718282], dtype=float32)
    """

    _type = Type.INJECTION
    _domain_rank = 0
    _codomain_rank = 0
    # TransformedDistribution, bound by transformed_distribution.py (which imports this module) when it loads
    _distribution_type = None

    def _is_injective(self):
        return self._type in (Type.BIJECTION, Type.INJECTION)

    def __call__(self, input):  # noqa: A002 - Paddle's name
        if isinstance(input, Distribution):
            return Transform._distribution_type(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check_rank(self, what, value, rank):
        _tensor(type(self).__name__, what, value)
        if value.ndim < rank:
            raise ValueError(f"{type(self).__name__}: {what} has {value.ndim} axes, fewer than the transform's "
                             f"event rank {rank}")

    def forward(self, x):
        """``y = f(x)``."""
        self._check_rank("x", x, self._domain_rank)
        return self._forward(x)

    def inverse(self, y):
        """``x = f^-1(y)``."""
        self._check_rank("y", y, self._codomain_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x):
        """``log |det df/dx|`` at `x`."""
        self._check_rank("x", x, self._domain_rank)
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__} is not injective: it has no forward log-det-Jacobian")
        return self._forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        """``log |det df^-1/dy|`` at `y`."""
        self._check_rank("y", y, self._codomain_rank)
        return self._inverse_log_det_jacobian(y)

    def forward_shape(self, shape):
        """The shape of ``f(x)`` for `x` of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.forward_shape: shape must be a sequence, got {shape!r}")
        return self._forward_shape(tuple(shape))

    def inverse_shape(self, shape):
        """The shape of ``f^-1(y)`` for `y` of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.inverse_shape: shape must be a sequence, got {shape!r}")
        return self._inverse_shape(tuple(shape))

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__} has no forward map")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse map")

    def _forward_log_det_jacobian(self, x):
        return -self._inverse_log_det_jacobian(self.forward(x))

    def _inverse_log_det_jacobian(self, y):
        return -self._forward_log_det_jacobian(self._inverse(y))

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """``y = |x|``; not injective, so `inverse` returns both preimages ``(-y, y)``.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.AbsTransform()
        >>> t.forward(paddle.to_tensor([-1.0, 0.0, 1.0])).numpy()
        array([1., 0., 1.], dtype=float32)
        >>> [v.numpy() for v in t.inverse(paddle.to_tensor([1.0]))]
        [array([-1.], dtype=float32), array([1.], dtype=float32)]
    """

    _type = Type.SURJECTION

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = paddle.zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """``y = loc + scale * x``.

    Args:
        loc (Tensor): the shift.
        scale (Tensor): the scale.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0))
        >>> t.forward(paddle.to_tensor([1.0, 2.0])).numpy(), t.forward_log_det_jacobian(paddle.to_tensor([1.0])).numpy()
        (array([3., 5.], dtype=float32), array(0.6931472, dtype=float32))
    """

    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        self._loc = _tensor("AffineTransform", "loc", loc)
        self._scale = _tensor("AffineTransform", "scale", scale)

    @property
    def loc(self):
        """The shift."""
        return self._loc

    @property
    def scale(self):
        """The scale."""
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return paddle.log(paddle.abs(self._scale))

    def _forward_shape(self, shape):
        return tuple(paddle.broadcast_shape(paddle.broadcast_shape(list(shape), self._loc.shape), self._scale.shape))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition of `transforms`, applied first to last.

    Example:
        >>> import paddle_fn as paddle
        >>> chain = paddle.distribution.ChainTransform((
        ...     paddle.distribution.AffineTransform(paddle.to_tensor(0.0), paddle.to_tensor(1.0)),
        ...     paddle.distribution.ExpTransform()))
        >>> chain.forward(paddle.to_tensor([0.0, 1.0])).numpy()
        array([1.      , 2.718282], dtype=float32)
    """

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence) or not all(isinstance(t, Transform) for t in transforms):
            raise TypeError(f"ChainTransform: transforms must be a sequence of Transforms, got {transforms!r}")
        self.transforms = list(transforms)

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain_rank(self):
        if not self.transforms:
            return 0
        rank = self.transforms[-1]._codomain_rank
        for t in reversed(self.transforms):
            rank = max(rank - (t._codomain_rank - t._domain_rank), t._domain_rank)
        return rank

    @property
    def _codomain_rank(self):
        if not self.transforms:
            return 0
        rank = self.transforms[0]._domain_rank
        for t in self.transforms:
            rank = max(rank + t._codomain_rank - t._domain_rank, t._codomain_rank)
        return rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value, rank = 0.0, self._domain_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x), rank - t._domain_rank)
            x = t.forward(x)
            rank += t._codomain_rank - t._domain_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class ExpTransform(Transform):
    """``y = exp(x)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.distribution.ExpTransform().inverse(paddle.to_tensor([1.0, 2.0])).numpy()
        array([0.       , 0.6931472], dtype=float32)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """`base` applied elementwise, with its log-det-Jacobian summed over the last `reinterpreted_batch_rank` axes.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.IndependentTransform(paddle.distribution.ExpTransform(), 1)
        >>> t.forward_log_det_jacobian(paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).numpy()
        array([ 6., 15.], dtype=float32)
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: base must be a Transform, got {type(base).__name__}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"IndependentTransform: reinterpreted_batch_rank must be positive, got "
                             f"{reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank

    def _is_injective(self):
        return self._base._is_injective()

    @property
    def _domain_rank(self):
        return self._base._domain_rank + self._reinterpreted_batch_rank

    @property
    def _codomain_rank(self):
        return self._base._codomain_rank + self._reinterpreted_batch_rank

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x), self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class PowerTransform(Transform):
    """``y = x ** power``.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.PowerTransform(paddle.to_tensor(2.0))
        >>> t.forward_log_det_jacobian(paddle.to_tensor([1.0, 2.0])).numpy()
        array([0.6931472, 1.3862944], dtype=float32)
    """

    _type = Type.BIJECTION

    def __init__(self, power):
        self._power = _tensor("PowerTransform", "power", power)

    @property
    def power(self):
        """The exponent."""
        return self._power

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1 / self._power)

    def _forward_log_det_jacobian(self, x):
        return paddle.log((self._power * x.pow(self._power - 1)).abs())

    def _forward_shape(self, shape):
        return tuple(paddle.broadcast_shape(list(shape), self._power.shape))

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Reshape the event from `in_event_shape` to `out_event_shape` (same number of elements).

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.ReshapeTransform((2, 3), (3, 2))
        >>> t.forward_shape((1, 2, 3)), t.forward(paddle.ones((1, 2, 3))).shape
        ((1, 3, 2), paddle.Size([1, 3, 2]))
    """

    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, Sequence) or not isinstance(out_event_shape, Sequence):
            raise TypeError(f"ReshapeTransform: the event shapes must be sequences of ints, got {in_event_shape!r} "
                            f"and {out_event_shape!r}")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise ValueError(f"ReshapeTransform: {tuple(in_event_shape)} and {tuple(out_event_shape)} hold different "
                             f"numbers of elements")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)

    @property
    def in_event_shape(self):
        """The event shape of x."""
        return self._in_event_shape

    @property
    def out_event_shape(self):
        """The event shape of y."""
        return self._out_event_shape

    @property
    def _domain_rank(self):
        return len(self._in_event_shape)

    @property
    def _codomain_rank(self):
        return len(self._out_event_shape)

    def _forward(self, x):
        return x.reshape(list(x.shape[:x.ndim - len(self._in_event_shape)]) + list(self._out_event_shape))

    def _inverse(self, y):
        return y.reshape(list(y.shape[:y.ndim - len(self._out_event_shape)]) + list(self._in_event_shape))

    def _swap_event(self, shape, old, new):
        if len(shape) < len(old) or tuple(shape[len(shape) - len(old):]) != old:
            raise ValueError(f"ReshapeTransform: shape {tuple(shape)} does not end with the event shape {old}")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_shape(self, shape):
        return self._swap_event(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape):
        return self._swap_event(shape, self._out_event_shape, self._in_event_shape)

    def _forward_log_det_jacobian(self, x):
        return paddle.zeros(x.shape[:x.ndim - len(self._in_event_shape)], dtype=x.dtype)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.distribution.SigmoidTransform().forward_log_det_jacobian(paddle.to_tensor([0.0])).numpy()
        array([-1.3862944], dtype=float32)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last axis; not injective (adding a constant does not change y), so it has no
    log-det-Jacobian, and `inverse` gives ``log(y)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.distribution.SoftmaxTransform().forward(paddle.ones((1, 2))).numpy()
        array([[0.5, 0.5]], dtype=float32)
    """

    _type = Type.OTHER
    _domain_rank = 1
    _codomain_rank = 1

    def _forward(self, x):
        e = (x - x.max(-1, keepdim=True)).exp()
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("SoftmaxTransform: shapes need at least one axis")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """Apply ``transforms[i]`` to slice i along `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.distribution.StackTransform(
        ...     (paddle.distribution.ExpTransform(), paddle.distribution.PowerTransform(paddle.to_tensor(2.0))), 1)
        >>> t.forward(paddle.to_tensor([[1.0, 1.0], [2.0, 2.0]])).numpy()
        array([[2.718282 , 1.       ],
               [7.3890557, 4.       ]], dtype=float32)
    """

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, Sequence) or not all(isinstance(t, Transform)
                                                                               for t in transforms):
            raise TypeError(f"StackTransform: transforms must be a non-empty sequence of Transforms, got "
                            f"{transforms!r}")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"StackTransform: axis must be an int, got {axis!r}")
        self._transforms = list(transforms)
        self._axis = axis

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        """The transforms, one per slice."""
        return self._transforms

    @property
    def axis(self):
        """The axis the slices are taken along."""
        return self._axis

    def _each(self, method, v):
        if not -v.ndim <= self._axis < v.ndim:
            raise ValueError(f"StackTransform: axis {self._axis} is out of range for {v.ndim} axes")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"StackTransform: axis {self._axis} has {v.shape[self._axis]} slices but there are "
                             f"{len(self._transforms)} transforms")
        return paddle.stack([getattr(t, method)(s) for s, t in zip(paddle.unstack(v, self._axis), self._transforms)],
                            self._axis)

    def _forward(self, x):
        return self._each("forward", x)

    def _inverse(self, y):
        return self._each("inverse", y)

    def _forward_log_det_jacobian(self, x):
        return self._each("forward_log_det_jacobian", x)


class StickBreakingTransform(Transform):
    """Map a vector of K - 1 reals to a point of the K-simplex by stick breaking.

    Example:
        >>> import paddle_fn as paddle
        >>> y = paddle.distribution.StickBreakingTransform().forward(paddle.to_tensor([1.0, 2.0, 3.0]))
        >>> y.shape, round(float(y.sum()), 6)
        (paddle.Size([4]), 1.0)
    """

    _type = Type.BIJECTION
    _domain_rank = 1
    _codomain_rank = 1

    @staticmethod
    def _offset(n, dtype):
        return paddle.arange(n, 0, -1, dtype=dtype)  # n, n - 1, ..., 1

    def _forward(self, x):
        z = F.sigmoid(x - paddle.log(self._offset(x.shape[-1], x.dtype)))
        remaining = (1 - z).cumprod(-1)
        ones = paddle.ones(list(x.shape[:-1]) + [1], dtype=x.dtype)
        return paddle.concat([z, ones], -1) * paddle.concat([ones, remaining], -1)

    def _inverse(self, y):
        crop = y[..., :-1]
        left = 1 - crop.cumsum(-1)
        return crop.log() - left.log() + paddle.log(self._offset(crop.shape[-1], y.dtype))

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        shifted = x - paddle.log(self._offset(x.shape[-1], x.dtype))
        return (-shifted + F.log_sigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform: shapes need at least one axis")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform: shapes need at least one axis")
        return (*shape[:-1], shape[-1] - 1)


class TanhTransform(Transform):
    """``y = tanh(x)``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.distribution.TanhTransform().forward_log_det_jacobian(paddle.to_tensor([0.0])).numpy()
        array([0.], dtype=float32)
    """

    _type = Type.BIJECTION

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
