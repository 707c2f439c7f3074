"""FFTs of lengths up to 4096 as matrix products on real planes, each axis moved to the front first.

A complex array is held as planes: a real array with a leading axis of 2 parts (real, imaginary). Each transformed
axis is moved to the front (after the part axis), where a `dot_general` can contract it, with the part axis, as
IREE's products want their operands, without transposes of their own: the weight is the left operand, the data the
right one, and the rest of the array is one long row. An axis of `n = n1 * n2` points (n2 <= n1 <= MATMUL_MAX) takes
two products, the four-step Cooley-Tukey split with input index j = n2 * j1 + j2 and output index k = k1 + n1 * k2:

- the n1-point DFT contracts j1, leaving (part, k1, j2, rest);
- one elementwise pass multiplies by the twiddles exp(-2 pi i j2 k1 / n) and swaps k1 and j2;
- the n2-point DFT contracts j2, leaving (part, k2, k1, rest): the frequencies in their natural order.

A length of at most MATMUL_MAX points is one product. The real kinds cost about half: RFFT's last axis is taken
real (no part axis) and only the k2 that reach its n // 2 + 1 bins are made; IRFFT's last axis (done last) reads
only the j1 that hold bins (the rest are zeros after the Hermitian bins, weighted by how many frequencies each stands
for) and makes only the real part. One elementwise pass at the end puts the axes back and builds the complex result.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.staged import bind, broadcast, reshape, shape_of, slice_, transpose

# The longest DFT done as one product, and the largest factor of a two-product axis.
MATMUL_MAX = 64


def split(n):
    """(n1, n2) with n = n1 * n2 and n2 <= n1 <= MATMUL_MAX, n1 as small as possible ((n, 1) for a length of at
    most MATMUL_MAX), or None."""
    if n <= MATMUL_MAX:
        return n, 1
    return next(((n1, n // n1) for n1 in range(math.isqrt(n - 1) + 1, MATMUL_MAX + 1) if n % n1 == 0), None)


def handles(fft_length) -> bool:
    """Whether every axis of a transform of `fft_length` has a length this form takes."""
    return all(split(n) is not None for n in fft_length)


def transform(x, fft_type, fft_length):
    """The FFT of kind `fft_type` over the trailing `len(fft_length)` axes of `x` (see the module docstring)."""
    rank, count = len(shape_of(x)), len(fft_length)
    aval = get_aval(x)
    part = np.float32 if aval.dtype.name in ("complex64", "float32") else np.float64
    inverse = fft_type in ("IFFT", "IRFFT")
    planes = aval.dtype.kind == "c"
    value = _to_planes(x, _hermitian_weights(fft_length[-1]) if fft_type == "IRFFT" else None) if planes else x
    layout = list(range(rank))  # the original axis at each position after the part axis
    order = range(count) if fft_type == "IRFFT" else reversed(range(count))  # RFFT's half axis first, IRFFT's last
    for i in order:
        axis, n, last = rank - count + i, fft_length[i], i == count - 1
        front = [axis] + [a for a in layout if a != axis]
        value = transpose(value, _with_part([layout.index(a) for a in front], planes))
        bins_out = n // 2 + 1 if fft_type == "RFFT" and last else n
        real_out = fft_type == "IRFFT" and last
        value = _leading_dft(value, n, bins_out, planes=planes, real_out=real_out, sign=1.0 if inverse else -1.0,
                             scale=1.0 / n if inverse else 1.0, part=part)
        planes = not real_out
        layout = front
    value = transpose(value, _with_part([layout.index(a) for a in range(rank)], planes))
    if not planes:
        return value
    out_shape = shape_of(value)[1:]
    re, im = (reshape(slice_(value, (p,) + (0,) * rank, (p + 1,) + out_shape), out_shape) for p in (0, 1))
    return bind("complex", re, im)


def _times(planes, c, part):
    """Planes times the complex array `c`, which matches the axes after the part axis that it has:
    re' = re c_re - im c_im, im' = im c_re + re c_im, as planes * c_re + swap(planes) * (-c_im, c_im), swap
    reversing the part axis: one elementwise pass."""
    shape = shape_of(planes)
    dims = tuple(range(1, 1 + c.ndim))
    re = broadcast(Tensor(np.ascontiguousarray(c.real).astype(part)), shape, dims)
    im = broadcast(Tensor(np.array([-c.imag, c.imag]).astype(part)), shape, (0,) + dims)
    return bind("add", bind("mul", planes, re), bind("mul", bind("rev", planes, dimensions=(0,)), im))


def _with_part(perm, planes):
    """A permutation of the axes after the part axis, extended to the whole array."""
    return [0] + [p + 1 for p in perm] if planes else perm


def _to_planes(x, last_axis_weights):
    """The complex `x` as planes (2, *x.shape), its last axis weighted by `last_axis_weights` (None: not)."""
    parts = [bind("real", x), bind("imag", x)]
    aval = get_aval(parts[0])
    if last_axis_weights is not None:
        w = broadcast(Tensor(last_axis_weights.astype(aval.dtype.np)), aval.shape, (aval.ndim - 1,))
        parts = [bind("mul", p, w) for p in parts]
    return bind("concatenate", *(reshape(p, (1,) + aval.shape) for p in parts), dimension=0)


def _hermitian_weights(n):
    """How many frequencies each bin of an inverse real FFT of `n` points stands for (1 for the zero bin and an
    even length's Nyquist bin, 2 for the others): the signal is the real part of the weighted bins' inverse DFT."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights


def _dft(rows, cols, n, sign, scale=1.0):
    """scale * exp(sign 2 pi i j k / n) for j < rows and k < cols, as a (j, k) matrix."""
    j, k = np.arange(rows)[:, None], np.arange(cols)[None, :]
    return scale * np.exp(sign * 2j * np.pi * ((j * k) % n) / n)


def _weight(c, real_in, real_out, part):
    """The complex (j, k) matrix `c` as the real left operand of a product with planes: (part_out, k, part_in, j),
    without part_in for a real input and without part_out for a real output (the real part)."""
    re, im = c.real.T, c.imag.T
    w = np.array([[re, -im], [im, re]]).transpose(0, 2, 1, 3)   # (part_out, k, part_in, j)
    if real_in:
        w = w[:, :, 0]
    if real_out:
        w = w[0]
    return Tensor(np.ascontiguousarray(w.astype(part)))


def _product(w, value, contracted):
    """dot_general of the weight `w` with the leading `contracted` axes of `value`: (w's free axes, value's rest)."""
    wa = len(shape_of(w))
    return bind("dot_general", w, value,
                dimension_numbers=((tuple(range(wa - contracted, wa)), tuple(range(contracted))), ((), ())),
                preferred_element_type=None)


def _leading_dft(value, n, bins_out, *, planes, real_out, sign, scale, part):
    """The DFT of `n` points over the leading axis of `value` (after its part axis when `planes`), whose length
    (at most n) is the number of inputs that can be nonzero; its first `bins_out` outputs, real ones with
    `real_out`. The rest of the array keeps its shape."""
    shape = shape_of(value)
    p = 1 if planes else 0
    bins_in, rest = shape[p], shape[p + 1:]
    flat = reshape(value, shape[:p + 1] + (math.prod(rest),))
    n1, n2 = split(n)
    if n2 == 1:
        y = _product(_weight(_dft(bins_in, bins_out, n, sign, scale), not planes, real_out, part), flat, p + 1)
    else:
        rows = -(-bins_in // n2)  # the j1 that hold inputs
        if rows * n2 > bins_in:
            config = [(0, 0, 0)] * (p + 2)
            config[p] = (0, rows * n2 - bins_in, 0)
            flat = bind("pad", flat, Tensor(np.zeros((), part)), padding_config=tuple(config))
        grid = reshape(flat, shape[:p] + (rows, n2, math.prod(rest)))
        y = _product(_weight(_dft(rows, n1, n1, sign, scale), not planes, False, part), grid, p + 1)
        y = transpose(_twiddled(y, n, sign, part), (0, 2, 1, 3))                   # (part, j2, k1, rest)
        cols = -(-bins_out // n1)                                                   # the k2 that reach bins_out
        y = _product(_weight(_dft(n2, cols, n2, sign), False, real_out, part), y, 2)   # (part, k2, k1, rest)
        parts = shape_of(y)[:-3]
        y = reshape(y, parts + (cols * n1, shape_of(y)[-1]))
        y = slice_(y, (0,) * len(shape_of(y)), parts + (bins_out, shape_of(y)[-1]))
    return reshape(y, shape_of(y)[:-2] + (bins_out,) + rest)


def _twiddled(y, n, sign, part):
    """Planes y of shape (2, k1, j2, rest) times the twiddles exp(sign 2 pi i j2 k1 / n)."""
    _, n1, n2, _ = shape_of(y)
    return _times(y, _dft(n1, n2, n, sign), part)
