"""paddle_fn.optimizer: Paddle's ``paddle.optimizer`` namespace.

The stateful code lives in ``paddle_fn.nn_compat.optimizer``; this package re-exports its public names (its
``__all__``), and ``paddle_fn.optimizer.lr`` holds the learning-rate schedulers.
"""
from paddle_fn.nn_compat.optimizer import *  # noqa: F401,F403
from paddle_fn.nn_compat.optimizer import __all__  # noqa: F401
import paddle_fn.optimizer.lr as lr  # noqa: F401,E402  (this package's own lr module, replacing nn_compat's)
