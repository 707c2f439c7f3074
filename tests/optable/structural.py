"""Op-table rows for paddle_fn.prims.structural."""
import numpy as np

from paddle_fn.prims import structural as St

from optable import Arg, OpRow

ROWS = [
    OpRow("broadcast_in_dim", St.broadcast_in_dim_p,
          lambda x: St.broadcast_in_dim(x, shape=(2, 3, 4), broadcast_dimensions=(0, 2)), (Arg((2, 4)),),
          lambda x: np.broadcast_to(x[:, None, :], (2, 3, 4))),
    OpRow("broadcast_in_dim_ones", St.broadcast_in_dim_p,
          lambda x: St.broadcast_in_dim(x, shape=(3, 4), broadcast_dimensions=(0, 1)), (Arg((1, 4)),),
          lambda x: np.broadcast_to(x, (3, 4))),
    OpRow("reshape", St.reshape_p, lambda x: St.reshape(x, new_sizes=(3, 2)), (Arg((2, 3)),),
          lambda x: x.reshape(3, 2)),
    OpRow("transpose", St.transpose_p, lambda x: St.transpose(x, permutation=(2, 0, 1)), (Arg((2, 3, 4)),),
          lambda x: x.transpose(2, 0, 1)),
]
