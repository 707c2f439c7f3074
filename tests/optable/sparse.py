"""Op-table rows for paddle_fn.prims.sparse: a 4 x 3 pattern of 10 random entries (repeats included) times a dense
3 x 2 matrix, lowered in the segment-sum form (no row bound) and in the ELLPACK form (rows sorted, a bound of 10,
the most a row can hold)."""
import numpy as np

from paddle_fn.prims import sparse as Sp

from optable import Arg, OpRow


def _reference(rows, cols, values, dense):
    out = np.zeros((4, dense.shape[1]), dense.dtype)
    np.add.at(out, rows, values[:, None] * dense[cols])
    return out


_ARGS = (Arg((10,), "int64", "index", high=4), Arg((10,), "int64", "index", high=3), Arg((10,)), Arg((3, 2)))

ROWS = [
    OpRow("sparse_dense_dot", Sp.sparse_dense_dot_p,
          lambda r, c, v, d: Sp.sparse_dense_dot(r, c, v, d, num_rows=4), _ARGS, _reference, diff=(2, 3),
          lower_dtypes=("float32",)),
    OpRow("sparse_dense_dot_ell", Sp.sparse_dense_dot_p,
          lambda r, c, v, d: Sp.sparse_dense_dot(r, c, v, d, num_rows=4, row_bound=10),
          (Arg((10,), "int64", lambda rng: np.sort(rng.integers(0, 4, 10))),) + _ARGS[1:], _reference, diff=(2, 3),
          lower_dtypes=("float32",)),
]
