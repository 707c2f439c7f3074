"""Paddle 3's margin and likelihood loss layers (`paddle.nn.TripletMarginLoss`, ...), over
`paddle.nn.functional.margin_loss`."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer._loss_base import _Loss

__all__ = ["TripletMarginLoss", "TripletMarginWithDistanceLoss", "CosineEmbeddingLoss", "SoftMarginLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "GaussianNLLLoss",
           "PoissonNLLLoss"]


class TripletMarginLoss(_Loss):
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` with the p-norm distance
    (`paddle.nn.functional.triplet_margin_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.TripletMarginLoss(margin=1.0)
        >>> a, pos, neg = paddle.to_tensor([[0.0, 0.0]]), paddle.to_tensor([[0.0, 1.0]]), paddle.to_tensor([[1.0, 1.0]])
        >>> round(loss(a, pos, neg).item(), 4)
        0.5858
    """
    _fn = staticmethod(F.triplet_margin_loss)

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction="mean", name=None):
        super().__init__(reduction, margin=margin, p=p, epsilon=epsilon, swap=swap)


class TripletMarginWithDistanceLoss(_Loss):
    """The triplet margin loss with any distance function (`F.triplet_margin_with_distance_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: (x - y).abs().sum(-1))
        >>> a, pos, neg = paddle.to_tensor([[0.0, 0.0]]), paddle.to_tensor([[0.0, 1.0]]), paddle.to_tensor([[1.0, 1.0]])
        >>> loss(a, pos, neg).item()
        0.0
    """
    _fn = staticmethod(F.triplet_margin_with_distance_loss)

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__(reduction, distance_function=distance_function, margin=margin, swap=swap)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for label 1, ``max(0, cos - margin)`` for label -1 (`F.cosine_embedding_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.CosineEmbeddingLoss()
        >>> loss(paddle.to_tensor([[1.0, 0.0]]), paddle.to_tensor([[0.0, 1.0]]), paddle.to_tensor([1])).item()
        1.0
    """
    _fn = staticmethod(F.cosine_embedding_loss)

    def __init__(self, margin=0, reduction="mean", name=None):
        super().__init__(reduction, margin=margin)


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-label * input))`` (`F.soft_margin_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> round(paddle.nn.SoftMarginLoss()(paddle.to_tensor([0.0]), paddle.to_tensor([1.0])).item(), 4)
        0.6931
    """
    _fn = staticmethod(F.soft_margin_loss)

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)


class MultiMarginLoss(_Loss):
    """The multi-class hinge loss (`F.multi_margin_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.MultiMarginLoss()
        >>> loss(paddle.to_tensor([[0.1, 0.2, 0.4, 0.8]]), paddle.to_tensor([3])).numpy()
        array(0.325, dtype=float32)
    """
    _fn = staticmethod(F.multi_margin_loss)

    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction, p=p, margin=margin, weight=weight)


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss (`F.multi_label_margin_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.MultiLabelMarginLoss()
        >>> loss(paddle.to_tensor([[0.1, 0.2, 0.4, 0.8]]), paddle.to_tensor([[3, 0, -1, 1]])).numpy()
        array(0.85, dtype=float32)
    """
    _fn = staticmethod(F.multi_label_margin_loss)

    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """The multi-label logistic loss (`F.multi_label_soft_margin_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.MultiLabelSoftMarginLoss()
        >>> round(loss(paddle.to_tensor([[0.0, 0.0]]), paddle.to_tensor([[1.0, 0.0]])).item(), 4)
        0.6931
    """
    _fn = staticmethod(F.multi_label_soft_margin_loss)

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction, weight=weight)


class GaussianNLLLoss(_Loss):
    """The Gaussian negative log likelihood (`F.gaussian_nll_loss`); called as ``loss(input, label, variance)``.

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.GaussianNLLLoss()
        >>> loss(paddle.to_tensor([1.0]), paddle.to_tensor([1.0]), paddle.to_tensor([1.0])).item()
        0.0
    """
    _fn = staticmethod(F.gaussian_nll_loss)

    def __init__(self, full=False, epsilon=1e-6, reduction="mean", name=None):
        super().__init__(reduction, full=full, epsilon=epsilon)


class PoissonNLLLoss(_Loss):
    """The Poisson negative log likelihood (`F.poisson_nll_loss`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.PoissonNLLLoss()(paddle.to_tensor([0.0]), paddle.to_tensor([1.0])).item()
        1.0
    """
    _fn = staticmethod(F.poisson_nll_loss)

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction="mean", name=None):
        super().__init__(reduction, log_input=log_input, full=full, epsilon=epsilon)
