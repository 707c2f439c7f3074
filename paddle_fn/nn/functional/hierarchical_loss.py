"""Losses over a hierarchy of classes: the hierarchical sigmoid (`hsigmoid_loss`, a binary decision at every
node on a class's path in a tree) and the adaptive log-softmax (`adaptive_log_softmax_with_loss`, a head softmax
over the frequent classes and one entry per cluster of rare ones, each cluster with its own softmax). Composites of
the Tensor API (gathers, where, log_softmax), so grad, vmap and jit see through them.
"""
from __future__ import annotations

import math

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import eager_value
from paddle_fn.tensor.creation import zeros_like
from paddle_fn.tensor.manipulation import gather, reshape, squeeze, take_along_axis, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor, cast, float_operand
from paddle_fn.nn.functional.activation import log_softmax, softplus
from paddle_fn.nn.functional.common import linear

__all__ = ["hsigmoid_loss", "adaptive_log_softmax_with_loss"]

# Paddle's kernel clips every node's logit to [-40, 40] before the softplus.
_LOGIT_CLIP = 40.0


def _default_tree(label, num_classes):
    """Paddle's default (complete binary) tree: class c is the code c + num_classes, whose bits below the leading
    one, lowest first, are the decisions; node j of its path is (code >> (j + 1)) - 1, and the path ends where that
    becomes negative."""
    depth = max(num_classes - 1, 1).bit_length()
    code = unsqueeze(cast(label, dtypes.int64) + num_classes, 1)
    powers = as_tensor([2 ** j for j in range(depth + 1)], dtype=dtypes.int64)
    shifted = m.floor_divide(code, powers)  # code >> j for j = 0 .. depth
    nodes = shifted[:, 1:] - 1
    bits = m.remainder(shifted[:, :-1], as_tensor(2, dtype=dtypes.int64))
    return nodes, bits


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None, path_code=None,  # noqa: A002
                  is_sparse=False, name=None):
    """The hierarchical sigmoid loss [N, 1]: for every node j on the path of each sample's class, with the logit
    ``z_j = weight[node_j] . input + bias[node_j]`` (clipped to [-40, 40] as Paddle), ``softplus(z_j) - bit_j *
    z_j`` summed over the path, plus log 2 for each position by which the path is shorter than the longest path
    (Paddle's kernel adds softplus(0) there). The tree is Paddle's default complete binary tree over `num_classes` classes
    (weight [num_classes - 1, D]), or a custom one given by `path_table` (node ids, -1 after the path's end) and
    `path_code` (the bits), both [N, path length]. `is_sparse` only chooses Paddle's gradient storage.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[1.0, 2.0]])
        >>> w = paddle.to_tensor([[0.5, -0.5], [1.0, 0.0]])
        >>> F.hsigmoid_loss(x, paddle.to_tensor([2]), 3, w).numpy()
        array([[0.7873387]], dtype=float32)
    """
    x = float_operand("hsigmoid_loss", input)
    weight = cast(as_tensor(weight), get_aval(x).dtype)
    label = as_tensor(label)
    if x.ndim != 2 or weight.ndim != 2 or weight.shape[1] != x.shape[1]:
        raise ShapeError(f"hsigmoid_loss: input must be [N, D] and weight [nodes, D], got {x.shape} and "
                         f"{weight.shape}")
    if label.shape not in ([x.shape[0]], [x.shape[0], 1]):
        raise ShapeError(f"hsigmoid_loss: label must be [N] or [N, 1] with N = {x.shape[0]}, got {label.shape}")
    label = reshape(label, [-1])
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: path_table and path_code go together (a custom tree needs both)")
    if path_table is None:
        if num_classes < 2:
            raise ValueError(f"hsigmoid_loss: num_classes must be at least 2, got {num_classes}")
        values = eager_value(label)
        if values is not None and values.size and (values.min() < 0 or values.max() >= num_classes):
            raise ValueError(f"hsigmoid_loss: label values must be in [0, num_classes) = [0, {num_classes}), got "
                             f"min {values.min()} and max {values.max()} (Paddle's kernel reads past the weight "
                             "there)")
        nodes, bits = _default_tree(label, num_classes)
    else:
        nodes, bits = cast(as_tensor(path_table), dtypes.int64), cast(as_tensor(path_code), dtypes.int64)
        if nodes.shape != bits.shape or nodes.ndim != 2 or nodes.shape[0] != x.shape[0]:
            raise ShapeError(f"hsigmoid_loss: path_table and path_code must both be [N = {x.shape[0]}, path length],"
                             f" got {nodes.shape} and {bits.shape}")
    on_path = nodes >= 0
    safe = where(on_path, nodes, zeros_like(nodes))
    rows = reshape(gather(weight, reshape(safe, [-1])), list(safe.shape) + [x.shape[1]])
    logits = m.sum(rows * unsqueeze(x, 1), axis=-1)
    if bias is not None:
        logits = logits + reshape(gather(reshape(cast(as_tensor(bias), get_aval(x).dtype), [-1]),
                                         reshape(safe, [-1])), list(safe.shape))
    # Paddle's gradient ignores the clip (it differentiates softplus at the clipped logit): the clip's value only
    clipped = logits + (m.clip(logits, -_LOGIT_CLIP, _LOGIT_CLIP) - logits).detach()
    per_node = softplus(clipped) - cast(bits, get_aval(x).dtype) * clipped
    # Paddle's kernel takes the softplus of every position of the [N, path length] table, so each position past a
    # shorter path's end adds softplus(0) = log 2 (a constant: no gradient)
    padding = zeros_like(per_node) + math.log(2.0)
    return m.sum(where(on_path, per_node, padding), axis=1, keepdim=True)


