"""``paddle.regularizer``: weight-decay regularizers for optimizers and ``ParamAttr`` (defined in
``paddle_fn.nn_compat.regularizer``)."""
from paddle_fn.nn_compat.regularizer import L1Decay, L2Decay, WeightDecayRegularizer  # noqa: F401

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]
