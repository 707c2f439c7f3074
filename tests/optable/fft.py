"""Op-table rows of the `fft` primitive, each kind in complex128 or float64 (and, through IREE, in single precision):
finite differences along random complex directions, the transpose identity under Re(sum(a * b)), vmap, the eager
tape, and the llvm-cpu lowering (IREE's own FFT for one power-of-two transform, the decompositions otherwise)."""
import numpy as np

from paddle_fn.prims import fft as F

from optable import Arg, OpRow


def _row(name, fft_type, fft_length, shape, ref, dtype):
    single = {"complex128": "complex64", "float64": "float32"}[dtype]
    return OpRow(name, F.fft_p, lambda x: F.fft(x, fft_type=fft_type, fft_length=fft_length), (Arg(shape, dtype),),
                 ref, lower_dtypes=(single,))


ROWS = [
    _row("fft", "FFT", (5,), (3, 5), np.fft.fft, "complex128"),
    _row("fft_one_power_of_two", "FFT", (8,), (1, 8), np.fft.fft, "complex128"),
    _row("ifft_2d", "IFFT", (4, 6), (2, 4, 6), np.fft.ifft2, "complex128"),
    _row("rfft", "RFFT", (8,), (3, 8), np.fft.rfft, "float64"),
    _row("rfft_3d", "RFFT", (3, 4, 5), (2, 3, 4, 5), lambda x: np.fft.rfftn(x, axes=(1, 2, 3)), "float64"),
    _row("irfft", "IRFFT", (8,), (3, 5), lambda x: np.fft.irfft(x, 8), "complex128"),
    _row("irfft_odd_2d", "IRFFT", (4, 7), (2, 4, 4), lambda x: np.fft.irfftn(x, s=(4, 7), axes=(1, 2)),
         "complex128"),
]
