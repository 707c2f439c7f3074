"""The stateful half of ``paddle.jit``: `to_static` for functions and Layers, and `save` / `load` /
`TranslatedLayer`, and the dynamic-to-static converter's `set_code_level` / `set_verbosity` (re-exported as ``paddle_fn.jit``)."""
from paddle_fn.nn_compat.jit.dy2static import set_code_level, set_verbosity  # noqa: F401
from paddle_fn.nn_compat.jit.static_function import (  # noqa: F401
    StaticFunction, enable_to_static, ignore_module, not_to_static, to_static)
from paddle_fn.nn_compat.jit.translated_layer import TranslatedLayer, load, save  # noqa: F401
