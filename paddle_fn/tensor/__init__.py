"""The Paddle-level Tensor API (layer 5): creation, math, manipulation, linear algebra, search, logic and
activations, composed from the lax-level primitives with Paddle's broadcasting and promotion
rules; scalars are 0-D Tensors, as in Paddle 3. `methods.install(...)`, which the root calls, attaches the operators
and methods to `Tensor`.

As in Paddle 3.3, the package is also callable: ``paddle.tensor(data, dtype=None, device=None,
requires_grad=False)`` makes a Tensor (``paddle.as_tensor``).
"""
import sys
import types

from paddle_fn.tensor import (  # noqa: F401
    activation, aliases, bitshift, complex_numbers, creation, cumulative, histograms, incomplete_gamma, indexing,
    inplace, linalg, logic, manipulation, math, matrix_functions, methods, nan_stats, pointwise, products, scatters, search, selection, special,
    stacking, stat)
from paddle_fn.tensor import einsum as _einsum_module  # the star import below rebinds `einsum` to the function
from paddle_fn.tensor.activation import *  # noqa: F401,F403
from paddle_fn.tensor.complex_numbers import *  # noqa: F401,F403
from paddle_fn.tensor.aliases import *  # noqa: F401,F403
from paddle_fn.tensor.bitshift import *  # noqa: F401,F403
from paddle_fn.tensor.creation import *  # noqa: F401,F403
from paddle_fn.tensor.cumulative import *  # noqa: F401,F403
from paddle_fn.tensor.einsum import *  # noqa: F401,F403
from paddle_fn.tensor.histograms import *  # noqa: F401,F403
from paddle_fn.tensor.incomplete_gamma import *  # noqa: F401,F403
from paddle_fn.tensor.inplace import *  # noqa: F401,F403
from paddle_fn.tensor.linalg import *  # noqa: F401,F403
from paddle_fn.tensor.logic import *  # noqa: F401,F403
from paddle_fn.tensor.manipulation import *  # noqa: F401,F403
from paddle_fn.tensor.math import *  # noqa: F401,F403
from paddle_fn.tensor.matrix_functions import vecdot  # noqa: F401  (the rest live in paddle.linalg only)
from paddle_fn.tensor.storage_methods import create_tensor  # noqa: F401  (paddle.tensor.create_tensor only)
from paddle_fn.tensor.nan_stats import *  # noqa: F401,F403
from paddle_fn.tensor.pointwise import *  # noqa: F401,F403
from paddle_fn.tensor.products import *  # noqa: F401,F403
from paddle_fn.tensor.scatters import *  # noqa: F401,F403
from paddle_fn.tensor.search import *  # noqa: F401,F403
from paddle_fn.tensor.selection import *  # noqa: F401,F403
from paddle_fn.tensor.special import *  # noqa: F401,F403
from paddle_fn.tensor.stacking import *  # noqa: F401,F403
from paddle_fn.tensor.stat import *  # noqa: F401,F403

__all__ = (activation.__all__ + aliases.__all__ + complex_numbers.__all__ + bitshift.__all__ + creation.__all__ + cumulative.__all__ +
           _einsum_module.__all__ + histograms.__all__ + incomplete_gamma.__all__ + inplace.__all__ + linalg.__all__ + logic.__all__ +
           manipulation.__all__ + math.__all__ + ["vecdot"] + nan_stats.__all__ + pointwise.__all__ + products.__all__ +
           scatters.__all__ + search.__all__ + selection.__all__ + special.__all__ + stacking.__all__ + stat.__all__)

# Paddle keeps these in paddle.tensor.math (paddle.tensor.math.frexp(x) is in its examples); here they are
# written in modules that import math, so math's module gets them once everything is imported
math.frexp, math.isin = pointwise.frexp, pointwise.isin
math.gammainc, math.gammaincc = incomplete_gamma.gammainc, incomplete_gamma.gammaincc


class _CallableTensorModule(types.ModuleType):
    """This package's module type: ``paddle.tensor(1)`` calls ``as_tensor``, as Paddle 3.3's ``paddle.tensor``
    does, while ``paddle.tensor.math`` and the other attributes stay those of the package."""

    def __call__(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return aliases.as_tensor(data, dtype=dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)


sys.modules[__name__].__class__ = _CallableTensorModule
