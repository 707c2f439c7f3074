"""`paddle.nn.functional`: Paddle's stateless neural-network functions, composed from the Tensor API and
the `conv_general_dilated` primitive. Every function works eagerly and under grad, vmap and jit.

The functions live in modules by family as Paddle keeps them (``activation``, ``common``, ``conv``,
``distance``, ``extension``, ``input``, ``loss``, ``norm``, ``pooling``, ``vision``); this package re-exports
them all. See docs/nn_functional.md.
"""
from __future__ import annotations

from paddle_fn.nn.functional.activation import (  # noqa: F401
    celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish, hardtanh, leaky_relu, log_sigmoid, log_softmax,
    maxout, mish, prelu, relu, relu6, selu, sigmoid, silu, softmax, softplus, softshrink, softsign, swish, tanh,
    tanhshrink, thresholded_relu)
from paddle_fn.nn.functional.common import (  # noqa: F401
    alpha_dropout, bilinear, cosine_similarity, dropout, dropout2d, dropout3d, interpolate, label_smooth, linear,
    pad, unfold, upsample, zeropad2d)
from paddle_fn.nn.functional.conv import (  # noqa: F401
    conv1d, conv1d_transpose, conv2d, conv2d_transpose, conv3d, conv3d_transpose)
from paddle_fn.nn.functional.distance import pairwise_distance  # noqa: F401
from paddle_fn.nn.functional.extension import diag_embed, sequence_mask, temporal_shift  # noqa: F401
from paddle_fn.nn.functional.input import embedding, one_hot  # noqa: F401
from paddle_fn.nn.functional.loss import (  # noqa: F401
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, dice_loss, hinge_embedding_loss, kl_div,
    l1_loss, log_loss, margin_ranking_loss, mse_loss, nll_loss, sigmoid_focal_loss, smooth_l1_loss,
    softmax_with_cross_entropy, square_error_cost)
from paddle_fn.nn.functional.norm import (  # noqa: F401
    batch_norm, batch_norm_with_stats, group_norm, instance_norm, layer_norm, local_response_norm, normalize)
from paddle_fn.nn.functional.pooling import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
    adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d, max_pool2d, max_pool3d)
from paddle_fn.nn.functional.vision import channel_shuffle, pixel_shuffle, pixel_unshuffle  # noqa: F401

__all__ = [
    # activations
    "relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "swish", "mish", "hardswish", "hardsigmoid", "hardtanh",
    "hardshrink", "softshrink", "thresholded_relu", "leaky_relu", "prelu", "softplus", "softsign", "tanhshrink",
    "log_sigmoid", "sigmoid", "tanh", "softmax", "log_softmax", "maxout", "glu",
    # linear / embedding
    "linear", "bilinear", "embedding", "one_hot",
    # dropout
    "dropout", "dropout2d", "dropout3d", "alpha_dropout",
    # convolution
    "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose",
    # pooling
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    # normalization
    "layer_norm", "batch_norm", "batch_norm_with_stats", "instance_norm", "group_norm", "normalize",
    "local_response_norm",
    # padding / resampling
    "pad", "zeropad2d", "interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "unfold", "diag_embed",
    # distances
    "cosine_similarity", "pairwise_distance", "label_smooth",
    # losses
    "cross_entropy", "softmax_with_cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "mse_loss", "l1_loss", "smooth_l1_loss", "kl_div", "square_error_cost",
    "margin_ranking_loss", "sigmoid_focal_loss", "hinge_embedding_loss", "log_loss", "dice_loss",
]
from paddle_fn.nn.functional.ctc import ctc_loss  # noqa: E402,F401 - the CTC loss has its own module
__all__ += ["ctc_loss"]
from paddle_fn.nn.functional.sdpa import flash_attn_qkvpacked, scaled_dot_product_attention  # noqa: E402,F401
__all__ += ["flash_attn_qkvpacked", "scaled_dot_product_attention", "temporal_shift"]
from paddle_fn.nn.functional.decode import gather_tree  # noqa: E402,F401
__all__ += ["gather_tree"]
__all__ += ["sequence_mask"]
# Paddle 3's additions, each family in its own module
from paddle_fn.nn.functional.activation import logsigmoid, swiglu  # noqa: E402,F401
from paddle_fn.nn.functional.common import fold  # noqa: E402,F401
from paddle_fn.nn.functional.pooling import lp_pool1d, lp_pool2d  # noqa: E402,F401
from paddle_fn.nn.functional import grid, inplace, margin_loss, stochastic, unpooling  # noqa: E402
from paddle_fn.nn.functional.grid import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.inplace import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.margin_loss import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.stochastic import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.unpooling import *  # noqa: E402,F401,F403
__all__ += ["logsigmoid", "swiglu", "fold", "lp_pool1d", "lp_pool2d"]
__all__ += grid.__all__ + inplace.__all__ + margin_loss.__all__ + stochastic.__all__ + unpooling.__all__
from paddle_fn.nn.functional import fractional_pooling, hierarchical_loss  # noqa: E402
from paddle_fn.nn.functional.fractional_pooling import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.hierarchical_loss import *  # noqa: E402,F401,F403
from paddle_fn.nn.functional.rnnt import rnnt_loss  # noqa: E402,F401
__all__ += fractional_pooling.__all__ + hierarchical_loss.__all__ + ["rnnt_loss"]
