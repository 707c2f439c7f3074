"""paddle_fn.incubate: Paddle's incubating APIs (``paddle.incubate``), built on the functional core."""
from paddle_fn.incubate import autograd  # noqa: F401
