"""Convolution: `conv_general_dilated`, XLA's ConvGeneralDilated (StableHLO `stablehlo.convolution`).

It is a primitive because it has its own StableHLO op: written as slices and dot_generals it would lose the
backends' convolution kernels. It is bilinear, so its JVP is two convolutions and its transposes (the input
and weight gradients) are convolutions too, with strides and dilations swapped.

Layouts are given by `ConvDimensionNumbers`: for each operand the physical dimension holding
(batch, feature, spatial...) for lhs and the output, and (out-feature, in-feature, spatial...) for rhs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import Primitive
from paddle_fn.core.trace import get_aval
from paddle_fn.lowering.emitter import i64_array
from paddle_fn.lowering.precision import lower_product
from paddle_fn.prims._rules import fmt, require_kind
from paddle_fn.prims.base import reshape, transpose
from paddle_fn.prims.elementwise import bilinear_jvp
from paddle_fn.prims.structural import pad_p, rev


@dataclass(frozen=True)
class ConvDimensionNumbers:
    """lhs_spec = (batch dim, feature dim, spatial dims...) of lhs; rhs_spec = (out-feature dim, in-feature dim,
    spatial dims...) of rhs; out_spec = (batch dim, feature dim, spatial dims...) of the result."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_dimension_numbers(lhs_layout: str, rhs_layout: str, out_layout: str) -> ConvDimensionNumbers:
    """Dimension numbers from layout strings such as ('NCHW', 'OIHW', 'NCHW'): N/C batch and feature, O/I the
    kernel's out/in features, any other letters spatial (matched by their order in rhs_layout)."""
    spatial = [c for c in rhs_layout if c not in "OI"]

    def spec(layout, first, second):
        if sorted(layout) != sorted([first, second] + spatial):
            raise ShapeError(f"conv: layout {layout!r} must hold {first}, {second} and the spatial dims {spatial}")
        return (layout.index(first), layout.index(second)) + tuple(layout.index(c) for c in spatial)

    return ConvDimensionNumbers(spec(lhs_layout, "N", "C"), spec(rhs_layout, "O", "I"), spec(out_layout, "N", "C"))


def _dilated(size, dilation):
    return 0 if size == 0 else 1 + dilation * (size - 1)


def _spatial(shape, spec):
    return tuple(shape[d] for d in spec[2:])


