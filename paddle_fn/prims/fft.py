"""The discrete Fourier transform: `fft`, StableHLO's `stablehlo.fft` (XLA's Fft).

One primitive with four kinds, over the trailing `len(fft_length)` axes (one to three):

- ``FFT``: complex to complex, unnormalized, ``y[k] = sum_j x[j] exp(-2 pi i j k / n)``;
- ``IFFT``: complex to complex, the inverse, scaled by ``1 / prod(fft_length)``;
- ``RFFT``: real to complex, the FFT of a real signal keeping the ``n // 2 + 1`` non-negative frequencies of the
  last axis;
- ``IRFFT``: complex to real, the inverse of RFFT: the last axis holds ``n // 2 + 1`` bins, the other
  frequencies are their conjugates (the imaginary parts of the zero and Nyquist bins are ignored).

It is a primitive because the backends have FFT kernels and the eager path has ducc's (`ducc0.fft`, pocketfft's
successor, the kernels JAX's CPU FFT calls: 1.4-1.9x faster than scipy.fft's pocketfft on one core, and it keeps
complex64 in complex64 where `numpy.fft` computes in complex128). Every kind is linear (over the reals), so its JVP
is itself and its transpose is another FFT. The transposes use JAX's pairing of complex cotangents,
``<ct, y> = Re(sum(ct * y))`` with no conjugate: the transpose of FFT is FFT and of IFFT is IFFT (the DFT matrix is
symmetric); RFFT's is the real part of the FFT of the cotangent padded to `n` bins, computed as an IRFFT; IRFFT's
is the conjugate of the RFFT of the cotangent with the bins that stand for two frequencies doubled, over
`prod(fft_length)`.
"""
from __future__ import annotations

import math
import os

import ducc0
import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import is_undefined
from paddle_fn.core.batching import moveaxis
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import LINEAR, Primitive
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.base import broadcast_in_dim
from paddle_fn.prims.complex_parts import conj
from paddle_fn.prims.elementwise import mul

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")
_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}
_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}


