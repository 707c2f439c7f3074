"""Op-table rows for paddle_fn.prims.conv: every layout, stride, padding (negative too), dilation and grouping
path of conv_general_dilated, against a loop-over-output-positions reference."""
import itertools

import numpy as np

from paddle_fn.prims import conv as C

from optable import Arg, OpRow


def _ref_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fg=1, bg=1):
    """out[n, o, p] = sum_{c, k} x[batch(n, o), group(o) * I + c, p * stride + k * rhs_dil] * w[o, c, k], with x
    dilated then padded (negative pads crop)."""
    x = np.transpose(lhs, dn.lhs_spec)
    w = np.transpose(rhs, dn.rhs_spec)
    for axis, d in enumerate(lhs_dil, start=2):
        shape = list(x.shape)
        shape[axis] = (shape[axis] - 1) * d + 1
        grown = np.zeros(shape, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, d)
        grown[tuple(index)] = x
        x = grown
    for axis, (lo, hi) in enumerate(padding, start=2):
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, widths)
        index = [slice(None)] * x.ndim
        index[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(index)]
    N, Cf = x.shape[:2]
    O, I = w.shape[:2]
    ks = w.shape[2:]
    out_sp = [(x.shape[2 + i] - ((ks[i] - 1) * rhs_dil[i] + 1)) // strides[i] + 1 for i in range(len(ks))]
    out = np.zeros([N // bg, O] + out_sp, lhs.dtype)
    for n, o in itertools.product(range(N // bg), range(O)):
        b = (o // (O // bg)) * (N // bg) + n
        g = o // (O // fg)
        for pos in itertools.product(*map(range, out_sp)):
            total = 0.0
            for k in itertools.product(*map(range, ks)):
                at = tuple(p * s + kk * r for p, s, kk, r in zip(pos, strides, k, rhs_dil))
                total += np.dot(x[(b, slice(g * I, (g + 1) * I)) + at], w[(o, slice(None)) + k])
            out[(n, o) + pos] = total
    return np.transpose(out, np.argsort(dn.out_spec))


NCHW = C.conv_dimension_numbers("NCHW", "OIHW", "NCHW")
NHWC = C.conv_dimension_numbers("NHWC", "HWIO", "NHWC")
NCL = C.conv_dimension_numbers("NCL", "OIL", "NCL")
MIXED = C.conv_dimension_numbers("HNWC", "IHOW", "CWNH")
# the weight gradient's form: the image's batch and features swapped, the output gradient as the filter
WGRAD = C.ConvDimensionNumbers((1, 0, 2, 3), (1, 0, 2, 3), (1, 0, 2, 3))


def _row(name, lhs_shape, rhs_shape, dn, strides, padding, lhs_dil, rhs_dil, fg=1, bg=1):
    def fun(x, w):
        return C.conv_general_dilated(x, w, window_strides=strides, padding=padding, lhs_dilation=lhs_dil,
                                      rhs_dilation=rhs_dil, dimension_numbers=dn, feature_group_count=fg,
                                      batch_group_count=bg)

    def ref(x, w):
        return _ref_conv(x, w, strides, padding, lhs_dil, rhs_dil, dn, fg, bg)

    return OpRow(name, C.conv_general_dilated_p, fun, (Arg(lhs_shape), Arg(rhs_shape)), ref)


ROWS = [
    _row("conv_nchw_strided_padded", (2, 3, 5, 6), (4, 3, 3, 2), NCHW, (1, 2), ((1, 0), (0, 1)), (1, 1), (1, 1)),
    _row("conv_nhwc_dilated_negative_pad", (1, 5, 4, 2), (2, 2, 2, 3), NHWC, (2, 1), ((1, 1), (-1, 2)), (1, 2),
         (2, 1)),
    _row("conv_mixed_layout", (4, 2, 3, 3), (3, 2, 4, 2), MIXED, (1, 1), ((0, 1), (1, 0)), (1, 1), (1, 1)),
    _row("conv1d_feature_groups", (2, 4, 7), (6, 2, 3), NCL, (2,), ((1, 1),), (1,), (1,), fg=2),
    _row("conv2d_depthwise", (1, 3, 4, 4), (3, 1, 2, 2), NCHW, (1, 1), ((0, 0), (1, 1)), (1, 1), (1, 1), fg=3),
    _row("conv1d_batch_groups", (4, 3, 5), (6, 3, 2), NCL, (1,), ((0, 1),), (2,), (1,), bg=2),
    # rows whose shapes take each of the compiled CPU forms of lowering/llvm_cpu_conv.py (the rows above take the
    # filter-barrier form, the generic lowering for an HWIO filter, and depthwise taps; a window larger than the
    # output is one patches_product over fewer than 8 batch rows, else one product per position)
    _row("conv_pointwise_strided", (2, 3, 5, 4), (4, 3, 1, 1), NCHW, (2, 1), ((0, 1), (1, 0)), (1, 1), (1, 1)),
    _row("conv_pointwise_lhs_dilated", (2, 3, 3, 2), (4, 3, 1, 1), NCHW, (1, 1), ((1, -1), (0, 2)), (2, 2), (1, 1)),
    _row("conv_window_larger_than_output", (3, 2, 6, 5), (4, 2, 5, 3), NCHW, (1, 2), ((0, 1), (1, 0)), (1, 1),
         (1, 1)),
    _row("conv_window_larger_than_output_eight_rows", (8, 2, 5, 4), (3, 2, 4, 3), NCHW, (1, 1), ((0, 0), (0, 1)),
         (1, 1), (1, 1)),
    _row("conv_window_larger_than_output_batch_groups", (2, 4, 5, 5), (2, 6, 4, 4), WGRAD, (1, 1), ((0, 0), (1, 0)),
         (1, 1), (1, 1), bg=2),
    _row("conv_depthwise_weight_gradient", (2, 3, 4, 4), (2, 3, 3, 3), WGRAD, (1, 1), ((1, 0), (0, 1)), (1, 1),
         (1, 1), bg=3),
]
