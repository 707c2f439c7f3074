"""Forms for IREE's GPU backends (LLVMGPU code generation: cuda, and rocm, which shares it), where the generic
StableHLO fails to compile (IREE 3.13, cross-compiled for sm_80 and gfx942).

- **Sums of a negation.** IREE fuses the elementwise operations that compute a reduction's operand into the
  reduction, and a negation there folds into the combiner: sum(-x) becomes a reduction whose body is `acc - x`,
  which has no neutral element, and the GPU reduction pipeline, which pads the reduced axis with that element,
  fails at every shape ("failed to get neutral element for reduction"; integers: "failed to distribute"). The
  sum of a negation is the negation of the sum, with the same numbers (negation is exact and rounding symmetric),
  so the negation's operand is summed and the sum negated. Reverse mode makes such sums: a layer norm's backward
  pass sums the negated cotangent of `x - mean`.
- **FFTs.** IREE compiles `stablehlo.fft` only over one axis of a power-of-two length in single precision, as on
  the CPU; the CPU's forms (lowering/llvm_cpu_fft.py: IREE's own FFT there, matrix products on real planes, DFT
  products, four-step splits, Bluestein) are built from other primitives and serve the GPUs too.
- **Complex pads.** A complex128 `stablehlo.pad` fails ("'stream.async.splat' op operand #0 must be ... but got
  'i128'"); the parts are padded apart, as on the CPU (lowering/llvm_cpu_pad.py).
"""
from __future__ import annotations

from paddle_fn.lowering import llvm_cpu_fft, llvm_cpu_pad
from paddle_fn.lowering.staged import generic_rule


def lower_sum(ctx, x, *, axes):
    """reduce_sum, with the negation that computes `x` (if one does) applied to the sum instead."""
    made = ctx.producer(x)
    if made is None or made[0] != "neg":
        return generic_rule("reduce_sum")(ctx, x, axes=axes)
    total = generic_rule("reduce_sum")(ctx, made[1][0], axes=axes)
    return ctx.op("stablehlo.negate", [total], in_avals=ctx.avals_out)


def lower_fft(ctx, x, *, fft_type, fft_length):
    """The FFT in the CPU's forms, which are target-independent (see the module docstring)."""
    return llvm_cpu_fft.lower_fft(ctx, x, fft_type=fft_type, fft_length=fft_length)


def lower_pad(ctx, x, padding_value, *, padding_config):
    """A complex pad as the pads of its parts; every other pad by the generic rule."""
    return llvm_cpu_pad.lower_pad(ctx, x, padding_value, padding_config=padding_config)
