"""Helpers shared by the `paddle.nn.functional` families: data-format and window-argument parsing (conv,
pooling, padding), the per-channel bias, contraction along one axis and the adaptive pools' averaging matrices.
"""
from __future__ import annotations

import builtins

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import shape_of, static_list
from paddle_fn.tensor.promotion import as_tensor, cast

_LAYOUTS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _channel_last(op, data_format, n):
    first, last = _LAYOUTS[n]
    if data_format not in (first, last):
        raise ValueError(f"{op}: data_format must be {first!r} or {last!r}, got {data_format!r}")
    return data_format == last


def _channel_axis(data_format, ndim):
    return ndim - 1 if ndim > 2 and data_format[-1] == "C" and data_format != "NC" else 1


def _tuple(op, v, n, what):
    vals = static_list(op, v, what)
    if len(vals) == 1:
        vals = vals * n
    if len(vals) != n:
        raise ValueError(f"{op}: {what} needs 1 or {n} values, got {vals}")
    return tuple(vals)


def _padding_pairs(op, padding, n, channel_last, in_sp, kernel, strides, dilation):
    """Paddle's padding argument as one (low, high) pair per spatial dim: 'SAME'/'VALID', an int, n ints
    (symmetric), 2n ints (low, high per dim), or n+2 pairs in data-format order (batch/channel pairs zero)."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * n
        if mode != "SAME":
            raise ValueError(f"{op}: padding must be 'SAME', 'VALID', an int or a list, got {padding!r}")
        pairs = []
        for size, k, s, d in zip(in_sp, kernel, strides, dilation):
            out = -(-size // s)
            total = builtins.max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            pairs.append((total // 2, total - total // 2))
        return tuple(pairs)
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        if len(padding) != n + 2:
            raise ValueError(f"{op}: padding given as pairs needs {n + 2} of them (one per dim), got {padding}")
        spatial = padding[1:-1] if channel_last else padding[2:]
        rest = [padding[0], padding[-1]] if channel_last else list(padding[:2])
        if any(list(p) != [0, 0] for p in rest):
            raise ValueError(f"{op}: padding of the batch and channel dims must be [0, 0], got {padding}")
        return tuple((int(lo), int(hi)) for lo, hi in spatial)
    vals = static_list(op, padding, "padding")
    if len(vals) == 1:
        return ((vals[0], vals[0]),) * n
    if len(vals) == n:
        return tuple((v, v) for v in vals)
    if len(vals) == 2 * n:
        return tuple((vals[2 * i], vals[2 * i + 1]) for i in range(n))
    raise ValueError(f"{op}: padding needs 1, {n} or {2 * n} ints, or {n + 2} pairs, got {padding}")


def _spatial_letters(n):
    return "DHW"[3 - n:] if n > 1 else "L"


def _add_channel_bias(op, out, bias, channel_axis):
    if bias is None:
        return out
    bias = as_tensor(bias, get_aval(out).dtype)
    c = shape_of(out)[channel_axis]
    if get_aval(bias).size != c:
        raise ShapeError(f"{op}: bias has {get_aval(bias).size} elements but the output has {c} channels")
    return ew.add(out, st.broadcast_in_dim(st.reshape(bias, new_sizes=(c,)), shape=shape_of(out),
                                           broadcast_dimensions=(channel_axis,)))


def _spatial_dims(ndim, channel_last):
    return tuple(range(1, ndim - 1)) if channel_last else tuple(range(2, ndim))


def _adaptive_bins(size, out):
    """The [lo, hi) input ranges of an adaptive pool's `out` outputs over `size` inputs: floor(i * size / out) to
    ceil((i + 1) * size / out)."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_average_matrix(size, out):
    """The [out, size] matrix of an adaptive average pool along one axis: each row averages its bin."""
    matrix = np.zeros((out, size))
    for i, (lo, hi) in enumerate(_adaptive_bins(size, out)):
        matrix[i, lo:hi] = 1.0 / (hi - lo)
    return matrix


def _along_axis(x, matrix, axis):
    """Contract axis `axis` of x with the [out, in] matrix, the result taking that axis' place."""
    out = red.dot_general(x, cast(Tensor(matrix), get_aval(x).dtype), dimension_numbers=(((axis,), (1,)), ((), ())))
    ndim = get_aval(out).ndim
    perm = list(range(ndim - 1))
    perm.insert(axis, ndim - 1)
    return st.transpose(out, permutation=tuple(perm))
