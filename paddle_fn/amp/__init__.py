"""``paddle.amp``: auto_cast, GradScaler, decorate. On CPU, as Paddle 3.3.1, they warn and have no effect."""
from paddle_fn.amp.casting import auto_cast, amp_guard, decorate, is_float16_supported, is_bfloat16_supported  # noqa: F401
from paddle_fn.amp.grad_scaler import AmpScaler, GradScaler  # noqa: F401

__all__ = ["auto_cast", "amp_guard", "decorate", "is_float16_supported", "is_bfloat16_supported",
           "GradScaler", "AmpScaler"]
