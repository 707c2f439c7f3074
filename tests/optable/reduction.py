"""Op-table rows for paddle_fn.prims.reduction."""
import numpy as np

from paddle_fn.prims import reduction as R

from optable import Arg, OpRow

ROWS = [
    OpRow("reduce_sum", R.reduce_sum_p, lambda x: R.reduce_sum(x, axes=(0, 2)), (Arg((2, 3, 4)),),
          lambda x: x.sum(axis=(0, 2))),
]
