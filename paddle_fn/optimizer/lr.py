"""paddle_fn.optimizer.lr: Paddle's learning-rate schedulers (``paddle.optimizer.lr``).

Defined in ``paddle_fn.nn_compat.optimizer.lr``; see ``docs/optimizer_lr.md``.
"""
from paddle_fn.nn_compat.optimizer.lr import *  # noqa: F401,F403
from paddle_fn.nn_compat.optimizer.lr import LRSchedulerTypeError, LRSchedulerValueError, __all__  # noqa: F401
