"""Running code written for Paddle unchanged: `install_paddle_alias` makes ``import paddle`` mean paddle_fn.

Paddle's own files (``paddle/vision/models/resnet.py``, ``paddle/nn/layer/transformer.py``, ...) and scripts
written against them import ``paddle``, its submodules (``from paddle.base.param_attr import ParamAttr``) and,
inside Paddle's tree, each other by relative imports (``from ..ops import ConvNormActivation``). A meta-path
finder answers every ``paddle`` and ``paddle.<name>`` import with the paddle_fn module of the same dotted name,
the one object under both names, so classes and global state are shared: a ParamAttr made through either name
is the same class, and a file loaded as a module of the ``paddle.*`` tree finds its relative imports in
paddle_fn's.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install_paddle_alias", "uninstall_paddle_alias"]


class _SameModule(importlib.abc.Loader):
    """Loads a ``paddle.*`` name as the already importable paddle_fn module of the same path."""

    def __init__(self, target: str):
        self.target = target
        self.own_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module):
        """Nothing runs (the paddle_fn module ran when it was imported under its own name); importlib has just
        given the module the alias's spec, and the module keeps its own: its name and the folders it was loaded
        from are what `importlib.util.find_spec('paddle_fn...')` and paddle_fn's own frame checks read."""
        module.__spec__ = self.own_spec


class _PaddleFinder(importlib.abc.MetaPathFinder):
    """``paddle`` and ``paddle.x.y`` -> ``paddle_fn`` and ``paddle_fn.x.y``, where paddle_fn has that module."""

    def find_spec(self, name, path=None, target=None):
        if name != "paddle" and not name.startswith("paddle."):
            return None
        real = "paddle_fn" + name[len("paddle"):]
        try:
            found = importlib.util.find_spec(real)
        except ModuleNotFoundError:
            return None
        return None if found is None else importlib.util.spec_from_loader(name, _SameModule(real))


def _installed():
    return next((f for f in sys.meta_path if isinstance(f, _PaddleFinder)), None)


def install_paddle_alias() -> None:
    """Make ``import paddle`` (and every ``paddle.<submodule>``) import paddle_fn from now on, in this process.

    Idempotent. Raises RuntimeError when a real Paddle is already imported (its modules would be mixed with
    paddle_fn's); call it before any ``import paddle``.

    Example:
        >>> from paddle_fn.utils.paddle_alias import install_paddle_alias, uninstall_paddle_alias
        >>> install_paddle_alias()
        >>> import paddle
        >>> from paddle.base.param_attr import ParamAttr
        >>> import paddle_fn
        >>> paddle is paddle_fn, ParamAttr is paddle_fn.ParamAttr
        (True, True)
        >>> uninstall_paddle_alias()
    """
    present = sys.modules.get("paddle")
    if present is not None and present is not importlib.import_module("paddle_fn"):
        where = getattr(present, "__file__", None) or repr(present)
        raise RuntimeError(f"install_paddle_alias: a real Paddle is already imported ({where}); call it before the "
                           "first `import paddle`")
    if _installed() is None:
        sys.meta_path.insert(0, _PaddleFinder())


def uninstall_paddle_alias() -> None:
    """Undo `install_paddle_alias`: ``paddle`` names imported through it are forgotten, so a later ``import
    paddle`` finds whatever Paddle is installed, if any.

    Example:
        >>> from paddle_fn.utils.paddle_alias import install_paddle_alias, uninstall_paddle_alias
        >>> install_paddle_alias(); uninstall_paddle_alias()
        >>> import sys
        >>> "paddle" in sys.modules
        False
    """
    finder = _installed()
    if finder is not None:
        sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if n == "paddle" or n.startswith("paddle.")]:
        del sys.modules[name]
