"""Paddle 3's margin and likelihood losses: triplet margin (with a p-norm or any distance), cosine embedding, soft
margin, multi-class margin, multi-label margin and multi-label soft margin; Gaussian and Poisson negative log
likelihoods; the n-pair loss. Composites of the Tensor API, so grad, vmap and jit see through them.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.creation import ones_like, zeros_like
from paddle_fn.tensor.linalg import matmul
from paddle_fn.tensor.logic import equal
from paddle_fn.tensor.manipulation import reshape, take_along_axis, transpose, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand
from paddle_fn.nn.functional.activation import log_sigmoid, relu, softplus
from paddle_fn.nn.functional.common import cosine_similarity
from paddle_fn.nn.functional.distance import pairwise_distance
from paddle_fn.nn.functional.loss import _check_reduction, _reduce, softmax_with_cross_entropy

__all__ = ["triplet_margin_loss", "triplet_margin_with_distance_loss", "cosine_embedding_loss", "soft_margin_loss",
           "multi_margin_loss", "multi_label_margin_loss", "multi_label_soft_margin_loss", "gaussian_nll_loss",
           "poisson_nll_loss", "npair_loss"]


def _triplet(op, anchor, positive, negative, distance, margin, swap, reduction):
    _check_reduction(op, reduction)
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = m.minimum(d_neg, distance(positive, negative))
    return _reduce(op, relu(d_pos - d_neg + margin), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,  # noqa: A002
                        reduction="mean", name=None):
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` per row, with d the p-norm distance of
    ``pairwise_distance`` (`epsilon` added to the differences); ``swap`` uses the smaller of d(input, negative) and
    d(positive, negative).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> a = paddle.to_tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
        >>> pos = paddle.to_tensor([[1.5, 2.0, 2.0], [0.0, -1.0, 1.0]])
        >>> neg = paddle.to_tensor([[0.0, 1.0, 3.0], [3.0, 1.0, -2.0]])
        >>> F.triplet_margin_loss(a, pos, neg, reduction='none').numpy()
        array([0.7038194, 0.       ], dtype=float32)
    """
    def distance(x, y):
        return pairwise_distance(x, y, p=p, epsilon=epsilon)
    return _triplet("triplet_margin_loss", float_operand("triplet_margin_loss", input), positive, negative,
                    distance, margin, swap, reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None, margin=1.0,  # noqa: A002
                                      swap=False, reduction="mean", name=None):
    """The triplet margin loss with any `distance_function` of two Tensors (default: the Euclidean
    ``pairwise_distance``).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> a = paddle.to_tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
        >>> pos = paddle.to_tensor([[1.5, 2.0, 2.0], [0.0, -1.0, 1.0]])
        >>> neg = paddle.to_tensor([[0.0, 1.0, 3.0], [3.0, 1.0, -2.0]])
        >>> cosine = lambda x, y: 1 - F.cosine_similarity(x, y)
        >>> F.triplet_margin_with_distance_loss(a, pos, neg, distance_function=cosine, reduction='none').numpy()
        array([0.9696682, 0.       ], dtype=float32)
    """
    return _triplet("triplet_margin_with_distance_loss", float_operand("triplet_margin_with_distance_loss", input),
                    positive, negative, distance_function or pairwise_distance, margin, swap, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """Per row: ``1 - cos(input1, input2)`` where label is 1, ``max(0, cos(input1, input2) - margin)`` where it
    is -1.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x1 = paddle.to_tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
        >>> x2 = paddle.to_tensor([[1.5, 2.0, 2.0], [0.0, -1.0, 1.0]])
        >>> F.cosine_embedding_loss(x1, x2, paddle.to_tensor([1, -1])).numpy()
        array(0.48290935, dtype=float32)
    """
    _check_reduction("cosine_embedding_loss", reduction)
    cos = cosine_similarity(float_operand("cosine_embedding_loss", input1), input2, axis=-1)
    label = as_tensor(label)
    if list(get_aval(label).shape) != list(get_aval(cos).shape):
        raise ShapeError(f"cosine_embedding_loss: label must have shape {list(get_aval(cos).shape)} (one per row), "
                         f"got {list(get_aval(label).shape)}")
    loss = where(label == 1, 1.0 - cos, relu(cos - margin))
    return _reduce("cosine_embedding_loss", loss, reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):  # noqa: A002 - Paddle's names
    """The two-class logistic loss ``log(1 + exp(-label * input))`` elementwise (labels 1 or -1).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.soft_margin_loss(paddle.to_tensor([1.0, -2.0]), paddle.to_tensor([1.0, 1.0]), reduction='none').numpy()
        array([0.31326166, 2.126928  ], dtype=float32)
    """
    _check_reduction("soft_margin_loss", reduction)
    x = float_operand("soft_margin_loss", input)
    return _reduce("soft_margin_loss", softplus(-cast(as_tensor(label), get_aval(x).dtype) * x), reduction)


def _class_index(op, input, label):
    x = float_operand(op, input)
    label = as_tensor(label)
    if get_aval(x).ndim != 2 or list(get_aval(label).shape) != [get_aval(x).shape[0]]:
        raise ShapeError(f"{op}: input must be [N, C] and label [N], got shapes {list(get_aval(x).shape)} and "
                         f"{list(get_aval(label).shape)}")
    return x, unsqueeze(cast(label, "int64"), -1)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):  # noqa: A002
    """The multi-class hinge loss of scores `input` [N, C] and class indices `label` [N]: per row,
    ``sum_{j != y} weight[y] * max(0, margin - input[y] + input[j]) ** p / C`` (p 1 or 2).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> scores = paddle.to_tensor([[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]])
        >>> F.multi_margin_loss(scores, paddle.to_tensor([3, 0]), reduction='none').numpy()
        array([0.325, 0.625], dtype=float32)
    """
    _check_reduction("multi_margin_loss", reduction)
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p!r}")
    x, y = _class_index("multi_margin_loss", input, label)
    target = take_along_axis(x, y, -1)
    hinge = relu(margin - target + x) ** p
    if weight is not None:
        hinge = hinge * take_along_axis(unsqueeze(cast(as_tensor(weight), get_aval(x).dtype), 0), y, -1)
    classes = get_aval(x).shape[1]
    is_target = as_tensor(np.arange(classes)) == y
    loss = m.sum(where(is_target, zeros_like(hinge), hinge), axis=-1) / classes
    return _reduce("multi_margin_loss", loss, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):  # noqa: A002 - Paddle's names
    """The multi-label hinge loss of scores `input` [N, C]: each row of `label` [N, C] lists the row's target
    classes, ended by the first -1; per row ``sum over targets j and non-targets i of max(0, 1 - (input[j] -
    input[i])) / C``.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> scores = paddle.to_tensor([[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]])
        >>> targets = paddle.to_tensor([[3, 0, -1, 1], [1, 2, -1, 0]])
        >>> F.multi_label_margin_loss(scores, targets, reduction='none').numpy()
        array([0.85, 1.05], dtype=float32)
    """
    _check_reduction("multi_label_margin_loss", reduction)
    x = float_operand("multi_label_margin_loss", input)
    label = cast(as_tensor(label), "int64")
    if get_aval(x).ndim != 2 or list(get_aval(label).shape) != list(get_aval(x).shape):
        raise ShapeError(f"multi_label_margin_loss: input and label must both be [N, C], got shapes "
                         f"{list(get_aval(x).shape)} and {list(get_aval(label).shape)}")
    classes = get_aval(x).shape[1]
    # the entries before the first -1 are the targets
    listed = m.cumprod(cast(label >= 0, "int64"), dim=-1) > 0
    slot = where(listed, label, zeros_like(label))  # [N, K] class of each listed entry
    hits = (unsqueeze(slot, -1) == as_tensor(np.arange(classes))) & unsqueeze(listed, -1)  # [N, K, C]
    is_target = m.any(hits, axis=1)  # [N, C]
    target_score = take_along_axis(x, slot, -1)  # [N, K]
    pair = relu(1.0 - (unsqueeze(target_score, -1) - unsqueeze(x, 1)))  # [N, K, C]
    keep = unsqueeze(listed, -1) & ~unsqueeze(is_target, 1)
    loss = m.sum(where(keep, pair, zeros_like(pair)), axis=[1, 2]) / classes
    return _reduce("multi_label_margin_loss", loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    """The multi-label logistic loss of scores `input` [N, C] and 0/1 targets `label` [N, C]: per row,
    ``-mean_c weight[c] * (label log sigmoid(input) + (1 - label) log sigmoid(-input))``.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> scores = paddle.to_tensor([[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]])
        >>> F.multi_label_soft_margin_loss(scores, paddle.to_tensor([[1.0, 0, 1, 0], [0, 1, 1, 1]])).numpy()
        array(0.7372024, dtype=float32)
    """
    _check_reduction("multi_label_soft_margin_loss", reduction)
    x = float_operand("multi_label_soft_margin_loss", input)
    y = cast(as_tensor(label), get_aval(x).dtype)
    if list(get_aval(y).shape) != list(get_aval(x).shape):
        raise ShapeError(f"multi_label_soft_margin_loss: label must have input's shape {list(get_aval(x).shape)}, "
                         f"got {list(get_aval(y).shape)}")
    terms = -(y * log_sigmoid(x) + (1.0 - y) * log_sigmoid(-x))
    if weight is not None:
        terms = terms * cast(as_tensor(weight), get_aval(x).dtype)
    return _reduce("multi_label_soft_margin_loss", m.mean(terms, axis=-1), reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean", name=None):  # noqa: A002
    """The negative log likelihood of `label` under Gaussians of mean `input` and `variance` (clamped to at least
    `epsilon`; it may have a last dimension of 1, or one fewer dimension, to share a variance):
    ``0.5 * (log(variance) + (input - label) ** 2 / variance)``, plus ``0.5 * log(2 pi)`` when `full`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> mean, target = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.5, 2.0])
        >>> F.gaussian_nll_loss(mean, target, paddle.to_tensor([0.5, 1.0]), reduction='none').numpy()
        array([-0.09657359,  0.        ], dtype=float32)
    """
    _check_reduction("gaussian_nll_loss", reduction)
    x = float_operand("gaussian_nll_loss", input)
    y, var = cast(as_tensor(label), get_aval(x).dtype), cast(as_tensor(variance), get_aval(x).dtype)
    shape, vshape = list(get_aval(x).shape), list(get_aval(var).shape)
    if vshape == shape[:-1]:
        var = unsqueeze(var, -1)
    elif vshape != shape and vshape != shape[:-1] + [1]:
        raise ShapeError(f"gaussian_nll_loss: variance must have input's shape {shape}, or it with the last "
                         f"dimension 1 or dropped, got {vshape}")
    eager = eager_value(var)
    if eager is not None and (eager < 0).any():
        raise ValueError("gaussian_nll_loss: variance has negative entries")
    var = m.clip(var, min=epsilon)
    loss = 0.5 * (m.log(var) + (x - y) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce("gaussian_nll_loss", loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8, reduction="mean",  # noqa: A002
                     name=None):
    """The negative log likelihood of counts `label` under Poisson rates given by `input`: ``exp(input) - label *
    input`` when `log_input` (input is the log rate), else ``input - label * log(input + epsilon)``; `full` adds
    Stirling's ``label log label - label + 0.5 log(2 pi label)`` where label > 1.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.poisson_nll_loss(paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([1.0, 3.0]), reduction='none').numpy()
        array([ 1.       , -0.2817182], dtype=float32)
    """
    _check_reduction("poisson_nll_loss", reduction)
    x = float_operand("poisson_nll_loss", input)
    y = cast(as_tensor(label), get_aval(x).dtype)
    loss = m.exp(x) - y * x if log_input else x - y * m.log(x + epsilon)
    if full:
        safe = where(y > 1, y, ones_like(y))
        stirling = safe * m.log(safe) - safe + 0.5 * m.log(2 * math.pi * safe)
        loss = loss + where(y > 1, stirling, zeros_like(y))
    return _reduce("poisson_nll_loss", loss, reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """The n-pair loss of embeddings `anchor` and `positive` [B, D] with class `labels` [B]: the soft-label cross
    entropy of the similarity logits ``anchor @ positive.T`` against the rows of "same class" normalised to sum to
    1, plus ``l2_reg / 4`` times the mean squared norms of both embeddings. As Paddle, each row's cross entropy is
    weighted by the label matrix and summed over its columns before the mean.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> a = paddle.to_tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> round(F.npair_loss(a, a, paddle.to_tensor([0.0, 1.0])).item(), 6)
        0.314262
    """
    anchor = float_operand("npair_loss", anchor)
    positive = float_operand("npair_loss", positive)
    if anchor.ndim != 2 or anchor.shape != positive.shape:
        raise ShapeError(f"npair_loss: anchor and positive must both be [batch, dims], got {anchor.shape} and "
                         f"{positive.shape}")
    labels = as_tensor(labels)
    batch = anchor.shape[0]
    if labels.shape != [batch]:
        raise ShapeError(f"npair_loss: labels must be [batch] = [{batch}], got {labels.shape}")
    column = reshape(labels, [batch, 1])
    same = cast(equal(column, transpose(column, [1, 0])), get_aval(anchor).dtype)
    target = same / m.sum(same, axis=1, keepdim=True)
    l2 = m.mean(m.sum(m.square(anchor), 1)) + m.mean(m.sum(m.square(positive), 1))
    similarity = matmul(anchor, positive, transpose_y=True)
    per_row = softmax_with_cross_entropy(similarity, target, soft_label=True)
    return l2 * (0.25 * l2_reg) + m.mean(m.sum(target * per_row, 0))
