"""Forms for IREE's GPU backends (LLVMGPU code generation: cuda, and rocm, which shares it), where the generic
StableHLO fails to compile (IREE 3.13, cross-compiled for sm_80 and gfx942).

- **Sums of a negation.** IREE fuses the elementwise operations that compute a reduction's operand into the
  reduction, and a negation there folds into the combiner: sum(-x) becomes a reduction whose body is `acc - x`,
  which has no neutral element, and the GPU reduction pipeline, which pads the reduced axis with that element,
  fails at every shape ("failed to get neutral element for reduction"). The
  sum of a negation is the negation of the sum, with the same numbers (negation is exact and rounding symmetric),
  so the negation's operand is summed and the sum negated. Reverse mode makes such sums: a layer norm's backward
  pass sums the negated cotangent of `x - mean`.
- **Sums of a product by a factor constant along the summed axes** (`sum(x * 2.0, axis=1)`, `sum(0.5 * x**2)`, a
  factor of shape [n, 1]; a broadcast, or a constant whose elements are all one number): IREE makes the product and the sum one `vector.contract` whose operand is the broadcast
  factor, which it cannot distribute to threads ("'func.func' op failed to distribute"). The factor is taken out of
  the sum: sum(x * c) = sum(x) * c, with c read where its broadcast puts it (mathematically the same; the roundings
  differ as another order of the products and sums would, and not at all for a power of two; a sum that overflows
  before a small factor is applied gives inf where the generic form may not).
- **Sums of values widened to 64 bits in the same dispatch** (`paddle.sum(x, axis=1)` of int32 `x`, which Paddle
  sums into int64; a count of booleans as int64; float32 summed as float64): IREE fails to distribute the
  reduction of the converted elements ("'func.func' op failed to distribute"; reduced lengths of 64, 512 or 4096
  fail, 7, 33 or 100 compile; widening to 32 bits compiles at every length tried). The converted operand is
  computed into a buffer of its own first (an optimization barrier), which the sum then reads: exact, for one more
  pass over the operand.
- **Sorts with a result nobody reads.** A `stablehlo.sort` of 32 or more elements (64, 100, 1024 tried; 16, 17 and
  24 compile) one of whose results is unused fails to compile ("failed to bufferize op": an argsort reads only the
  positions, a sort of values only the values, of the keys and the position key lowering/iree_sort.py sorts). Every
  result of the sort passes through one optimization barrier, which reads them all; the results are the same.
- **FFTs.** IREE compiles `stablehlo.fft` only over one axis of a power-of-two length in single precision, as on
  the CPU; the CPU's forms (lowering/llvm_cpu_fft.py: IREE's own FFT there, matrix products on real planes, DFT
  products, four-step splits, Bluestein) are built from other primitives and serve the GPUs too.
- **Complex pads.** A complex128 `stablehlo.pad` fails ("'stream.async.splat' op operand #0 must be ... but got
  'i128'"); the parts are padded apart, as on the CPU (lowering/llvm_cpu_pad.py).
- **Random bits.** A dropout mask's random bits (the threefry cipher: a hundred integer operations per element)
  fused with the product whose result it masks into that product's dispatch fail to distribute ("'func.func' op
  failed to distribute": VGG's classifier, `Linear(25088, 4096)`, ReLU and dropout in a training step; 512 inputs
  compile). The bits are computed into buffers of their own (an optimization barrier), which the mask then reads.
- **Reversals.** The input gradient of a convolution convolves with the kernel reversed along its window axes;
  IREE fuses that reversal with its own change of the kernel's layout into one gather over the kernel's elements,
  whose index arithmetic (divisions by the axes' sizes, narrowed to 16 bits and vectorized) LLVM's NVPTX backend
  cannot select ("LLVM ERROR: Cannot select: ... v2i16 = umul_lohi": the 3x3 convolutions of 256 or more channels,
  ResNet-18's training step; 128 channels compile). A reversal is computed into a buffer of its own (an
  optimization barrier); the layout change is then a transpose dispatch, which compiles.
"""
from __future__ import annotations

from paddle_fn.lowering import iree_sort, llvm_cpu_fft, llvm_cpu_pad
from paddle_fn.lowering.emitter import tensor_type
from paddle_fn.lowering.staged import bind, generic_rule, inline, materialized, reshape, shape_of, slice_, stage


