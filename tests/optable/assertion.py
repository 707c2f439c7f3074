"""Op-table rows for paddle_fn.prims.assertion: `check` passes its operand through (its condition holds here)."""
import numpy as np

from paddle_fn.prims import assertion as A
from paddle_fn.prims import elementwise as E

from optable import Arg, OpRow


def _checked_sin(x):
    bound = E.abs(x)
    return E.sin(A.check(x, E.lt(bound, E.add(bound, E.exp(x))), kind="nan", message="{failures} failed"))


ROWS = [
    OpRow("check", A.check_p, _checked_sin, (Arg((2, 3)),), np.sin),
]
