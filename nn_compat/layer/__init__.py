"""`paddle.nn.layer`: the Layer base class and the layers, organised by family as Paddle's are (``layers`` for
`Layer`, ``container``, ``common``, ``activation``, ``conv``, ``norm``, ``pooling``, ``loss``, ``distance``,
``vision``; ``padding`` holds Paddle 3.3's fixed-mode padding layers, ZeroPad1D to CircularPad3D)."""
from paddle_fn.nn_compat.layer import activation, common, conv, distance, loss, norm, padding, pooling, vision
from paddle_fn.nn_compat.layer.activation import *  # noqa: F401,F403 - the families' __all__ are the public names
from paddle_fn.nn_compat.layer.common import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.container import LayerDict, LayerList, ParameterDict, ParameterList, Sequential
from paddle_fn.nn_compat.layer.conv import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
from paddle_fn.nn_compat.layer.distance import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.layers import HookRemoveHelper, Layer
from paddle_fn.nn_compat.layer.loss import *  # noqa: F401,F403 - every loss layer, as Paddle's loss module
from paddle_fn.nn_compat.layer.norm import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.padding import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.pooling import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.spectral_norm import SpectralNorm  # noqa: F401
from paddle_fn.nn_compat.layer.sync_batch_norm import SyncBatchNorm  # noqa: F401
from paddle_fn.nn_compat.layer import rnn  # noqa: E402 - recurrent layers
from paddle_fn.nn_compat.layer.rnn import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer import transformer  # noqa: E402 - attention and Transformer layers
from paddle_fn.nn_compat.layer.transformer import *  # noqa: F401,F403
from paddle_fn.nn_compat.layer.vision import *  # noqa: F401,F403

__all__ = (["HookRemoveHelper", "Layer", "LayerDict", "LayerList", "ParameterDict", "ParameterList", "Sequential"] + activation.__all__
           + common.__all__ + conv.__all__ + distance.__all__ + loss.__all__ + norm.__all__ + pooling.__all__
           + vision.__all__)
__all__ += padding.__all__ + rnn.__all__ + transformer.__all__ + ["BeamSearchDecoder", "SpectralNorm", "SyncBatchNorm",
                                                                       "dynamic_decode"]

# Paddle 3.3's PyTorch-style second names: the same classes (paddle.nn.Conv2d is paddle.nn.Conv2D)
Module, ModuleDict, ModuleList = Layer, LayerDict, LayerList
Conv1d, Conv2d, Conv3d = conv.Conv1D, conv.Conv2D, conv.Conv3D
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (pooling.AdaptiveMaxPool1D, pooling.AdaptiveMaxPool2D,
                                                           pooling.AdaptiveMaxPool3D)
LPPool1d, LPPool2d = pooling.LPPool1D, pooling.LPPool2D
CircularPad1d, CircularPad2d, CircularPad3d = padding.CircularPad1D, padding.CircularPad2D, padding.CircularPad3D
ConstantPad1d, ConstantPad2d, ConstantPad3d = padding.ConstantPad1D, padding.ConstantPad2D, padding.ConstantPad3D
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (padding.ReflectionPad1D, padding.ReflectionPad2D,
                                                     padding.ReflectionPad3D)
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (padding.ReplicationPad1D, padding.ReplicationPad2D,
                                                        padding.ReplicationPad3D)
__all__ += ["Module", "ModuleDict", "ModuleList", "Conv1d", "Conv2d", "Conv3d", "AdaptiveMaxPool1d",
            "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "CircularPad1d", "CircularPad2d",
            "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d",
            "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]