def _check_labels(label, n_classes):
    values = eager_value(label)
    if values is not None and values.size and (values.min() < 0 or values.max() >= n_classes):
        raise ValueError(f"adaptive_log_softmax_with_loss: label values should be in [0, {n_classes - 1}], got "
                         f"min {values.min()} and max {values.max()}")


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs, head_bias=None,  # noqa: A002
                                   name=None):
    """The adaptive log-softmax of Grave et al.: the classes below ``cutoffs[0]`` are scored by the head softmax
    (``linear(input, head_weight, head_bias)``, one column per frequent class and one per cluster); class c in
    cluster i (``cutoffs[i] <= c < cutoffs[i + 1]``) gets the head's log-probability of cluster i plus its
    log-probability in that cluster's softmax over ``linear(linear(input, tail_weights[i][0]),
    tail_weights[i][1])``. Returns (each sample's log-probability of its label [N], the mean negative of them).
    A 1-D `input` with a 0-D `label` is one sample.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> x = paddle.to_tensor([[1.0, 0.0]])
        >>> head = paddle.to_tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        >>> tail = [[paddle.to_tensor([[1.0], [1.0]]), paddle.to_tensor([[1.0, -1.0]])]]
        >>> out, loss = F.adaptive_log_softmax_with_loss(x, paddle.to_tensor([2]), head, tail, [2, 4])
        >>> out.numpy(), loss.numpy()
        (array([-1.6783727], dtype=float32), array(1.6783727, dtype=float32))
    """
    x = float_operand("adaptive_log_softmax_with_loss", input)
    label = cast(as_tensor(label), dtypes.int64)
    if label.ndim not in (0, 1) or x.ndim != label.ndim + 1:
        raise ShapeError(f"adaptive_log_softmax_with_loss: label [N] needs input [N, D] (or a 0-D label a 1-D "
                         f"input), got label {label.shape} and input {x.shape}")
    batched = label.ndim == 1
    if not batched:
        x, label = unsqueeze(x, 0), unsqueeze(label, 0)
    if x.shape[0] != label.shape[0]:
        raise ShapeError(f"adaptive_log_softmax_with_loss: input and label have different batch sizes, "
                         f"{x.shape[0]} and {label.shape[0]}")
    bounds = [0] + [int(c) for c in cutoffs]
    _check_labels(label, bounds[-1])
    shortlist = bounds[1]
    head_logprob = log_softmax(linear(x, head_weight, head_bias), axis=1)
    head_column = where(label < shortlist, label, zeros_like(label))
    output = zeros_like(label).astype(get_aval(x).dtype)
    for i in range(1, len(bounds) - 1):
        low, high = bounds[i], bounds[i + 1]
        in_cluster = (label >= low) & (label < high)
        cluster_logprob = log_softmax(linear(linear(x, tail_weights[i - 1][0]), tail_weights[i - 1][1]), axis=1)
        local = where(in_cluster, label - low, zeros_like(label))
        picked = squeeze(take_along_axis(cluster_logprob, unsqueeze(local, 1), axis=1), 1)
        output = where(in_cluster, picked, output)
        head_column = where(in_cluster, zeros_like(label) + (shortlist + i - 1), head_column)
    output = output + squeeze(take_along_axis(head_logprob, unsqueeze(head_column, 1), axis=1), 1)
    loss = m.mean(-output)
    return (output if batched else squeeze(output, 0)), loss