def _conv_out_spatial(lhs_sp, rhs_sp, window_strides, padding, lhs_dilation, rhs_dilation):
    out = []
    for n, k, s, (lo, hi), ld, rd in zip(lhs_sp, rhs_sp, window_strides, padding, lhs_dilation, rhs_dilation):
        span = _dilated(n, ld) + lo + hi - _dilated(k, rd)
        out.append(span // s + 1 if span >= 0 else 0)
    return tuple(out)


def _split_axis(x, axis, major):
    """Axis `axis` of size major*minor becomes (major, minor) at (axis, axis + 1)."""
    shape = get_aval(x).shape
    return reshape(x, new_sizes=shape[:axis] + (major, shape[axis] // major) + shape[axis + 1:])


def _merge_axes(x, major, minor):
    """Fold axis `major` into axis `minor` as its major part; the merged axis sits where `minor` was, counted
    without `major`."""
    ndim = get_aval(x).ndim
    order = [d for d in range(ndim) if d != major]
    at = order.index(minor)
    order.insert(at, major)
    if order != list(range(ndim)):
        x = transpose(x, permutation=tuple(order))
    shape = get_aval(x).shape
    return reshape(x, new_sizes=shape[:at] + (shape[at] * shape[at + 1],) + shape[at + 2:])


# ---------------------------------------------------------------------------------------------- conv_general_dilated

def _conv_shape(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                feature_group_count, batch_group_count):
    dn = dimension_numbers
    require_kind("conv_general_dilated", lhs, "f", "a floating-point")
    if lhs.dtype != rhs.dtype:
        raise ShapeError(f"conv_general_dilated: lhs {fmt(lhs)} and rhs {fmt(rhs)} must have one dtype (cast one "
                         "with .astype())")
    n = lhs.ndim - 2
    if n < 1 or rhs.ndim != lhs.ndim:
        raise ShapeError(f"conv_general_dilated: lhs {fmt(lhs)} and rhs {fmt(rhs)} must have the same rank >= 3 "
                         "(batch, feature and at least one spatial dimension)")
    for what, spec, rank in (("lhs_spec", dn.lhs_spec, lhs.ndim), ("rhs_spec", dn.rhs_spec, rhs.ndim),
                             ("out_spec", dn.out_spec, lhs.ndim)):
        if sorted(spec) != list(range(rank)):
            raise ShapeError(f"conv_general_dilated: {what} {spec} must be a permutation of range({rank})")
    for what, v in (("window_strides", window_strides), ("lhs_dilation", lhs_dilation),
                    ("rhs_dilation", rhs_dilation), ("padding", padding)):
        if len(v) != n:
            raise ShapeError(f"conv_general_dilated: {what} {v} needs {n} entries (one per spatial dimension)")
    if min(window_strides + lhs_dilation + rhs_dilation) < 1:
        raise ShapeError("conv_general_dilated: strides and dilations must be >= 1, got "
                         f"{window_strides}, {lhs_dilation}, {rhs_dilation}")
    fg, bg = feature_group_count, batch_group_count
    if fg < 1 or bg < 1 or (fg > 1 and bg > 1):
        raise ShapeError(f"conv_general_dilated: feature_group_count {fg} and batch_group_count {bg} must be >= 1 "
                         "and not both > 1")
    batch, features = lhs.shape[dn.lhs_spec[0]], lhs.shape[dn.lhs_spec[1]]
    out_features, in_features = rhs.shape[dn.rhs_spec[0]], rhs.shape[dn.rhs_spec[1]]
    if features != in_features * fg or out_features % fg or out_features % bg or batch % bg:
        raise ShapeError(f"conv_general_dilated: lhs {fmt(lhs)} has {features} features, rhs {fmt(rhs)} has "
                         f"{in_features} input and {out_features} output features, with feature_group_count {fg} "
                         f"and batch_group_count {bg}: need features == input features * feature_group_count, "
                         "output features divisible by both counts and the batch by batch_group_count")
    out_sp = _conv_out_spatial(_spatial(lhs.shape, dn.lhs_spec), _spatial(rhs.shape, dn.rhs_spec), window_strides,
                               padding, lhs_dilation, rhs_dilation)
    canonical = (batch // bg, out_features) + out_sp
    shape = [0] * lhs.ndim
    for size, d in zip(canonical, dn.out_spec):
        shape[d] = size
    return ShapedArray(tuple(shape), lhs.dtype)


# The most memory the impl's im2col columns take at once: taps side by side make one deep matrix product, which BLAS
# runs faster than one shallow product per tap; above this size the taps go in several products.
_COLUMNS_BYTES = 64 << 20


def _every(start, step, count):
    """The slice of `count` elements `step` apart from `start`."""
    return slice(start, start + step * (count - 1) + 1, step)


def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
               feature_group_count, batch_group_count):
    """Matrix products in numpy's BLAS over channels-last slices of the input, looping over whichever is fewer:
    the kernel's taps (forward and input-gradient convolutions: im2col, the taps' strided slices side by side as
    the columns of one deep product) or the output positions (a weight gradient, whose 'kernel' is the whole image:
    one window times the kernel per position). 4-6x faster than one einsum over a sliding-window view, whose
    reshape copies the input in a layout BLAS cannot use."""
    dn = dimension_numbers
    out_dtype = lhs.dtype
    work = np.float64 if out_dtype == np.float64 else np.float32  # numpy has no fast f16/bf16 kernels
    n = lhs.ndim - 2
    x = np.transpose(lhs, dn.lhs_spec).astype(work)  # N, C, spatial
    w = np.transpose(rhs, dn.rhs_spec).astype(work)  # O, I, spatial
    x = pad_p.impl(x, np.zeros((), work), padding_config=((0, 0, 0), (0, 0, 0)) +
                   tuple((lo, hi, d - 1) for (lo, hi), d in zip(padding, lhs_dilation)))
    kernel = w.shape[2:]
    out_sp = _conv_out_spatial(x.shape[2:], kernel, window_strides, ((0, 0),) * n, (1,) * n, rhs_dilation)
    fg, bg = feature_group_count, batch_group_count
    N, O, I = x.shape[0], w.shape[0], w.shape[1]
    nb, og = N // bg, O // (bg * fg)
    if min(out_sp) == 0 or min(kernel) == 0:
        out = np.zeros((nb, O) + out_sp, work)
        return np.transpose(out, np.argsort(dn.out_spec)).astype(out_dtype)
    # x as (bg, nb, spatial..., fg, I): batch groups split N, feature groups split C (I == C // fg)
    x = np.ascontiguousarray(np.moveaxis(x, 1, -1)).reshape((bg, nb) + x.shape[2:] + (fg, I))
    w = w.reshape((bg, fg, og, I) + kernel)  # output features are grouped by (batch group, feature group)

    if np.prod(kernel) <= np.prod(out_sp):
        out = np.zeros((bg, fg, nb * int(np.prod(out_sp)), og), work)
        taps = list(np.ndindex(*kernel))
        per_product = max(1, _COLUMNS_BYTES // (out.shape[2] * bg * fg * I * out.itemsize))
        for first in range(0, len(taps), per_product):
            chunk = taps[first:first + per_product]
            columns = np.empty((bg, fg, nb) + out_sp + (len(chunk), I), work)
            for j, tap in enumerate(chunk):
                taps_slice = tuple(_every(k * d, s, o) for k, d, s, o in zip(tap, rhs_dilation, window_strides, out_sp))
                columns[..., j, :] = np.moveaxis(x[(slice(None), slice(None)) + taps_slice], -2, 1)
            weights = np.concatenate([np.swapaxes(w[(Ellipsis,) + tap], -1, -2) for tap in chunk], axis=-2)
            out += columns.reshape(bg, fg, -1, len(chunk) * I) @ weights
        out = out.reshape((bg, fg, nb) + out_sp + (og,))
    else:
        w = np.moveaxis(w, 3, -1).reshape(bg, fg, og, -1)  # (bg, fg, og, kernel... * I), as block's columns
        w = np.swapaxes(w, -1, -2)
        out = np.empty((bg, fg, nb) + out_sp + (og,), work)
        for pos in np.ndindex(*out_sp):
            window = tuple(_every(p * s, d, k) for p, s, d, k in zip(pos, window_strides, rhs_dilation, kernel))
            block = np.moveaxis(x[(slice(None), slice(None)) + window], -2, 1)  # (bg, fg, nb, kernel..., I)
            out[(slice(None), slice(None), slice(None)) + pos] = block.reshape(bg, fg, nb, -1) @ w
    # (bg, fg, nb, out..., og) -> (nb, O = (bg, fg, og), out...)
    out = np.moveaxis(out, 2, 0)
    out = np.moveaxis(out, -1, 3).reshape((nb, O) + out_sp)
    return np.transpose(out, np.argsort(dn.out_spec)).astype(out_dtype)


def _conv_lhs_cotangent(ct, rhs, lhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count):
    """The input gradient: ct convolved with the spatially reversed kernel, in/out features swapped per group."""
    dn = dimension_numbers
    groups = max(feature_group_count, batch_group_count)
    w = rev(rhs, dimensions=dn.rhs_spec[2:])
    k = _spatial(get_aval(w).shape, dn.rhs_spec)
    if groups == 1:  # in and out features swap roles by the kernel's dimension numbers alone, with no copy
        w_spec = _swap_first_two(dn.rhs_spec)
    else:  # per group: (o, I) -> (I, o); the transposed kernel has groups * I outputs and o inputs
        w = transpose(w, permutation=dn.rhs_spec)  # O, I, spatial
        O, I = get_aval(w).shape[:2]
        w = transpose(reshape(w, new_sizes=(groups, O // groups, I) + k),
                      permutation=(0, 2, 1) + tuple(range(3, 3 + len(k))))
        w, w_spec = reshape(w, new_sizes=(groups * I, O // groups) + k), tuple(range(len(k) + 2))
    lhs_sp = _spatial(lhs_aval.shape, dn.lhs_spec)
    out_sp = _spatial(get_aval(ct).shape, dn.out_spec)
    pads = []
    for n, kk, s, (lo, _), ld, rd, o in zip(lhs_sp, k, window_strides, padding, lhs_dilation, rhs_dilation, out_sp):
        before = _dilated(kk, rd) - lo - 1
        pads.append((before, _dilated(n, ld) + _dilated(kk, rd) - 1 - _dilated(o, s) - before))
    out = conv_general_dilated(
        ct, w, window_strides=lhs_dilation, padding=tuple(pads), lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation, dimension_numbers=ConvDimensionNumbers(dn.out_spec, w_spec, dn.lhs_spec),
        feature_group_count=groups)
    if batch_group_count > 1:  # the groups' outputs sit in the feature dim; they belong to the batch groups
        out = _split_axis(out, dn.lhs_spec[1], batch_group_count)
        feature = dn.lhs_spec[1]
        batch = dn.lhs_spec[0] + (dn.lhs_spec[0] > feature)
        out = _merge_axes(out, feature, batch)
    return out


def _swap_first_two(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _conv_rhs_cotangent(ct, lhs, rhs_aval, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        dimension_numbers, feature_group_count, batch_group_count):
    """The kernel gradient: the input convolved with ct, batch and feature roles swapped (so feature groups
    become batch groups and the other way round)."""
    dn = dimension_numbers
    lhs_sp = _spatial(get_aval(lhs).shape, dn.lhs_spec)
    k = _spatial(rhs_aval.shape, dn.rhs_spec)
    out_sp = _spatial(get_aval(ct).shape, dn.out_spec)
    pads = [(lo, _dilated(o, s) - _dilated(n, ld) + _dilated(kk, rd) - lo - 1)
            for n, kk, s, (lo, _), ld, rd, o in zip(lhs_sp, k, window_strides, padding, lhs_dilation, rhs_dilation,
                                                    out_sp)]
    trans_dn = ConvDimensionNumbers(_swap_first_two(dn.lhs_spec), _swap_first_two(dn.out_spec),
                                    _swap_first_two(dn.rhs_spec))
    return conv_general_dilated(lhs, ct, window_strides=rhs_dilation, padding=tuple(pads), lhs_dilation=lhs_dilation,
                                rhs_dilation=window_strides, dimension_numbers=trans_dn,
                                feature_group_count=batch_group_count, batch_group_count=feature_group_count)


def _conv_transpose(ct, lhs, rhs, **params):
    if is_undefined(lhs) and is_undefined(rhs):
        raise TypeError("conv_general_dilated: both operands are linear; the product of two tangents is not linear")
    if is_undefined(lhs):
        return [_conv_lhs_cotangent(ct, rhs, lhs.aval, **params), None]
    return [None, _conv_rhs_cotangent(ct, lhs, rhs.aval, **params)]


def _conv_batch(vals, dims, *, dimension_numbers, feature_group_count, batch_group_count, **params):
    """The vmapped axis is moved to the front and folded into a dimension the convolution already has; the
    dimension numbers then stay the same. Grouped dimensions keep their group index as the major part."""
    (lhs, rhs), (dl, dr) = vals, dims
    dn = dimension_numbers
    fg, bg = feature_group_count, batch_group_count
    lhs = lhs if dl is None or dl == 0 else _move_to_front(lhs, dl)
    rhs = rhs if dr is None or dr == 0 else _move_to_front(rhs, dr)

    def conv(x, w, fg, bg):
        return conv_general_dilated(x, w, dimension_numbers=dn, feature_group_count=fg, batch_group_count=bg,
                                    **params)

    if dl is not None and dr is not None:
        size = get_aval(lhs).shape[0]
        if bg > 1:
            lhs, bg = _merge_axes(lhs, 0, dn.lhs_spec[0] + 1), bg * size
        else:
            lhs, fg = _merge_axes(lhs, 0, dn.lhs_spec[1] + 1), fg * size
        out = conv(lhs, _merge_axes(rhs, 0, dn.rhs_spec[0] + 1), fg, bg)
        return _split_axis(out, dn.out_spec[1], size), dn.out_spec[1]
    if dl is not None:
        size = get_aval(lhs).shape[0]
        p = dn.lhs_spec[0] + 1
        if bg > 1:  # the batch is (group, example): the vmapped axis goes inside each group
            lhs = _merge_axes(_split_axis(lhs, p, bg), 0, p + 1)
            lhs = _merge_axes(lhs, p - 1, p)
        else:
            lhs = _merge_axes(lhs, 0, p)
        return _split_axis(conv(lhs, rhs, fg, bg), dn.out_spec[0], size), dn.out_spec[0]
    size = get_aval(rhs).shape[0]
    p = dn.rhs_spec[0] + 1
    groups = max(fg, bg)
    if groups == 1:
        out = conv(lhs, _merge_axes(rhs, 0, p), fg, bg)
        return _split_axis(out, dn.out_spec[1], size), dn.out_spec[1]
    # output features are (group, feature): the vmapped axis goes inside each group, and out again after
    rhs = _merge_axes(_split_axis(rhs, p, groups), 0, p + 1)
    rhs = _merge_axes(rhs, p - 1, p)
    out = conv(lhs, rhs, fg, bg)
    s = dn.out_spec[1]
    out = _split_axis(_split_axis(out, s, groups), s + 1, size)  # (group, vmapped, feature) at s, s+1, s+2
    return _merge_axes(out, s, s + 2), s


def _move_to_front(x, d):
    ndim = get_aval(x).ndim
    return transpose(x, permutation=(d,) + tuple(i for i in range(ndim) if i != d))


def _read_padding(lhs_sp, rhs_sp, window_strides, padding, lhs_dilation, rhs_dilation):
    """`padding` less the high padding no window reads (the stride passes over it), the same convolution: IREE 3.13
    fails to compile one whose windows leave padding unread for CUDA ("'linalg.generic' op inferred input/output
    operand #1 has shape's dimension #0 to be 4, but found 3": a 3x3 window, stride 2 and padding 1 over 2x2,
    ResNet-50's last stage on 32x32 images)."""
    read = []
    for n, k, s, (lo, hi), ld, rd in zip(lhs_sp, rhs_sp, window_strides, padding, lhs_dilation, rhs_dilation):
        span = _dilated(n, ld) + lo + hi - _dilated(k, rd)
        read.append((lo, hi - min(span % s, max(hi, 0))) if span >= 0 else (lo, hi))
    return tuple(read)


def _conv_lower(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                feature_group_count, batch_group_count):
    dn = dimension_numbers

    def labels(spec, first, second):
        out = [""] * len(spec)
        out[spec[0]], out[spec[1]] = first, second
        for i, d in enumerate(spec[2:]):
            out[d] = str(i)
        return "[" + ", ".join(out) + "]"

    n = len(window_strides)
    padding = _read_padding(_spatial(ctx.avals_in[0].shape, dn.lhs_spec), _spatial(ctx.avals_in[1].shape, dn.rhs_spec),
                            window_strides, padding, lhs_dilation, rhs_dilation)
    pad_text = "dense<[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + f"]> : tensor<{n}x2xi64>"
    dnums = (f"#stablehlo.conv<{labels(dn.lhs_spec, 'b', 'f')}x{labels(dn.rhs_spec, 'o', 'i')}->"
             f"{labels(dn.out_spec, 'b', 'f')}>")
    attrs = (f"batch_group_count = {batch_group_count} : i64, dimension_numbers = {dnums}, "
             f"feature_group_count = {feature_group_count} : i64, lhs_dilation = {i64_array(lhs_dilation)}, "
             f"padding = {pad_text}, rhs_dilation = {i64_array(rhs_dilation)}, "
             f"window_strides = {i64_array(window_strides)}")
    # the input features are summed with the kernel's, unless groups split them
    features = (dn.lhs_spec[1], dn.rhs_spec[1]) if feature_group_count == batch_group_count == 1 else None
    return lower_product(ctx, lambda a, b, in_avals: ctx.generic_op("stablehlo.convolution", [a, b], attrs=attrs,
                                                                    in_avals=in_avals), lhs, rhs, contracted=features)


conv_general_dilated_p = Primitive("conv_general_dilated", shape_rule=_conv_shape, impl=_conv_impl,
                                   jvp=bilinear_jvp(lambda lhs, rhs, **params: conv_general_dilated_p.bind(
                                       lhs, rhs, **params)),
                                   transpose=_conv_transpose, batch=_conv_batch, lower=_conv_lower, bilinear=True)


def conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers: ConvDimensionNumbers = None, feature_group_count: int = 1,
                         batch_group_count: int = 1):
    """XLA's ConvGeneralDilated: a cross-correlation of lhs with the kernel rhs.

    window_strides, lhs_dilation (transposed-convolution stride), rhs_dilation (atrous rate): one int per spatial
    dimension; padding: one (low, high) pair per spatial dimension, negative values crop. dimension_numbers
    defaults to NC<spatial> / OI<spatial> / NC<spatial>.
    """
    n = get_aval(lhs).ndim - 2
    if dimension_numbers is None:
        canonical = tuple(range(n + 2))
        dimension_numbers = ConvDimensionNumbers(canonical, canonical, canonical)
    ints = lambda v, default: tuple(int(i) for i in v) if v is not None else (default,) * n  # noqa: E731
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=ints(window_strides, 1),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding), lhs_dilation=ints(lhs_dilation, 1),
        rhs_dilation=ints(rhs_dilation, 1),
        dimension_numbers=ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in (
            dimension_numbers.lhs_spec, dimension_numbers.rhs_spec, dimension_numbers.out_spec))),
        feature_group_count=int(feature_group_count), batch_group_count=int(batch_group_count))
