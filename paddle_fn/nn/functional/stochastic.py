"""Paddle 3's random activations and channel dropouts: `rrelu` (a random leaky slope per element in training),
`gumbel_softmax` (a differentiable sample of a categorical), `feature_alpha_dropout` and `dropout1d`. As with
`dropout`, the randomness comes from the global Paddle-style RNG eagerly, or from an explicit `key` (a
paddle_fn.random key), which makes the result a pure function of it, so it works under jit and vmap.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn import random
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.creation import to_tensor
from paddle_fn.tensor.manipulation import moveaxis, where
from paddle_fn.tensor.promotion import as_tensor, float_operand
from paddle_fn.tensor.search import argmax
from paddle_fn.nn.functional.activation import softmax
from paddle_fn.nn.functional.common import _global_rng_allowed, dropout, selu_dropout
from paddle_fn.nn.functional.input import one_hot
from paddle_fn.prims.elementwise import stop_gradient

__all__ = ["rrelu", "gumbel_softmax", "feature_alpha_dropout", "dropout1d", "class_center_sample"]


def _uniform(op, x, shape, low, high, key):
    """Uniform draws in [low, high) of `shape` in x's dtype, from `key` or the global RNG."""
    dtype = get_aval(x).dtype
    if key is None:
        _global_rng_allowed(op, x)
        return random.paddle_uniform(list(shape), dtype=dtype, min=low, max=high)
    return random.uniform(key, tuple(shape), dtype=dtype, min=low, max=high)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None, *, key=None):
    """Randomized leaky ReLU: ``x`` where x >= 0, else ``a * x`` with a slope a drawn uniformly from
    [lower, upper) for each element in training, and ``(lower + upper) / 2`` in inference.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.rrelu(paddle.to_tensor([1.0, -1.0]), training=False).numpy()
        array([ 1.        , -0.22916667], dtype=float32)
    """
    x = float_operand("rrelu", x)
    if not 0 <= lower <= upper <= 1:
        raise ValueError(f"rrelu: expected 0 <= lower <= upper <= 1, got lower={lower}, upper={upper}")
    if training:
        slope = _uniform("rrelu", x, get_aval(x).shape, lower, upper, key)
    else:
        slope = (lower + upper) / 2
    return where(x >= 0, x, x * slope)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None, *, key=None):
    """A differentiable sample of the categorical distribution with logits `x` along `axis`: ``softmax((x + g) /
    temperature)`` with Gumbel noise g; ``hard=True`` returns the one-hot of its argmax, with the soft sample's
    gradient (the straight-through estimator).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> from paddle_fn import random
        >>> y = F.gumbel_softmax(paddle.to_tensor([[1.0, 2.0, 3.0]]), hard=True, key=random.key(0))
        >>> y.sum().item(), sorted(y.numpy().reshape(-1).tolist())
        (1.0, [0.0, 0.0, 1.0])
    """
    x = float_operand("gumbel_softmax", x)
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    tiny = float(np.finfo(get_aval(x).dtype.np).tiny)
    u = _uniform("gumbel_softmax", x, get_aval(x).shape, tiny, 1.0, key)
    soft = softmax((x - m.log(-m.log(u))) / temperature, axis=axis)
    if not hard:
        return soft
    rank = get_aval(x).ndim
    ax = axis % rank
    index = argmax(soft, axis=ax)
    hot = one_hot(index, get_aval(x).shape[ax]).astype(get_aval(x).dtype)
    return moveaxis(hot, -1, ax) - stop_gradient(soft) + soft


def feature_alpha_dropout(x, p=0.5, training=True, name=None, *, key=None):
    """``alpha_dropout`` of whole channels: every element of a dropped channel (axis 1 of an [N, C, ...] input)
    takes SELU's saturation value, and the affine correction keeps a unit normal input's mean and variance.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> from paddle_fn import random
        >>> y = F.feature_alpha_dropout(paddle.ones([1, 4, 3]), 0.5, key=random.key(0))
        >>> bool((y.numpy() == y.numpy()[:, :, :1]).all())   # one value per channel
        True
    """
    x = float_operand("feature_alpha_dropout", x)
    if get_aval(x).ndim < 2:
        raise ShapeError(f"feature_alpha_dropout: expected [N, C, ...], got shape {list(get_aval(x).shape)}")
    return selu_dropout("feature_alpha_dropout", x, p, training, (0, 1), key)


def dropout1d(input, p=0.5, training=True, inplace=False, *, key=None):  # noqa: A002 - Paddle's names
    """Zero whole channels of a [N, C, L] (or [C, L]) input with probability `p`, scaling the rest by 1 / (1 - p).
    `inplace` is accepted for Paddle's signature; Tensors are immutable here, so the result is always new.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.dropout1d(paddle.ones([2, 3, 4]), 0.5, training=False).shape
        paddle.Size([2, 3, 4])
    """
    rank = get_aval(float_operand("dropout1d", input)).ndim
    if rank not in (2, 3):
        raise ShapeError(f"dropout1d: expected a 2-D [C, L] or 3-D [N, C, L] input, got rank {rank}")
    return dropout(input, p, axis=[0, 1] if rank == 3 else [0], training=training, key=key)


def class_center_sample(label, num_classes, num_samples, group=None):
    """Sample class centers for a softmax over `num_classes` (PartialFC): every class in `label` (the positive
    centers, sorted) and then random other classes until there are `num_samples` (all positives if there are
    more). Returns (each label's index among the sampled centers, the sampled centers), both int64. The negatives
    come from the global RNG; the result's size depends on the labels, so this runs eagerly only. `group`: None
    or False (one process; several model-parallel processes are not supported).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> remapped, centers = F.class_center_sample(paddle.to_tensor([1, 5, 5, 9]), 10, 6)
        >>> remapped.numpy(), centers.numpy()[:3], centers.shape
        (array([0, 1, 1, 2]), array([1, 5, 9]), paddle.Size([6]))
    """
    if group not in (None, False) and getattr(group, "nranks", 1) > 1:
        raise NotImplementedError("class_center_sample: sampling across a model-parallel group of several processes "
                                  "is not supported; use group=None or False (one process)")
    values = eager_value(as_tensor(label))
    if values is None:
        raise ConcretizationError("class_center_sample: the number of positive centers depends on the labels' "
                                  "values, so it runs eagerly only (outside jit/vmap/grad)")
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ShapeError(f"class_center_sample: label must be a 1-D integer Tensor, got {values.dtype} shape "
                         f"{list(values.shape)}")
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise ValueError(f"class_center_sample: labels must be in [0, num_classes) = [0, {num_classes}), got min "
                         f"{values.min()} and max {values.max()}")
    positives = np.unique(values)
    negatives = np.setdiff1d(np.arange(num_classes), positives)
    wanted = max(num_samples - positives.size, 0)
    order = random.randperm(negatives.size).numpy()[:wanted] if wanted else np.zeros(0, np.int64)
    centers = np.concatenate([positives, negatives[order]]).astype(np.int64)
    remapped = np.searchsorted(positives, values).astype(np.int64)
    return to_tensor(remapped), to_tensor(centers)
