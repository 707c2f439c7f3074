"""Shape manipulation: reshape, squeeze/unsqueeze, flatten, transpose, concat/stack/split, tile/expand,
flip/roll/rot90, repeat_interleave, crop, slice, where, the gather and scatter family, unique.

The gathers and scatters are written with `x[index]` and `x.at[index]` (see `indexing`), so every index form
shares one implementation of bounds handling, negative indices and autodiff.
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, Tracer, concrete_or_error, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import slicing as sl
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import (accepts_out, normalize_axes, normalize_axis, shape_of, static_int, static_list,
                                    write_out)
from paddle_fn.tensor.creation import zeros
from paddle_fn.tensor.indexing import _normalized_index, _scatter_update, getitem
from paddle_fn.tensor.promotion import as_tensor, broadcast_to_shape, cast, nary_operands
from paddle_fn.tensor.promotion import broadcast_shapes as shapes_broadcast

__all__ = ["reshape", "squeeze", "unsqueeze", "flatten", "transpose", "moveaxis", "concat", "diff", "stack", "split",
           "chunk", "unstack", "unbind", "tile", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "flip",
           "roll", "gather", "index_select", "take_along_axis", "where", "nonzero", "slice", "strided_slice",
           "gather_nd", "scatter", "scatter_nd", "scatter_nd_add", "index_sample",
           "repeat_interleave", "rot90", "crop", "unique", "unique_consecutive", "broadcast_shape", "broadcast_shapes",
           "tolist", "multiplex"]


def reshape(x, shape, name=None):
    """Reshape `x`; one entry of `shape` may be -1 (inferred) and 0 copies the input's size at that index.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.reshape(paddle.ones([3, 2, 5]), [0, -1]).shape
        paddle.Size([3, 10])
    """
    x = as_tensor(x)
    a = get_aval(x)
    dims = static_list("reshape", shape, "shape")
    out = []
    for i, d in enumerate(dims):
        if d == 0:
            if i >= a.ndim:
                raise ShapeError(f"reshape: shape {dims} has 0 at index {i}, which copies input dimension {i}, but "
                                 f"the input has shape {list(a.shape)} (rank {a.ndim})")
            d = a.shape[i]
        out.append(d)
    if out.count(-1) > 1:
        raise ShapeError(f"reshape: shape {dims} may contain -1 at most once")
    if -1 in out:
        known = math.prod(d for d in out if d != -1)
        if known == 0 or a.size % known:
            raise ShapeError(f"reshape: cannot infer the -1 in {dims} for an input of shape {list(a.shape)} "
                             f"({a.size} elements)")
        out[out.index(-1)] = a.size // known
    if any(d < 0 for d in out) or math.prod(out) != a.size:
        raise ShapeError(f"reshape: cannot reshape an input of shape {list(a.shape)} ({a.size} elements) to {dims}")
    if tuple(out) == a.shape and not isinstance(x, Tracer):
        # as in Paddle, an eager reshape is a new Tensor even to the same shape: a leaf's reshape is no leaf, so it
        # may be written in place (the lax-level reshape returns its input unchanged)
        return st.reshape_p.bind(x, new_sizes=a.shape)
    return st.reshape(x, new_sizes=tuple(out))


def squeeze(x, axis=None, name=None):
    """Remove size-1 dimensions (all of them, or those listed in `axis`; listed dims of other sizes are kept).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.squeeze(paddle.ones([1, 3, 1]), axis=0).shape
        paddle.Size([3, 1])
    """
    x = as_tensor(x)
    a = get_aval(x)
    axes = tuple(range(a.ndim)) if axis is None else normalize_axes("squeeze", axis, a.ndim)
    drop = tuple(i for i in axes if a.shape[i] == 1)
    return st.reshape(x, new_sizes=tuple(s for i, s in enumerate(a.shape) if i not in drop))


def unsqueeze(x, axis, name=None):
    """Insert size-1 dimensions at the positions `axis` (an int or list; positions refer to the output).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.unsqueeze(paddle.ones([3]), [0, 2]).shape
        paddle.Size([1, 3, 1])
    """
    x = as_tensor(x)
    shape = list(shape_of(x))
    for ax in static_list("unsqueeze", axis, "axis"):
        ax = normalize_axis("unsqueeze", ax, len(shape) + 1)
        shape.insert(ax, 1)
    return st.reshape(x, new_sizes=tuple(shape))


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge dimensions start_axis..stop_axis (inclusive) into one.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.flatten(paddle.ones([2, 3, 4]), start_axis=1).shape
        paddle.Size([2, 12])
    """
    x = as_tensor(x)
    a = get_aval(x)
    if a.ndim == 0:
        return st.reshape(x, new_sizes=(1,))
    s, e = normalize_axis("flatten", start_axis, a.ndim), normalize_axis("flatten", stop_axis, a.ndim)
    if s > e:
        raise ShapeError(f"flatten: start_axis {start_axis} comes after stop_axis {stop_axis} (rank {a.ndim})")
    merged = math.prod(a.shape[s:e + 1])
    return st.reshape(x, new_sizes=a.shape[:s] + (merged,) + a.shape[e + 1:])


