"""paddle_fn.nn_compat.optimizer: the stateful ``paddle.optimizer`` surface (re-exported as paddle_fn.optimizer).

``Optimizer`` and its subclasses delegate their arithmetic to the pure kernels of ``functional``; ``lr`` holds the
learning-rate schedulers. ``paddle_fn.optimizer`` re-exports ``__all__``.
"""
from paddle_fn.nn_compat.optimizer import lr  # noqa: F401
from paddle_fn.nn_compat.optimizer import functional  # noqa: F401  (pure init/update forms)
from paddle_fn.nn_compat.optimizer.optimizer import Optimizer
from paddle_fn.nn_compat.optimizer.sgd import SGD
from paddle_fn.nn_compat.optimizer.momentum import Momentum
from paddle_fn.nn_compat.optimizer.adam import Adam
from paddle_fn.nn_compat.optimizer.adamw import AdamW
from paddle_fn.nn_compat.optimizer.adamax import Adamax
from paddle_fn.nn_compat.optimizer.rmsprop import RMSProp
from paddle_fn.nn_compat.optimizer.adagrad import Adagrad
from paddle_fn.nn_compat.optimizer.adadelta import Adadelta
from paddle_fn.nn_compat.optimizer.lamb import Lamb
from paddle_fn.nn_compat.optimizer.nadam import NAdam
from paddle_fn.nn_compat.optimizer.radam import RAdam
from paddle_fn.nn_compat.optimizer.rprop import Rprop
from paddle_fn.nn_compat.optimizer.asgd import ASGD
from paddle_fn.nn_compat.optimizer.lbfgs import LBFGS

__all__ = ["lr", "Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "RMSProp", "Adagrad", "Adadelta", "Lamb",
           "NAdam", "RAdam", "Rprop", "ASGD", "LBFGS"]
