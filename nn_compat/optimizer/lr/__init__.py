"""Learning-rate schedulers with the API and the arithmetic of Paddle's ``paddle.optimizer.lr``.

Every formula is evaluated in Python floats in the order Paddle evaluates it, so a schedule gives the same
numbers here as in Paddle. The base class is in `scheduler`, the decaying schedules in `decay`, warm-up, annealing
and cyclical ones in `cycles`; all are published as ``paddle_fn.optimizer.lr``, as Paddle keeps them in one module.
"""
from paddle_fn.nn_compat.optimizer.lr.scheduler import (  # noqa: F401 - the errors are published below too
    LRScheduler, LRSchedulerTypeError, LRSchedulerValueError)
from paddle_fn.nn_compat.optimizer.lr.decay import (
    ExponentialDecay, InverseTimeDecay, LambdaDecay, MultiplicativeDecay, MultiStepDecay, NaturalExpDecay, NoamDecay,
    PiecewiseDecay, PolynomialDecay, ReduceOnPlateau, StepDecay)
from paddle_fn.nn_compat.optimizer.lr.cycles import (
    CosineAnnealingDecay, CosineAnnealingWarmRestarts, CyclicLR, LinearLR, LinearWarmup, OneCycleLR)

__all__ = [
    "LRScheduler",
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "LinearWarmup",
    "ExponentialDecay",
    "MultiStepDecay",
    "StepDecay",
    "LambdaDecay",
    "ReduceOnPlateau",
    "CosineAnnealingDecay",
    "MultiplicativeDecay",
    "OneCycleLR",
    "CyclicLR",
    "LinearLR",
    "CosineAnnealingWarmRestarts",
]

for _name in __all__ + ["LRSchedulerValueError", "LRSchedulerTypeError"]:
    globals()[_name].__module__ = "paddle_fn.optimizer.lr"
del _name
