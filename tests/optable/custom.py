"""Op-table rows for paddle_fn.prims.custom_derivatives (rules given by users, here correct ones)."""
import numpy as np

import paddle_fn as pf
from paddle_fn.prims import custom_derivatives as C
from paddle_fn.prims import elementwise as E

from optable import Arg, OpRow


@pf.custom_jvp
def _softplus(x):
    return E.log1p(E.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softplus(x), E.mul(t, E.logistic(x))


@pf.custom_vjp
def _sin_custom(x):
    return E.sin(x)


_sin_custom.defvjp(lambda x: (E.sin(x), E.cos(x)), lambda cos_x, ct: (E.mul(ct, cos_x),))


def _vjp_of_sin_custom(x, ct):
    _, f = pf.vjp(_sin_custom, x)
    return f(ct)[0]


ROWS = [
    OpRow("custom_jvp_call", C.custom_jvp_call_p, _softplus, (Arg((2, 3)),), lambda x: np.log1p(np.exp(x))),
    OpRow("custom_vjp_call", C.custom_vjp_call_p, _sin_custom, (Arg((2, 3)),), np.sin,
          # forward mode through a custom_vjp function is unsupported by design (as in JAX)
          diff=()),
    OpRow("custom_lin", C.custom_lin_p, _vjp_of_sin_custom, (Arg((2, 3)), Arg((2, 3))),
          lambda x, ct: ct * np.cos(x)),
]
