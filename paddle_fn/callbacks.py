"""``paddle.callbacks``: the callbacks of ``paddle.Model`` (defined in ``paddle_fn.hapi.callbacks``).

Example:
    >>> import paddle_fn as paddle
    >>> paddle.callbacks.EarlyStopping(monitor="acc").monitor_op.__name__
    'greater'
"""
from paddle_fn.hapi.callbacks import (  # noqa: F401
    Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger, ReduceLROnPlateau, VisualDL)

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler", "EarlyStopping",
           "ReduceLROnPlateau"]
