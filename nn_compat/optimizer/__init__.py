"""paddle_fn.nn_compat.optimizer: the stateful ``paddle.optimizer`` surface (re-exported as paddle_fn.optimizer).

Each submodule adds its public names to ``__all__`` below; ``paddle_fn.optimizer`` re-exports ``__all__``.
"""
from paddle_fn.nn_compat.optimizer import lr  # noqa: F401
from paddle_fn.nn_compat.optimizer import functional  # noqa: F401  (pure init/update forms)

__all__ = ["lr"]
