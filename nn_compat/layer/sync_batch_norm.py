"""`paddle.nn.SyncBatchNorm`: batch normalization whose batch statistics Paddle reduces over every process of a
data-parallel job. In one process that is BatchNorm over any rank (as Paddle's CPU path computes it);
`convert_sync_batchnorm` swaps it in for the batch-norm layers of a model, keeping their parameters and statistics."""
from __future__ import annotations

import paddle_fn
from paddle_fn.nn_compat.layer.norm import _BatchNormBase

__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization of ``[N, C, ...]`` (or channels-last) inputs of rank 2 to 5, with the statistics of
    the whole data-parallel batch: in one process, exactly `BatchNorm1D/2D/3D`'s result and running-statistics
    update. Training across several processes (``paddle.distributed`` with world size > 1) is refused: the
    statistics and their gradients would need reducing across processes, which this layer does not do.

    Args:
        num_features (int): C; with momentum, epsilon, weight_attr, bias_attr and name as in `BatchNorm2D`.
        data_format (str, optional): 'NC', 'NCL', 'NCHW' (default), 'NCDHW' (channels first) or 'NLC', 'NHWC',
            'NDHWC' (channels last).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn as nn
        >>> sbn = nn.SyncBatchNorm(2)
        >>> sbn(paddle.to_tensor([[[[1.0]], [[2.0]]], [[[3.0]], [[6.0]]]])).numpy().reshape(2, 2)
        array([[-0.999995 , -0.9999988],
               [ 0.999995 ,  0.9999988]], dtype=float32)
        >>> nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Conv2D(3, 5, 3), nn.BatchNorm2D(5)))[1]
        SyncBatchNorm(num_features=5, momentum=0.9, epsilon=1e-05)
    """
    _formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
    _ranks = (2, 3, 4, 5)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)

    def forward(self, x):
        if self.training and paddle_fn.distributed.get_world_size() > 1:
            raise NotImplementedError(
                f"SyncBatchNorm: training in {paddle_fn.distributed.get_world_size()} processes would reduce the "
                "batch statistics (and their gradients) across them, which paddle_fn does not do; use BatchNorm "
                "layers (per-process statistics) there")
        return super().forward(x)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """`layer` with every batch-norm layer in it (itself included) replaced by a SyncBatchNorm that shares
        its parameters and running statistics.

        Example:
            >>> import paddle_fn.nn as nn
            >>> model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm1D(4)))
            >>> type(model[0]).__name__
            'SyncBatchNorm'
        """
        converted = layer
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, cls):
            converted = cls(layer._num_features, layer._momentum, layer._epsilon, data_format=layer._data_format,
                            name=layer._name)
            converted.weight, converted.bias = layer.weight, layer.bias
            converted._mean, converted._variance = layer._mean, layer._variance
        for name, sublayer in layer.named_children():
            converted.add_sublayer(name, cls.convert_sync_batchnorm(sublayer))
        return converted
