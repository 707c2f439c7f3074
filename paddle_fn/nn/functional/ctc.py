"""Connectionist temporal classification loss (`paddle.nn.functional.ctc_loss`), as Paddle's warp-ctc op
computes it: softmax over the classes is applied internally, the forward (alpha) recursion runs in log space
over time with one `scan`, so the loss compiles once under jit and its gradient is the scan run backwards.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.prims.control_flow import scan
from paddle_fn.tensor import math as m
from paddle_fn.tensor.creation import arange, full
from paddle_fn.tensor.logic import isinf
from paddle_fn.tensor.manipulation import concat, take_along_axis, where
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.nn.functional.activation import log_softmax

__all__ = ["ctc_loss"]

# Log-probability of an unreachable state. Finite rather than -inf so that the recursion's logsumexp and its
# gradient never compute inf - inf (a NaN that would poison the gradient even where it is multiplied by zero).
_NEG = -1e30


def _logsumexp(*xs):
    top = xs[0]
    for x in xs[1:]:
        top = m.maximum(top, x)
    total = (xs[0] - top).exp()
    for x in xs[1:]:
        total = total + (x - top).exp()
    return top + total.log()


def _shift(x, k):
    """x moved k places along axis 1, the vacated places unreachable."""
    return concat([full([x.shape[0], k], _NEG, dtype=x.dtype), x[:, :-k]], axis=1)


def _check(log_probs, labels, input_lengths, label_lengths, blank, reduction):
    _check_scores("ctc_loss", "log_probs", log_probs, "[max_logit_length, batch_size, num_classes + 1]")
    if labels.ndim != 2 or labels.shape[0] != log_probs.shape[1]:
        raise ShapeError(f"ctc_loss: labels must be [batch_size={log_probs.shape[1]}, max_label_length], got "
                         f"shape {labels.shape}")
    _check_sequence_args("ctc_loss", log_probs.shape[1], log_probs.shape[2], labels, input_lengths, label_lengths,
                         blank, reduction)


def _check_scores(op, what, scores, layout):
    """A sequence loss's scores: float32/float64 with as many dims as `layout` names."""
    if scores.dtype not in (dtypes.float32, dtypes.float64):
        raise DTypeError(f"{op}: {what} must be float32 or float64, got {scores.dtype}")
    if scores.ndim != layout.count(",") + 1:
        raise ShapeError(f"{op}: {what} must be {layout}, got shape {scores.shape}")


