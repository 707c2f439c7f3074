"""Loss layers over structured outputs (`paddle.nn.HSigmoidLoss`, `paddle.nn.AdaptiveLogSoftmaxWithLoss`,
`paddle.nn.RNNTLoss`): a class tree, frequency clusters of classes, transducer alignments. Over
`paddle.nn.functional`'s `hsigmoid_loss`, `adaptive_log_softmax_with_loss` and `rnnt_loss`."""
from __future__ import annotations

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer._loss_base import _check_reduction
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["AdaptiveLogSoftmaxWithLoss", "HSigmoidLoss", "RNNTLoss"]


class HSigmoidLoss(Layer):
    """The hierarchical sigmoid loss (`paddle.nn.functional.hsigmoid_loss`) with its node weights [nodes,
    feature_size] and biases [nodes, 1] as parameters: ``num_classes - 1`` nodes of Paddle's default tree, or
    ``num_classes`` with ``is_custom=True`` (the tree then given by ``path_table``/``path_code`` at each call).

    Args:
        feature_size (int): the input's feature size D.
        num_classes (int): the number of classes (custom tree: of nodes).
        weight_attr (ParamAttr, optional): the weight's attributes.
        bias_attr (ParamAttr|bool, optional): the bias' attributes; False: no bias.
        is_custom (bool, optional): the tree comes with each call. Default: False.
        is_sparse (bool, optional): Paddle's sparse gradient storage; the values are the same. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.nn.HSigmoidLoss(3, 5)
        >>> loss.weight.shape, loss.bias.shape
        (paddle.Size([4, 3]), paddle.Size([4, 1]))
        >>> loss(paddle.ones([2, 3]), paddle.to_tensor([0, 4])).shape
        paddle.Size([2, 1])
    """

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False,
                 is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes must be at least 2, got {num_classes}")
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = is_custom, is_sparse
        nodes = num_classes if is_custom else num_classes - 1
        dtype = paddle_fn.get_default_dtype()
        self.weight = self.create_parameter([nodes, feature_size], attr=weight_attr, dtype=dtype)
        self.bias = (None if bias_attr is False
                     else self.create_parameter([nodes, 1], attr=bias_attr, dtype=dtype, is_bias=True))

    def forward(self, input, label, path_table=None, path_code=None):  # noqa: A002 - Paddle's argument name
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table=path_table,
                               path_code=path_code, is_sparse=self._is_sparse)


class AdaptiveLogSoftmaxWithLoss(Layer):
    """The adaptive log-softmax (`paddle.nn.functional.adaptive_log_softmax_with_loss`): a head over the classes
    below ``cutoffs[0]`` and one entry per cluster, and per cluster i a projection ``[in_features, in_features //
    div_value ** (i + 1)]`` then ``[that, cluster size]``. ``forward(input, label)`` gives (log-probabilities of
    the labels, loss); ``log_prob(input)`` every class's log-probability; ``predict(input)`` the likeliest class
    (float32, as Paddle).

    Args:
        in_features (int): the input's feature size.
        n_classes (int): the number of classes.
        cutoffs (list[int]): increasing cluster boundaries in [1, n_classes - 1].
        weight_attr (ParamAttr, optional): the weights' attributes.
        bias_attr (ParamAttr, optional): the head bias' attributes.
        div_value (float, optional): the divisor of each next cluster's projection size. Default: 4.0.
        head_bias (bool, optional): give the head a bias. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> asfm = paddle.nn.AdaptiveLogSoftmaxWithLoss(4, 6, cutoffs=[2], div_value=2.0)
        >>> out, loss = asfm(paddle.ones([3, 4]), paddle.to_tensor([0, 3, 5]))
        >>> out.shape, loss.shape, asfm.log_prob(paddle.ones([3, 4])).shape
        (paddle.Size([3]), paddle.Size([]), paddle.Size([3, 6]))
    """

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None, div_value=4.0,
                 head_bias=False, name=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers "
                             f"sorted in an increasing order, each between 1 and n_classes - 1; got {cutoffs}")
        dtype = paddle_fn.get_default_dtype()
        self.in_features, self.n_classes, self.div_value = in_features, n_classes, div_value
        self.cutoffs = [*cutoffs, n_classes]
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.is_head_bias = head_bias
        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr, dtype=dtype)
        self.head_bias = (self.create_parameter([self.head_size], attr=bias_attr, dtype=dtype, is_bias=True)
                          if head_bias else None)
        # registered (Paddle keeps them in a plain list, out of parameters() and so out of the optimizer's reach)
        self.tail_weights = []
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            pair = [self.create_parameter([in_features, hidden], attr=weight_attr, dtype=dtype),
                    self.create_parameter([hidden, size], attr=weight_attr, dtype=dtype)]
            for j, p in enumerate(pair):
                self.add_parameter(f"tail_weights_{i}_{j}", p)
            self.tail_weights.append(pair)

    def forward(self, input, label):  # noqa: A002 - Paddle's argument name
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight, self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def _full_log_prob(self, input, head_output):  # noqa: A002
        head_logprob = F.log_softmax(head_output, axis=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.linear(F.linear(input, self.tail_weights[i][0]), self.tail_weights[i][1])
            parts.append(F.log_softmax(cluster, axis=1) + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return paddle_fn.concat(parts, axis=1)

    def log_prob(self, input):  # noqa: A002
        """Every class's log-probability, [N, n_classes]."""
        return self._full_log_prob(input, F.linear(input, self.head_weight, self.head_bias))

    def predict(self, input):  # noqa: A002
        """The likeliest class of each sample, as float32 [N]: the head's argmax where it is a frequent class,
        else the argmax over all classes."""
        head_output = F.linear(input, self.head_weight, self.head_bias)
        head_best = paddle_fn.argmax(head_output, axis=1)
        full_best = paddle_fn.argmax(self._full_log_prob(input, head_output), axis=1)
        return paddle_fn.where(head_best < self.shortlist_size, head_best, full_best).astype("float32")


class RNNTLoss(Layer):
    """The RNN transducer loss (`paddle.nn.functional.rnnt_loss`).

    Args:
        blank (int, optional): the blank class. Default: 0.
        fastemit_lambda (float, optional): FastEmit's gradient scale of label emissions. Default: 0.001.
        reduction (str, optional): 'mean' (sum / batch), 'sum' or 'none'. Default: 'mean'.

    Example:
        >>> import paddle_fn as paddle
        >>> logp = paddle.log(paddle.full([1, 2, 2, 2], 0.5))
        >>> ones = paddle.to_tensor([1], dtype='int32')
        >>> paddle.nn.RNNTLoss()(logp, ones.reshape([1, 1]), ones * 2, ones).numpy()
        array(1.3862944, dtype=float32)
    """

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        self.blank, self.fastemit_lambda = blank, fastemit_lambda
        self.reduction = _check_reduction("RNNTLoss", reduction)

    def forward(self, input, label, input_lengths, label_lengths):  # noqa: A002 - Paddle's argument name
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction)
