"""The precision of float32 matrix products (dot_general, convolution) in compiled programs.

    "float32"   exact float32 products (the default)
    "bf16x3"    three bfloat16 products with float32 accumulation: x = hi + lo with hi = bf16(x) and
                lo = bf16(x - hi); x @ y ~ hi_x @ hi_y + hi_x @ lo_y + lo_x @ hi_y. Close to float32 (relative
                error ~1e-5 instead of ~1e-7) and fast where bfloat16 products are (GPU tensor cores)
    "bfloat16"  one bfloat16 product with float32 accumulation (relative error ~1e-2): the fastest

The names and JAX's aliases are checked by `paddle_fn.core.config.canonical_precision`. The
setting changes only float32 x float32 products; float64, float16, bfloat16 and integer products are untouched,
and eager (uncompiled) operations always compute exactly. The rewrite is ours, in the StableHLO we emit, so it
means the same on every target; for the GPU backends bf16x3's three products are written as one over the parts
side by side (`lower_product`).
"""
from __future__ import annotations

import os

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.ir import ShapedArray
from paddle_fn.lowering.emitter import GPU_TARGETS


# Where bf16x3's three products are one (`lower_product`). For CUDA that is one product dispatch instead of three and
# the sums of their results: the transformer block's bf16x3 training step went from 116 dispatches (58 products)
# to 102 (22), the ResNet block's from 60 (15 convolutions) to 55 (5) (benchmarks/cuda_dispatches.py); not yet
# timed on a GPU, so the GPU check times the three products too, which $PADDLE_FN_BF16X3_AS_THREE_PRODUCTS=1 keeps
# (read at import). On llvm-cpu, whose bfloat16 products have no microkernel, the one product was slower: a 1024^2
# matmul 9.4 -> 10.2 ms, the transformer block's step 3.2 -> 4.3 s (AVX-512 host, interleaved medians).
ONE_PRODUCT_TARGETS = () if os.environ.get("PADDLE_FN_BF16X3_AS_THREE_PRODUCTS") == "1" else GPU_TARGETS


def _convert(ctx, value: str, aval: ShapedArray, dtype) -> str:
    return ctx.op("stablehlo.convert", [value], aval.update(dtype=dtype), in_avals=[aval])


def _split(ctx, value: str, aval: ShapedArray):
    """(hi, lo) bfloat16 parts of a float32 value: hi = bf16(x), lo = bf16(x - hi)."""
    hi = _convert(ctx, value, aval, dtypes.bfloat16)
    rest = ctx.op("stablehlo.subtract", [value, _convert(ctx, hi, aval.update(dtype=dtypes.bfloat16),
                                                          dtypes.float32)], aval, in_avals=[aval, aval])
    return hi, _convert(ctx, rest, aval, dtypes.bfloat16)


def _side_by_side(ctx, value: str, aval: ShapedArray, axis: int, lo_at: int) -> tuple:
    """The bfloat16 parts of a float32 value, three side by side along `axis` (hi, hi, hi with lo at `lo_at`): the
    parts, split once, broadcast over a new axis of three before `axis` and picked from by a constant mask, which a
    reshape merges into `axis`: one elementwise computation. (IREE makes a `concatenate` of the parts along an inner
    axis a copy dispatch per part.) Returns (its name, its type)."""
    shape = aval.shape
    part, parts = aval.update(dtype=dtypes.bfloat16), aval.update(shape=shape[:axis] + (3,) + shape[axis:],
                                                                  dtype=dtypes.bfloat16)
    others = [d for d in range(len(parts.shape)) if d != axis]

    def widened(name):
        return ctx.op("stablehlo.broadcast_in_dim", [name], parts, attrs=f"dims = {others}", sep=", ", in_avals=[part])
    hi, lo = _split(ctx, value, aval)
    mask_aval = ShapedArray((3,), dtypes.bool_)
    where = ctx.op("stablehlo.broadcast_in_dim", [ctx.constant(np.arange(3) == lo_at, mask_aval)],
                   parts.update(dtype=dtypes.bool_), attrs=f"dims = [{axis}]", sep=", ", in_avals=[mask_aval])
    picked = ctx.op("stablehlo.select", [where, widened(lo), widened(hi)], parts, sep=", ",
                    in_avals=[parts.update(dtype=dtypes.bool_), parts, parts])
    joined = aval.update(shape=shape[:axis] + (3 * shape[axis],) + shape[axis + 1:], dtype=dtypes.bfloat16)
    return ctx.op("stablehlo.reshape", [picked], joined, in_avals=[parts]), joined


def lower_product(ctx, emit, lhs: str, rhs: str, *, contracted=None) -> str:
    """Emit a float32 product at `ctx.matmul_precision`. `emit(lhs, rhs, in_avals)` emits one product of operands
    of those types into the equation's output type (float32 accumulation) and returns its name. `contracted`: a
    pair of axes, one of each operand, summed together, along which the product may take its operands
    concatenated (None: no such pair)."""
    a, b = ctx.avals_in
    precision = ctx.matmul_precision
    if precision == "float32" or not a.dtype.name == b.dtype.name == ctx.avals_out[0].dtype.name == "float32":
        return emit(lhs, rhs, [a, b])
    a16, b16 = a.update(dtype=dtypes.bfloat16), b.update(dtype=dtypes.bfloat16)
    if precision == "bfloat16":
        return emit(_convert(ctx, lhs, a, dtypes.bfloat16), _convert(ctx, rhs, b, dtypes.bfloat16), [a16, b16])
    if contracted is not None and ctx.target.backend in ONE_PRODUCT_TARGETS:
        # the three products as one, summed over the parts side by side: hi_x lo_y + lo_x hi_y + hi_x hi_y (the
        # small cross terms first), with the same float32 accumulation
        (lhs3, a3), (rhs3, b3) = (_side_by_side(ctx, lhs, a, contracted[0], lo_at=1),
                                  _side_by_side(ctx, rhs, b, contracted[1], lo_at=0))
        return emit(lhs3, rhs3, [a3, b3])
    (a_hi, a_lo), (b_hi, b_lo) = _split(ctx, lhs, a), _split(ctx, rhs, b)
    out = ctx.avals_out[0]
    # the small cross terms first, then the main product: fewer rounding errors in the float32 sum
    cross = ctx.op("stablehlo.add", [emit(a_hi, b_lo, [a16, b16]), emit(a_lo, b_hi, [a16, b16])], out,
                   in_avals=[out, out])
    return ctx.op("stablehlo.add", [cross, emit(a_hi, b_hi, [a16, b16])], out, in_avals=[out, out])
