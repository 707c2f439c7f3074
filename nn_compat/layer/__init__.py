"""`paddle.nn.layer`: the Layer base class and the layers, organised by family as Paddle's are
(``layers`` for `Layer`, ``container``, ``common``; further families are added as modules here)."""
from paddle_fn.nn_compat.layer.common import Linear
from paddle_fn.nn_compat.layer.container import LayerDict, LayerList, ParameterList, Sequential
from paddle_fn.nn_compat.layer.layers import HookRemoveHelper, Layer

__all__ = ["HookRemoveHelper", "Layer", "LayerDict", "LayerList", "Linear", "ParameterList", "Sequential"]