def transpose(x, perm=None, name=None):
    """Permute the dimensions: output dimension i is input dimension perm[i]. Without `perm` the axes are
    reversed, as ``x.T`` and ``jnp.transpose(x)`` do (Paddle requires `perm`; giving it means the same).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.transpose(paddle.ones([2, 3, 4]), [2, 0, 1]).shape
        paddle.Size([4, 2, 3])
        >>> paddle.transpose(paddle.ones([2, 3, 4])).shape
        paddle.Size([4, 3, 2])
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    if perm is None:
        return st.transpose(x, permutation=tuple(reversed(range(rank))))
    perm = [normalize_axis("transpose", p, rank) for p in static_list("transpose", perm, "perm")]
    if sorted(perm) != list(range(rank)):
        raise ShapeError(f"transpose: perm {perm} is not a permutation of the {rank} axes of a tensor of shape "
                         f"{list(shape_of(x))}")
    return st.transpose(x, permutation=tuple(perm))


def moveaxis(x, source, destination, name=None):
    """Move dimensions `source` to positions `destination`, keeping the order of the others.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.moveaxis(paddle.ones([2, 3, 4]), 0, -1).shape
        paddle.Size([3, 4, 2])
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    src = [normalize_axis("moveaxis", s, rank) for s in static_list("moveaxis", source, "source")]
    dst = [normalize_axis("moveaxis", d, rank) for d in static_list("moveaxis", destination, "destination")]
    if len(src) != len(dst):
        raise ShapeError(f"moveaxis: source {src} and destination {dst} have different lengths")
    rest = iter(i for i in range(rank) if i not in src)
    by_dst = dict(zip(dst, src))
    return st.transpose(x, permutation=tuple(by_dst[i] if i in by_dst else next(rest) for i in range(rank)))


@accepts_out
def concat(x, axis=0, name=None):
    """Join Tensors along an existing dimension `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.concat([paddle.ones([1, 2]), paddle.zeros([2, 2])], axis=0).shape
        paddle.Size([3, 2])
    """
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError("concat: x must be a non-empty list or tuple of Tensors")
    xs = [as_tensor(t) for t in x]
    dt = functools.reduce(dtypes.result_dtype_tensors, [get_aval(t).dtype for t in xs])
    xs = [cast(t, dt) for t in xs]
    rank = get_aval(xs[0]).ndim
    ax = normalize_axis("concat", axis, rank)
    ref = shape_of(xs[0])
    for t in xs[1:]:
        s = shape_of(t)
        if len(s) != rank or any(s[i] != ref[i] for i in range(rank) if i != ax):
            raise ShapeError(f"concat: shapes {[list(shape_of(t)) for t in xs]} must agree except in axis {ax}")
    if len(xs) == 1:
        return xs[0]
    return st.concatenate(*xs, dimension=ax)


