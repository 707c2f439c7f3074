"""Convolutions for IREE's llvm-cpu backend, rewritten into the forms its code generator runs fast.

IREE 3.13 packs a convolution's operands into its fast channels-last kernels only when the filter sits in memory
as (spatial..., in, out): a filter that is a function argument in (out, in, spatial...) order, or a transpose of
one (IREE folds it into the convolution's indexing map), falls to a generic loop nest 20-100x slower. The weight
gradient (the "filter" is the output gradient, its window the whole image) is slow in every layout. Measured per
form on a 2-core AVX-512 host (ms for one convolution, batch 16, 32x32, 3x3, 32 -> 32 channels; the benchmark
`benchmarks/bench_conv.py` prints the table for any host):

    forward, filter an OIHW argument (the generic lowering)      60      -> 0.8  filter transposed to HWIO behind
                                                                               an optimization barrier
    weight gradient as XLA's backprop-filter convolution         96      -> 2.5  im2col GEMM over the k*k output
                                                                               positions
    1x1 convolution (stride 2, 32 -> 64)                          1.7     -> 0.17 one dot_general (tap_dots
                                                                               of one tap)
    depthwise 3x3 (64 channels): forward / weight gradient        2.4 / 8 -> 0.7 / 1.0  per-tap multiply-adds /
                                                                               per-position reductions

The weight gradient's per-position products are one executable each to compile (their slices' offsets differ), a
few tens of milliseconds of IREE's code generation apiece; over few input features (a 3-channel stem: 49 positions
of ResNet-18's 7x7) they are one gathered product instead, which compiles in a fifth of the time and runs no slower.

Those kernels are fast only with AVX-512. In code for AVX2 (x86-64-v3) the same forward ran at 60 GFLOP/s
against 318, the input gradient at 61 against 380, while the products of the weight-gradient form kept 95-156
GFLOP/s. So the form is chosen by the CPU the code is compiled for, which the lowering's target names
(`ctx.target`: emitter.Target). Without AVX-512, a convolution without groups whose window is no larger than its
output becomes products (medians of six interleaved runs on the loaded 2-core host, AVX2 code, ms; the table in
benchmarks/README.md):

    3x3 32 -> 32 forward           10.5 filter barrier      -> 7.3  one im2col product [N*H*W, 9*C] x [9*C, O]
    3x3 64 -> 64 (16x16) forward    8.8                     -> 5.0
    3x3 64 -> 64 input gradient    11.8 generic             -> 6.5
    stride-2 3x3 forward            5.7 filter barrier      -> 3.2
    stride-2 3x3 input gradient    17.5 generic             -> 6.7  one product per tap over the undilated
                                                                    image, its result dilated and shifted
    3-channel stem input gradient   4.3 generic             -> 1.9  one product per tap (3 out features)

and the 3-channel stem's forward keeps its direct kernel (0.43 ms against 0.84 as one product: a product over 27
columns is mostly packing). With AVX-512 the direct kernels stay: one im2col product took 1.7-3.7x as long there. A
target that names no CPU keeps the AVX-512 choices.

Each form is written with paddle_fn's own primitives and staged into a small program that is inlined in place of
the convolution, so the rewrite is shape-checked as it is built, runs eagerly in the tests against the
convolution's own implementation, and lowers through the primitives' rules (the matmul-precision setting
included). A convolution whose filter already sits as (spatial..., in, out) is left to the generic lowering where
the direct kernels are fast, which also ends the rewrite of the barrier form's own convolution.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np

from paddle_fn.core.dimension_numbers import GatherDimensionNumbers
from paddle_fn.core.dtypes import as_dtype
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.emitter import Target
from paddle_fn.lowering.staged import (bind, filled, generic_rule, inline, reshape, shape_of, slice_, stage,
                                       transpose)

# Forms that unroll one slice per tap or per output position do so only up to this many (a 7x7 window is 49).
MAX_UNROLLED = 64

def _pad(x, config):
    """Zero padding: `config` holds (low, high, interior) per axis, negative low/high crop."""
    config = tuple((int(lo), int(hi), int(i)) for lo, hi, i in config)
    if all(c == (0, 0, 0) for c in config):
        return x
    return bind("pad", x, Tensor(np.zeros((), get_aval(x).dtype.np)), padding_config=config)


def _dot(lhs, rhs, contracting, batch=((), ())):
    return bind("dot_general", lhs, rhs, dimension_numbers=(contracting, batch), preferred_element_type=None)


def _to_layout(x, spec, roles_first):
    """Transpose `x`, whose axes are ordered (roles...) with role r at position roles_first[r], into the physical
    order of `spec` (spec[r] = the physical axis of role r)."""
    perm = [0] * len(spec)
    for role, physical in enumerate(spec):
        perm[physical] = roles_first[role]
    return transpose(x, perm)


@dataclasses.dataclass(frozen=True)
class _Conv:
    """One convolution: its operand and result shapes, its parameters, and its sizes by role."""
    lhs_shape: tuple
    rhs_shape: tuple
    out_shape: tuple
    window_strides: tuple
    padding: tuple
    lhs_dilation: tuple
    rhs_dilation: tuple
    dimension_numbers: object
    feature_group_count: int
    batch_group_count: int

    @property
    def params(self):
        names = ("window_strides", "padding", "lhs_dilation", "rhs_dilation", "dimension_numbers",
                 "feature_group_count", "batch_group_count")
        return {name: getattr(self, name) for name in names}

    @property
    def dn(self):
        return self.dimension_numbers

    @property
    def n(self):
        return len(self.window_strides)

    @property
    def batch(self):
        return self.lhs_shape[self.dn.lhs_spec[0]]

    @property
    def features(self):
        return self.lhs_shape[self.dn.lhs_spec[1]]

    @property
    def out_features(self):
        return self.rhs_shape[self.dn.rhs_spec[0]]

    @property
    def in_features(self):
        return self.rhs_shape[self.dn.rhs_spec[1]]

    @property
    def window(self):
        return tuple(self.rhs_shape[d] for d in self.dn.rhs_spec[2:])

    @property
    def positions(self):
        return tuple(self.out_shape[d] for d in self.dn.out_spec[2:])

    def padded_lhs(self, x, layout):
        """lhs dilated and padded on its spatial axes; `layout` gives each role's axis in `x` (the zero padding
        that crops is done by the slices that read it, which start at `crop`)."""
        config = [(0, 0, 0)] * len(layout)
        for d, ((lo, hi), dil) in enumerate(zip(self.padding, self.lhs_dilation)):
            config[layout[2 + d]] = (max(lo, 0), hi, dil - 1)
        return _pad(x, config)

    @property
    def crop(self):
        return tuple(max(-lo, 0) for lo, _ in self.padding)

    def window_slice(self, x, layout, offsets, stride, count):
        """The strided slice of the padded lhs `x` (roles at `layout`) that starts at `offsets` (per spatial dim,
        past the crop) and takes `count` elements `stride` apart."""
        start, limit, strides = [0] * len(layout), list(shape_of(x)), [1] * len(layout)
        for d in range(self.n):
            axis = layout[2 + d]
            start[axis] = self.crop[d] + offsets[d]
            limit[axis] = start[axis] + (count[d] - 1) * stride[d] + 1
            strides[axis] = stride[d]
        return slice_(x, start, limit, strides)


def _accumulation_dtype(x):
    return "float32" if get_aval(x).dtype.name in ("float16", "bfloat16") else get_aval(x).dtype.name


def _as_dtype(x, dtype):
    """`x` converted to `dtype` (a dtype or its name), or `x` itself where it has it already."""
    same = get_aval(x).dtype.name == getattr(dtype, "name", dtype)
    return x if same else bind("convert_element_type", x, new_dtype=dtype)


# ---------------------------------------------------------------------------------------------- the forms

def filter_barrier(c: _Conv, lhs, rhs):
    """The convolution itself, its filter transposed to (spatial..., in, out) and kept there by an optimization
    barrier (IREE would otherwise fold the transpose into the convolution and read the filter where it was)."""
    rs, n = c.dn.rhs_spec, c.n
    filt = bind("optimization_barrier", transpose(rhs, tuple(rs[2:]) + (rs[1], rs[0])))
    dn = dataclasses.replace(c.dn, rhs_spec=(n + 1, n) + tuple(range(n)))
    return bind("conv_general_dilated", lhs, filt, **dict(c.params, dimension_numbers=dn))


def _channels_last_layout(n):
    """Role -> axis of a (batch, spatial..., features) array."""
    return (0, n + 1) + tuple(range(1, n + 1))


def _channels_last(c: _Conv, lhs):
    """The image as (batch, spatial..., features)."""
    ls = c.dn.lhs_spec
    return transpose(lhs, (ls[0],) + tuple(ls[2:]) + (ls[1],))


def _tap_offsets(c: _Conv):
    """Where each window tap reads the padded image, per spatial dim, taps in row-major order."""
    return [tuple(k * r for k, r in zip(tap, c.rhs_dilation)) for tap in itertools.product(*map(range, c.window))]


def _filter_rows(c: _Conv, rhs):
    """The filter as a (taps * in features, out features) matrix, taps major (the order of `_tap_offsets`)."""
    rs = c.dn.rhs_spec
    return reshape(transpose(rhs, tuple(rs[2:]) + (rs[1], rs[0])),
                   (math.prod(c.window) * c.in_features, c.out_features))


def _rows_product(x, filt):
    """(batch, spatial..., features) x (features, out) -> (batch, spatial..., out), as one product of rows."""
    shape = shape_of(x)
    rows = reshape(x, (math.prod(shape[:-1]), shape[-1]))
    return reshape(_dot(rows, filt, ((1,), (0,))), shape[:-1] + (shape_of(filt)[1],))


def im2col(c: _Conv, lhs, rhs):
    """A convolution without groups as one product: the image's tap slices side by side along the features
    ((batch * positions) rows of taps * features patches), times the filter as a (taps * features, out) matrix."""
    layout = _channels_last_layout(c.n)
    x = c.padded_lhs(_channels_last(c, lhs), layout)
    taps = [c.window_slice(x, layout, offsets, c.window_strides, c.positions) for offsets in _tap_offsets(c)]
    patches = bind("concatenate", *taps, dimension=c.n + 1) if len(taps) > 1 else taps[0]
    return _to_layout(_rows_product(patches, _filter_rows(c, rhs)), c.dn.out_spec, layout)


def tap_dots(c: _Conv, lhs, rhs):
    """A convolution without groups as one product per window tap, summed (a 1x1 convolution: one product): each
    tap's strided image slice as (batch * positions, features) rows times that tap's (features, out) block of the
    filter. With lhs dilation (the input gradient of a strided convolution) each tap's product is taken over the
    undilated image first and its result dilated, padded and sliced where the tap would have read the image,
    which skips the products of the dilation's zeros. Half-precision terms are summed in float32."""
    acc = _accumulation_dtype(lhs)
    layout, filt, total = _channels_last_layout(c.n), _as_dtype(_filter_rows(c, rhs), acc), None
    x = _as_dtype(_channels_last(c, lhs), acc)
    dilated = any(d > 1 for d in c.lhs_dilation)
    if not dilated:
        x = c.padded_lhs(x, layout)
    for t, offsets in enumerate(_tap_offsets(c)):
        block = slice_(filt, (t * c.features, 0), ((t + 1) * c.features, c.out_features))
        if dilated:
            term = c.window_slice(c.padded_lhs(_rows_product(x, block), layout), layout, offsets,
                                  c.window_strides, c.positions)
        else:
            term = _rows_product(c.window_slice(x, layout, offsets, c.window_strides, c.positions), block)
        total = term if total is None else bind("add", total, term)
    return _to_layout(_as_dtype(total, get_aval(lhs).dtype), c.dn.out_spec, layout)


