"""Forms for IREE's GPU backends (LLVMGPU code generation: cuda, and rocm, which shares it), where the generic
StableHLO fails to compile (IREE 3.13, cross-compiled for sm_80 and gfx942).

- **FFTs.** IREE compiles `stablehlo.fft` only over one axis of a power-of-two length in single precision, as on
  the CPU; the CPU's forms (lowering/llvm_cpu_fft.py: IREE's own FFT there, matrix products on real planes, DFT
  products, four-step splits, Bluestein) are built from other primitives and serve the GPUs too.
- **Complex pads.** A complex128 `stablehlo.pad` fails ("'stream.async.splat' op operand #0 must be ... but got
  'i128'"); the parts are padded apart, as on the CPU (lowering/llvm_cpu_pad.py).
"""
from __future__ import annotations

from paddle_fn.lowering import llvm_cpu_fft, llvm_cpu_pad


def lower_fft(ctx, x, *, fft_type, fft_length):
    """The FFT in the CPU's forms, which are target-independent (see the module docstring)."""
    return llvm_cpu_fft.lower_fft(ctx, x, fft_type=fft_type, fft_length=fft_length)


def lower_pad(ctx, x, padding_value, *, padding_config):
    """A complex pad as the pads of its parts; every other pad by the generic rule."""
    return llvm_cpu_pad.lower_pad(ctx, x, padding_value, padding_config=padding_config)
