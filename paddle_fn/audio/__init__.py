"""`paddle.audio`: the window functions of `paddle.audio.functional` (`get_window`)."""
from paddle_fn.audio import functional  # noqa: F401
