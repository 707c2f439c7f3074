"""The in-place activations of ``paddle.nn.functional`` (``relu_``, ``elu_``, ...): each rebinds its input to the
out-of-place result and returns it (values are never written; see paddle_fn.tensor.inplace)."""
from __future__ import annotations

from paddle_fn.tensor.inplace import make_inplace
from paddle_fn.nn.functional.activation import (elu, hardtanh, leaky_relu, relu, softmax, tanh,
                                                thresholded_relu)

__all__ = ["relu_", "elu_", "hardtanh_", "leaky_relu_", "softmax_", "tanh_", "thresholded_relu_"]

relu_ = make_inplace("relu", relu, keep_shape=True)
elu_ = make_inplace("elu", elu, keep_shape=True)
hardtanh_ = make_inplace("hardtanh", hardtanh, keep_shape=True)
leaky_relu_ = make_inplace("leaky_relu", leaky_relu, keep_shape=True)
softmax_ = make_inplace("softmax", softmax, keep_shape=True)
tanh_ = make_inplace("tanh", tanh, keep_shape=True)
thresholded_relu_ = make_inplace("thresholded_relu", thresholded_relu, keep_shape=True)

for _method in (relu_, elu_, hardtanh_, leaky_relu_, softmax_, tanh_, thresholded_relu_):
    _method.__module__ = __name__  # defined here for the API reference, whatever module built it
