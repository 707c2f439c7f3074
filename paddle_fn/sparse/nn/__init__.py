"""`paddle.sparse.nn`: layers and functions for sparse Tensors (``paddle.sparse.nn.functional``)."""
from paddle_fn.sparse.nn import functional  # noqa: F401
from paddle_fn.sparse.nn.layer import (  # noqa: F401
    BatchNorm, Conv2D, Conv3D, LeakyReLU, MaxPool3D, ReLU, ReLU6, Softmax, SubmConv2D, SubmConv3D)

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "Conv2D", "Conv3D", "SubmConv2D", "SubmConv3D",
           "MaxPool3D"]
