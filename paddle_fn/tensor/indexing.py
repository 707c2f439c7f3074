"""`x[index]` and functional updates `x.at[index].set(v)`, with numpy's indexing rules.

Basic indices (ints, slices with any step, None, Ellipsis) become one `slice` (plus `rev` for negative steps and a
`reshape` to drop integer-indexed dimensions); eagerly, ints and slices index the value of a Tensor that no gradient
is recorded through with numpy directly, with the same result. Integer arrays/Tensors (advanced indexing, mixed
freely with slices) become one `gather`. Boolean masks select a value-dependent number of elements, so they work
eagerly (and under `grad`, whose primal values are concrete) but not under `jit`/`vmap`.

As in Paddle 3 and numpy, an index that selects a single element gives a 0-D Tensor (shape []).

`x.at[index].set(v)` / `.add(v)` / `.multiply(v)` return a new Tensor. They gather the flat positions the
index selects (by indexing an iota of x's shape with the same index, so every index form above works) and
scatter `v` into those positions of the flattened x.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, Tracer, concrete_or_error, get_aval, untraced_value
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import slicing as sl
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of
from paddle_fn.tensor.math import multiply
from paddle_fn.tensor.promotion import as_tensor, broadcast_shapes, broadcast_to_shape, cast

__all__ = []


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _canonical_items(x, index):
    """Turn an index into a list with one entry per dimension of x (after inserting the None axes):
    each an int, a slice or an integer Tensor; returns (x with the None axes inserted, items)."""
    items = list(index) if isinstance(index, tuple) else [index]
    expanded = []
    for it in items:
        if it is None or it is Ellipsis or isinstance(it, slice) or _is_int(it):
            expanded.append(it)
            continue
        if isinstance(it, (bool, np.bool_)):
            raise TypeError("indexing with a Python bool is not supported; use a boolean Tensor mask")
        arr = it if isinstance(it, Tensor) else as_tensor(np.asarray(it))
        kind = get_aval(arr).dtype.kind
        if kind == "b":
            mask = concrete_or_error(
                arr, "a boolean mask index",
                "The number of selected elements depends on the values, so masks work only eagerly (and under "
                "grad); under jit/vmap use paddle_fn.where(mask, x, other) to keep the shape fixed")
            expanded.extend(Tensor(np.asarray(p, dtype=np.int64)) for p in np.nonzero(mask))
        elif kind in "iu":
            expanded.append(arr)
        else:
            raise TypeError(f"index arrays must be integer or bool, got dtype {get_aval(arr).dtype.name}")
    rank = get_aval(x).ndim
    consumed = sum(1 for it in expanded if it is not None and it is not Ellipsis)
    if sum(1 for it in expanded if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > rank:
        raise IndexError(f"too many indices for a tensor of shape {list(shape_of(x))}: {consumed} were given")
    fill = [slice(None)] * (rank - consumed)
    at = next((i for i, it in enumerate(expanded) if it is Ellipsis), None)
    if at is not None:
        expanded[at:at + 1] = fill
    else:
        expanded += fill
    if any(it is None for it in expanded):
        new_shape, dims = [], iter(shape_of(x))
        for it in expanded:
            new_shape.append(1 if it is None else next(dims))
        x = st.reshape(x, new_sizes=tuple(new_shape))
        expanded = [slice(None) if it is None else it for it in expanded]
    return x, expanded


def _basic_slices(x, items):
    """Apply the slices (and int positions, as size-1 slices) of `items` with one `slice` primitive."""
    shape = shape_of(x)
    starts, limits, strides, reversed_dims = [], [], [], []
    for d, (it, n) in enumerate(zip(items, shape)):
        if isinstance(it, slice):
            start, stop, step = it.indices(n)
        elif isinstance(it, Tensor):  # an advanced index, applied afterwards: the whole dimension
            starts.append(0), limits.append(n), strides.append(1)
            continue
        else:
            i = int(it)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n} "
                                 f"(tensor shape {list(shape)})")
            start, stop, step = i % n, i % n + 1, 1
        size = len(range(start, stop, step))
        if step < 0:  # reverse the dimension, then take a forward slice of the reversed positions
            reversed_dims.append(d)
            start, step = n - 1 - start, -step
        limit = start + (size - 1) * step + 1 if size else start
        if size == 0:
            start = limit = 0
        starts.append(start), limits.append(limit), strides.append(step)
    if reversed_dims:
        x = st.rev(x, dimensions=tuple(reversed_dims))
    return st.slice(x, start_indices=starts, limit_indices=limits, strides=strides)


def _normalized_index(idx, n, d):
    """int64 indices with negative values counted from the end; concrete ones are bounds-checked."""
    idx = cast(idx, dtypes.int64)
    if not isinstance(idx, Tracer):
        v = idx.concrete_value()
        if v.size and (v.min() < -n or v.max() >= n):
            bad = v[(v < -n) | (v >= n)].reshape(-1)[0]
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {n}")
        return Tensor(np.where(v < 0, v + n, v))
    a = get_aval(idx)
    zero = st.full(a.shape, 0, dtypes.int64)
    return ew.select(ew.lt(idx, zero), ew.add(idx, st.full(a.shape, n, dtypes.int64)), idx)


def _advanced(x, items):
    """numpy advanced indexing of x (all of whose dims are indexed by `items`: slice(None) or int Tensors)."""
    shape = shape_of(x)
    adv = [d for d, it in enumerate(items) if isinstance(it, Tensor)]
    rest = [d for d in range(len(shape)) if d not in adv]
    bshape = broadcast_shapes("indexing", *[shape_of(items[d]) for d in adv])
    cols = [st.reshape(broadcast_to_shape(_normalized_index(items[d], shape[d], d), bshape),
                       new_sizes=bshape + (1,)) for d in adv]
    indices = cols[0] if len(cols) == 1 else st.concatenate(*cols, dimension=len(bshape))
    nb = len(bshape)
    # numpy puts the broadcast index dims where the indexed dims were when those are adjacent, else first;
    # the remaining (sliced) dims keep their order around them
    first = adv[0] if adv == list(range(adv[0], adv[0] + len(adv))) else 0
    offset_dims = tuple(i if i < first else i + nb for i in range(len(rest)))
    dnums = sl.GatherDimensionNumbers(offset_dims=offset_dims, collapsed_slice_dims=tuple(adv),
                                      start_index_map=tuple(adv))
    return sl.gather(x, indices, dimension_numbers=dnums,
                     slice_sizes=tuple(1 if d in adv else shape[d] for d in range(len(shape))))


def _basic_items(x, index):
    """The common index -- Python ints and slices, at most one per dimension -- padded with full slices, as
    `_canonical_items` would give it; None for any other index."""
    items = index if type(index) is tuple else (index,)
    rank = get_aval(x).ndim
    if len(items) > rank or any(type(it) is not int and type(it) is not slice for it in items):
        return None
    return list(items) + [slice(None)] * (rank - len(items))


def getitem(x, index):
    """`x[index]` with numpy semantics (a single selected element is a 0-D Tensor)."""
    x = as_tensor(x)
    items = _basic_items(x, index)
    if items is not None:
        value = untraced_value(x)
        if value is not None:
            try:  # the same basic indexing as the slice and reshape below, at a tenth of their dispatch cost
                return Tensor(value[index])
            except IndexError:
                pass  # out of bounds: the error below names the tensor's shape
    if items is None:
        x, items = _canonical_items(x, index)
        if any(isinstance(it, Tensor) for it in items):
            items = [Tensor(np.asarray(it, np.int64)) if _is_int(it) else it for it in items]
            x = _basic_slices(x, items)
            items = [it if isinstance(it, Tensor) else slice(None) for it in items]
            return _advanced(x, items)
    out = _basic_slices(x, items)
    keep = tuple(n for it, n in zip(items, shape_of(out)) if isinstance(it, slice))  # int positions are dropped
    return st.reshape(out, new_sizes=keep)


# ---------------------------------------------------------------------------------------------- x.at[...]

def _scatter_update(x, index, values, how):
    x = as_tensor(x)
    a = get_aval(x)
    flat_positions = st.reshape(st.iota(dtype=dtypes.int64, shape=(a.size,), dimension=0), new_sizes=a.shape)
    positions = getitem(flat_positions, index)
    sel_shape = shape_of(positions)
    values = as_tensor(values, a.dtype)
    vshape = shape_of(values)
    while len(vshape) > len(sel_shape) and vshape[0] == 1:  # numpy drops leading size-1 dims of the value
        vshape = vshape[1:]
        values = st.reshape(values, new_sizes=vshape)
    if broadcast_shapes("at[].set", vshape, sel_shape) != sel_shape:
        raise ShapeError(f"at[].{how}: values of shape {list(vshape)} cannot be broadcast to the indexed shape "
                         f"{list(sel_shape)}")
    count = int(np.prod(sel_shape, dtype=np.int64))
    values = st.reshape(broadcast_to_shape(values, sel_shape), new_sizes=(count,))
    dnums = sl.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))
    flat = st.reshape(x, new_sizes=(a.size,))
    scatter = sl.scatter_add if how == "add" else sl.scatter
    out = scatter(flat, st.reshape(positions, new_sizes=(count, 1)), values, dimension_numbers=dnums)
    return st.reshape(out, new_sizes=a.shape)


class _IndexedRef:
    """`x.at[index]`: the target of a functional update."""
    __slots__ = ("tensor", "index")

    def __init__(self, tensor, index):
        self.tensor, self.index = tensor, index

    def get(self):
        """`x[index]`."""
        return getitem(self.tensor, self.index)

    def set(self, values):
        """A copy of x with x[index] replaced by `values` (broadcast; with repeated indices one write wins)."""
        return _scatter_update(self.tensor, self.index, values, "set")

    def add(self, values):
        """A copy of x with `values` added at x[index] (repeated indices accumulate)."""
        return _scatter_update(self.tensor, self.index, values, "add")

    def multiply(self, values):
        """A copy of x with x[index] multiplied by `values` (repeated indices are multiplied once)."""
        return self.set(multiply(self.get(), values))


class _AtIndexer:
    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def __getitem__(self, index):
        return _IndexedRef(self.tensor, index)


def at(x):
    """The `x.at` property: ``x.at[idx].set(v)``, ``.add(v)``, ``.multiply(v)``, ``.get()``.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([3])
        >>> x.at[1].set(5.).numpy()
        array([0., 5., 0.], dtype=float32)
    """
    return _AtIndexer(x)

