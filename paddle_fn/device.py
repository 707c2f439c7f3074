"""`paddle.device`: the default device and what this machine can run on (Paddle's module of that name)."""
from paddle_fn.core.device_name import Device  # noqa: F401
from paddle_fn.transforms.devices import (  # noqa: F401
    get_device, is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu, set_device)

__all__ = ["Device", "get_device", "set_device", "is_compiled_with_cuda", "is_compiled_with_rocm",
           "is_compiled_with_xpu"]

