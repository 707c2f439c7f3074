"""``paddle.base`` (Paddle 2.6+'s name for the old ``paddle.fluid``): only what Paddle 3 code still reaches for,
``paddle.base.framework.Variable``."""
from paddle_fn.base import framework  # noqa: F401
