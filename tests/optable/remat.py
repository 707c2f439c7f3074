"""Op-table rows for paddle_fn.prims.remat: a checkpointed function, and its rematerialized tangent map (what the
JVP of a checkpointed function emits, linear in its tangents)."""
import numpy as np

import paddle_fn as pf
from paddle_fn.prims import elementwise as E
from paddle_fn.prims import remat as R

from optable import Arg, OpRow


@pf.checkpoint
def _sin_tanh(x):
    return E.tanh(E.sin(x))


@pf.checkpoint
def _product(x, y):
    return E.mul(E.sin(x), y)


def _tangent_of_product(x, y, tx, ty):
    return pf.jvp(_product, (x, y), (tx, ty))[1]


ROWS = [
    OpRow("checkpoint", R.checkpoint_p, _sin_tanh, (Arg((2, 3)),), lambda x: np.tanh(np.sin(x))),
    OpRow("remat_lin", R.remat_lin_p, _tangent_of_product, (Arg((2, 3)), Arg((2, 3)), Arg((2, 3)), Arg((2, 3))),
          lambda x, y, tx, ty: np.cos(x) * tx * y + np.sin(x) * ty),
]
