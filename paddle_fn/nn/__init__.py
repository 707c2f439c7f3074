"""`paddle.nn`: the stateless `functional` module (``import paddle_fn.nn.functional as F``), the Layer API
(`Layer`, `Linear`, the containers, `Parameter`, `ParamAttr`), ``paddle.nn.initializer`` and the bridge that
runs a Layer as a pure function under grad / vmap / jit (`functional_call`, `split`, `merge`, `update_state`).

The stateful code lives in ``paddle_fn.nn_compat``; ``paddle_fn.nn.layer``, ``paddle_fn.nn.initializer``,
``paddle_fn.nn.unique_name`` and ``paddle_fn.nn.utils`` are the same modules under the names Paddle gives them.
"""
import importlib as _importlib
import pkgutil as _pkgutil
import sys as _sys

from paddle_fn.nn import functional  # noqa: F401
from paddle_fn.nn_compat import initializer, layer, unique_name, utils  # noqa: F401
from paddle_fn.nn_compat.bridge import LayerStructure, functional_call, merge, split, update_state  # noqa: F401
from paddle_fn.nn_compat.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from paddle_fn.nn_compat.layer import *  # noqa: F401,F403 - Layer, the containers and every layer family
from paddle_fn.base.param_attr import ParamAttr  # noqa: F401
from paddle_fn.nn_compat.parameter import Parameter, create_parameter  # noqa: F401


def _alias_modules(package, alias):
    """Register `package` and its modules under the name `alias` too (``import paddle_fn.nn.layer.common``),
    so there is one module object per file whichever name imports it."""
    _sys.modules[alias] = package
    for info in _pkgutil.iter_modules(package.__path__):
        mod = _importlib.import_module(f"{package.__name__}.{info.name}")
        _sys.modules[f"{alias}.{info.name}"] = mod
        if info.ispkg:
            _alias_modules(mod, f"{alias}.{info.name}")


_alias_modules(layer, __name__ + ".layer")
_alias_modules(initializer, __name__ + ".initializer")
_sys.modules[__name__ + ".unique_name"] = unique_name
_sys.modules[__name__ + ".utils"] = utils

from paddle_fn.nn_compat.layer import decode, loss  # noqa: E402 - also paddle.nn.decode and paddle.nn.loss

_sys.modules[__name__ + ".decode"] = decode
_sys.modules[__name__ + ".loss"] = loss
