"""``paddle.compat.nn``: PyTorch-signature forms of ``paddle.nn``'s functions (`functional`)."""
from paddle_fn.compat.nn import functional  # noqa: F401
