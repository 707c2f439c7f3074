"""Paddle 3's `take` (elements of the flattened Tensor, with index modes) and `index_fill` (whole slices set to a
value), composed from gather, comparisons and `where`, so every transform sees through them.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import DTypeError
from paddle_fn.core.trace import Tracer, get_aval
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axis, static_int
from paddle_fn.tensor.creation import arange
from paddle_fn.tensor.manipulation import gather, reshape, where
from paddle_fn.tensor.math import clip, mod
from paddle_fn.tensor.pointwise import isin
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["take", "index_fill", "shard_index"]


def _int_index(op, index):
    index = as_tensor(index)
    if get_aval(index).dtype.name not in ("int32", "int64"):
        raise DTypeError(f"{op}: index must be an int32 or int64 Tensor, got {get_aval(index).dtype.name}; cast it "
                         "with index.astype('int64')")
    return index


def _check_range(op, index, size, what):
    """Eagerly, that every index lies in [-size, size) (traced, indices are clamped: see docs/security.md)."""
    if isinstance(index, Tracer):
        return
    values = np.asarray(index.concrete_value())
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        raise IndexError(f"{op}: index {int(bad.flat[0])} is out of range for {what} of size {size}; indices must "
                         f"lie in [-{size}, {size})")


def take(x, index, mode="raise", name=None):
    """The elements of `x` (read as flattened) at `index`, in `index`'s shape. `mode` says what an index outside
    [-n, n) does: 'raise' (an IndexError; negative indices count from the end), 'wrap' (taken modulo n) or 'clip'
    (clamped to [0, n - 1], negative ones to 0).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(12).reshape([3, 4])
        >>> paddle.take(x, paddle.to_tensor([[0, 5], [-1, 11]])).tolist()
        [[0, 5], [11, 11]]
        >>> paddle.take(x, paddle.to_tensor([13, -13]), mode='wrap').tolist()
        [1, 11]
    """
    x, index = as_tensor(x), _int_index("take", index)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    size = get_aval(x).size
    if size == 0:
        raise IndexError("take: x has no elements to take from")
    flat, shape = reshape(x, [size]), list(get_aval(index).shape)
    positions = reshape(index, [get_aval(index).size])
    if mode == "raise":
        _check_range("take", positions, size, "x with its elements flattened")
        positions = where(positions < 0, positions + size, positions)
    elif mode == "wrap":
        positions = mod(positions, size)
    else:
        positions = clip(positions, 0, size - 1)
    return reshape(gather(flat, positions), shape)


def index_fill(x, index, axis, value, name=None):
    """`x` with the slices at `index` along `axis` set to `value` (a number or a 0-D Tensor); negative indices
    count from the end.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.arange(6).reshape([2, 3])
        >>> paddle.index_fill(x, paddle.to_tensor([0, 2]), 1, -1).tolist()
        [[-1, 1, -1], [-1, 4, -1]]
    """
    x, index = as_tensor(x), _int_index("index_fill", index)
    shape = get_aval(x).shape
    ax = normalize_axis("index_fill", static_int("index_fill", axis, "axis"), len(shape))
    size = shape[ax]
    _check_range("index_fill", index, size, f"axis {ax} of x (shape {list(shape)})")
    wanted = reshape(where(index < 0, index + size, index), [get_aval(index).size])
    hit = isin(arange(size, dtype=get_aval(wanted).dtype), wanted)
    hit = st.broadcast_in_dim(hit, shape=tuple(shape), broadcast_dimensions=(ax,))
    fill = cast(as_tensor(value), get_aval(x).dtype)
    if get_aval(fill).ndim:
        raise ValueError(f"index_fill: value must be a number or a 0-D Tensor, got shape {list(get_aval(fill).shape)}")
    return where(hit, fill, x)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002 - Paddle's names
    """Each label of `input` (int, [..., 1]) as an index into its shard: the `index_num` labels are split into
    `nshards` shards of ``ceil(index_num / nshards)``; a label in shard `shard_id` becomes its offset there, any
    other label `ignore_value`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.shard_index(paddle.to_tensor([[16], [1], [19], [3]]), 20, 2, 1, ignore_value=-7).tolist()
        [[6], [-7], [9], [-7]]
    """
    x = as_tensor(input)
    if get_aval(x).dtype.name not in ("int32", "int64"):
        raise DTypeError(f"shard_index: input must be an int32 or int64 Tensor, got {get_aval(x).dtype.name}")
    index_num, nshards = static_int("shard_index", index_num, "index_num"), static_int("shard_index", nshards, "nshards")
    shard_id = static_int("shard_index", shard_id, "shard_id")
    if nshards < 1 or not 0 <= shard_id < nshards:
        raise ValueError(f"shard_index: need nshards >= 1 and 0 <= shard_id < nshards, got nshards={nshards}, "
                         f"shard_id={shard_id}")
    size = (index_num + nshards - 1) // nshards
    return where(x // size == shard_id, mod(x, size), st.full_like(x, ignore_value))
