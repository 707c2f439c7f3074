"""Loss functions (`paddle.nn.functional.loss`): cross_entropy, nll_loss, the binary cross entropies, mse, l1,
smooth l1, kl_div, margin ranking, sigmoid focal, hinge embedding, log and dice losses.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of
from paddle_fn.tensor.logic import equal, greater_than, not_equal
from paddle_fn.tensor.manipulation import gather, moveaxis, reshape, squeeze, take_along_axis, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand
from paddle_fn.nn.functional.activation import log_softmax, relu, softmax
from paddle_fn.nn.functional.common import label_smooth
from paddle_fn.nn.functional.input import one_hot

__all__ = ["binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "dice_loss",
           "hinge_embedding_loss", "kl_div", "l1_loss", "log_loss", "margin_ranking_loss", "mse_loss", "nll_loss",
           "sigmoid_focal_loss", "smooth_l1_loss", "softmax_with_cross_entropy", "square_error_cost"]

def _reduce(op, loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return m.sum(loss)
    if reduction == "mean":
        return m.mean(loss)
    raise ValueError(f"{op}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _check_reduction(op, reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"{op}: reduction must be one of {list(allowed)}, got {reduction!r}")


def _divide_nonzero(total, weight_sum):
    """total / weight_sum, with a zero weight sum counting as 1 (Paddle's guard)."""
    is_zero = cast(ew.eq(weight_sum, st.full_like(weight_sum, 0)), get_aval(weight_sum).dtype)
    return ew.div(total, ew.add(weight_sum, is_zero))


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002 - Paddle's names
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Cross entropy between the softmax of `input` along `axis` (or `input` itself as probabilities with
    use_softmax=False) and `label`.

    Hard labels: class indices of input's shape with `axis` of size 1 (e.g. [N, 1]) or without that axis
    (e.g. [N]); entries equal to `ignore_index` give 0 loss. Soft labels (soft_label=True): a distribution of
    input's shape. `weight` [C] weighs each class (soft labels: by label @ weight).

    reduction='none' returns the per-example loss (shape of the label for hard labels; input's with `axis` of
    size 1 for soft labels); 'sum' and 'mean' a 0-D Tensor. Paddle's 'mean' is a weighted mean, sum(loss)
    / sum(weight of each example's class), over the examples not ignored; with a negative ignore_index (the
    default -100) and no weight it divides by the number of all examples, ignored ones included, as Paddle does.

    ``label_smoothing`` eps > 0 turns the labels (class indices, or distributions) into soft labels
    ``(1 - eps) * one_hot + eps / C``, as Paddle 3.3 does (reduction='none' then gives the soft-label shape).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logits = paddle.to_tensor([[2., 0., 0.], [0., 0., 0.]])
        >>> F.cross_entropy(logits, paddle.to_tensor([0, 2])).numpy()
        array(0.6690786, dtype=float32)
        >>> F.cross_entropy(logits, paddle.to_tensor([[0], [1]]), reduction='none').numpy()
        array([[0.23954484],
               [1.0986123 ]], dtype=float32)
    """
    _check_reduction("cross_entropy", reduction)
    x = float_operand("cross_entropy", input)
    shape = shape_of(x)
    ax = normalize_axis("cross_entropy", axis, len(shape))
    logp = log_softmax(x, axis=ax) if use_softmax else m.log(x)  # log_softmax clips at -64, as Paddle's
    label = as_tensor(label)
    if label_smoothing:
        if not 0.0 < label_smoothing <= 1.0:
            raise ValueError(f"cross_entropy: label_smoothing must lie in [0, 1], got {label_smoothing}")
        if get_aval(label).dtype.kind in "iu":  # class indices, with or without the class axis
            if get_aval(label).ndim == len(shape):
                label = squeeze(label, ax)
            label = moveaxis(one_hot(label, shape[ax]), -1, ax)
        label = label_smooth(cast(label, get_aval(x).dtype), epsilon=label_smoothing)
        soft_label = True
    if soft_label:
        if shape_of(label) != shape:
            raise ShapeError(f"cross_entropy: soft labels must have input's shape {list(shape)}, got "
                             f"{list(shape_of(label))}")
        label = cast(label, get_aval(x).dtype)
        loss = m.neg(m.sum(m.multiply(label, logp), axis=ax, keepdim=True))
        if weight is None:
            return _reduce("cross_entropy", loss, reduction)
        w = st.broadcast_in_dim(as_tensor(weight, get_aval(x).dtype), shape=shape, broadcast_dimensions=(ax,))
        example_weight = m.sum(m.multiply(label, w), axis=ax, keepdim=True)
        loss = m.multiply(loss, example_weight)
        if reduction == "mean":
            return _divide_nonzero(m.sum(loss), m.sum(example_weight))
        return _reduce("cross_entropy", loss, reduction)
    if get_aval(label).dtype.kind not in "iu":
        raise DTypeError(f"cross_entropy: hard labels must be integer class indices, got {get_aval(label).dtype.name} "
                         "(for probabilities pass soft_label=True)")
    squeezed = get_aval(label).ndim == len(shape) - 1
    if squeezed:
        label = unsqueeze(label, ax)
    expected = shape[:ax] + (1,) + shape[ax + 1:]
    if shape_of(label) != expected:
        raise ShapeError(f"cross_entropy: label of shape {list(shape_of(label))} does not fit input of shape "
                         f"{list(shape)} with axis={axis}: expected {list(expected)} or "
                         f"{list(expected[:ax] + expected[ax + 1:])}")
    label = cast(label, dtypes.int64)
    valid = not_equal(label, ignore_index)
    safe = where(valid, label, 0)
    loss = where(valid, m.neg(take_along_axis(logp, safe, ax)), 0.0)
    example_weight = None
    if weight is not None:
        w = as_tensor(weight, get_aval(x).dtype)
        example_weight = where(valid, reshape(gather(w, reshape(safe, [-1])), list(shape_of(safe))), 0.0)
        loss = m.multiply(loss, example_weight)
    if reduction == "none":
        return squeeze(loss, ax) if squeezed else loss
    if reduction == "sum":
        return m.sum(loss)
    if example_weight is not None:
        return _divide_nonzero(m.sum(loss), m.sum(example_weight))
    if ignore_index >= 0:
        return _divide_nonzero(m.sum(loss), m.sum(cast(valid, get_aval(x).dtype)))
    return m.mean(loss)


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True,
                               return_softmax=False, axis=-1):
    """The unreduced cross entropy of softmax(logits) along `axis`, with the label's axis of size 1 kept
    (shape [N, 1] for [N, C] logits); optionally also the softmax.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.softmax_with_cross_entropy(paddle.to_tensor([[0., 0.]]), paddle.to_tensor([[1]])).numpy()
        array([[0.6931472]], dtype=float32)
    """
    loss = cross_entropy(logits, label, ignore_index=ignore_index, reduction="none", soft_label=soft_label,
                         axis=axis)
    ax = normalize_axis("softmax_with_cross_entropy", axis, get_aval(as_tensor(logits)).ndim)
    if get_aval(loss).ndim < get_aval(as_tensor(logits)).ndim:
        loss = unsqueeze(loss, ax)
    return (loss, softmax(logits, axis=ax)) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):  # noqa: A002
    """The negative log likelihood -input[n, label[n]] * weight[label[n]] for log-probabilities `input`
    [N, C] or [N, C, d1, ...] and labels [N] or [N, d1, ...] (or, as Paddle accepts, with input's rank and a class
    axis of size 1: [N, 1, d1, ...]); entries equal to ignore_index give 0 and are left out of the mean, which is
    weighted: sum(loss) / sum(weight[label]).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logp = paddle.log(paddle.to_tensor([[0.5, 0.5], [0.25, 0.75]]))
        >>> F.nll_loss(logp, paddle.to_tensor([0, 1])).numpy()
        array(0.49041462, dtype=float32)
    """
    _check_reduction("nll_loss", reduction)
    x = float_operand("nll_loss", input)
    label = as_tensor(label)
    shape = shape_of(x)
    if len(shape) >= 2 and shape_of(label) == shape[:1] + (1,) + shape[2:]:
        label = squeeze(label, 1)
    if len(shape) < 2 or shape_of(label) != shape[:1] + shape[2:]:
        raise ShapeError(f"nll_loss: input [N, C, ...] (got {list(shape)}) needs label [N, ...] or [N, 1, ...] "
                         f"(got {list(shape_of(label))})")
    label = cast(label, dtypes.int64)
    valid = not_equal(label, ignore_index)
    safe = where(valid, label, 0)
    picked = squeeze(take_along_axis(x, unsqueeze(safe, 1), 1), 1)
    w = as_tensor(np.ones(shape[1], get_aval(x).dtype.np)) if weight is None else \
        as_tensor(weight, get_aval(x).dtype)
    example_weight = where(valid, reshape(gather(w, reshape(safe, [-1])), list(shape_of(safe))), 0.0)
    loss = m.multiply(m.neg(picked), example_weight)
    if reduction == "mean":
        return m.divide(m.sum(loss), m.sum(example_weight))
    return _reduce("nll_loss", loss, reduction)


def _weighted(loss, weight):
    return loss if weight is None else m.multiply(loss, weight)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    """-(label * log(input) + (1 - label) * log(1 - input)) for probabilities `input`, with each log clamped at
    -100 (Paddle's kernel), times `weight`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.binary_cross_entropy(paddle.to_tensor([0.5, 1.0]), paddle.to_tensor([1., 0.]), reduction='none').numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    _check_reduction("binary_cross_entropy", reduction)
    p = float_operand("binary_cross_entropy", input)
    label = as_tensor(label, get_aval(p).dtype)
    log_p = m.maximum(m.log(p), -100.0)
    log_not_p = m.maximum(m.log(m.subtract(1.0, p)), -100.0)
    loss = m.neg(m.add(m.multiply(label, log_p), m.multiply(m.subtract(1.0, label), log_not_p)))
    return _reduce("binary_cross_entropy", _weighted(loss, weight), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """Binary cross entropy of sigmoid(logit), computed stably from the logits:
    (1 - label) * x + (1 + (pos_weight - 1) * label) * (log(1 + exp(-|x|)) + max(-x, 0)), times `weight`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.binary_cross_entropy_with_logits(paddle.to_tensor([0., 100.]), paddle.to_tensor([1., 0.]),
        ...                                    reduction='none').numpy()
        array([  0.6931472, 100.       ], dtype=float32)
    """
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    x = float_operand("binary_cross_entropy_with_logits", logit)
    label = as_tensor(label, get_aval(x).dtype)
    log_term = m.add(m.log1p(m.exp(m.neg(m.abs(x)))), m.maximum(m.neg(x), 0.0))
    coef = 1.0 if pos_weight is None else m.add(1.0, m.multiply(m.subtract(pos_weight, 1.0), label))
    loss = m.add(m.multiply(m.subtract(1.0, label), x), m.multiply(coef, log_term))
    return _reduce("binary_cross_entropy_with_logits", _weighted(loss, weight), reduction)


def mse_loss(input, label, reduction="mean", name=None):  # noqa: A002
    """(input - label)^2, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.mse_loss(paddle.to_tensor([1., 2.]), paddle.to_tensor([0., 0.])).numpy()
        array(2.5, dtype=float32)
    """
    _check_reduction("mse_loss", reduction)
    d = m.subtract(float_operand("mse_loss", input), label)
    return _reduce("mse_loss", m.multiply(d, d), reduction)


def square_error_cost(input, label):  # noqa: A002
    """(input - label)^2, elementwise.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.square_error_cost(paddle.to_tensor([3.]), paddle.to_tensor([1.])).numpy()
        array([4.], dtype=float32)
    """
    return mse_loss(input, label, reduction="none")


def l1_loss(input, label, reduction="mean", name=None):  # noqa: A002
    """|input - label|, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.l1_loss(paddle.to_tensor([1., -3.]), paddle.to_tensor([0., 0.]), reduction='sum').numpy()
        array(4., dtype=float32)
    """
    _check_reduction("l1_loss", reduction)
    return _reduce("l1_loss", m.abs(m.subtract(float_operand("l1_loss", input), label)), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):  # noqa: A002
    """Paddle's smooth L1 (the Huber loss): 0.5 d^2 where |d| <= delta, else delta * (|d| - 0.5 delta), with
    d = input - label; ``is_huber=False`` divides it by delta (the smooth L1 of PyTorch's convention).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.smooth_l1_loss(paddle.to_tensor([0.5, 3.]), paddle.to_tensor([0., 0.]), reduction='none').numpy()
        array([0.125, 2.5  ], dtype=float32)
    """
    _check_reduction("smooth_l1_loss", reduction)
    d = m.abs(m.subtract(float_operand("smooth_l1_loss", input), label))
    quadratic = m.multiply(m.multiply(d, d), 0.5)
    linear_part = m.multiply(m.subtract(d, 0.5 * delta), delta)
    loss = where(m.abs(d) <= delta, quadratic, linear_part)
    return _reduce("smooth_l1_loss", loss if is_huber else m.divide(loss, delta), reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):  # noqa: A002
    """label * (log(label) - input) for log-probabilities `input` (0 where label <= 0); with ``log_target=True``
    `label` holds log-probabilities too and the loss is exp(label) * (label - input). reduction 'batchmean'
    divides the sum by the batch size (input.shape[0]); 'mean' averages over all elements.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logq = paddle.log(paddle.to_tensor([[0.5, 0.5]]))
        >>> F.kl_div(logq, paddle.to_tensor([[0.25, 0.75]]), reduction='batchmean').numpy()
        array(0.13081202, dtype=float32)
        >>> F.kl_div(logq, paddle.log(paddle.to_tensor([[0.25, 0.75]])), reduction='batchmean',
        ...          log_target=True).numpy()
        array(0.13081202, dtype=float32)
    """
    _check_reduction("kl_div", reduction, ("none", "mean", "sum", "batchmean"))
    x = float_operand("kl_div", input)
    label = as_tensor(label, get_aval(x).dtype)
    if log_target:
        loss = m.multiply(m.exp(label), m.subtract(label, x))
    else:
        positive = greater_than(label, 0.0)
        safe = where(positive, label, 1.0)
        loss = where(positive, m.multiply(label, m.subtract(m.log(safe), x)), 0.0)
    if reduction == "batchmean":
        return m.divide(m.sum(loss), float(shape_of(x)[0]) if get_aval(x).ndim else 1.0)
    return _reduce("kl_div", loss, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):  # noqa: A002
    """max(0, -label * (input - other) + margin), reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.margin_ranking_loss(paddle.to_tensor([1., 2.]), paddle.to_tensor([2., 1.]),
        ...                       paddle.to_tensor([1., 1.]), reduction='none').numpy()
        array([1., 0.], dtype=float32)
    """
    _check_reduction("margin_ranking_loss", reduction)
    d = m.add(m.multiply(m.neg(as_tensor(label)), m.subtract(input, other)), margin)
    return _reduce("margin_ranking_loss", relu(d), reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """The focal loss of sigmoid(logit): alpha_t * (1 - p_t)^gamma * BCE, divided by `normalizer`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.sigmoid_focal_loss(paddle.to_tensor([0.]), paddle.to_tensor([1.])).numpy()
        array(0.0433217, dtype=float32)
    """
    _check_reduction("sigmoid_focal_loss", reduction)
    x = float_operand("sigmoid_focal_loss", logit)
    label = as_tensor(label, get_aval(x).dtype)
    p = m.sigmoid(x)
    ce = binary_cross_entropy_with_logits(x, label, reduction="none")
    p_t = m.add(m.multiply(p, label), m.multiply(m.subtract(1.0, p), m.subtract(1.0, label)))
    alpha_t = m.add(m.multiply(label, alpha), m.multiply(m.subtract(1.0, label), 1.0 - alpha))
    loss = m.multiply(m.multiply(alpha_t, m.pow(m.subtract(1.0, p_t), gamma)), ce)
    if normalizer is not None:
        loss = m.divide(loss, normalizer)
    return _reduce("sigmoid_focal_loss", loss, reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):  # noqa: A002
    """input where label == 1, max(0, margin - input) where label == -1, reduced.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.hinge_embedding_loss(paddle.to_tensor([0.3, 0.3]), paddle.to_tensor([1., -1.]), reduction='none').numpy()
        array([0.3, 0.7], dtype=float32)
    """
    _check_reduction("hinge_embedding_loss", reduction)
    x = float_operand("hinge_embedding_loss", input)
    label = as_tensor(label, get_aval(x).dtype)
    loss = where(equal(label, 1.0), x, where(equal(label, -1.0), relu(m.subtract(margin, x)), 0.0))
    return _reduce("hinge_embedding_loss", loss, reduction)


def log_loss(input, label, epsilon=1e-4, name=None):  # noqa: A002
    """The unreduced negative log likelihood of probabilities:
    -label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.log_loss(paddle.to_tensor([[0.5]]), paddle.to_tensor([[1.]]), epsilon=0.).numpy()
        array([[0.6931472]], dtype=float32)
    """
    x = float_operand("log_loss", input)
    label = as_tensor(label, get_aval(x).dtype)
    return m.neg(m.add(m.multiply(label, m.log(m.add(x, epsilon))),
                       m.multiply(m.subtract(1.0, label), m.log(m.add(m.subtract(1.0, x), epsilon)))))


def dice_loss(input, label, epsilon=1e-05, name=None):  # noqa: A002
    """1 - 2 |X n Y| / (|X| + |Y|) per example, averaged: `input` holds class probabilities in its last axis and
    `label` the int classes (last axis of size 1).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.dice_loss(paddle.to_tensor([[0., 1.], [1., 0.]]), paddle.to_tensor([[1], [0]])).numpy()
        array(5.00679e-06, dtype=float32)
    """
    x = float_operand("dice_loss", input)
    label = as_tensor(label)
    if shape_of(label)[-1:] != (1,) or get_aval(label).ndim != get_aval(x).ndim:
        raise ShapeError(f"dice_loss: label (shape {list(shape_of(label))}) must be input's shape "
                         f"{list(shape_of(x))} with a last axis of size 1")
    target = cast(one_hot(squeeze(label, -1), shape_of(x)[-1]), get_aval(x).dtype)
    axes = list(range(1, get_aval(x).ndim))
    inter = m.sum(m.multiply(x, target), axis=axes)
    total = m.add(m.sum(x, axis=axes), m.sum(target, axis=axes))
    return m.mean(m.subtract(1.0, m.divide(m.multiply(inter, 2.0), m.add(total, epsilon))))
