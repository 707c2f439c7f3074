"""``paddle.hapi``: Paddle's high-level API — `Model` (prepare / fit / evaluate / predict / save / load),
`summary`, and the callbacks (also available as ``paddle.callbacks``).

Example:
    >>> import paddle_fn as paddle
    >>> paddle.hapi.Model is paddle.Model, paddle.hapi.summary is paddle.summary
    (True, True)
"""
from paddle_fn.hapi import callbacks  # noqa: F401
from paddle_fn.hapi.model import Model  # noqa: F401
from paddle_fn.hapi.model_summary import summary  # noqa: F401

__all__ = ["Model", "summary", "callbacks"]
