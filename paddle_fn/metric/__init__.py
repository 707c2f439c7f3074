"""`paddle.metric`: streaming evaluation metrics (`Metric`, `Accuracy`, `Precision`, `Recall`, `Auc`) for
`paddle.Model` and hand-written loops, and the functional `accuracy`.

Example:
    >>> import paddle_fn as paddle
    >>> m = paddle.metric.Accuracy()
    >>> m.update(m.compute(paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]]), paddle.to_tensor([[1], [1]])))
    0.5
"""
from paddle_fn.metric.metrics import Accuracy, Auc, Metric, Precision, Recall, accuracy  # noqa: F401

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
