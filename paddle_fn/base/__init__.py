"""``paddle.base`` (Paddle 2.6+'s name for the old ``paddle.fluid``): what Paddle 3 code still reaches for,
``paddle.base.framework.Variable``, ``paddle.base.data_feeder`` (dtype names and argument checks),
``paddle.base.dygraph`` (``guard``), ``set_flags`` / ``get_flags`` and ``paddle.base.param_attr.ParamAttr``."""
from paddle_fn.base import data_feeder, dygraph, framework, param_attr  # noqa: F401
from paddle_fn.core.config import get_flags, set_flags  # noqa: F401
