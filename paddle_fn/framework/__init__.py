"""``paddle.framework``: `save` and `load` (``paddle.save`` / ``paddle.load``), in `paddle_fn.framework.io`;
`ParamAttr` and `get_default_dtype` / `set_default_dtype`, where Paddle's model files (its
``nn/layer/transformer.py``) import them from."""
from paddle_fn.base.param_attr import ParamAttr  # noqa: F401
from paddle_fn.core.dtypes import get_default_dtype, set_default_dtype  # noqa: F401
from paddle_fn.framework import io  # noqa: F401
from paddle_fn.framework.io import load, save  # noqa: F401

__all__ = ["ParamAttr", "get_default_dtype", "load", "save", "set_default_dtype"]
