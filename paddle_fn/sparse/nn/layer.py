"""`paddle.sparse.nn`'s layers: the dense activation layers (`paddle.nn.ReLU`, ...) with the sparse functions,
`BatchNorm`, which normalizes the channels (the last axis) of a COO Tensor's stored values, the convolutions
(`Conv2D`, `Conv3D`, `SubmConv2D`, `SubmConv3D`) and `MaxPool3D`."""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.nn_compat.initializer import Normal
from paddle_fn.nn_compat.layer import activation, norm
from paddle_fn.nn_compat.layer.layers import Layer
from paddle_fn.nn_compat.layer.pooling import _WindowPool
from paddle_fn.nn.functional._shared import _tuple
from paddle_fn.sparse.nn import functional as SF
from paddle_fn.sparse.tensor import SparseCooTensor

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D",
           "MaxPool3D"]


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
        (paddle.Size([2, 2, 2]), array([[-0.3397, -0.3397],
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


class _SparseConv(Layer):
    """A sparse convolution layer: the weight ``[*kernel_size, in_channels / groups, out_channels]`` (Paddle's
    sparse layout) with Paddle's default Normal(0, sqrt(2 / (in_channels * prod(kernel_size)))) and a zero bias."""
    _dims = 3
    _fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                 weight_attr, bias_attr, data_format, key=None, backend=None):
        super().__init__()
        op = f"paddle.sparse.nn.{type(self).__name__}"
        layout = "NDHWC" if self._dims == 3 else "NHWC"
        if weight_attr is False:
            raise ValueError(f"{op}: weight_attr should not be False (a convolution needs its weight)")
        if padding_mode != "zeros":
            raise ValueError(f"{op}: padding_mode must be 'zeros' (the sites not stored are zeros), got "
                             f"{padding_mode!r}")
        if data_format != layout:
            raise ValueError(f"{op}: data_format must be {layout!r} (channels last), got {data_format!r}")
        if backend not in (None, "igemm"):
            raise ValueError(f"{op}: backend must be None or 'igemm', got {backend!r}")
        if groups < 1 or in_channels % groups or out_channels % groups:
            raise ValueError(f"{op}: in_channels ({in_channels}) and out_channels ({out_channels}) must be "
                             f"divisible by groups ({groups})")
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = list(_tuple(op, kernel_size, self._dims, "kernel_size"))
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._data_format, self._key, self._backend = data_format, key, backend
        init = Normal(0.0, (2.0 / (in_channels * int(np.prod(self._kernel_size)))) ** 0.5)
        self.weight = self.create_parameter([*self._kernel_size, in_channels // groups, out_channels],
                                            attr=weight_attr, dtype=dtypes.get_default_dtype(),
                                            default_initializer=init)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, dtype=dtypes.get_default_dtype(),
                                          is_bias=True)

    def _options(self) -> dict:
        return {"stride": self._stride, "padding": self._padding, "dilation": self._dilation, "groups": self._groups,
                "data_format": self._data_format}

    def forward(self, x):
        return type(self)._fn(x, self.weight, bias=self.bias, **self._options())

    def extra_repr(self):
        return (f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, stride={self._stride}, "
                f"padding={self._padding}, dilation={self._dilation}, groups={self._groups}, "
                f"data_format={self._data_format}")


class _SubmConv(_SparseConv):
    _igemm = None

    def _options(self) -> dict:
        return {**super()._options(), "key": self._key}

    def forward(self, x):
        fn = type(self)._igemm if self._backend == "igemm" else type(self)._fn
        return fn(x, self.weight, bias=self.bias, **self._options())


class Conv3D(_SparseConv):
    """`paddle.sparse.nn.functional.conv3d` as a layer, for ``[N, D, H, W, C]`` COO Tensors.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> conv = paddle.sparse.nn.Conv3D(1, 2, (1, 3, 3), weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> y = conv(x)
        >>> y.shape, y.values().numpy()
        (paddle.Size([1, 1, 1, 2, 2]), array([[3., 3.],
               [3., 3.]], dtype=float32))
    """
    _fn = staticmethod(SF.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NDHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class Conv2D(_SparseConv):
    """`paddle.sparse.nn.functional.conv2d` as a layer, for ``[N, H, W, C]`` COO Tensors.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 3, 4, 1])
        >>> conv = paddle.sparse.nn.Conv2D(1, 1, 3, padding=1, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> conv(x).nnz()
        11
    """
    _dims = 2
    _fn = staticmethod(SF.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", weight_attr=None, bias_attr=None, data_format="NHWC"):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format)


class SubmConv3D(_SubmConv):
    """`paddle.sparse.nn.functional.subm_conv3d` as a layer: outputs only at the input's stored sites. `key`
    names the rulebook to keep and reuse; `backend='igemm'` calls `subm_conv3d_igemm` (the same result).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 1, 3, 4, 1])
        >>> conv = paddle.sparse.nn.SubmConv3D(1, 1, 3, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> conv(x).values().numpy().ravel()
        array([3., 3.], dtype=float32)
    """
    _fn = staticmethod(SF.subm_conv3d)
    _igemm = staticmethod(SF.subm_conv3d_igemm)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NDHWC",
                 backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format, key, backend)


class SubmConv2D(_SubmConv):
    """`paddle.sparse.nn.functional.subm_conv2d` as a layer: outputs only at the input's stored sites.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [1, 2]], [[1.], [2.]], [1, 3, 4, 1])
        >>> conv = paddle.sparse.nn.SubmConv2D(1, 1, 3, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> conv(x).values().numpy().ravel()
        array([3., 3.], dtype=float32)
    """
    _dims = 2
    _fn = staticmethod(SF.subm_conv2d)
    _igemm = staticmethod(SF.subm_conv2d_igemm)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 padding_mode="zeros", key=None, weight_attr=None, bias_attr=None, data_format="NHWC",
                 backend=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, padding_mode,
                         weight_attr, bias_attr, data_format, key, backend)


class MaxPool3D(_WindowPool):
    """`paddle.sparse.nn.functional.max_pool3d` as a layer. `return_mask=True` is refused: Paddle 3.3's sparse
    layer accepts it but returns the pooled Tensor only.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 2], [1, 3]], [[-1.], [5.]], [1, 2, 4, 4, 1])
        >>> paddle.sparse.nn.MaxPool3D([1, 2, 2])(x).values().numpy().ravel()
        array([-1.,  5.], dtype=float32)
    """
    _fn = staticmethod(SF.max_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NDHWC",
                 name=None):
        if return_mask:
            raise ValueError("paddle.sparse.nn.MaxPool3D: return_mask=True is not supported for sparse Tensors "
                             "(Paddle 3.3 ignores it and returns the pooled Tensor only)")
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         data_format=data_format)
