"""Op-table rows for paddle_fn.prims.structural and paddle_fn.prims.slicing."""
import numpy as np

from paddle_fn.prims import slicing as Sl
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


# ------------------------------------------------------------------ squeeze / expand_dims / slice / rev / concatenate

ROWS += [
    OpRow("squeeze", St.squeeze_p, lambda x: St.squeeze(x, dimensions=(0, 2)), (Arg((1, 3, 1, 4)),),
          lambda x: x.reshape(3, 4)),
    OpRow("expand_dims", St.expand_dims_p, lambda x: St.expand_dims(x, dimensions=(0, 3)), (Arg((2, 3)),),
          lambda x: x.reshape(1, 2, 3, 1)),
    OpRow("slice", St.slice_p, lambda x: St.slice(x, start_indices=(1, 0), limit_indices=(4, 5)), (Arg((5, 6)),),
          lambda x: x[1:4, 0:5]),
    OpRow("slice_strided", St.slice_p,
          lambda x: St.slice(x, start_indices=(0, 1, 0), limit_indices=(5, 6, 2), strides=(2, 3, 1)),
          (Arg((5, 7, 2)),), lambda x: x[0:5:2, 1:6:3, 0:2]),
    OpRow("rev", St.rev_p, lambda x: St.rev(x, dimensions=(0, 2)), (Arg((2, 3, 4)),), lambda x: x[::-1, :, ::-1]),
    OpRow("optimization_barrier", St.optimization_barrier_p, St.optimization_barrier, (Arg((2, 3)),), lambda x: x),
    OpRow("concatenate", St.concatenate_p, lambda a, b, c: St.concatenate(a, b, c, dimension=1),
          (Arg((2, 3)), Arg((2, 1)), Arg((2, 4))), lambda a, b, c: np.concatenate([a, b, c], axis=1)),
]


# ------------------------------------------------------------------ pad

def _np_pad(x, value, config):
    """Reference for lax pad: interior padding by scattering into a bigger array, then low/high (negative = crop)."""
    for axis, (lo, hi, interior) in enumerate(config):
        n = x.shape[axis]
        inner = np.full(x.shape[:axis] + (n + max(n - 1, 0) * interior,) + x.shape[axis + 1:], value, x.dtype)
        np.moveaxis(inner, axis, 0)[::interior + 1] = np.moveaxis(x, axis, 0)
        x = np.moveaxis(inner, axis, 0)
        x = np.concatenate([np.full((max(lo, 0),) + x.shape[1:], value, x.dtype), x,
                            np.full((max(hi, 0),) + x.shape[1:], value, x.dtype)])
        x = np.moveaxis(x[max(-lo, 0):x.shape[0] - max(-hi, 0)], 0, axis)
    return x


PAD_CONFIG = ((1, -1, 2), (-2, 3, 0), (0, 0, 1))
ROWS += [
    OpRow("pad", St.pad_p, lambda x, v: St.pad(x, v, padding_config=((2, 1, 0), (0, 3, 0))), (Arg((2, 3)), Arg(())),
          lambda x, v: np.pad(x, ((2, 1), (0, 3)), constant_values=v)),
    OpRow("pad_negative_interior", St.pad_p, lambda x, v: St.pad(x, v, padding_config=PAD_CONFIG),
          (Arg((3, 4, 2)), Arg(())), lambda x, v: _np_pad(x, v, PAD_CONFIG)),
]


# ------------------------------------------------------------------ iota

ROWS += [
    # iota has no operands: nothing to differentiate or batch (vmap never sees it), so only shape/ref/lowering apply.
    OpRow("iota", St.iota_p, lambda: St.iota(dtype="int32", shape=(3, 4), dimension=1), (),
          lambda: np.broadcast_to(np.arange(4, dtype=np.int32), (3, 4)), batch=False),
    OpRow("iota_float", St.iota_p, lambda: St.iota(dtype="float32", shape=(5,), dimension=0), (),
          lambda: np.arange(5, dtype=np.float32), batch=False),
]


# ------------------------------------------------------------------ dynamic_slice / dynamic_update_slice

def _np_dynamic_slice(x, starts, sizes):
    begin = [int(np.clip(s, 0, n - k)) for s, n, k in zip(starts, x.shape, sizes)]
    return x[tuple(slice(b, b + k) for b, k in zip(begin, sizes))]


