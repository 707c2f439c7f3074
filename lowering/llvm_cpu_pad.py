"""Complex padding for IREE's llvm-cpu backend: the real and imaginary parts are padded apart.

IREE 3.13 crashes on a `stablehlo.pad` of complex elements, complex64 and complex128 alike (in
TensorPadToTensorInsertSlice, or 'stream.async.splat' of the padding value); zero-padding a signal to an FFT length
(`paddle.fft.fft(x, n=...)`) is the everyday case. Padding each part with the part of the padding value and
putting them back together compiles and gives the same array. Every other pad keeps the generic rule.
"""
from __future__ import annotations

from paddle_fn.lowering.staged import bind, generic_rule, inline, stage


def lower_pad(ctx, x, padding_value, *, padding_config):
    if ctx.avals_in[0].dtype.kind != "c":
        return generic_rule("pad")(ctx, x, padding_value, padding_config=padding_config)
    prog, consts = stage(lambda v, p: [pad_by_parts(v, p, padding_config)], ctx.avals_in)
    return inline(ctx, prog, consts, [x, padding_value])[0]


def pad_by_parts(x, padding_value, padding_config):
    """The complex pad of `x` as complex(pad(real), pad(imag))."""
    parts = [bind("pad", bind(part, x), bind(part, padding_value), padding_config=padding_config)
             for part in ("real", "imag")]
    return bind("complex", *parts)