def _fft_shape(x, *, fft_type, fft_length):
    if fft_type not in FFT_TYPES:
        raise ValueError(f"fft: fft_type must be one of {FFT_TYPES}, got {fft_type!r}")
    if not 1 <= len(fft_length) <= 3 or any(n < 1 for n in fft_length):
        raise ShapeError(f"fft: fft_length {list(fft_length)} must hold one to three positive lengths")
    if x.ndim < len(fft_length):
        raise ShapeError(f"fft: {fft_type} over {len(fft_length)} axes needs an operand of rank "
                         f">= {len(fft_length)}, got {fmt(x)}")
    if fft_type == "RFFT":
        if x.dtype.name not in _COMPLEX_OF:
            raise DTypeError(f"fft: RFFT takes float32 or float64, got {fmt(x)} (cast it with .astype())")
    elif x.dtype.kind != "c":
        raise DTypeError(f"fft: {fft_type} takes complex64 or complex128, got {fmt(x)} (cast it with .astype())")
    lead, trail = x.shape[:x.ndim - len(fft_length)], x.shape[x.ndim - len(fft_length):]
    n = fft_length[-1]
    want = fft_length[:-1] + (n // 2 + 1,) if fft_type == "IRFFT" else fft_length
    if trail != want:
        raise ShapeError(f"fft: {fft_type} of length {list(fft_length)} needs trailing axes {list(want)}, got "
                         f"{fmt(x)} (pad or slice the operand first)")
    if fft_type == "RFFT":
        return ShapedArray(lead + fft_length[:-1] + (n // 2 + 1,), _COMPLEX_OF[x.dtype.name])
    if fft_type == "IRFFT":
        return ShapedArray(lead + fft_length, _REAL_OF[x.dtype.name])
    return x


# Transforms of at least this many elements use every core the process may run on (a 1024^2 rfft2 1.8x faster on
# 2, a 2^20-point FFT 1.9x; JAX's CPU FFT is threaded too); smaller ones one, where handing work to threads costs
# more than it saves (a 512^2 rfft2 0.32 ms on 2 against 0.30 on one)
PARALLEL_FFT_SIZE = 1 << 19


def _fft_impl(x, *, fft_type, fft_length):
    out = _fft_shape(get_aval(Tensor(x)), fft_type=fft_type, fft_length=fft_length)
    if x.size == 0 or out.size == 0:
        return np.zeros(out.shape, out.dtype.np)
    axes = tuple(range(x.ndim - len(fft_length), x.ndim))
    threads = len(os.sched_getaffinity(0)) if x.size >= PARALLEL_FFT_SIZE and hasattr(os, "sched_getaffinity") \
        else 1
    if fft_type == "FFT":
        y = ducc0.fft.c2c(x, axes=axes, nthreads=threads)
    elif fft_type == "IFFT":
        y = ducc0.fft.c2c(x, axes=axes, forward=False, inorm=2, nthreads=threads)
    elif fft_type == "RFFT":
        y = ducc0.fft.r2c(x, axes=axes, nthreads=threads)
    else:
        y = ducc0.fft.c2r(x, axes=axes, lastsize=fft_length[-1], forward=False, inorm=2, nthreads=threads)
    return np.asarray(y, dtype=out.dtype.np)


def _irfft_weights(n, dtype):
    """The weights of the last axis's `n // 2 + 1` bins in an inverse real FFT: 1 for the zero bin (and the Nyquist
    bin when `n` is even), 2 for those that stand for a frequency and its negative too."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights.astype(dtype.np)


def _fft_transpose(ct, x, *, fft_type, fft_length):
    assert is_undefined(x)
    if fft_type in ("FFT", "IFFT"):
        return [fft(ct, fft_type=fft_type, fft_length=fft_length)]
    # RFFT's transpose is Re(FFT(ct padded to n bins)), which is IRFFT(conj(ct) * N / w): the inverse real FFT
    # counts the bins of weight w = 2 twice and divides by N = prod(fft_length). IRFFT's is conj(RFFT(ct) * w / N).
    spectrum = ct if fft_type == "RFFT" else fft(ct, fft_type="RFFT", fft_length=fft_length)
    aval = get_aval(spectrum)
    weights = _irfft_weights(fft_length[-1], aval.dtype) / math.prod(fft_length)
    if fft_type == "RFFT":
        weights = 1 / weights
    scaled = mul(spectrum, broadcast_in_dim(Tensor(weights), shape=aval.shape, broadcast_dimensions=(aval.ndim - 1,)))
    if fft_type == "RFFT":
        return [fft(conj(scaled), fft_type="IRFFT", fft_length=fft_length)]
    return [conj(scaled)]


def _fft_batch(vals, dims, *, fft_type, fft_length):
    (x,), (d,) = vals, dims
    return fft(moveaxis(x, d, 0), fft_type=fft_type, fft_length=fft_length), 0


def _fft_lower(ctx, x, *, fft_type, fft_length):
    return ctx.op("stablehlo.fft", [x], attrs=f"type = {fft_type}, length = [{', '.join(map(str, fft_length))}]",
                  sep=", ")


def _fft_cost(avals_in, avals_out, *, fft_type, fft_length):
    """About 5 n log2 n real operations for each transform of n points (the radix-2 count)."""
    n = math.prod(fft_length)
    transforms = max(avals_in[0].size, avals_out[0].size) // max(n, 1)
    return 5 * transforms * n * max(math.log2(n), 1)


fft_p = Primitive("fft", shape_rule=_fft_shape, impl=_fft_impl, jvp=LINEAR, transpose=_fft_transpose,
                  batch=_fft_batch, lower=_fft_lower, cost=_fft_cost)


def fft(x, *, fft_type: str, fft_length):
    """The discrete Fourier transform of kind `fft_type` ('FFT', 'IFFT', 'RFFT', 'IRFFT') over the trailing
    `len(fft_length)` axes (see the module docstring for each kind's input and output)."""
    return fft_p.bind(x, fft_type=str(fft_type), fft_length=tuple(int(n) for n in fft_length))