@accepts_out
def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The n-th forward difference along `axis` (bool inputs: elementwise xor), after joining `prepend` and
    `append` along that axis.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diff(paddle.to_tensor([1, 4, 9, 16])).numpy()
        array([3, 5, 7])
    """
    x = as_tensor(x)
    ax = normalize_axis("diff", axis, get_aval(x).ndim)
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = concat([as_tensor(p) for p in parts], axis=ax)
    for _ in range(int(n)):
        a = get_aval(x)
        length = a.shape[ax]
        lo = tuple(1 if d == ax else 0 for d in range(a.ndim))
        hi = tuple(length - 1 if d == ax else s for d, s in enumerate(a.shape))
        later = st.slice(x, start_indices=lo, limit_indices=a.shape)
        earlier = st.slice(x, start_indices=(0,) * a.ndim, limit_indices=hi)
        x = ew.ne(later, earlier) if a.dtype.kind == "b" else ew.sub(later, earlier)
    return x


@accepts_out
def stack(x, axis=0, name=None):
    """Join Tensors of one shape along a new dimension `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.stack([paddle.ones([2]), paddle.zeros([2])], axis=1).shape
        paddle.Size([2, 2])
    """
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError("stack: x must be a non-empty list or tuple of Tensors")
    xs = [as_tensor(t) for t in x]
    shapes = {shape_of(t) for t in xs}
    if len(shapes) != 1:
        raise ShapeError(f"stack: all inputs must have the same shape, got {[list(shape_of(t)) for t in xs]}")
    ax = normalize_axis("stack", axis, get_aval(xs[0]).ndim + 1)
    return concat([unsqueeze(t, ax) for t in xs], axis=ax)


def _slice_axis(x, axis, start, stop):
    a = get_aval(x)
    starts = [0] * a.ndim
    limits = list(a.shape)
    starts[axis], limits[axis] = start, stop
    return st.slice(x, start_indices=tuple(starts), limit_indices=tuple(limits))


def split(x, num_or_sections, axis=0, name=None):
    """Split `x` along `axis` into `num_or_sections` equal parts, or parts of the listed sizes (one may be -1).

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.split(paddle.ones([5, 2]), [2, -1])]
        [paddle.Size([2, 2]), paddle.Size([3, 2])]
    """
    x = as_tensor(x)
    a = get_aval(x)
    ax = normalize_axis("split", axis, a.ndim)
    n = a.shape[ax]
    if isinstance(num_or_sections, (int, np.integer)) or (isinstance(num_or_sections, Tensor) and
                                                           get_aval(num_or_sections).ndim == 0):
        k = static_int("split", num_or_sections, "num_or_sections")
        if k <= 0 or n % k:
            raise ShapeError(f"split: dimension {ax} of shape {list(a.shape)} (size {n}) cannot be split into {k} "
                             "equal parts; pass a list of section sizes instead")
        sizes = [n // k] * k
    else:
        sizes = static_list("split", num_or_sections, "num_or_sections")
        if sizes.count(-1) > 1:
            raise ShapeError(f"split: sections {sizes} may contain -1 at most once")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ShapeError(f"split: sections {list(num_or_sections)} do not add up to the size {n} of dimension "
                             f"{ax} of shape {list(a.shape)}")
    outs, start = [], 0
    for s in sizes:
        outs.append(_slice_axis(x, ax, start, start + s))
        start += s
    return outs


def chunk(x, chunks, axis=0, name=None):
    """Split `x` into `chunks` equal parts along `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> len(paddle.chunk(paddle.ones([6]), 3))
        3
    """
    return split(x, chunks, axis)


def unstack(x, axis=0, num=None):
    """Split `x` along `axis` into a list of Tensors with that dimension removed.

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.unstack(paddle.ones([2, 3]))]
        [paddle.Size([3]), paddle.Size([3])]
    """
    x = as_tensor(x)
    ax = normalize_axis("unstack", axis, get_aval(x).ndim)
    return [squeeze(t, ax) for t in split(x, shape_of(x)[ax], ax)]


def unbind(input, axis=0):  # noqa: A002 - Paddle's parameter name
    """Like `unstack`.

    Example:
        >>> import paddle_fn as paddle
        >>> len(paddle.unbind(paddle.ones([3, 2]), axis=1))
        2
    """
    return unstack(input, axis)


def tile(x, repeat_times, name=None):
    """Repeat `x` `repeat_times[i]` times along dimension i (leading dims are added as needed).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tile(paddle.to_tensor([1, 2]), [2, 2]).numpy()
        array([[1, 2, 1, 2],
               [1, 2, 1, 2]])
    """
    x = as_tensor(x)
    reps = static_list("tile", repeat_times, "repeat_times")
    shape = shape_of(x)
    rank = max(len(shape), len(reps))
    shape = (1,) * (rank - len(shape)) + shape
    reps = [1] * (rank - len(reps)) + reps
    x = st.reshape(x, new_sizes=shape)
    # broadcast to [r0, s0, r1, s1, ...] then merge each (r_i, s_i) pair
    interleaved = tuple(v for r, s in zip(reps, shape) for v in (r, s))
    out = st.broadcast_in_dim(x, shape=interleaved, broadcast_dimensions=tuple(range(1, 2 * rank, 2)))
    return st.reshape(out, new_sizes=tuple(r * s for r, s in zip(reps, shape)))


def broadcast_to(x, shape, name=None):
    """Broadcast `x` to `shape` with numpy's rules.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.broadcast_to(paddle.to_tensor([1, 2]), [3, 2]).shape
        paddle.Size([3, 2])
    """
    x = as_tensor(x)
    shape = tuple(static_list("broadcast_to", shape, "shape"))
    if shapes_broadcast("broadcast_to", shape_of(x), shape) != shape:
        raise ShapeError(f"broadcast_to: cannot broadcast shape {list(shape_of(x))} to {list(shape)}")
    return broadcast_to_shape(x, shape)


def expand(x, shape, name=None):
    """Broadcast `x` to `shape`; -1 keeps the input's size in that dimension.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.expand(paddle.ones([1, 3]), [2, -1]).shape
        paddle.Size([2, 3])
    """
    x = as_tensor(x)
    dims = static_list("expand", shape, "shape")
    xs = shape_of(x)
    lead = len(dims) - len(xs)
    if lead < 0:
        raise ShapeError(f"expand: target shape {dims} has fewer dimensions than the input {list(xs)}")
    dims = [xs[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(dims)]
    return broadcast_to(x, dims)


def expand_as(x, y, name=None):
    """Broadcast `x` to the shape of `y`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.expand_as(paddle.ones([3]), paddle.zeros([2, 3])).shape
        paddle.Size([2, 3])
    """
    return broadcast_to(x, shape_of(as_tensor(y)))


def broadcast_tensors(input, name=None):  # noqa: A002
    """Broadcast a list of Tensors against each other.

    Example:
        >>> import paddle_fn as paddle
        >>> [t.shape for t in paddle.broadcast_tensors([paddle.ones([2, 1]), paddle.ones([3])])]
        [paddle.Size([2, 3]), paddle.Size([2, 3])]
    """
    xs = [as_tensor(t) for t in input]
    shape = shapes_broadcast("broadcast_tensors", *[shape_of(t) for t in xs])
    return [broadcast_to_shape(t, shape) for t in xs]


def flip(x, axis, name=None):
    """Reverse the order of elements along the dimensions `axis` (int or list).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.flip(paddle.to_tensor([1, 2, 3]), axis=0).numpy()
        array([3, 2, 1])
    """
    x = as_tensor(x)
    axes = normalize_axes("flip", axis, get_aval(x).ndim)
    return st.rev(x, dimensions=axes) if axes else x


def roll(x, shifts, axis=None, name=None):
    """Shift elements cyclically by `shifts` along `axis` (None: over the flattened input, shape restored).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.roll(paddle.to_tensor([1, 2, 3, 4]), 1).numpy()
        array([4, 1, 2, 3])
    """
    x = as_tensor(x)
    shifts = static_list("roll", shifts, "shifts")
    if axis is None:
        flat = st.reshape(x, new_sizes=(get_aval(x).size,))
        return st.reshape(roll(flat, shifts[0], 0), new_sizes=shape_of(x))
    axes = [normalize_axis("roll", a, get_aval(x).ndim) for a in static_list("roll", axis, "axis")]
    if len(axes) != len(shifts):
        raise ShapeError(f"roll: shifts {shifts} and axis {axes} must have the same length")
    for s, ax in zip(shifts, axes):
        n = shape_of(x)[ax]
        if n == 0:
            continue
        s %= n
        if s:
            x = st.concatenate(_slice_axis(x, ax, n - s, n), _slice_axis(x, ax, 0, n - s), dimension=ax)
    return x


def _index_vector(op, index):
    index = as_tensor(index)
    a = get_aval(index)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{op}: index must be an integer Tensor, got {a.dtype.name}")
    if a.ndim == 2 and a.shape[1] == 1:
        index = st.reshape(index, new_sizes=(a.shape[0],))
    elif a.ndim != 1:
        raise ShapeError(f"{op}: index must be 1-D [M] or [M, 1], got shape {list(a.shape)}")
    return index


def gather(x, index, axis=None, name=None, out=None):
    """Select entries of `x` along `axis` (default 0) at the positions in the 1-D `index`:
    out[..., i, ...] = x[..., index[i], ...]; `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1, 2], [3, 4], [5, 6]])
        >>> paddle.gather(x, paddle.to_tensor([2, 0])).numpy()
        array([[5, 6],
               [1, 2]])
    """
    x = as_tensor(x)
    index = _index_vector("gather", index)
    ax = 0 if axis is None else normalize_axis("gather", axis, get_aval(x).ndim)
    return write_out(getitem(x, (builtins.slice(None),) * ax + (index,)), out)


@accepts_out
def index_select(x, index, axis=0, name=None):
    """Like `gather` with an explicit axis.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.index_select(paddle.to_tensor([[1, 2], [3, 4]]), paddle.to_tensor([1]), axis=1).numpy()
        array([[2],
               [4]])
    """
    return gather(x, index, axis)


@accepts_out
def take_along_axis(arr, indices, axis, broadcast=True):
    """Pick values along `axis` at `indices`, which has arr's rank and broadcasts in the other dimensions; with
    ``broadcast=False`` the result has indices' shape, each of its other dimensions at most arr's (the leading
    part of arr is read there, as ``torch.gather``).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1, 2], [3, 4]])
        >>> paddle.take_along_axis(x, paddle.to_tensor([[1], [0]]), axis=1).numpy()
        array([[2],
               [3]])
        >>> paddle.take_along_axis(x, paddle.to_tensor([[1]]), axis=1, broadcast=False).tolist()
        [[2]]
    """
    arr, indices = as_tensor(arr), as_tensor(indices)
    rank = get_aval(arr).ndim
    ax = normalize_axis("take_along_axis", axis, rank)
    if get_aval(indices).ndim != rank:
        raise ShapeError(f"take_along_axis: indices (shape {list(shape_of(indices))}) must have the rank of arr "
                         f"(shape {list(shape_of(arr))})")
    if not broadcast:
        if any(i != ax and n > m for i, (n, m) in enumerate(zip(shape_of(indices), shape_of(arr)))):
            raise ShapeError(f"take_along_axis: with broadcast=False, indices (shape {list(shape_of(indices))}) "
                             f"may not be larger than arr (shape {list(shape_of(arr))}) outside axis {ax}")
        arr = st.slice(arr, start_indices=(0,) * rank, limit_indices=tuple(
            m if i == ax else n for i, (n, m) in enumerate(zip(shape_of(indices), shape_of(arr)))))
    out_shape = list(shapes_broadcast("take_along_axis", tuple(s for i, s in enumerate(shape_of(arr)) if i != ax),
                                      tuple(s for i, s in enumerate(shape_of(indices)) if i != ax)))
    out_shape.insert(ax, shape_of(indices)[ax])
    n = shape_of(arr)[ax]
    indices = _normalized_index(broadcast_to_shape(indices, out_shape), n, ax)
    arr = broadcast_to_shape(arr, tuple(n if i == ax else s for i, s in enumerate(out_shape)))
    # one gather whose other dimensions are batch dimensions: out[..., i, ...] = arr[..., indices[..., i, ...], ...]
    others = tuple(d for d in range(rank) if d != ax)
    dnums = sl.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(ax,), start_index_map=(ax,),
                                      operand_batching_dims=others, start_indices_batching_dims=others)
    return sl.gather(arr, st.reshape(indices, new_sizes=tuple(out_shape) + (1,)), dimension_numbers=dnums,
                     slice_sizes=(1,) * rank)


@accepts_out
def where(condition, x=None, y=None, name=None):
    """Elementwise `x if condition else y` with broadcasting; with only `condition`, the same as
    ``nonzero(condition, as_tuple=True)`` (eager only).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1., -2., 3.])
        >>> paddle.where(x > 0, x, paddle.zeros_like(x)).numpy()
        array([1., 0., 3.], dtype=float32)
    """
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise TypeError("where: give both x and y, or neither")
    condition = as_tensor(condition)
    if get_aval(condition).dtype != dtypes.bool_:
        condition = cast(condition, dtypes.bool_)
    xb, yb = nary_operands("where", x, y)
    shape = shapes_broadcast("where", shape_of(condition), shape_of(xb))
    return ew.select(broadcast_to_shape(condition, shape), broadcast_to_shape(xb, shape),
                     broadcast_to_shape(yb, shape))


@accepts_out
def nonzero(x, as_tuple=False):
    """Indices of the non-zero elements: an int64 Tensor of shape [N, rank], or a tuple of rank Tensors of
    shape [N] with as_tuple=True (as Paddle 3.3). The output size depends on the values, so this works eagerly
    only.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nonzero(paddle.to_tensor([0, 3, 0, 5])).numpy()
        array([[1],
               [3]])
        >>> paddle.nonzero(paddle.to_tensor([[1, 0], [0, 2]]), as_tuple=True)[1].numpy()
        array([0, 1])
    """
    x = as_tensor(x)
    v = concrete_or_error(x, "nonzero: x", "Its result size depends on the values, so it cannot be traced; use "
                          "paddle_fn.where(cond, x, y) with a fixed shape instead")
    idx = np.stack(np.nonzero(np.atleast_1d(v)), axis=1).astype(np.int64)
    if as_tuple:
        return tuple(Tensor(idx[:, i].copy()) for i in range(idx.shape[1]))
    return Tensor(idx)


def slice(input, axes, starts, ends):  # noqa: A001,A002 - Paddle's names
    """Slice `input` along `axes` from `starts` to `ends` (exclusive; negative values count from the end and
    values past the end are clamped).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.slice(paddle.ones([4, 5]), axes=[0, 1], starts=[1, 0], ends=[3, -1]).shape
        paddle.Size([2, 4])
    """
    return strided_slice(input, axes, starts, ends, [1] * len(static_list("slice", axes, "axes")))


def strided_slice(x, axes, starts, ends, strides, name=None):
    """Slice `x` along `axes` with Python slice semantics start:end:stride per axis.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.strided_slice(paddle.arange(6), axes=[0], starts=[5], ends=[0], strides=[-2]).numpy()
        array([5, 3, 1])
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    index = [builtins.slice(None)] * rank
    columns = [static_list("strided_slice", v, n) for v, n in ((axes, "axes"), (starts, "starts"), (ends, "ends"),
                                                              (strides, "strides"))]
    for ax, s, e, k in zip(*columns):
        index[normalize_axis("strided_slice", ax, rank)] = builtins.slice(s, e, k)
    return getitem(x, tuple(index))



def _index_columns(op, index, rank):
    """The last axis of an integer `index` [..., K] as K index Tensors (K <= rank)."""
    index = as_tensor(index)
    a = get_aval(index)
    if a.dtype.kind not in "iu" or a.ndim < 1:
        raise TypeError(f"{op}: index must be an integer Tensor of shape [..., K], got {a.str_short()}")
    k = a.shape[-1]
    if k > rank:
        raise ShapeError(f"{op}: index has {k} coordinates in its last axis (shape {list(a.shape)}) but x has only "
                         f"{rank} dimensions")
    return [st.reshape(st.slice(index, start_indices=(0,) * (a.ndim - 1) + (i,), limit_indices=a.shape[:-1] + (i + 1,)),
                       new_sizes=a.shape[:-1]) for i in range(k)]


def gather_nd(x, index, name=None):
    """Gather slices of `x` at the coordinates in the last axis of `index`:
    out[i...] = x[index[i..., 0], ..., index[i..., K-1]], of shape index.shape[:-1] + x.shape[K:].

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1, 2], [3, 4]])
        >>> paddle.gather_nd(x, paddle.to_tensor([[1, 0], [0, 1]])).numpy()
        array([3, 2])
    """
    x = as_tensor(x)
    cols = _index_columns("gather_nd", index, get_aval(x).ndim)
    if not cols:
        batch = shape_of(as_tensor(index))[:-1]
        return broadcast_to_shape(x, batch + shape_of(x))
    return getitem(x, tuple(cols))


def scatter_nd_add(x, index, updates, name=None):
    """A copy of `x` with `updates` added at the coordinates in the last axis of `index` (repeated coordinates
    accumulate); updates has shape index.shape[:-1] + x.shape[K:].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.scatter_nd_add(paddle.zeros([3]), paddle.to_tensor([[1], [1], [2]]),
        ...                       paddle.to_tensor([1., 2., 3.])).numpy()
        array([0., 3., 3.], dtype=float32)
    """
    x = as_tensor(x)
    cols = _index_columns("scatter_nd_add", index, get_aval(x).ndim)
    expected = shape_of(as_tensor(index))[:-1] + shape_of(x)[len(cols):]
    if shape_of(as_tensor(updates)) != expected:
        raise ShapeError(f"scatter_nd_add: updates has shape {list(shape_of(as_tensor(updates)))} but index "
                         f"{list(shape_of(as_tensor(index)))} into x {list(shape_of(x))} needs {list(expected)}")
    return _scatter_update(x, tuple(cols) if cols else builtins.Ellipsis, updates, "add")


def scatter_nd(index, updates, shape, name=None):
    """`scatter_nd_add` into zeros of `shape` (with updates' dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.scatter_nd(paddle.to_tensor([[0], [2]]), paddle.to_tensor([5, 6]), [4]).numpy()
        array([5, 0, 6, 0])
    """
    updates = as_tensor(updates)
    return scatter_nd_add(zeros(shape, dtype=get_aval(updates).dtype), index, updates)


def _last_occurrence(index):
    """For a 1-D int index, True where no later entry holds the same value (found with one stable sort)."""
    m = shape_of(index)[0]
    positions = st.iota(dtype=dtypes.int64, shape=(m,), dimension=0)
    keys, order = red.sort(index, positions, dimension=0)
    if m < 2:
        return st.full((m,), True, dtypes.bool_)
    differs_from_next = ew.ne(st.slice(keys, start_indices=(0,), limit_indices=(m - 1,)),
                              st.slice(keys, start_indices=(1,), limit_indices=(m,)))
    last_in_sorted = st.concatenate(differs_from_next, st.full((1,), True, dtypes.bool_), dimension=0)
    dnums = sl.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
    return sl.scatter(st.full((m,), False, dtypes.bool_), st.reshape(order, new_sizes=(m, 1)), last_in_sorted,
                      dimension_numbers=dnums)


def scatter(x, index, updates, overwrite=True, name=None, out=None):
    """A copy of `x` whose rows `index` (1-D) are replaced by the rows of `updates`. With overwrite=True a
    repeated index keeps its last update; with overwrite=False the rows it hits are zeroed and then every update
    to them is added (Paddle's semantics). `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1., 1.], [2., 2.], [3., 3.]])
        >>> index = paddle.to_tensor([2, 1, 0, 1])
        >>> updates = paddle.to_tensor([[1., 1.], [2., 2.], [3., 3.], [4., 4.]])
        >>> paddle.scatter(x, index, updates).numpy()
        array([[3., 3.],
               [4., 4.],
               [1., 1.]], dtype=float32)
        >>> paddle.scatter(x, index, updates, overwrite=False).numpy()
        array([[3., 3.],
               [6., 6.],
               [1., 1.]], dtype=float32)
    """
    x, updates = as_tensor(x), as_tensor(updates)
    index = _index_vector("scatter", index)
    a = get_aval(x)
    m = shape_of(index)[0]
    if shape_of(updates) != (m,) + a.shape[1:]:
        raise ShapeError(f"scatter: updates has shape {list(shape_of(updates))}; with index of length {m} and x of "
                         f"shape {list(a.shape)} it must be {[m] + list(a.shape[1:])}")
    updates = cast(updates, a.dtype)
    if overwrite:
        keep = broadcast_to_shape(st.reshape(_last_occurrence(index), new_sizes=(m,) + (1,) * (a.ndim - 1)),
                                  shape_of(updates))
        updates = ew.select(keep, updates, st.full(shape_of(updates), 0, a.dtype))
    hit = _scatter_update(st.full((a.shape[0],), 0, dtypes.int32), index,
                          st.full((m,), 1, dtypes.int32), "add")
    hit = broadcast_to_shape(st.reshape(ew.gt(hit, st.full((a.shape[0],), 0, dtypes.int32)),
                                        new_sizes=(a.shape[0],) + (1,) * (a.ndim - 1)), a.shape)
    cleared = ew.select(hit, st.full(a.shape, 0, a.dtype), x)
    return write_out(_scatter_update(cleared, index, updates, "add"), out)


def index_sample(x, index):
    """Per row i of the 2-D `x`, the entries at the columns index[i]: out[i, j] = x[i, index[i, j]].

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> paddle.index_sample(x, paddle.to_tensor([[2, 0], [1, 1]])).numpy()
        array([[3, 1],
               [5, 5]])
    """
    x, index = as_tensor(x), as_tensor(index)
    if get_aval(x).ndim != 2 or get_aval(index).ndim != 2 or shape_of(x)[0] != shape_of(index)[0]:
        raise ShapeError(f"index_sample: x [N, D] and index [N, K] must be 2-D with the same N, got shapes "
                         f"{list(shape_of(x))} and {list(shape_of(index))}")
    return take_along_axis(x, index, 1)


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Repeat each element (each slice along `axis`; None: of the flattened input) `repeats` times; `repeats`
    may be an int or a 1-D Tensor with one count per element. Per-element counts make the output size depend on
    the values, so they need a concrete Tensor (eager or under grad). `output_size`, when given, is the length
    of the result along the axis, and must be the sum of the counts (else ValueError, as Paddle's check).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.repeat_interleave(paddle.to_tensor([[1, 2], [3, 4]]), 2, axis=0).numpy()
        array([[1, 2],
               [1, 2],
               [3, 4],
               [3, 4]])
        >>> paddle.repeat_interleave(paddle.to_tensor([1, 2]), paddle.to_tensor([1, 3])).numpy()
        array([1, 2, 2, 2])
    """
    x = as_tensor(x)
    if axis is None:
        x = st.reshape(x, new_sizes=(get_aval(x).size,))
        axis = 0
    ax = normalize_axis("repeat_interleave", axis, get_aval(x).ndim)
    shape = shape_of(x)
    if isinstance(repeats, Tensor) and get_aval(repeats).size != 1:
        counts = concrete_or_error(repeats, "repeat_interleave: repeats",
                                   "Per-element counts make the output size depend on the values; pass an int")
        if counts.shape != (shape[ax],):
            raise ShapeError(f"repeat_interleave: repeats has shape {list(counts.shape)} but dimension {ax} of x has "
                             f"size {shape[ax]}")
        _check_output_size(output_size, int(counts.sum()))
        positions = Tensor(np.repeat(np.arange(shape[ax]), counts.astype(np.int64)))
        return gather(x, positions, axis=ax)
    r = static_int("repeat_interleave", repeats, "repeats")
    _check_output_size(output_size, shape[ax] * r)
    spread = st.broadcast_in_dim(x, shape=shape[:ax + 1] + (r,) + shape[ax + 1:],
                                 broadcast_dimensions=tuple(d if d <= ax else d + 1 for d in range(len(shape))))
    return st.reshape(spread, new_sizes=shape[:ax] + (shape[ax] * r,) + shape[ax + 1:])


