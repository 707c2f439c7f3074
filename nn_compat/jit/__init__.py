"""The stateful half of ``paddle.jit``: `to_static` for functions and Layers, and `save` / `load` /
`TranslatedLayer` (re-exported as ``paddle_fn.jit``)."""
from paddle_fn.nn_compat.jit.static_function import (  # noqa: F401
    StaticFunction, enable_to_static, ignore_module, not_to_static, to_static)
from paddle_fn.nn_compat.jit.translated_layer import TranslatedLayer, load, save  # noqa: F401
