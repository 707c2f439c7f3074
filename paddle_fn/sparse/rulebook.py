"""The rulebook of a sparse convolution or pooling: which stored input entry reaches which output site through
which kernel tap, built with numpy from concrete indices, and the products that run over it.

A tap is one offset of the kernel window, numbered row-major over the kernel's axes as the weight
``[*kernel, C_in, C_out]`` stores them. Through tap ``t`` an input entry at spatial coordinate ``c`` reaches the
output site ``o`` with ``o * stride = c + pad_before - t * dilation``, when that is a whole number of strides inside
the output. A regular convolution's (and a pooling's) output sites are every site some entry reaches; a submanifold
convolution's are the input's own sites, with the kernel centred on each and stride 1, so its pattern does not grow
layer after layer. Both are listed as (output entry, input entry, tap) pairs sorted by output entry, and the
products are dense GEMMs and one sparse 0/1 product over the pairs (`sparse_dense_dot`), all ordinary operations,
so they differentiate and batch; only the rulebook itself needs the concrete coordinates.
"""
from __future__ import annotations

import dataclasses
import weakref

import numpy as np

import paddle_fn.tensor as T
from paddle_fn.core.errors import ShapeError
from paddle_fn.nn.functional._shared import _padding_pairs, _tuple
from paddle_fn.prims.elementwise import stop_gradient
from paddle_fn.prims.sparse import sparse_dense_dot
from paddle_fn.sparse.tensor import INDEX_DTYPE

__all__ = ["Geometry", "Rulebook", "conv_geometry", "submanifold_geometry", "pool_geometry", "build_rulebook",
           "rulebook_for", "gathered_product", "convolve", "pool_max"]


@dataclasses.dataclass(frozen=True)
class Geometry:
    """Where each tap of the window reads: per spatial axis the kernel size, stride, dilation, the padding before
    the first site, and the output's size."""
    kernel: tuple
    strides: tuple
    dilation: tuple
    pad_before: tuple
    out_spatial: tuple

    def taps(self) -> np.ndarray:
        """The kernel offset of each tap, [taps, spatial axes], row-major over the kernel's axes."""
        grid = np.indices(self.kernel).reshape(len(self.kernel), -1)
        return grid.T.astype(np.int64)


