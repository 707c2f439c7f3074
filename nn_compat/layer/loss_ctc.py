"""The CTC loss layer (`paddle.nn.CTCLoss`) over `paddle.nn.functional.ctc_loss`."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["CTCLoss"]


class CTCLoss(Layer):
    """The connectionist temporal classification loss (`paddle.nn.functional.ctc_loss`): softmax over the
    classes is applied internally, as in Paddle's warp-ctc.

    Args:
        blank (int, optional): the blank class. Default: 0.
        reduction (str, optional): 'mean' (each loss divided by its label length, then averaged), 'sum' or
            'none'. Default: 'mean'.
        zero_infinity (bool, optional): replace infinite losses by 0. Default: False.

    Forward: ``loss(log_probs, labels, input_lengths, label_lengths, norm_by_times=False)`` with log_probs
    ``[max_logit_length, batch_size, num_classes + 1]``, labels ``[batch_size, max_label_length]`` (int32) and
    the lengths ``[batch_size]`` (int64).

    Example:
        >>> import paddle_fn as paddle
        >>> ctc = paddle.nn.CTCLoss(blank=0, reduction='sum')
        >>> logits = paddle.zeros([3, 2, 3])
        >>> labels = paddle.to_tensor([[1, 2], [2, 0]], dtype='int32')
        >>> ctc(logits, labels, paddle.to_tensor([3, 3]), paddle.to_tensor([2, 1])).numpy()
        array(3.1904764, dtype=float32)
        >>> ctc
        CTCLoss()
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"CTCLoss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
                          norm_by_times, self.zero_infinity)