def _split_axis(x, axis, groups):
    """Axis `axis` of `x` as (groups, rest) at (axis, axis + 1)."""
    shape = shape_of(x)
    return reshape(x, shape[:axis] + (groups, shape[axis] // groups) + shape[axis + 1:])


def _window_starts(c: _Conv):
    """Where each output position's window starts in the padded image, per spatial dim, positions in row-major
    order."""
    return [tuple(p * s for p, s in zip(at, c.window_strides)) for at in itertools.product(*map(range, c.positions))]


def positions_dots(c: _Conv, lhs, rhs):
    """One product per output position, for convolutions whose window is larger than their output (the weight
    gradient): the strided image slice that position reads, contracted over its features and window with the
    filter, in the operands' own layouts. Groups become the products' batch dimension. (One product of an im2col
    matrix stacking the slices took twice as long: IREE writes the k*k-times larger matrix, then packs it.)"""
    ls, rs, n = c.dn.lhs_spec, c.dn.rhs_spec, c.n
    fg, bg = c.feature_group_count, c.batch_group_count
    groups, out_batch = max(fg, bg), c.batch // bg
    x = c.padded_lhs(lhs, ls)
    filt, filt_contracting, filt_batch = rhs, (rs[1],) + tuple(rs[2:]), ()
    if groups > 1:  # output features are (group, feature); the group is the image's batch or feature major part
        filt, filt_batch = _split_axis(rhs, rs[0], groups), (rs[0],)
        filt_contracting = tuple(d + (d > rs[0]) for d in filt_contracting)
        split = ls[0] if bg > 1 else ls[1]
        shifted = [d + (d > split) for d in ls]
        part_batch = (split,)
        part_contracting = (shifted[1] + (fg > 1),) + tuple(shifted[2:])
    else:
        part_batch, part_contracting = (), (ls[1],) + tuple(ls[2:])
    outs = []
    for offsets in _window_starts(c):
        part = c.window_slice(x, ls, offsets, c.rhs_dilation, c.window)
        if groups > 1:
            part = _split_axis(part, split, groups)
        product = _dot(filt, part, (filt_contracting, part_contracting), (filt_batch, part_batch))
        outs.append(reshape(product, (1, c.out_features, out_batch)))  # (group, out, batch) or (out, batch)
    out = bind("concatenate", *outs, dimension=0) if len(outs) > 1 else outs[0]
    out = reshape(out, c.positions + (c.out_features, out_batch))
    return _to_layout(out, c.dn.out_spec, (n + 1, n) + tuple(range(n)))


def _position_offsets(c: _Conv, spatial):
    """For each output position and window element (row-major, positions major), where it reads the padded lhs
    whose spatial axes have sizes `spatial`, as one index into those axes flattened: a (positions * window, 1)
    int32 tensor computed from iotas (as a constant it would take as much room in the program's text)."""
    grid, int32 = c.positions + c.window, as_dtype("int32")

    def scaled_iota(axis, scale):
        return bind("mul", bind("iota", dtype=int32, shape=grid, dimension=axis), filled(scale, grid, int32))

    index = filled(sum(c.crop[d] * math.prod(spatial[d + 1:]) for d in range(c.n)), grid, int32)
    for d in range(c.n):
        step = math.prod(spatial[d + 1:])
        index = bind("add", index, scaled_iota(d, c.window_strides[d] * step))
        index = bind("add", index, scaled_iota(c.n + d, c.rhs_dilation[d] * step))
    return reshape(index, (math.prod(grid), 1))


def positions_gather(c: _Conv, lhs, rhs):
    """The weight gradient of a convolution over few input features (a 3-channel stem) as one product: the image
    slices of every output position read by one gather, contracted over the features and the window with the
    filter. Per-position slices (`positions_dots`) are one executable each, as their offsets differ: the 49 of
    ResNet-18's 7x7 stem took 3-4 s of its compile, and their products over 3 rows are mostly packing."""
    ls, rs, n = c.dn.lhs_spec, c.dn.rhs_spec, c.n
    kept = tuple(sorted(ls[:2]))  # the batch and feature axes, in their order; the spatial axes go last, flattened
    x = transpose(c.padded_lhs(lhs, ls), kept + tuple(ls[2:]))
    spatial = shape_of(x)[2:]
    x = reshape(x, shape_of(x)[:2] + (math.prod(spatial),))
    every_position = GatherDimensionNumbers(offset_dims=(0, 1), collapsed_slice_dims=(2,), start_index_map=(2,))
    patches = bind("gather", x, _position_offsets(c, spatial), dimension_numbers=every_position,
                   slice_sizes=shape_of(x)[:2] + (1,))
    patches = reshape(patches, shape_of(x)[:2] + (math.prod(c.positions),) + c.window)
    contracting = ((kept.index(ls[1]),) + tuple(range(3, 3 + n)), (rs[1],) + tuple(rs[2:]))
    out = reshape(_dot(patches, rhs, contracting), (c.batch,) + c.positions + (c.out_features,))
    return _to_layout(out, c.dn.out_spec, (0, n + 1) + tuple(range(1, n + 1)))


def patches_product(c: _Conv, lhs, rhs):
    """One product for a convolution without groups whose window is larger than its output (the weight gradient)
    and whose batch is small (few input features of the layer): the strided image slice each output position reads,
    transposed to (batch, features, window...) and stacked along a new leading axis, is a (positions * batch,
    features * window) matrix, contracted along its inner axis with the filter as an (out, features * window) one.
    IREE writes each slice's transpose straight into the stacked matrix (no copies); per-position products would
    have only the few batch rows each, a fraction of the products' register tile."""
    ls, rs, n = c.dn.lhs_spec, c.dn.rhs_spec, c.n
    depth = c.features * math.prod(c.window)
    x = c.padded_lhs(lhs, ls)
    rows = [reshape(transpose(c.window_slice(x, ls, offsets, c.rhs_dilation, c.window), (ls[0], ls[1]) + tuple(ls[2:])),
                    (1, c.batch, depth)) for offsets in _window_starts(c)]
    patches = bind("concatenate", *rows, dimension=0) if len(rows) > 1 else rows[0]
    patches = reshape(patches, (math.prod(c.positions) * c.batch, depth))
    filt = reshape(transpose(rhs, (rs[0], rs[1]) + tuple(rs[2:])), (c.out_features, depth))
    out = reshape(_dot(patches, filt, ((1,), (1,))), c.positions + (c.batch, c.out_features))
    return _to_layout(out, c.dn.out_spec, (n, n + 1) + tuple(range(n)))


def depthwise_taps(c: _Conv, lhs, rhs):
    """A depthwise convolution (one filter per channel): per window tap, the strided image slice times that tap's
    weights broadcast along the channels, summed over the taps."""
    ls, rs = c.dn.lhs_spec, c.dn.rhs_spec
    acc = _accumulation_dtype(lhs)
    x = c.padded_lhs(_as_dtype(lhs, acc), ls)
    filt = _as_dtype(reshape(transpose(rhs, (rs[0],) + tuple(rs[2:]) + (rs[1],)),
                             (c.out_features, math.prod(c.window))), acc)
    total = None
    for t, tap in enumerate(itertools.product(*map(range, c.window))):
        part = c.window_slice(x, ls, tuple(k * r for k, r in zip(tap, c.rhs_dilation)), c.window_strides,
                              c.positions)
        weight = reshape(slice_(filt, (0, t), (c.out_features, t + 1), (1, 1)), (c.out_features,))
        term = bind("mul", part, bind("broadcast_in_dim", weight, shape=shape_of(part),
                                        broadcast_dimensions=(ls[1],)))
        total = term if total is None else bind("add", total, term)
    return _to_layout(_as_dtype(total, get_aval(lhs).dtype), c.dn.out_spec, ls)


def depthwise_positions(c: _Conv, lhs, rhs):
    """The weight gradient of a depthwise convolution (batch groups of one example each): per output position,
    the strided image slice times the output gradient, summed over everything but the channel."""
    ls, rs, n = c.dn.lhs_spec, c.dn.rhs_spec, c.n
    acc = _accumulation_dtype(lhs)
    x, g = c.padded_lhs(_as_dtype(lhs, acc), ls), _as_dtype(rhs, acc)
    # the gradient laid out as the image: its out role where the image has its batch, in role at the features
    perm = [0] * (n + 2)
    for role in range(n + 2):
        perm[ls[role]] = rs[role]
    g = transpose(g, perm)
    sums = []
    for offsets in _window_starts(c):
        part = c.window_slice(x, ls, offsets, c.rhs_dilation, c.window)
        summed = bind("reduce_sum", bind("mul", part, g), axes=tuple(sorted((ls[1],) + tuple(ls[2:]))))
        sums.append(reshape(summed, (c.out_features, 1)))
    out = bind("concatenate", *sums, dimension=1) if len(sums) > 1 else sums[0]
    out = _as_dtype(reshape(out, (1, c.out_features) + c.positions), get_aval(lhs).dtype)
    return _to_layout(out, c.dn.out_spec, tuple(range(n + 2)))


# Where the direct convolution kernels are slow (`_direct_kernels_slow`), the smallest feature count for which
# products beat them: a product over fewer is mostly its packing (the 3-channel stem's forward took 0.65 ms as one
# im2col product, 0.42 ms as the direct convolution); with fewer out features one product per tap beats one im2col
# product (the stem's input gradient, 32 -> 3: 1.3-1.8 ms against 2.4-3.2).
MIN_PRODUCT_FEATURES = 16

# A weight gradient over fewer batch rows than this (the layer's input features) is one patches_product: the
# per-position products of positions_dots then fill a fraction of the register tile (the 3-channel stem's weight
# gradient, AVX2 code: 0.58 against 3.99 ms; with AVX-512 0.46 against 2.97); at 8 the two tie, at 16 the
# per-position products win 1.5-2x (the one product then packs its k*k-times larger operand in a pass of its own).
MIN_POSITION_ROWS = 8
# The most positions whose slices patches_product stacks (one executable each); past them positions_gather reads
# them all with one gather. ResNet-18's 7x7 stem (49 positions, 2026-11-27, quiet AVX-512 host): stacked 2.1 ms a
# step and 1.65 s to compile, gathered 5.0 ms and 0.58 s, per-position products 7.3 ms and 2.7 s; the 3x3 stem:
# 0.30, 0.54 and 0.97 ms. A step's time outweighs a second of compile in the background after a few hundred steps.
MAX_STACKED_POSITIONS = 64


def _direct_kernels_slow(target: Target) -> bool:
    """Whether IREE's direct convolution kernels run far below its matrix products on `target`'s CPU: without
    AVX-512 they do (code for x86-64-v3: a 3x3, 32 -> 32 forward 60 against 318 GFLOP/s, while the products keep
    95-156). A target naming no CPU keeps the forms chosen for AVX-512."""
    return target.cpu is not None and "avx512f" not in target.cpu_features


def choose_form(c: _Conv, target: Target = Target(), filter_reversed: bool = False):
    """The form a convolution is rewritten into on llvm-cpu for `target`, or None where the generic lowering is
    already fast: the filter sits as (spatial..., in, out), or it is computed by a `rev` (the input gradient),
    which IREE materializes in the layout the convolution wants (a barrier there costs 2-3x). Where the direct
    kernels are slow, a convolution without groups whose window is no larger than its output, over at least
    MIN_PRODUCT_FEATURES features, becomes products whatever its filter's layout: per-tap products when the image
    is dilated (the input gradient of a strided convolution, whose dilation zeros they skip), the window is 1x1 or
    the out features are few, else one im2col product. A window larger than the output (a weight gradient) takes
    one product per output position, or, over fewer than MIN_POSITION_ROWS rows per product (the lhs batch: a
    stem's 3 input channels), one product of all positions: their slices stacked (patches_product) when the
    positions are few, else read by one gather (positions_gather), one executable instead of one per position."""
    n, fg, bg = c.n, c.feature_group_count, c.batch_group_count
    window, positions = math.prod(c.window), math.prod(c.positions)
    if (_direct_kernels_slow(target) and fg == bg == 1 and window <= min(positions, MAX_UNROLLED)
            and c.features >= MIN_PRODUCT_FEATURES):
        one_product = window > 1 and c.out_features >= MIN_PRODUCT_FEATURES and max(c.lhs_dilation) == 1
        return im2col if one_product else tap_dots
    if tuple(c.dn.rhs_spec) == (n + 1, n) + tuple(range(n)):
        return None
    if fg > 1 and c.in_features == 1 and c.out_features == fg and window <= MAX_UNROLLED:
        return depthwise_taps
    if bg > 1 and c.batch == bg and c.out_features == bg and positions <= MAX_UNROLLED:
        return depthwise_positions
    if window == 1 and fg == bg == 1:
        return tap_dots
    if positions < window and fg == bg == 1 and c.batch < MIN_POSITION_ROWS:
        return patches_product if positions <= MAX_STACKED_POSITIONS else positions_gather  # the gather unrolls none
    if positions < window and positions <= MAX_UNROLLED:
        return positions_dots
    return None if filter_reversed else filter_barrier


def rewrite(lhs_aval, rhs_aval, out_aval, params, *, target: Target = Target(), filter_reversed: bool = False,
            form=None):
    """(the form's name, its program of (lhs, rhs) -> [out]) for `target`, or None for the generic lowering; `form`
    (one of the forms above, which must apply to the convolution) replaces the choice, for the benchmark."""
    return _staged_form(lhs_aval, rhs_aval, out_aval, tuple(sorted(params.items())), target, filter_reversed, form)


@functools.lru_cache(maxsize=512)
def _staged_form(lhs_aval, rhs_aval, out_aval, params, target, filter_reversed, form):
    # a training step repeats its convolutions' shapes (ResNet's blocks; a forward and its input gradient): each
    # distinct one is staged once (81 convolutions, 29 distinct, in bench_models' conv step)
    c = _Conv(lhs_aval.shape, rhs_aval.shape, out_aval.shape, **dict(params))
    form = form or choose_form(c, target, filter_reversed)
    if form is None:
        return None
    prog, consts = stage(lambda x, w: [form(c, x, w)], [lhs_aval, rhs_aval])
    return form.__name__, prog, consts


# operations that only relabel the elements of a filter, through which a `rev` producing it is looked for
_RELAYOUTS = ("reshape", "transpose", "convert_element_type")


def made_by_rev(value, producer) -> bool:
    """Whether `value` is computed by a `rev`, seen through relayouts; `producer(value)` gives (primitive name,
    operands) of the equation that made it, or None (an argument): `FuncLowering.producer` while lowering,
    `program_producer(prog)` on a program."""
    while (made := producer(value)) is not None and made[0] in _RELAYOUTS:
        value = made[1][0]
    return made is not None and made[0] == "rev"


def program_producer(prog):
    """`producer` for the values of a Program (see `made_by_rev`)."""
    made = {v: eqn for eqn in prog.eqns for v in eqn.outputs}
    return lambda v: (made[v].prim.name, made[v].inputs) if v in made else None


def lower_conv(ctx, lhs, rhs, **params):
    """The llvm-cpu lowering of conv_general_dilated: the chosen form's program inlined, or the generic rule."""
    found = rewrite(ctx.avals_in[0], ctx.avals_in[1], ctx.avals_out[0], params, target=ctx.target,
                    filter_reversed=made_by_rev(rhs, ctx.producer))
    if found is None:
        return generic_rule("conv_general_dilated")(ctx, lhs, rhs, **params)
    _, prog, consts = found
    return inline(ctx, prog, consts, [lhs, rhs])[0]
