"""The Paddle-level Tensor API (layer 5): creation, math, manipulation, linear algebra, search, logic and
activations, composed from the lax-level primitives with Paddle's broadcasting and promotion
rules; scalars are 0-D Tensors, as in Paddle 3. `methods.install()` attaches the operators and methods to `Tensor`.
"""
from paddle_fn.tensor import (  # noqa: F401
    activation, complex_numbers, creation, indexing, linalg, logic, manipulation, math, methods, pointwise, products,
    search, selection, stacking, stat)
from paddle_fn.tensor import einsum as _einsum_module  # the star import below rebinds `einsum` to the function
from paddle_fn.tensor.activation import *  # noqa: F401,F403
from paddle_fn.tensor.complex_numbers import *  # noqa: F401,F403
from paddle_fn.tensor.creation import *  # noqa: F401,F403
from paddle_fn.tensor.einsum import *  # noqa: F401,F403
from paddle_fn.tensor.linalg import *  # noqa: F401,F403
from paddle_fn.tensor.logic import *  # noqa: F401,F403
from paddle_fn.tensor.manipulation import *  # noqa: F401,F403
from paddle_fn.tensor.math import *  # noqa: F401,F403
from paddle_fn.tensor.pointwise import *  # noqa: F401,F403
from paddle_fn.tensor.products import *  # noqa: F401,F403
from paddle_fn.tensor.search import *  # noqa: F401,F403
from paddle_fn.tensor.selection import *  # noqa: F401,F403
from paddle_fn.tensor.stacking import *  # noqa: F401,F403
from paddle_fn.tensor.stat import *  # noqa: F401,F403

__all__ = (activation.__all__ + complex_numbers.__all__ + creation.__all__ + _einsum_module.__all__ + linalg.__all__ + logic.__all__ +
           manipulation.__all__ + math.__all__ + pointwise.__all__ + products.__all__ + search.__all__ +
           selection.__all__ + stacking.__all__ + stat.__all__)
