"""``paddle.jit``: the module Paddle users import from, and the JAX-style transform at once.

``paddle_fn.jit(f)`` / ``@paddle_fn.jit`` compiles a function (`paddle_fn.transforms.jit.jit`: the module object is
callable), and the module holds Paddle's names: `to_static`, `save`, `load`, `TranslatedLayer`, `StaticFunction`,
`not_to_static`, `ignore_module`, `enable_to_static`, `set_code_level`, `set_verbosity`, so ``from paddle_fn.jit import to_static, save, load`` works
as in Paddle. The program files of `save` and `load` are read and written by ``paddle_fn.static.program_io``.
"""
import sys as _sys
import types as _types

from paddle_fn.transforms.jit import Compiled, JitFunction, Lowered, jit as _jit_transform  # noqa: F401
from paddle_fn.nn_compat.jit import dy2static  # noqa: F401 - Paddle's paddle.jit.dy2static
from paddle_fn.nn_compat.jit import (  # noqa: F401
    StaticFunction, TranslatedLayer, enable_to_static, ignore_module, load, not_to_static, save, set_code_level,
    set_verbosity, to_static)

__all__ = ["Compiled", "JitFunction", "Lowered", "StaticFunction", "TranslatedLayer", "enable_to_static",
           "ignore_module", "load", "not_to_static", "save", "set_code_level", "set_verbosity", "to_static"]


class _CallableModule(_types.ModuleType):
    """The type of the ``paddle_fn.jit`` module: calling it is calling the jit transform."""

    def __call__(self, fun=None, *, static_argnums=(), static_argnames=(), device=None, matmul_precision=None,
                 checks=None):
        return _jit_transform(fun, static_argnums=static_argnums, static_argnames=static_argnames, device=device,
                              matmul_precision=matmul_precision, checks=checks)


_sys.modules[__name__].__class__ = _CallableModule
