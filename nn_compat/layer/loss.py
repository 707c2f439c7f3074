"""Loss layers (`paddle.nn.layer.loss`, also `paddle.nn.loss`): CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, BCELoss,
BCEWithLogitsLoss, SmoothL1Loss, KLDivLoss, MarginRankingLoss and HingeEmbeddingLoss over `paddle.nn.functional`'s
losses; like Paddle's module it also holds the loss layers kept in the sibling modules (``loss_margin``,
``loss_ctc``, ``loss_structured``)."""
from __future__ import annotations

import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer import loss_ctc, loss_margin, loss_structured
from paddle_fn.nn_compat.layer._loss_base import _REDUCTIONS, _check_reduction
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.layer.loss_ctc import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.loss_margin import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.loss_structured import *  # noqa: F401,F403

__all__ = ["BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss", "HingeEmbeddingLoss", "KLDivLoss", "L1Loss",
           "MSELoss", "MarginRankingLoss", "NLLLoss", "SmoothL1Loss"]
__all__ += loss_ctc.__all__ + loss_margin.__all__ + loss_structured.__all__

class CrossEntropyLoss(Layer):
    """Softmax cross entropy of logits against class indices or soft labels (`paddle.nn.functional.cross_entropy`).

    Args:
        weight (Tensor, optional): a weight per class.
        ignore_index (int, optional): a label value that contributes nothing. Default: -100.
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        soft_label (bool, optional): labels are distributions over the classes. Default: False.
        axis (int, optional): the class axis. Default: -1.
        use_softmax (bool, optional): apply softmax to the input first. Default: True.
        label_smoothing (float, optional): smooth the labels into ``(1 - eps) * one_hot + eps / C``. Default: 0.0.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.CrossEntropyLoss()
        >>> loss(paddle.to_tensor([[0.0, 0.0]]), paddle.to_tensor([1])).numpy()
        array(0.6931472, dtype=float32)
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction = _check_reduction("CrossEntropyLoss", reduction)
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax, label_smoothing=self.label_smoothing)


class NLLLoss(Layer):
    """Negative log likelihood of log-probabilities against class indices (`paddle.nn.functional.nll_loss`).

    Args:
        weight (Tensor, optional): a weight per class.
        ignore_index (int, optional): Default: -100.
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.NLLLoss()(paddle.to_tensor([[-1.0, -2.0]]), paddle.to_tensor([1])).numpy()
        array(2., dtype=float32)
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        self._weight, self._ignore_index = weight, ignore_index
        self._reduction = _check_reduction("NLLLoss", reduction)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.nll_loss(input, label, weight=self._weight, ignore_index=self._ignore_index,
                          reduction=self._reduction)


class MSELoss(Layer):
    """Mean squared error (`paddle.nn.functional.mse_loss`).

    Args:
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.MSELoss()(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.0, 0.0])).numpy()
        array(2.5, dtype=float32)
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction("MSELoss", reduction)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.mse_loss(input, label, reduction=self.reduction)


class L1Loss(Layer):
    """Mean absolute error (`paddle.nn.functional.l1_loss`).

    Args:
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.L1Loss(reduction="sum")(paddle.to_tensor([1.0, -2.0]), paddle.zeros([2])).numpy()
        array(3., dtype=float32)
    """

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        self.reduction = _check_reduction("L1Loss", reduction)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.l1_loss(input, label, reduction=self.reduction)


class BCELoss(Layer):
    """Binary cross entropy of probabilities (`paddle.nn.functional.binary_cross_entropy`).

    Args:
        weight (Tensor, optional): a weight per element (broadcast).
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.BCELoss()(paddle.to_tensor([0.5]), paddle.to_tensor([1.0])).numpy()
        array(0.6931472, dtype=float32)
    """

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        self.weight, self.reduction = weight, _check_reduction("BCELoss", reduction)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.binary_cross_entropy(input, label, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(Layer):
    """Binary cross entropy of logits, computed stably (`paddle.nn.functional.binary_cross_entropy_with_logits`).

    Args:
        weight (Tensor, optional): a weight per element (broadcast).
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        pos_weight (Tensor, optional): a weight of the positive term per class.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.BCEWithLogitsLoss()(paddle.to_tensor([0.0]), paddle.to_tensor([1.0])).numpy()
        array(0.6931472, dtype=float32)
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        self.weight, self.pos_weight = weight, pos_weight
        self.reduction = _check_reduction("BCEWithLogitsLoss", reduction)

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, weight=self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class SmoothL1Loss(Layer):
    """Huber loss: quadratic below `delta`, linear above (`paddle.nn.functional.smooth_l1_loss`).

    Args:
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        delta (float, optional): Default: 1.0.
        is_huber (bool, optional): True (default): the Huber form; False: divided by delta.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.SmoothL1Loss()(paddle.to_tensor([0.5, 3.0]), paddle.zeros([2])).numpy()
        array(1.3125, dtype=float32)
    """

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction, self.delta = _check_reduction("SmoothL1Loss", reduction), delta
        self.is_huber = is_huber

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta, is_huber=self.is_huber)


class KLDivLoss(Layer):
    """Kullback-Leibler divergence of log-probabilities `input` from probabilities `label`
    (`paddle.nn.functional.kl_div`).

    Args:
        reduction (str, optional): 'mean' (default), 'batchmean', 'sum' or 'none'.
        log_target (bool, optional): True when `label` holds log-probabilities. Default: False (probabilities).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.KLDivLoss(reduction="sum")(paddle.to_tensor([-0.6931472]), paddle.to_tensor([0.5])).numpy()
        array(0., dtype=float32)
    """

    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        if reduction not in _REDUCTIONS + ("batchmean",):
            raise ValueError(f"KLDivLoss: reduction must be 'none', 'mean', 'batchmean' or 'sum', got {reduction!r}")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.kl_div(input, label, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(Layer):
    """``max(0, -label * (input - other) + margin)`` (`paddle.nn.functional.margin_ranking_loss`).

    Args:
        margin (float, optional): Default: 0.0.
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.MarginRankingLoss(margin=1.0)
        >>> m(paddle.to_tensor([1.0]), paddle.to_tensor([2.0]), paddle.to_tensor([1.0])).numpy()
        array(2., dtype=float32)
    """

    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction = margin, _check_reduction("MarginRankingLoss", reduction)

    def forward(self, input, other, label):  # noqa: A002 - Paddle's argument name
        return F.margin_ranking_loss(input, other, label, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(Layer):
    """``x`` where label is 1, ``max(0, margin - x)`` where it is -1 (`paddle.nn.functional.hinge_embedding_loss`).

    Args:
        margin (float, optional): Default: 1.0.
        reduction (str, optional): 'mean' (default), 'sum' or 'none'.
        name (str, optional): unused label, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.HingeEmbeddingLoss(reduction="none")
        >>> m(paddle.to_tensor([0.3, 0.3]), paddle.to_tensor([1.0, -1.0])).numpy()
        array([0.3, 0.7], dtype=float32)
    """

    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__()
        self.margin, self.reduction = margin, _check_reduction("HingeEmbeddingLoss", reduction)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.hinge_embedding_loss(input, label, margin=self.margin, reduction=self.reduction)