def _np_dynamic_update_slice(x, u, starts):
    begin = [int(np.clip(s, 0, n - k)) for s, n, k in zip(starts, x.shape, u.shape)]
    out = x.copy()
    out[tuple(slice(b, b + k) for b, k in zip(begin, u.shape))] = u
    return out


def _fixed_index(value):
    return Arg((), "int32", domain=lambda rng: np.array(value))


ROWS += [
    OpRow("dynamic_slice", Sl.dynamic_slice_p, lambda x, i, j: Sl.dynamic_slice(x, i, j, slice_sizes=(2, 3)),
          (Arg((5, 6)), Arg((), "int32", "index", high=4), Arg((), "int32", "index", high=4)),
          lambda x, i, j: _np_dynamic_slice(x, (i, j), (2, 3)), diff=(0,)),
    # Starts past the end (9) and before the start (-3) are clamped so the window fits, as in XLA.
    OpRow("dynamic_slice_clamped", Sl.dynamic_slice_p, lambda x, i, j: Sl.dynamic_slice(x, i, j, slice_sizes=(2, 3)),
          (Arg((5, 6)), _fixed_index(9), _fixed_index(-3)),
          lambda x, i, j: _np_dynamic_slice(x, (i, j), (2, 3)), diff=(0,)),
    OpRow("dynamic_update_slice", Sl.dynamic_update_slice_p,
          lambda x, u, i, j: Sl.dynamic_update_slice(x, u, i, j),
          (Arg((5, 6)), Arg((2, 3)), Arg((), "int32", "index", high=5), Arg((), "int32", "index", high=5)),
          lambda x, u, i, j: _np_dynamic_update_slice(x, u, (i, j)), diff=(0, 1)),
]


# ------------------------------------------------------------------ gather

G = Sl.GatherDimensionNumbers


def _np_take_along_axis(x, idx, axis):
    return np.take_along_axis(x, np.asarray(idx, np.int64), axis=axis)


ROWS += [
    # paddle.gather(x, index, axis=0) and x[idx_array]: rows of x
    OpRow("gather_axis0", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(1,)), slice_sizes=(1, 4),
                                 dimension_numbers=G(offset_dims=(1,), collapsed_slice_dims=(0,),
                                                     start_index_map=(0,))),
          (Arg((5, 4)), Arg((3,), "int32", "index", high=5)), lambda x, i: x[i], diff=(0,)),
    # x[:, idx] on a 3-D tensor (paddle.gather(x, index, axis=1))
    OpRow("gather_axis1", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(1,)), slice_sizes=(2, 1, 3),
                                 dimension_numbers=G(offset_dims=(0, 2), collapsed_slice_dims=(1,),
                                                     start_index_map=(1,))),
          (Arg((2, 5, 3)), Arg((4,), "int32", "index", high=5)), lambda x, i: x[:, i], diff=(0,)),
    # x[idx] with a 2-D index array
    OpRow("gather_advanced_index", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(2,)), slice_sizes=(1, 3),
                                 dimension_numbers=G(offset_dims=(2,), collapsed_slice_dims=(0,),
                                                     start_index_map=(0,))),
          (Arg((5, 3)), Arg((2, 3), "int32", "index", high=5)), lambda x, i: x[i], diff=(0,)),
    # take_along_axis(x, idx, axis=1) via batching dims
    OpRow("gather_take_along_axis", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(2,)), slice_sizes=(1, 1),
                                 dimension_numbers=G(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                                     operand_batching_dims=(0,), start_indices_batching_dims=(0,))),
          (Arg((3, 4)), Arg((3, 2), "int32", "index", high=4)),
          lambda x, i: _np_take_along_axis(x, i, 1), diff=(0,)),
    # gather_nd: index pairs into the first two axes
    OpRow("gather_nd", Sl.gather_p,
          lambda x, i: Sl.gather(x, i, slice_sizes=(1, 1, 3),
                                 dimension_numbers=G(offset_dims=(1,), collapsed_slice_dims=(0, 1),
                                                     start_index_map=(0, 1))),
          (Arg((4, 5, 3)), Arg((6, 2), "int32", "index", high=4)), lambda x, i: x[i[:, 0], i[:, 1]], diff=(0,)),
    # windows of 2 rows; starts up to 5 are clamped to 4 so the window fits
    OpRow("gather_window_clip", Sl.gather_p,
          lambda x, i: Sl.gather(x, i, slice_sizes=(2, 4),
                                 dimension_numbers=G(offset_dims=(1, 2), collapsed_slice_dims=(),
                                                     start_index_map=(0,))),
          (Arg((6, 4)), Arg((3, 1), "int32", "index", high=6)),
          lambda x, i: np.stack([x[min(k, 4):min(k, 4) + 2] for k in i[:, 0]]), diff=(0,)),
    # mode="fill": out-of-range indices (-2..7 into 5 rows) read zeros
    OpRow("gather_fill", Sl.gather_p,
          lambda x, i: Sl.gather(x, St.expand_dims(i, dimensions=(1,)), slice_sizes=(1, 2), mode="fill",
                                 dimension_numbers=G(offset_dims=(1,), collapsed_slice_dims=(0,),
                                                     start_index_map=(0,))),
          (Arg((5, 2)), Arg((6,), "int32", domain=lambda rng: rng.integers(-2, 8, size=6))),
          lambda x, i: np.where(((i >= 0) & (i < 5))[:, None], x[np.clip(i, 0, 4)], 0.0), diff=(0,)),
]


