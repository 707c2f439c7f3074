"""``paddle.static``: `InputSpec`, the abstract signature (shape, dtype, name) that ``paddle.jit.to_static`` and
``paddle.jit.save`` take for a function's inputs.

paddle_fn has no static-graph mode: code runs eagerly (dygraph) and ``paddle.jit`` / ``paddle.jit.to_static``
compile it, so `enable_static` raises and `in_dynamic_mode` is always True.
"""
from paddle_fn.static.input import InputSpec, disable_static, enable_static, in_dynamic_mode  # noqa: F401

__all__ = ["InputSpec", "disable_static", "enable_static", "in_dynamic_mode"]
