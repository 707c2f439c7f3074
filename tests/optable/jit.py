"""Op-table rows for jit_call (the compiled call primitive of paddle_fn.jit)."""
import numpy as np

import paddle_fn as pf
from paddle_fn.prims import elementwise as E
from paddle_fn.prims.reduction import reduce_sum
from paddle_fn.transforms.jit import jit_call_p

from optable import Arg, OpRow


@pf.jit
def _poly(x, y):
    return E.add(E.mul(E.exp(x), y), E.mul(x, x))


@pf.jit
def _two_outputs(x):
    return E.log1p(E.mul(x, x)), reduce_sum(x, axes=(1,))


ROWS = [
    OpRow("jit_call", jit_call_p, _poly, (Arg((2, 3)), Arg((2, 3))), lambda x, y: np.exp(x) * y + x * x,
          rtol=1e-13, atol=1e-13),
    OpRow("jit_call_two_outputs", jit_call_p, _two_outputs, (Arg((2, 3)),),
          lambda x: (np.log1p(x * x), x.sum(1)), rtol=1e-13, atol=1e-13),
]
