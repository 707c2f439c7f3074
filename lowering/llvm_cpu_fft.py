"""FFTs for IREE's llvm-cpu backend: its own `stablehlo.fft` where it has one, paddle_fn's decompositions elsewhere.

IREE 3.13 compiles `stablehlo.fft` on the CPU only over one axis, of a power-of-two length, in single precision
(complex64, or float32 for RFFT); any other length, two or three axes at once, and every complex128 FFT fail to
compile. Where it compiles it is fast for one transform (a 2^20-point complex64 FFT in 12.7 ms, scipy.fft 9.8 ms,
JAX 9.3 ms on a 2-core AVX-512 host), and that one transform stays IREE's. An FFT whose every length is a product of
two factors up to 64 is done as matrix products on real planes (`llvm_cpu_fft_planes`, see `in_planes` for the
exceptions). Every other FFT becomes one-axis FFTs (RFFT's half axis last, IRFFT's first), each of which stays
IREE's when it can, and every other one-axis FFT is written with other primitives:

- up to `MATMUL_MAX` points, a DFT as one real matrix product (a complex one fails with data tiling): the real and
  imaginary parts side by side times the 2n x 2n matrix [[C, -S], [S, C]] of the cosines and sines;
- a length with a factor n1 <= `MATMUL_MAX`, the four-step Cooley-Tukey split n = n1 * n2: n2 DFTs of n1 points
  as one product, a twiddle multiply, then n1 FFTs of n2 points (recursively);
- any other length (a large prime factor), Bluestein's chirp-z algorithm: the DFT as a convolution with a chirp,
  done as FFTs of a power-of-two length m >= 2n - 1 (the chirp's own FFT is a constant).

Inverse and real kinds reduce to the forward complex FFT: IFFT(x) = conj(FFT(conj(x))) / n; an RFFT of an even
length n packs the even and odd samples into one complex signal of n / 2 points and untangles its FFT, and an
IRFFT of an even length does the reverse; for an odd length, RFFT keeps the first n // 2 + 1 bins of the FFT of
x + 0j and IRFFT rebuilds the Hermitian spectrum. The imaginary parts of the zero and Nyquist bins are ignored, as
pocketfft does. Each form is staged from primitives, so the tests evaluate it eagerly
against the primitive's own implementation (tests/test_fft.py).
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import llvm_cpu_fft_planes
from paddle_fn.lowering.llvm_cpu_conv import _dot, _pad
from paddle_fn.lowering.staged import bind, generic_rule, inline, reshape, shape_of, slice_, stage, transpose

# The longest DFT done as one matrix product: a 2n x 2n real matrix; 64 points is 128 KiB of float64.
MATMUL_MAX = 64


# A real FFT over several axes of an operand up to this size goes through planes (llvm_cpu_fft_planes); a larger
# one keeps the row form below. benchmarks/bench_fft.py and the README's FFT section: a 512^2 rfft2 + irfft2 step
# 3-5x faster in planes, a 1024^2 rfft2 1.2x, a 2048^2 rfft2 1.3x slower (the real input doubles in the first
# product where the packed row form keeps its size); complex FFTs are faster in planes at every size measured.
PLANES_RFFT_MAX_BYTES = 8 << 20


def lower_fft(ctx, x, *, fft_type, fft_length):
    if len(fft_length) == 1 and native(ctx.avals_in[0], fft_length[0]):
        return generic_rule("fft")(ctx, x, fft_type=fft_type, fft_length=fft_length)
    form = llvm_cpu_fft_planes.transform if in_planes(ctx.avals_in[0], fft_type, fft_length) else decompose
    prog, consts = stage(lambda v: [form(v, fft_type, fft_length)], ctx.avals_in)
    return inline(ctx, prog, consts, [x])[0]


def in_planes(aval, fft_type, fft_length) -> bool:
    """Whether an FFT that is not IREE's own is done as products on planes (llvm_cpu_fft_planes) rather than by
    `decompose`: when its lengths allow, but for a real FFT over one axis (its packed complex signal along the rows
    costs half the planes' real products) or of an operand over PLANES_RFFT_MAX_BYTES."""
    if not llvm_cpu_fft_planes.handles(fft_length):
        return False
    return fft_type != "RFFT" or (len(fft_length) > 1 and aval.size * aval.dtype.np.itemsize <= PLANES_RFFT_MAX_BYTES)


def native(aval, n) -> bool:
    """IREE's own FFT is used for a one-axis FFT of `n` points on an operand of type `aval`: it compiles one of a
    power-of-two length in single precision, and is fast for one transform (a 2^20-point FFT in 12.7 ms, scipy.fft
    9.8 ms) but slow for many (1025 FFTs of 2048 points: 273 ms, the four-step product form 105 ms, under load)."""
    one_transform = aval.shape[:-1] == (1,) * (len(aval.shape) - 1)
    return aval.dtype.name in ("complex64", "float32") and n >= 2 and n & (n - 1) == 0 and one_transform


def decompose(x, fft_type, fft_length):
    """The FFT of kind `fft_type` over the trailing `len(fft_length)` axes of `x`, as one-axis FFTs (the primitive
    where IREE has it) and the forms of the module docstring."""
    rank, k = len(shape_of(x)), len(fft_length)
    plain = "IFFT" if fft_type in ("IFFT", "IRFFT") else "FFT"
    kinds = [plain] * (k - 1) + [fft_type]
    order = range(k) if fft_type == "IRFFT" else reversed(range(k))  # the half axis: first for RFFT, last for IRFFT
    for i in order:
        axis = rank - k + i
        perm = tuple(a for a in range(rank) if a != axis) + (axis,)
        y = _one_axis(transpose(x, perm), kinds[i], fft_length[i])
        x = transpose(y, np.argsort(perm))
    return x


def _one_axis(x, fft_type, n):
    if native(get_aval(x), n):
        return bind("fft", x, fft_type=fft_type, fft_length=(n,))
    if fft_type == "FFT":
        return _forward(x, n)
    if fft_type == "IFFT":
        return _times(bind("conj", _forward(bind("conj", x), n)), np.asarray(1.0 / n))
    if fft_type == "RFFT":
        if n % 2 == 0:
            return _packed_forward_real(x, n)
        spectrum = _forward(bind("complex", x, _zeros_like(x)), n)
        return _slice_last(spectrum, 0, n // 2 + 1)
    return _packed_inverse_real(x, n) if n % 2 == 0 else _inverse_real(x, n)


def _half_twiddles(n):
    """w^k = exp(-2 pi i k / n) for k = 0..n/2, the twiddles that join the FFTs of the even and odd samples."""
    return np.exp(-2j * np.pi * np.arange(n // 2 + 1) / n)


def _packed_forward_real(x, n):
    """RFFT of n = 2m real points by one complex FFT of m points: z = even + i odd samples, Z = FFT(z); with
    Z_m = Z_0, X_k = Z_k (1 - i w^k) / 2 + conj(Z_(m-k)) (1 + i w^k) / 2."""
    shape, m = shape_of(x), n // 2
    pairs = reshape(x, shape[:-1] + (m, 2))
    last = len(shape)
    even, odd = (reshape(slice_(pairs, (0,) * last + (j,), shape[:-1] + (m, j + 1), (1,) * (last + 1)),
                          shape[:-1] + (m,)) for j in (0, 1))
    spectrum = _forward(bind("complex", even, odd), m)
    extended = bind("concatenate", spectrum, _slice_last(spectrum, 0, 1), dimension=last - 1)    # Z_0..Z_m
    mirrored = bind("conj", bind("rev", extended, dimensions=(last - 1,)))                       # conj(Z_(m-k))
    w = _half_twiddles(n)
    return bind("add", _times(extended, (1 - 1j * w) / 2), _times(mirrored, (1 + 1j * w) / 2))


def _packed_inverse_real(x, n):
    """IRFFT to n = 2m real points by one inverse complex FFT of m points: with the imaginary parts of X_0 and X_m
    dropped, Z_k = X_k (1 + i conj(w^k)) / 2 + conj(X_(m-k)) (1 - i conj(w^k)) / 2 is the FFT of z = even + i odd
    samples, and z = IFFT(Z)."""
    shape, m = shape_of(x), n // 2
    last = len(shape) - 1
    pieces = [_real_bin(_slice_last(x, 0, 1)), _slice_last(x, 1, m), _real_bin(_slice_last(x, m, m + 1))]
    bins = bind("concatenate", *[p for p in pieces if shape_of(p)[-1]], dimension=last)
    mirrored = bind("conj", bind("rev", bins, dimensions=(last,)))                               # conj(X_(m-k))
    w = np.conj(_half_twiddles(n))
    packed = bind("add", _times(bins, (1 + 1j * w) / 2), _times(mirrored, (1 - 1j * w) / 2))
    z = _slice_last(packed, 0, m)
    z = _times(bind("conj", _forward(bind("conj", z), m)), np.asarray(1.0 / m))                  # IFFT of m points
    parts = [reshape(bind(part, z), shape[:-1] + (m, 1)) for part in ("real", "imag")]
    return reshape(bind("concatenate", *parts, dimension=last + 1), shape[:-1] + (n,))


def _inverse_real(x, n):
    """IRFFT of the n // 2 + 1 bins `x` to n real points: the real part of the inverse FFT of the whole
    Hermitian spectrum, which is real(FFT(conj(spectrum))) / n."""
    half = n // 2 + 1
    pieces = [_real_bin(_slice_last(x, 0, 1))]
    middle = _slice_last(x, 1, half - 1 if n % 2 == 0 else half)
    if shape_of(middle)[-1]:
        pieces.append(middle)
    if n % 2 == 0 and n > 1:
        pieces.append(_real_bin(_slice_last(x, half - 1, half)))
    if shape_of(middle)[-1]:
        pieces.append(bind("conj", bind("rev", middle, dimensions=(len(shape_of(x)) - 1,))))
    spectrum = pieces[0] if len(pieces) == 1 else bind("concatenate", *pieces, dimension=len(shape_of(x)) - 1)
    return _times(bind("real", _forward(bind("conj", spectrum), n)), np.asarray(1.0 / n))


def _real_bin(bin_):
    """A bin with its imaginary part dropped (the zero and Nyquist bins of a real signal's spectrum)."""
    re = bind("real", bin_)
    return bind("complex", re, _zeros_like(re))


def _forward(x, n):
    """The unnormalized forward FFT of complex `x` over its last axis of `n` points."""
    if native(get_aval(x), n):
        return bind("fft", x, fft_type="FFT", fft_length=(n,))
    if n <= MATMUL_MAX:
        return _dft_product(x, n)
    n1 = next((d for d in range(MATMUL_MAX, 1, -1) if n % d == 0), None)
    return _bluestein(x, n) if n1 is None else _four_step(x, n1, n // n1)


def _dft_product(x, n):
    """The DFT over the last axis as one real matrix product: [re, im] @ [[C, -S], [S, C]]."""
    angle = 2 * np.pi * (np.outer(np.arange(n), np.arange(n)) % n) / n
    c, s = np.cos(angle), np.sin(angle)
    part = _part_dtype(x)
    matrix = Tensor(np.block([[c, -s], [s, c]]).astype(part))
    last = len(shape_of(x)) - 1
    parts = bind("concatenate", bind("real", x), bind("imag", x), dimension=last)
    y = _dot(parts, matrix, ((last,), (0,)))
    return bind("complex", _slice_last(y, 0, n), _slice_last(y, n, 2 * n))


def _four_step(x, n1, n2):
    """Cooley-Tukey with n = n1 * n2, input index n2 * j1 + j2 and output index k1 + n1 * k2."""
    shape = shape_of(x)
    lead = len(shape) - 1
    grid = reshape(x, shape[:-1] + (n1, n2))                              # [..., j1, j2]
    swap = tuple(range(lead)) + (lead + 1, lead)
    inner = _dft_product(transpose(grid, swap), n1)                       # [..., j2, k1]
    twiddle = np.exp(-2j * np.pi * (np.outer(np.arange(n2), np.arange(n1)) % (n1 * n2)) / (n1 * n2))
    inner = _times(inner, twiddle)
    outer = _forward(transpose(inner, swap), n2)                          # [..., k1, k2]
    return reshape(transpose(outer, swap), shape)                        # [..., k2, k1] -> k1 + n1 * k2


def _bluestein(x, n):
    """Bluestein's algorithm: X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k - j]) with w[j] = exp(-i pi j^2 / n), the
    sum a circular convolution of m >= 2n - 1 points done by power-of-two FFTs."""
    m = 1 << (2 * n - 2).bit_length()
    j = np.arange(n)
    chirp = np.exp(-1j * np.pi * ((j * j) % (2 * n)) / n)
    kernel = np.zeros(m, complex)
    kernel[:n] = np.conj(chirp)
    kernel[m - n + 1:] = np.conj(chirp[1:])[::-1]
    a = _pad(_times(x, chirp), [(0, 0, 0)] * (len(shape_of(x)) - 1) + [(0, m - n, 0)])
    spectrum = _times(_forward(a, m), np.fft.fft(kernel))
    convolution = bind("conj", _forward(bind("conj", spectrum), m))        # m times the inverse FFT
    return _times(_slice_last(convolution, 0, n), chirp / m)


def _times(x, constant):
    """x times a numpy constant that matches its trailing axes (cast to x's dtype)."""
    aval = get_aval(x)
    c = np.asarray(constant).astype(aval.dtype.np)
    if aval.dtype.kind == "c":  # from its parts: IREE 3.13 crashes on a dense complex128 constant of 64+ elements
        c = bind("complex", Tensor(np.ascontiguousarray(c.real)), Tensor(np.ascontiguousarray(c.imag)))
    else:
        c = Tensor(c)
    k = get_aval(c).ndim
    full = bind("broadcast_in_dim", c, shape=aval.shape, broadcast_dimensions=tuple(range(aval.ndim - k, aval.ndim)))
    return bind("mul", x, full)


def _slice_last(x, lo, hi):
    shape = shape_of(x)
    return slice_(x, (0,) * (len(shape) - 1) + (lo,), shape[:-1] + (hi,), (1,) * len(shape))


def _zeros_like(x):
    aval = get_aval(x)
    return bind("broadcast_in_dim", Tensor(np.zeros((), aval.dtype.np)), shape=aval.shape, broadcast_dimensions=())


def _part_dtype(x):
    return np.float32 if get_aval(x).dtype.name == "complex64" else np.float64
