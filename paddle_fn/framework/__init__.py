"""``paddle.framework``: `save` and `load` (``paddle.save`` / ``paddle.load``), in `paddle_fn.framework.io`."""
from paddle_fn.framework import io  # noqa: F401
from paddle_fn.framework.io import load, save  # noqa: F401

__all__ = ["load", "save"]
