"""`paddle.sparse.nn`'s layers: the dense activation layers (`paddle.nn.ReLU`, ...) with the sparse functions,
and `BatchNorm`, which normalizes the channels (the last axis) of a COO Tensor's stored values."""
from __future__ import annotations

from paddle_fn.nn_compat.layer import activation, norm
from paddle_fn.sparse.nn import functional as SF
from paddle_fn.sparse.tensor import SparseCooTensor

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm"]


class ReLU(activation.ReLU):
    """`paddle.sparse.nn.functional.relu` as a layer.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 1.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.ReLU()(x).values().numpy()
        array([0., 1.], dtype=float32)
    """
    _fn = staticmethod(SF.relu)


class ReLU6(activation.ReLU6):
    """`paddle.sparse.nn.functional.relu6` as a layer.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 8.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.ReLU6()(x).values().numpy()
        array([0., 6.], dtype=float32)
    """
    _fn = staticmethod(SF.relu6)


class LeakyReLU(activation.LeakyReLU):
    """`paddle.sparse.nn.functional.leaky_relu` as a layer.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 5.]).to_sparse_coo(1)
        >>> paddle.sparse.nn.LeakyReLU(0.5)(x).values().numpy()
        array([-1.,  5.], dtype=float32)
    """
    _fn = staticmethod(SF.leaky_relu)


class Softmax(activation.Softmax):
    """`paddle.sparse.nn.functional.softmax` as a layer.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 2, 3], [0, 2, 1], [1., 2., 5.], [2, 3])
        >>> paddle.sparse.nn.Softmax()(x).values().numpy()
        array([0.2689414, 0.7310586, 1.       ], dtype=float32)
    """
    _fn = staticmethod(SF.softmax)


class BatchNorm(norm.BatchNorm1D):
    """Batch normalization of a COO Tensor whose values are ``[nnz, C]`` (channels last, Paddle's 'NDHWC'): the
    statistics are over the stored entries only, with `paddle.nn.BatchNorm1D`'s parameters, running statistics
    and train/eval behaviour.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[[0.3, 0.4], [0.0, 0.0]], [[0.8, 0.2], [0.1, 0.9]]]).to_sparse_coo(2)
        >>> out = paddle.sparse.nn.BatchNorm(2)(x)
        >>> out.shape, out.values().numpy().round(4)
        ([2, 2, 2], array([[-0.3397, -0.3397],
               [ 1.3587, -1.019 ],
               [-1.019 ,  1.3587]], dtype=float32))
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NDHWC", use_global_stats=None, name=None):
        if data_format not in ("NDHWC", "NHWC"):
            raise ValueError(f"paddle.sparse.nn.BatchNorm: data_format must be 'NDHWC' (channels last), got "
                             f"{data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        if not isinstance(input, SparseCooTensor) or input.dense_dim() != 1:
            raise TypeError(f"paddle.sparse.nn.BatchNorm: expects a COO Tensor with the channels as its one dense "
                            f"axis (x.to_sparse_coo(x.ndim - 1)), got {type(input).__name__}")
        return input._with_values(super().forward(input.values()))
