"""Op-table rows for the collectives. A collective needs a named axis, so each row applies it inside
`vmap(..., axis_name='i')` over the leading axis of its arguments (the reference meaning), with a numpy reference
over that axis. The `_inner` rows put an unnamed vmap between the named one and the collective, which exercises the
collectives' batching rules for an axis they do not reduce over (and the op table's own vmap checks add another)."""
import numpy as np

import paddle_fn as pf
from paddle_fn.prims import collectives as C

from optable import Arg, OpRow

N = 3  # members of the named axis in every row


def _named(body):
    return lambda x: pf.vmap(body, axis_name="i")(x)


def _named_inner(body):
    """The collective applied per element of an inner (unnamed) vmap over axis 1 of the row's argument."""
    return lambda x: pf.vmap(lambda v: pf.vmap(body, in_axes=0, out_axes=0)(v), axis_name="i")(x)


def _rep(v):
    """numpy: the same value for every member."""
    return np.broadcast_to(v, (N,) + np.shape(v)).copy()


def _a2a(x, s, c):
    chunks = [np.split(x[j], N, axis=s) for j in range(N)]
    return np.stack([np.concatenate([chunks[j][i] for j in range(N)], axis=c) for i in range(N)])


ROWS = [
    OpRow("psum", C.psum_p, _named(lambda v: C.psum(v, "i")), (Arg((N, 2, 2)),), lambda x: _rep(x.sum(0))),
    OpRow("psum_inner", C.psum_p, _named_inner(lambda e: C.psum(e, "i")), (Arg((N, 4)),), lambda x: _rep(x.sum(0))),
    OpRow("pmean", C.psum_p, _named(lambda v: C.pmean(v, "i")), (Arg((N, 2)),), lambda x: _rep(x.mean(0))),
    OpRow("pmax", C.pmax_p, _named(lambda v: C.pmax(v, "i")), (Arg((N, 2, 3)),), lambda x: _rep(x.max(0))),
    OpRow("pmax_inner", C.pmax_p, _named_inner(lambda e: C.pmax(e, "i")), (Arg((N, 4)),), lambda x: _rep(x.max(0))),
    OpRow("pmin", C.pmin_p, _named(lambda v: C.pmin(v, "i")), (Arg((N, 5)),), lambda x: _rep(x.min(0))),
    OpRow("all_gather", C.all_gather_p, _named(lambda v: C.all_gather(v, "i", axis=1)), (Arg((N, 2, 3)),),
          lambda x: _rep(np.moveaxis(x, 0, 1))),
    OpRow("all_gather_tiled", C.all_gather_p, _named(lambda v: C.all_gather(v, "i", tiled=True)), (Arg((N, 2, 3)),),
          lambda x: _rep(x.reshape(N * 2, 3))),
    OpRow("all_gather_inner", C.all_gather_p, _named_inner(lambda e: C.all_gather(e, "i")), (Arg((N, 4, 2)),),
          lambda x: _rep(np.moveaxis(x, 0, 1))),
    OpRow("psum_scatter", C.psum_scatter_p, _named(lambda v: C.psum_scatter(v, "i", scatter_dimension=1)),
          (Arg((N, 2, N)),), lambda x: np.moveaxis(x.sum(0), 1, 0)),
    OpRow("psum_scatter_tiled", C.psum_scatter_p, _named(lambda v: C.psum_scatter(v, "i", tiled=True)),
          (Arg((N, 2 * N, 2)),), lambda x: x.sum(0).reshape(N, 2, 2)),
    OpRow("psum_scatter_inner", C.psum_scatter_p, _named_inner(lambda e: C.psum_scatter(e, "i")),
          (Arg((N, 2, N)),), lambda x: np.moveaxis(x.sum(0), 1, 0)),
    OpRow("ppermute", C.ppermute_p, _named(lambda v: C.ppermute(v, "i", [(0, 2), (2, 1)])), (Arg((N, 2)),),
          lambda x: np.stack([np.zeros_like(x[0]), x[2], x[0]])),
    OpRow("ppermute_inner", C.ppermute_p, _named_inner(lambda e: C.ppermute(e, "i", [(0, 1), (1, 2), (2, 0)])),
          (Arg((N, 3)),), lambda x: np.roll(x, 1, axis=0)),
    OpRow("all_to_all", C.all_to_all_p, _named(lambda v: C.all_to_all(v, "i", 1, 0)), (Arg((N, 2, 2 * N)),),
          lambda x: _a2a(x, 1, 0)),
    OpRow("all_to_all_inner", C.all_to_all_p, _named_inner(lambda e: C.all_to_all(e, "i", 0, 0)),
          (Arg((N, 2, N)),), lambda x: np.stack([_a2a(x[:, k], 0, 0) for k in range(2)], axis=1)),
    OpRow("axis_index", C.axis_index_p, _named(lambda v: C.axis_index("i") + v.astype("int32")),
          (Arg((N,), "int32", "int"),), lambda x: np.arange(N, dtype=np.int32) + x),
]
