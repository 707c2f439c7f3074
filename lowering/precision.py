"""The precision of float32 matrix products (dot_general, convolution) in compiled programs.

    "float32"   exact float32 products (the default)
    "bf16x3"    three bfloat16 products with float32 accumulation: x = hi + lo with hi = bf16(x) and
                lo = bf16(x - hi); x @ y ~ hi_x @ hi_y + hi_x @ lo_y + lo_x @ hi_y. Close to float32 (relative
                error ~1e-5 instead of ~1e-7) and fast where bfloat16 products are (GPU tensor cores)
    "bfloat16"  one bfloat16 product with float32 accumulation (relative error ~1e-2): the fastest

The names and JAX's aliases are checked by `paddle_fn.core.config.canonical_precision`. The
setting changes only float32 x float32 products; float64, float16, bfloat16 and integer products are untouched,
and eager (uncompiled) operations always compute exactly. The rewrite is ours, in the StableHLO we emit, so it
means the same on every target.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.ir import ShapedArray


def _convert(ctx, value: str, aval: ShapedArray, dtype) -> str:
    return ctx.op("stablehlo.convert", [value], aval.update(dtype=dtype), in_avals=[aval])


def _split(ctx, value: str, aval: ShapedArray):
    """(hi, lo) bfloat16 parts of a float32 value: hi = bf16(x), lo = bf16(x - hi)."""
    hi = _convert(ctx, value, aval, dtypes.bfloat16)
    rest = ctx.op("stablehlo.subtract", [value, _convert(ctx, hi, aval.update(dtype=dtypes.bfloat16),
                                                          dtypes.float32)], aval, in_avals=[aval, aval])
    return hi, _convert(ctx, rest, aval, dtypes.bfloat16)


def lower_product(ctx, emit, lhs: str, rhs: str) -> str:
    """Emit a float32 product at `ctx.matmul_precision`. `emit(lhs, rhs, in_avals)` emits one product of operands
    of those types into the equation's output type (float32 accumulation) and returns its name."""
    a, b = ctx.avals_in
    precision = ctx.matmul_precision
    if precision == "float32" or not a.dtype.name == b.dtype.name == ctx.avals_out[0].dtype.name == "float32":
        return emit(lhs, rhs, [a, b])
    a16, b16 = a.update(dtype=dtypes.bfloat16), b.update(dtype=dtypes.bfloat16)
    if precision == "bfloat16":
        return emit(_convert(ctx, lhs, a, dtypes.bfloat16), _convert(ctx, rhs, b, dtypes.bfloat16), [a16, b16])
    (a_hi, a_lo), (b_hi, b_lo) = _split(ctx, lhs, a), _split(ctx, rhs, b)
    out = ctx.avals_out[0]
    # the small cross terms first, then the main product: fewer rounding errors in the float32 sum
    cross = ctx.op("stablehlo.add", [emit(a_hi, b_lo, [a16, b16]), emit(a_lo, b_hi, [a16, b16])], out,
                   in_avals=[out, out])
    return ctx.op("stablehlo.add", [cross, emit(a_hi, b_hi, [a16, b16])], out, in_avals=[out, out])
