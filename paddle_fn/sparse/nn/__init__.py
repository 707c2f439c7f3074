"""`paddle.sparse.nn`: layers and functions for sparse Tensors (``paddle.sparse.nn.functional``)."""
from paddle_fn.sparse.nn import functional  # noqa: F401
from paddle_fn.sparse.nn.layer import BatchNorm, LeakyReLU, ReLU, ReLU6, Softmax  # noqa: F401

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm"]
