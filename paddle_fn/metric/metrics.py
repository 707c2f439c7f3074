"""Paddle's metric protocol: ``compute`` (Tensor work on a batch, may run inside the model's step) then
``update`` (numpy bookkeeping, returns the batch's value), ``accumulate`` (the value over all batches since the
last ``reset``) and ``name``. ``paddle.Model`` calls them in that order for every batch; the progress log shows
``accumulate()``.
"""
import abc

import numpy as np

import paddle_fn as paddle

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]


def _as_numpy(value, what, metric):
    """A batch of predictions or labels as a numpy array; a Tensor is converted, anything else is an error."""
    if isinstance(value, paddle.Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    raise ValueError(f"{metric}.update: '{what}' must be a numpy ndarray or Tensor, got {type(value).__name__}")


class Metric(abc.ABC):
    """Base class of the metrics: subclasses implement ``reset``, ``update``, ``accumulate`` and ``name``, and may
    override ``compute`` (Tensor preprocessing of a batch; by default it returns its arguments unchanged).

    ``paddle.Model`` calls ``update(*compute(*outputs, *labels))`` for each batch (the results of ``compute``
    converted to numpy), shows ``accumulate()`` in the progress log under ``name()`` and calls ``reset()`` at the
    end of each epoch.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> class MeanAbsError(paddle.metric.Metric):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.reset()
        ...     def reset(self):
        ...         self.total, self.count = 0.0, 0
        ...     def update(self, preds, labels):
        ...         err = np.abs(np.asarray(preds) - np.asarray(labels))
        ...         self.total += float(err.sum()); self.count += err.size
        ...         return float(err.mean())
        ...     def accumulate(self):
        ...         return self.total / self.count
        ...     def name(self):
        ...         return "mae"
        >>> m = MeanAbsError()
        >>> m.update(np.array([1.0, 2.0]), np.array([1.5, 2.0])), m.update(np.array([0.0]), np.array([1.0]))
        (0.25, 1.0)
        >>> m.accumulate()
        0.5
    """

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Clear the accumulated state."""

    @abc.abstractmethod
    def update(self, *args):
        """Add one batch (numpy arrays) to the state; returns the batch's own value."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over every batch since the last ``reset``."""

    @abc.abstractmethod
    def name(self):
        """The name (or list of names) the progress log shows."""

    def compute(self, *args):
        """Tensor preprocessing of a batch (the network's outputs, then the labels); returns the arguments of
        ``update``. The default returns its arguments unchanged."""
        return args


class Accuracy(Metric):
    """Top-k classification accuracy over a stream of batches.

    Args:
        topk (tuple|list of int, optional): the k values; ``(1, 5)`` reports top-1 and top-5. Default: ``(1,)``.
        name (str, optional): the log name; ``'acc'`` by default, ``'acc_top1'``, ``'acc_top5'``... when
            ``max(topk) > 1``.

    ``compute(pred, label)`` takes scores ``[N, C]`` (or ``[..., C]``) and labels as class ids ``[N]`` / ``[N, 1]``
    or one-hot / soft ``[N, C]`` (the argmax is taken), and returns a float32 ``[N, max(topk)]`` matrix whose
    column j is 1 where the label is the prediction ranked j. ``update`` returns the batch accuracy (a list when
    there are several k).

    Example:
        >>> import paddle_fn as paddle
        >>> pred = paddle.to_tensor([[0.1, 0.9, 0.0], [0.8, 0.15, 0.05], [0.3, 0.2, 0.5]])
        >>> label = paddle.to_tensor([[1], [1], [0]])
        >>> m = paddle.metric.Accuracy(topk=(1, 2))
        >>> correct = m.compute(pred, label)
        >>> correct.numpy()
        array([[1., 0.],
               [0., 1.],
               [0., 1.]], dtype=float32)
        >>> m.update(correct), m.name()
        ([0.3333333333333333, 1.0], ['acc_top1', 'acc_top2'])
        >>> m.accumulate()
        [0.3333333333333333, 1.0]
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        topk = tuple(topk) if isinstance(topk, (list, tuple)) else (topk,)
        if not topk or not all(isinstance(k, int) and k > 0 for k in topk):
            raise ValueError(f"Accuracy: topk must be positive ints, got {topk!r}")
        self.topk = topk
        self.maxk = max(topk)
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """The ``[N, max(topk)]`` float32 matrix of hits (see the class docstring)."""
        pred, label = paddle.to_tensor(pred), paddle.to_tensor(label)
        if pred.shape[-1] < self.maxk:
            raise ValueError(f"Accuracy: topk={self.topk} needs at least {self.maxk} classes, but pred has shape "
                             f"{list(pred.shape)}")
        ranked = paddle.argsort(pred, axis=-1, descending=True)[..., :self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = label.reshape([-1, 1])
        else:  # one-hot or soft labels: the class with the highest weight
            label = paddle.argmax(label, axis=-1, keepdim=True)
        return (ranked == label.astype(ranked.dtype)).astype("float32")

    def update(self, correct, *args):
        """Count the hits of one batch (the result of ``compute``); returns its accuracy per k."""
        correct = _as_numpy(correct, "correct", "Accuracy")
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = float(correct[..., :k].sum())
            accs.append(hits / num_samples)
            self.total[i] += hits
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        """Forget every batch."""
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        """Accuracy over the batches since ``reset`` (0.0 before any): a float, or a list per k."""
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        """The log names, a list: ``['acc']`` or ``['acc_top1', 'acc_top5']``."""
        return self._name


class Precision(Metric):
    """Precision of a binary classifier: true positives / predicted positives. ``update(preds, labels)`` takes
    probabilities ``[N]`` or ``[N, 1]`` (rounded at 0.5) and 0/1 labels.

    Args:
        name (str, optional): the log name. Default: ``'precision'``.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> m = paddle.metric.Precision()
        >>> m.update(np.array([0.1, 0.5, 0.6, 0.9]), np.array([0, 1, 1, 0]))
        >>> m.accumulate()
        0.6666666666666666
    """

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        """Count the true and false positives of one batch."""
        preds = np.floor(_as_numpy(preds, "preds", "Precision") + 0.5).astype("int32").reshape(-1)
        labels = _as_numpy(labels, "labels", "Precision").reshape(-1)
        if preds.shape != labels.shape:
            raise ValueError(f"Precision.update: preds has {preds.size} values but labels has {labels.size}")
        positive = preds == 1
        self.tp += int(np.sum(positive & (labels == 1)))
        self.fp += int(np.sum(positive & (labels != 1)))

    def reset(self):
        """Forget every batch."""
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        """tp / (tp + fp), 0.0 when nothing was predicted positive."""
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else 0.0

    def name(self):
        """The log name."""
        return self._name


class Recall(Metric):
    """Recall of a binary classifier: true positives / actual positives. ``update(preds, labels)`` takes
    probabilities ``[N]`` or ``[N, 1]`` (rounded to the nearest integer) and 0/1 labels.

    Args:
        name (str, optional): the log name. Default: ``'recall'``.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> m = paddle.metric.Recall()
        >>> m.update(np.array([0.1, 0.5, 0.6, 0.9]), np.array([0, 1, 1, 0]))
        >>> m.accumulate()
        0.5
    """

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        """Count the true positives and false negatives of one batch."""
        # np.rint rounds half to even (0.5 -> 0), as Paddle's Recall does (Precision rounds 0.5 up)
        preds = np.rint(_as_numpy(preds, "preds", "Recall")).astype("int32").reshape(-1)
        labels = _as_numpy(labels, "labels", "Recall").reshape(-1)
        if preds.shape != labels.shape:
            raise ValueError(f"Recall.update: preds has {preds.size} values but labels has {labels.size}")
        actual = labels == 1
        self.tp += int(np.sum(actual & (preds == 1)))
        self.fn += int(np.sum(actual & (preds != 1)))

    def reset(self):
        """Forget every batch."""
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        """tp / (tp + fn), 0.0 when there was no positive label."""
        actual = self.tp + self.fn
        return self.tp / actual if actual else 0.0

    def name(self):
        """The log name."""
        return self._name


class Auc(Metric):
    """Area under the ROC curve of a binary classifier, from histograms of the positive-class probability.

    Args:
        curve (str, optional): ``'ROC'`` (the only curve computed, as in Paddle). Default: ``'ROC'``.
        num_thresholds (int, optional): histogram buckets; more buckets, finer thresholds. Default: 4095.
        name (str, optional): the log name. Default: ``'auc'``.

    ``update(preds, labels)`` takes ``preds`` of shape ``[N, 2]`` (column 1 is the probability of the positive
    class, in [0, 1]) and labels ``[N]`` or ``[N, 1]``.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> m = paddle.metric.Auc()
        >>> p = np.array([0.1, 0.4, 0.35, 0.8])
        >>> m.update(np.stack([1 - p, p], axis=1), np.array([0, 0, 1, 1]))
        >>> m.accumulate()
        0.75
    """

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        if curve != "ROC":
            raise NotImplementedError(f"Auc: curve={curve!r} is not supported; only the ROC curve is computed "
                                      "(as in Paddle, whose Auc ignores 'PR')")
        if not isinstance(num_thresholds, int) or num_thresholds < 1:
            raise ValueError(f"Auc: num_thresholds must be a positive int, got {num_thresholds!r}")
        self._curve = curve
        self._num_thresholds = num_thresholds
        self._name = name
        self.reset()

    def update(self, preds, labels):
        """Add one batch to the positive and negative histograms."""
        preds = _as_numpy(preds, "preds", "Auc")
        labels = _as_numpy(labels, "labels", "Auc").reshape(-1)
        if preds.ndim != 2 or preds.shape[1] < 2 or preds.shape[0] != labels.size:
            raise ValueError(f"Auc.update: preds must have shape [N, 2] (column 1 the positive probability) for "
                             f"{labels.size} labels, got {list(preds.shape)}")
        bins = (preds[:, 1] * self._num_thresholds).astype("int64")
        if bins.min(initial=0) < 0 or bins.max(initial=0) > self._num_thresholds:
            raise ValueError("Auc.update: the positive-class probabilities must lie in [0, 1]")
        positive = labels.astype(bool)
        self._stat_pos += np.bincount(bins[positive], minlength=self._num_thresholds + 1)
        self._stat_neg += np.bincount(bins[~positive], minlength=self._num_thresholds + 1)

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        """Area of the trapezoid between x1 and x2 under heights y1, y2."""
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        """The area under the ROC curve (0.0 until both classes were seen)."""
        # walk the thresholds from high to low: cumulative true/false positive counts trace the ROC curve
        tp = np.concatenate([[0.0], np.cumsum(self._stat_pos[::-1])])
        fp = np.concatenate([[0.0], np.cumsum(self._stat_neg[::-1])])
        if tp[-1] <= 0 or fp[-1] <= 0:
            return 0.0
        area = float(np.sum(self.trapezoid_area(fp[1:], fp[:-1], tp[1:], tp[:-1])))
        return area / float(tp[-1]) / float(fp[-1])

    def reset(self):
        """Empty the histograms."""
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        """The log name."""
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):  # noqa: A002 - Paddle's parameter name
    """Top-k accuracy of one batch: the fraction of rows of ``input`` whose label is among its k highest scores.

    Args:
        input (Tensor): scores, shape ``[N, C]``, float.
        label (Tensor): class ids, shape ``[N, 1]``, int32 or int64.
        k (int, optional): how many top scores count. Default: 1.
        correct (Tensor, optional): if given (int32/int64 ``[1]``), set to the number of hits.
        total (Tensor, optional): if given (int32/int64 ``[1]``), set to N.
        name (str, optional): unused, for Paddle compatibility.

    Returns:
        Tensor: a float32 0-D Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
        >>> paddle.metric.accuracy(x, paddle.to_tensor([[1], [1], [0]]))
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               0.33333334)
        >>> paddle.metric.accuracy(x, paddle.to_tensor([[1], [1], [0]]), k=2)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.)
    """
    input, label = paddle.to_tensor(input), paddle.to_tensor(label)
    if label.ndim != 2 or label.shape[1] != 1 or input.ndim != 2 or label.shape[0] != input.shape[0]:
        raise ValueError(f"accuracy: input must have shape [N, C] and label [N, 1], got input {list(input.shape)} "
                         f"and label {list(label.shape)}; reshape a [N] label with label.reshape([-1, 1])")
    if label.dtype not in (paddle.int32, paddle.int64):
        raise TypeError(f"accuracy: label must be int32 or int64, got {label.dtype}")
    _, indices = paddle.topk(input, k=k)
    hits = (indices == label.astype(indices.dtype)).astype("int32").sum()
    n = input.shape[0]
    if correct is not None:
        correct.set_value(hits.reshape([1]).astype(correct.dtype))
    if total is not None:
        total.set_value(paddle.to_tensor([n], dtype=total.dtype))
    return (hits.astype("float32") / float(n)).detach()