def _check_output_size(output_size, length):
    if output_size is not None and static_int("repeat_interleave", output_size, "output_size") != length:
        raise ValueError(f"repeat_interleave: output_size={output_size} but the repeats give {length} along the axis "
                         "(output_size must equal the sum of the repeats)")


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006 - Paddle's default
    """Rotate by 90 degrees k times in the plane of `axes`, from the first axis towards the second.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.rot90(paddle.to_tensor([[1, 2], [3, 4]])).numpy()
        array([[2, 4],
               [1, 3]])
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    a0, a1 = (normalize_axis("rot90", a, rank) for a in static_list("rot90", axes, "axes"))
    if a0 == a1:
        raise ShapeError(f"rot90: axes must be two different dimensions, got {axes}")
    k = static_int("rot90", k, "k") % 4
    if k == 0:
        return x
    if k == 2:
        return st.rev(x, dimensions=(a0, a1))
    perm = list(range(rank))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return st.transpose(st.rev(x, dimensions=(a1,)), permutation=tuple(perm))
    return st.rev(st.transpose(x, permutation=tuple(perm)), dimensions=(a1,))


def crop(x, shape=None, offsets=None, name=None):
    """The block of `x` of size `shape` (-1: everything from the offset on; None: x's shape) starting at
    `offsets` (default 0).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.crop(paddle.arange(9).reshape([3, 3]), shape=[2, -1], offsets=[1, 1]).numpy()
        array([[4, 5],
               [7, 8]])
    """
    x = as_tensor(x)
    xs = shape_of(x)
    offsets = [0] * len(xs) if offsets is None else static_list("crop", offsets, "offsets")
    sizes = list(xs) if shape is None else static_list("crop", shape, "shape")
    if len(offsets) != len(xs) or len(sizes) != len(xs):
        raise ShapeError(f"crop: shape {sizes} and offsets {offsets} need one entry per dimension of x {list(xs)}")
    sizes = [n - o if s == -1 else s for s, n, o in zip(sizes, xs, offsets)]
    if any(o < 0 or s < 0 or o + s > n for s, n, o in zip(sizes, xs, offsets)):
        raise ShapeError(f"crop: the block of size {sizes} at offsets {offsets} does not fit in x of shape {list(xs)}")
    return st.slice(x, start_indices=tuple(offsets), limit_indices=tuple(o + s for o, s in zip(offsets, sizes)))


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None, dtype="int64",
           sorted=True, name=None):  # noqa: A002 - Paddle's parameter name
    """The sorted unique values of `x` (of the flattened x, or the unique slices along `axis`), optionally with
    the first-occurrence indices, the inverse indices and the counts. The output size depends on the values, so
    this works eagerly only. The values come sorted whatever `sorted` says, as in Paddle 3.3 (whose documentation
    says it "does not affect the return result").

    Example:
        >>> import paddle_fn as paddle
        >>> values, counts = paddle.unique(paddle.to_tensor([2, 3, 3, 1, 5, 3]), return_counts=True)
        >>> values.numpy(), counts.numpy()
        (array([1, 2, 3, 5]), array([1, 1, 3, 1]))
    """
    v = concrete_or_error(as_tensor(x), "unique: x", "Its output size depends on the values, so it cannot be "
                          "traced; under jit/vmap use paddle.sort, or paddle.histogram with fixed bins")
    index_dtype = dtypes.as_dtype(dtype).np
    ax = None if axis is None else normalize_axis("unique", axis, v.ndim)
    values, first, inverse, counts = np.unique(v, return_index=True, return_inverse=True, return_counts=True,
                                               axis=ax)
    outs = [Tensor(values)]
    for flag, arr in ((return_index, first), (return_inverse, inverse), (return_counts, counts)):
        if flag:
            outs.append(Tensor(np.asarray(arr).reshape(-1).astype(index_dtype)))
    return outs[0] if len(outs) == 1 else tuple(outs)



def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None, dtype="int64", name=None):
    """Collapse runs of equal consecutive values (of the flattened x, or slices along `axis`), optionally with
    the inverse indices and run lengths. The output size depends on the values, so this works eagerly only.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.unique_consecutive(paddle.to_tensor([1, 1, 2, 2, 1])).numpy()
        array([1, 2, 1])
    """
    v = concrete_or_error(as_tensor(x), "unique_consecutive: x", "Its output size depends on the values, so it "
                          "cannot be traced")
    index_dtype = dtypes.as_dtype(dtype).np
    if axis is None:
        v, ax = v.reshape(-1), 0
    else:
        ax = normalize_axis("unique_consecutive", axis, v.ndim)
    moved = np.moveaxis(v, ax, 0)
    n = moved.shape[0]
    starts = np.ones(n, bool)
    if n > 1:
        starts[1:] = (moved[1:] != moved[:-1]).reshape(n - 1, -1).any(axis=1)
    outs = [Tensor(np.ascontiguousarray(np.moveaxis(moved[starts], 0, ax)))]
    if return_inverse:
        outs.append(Tensor((np.cumsum(starts) - 1).astype(index_dtype)))
    if return_counts:
        outs.append(Tensor(np.diff(np.append(np.flatnonzero(starts), n)).astype(index_dtype)))
    return outs[0] if len(outs) == 1 else tuple(outs)


def broadcast_shape(x_shape, y_shape):
    """The shape two shapes broadcast to (numpy's rules), as a list.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.broadcast_shape([2, 1, 3], [4, 1])
        [2, 4, 3]
    """
    return list(shapes_broadcast("broadcast_shape", tuple(x_shape), tuple(y_shape)))


def broadcast_shapes(*shapes):
    """The shape any number of shapes broadcast to (numpy's rules), as a list.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.broadcast_shapes([2, 1], [3], (4, 1, 1))
        [4, 2, 3]
    """
    return list(shapes_broadcast("broadcast_shapes", *[tuple(s) for s in shapes]))


def tolist(x):
    """The values of `x` as a (nested) Python list.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tolist(paddle.to_tensor([[1, 2]]))
        [[1, 2]]
    """
    return np.asarray(concrete_or_error(as_tensor(x), "tolist: x", "Return the Tensor instead")).tolist()


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of inputs[index[i]] (inputs: Tensors of one shape [M, ...]; index [M, 1]).

    Example:
        >>> import paddle_fn as paddle
        >>> a, b = paddle.to_tensor([[1, 2], [3, 4]]), paddle.to_tensor([[5, 6], [7, 8]])
        >>> paddle.multiplex([a, b], paddle.to_tensor([[1], [0]])).numpy()
        array([[5, 6],
               [3, 4]])
    """
    stacked = stack(list(inputs), axis=0)
    rows = _index_vector("multiplex", index)
    m = shape_of(stacked)[1]
    return getitem(stacked, (rows, st.iota(dtype=dtypes.int64, shape=(m,), dimension=0)))
