"""``paddle.amp``: auto_cast, GradScaler, decorate. On CPU, as Paddle 3.3.1, they warn and have no effect."""
from paddle_fn.amp.casting import (  # noqa: F401
    auto_cast, amp_guard, decorate, get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
    is_autocast_enabled, is_bfloat16_supported, is_float16_supported)
from paddle_fn.amp.grad_scaler import AmpScaler, GradScaler  # noqa: F401

__all__ = ["auto_cast", "amp_guard", "decorate", "is_float16_supported", "is_bfloat16_supported",
           "is_autocast_enabled", "get_autocast_dtype", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype",
           "GradScaler", "AmpScaler"]
