"""`Distribution`, the base of every distribution, and the helpers the distributions share: turning parameters
into Tensors, checking them, sample shapes, and where a draw's key comes from."""
from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.core.trace import is_concrete


def _describe(value):
    if isinstance(value, paddle.Tensor):
        return f"a {value.dtype.name if hasattr(value.dtype, 'name') else value.dtype} Tensor of shape {value.shape}"
    return f"{type(value).__name__} {value!r}"


def as_float_tensors(owner, names, values, *, default_dtype=None):
    """Parameters as float Tensors of one dtype, broadcast to one shape (as Paddle's distributions take them).

    Python numbers, lists, tuples and numpy arrays become Tensors of `default_dtype` (the default float dtype;
    a float64 numpy array keeps float64) or of the dtype of the Tensors among `values`.
    """
    tensors = [v for v in values if isinstance(v, paddle.Tensor)]
    for name, v in zip(names, values):
        if isinstance(v, paddle.Tensor):
            if not paddle.is_floating_point(v):
                raise TypeError(f"{owner}: {name} must be a float Tensor (float32 or float64), got {_describe(v)}; "
                                f"cast it with .astype('float32')")
        elif isinstance(v, bool) or not isinstance(v, (numbers.Real, list, tuple, np.ndarray)):
            raise TypeError(f"{owner}: {name} must be a float, a list, a numpy array or a Tensor, got "
                            f"{type(v).__name__}")
    if tensors:
        dtype = tensors[0].dtype
    elif any(isinstance(v, np.ndarray) and v.dtype == np.float64 for v in values):
        dtype = paddle.float64
    else:
        dtype = default_dtype or paddle.get_default_dtype()
    converted = [v.astype(dtype) if isinstance(v, paddle.Tensor) else paddle.to_tensor(np.asarray(v), dtype=dtype)
                 for v in values]
    try:
        shape = np.broadcast_shapes(*(tuple(v.shape) for v in converted))
    except ValueError:
        raise ValueError(f"{owner}: the shapes of {', '.join(names)} "
                         f"({', '.join(str(v.shape) for v in converted)}) do not broadcast together") from None
    return [v if tuple(v.shape) == shape else paddle.broadcast_to(v, list(shape)) for v in converted]


def check(owner, name, value, condition, requirement):
    """Raise ValueError when a concrete parameter breaks `condition` (evaluated on its numpy value, so no check
    is staged into a traced program); traced values pass, since their numbers are known only when it runs."""
    if is_concrete(value) and not np.all(condition(value.numpy())):
        raise ValueError(f"{owner}: every element of {name} must be {requirement}, got {value.numpy()}")


def location_scale(owner, loc, scale):
    """`loc` and `scale` as float Tensors of one dtype and shape, the scale checked positive."""
    loc, scale = as_float_tensors(owner, ("loc", "scale"), (loc, scale))
    check(owner, "scale", scale, lambda s: s > 0, "positive")
    return loc, scale


def sample_shape(owner, shape):
    """A sample shape (list, tuple or int sequence) as a tuple of ints."""
    if isinstance(shape, paddle.Tensor):
        shape = shape.numpy().tolist()
    if not isinstance(shape, (Sequence, np.ndarray)) or isinstance(shape, str):
        raise TypeError(f"{owner}: the sample shape must be a sequence of ints such as [3] or (2, 2), got {shape!r}")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"{owner}: sample shape entries must be non-negative, got {list(dims)}")
    return dims


def draw_key(key):
    """The key a draw uses: the given one (JAX style), or a fresh one from the global seed (Paddle style)."""
    return random.next_global_key() if key is None else key


def sum_rightmost(value, n):
    """Sum the last `n` axes of `value`."""
    return value.sum(list(range(-n, 0))) if n > 0 else value


class Distribution:
    """The base class of the distributions: a batch of independent distributions (`batch_shape`), each over
    values of shape `event_shape`.

    Every ``sample``/``rsample`` takes the sample shape first and an optional ``key``: without it the draw takes a
    fresh key from the global seed (`paddle.seed`), as in Paddle; with ``key=`` (a key of
    `paddle_fn.random.key`) it is a pure function of the key, so the same key gives the same numbers eagerly,
    under `vmap` and under `jit`. ``sample`` results carry no gradient; ``rsample`` (where it exists) is
    reparameterized and differentiable in the parameters.

    Args:
        batch_shape (Sequence[int]): the shape of the batch of distributions.
        event_shape (Sequence[int]): the shape of one draw.

    Example:
        >>> import paddle_fn as paddle
        >>> d = paddle.distribution.Distribution(batch_shape=[2], event_shape=[3])
        >>> d.batch_shape, d.event_shape
        ((2,), (3,))
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(int(d) for d in batch_shape)
        self._event_shape = tuple(int(d) for d in event_shape)

    @property
    def batch_shape(self):
        """The shape of the batch of distributions."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of one draw."""
        return self._event_shape

    def _not_implemented(self, what):
        return NotImplementedError(f"{type(self).__name__} has no {what} (as in Paddle)")

    @property
    def mean(self):
        """The mean."""
        raise self._not_implemented("mean")

    @property
    def variance(self):
        """The variance."""
        raise self._not_implemented("variance")

    def sample(self, shape=(), *, key=None):
        """Draw samples of shape ``shape + batch_shape + event_shape`` (no gradient)."""
        raise self._not_implemented("sample")

    def rsample(self, shape=(), *, key=None):
        """Draw reparameterized samples (differentiable in the parameters)."""
        raise self._not_implemented("rsample (reparameterized sampling)")

    def entropy(self):
        """The entropy, one value per distribution of the batch."""
        raise self._not_implemented("entropy")

    def kl_divergence(self, other):
        """KL(self || other) in closed form, where the distribution has one (`kl_divergence` dispatches too)."""
        raise self._not_implemented("closed-form kl_divergence")

    def log_prob(self, value):
        """The log probability density (or mass) of `value`."""
        raise self._not_implemented("log_prob")

    def prob(self, value):
        """The probability density (or mass) of `value`: ``exp(log_prob(value))``."""
        return self.log_prob(value).exp()

    def _extend_shape(self, shape):
        """``shape + batch_shape + event_shape`` as a tuple."""
        return tuple(shape) + self._batch_shape + self._event_shape

    def _value(self, value, like):
        """`value` as a Tensor of the parameters' dtype."""
        if not isinstance(value, paddle.Tensor):
            value = paddle.to_tensor(np.asarray(value), dtype=like.dtype)
        return value if value.dtype == like.dtype else value.astype(like.dtype)

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={list(self._batch_shape)}, event_shape={list(self._event_shape)})"
