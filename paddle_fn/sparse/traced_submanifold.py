"""A submanifold convolution whose input coordinates are traced (a sparse Tensor passed into `jit` or `vmap`).

Its output sites are the input's, so the result has a static shape even though no rulebook can be built: each
entry finds the entry of each neighbouring site by a binary search among the input's flat coordinates, with a
fixed number of halving steps (static shapes throughout), and adds up its neighbours' rows times the taps'
weights. The search needs the coordinates sorted with no repeats, as a coalesced COO Tensor (from
`to_sparse_coo`, `coalesce` or another convolution) stores them; the output keeps the input's index Tensor.
"""
from __future__ import annotations

import math

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.prims.sparse import sparse_dense_dot
from paddle_fn.sparse.rulebook import Geometry, gathered_product
from paddle_fn.sparse.tensor import INDEX_DTYPE

__all__ = ["traced_submanifold"]


def _lower_bound(sorted_keys, queries):
    """The first position of each query's key in the ascending `sorted_keys` (its length where none is as large):
    a binary search, one halving step per bit of the length."""
    n = sorted_keys.shape[0]
    low, high = T.zeros_like(queries), T.full_like(queries, n)
    for _ in range(math.ceil(math.log2(n + 1))):
        searching = low < high
        middle = (low + high) // 2
        smaller = T.gather(sorted_keys, T.clip(middle, 0, n - 1)) < queries
        low = T.where(searching & smaller, middle + 1, low)
        high = T.where(searching & ~smaller, middle, high)
    return low


def traced_submanifold(values, indices, shape, weight, geometry: Geometry, groups: int):
    """The output values ([entries, C_out]) at the input's own entries: every (entry, tap) neighbour found at
    once, their rows gathered as one [entries, taps * C_in] matrix (zero rows for the neighbours not stored) and
    multiplied by the weight flattened to [taps * C_in, C_out]."""
    coords = T.cast(indices, INDEX_DTYPE)
    entries, channels = values.shape
    sizes = np.asarray([shape[0], *geometry.out_spatial])
    keys = coords[0]
    for axis, size in enumerate(geometry.out_spatial):
        keys = keys * size + coords[axis + 1]
    place = np.cumprod(np.concatenate([[1], sizes[:0:-1]]))[::-1]  # the flat key's step along each axis
    offsets = geometry.taps() * np.asarray(geometry.dilation) - np.asarray(geometry.pad_before)  # [taps, n]
    taps = offsets.shape[0]
    moved = coords[1:][None] + T.to_tensor(offsets[:, :, None])  # [taps, n, entries]
    inside = T.all((moved >= 0) & (moved < T.to_tensor(sizes[1:, None])), axis=1)  # [taps, entries]
    wanted = keys[None] + T.to_tensor((offsets @ place[1:])[:, None])
    position = T.reshape(_lower_bound(keys, T.reshape(wanted, [-1])), [taps, entries])
    position = T.clip(position, 0, max(entries - 1, 0))
    found = inside & (T.reshape(T.gather(keys, T.reshape(position, [-1])), [taps, entries]) == wanted)
    # row (entry, tap) of the gathered matrix holds the neighbour's values
    rows = sparse_dense_dot(T.arange(entries * taps, dtype=INDEX_DTYPE), T.reshape(T.transpose(position, [1, 0]), [-1]),
                            T.reshape(T.cast(T.transpose(found, [1, 0]), values.dtype), [-1]), values,
                            num_rows=entries * taps, row_bound=1)
    return gathered_product(T.reshape(rows, [entries, taps, channels]),
                            T.reshape(weight, [taps, weight.shape[-2], weight.shape[-1]]), groups)
