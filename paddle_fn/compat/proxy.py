"""``paddle.enable_compat`` / ``paddle.disable_compat``: ``import torch`` (and ``torch.nn``, ``torch.nn.functional``,
...) gives a proxy module of the paddle_fn module of the same path, so PyTorch-style code runs on paddle_fn:
``torch.sin`` is ``paddle.sin``; the names `paddle.compat` gives PyTorch's signature (``torch.nn.functional.softmax``)
come from there. Only the global form is supported (no `scope`, no `blocked_modules`)."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

from paddle_fn.core.errors import UnsupportedError

_BACKEND = "torch"


class _TorchProxy(types.ModuleType):
    """``torch.<path>`` as paddle_fn's module ``paddle_fn.<path>``, its PyTorch-signature names from
    ``paddle_fn.compat.<path>`` first."""

    def __init__(self, name, target, override):
        super().__init__(name)
        self._target, self._override = target, override

    def __getattr__(self, attr):
        if self._override is not None and attr in getattr(self._override, "__all__", ()):
            return getattr(self._override, attr)
        value = getattr(self._target, attr)
        if isinstance(value, types.ModuleType) and value.__name__.startswith("paddle_fn."):
            return importlib.import_module(f"{self.__name__}.{attr}")
        return value


class _ProxyLoader(importlib.abc.Loader):
    def create_module(self, spec):
        rest = spec.name[len(_BACKEND):]
        target = importlib.import_module("paddle_fn" + rest)
        override = None
        if rest and importlib.util.find_spec("paddle_fn.compat" + rest) is not None:
            override = importlib.import_module("paddle_fn.compat" + rest)
        return _TorchProxy(spec.name, target, override)

    def exec_module(self, module):
        pass


class _TorchFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != _BACKEND and not name.startswith(_BACKEND + "."):
            return None
        if importlib.util.find_spec("paddle_fn" + name[len(_BACKEND):]) is None:
            return None
        return importlib.util.spec_from_loader(name, _ProxyLoader())


_FINDER = _TorchFinder()


def enable_compat(*, scope=None, blocked_modules=None, backend="torch", silent=False):
    """Make ``import torch`` import a proxy of paddle_fn, globally, until `disable_compat` (Paddle 3.3's
    ``paddle.enable_compat``). `scope` and `blocked_modules` (proxying only for some importing modules) are not
    supported; `silent` silences Paddle's warnings about scope changes, of which there are none here.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.enable_compat()
        >>> import torch
        >>> torch.sin is paddle.sin, torch.nn.functional.softmax is paddle.compat.nn.functional.softmax
        (True, True)
        >>> paddle.disable_compat()
    """
    if backend != _BACKEND:
        raise ValueError(f"enable_compat: backend must be 'torch', got {backend!r}")
    if scope is not None or blocked_modules is not None:
        raise UnsupportedError("enable_compat: scope= and blocked_modules= are not supported; the proxy is global "
                               "(call enable_compat() with neither)")
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def disable_compat():
    """Undo `enable_compat`: ``import torch`` finds the real PyTorch again (or fails without it).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.enable_compat(); paddle.disable_compat()
        >>> try:
        ...     import torch
        ... except ModuleNotFoundError:
        ...     print("PyTorch compat is disabled.")
        PyTorch compat is disabled.
    """
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name, module in list(sys.modules.items()):
        if isinstance(module, _TorchProxy):
            del sys.modules[name]