def lower_sum(ctx, x, *, axes):
    """reduce_sum, with the negation that computes `x` (if one does) applied to the sum instead, the factor of a
    product that computes it taken out of the sum where it is constant along `axes`, and a conversion that widens
    it to 64 bits computed apart."""
    made = ctx.producer(x)
    if made is not None and made.primitive == "neg":
        return ctx.op("stablehlo.negate", [lower_sum(ctx, made.operands[0], axes=axes)], in_avals=ctx.avals_out)
    if made is not None and made.primitive == "mul":
        for factor in (1, 0):
            if ctx.is_splat(made.operands[factor]) or _constant_along(ctx.producer(made.operands[factor]), axes):
                prog, consts = stage(lambda v, c: [_sum_times(v, c, axes)],
                                     [made.avals_in[1 - factor], made.avals_in[factor]])
                return inline(ctx, prog, consts, [made.operands[1 - factor], made.operands[factor]])[0]
    if made is not None and made.primitive == "convert_element_type" and _widens_to_64_bits(made.avals_in[0],
                                                                                            ctx.avals_in[0]):
        x = materialized(ctx, x, ctx.avals_in[0])
    return generic_rule("reduce_sum")(ctx, x, axes=axes)


def _widens_to_64_bits(source, result) -> bool:
    """Whether converting elements of type `source` to `result` (real types) widens them to 64 bits."""
    return result.dtype.kind in "iuf" and result.dtype.np.itemsize == 8 > source.dtype.np.itemsize


def _constant_along(made, axes) -> bool:
    """Whether the value computed as `made` (a Produced, or None) is a broadcast constant along `axes`: none of
    them comes from an axis of the broadcast's operand longer than one."""
    if made is None or made.primitive != "broadcast_in_dim":
        return False
    dims, operand_shape = made.params["broadcast_dimensions"], made.avals_in[0].shape
    return all(a not in dims or operand_shape[dims.index(a)] == 1 for a in axes)


def _sum_times(v, factor, axes):
    """sum(v * factor) over `axes` as sum(v) * factor, `factor` being constant along them."""
    shape = shape_of(factor)
    first = slice_(factor, (0,) * len(shape), tuple(1 if a in axes else n for a, n in enumerate(shape)))
    total = bind("reduce_sum", v, axes=tuple(axes))
    return bind("mul", total, reshape(first, shape_of(total)))


def lower_sort(ctx, *operands, dimension, is_stable, num_keys):
    """The sort of every target (lowering/iree_sort.py) with every result of its stablehlo.sort kept."""
    return iree_sort.lower_sort(ctx, *operands, dimension=dimension, is_stable=is_stable, num_keys=num_keys,
                                sort=_sort_keeping_every_result)


def _sort_keeping_every_result(ctx, *operands, **params):
    """The primitive's stablehlo.sort, its results read by one optimization barrier."""
    outs = generic_rule("sort")(ctx, *operands, **params)
    return outs if len(outs) == 1 else _behind_one_barrier(ctx, outs)


def _behind_one_barrier(ctx, outs: list) -> list:
    """The equation's results `outs` passed through one optimization barrier."""
    kept = ctx.fresh()
    ctx.line(f"{kept}:{len(outs)} = stablehlo.optimization_barrier {', '.join(outs)} : "
             f"{', '.join(tensor_type(a) for a in ctx.avals_out)}")
    return [f"{kept}#{i}" for i in range(len(outs))]


def lower_threefry(ctx, k1, k2, x1, x2):
    """The primitive's random bits, computed into buffers of their own (see the module docstring)."""
    return _behind_one_barrier(ctx, generic_rule("threefry2x32")(ctx, k1, k2, x1, x2))


def lower_fft(ctx, x, *, fft_type, fft_length):
    """The FFT in the CPU's forms, which are target-independent (see the module docstring)."""
    return llvm_cpu_fft.lower_fft(ctx, x, fft_type=fft_type, fft_length=fft_length)


def lower_pad(ctx, x, padding_value, *, padding_config):
    """A complex pad as the pads of its parts; every other pad by the generic rule."""
    return llvm_cpu_pad.lower_pad(ctx, x, padding_value, padding_config=padding_config)


def lower_rev(ctx, x, *, dimensions):
    """The primitive's stablehlo.reverse, computed into a buffer of its own (see the module docstring)."""
    reversed_ = generic_rule("rev")(ctx, x, dimensions=dimensions)
    return ctx.apply(generic_rule("optimization_barrier"), [reversed_], ctx.avals_out, ctx.avals_out)