def conv_geometry(op: str, in_spatial, kernel, stride, padding, dilation) -> Geometry:
    """A regular convolution's geometry, with Paddle's forms of `padding` ('SAME'/'VALID', an int, one int per
    axis, a (before, after) pair per axis, or a pair per axis of the channels-last layout)."""
    n = len(in_spatial)
    strides = _tuple(op, stride, n, "stride")
    dilation = _tuple(op, dilation, n, "dilation")
    pads = _padding_pairs(op, padding, n, True, in_spatial, kernel, strides, dilation)
    outs = []
    for size, k, s, d, (lo, hi) in zip(in_spatial, kernel, strides, dilation, pads):
        reach = d * (k - 1) + 1
        if size + lo + hi < reach:
            raise ShapeError(f"{op}: the kernel {list(kernel)} (dilation {list(dilation)}) is larger than the padded "
                             f"input (spatial shape {list(in_spatial)}, padding {[list(p) for p in pads]})")
        outs.append((size + lo + hi - reach) // s + 1)
    return Geometry(tuple(kernel), strides, dilation, tuple(lo for lo, _ in pads), tuple(outs))


def submanifold_geometry(in_spatial, kernel, dilation) -> Geometry:
    """A submanifold convolution's geometry: the kernel's tap `k // 2` sits on the site itself (its centre for an
    odd size), stride 1, and the output keeps the input's spatial shape."""
    dilation = _tuple("subm_conv", dilation, len(in_spatial), "dilation")
    centre = tuple(k // 2 * d for k, d in zip(kernel, dilation))
    return Geometry(tuple(kernel), (1,) * len(kernel), dilation, centre, tuple(in_spatial))


def pool_geometry(op: str, in_spatial, kernel_size, stride, padding, ceil_mode) -> Geometry:
    """A pooling window's geometry (stride defaults to the window; `ceil_mode` counts a last, partial window)."""
    n = len(in_spatial)
    kernel = _tuple(op, kernel_size, n, "kernel_size")
    strides = kernel if stride is None else _tuple(op, stride, n, "stride")
    pads = _padding_pairs(op, padding, n, True, in_spatial, kernel, strides, (1,) * n)
    outs = []
    for size, k, s, (lo, hi) in zip(in_spatial, kernel, strides, pads):
        span = size + lo + hi - k
        if span < 0:
            raise ShapeError(f"{op}: kernel {list(kernel)} is larger than the padded input (spatial shape "
                             f"{list(in_spatial)}, padding {[list(p) for p in pads]})")
        outs.append((-(-span // s) if ceil_mode else span // s) + 1)
    return Geometry(kernel, strides, (1,) * n, tuple(lo for lo, _ in pads), tuple(outs))


@dataclasses.dataclass(frozen=True)
class Rulebook:
    """The output sites ([1 + spatial axes, sites]: batch, then spatial coordinates, sorted) and the pairs (input
    entry `inp` reaches output site `out` through tap `tap`), sorted by site and then tap; `row_bound` is the most
    pairs of one site."""
    sites: np.ndarray
    inp: np.ndarray
    out: np.ndarray
    tap: np.ndarray
    row_bound: int
    same_sites: bool  # the sites are the input's coordinates, in their order (a coalesced submanifold input)

    @property
    def num_sites(self) -> int:
        return self.sites.shape[1]


def _reached_sites(coords: np.ndarray, geometry: Geometry, out_shape):
    """([taps, entries] whether tap t takes entry i to a site inside the output, [taps, entries] that site's
    row-major position in `out_shape`), one spatial axis at a time."""
    taps = geometry.taps()
    keys = np.broadcast_to(coords[0], (len(taps), coords.shape[1])).astype(np.int64)
    reached = np.ones(keys.shape, bool)
    for axis, size in enumerate(geometry.out_spatial):
        shift = geometry.pad_before[axis] - taps[:, axis] * geometry.dilation[axis]
        site = coords[axis + 1][None, :] + shift[:, None]
        stride = geometry.strides[axis]
        if stride > 1:
            reached &= site % stride == 0
            site = site // stride
        reached &= (site >= 0) & (site < size)
        keys = keys * size + site
    return reached, keys


def build_rulebook(coords: np.ndarray, shape, geometry: Geometry, submanifold: bool) -> Rulebook:
    """The rulebook of the input coordinates `coords` ([1 + n, nnz]: batch, then n spatial) of a Tensor of
    `shape` ([batch, *spatial, channels]). Repeated input coordinates each get their pairs (their values add)."""
    out_shape = (shape[0],) + geometry.out_spatial
    reached, keys = _reached_sites(coords, geometry, out_shape)
    tap, inp = np.nonzero(reached)  # tap-major
    keys = keys[reached]
    same_sites = False
    if submanifold:
        input_keys = np.ravel_multi_index(tuple(coords), out_shape)
        site_keys = np.unique(input_keys)
        out = np.minimum(np.searchsorted(site_keys, keys), max(site_keys.size - 1, 0))
        keep = site_keys[out] == keys if site_keys.size else np.zeros(keys.shape, bool)
        tap, inp, out = tap[keep], inp[keep], out[keep]
        # unique sorted sites are the input's own index Tensor when its keys already increase
        same_sites = site_keys.size == input_keys.size and bool(np.all(input_keys[1:] > input_keys[:-1]))
    else:
        site_keys, out = np.unique(keys, return_inverse=True)
    by_site = np.argsort(out, kind="stable")  # the pairs came tap-major: sorted by (site, tap) now
    counts = np.bincount(out, minlength=site_keys.size)
    sites = np.stack(np.unravel_index(site_keys, out_shape)).astype(np.int64).reshape(len(out_shape), -1)
    return Rulebook(sites, inp[by_site].astype(np.int64), out[by_site].astype(np.int64),
                    tap[by_site].astype(np.int64), int(counts.max()) if counts.size else 0, same_sites)


# rulebooks kept under a user's `key` (Paddle's subm_conv `key=`), per index Tensor: {id: (weakref, {entry: book})}
_KEPT: dict = {}


def rulebook_for(indices, coords: np.ndarray, shape, geometry: Geometry, submanifold: bool, key) -> Rulebook:
    """The rulebook of the index Tensor `indices` (whose values are `coords`); with a `key`, it is built once per
    index Tensor, key and geometry and then reused, as Paddle reuses a rulebook saved under a key. A submanifold
    convolution of a coalesced input returns the same index Tensor, so a stack of them builds the rulebook once."""
    if key is None:
        return build_rulebook(coords, shape, geometry, submanifold)
    ref, books = _KEPT.get(id(indices), (None, None))
    if ref is None or ref() is not indices:
        books = {}
        _KEPT[id(indices)] = (weakref.ref(indices, lambda _, i=id(indices): _KEPT.pop(i, None)), books)
    entry = (key, tuple(shape), geometry, submanifold)
    if entry not in books:
        books[entry] = build_rulebook(coords, shape, geometry, submanifold)
    return books[entry]


def _index(array: np.ndarray):
    return T.to_tensor(array.astype(np.int64, copy=False), dtype=INDEX_DTYPE)


def gathered_product(rows, weight, groups: int):
    """The sum over taps of `rows` ([sites, taps, C_in]: each site's neighbour through each tap) times the taps'
    weights ([taps, C_in / groups, C_out]): one GEMM over (tap, channel), each group's channels meeting only its
    own block of filters."""
    sites, taps, channels = rows.shape
    per_group, out_channels = weight.shape[1:]
    if groups == 1:
        return T.matmul(T.reshape(rows, [sites, taps * channels]), T.reshape(weight, [taps * per_group, out_channels]))
    grouped = T.einsum("nkgc,kcgm->ngm", T.reshape(rows, [sites, taps, groups, per_group]),
                       T.reshape(weight, [taps, per_group, groups, out_channels // groups]))
    return T.reshape(grouped, [sites, out_channels])


def _every_tap_product(values, weight, groups: int):
    """Each entry's values ([entries, C_in]) times every tap's weight: [entries, taps, C_out], one GEMM."""
    entries = values.shape[0]
    taps, per_group, out_channels = weight.shape
    if groups == 1:
        flat = T.reshape(T.transpose(weight, [1, 0, 2]), [per_group, taps * out_channels])
        return T.reshape(T.matmul(values, flat), [entries, taps, out_channels])
    grouped = T.einsum("ngc,kcgm->nkgm", T.reshape(values, [entries, groups, per_group]),
                       T.reshape(weight, [taps, per_group, groups, out_channels // groups]))
    return T.reshape(grouped, [entries, taps, out_channels])


def convolve(values, weight, book: Rulebook, groups: int):
    """The output values ([sites, C_out]) of a convolution of `values` ([entries, C_in]) with `weight`
    ([*kernel, C_in / groups, C_out]), as one 0/1 sparse product over the pairs and one GEMM, in the order that
    moves less data: gather first (each site's neighbour rows through every tap, [sites, taps * C_in], times the
    weight) when the output has few sites, as in a submanifold or strided convolution; else multiply first (every
    entry times every tap's weight, [entries, taps * C_out]) and add each site's pairs."""
    entries, channels = values.shape
    taps = int(np.prod(weight.shape[:-2]))
    kernel = T.reshape(weight, [taps, weight.shape[-2], weight.shape[-1]])
    ones = T.ones([book.inp.size], dtype=values.dtype)
    if book.num_sites * channels <= entries * weight.shape[-1]:
        slot = book.out * taps + book.tap  # sorted, as the pairs are
        repeats = int(np.bincount(slot).max()) if slot.size else 0  # more than 1 for repeated input coordinates
        rows = sparse_dense_dot(_index(slot), _index(book.inp), ones, values, num_rows=book.num_sites * taps,
                                row_bound=repeats)
        return gathered_product(T.reshape(rows, [book.num_sites, taps, channels]), kernel, groups)
    products = T.reshape(_every_tap_product(values, kernel, groups), [entries * taps, weight.shape[-1]])
    return sparse_dense_dot(_index(book.out), _index(book.inp * taps + book.tap), ones, products,
                            num_rows=book.num_sites, row_bound=book.row_bound)


def pool_max(values, book: Rulebook):
    """The largest value ([sites, C]) among each output site's pairs, per channel: the pairs laid out as a table of
    `row_bound` slots per site (empty slots read an appended row of the dtype's lowest value) and reduced."""
    entries, channels = values.shape
    position = np.arange(book.out.size) - np.searchsorted(book.out, book.out)
    table = np.full((book.num_sites, book.row_bound), entries, np.int64)
    table[book.out, position] = book.inp
    dtype = values.dtype.np
    lowest = -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min
    padded = T.concat([values, T.full([1, channels], lowest, dtype=values.dtype)])
    slots = T.reshape(T.gather(padded, _index(table.reshape(-1))), [book.num_sites, book.row_bound, channels])
    largest = stop_gradient(T.max(slots, axis=1))
    # Paddle's gradient reaches every slot that holds the maximum (ties each get all of it, where `max` would
    # share it): add the tied slots' (value - the same value held constant), zero in value, one in derivative
    tied = T.where(slots == largest[:, None, :], slots, T.zeros_like(slots))
    return largest + (tied - stop_gradient(tied)).sum(axis=1)