def _check_sequence_args(op, batch, classes, labels, input_lengths, label_lengths, blank, reduction):
    """The checks a sequence loss (CTC, RNN-T) makes of its integer arguments, blank and reduction."""
    for what, x in (("labels", labels), ("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if x.dtype not in (dtypes.int32, dtypes.int64):
            raise DTypeError(f"{op}: {what} must be int32 or int64, got {x.dtype}")
    for what, x in (("input_lengths", input_lengths), ("label_lengths", label_lengths)):
        if list(x.shape) != [batch]:
            raise ShapeError(f"{op}: {what} must be [batch_size={batch}], got shape {x.shape}")
    if not 0 <= blank < classes:
        raise ValueError(f"{op}: blank must be in [0, number of classes = {classes}), got {blank}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{op}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False,
             zero_infinity=False):
    """The CTC loss: minus the log of the total probability of all alignments of each label sequence with its
    input frames (frames may emit `blank`; repeated labels need a blank between them).

    As in Paddle (warp-ctc), `log_probs` are unnormalized scores: a log_softmax over the last axis is applied
    internally, so passing logits or log-probabilities gives the same loss. A label sequence that cannot fit
    its frames (length + repeats > frames) has loss 0 and no gradient, as warp-ctc returns.

    Args:
        log_probs (Tensor): ``[max_logit_length, batch_size, num_classes + 1]`` float32/float64 scores.
        labels (Tensor): ``[batch_size, max_label_length]`` int32 (int64 accepted) padded label sequences.
        input_lengths (Tensor): ``[batch_size]`` int64 frames per sequence.
        label_lengths (Tensor): ``[batch_size]`` int64 labels per sequence.
        blank (int, optional): the blank class. Default: 0.
        reduction (str, optional): 'none' (per sequence, ``[batch_size]``), 'sum', or 'mean' (each loss divided
            by its label length, then averaged over the batch). Default: 'mean'.
        norm_by_times (bool, optional): divide each sequence's gradient by its number of frames (the loss value
            is unchanged, as in warp-ctc). Default: False.
        zero_infinity (bool, optional): replace infinite losses by 0. Default: False.

    Returns:
        Tensor: the loss, ``[batch_size]`` for 'none', else a 0-D Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logits = paddle.zeros([3, 1, 2])  # 3 frames, classes {blank, 'a'}, uniform
        >>> label = paddle.to_tensor([[1]], dtype='int32')
        >>> lengths = paddle.to_tensor([3], dtype='int64'), paddle.to_tensor([1], dtype='int64')
        >>> loss = F.ctc_loss(logits, label, *lengths, reduction='none')
        >>> loss.numpy()  # 6 alignments of 'a' over 3 frames, each with probability 1/8
        array([0.2876821], dtype=float32)
    """
    log_probs, labels = as_tensor(log_probs), as_tensor(labels)
    input_lengths, label_lengths = as_tensor(input_lengths), as_tensor(label_lengths)
    _check(log_probs, labels, input_lengths, label_lengths, blank, reduction)
    steps, batch, _ = log_probs.shape
    max_labels = labels.shape[1]
    dtype = log_probs.dtype
    labels = labels.astype(dtypes.int64)
    input_lengths, label_lengths = input_lengths.astype(dtypes.int64), label_lengths.astype(dtypes.int64)
    lp = log_softmax(log_probs, axis=-1)

    # The extended label sequence: blank, l1, blank, l2, ..., blank (2 * max_labels + 1 states).
    blanks = full([batch, max_labels], blank, dtype=dtypes.int64)
    ext = concat([labels.unsqueeze(2), blanks.unsqueeze(2)], axis=2).reshape([batch, 2 * max_labels])
    ext = concat([full([batch, 1], blank, dtype=dtypes.int64), ext], axis=1)
    n_states = 2 * max_labels + 1
    # A state may be entered from two states back when it is a label different from the one two back.
    two_back = concat([full([batch, 2], blank, dtype=dtypes.int64), ext[:, :-2]], axis=1)
    can_skip = (ext != blank) & (ext != two_back)
    emit = take_along_axis(lp, ext.unsqueeze(0).expand([steps, batch, n_states]), axis=2)
    live = arange(steps, dtype=dtypes.int64).unsqueeze(1) < input_lengths.unsqueeze(0)

    # Starting from a virtual state before s=0 with probability 1 makes step 0 the usual initialisation.
    start = concat([full([batch, 1], 0.0, dtype=dtype), full([batch, n_states - 1], _NEG, dtype=dtype)], axis=1)

    def step(alpha, x):
        emit_t, live_t = x
        skip = where(can_skip, _shift(alpha, 2), full(alpha.shape, _NEG, dtype=dtype))
        new = _logsumexp(alpha, _shift(alpha, 1), skip) + emit_t
        return where(live_t.unsqueeze(1), new, alpha), None

    alpha, _ = scan(step, start, (emit, live))
    last = (2 * label_lengths).unsqueeze(1)
    end_blank = take_along_axis(alpha, last, axis=1).squeeze(1)
    end_label = take_along_axis(alpha, m.maximum(last - 1, full([1, 1], 0, dtype=dtypes.int64)), axis=1).squeeze(1)
    end_label = where(label_lengths > 0, end_label, full([batch], _NEG, dtype=dtype))
    loss = -_logsumexp(end_blank, end_label)

    # warp-ctc returns 0 (and a zero gradient) when the labels need more frames than there are.
    valid = arange(max_labels, dtype=dtypes.int64).unsqueeze(0) < label_lengths.unsqueeze(1)
    repeats = ((labels[:, 1:] == labels[:, :-1]) & valid[:, 1:]).astype(dtypes.int64).sum(axis=1)
    feasible = label_lengths + repeats <= input_lengths
    loss = where(feasible, loss, full([batch], 0.0, dtype=dtype))
    if norm_by_times:
        frames = m.maximum(input_lengths, full([1], 1, dtype=dtypes.int64)).astype(dtype)
        loss = loss / frames + (loss - loss / frames).detach()
    if zero_infinity:
        loss = where(isinf(loss), full([batch], 0.0, dtype=dtype), loss)
    if reduction == "mean":
        return m.mean(loss / label_lengths.astype(dtype))
    if reduction == "sum":
        return m.sum(loss)
    return loss
