"""The RNN transducer loss (`paddle.nn.functional.rnnt_loss`) as Paddle's CPU warp-rnnt computes it: the input
is taken as log-probabilities as given (Paddle's CPU kernel applies no log_softmax), and the forward variable
alpha runs in log space over time with one `scan` (the label axis inside each step), so the loss compiles once
under jit and its gradient is the scan run backwards. FastEmit scales the gradient of the label emissions by
``1 + fastemit_lambda`` without changing the loss value, as warp-rnnt does.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.prims.control_flow import scan
from paddle_fn.tensor import math as m
from paddle_fn.tensor.creation import arange, full
from paddle_fn.tensor.manipulation import concat, moveaxis, squeeze, take_along_axis, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor
from paddle_fn.nn.functional.ctc import _NEG, _check_scores, _check_sequence_args, _logsumexp

__all__ = ["rnnt_loss"]


def _check(logits, labels, input_lengths, label_lengths, blank, reduction):
    _check_scores("rnnt_loss", "input", logits, "[batch, max_frames, max_labels + 1, classes]")
    batch, _, symbols, classes = logits.shape
    if labels.shape != [batch, symbols - 1]:
        raise ShapeError(f"rnnt_loss: labels must be [batch, max_labels] = [{batch}, {symbols - 1}] for input "
                         f"{logits.shape}, got {labels.shape}")
    _check_sequence_args("rnnt_loss", batch, classes, labels, input_lengths, label_lengths, blank, reduction)


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,  # noqa: A002
              reduction="mean", name=None):
    """The RNN-T loss: minus the log of the total probability of all alignments of each label sequence with its
    frames, where at frame t after u labels the joint network's scores ``input[b, t, u]`` either emit the next
    label (moving to u + 1) or `blank` (moving to frame t + 1); the last frame ends with a blank.

    Args:
        input (Tensor): ``[batch, max_frames, max_labels + 1, classes]`` float32/float64 log-probabilities (used
            as given, as Paddle's CPU kernel does).
        label (Tensor): ``[batch, max_labels]`` int32 padded label sequences.
        input_lengths (Tensor): ``[batch]`` int32 frames per sequence.
        label_lengths (Tensor): ``[batch]`` int32 labels per sequence.
        blank (int, optional): the blank class. Default: 0.
        fastemit_lambda (float, optional): FastEmit's regularisation: the gradient of every label emission is
            scaled by ``1 + fastemit_lambda`` (the loss value is unchanged). Default: 0.001.
        reduction (str, optional): 'none' ([batch]), 'sum', or 'mean' (the sum divided by the batch size).
            Default: 'mean'.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> logp = paddle.log(paddle.full([1, 2, 2, 2], 0.5))   # 2 frames, 1 label, classes {blank, 'a'}
        >>> ones = paddle.to_tensor([1], dtype='int32')
        >>> F.rnnt_loss(logp, ones.reshape([1, 1]), ones * 2, ones).numpy()   # 2 alignments of 1/8 each
        array(1.3862944, dtype=float32)
    """
    logits, labels = as_tensor(input), as_tensor(label)
    input_lengths, label_lengths = as_tensor(input_lengths), as_tensor(label_lengths)
    _check(logits, labels, input_lengths, label_lengths, blank, reduction)
    batch, frames, symbols, _ = logits.shape
    dtype = logits.dtype
    labels = labels.astype(dtypes.int64)
    # emit[b, t, u]: the score of emitting label u + 1 at (t, u); stay[b, t, u]: of the blank there
    emit = squeeze(take_along_axis(logits[:, :, :-1, :], labels.reshape([batch, 1, symbols - 1, 1])
                                   .expand([batch, frames, symbols - 1, 1]), axis=3), 3)
    if fastemit_lambda:
        emit = emit * (1.0 + fastemit_lambda) - (emit * fastemit_lambda).detach()
    stay = logits[:, :, :, blank]
    live = arange(frames, dtype=dtypes.int64).unsqueeze(1) < input_lengths.astype(dtypes.int64).unsqueeze(0)
    neg = full([batch, 1], _NEG, dtype=dtype)

    def step(arrived, x):
        # arrived[:, u]: log-probability of reaching (t, u) by a blank from frame t - 1; then the labels of frame t
        emit_t, stay_t, live_t = x
        alpha = [arrived[:, 0:1]]
        for u in range(1, symbols):
            alpha.append(_logsumexp(arrived[:, u:u + 1], alpha[-1] + emit_t[:, u - 1:u]))
        leave = concat(alpha, axis=1) + stay_t
        return where(live_t.unsqueeze(1), leave, arrived), None

    start = concat([full([batch, 1], 0.0, dtype=dtype)] + [neg] * (symbols - 1), axis=1)
    # a sequence's frames past its length keep the last frame's result, which ends with its final blank
    left, _ = scan(step, start, (moveaxis(emit, 1, 0), moveaxis(stay, 1, 0), live))
    loss = -squeeze(take_along_axis(left, unsqueeze(label_lengths.astype(dtypes.int64), 1), axis=1), 1)
    if reduction == "mean":
        return m.sum(loss) / batch
    if reduction == "sum":
        return m.sum(loss)
    return loss