# ------------------------------------------------------------------ scatter / scatter_add

S = Sl.ScatterDimensionNumbers


def _np_scatter(x, idx, u):
    out = x.copy()
    out[idx] = u
    return out


def _np_scatter_add(x, idx, u):
    out = x.copy()
    np.add.at(out, idx, u)
    return out


def _np_put_along_axis_add(x, idx, u):
    out = x.copy()
    for r in range(x.shape[0]):
        np.add.at(out[r], idx[r], u[r])
    return out


ROWS += [
    # x[idx] = u with unique row indices
    OpRow("scatter_unique", Sl.scatter_p,
          lambda x, i, u: Sl.scatter(x, i, u, dimension_numbers=S(update_window_dims=(1,), inserted_window_dims=(0,),
                                                                  scatter_dims_to_operand_dims=(0,))),
          (Arg((5, 3)), Arg((3, 1), "int32", domain=lambda rng: rng.permutation(5)[:3].reshape(3, 1)), Arg((3, 3))),
          lambda x, i, u: _np_scatter(x, i[:, 0], u), diff=(0, 2)),
    # index_add / scatter_nd_add style: duplicate rows accumulate
    OpRow("scatter_add_duplicates", Sl.scatter_add_p,
          lambda x, i, u: Sl.scatter_add(x, i, u, dimension_numbers=S(update_window_dims=(1,),
                                                                      inserted_window_dims=(0,),
                                                                      scatter_dims_to_operand_dims=(0,))),
          (Arg((4, 3)), Arg((5, 1), "int32", domain=lambda rng: np.array([[0], [2], [0], [3], [2]])), Arg((5, 3))),
          lambda x, i, u: _np_scatter_add(x, i[:, 0], u), diff=(0, 2)),
    # scatter_nd_add: index pairs into a matrix, duplicates likely
    OpRow("scatter_add_nd", Sl.scatter_add_p,
          lambda x, i, u: Sl.scatter_add(x, i, u, dimension_numbers=S(update_window_dims=(),
                                                                      inserted_window_dims=(0, 1),
                                                                      scatter_dims_to_operand_dims=(0, 1))),
          (Arg((3, 4)), Arg((6, 2), "int32", "index", high=3), Arg((6,))),
          lambda x, i, u: _np_scatter_add(x, (i[:, 0], i[:, 1]), u), diff=(0, 2)),
    # put_along_axis(..., reduce="add") along axis 1 via batching dims
    OpRow("scatter_add_along_axis", Sl.scatter_add_p,
          lambda x, i, u: Sl.scatter_add(x, St.expand_dims(i, dimensions=(2,)), u,
                                         dimension_numbers=S(update_window_dims=(), inserted_window_dims=(1,),
                                                             scatter_dims_to_operand_dims=(1,),
                                                             operand_batching_dims=(0,),
                                                             scatter_indices_batching_dims=(0,))),
          (Arg((3, 4)), Arg((3, 2), "int32", "index", high=4), Arg((3, 2))),
          _np_put_along_axis_add, diff=(0, 2)),
]
