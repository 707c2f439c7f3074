"""Per-target lowering overrides: the one table of the places where a primitive lowers differently for one IREE
backend than its own (generic StableHLO) rule says.

A primitive's block holds its generic lowering: what the primitive is, in StableHLO's terms. An override exists only
because one backend of one IREE version (or IREE on every backend: EVERY_TARGET) compiles the generic form badly
(slowly, inaccurately, or not at all); each row names the target, the IREE version it was measured with, and the
benchmark, test or probe that shows the difference, so that it can be measured again, and deleted, when IREE
changes. `FuncLowering` looks a primitive up here by the backend of the target it lowers for
(`lower_program(..., target=...)`; jit uses the device's, `Lowered.cross_compile` the one it is given), and the
target is part of every compile-cache key through the text it produces.

Rows are keyed by IREE's backend names (emitter.DEFAULT_TARGET is llvm-cpu); the GPU backends that share IREE's
LLVMGPU code generation (GPU_TARGETS) get the same rows. Where the best form also depends on the
CPU the code is compiled for, the rule reads it from `ctx.target` (an emitter.Target: the backend, the CPU's name
and its feature names), as the convolution rule does, so one row serves every CPU.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from paddle_fn.lowering import (f64_math, host_calls, iree_gpu, iree_linalg, iree_scatter, iree_sort, llvm_cpu_argmax,
                               llvm_cpu_bool, llvm_cpu_conv, llvm_cpu_fft, llvm_cpu_pad, llvm_cpu_scan, llvm_cpu_sum,
                               llvm_cpu_trig)
from paddle_fn.core.primitive import get_primitive
from paddle_fn.lowering.emitter import GPU_TARGETS, on_signed_view
from paddle_fn.lowering.staged import generic_rule


# The target of the rows that hold for every IREE backend: IREE's own limits, met in its input conversion or
# dispatch formation before any backend (each row says which backends it was probed on). A target's own row for the
# same primitive comes first.
EVERY_TARGET = "every IREE target"

# The work (element operations: a primitive's `cost`, or n^3 per matrix) from which a host call
# (lowering/host_calls.py, 30-60 us of overhead) beats IREE's code built from other operations; measured with
# benchmarks/bench_host_kernels.py (2026-11-27, AMD EPYC, 2 cores): FFTs of 8 x 1024 points ran 1.5x faster compiled,
# of 8 x 4096 2.6x faster on the host; sorting 8 lines of 16 floats 1.9x faster compiled, of 64 floats 3.3x faster
# on the host; eig and eigh on the host at every size (1,000 eigh of 8 x 8 too: 3x); one cholesky, qr or lu of
# 8 x 8 2-2.8x faster compiled, of 16 x 16 1.6-1.9x faster on the host; but 1,000 of them vectorize compiled: lu and
# qr of 16 x 16 1.8x and 3.4x, triangular solves 10x, svd of 8 x 8 3.3x faster compiled, cholesky (a batched
# numpy call) 3.5x slower
HOST_FFT_WORK, HOST_SORT_WORK = 1 << 20, 1 << 11
HOST_DECOMPOSITION_WORK = {"eig": 1, "eigh": 1, "cholesky": 1 << 12, "svd": 1 << 12, "qr": 1 << 15, "lu": 1 << 15,
                           "triangular_solve": 1 << 15}


@dataclass(frozen=True)
class Override:
    """`rule` lowers primitive `primitive` (by name) for `target` (or EVERY_TARGET), with a lowering rule's
    signature ``rule(ctx, *operand_names, **params)``; it may fall back to the primitive's own rule."""
    primitive: str
    target: str
    rule: Callable
    iree: str
    evidence: str
    why: str


def _own_rule_on_signed_view(name):
    """The primitive's own rule applied through the signed view of unsigned operands; the rule is looked up when
    it lowers, since this table is built before the primitives register."""
    return on_signed_view(lambda ctx, *operands, **params: generic_rule(name)(ctx, *operands, **params))


def _rule_on_every_target(name):
    """The rule of primitive `name` for every target (its EVERY_TARGET row, else its own), looked up when it
    lowers."""
    return lambda ctx, *operands, **params: lowering_rule(get_primitive(name), EVERY_TARGET)(ctx, *operands, **params)


OVERRIDES = {(o.primitive, o.target): o for o in (
    Override("conv_general_dilated", "llvm-cpu", llvm_cpu_conv.lower_conv, iree="3.13",
             evidence="benchmarks/bench_conv.py (each form against the generic lowering; --cpu x86-64-v3 --forms "
                      "im2col,tap_dots,filter_barrier for AVX2 code); "
                      "tests/test_conv_lowering.py (every form against the eager convolution)",
             why="IREE's CPU convolutions are fast only with the filter in memory as (spatial..., in, out); the "
                 "generic form runs 20-100x slower; without AVX-512 even the fast form runs at a fifth of the "
                 "speed of matrix products, which those CPUs get instead (see lowering/llvm_cpu_conv.py)"),
    Override("reduce_sum", "llvm-cpu", llvm_cpu_sum.lower_sum, iree="3.13",
             evidence="tests/test_lowering.py::test_large_float32_sums_are_as_accurate_as_numpy, "
                      "::test_sums_over_leading_axes_are_products_with_ones",
             why="IREE's CPU sums add each vector lane's elements one after the other: a float32 mean of 2^20 "
                 "elements was off by up to 5e-4 relative; summing in stages of 128 keeps numpy's level. A float "
                 "sum over leading axes (a bias gradient's) runs 2-3x faster as a product with ones"),
    Override("fft", "llvm-cpu", host_calls.lower_on_host("fft", llvm_cpu_fft.lower_fft, min_work=HOST_FFT_WORK),
             iree="3.13",
             evidence="tests/test_iree_probes.py::test_generic_fft_still_needs_the_llvm_cpu_override; "
                      "tests/test_fft.py (every form against scipy.fft, eagerly and under jit); "
                      "tests/test_host_kernels.py; benchmarks/bench_fft.py (the forms' speed)",
             why="IREE compiles stablehlo.fft on the CPU only over one axis of a power-of-two length in single "
                 "precision (other lengths, several axes and complex128 fail to compile), and runs many transforms "
                 "slowly: a large FFT calls ducc's (lowering/host_calls.py), as XLA does; smaller ones, "
                 "and programs without host kernels, become matrix products on real planes, or one-axis FFTs, DFT "
                 "products, four-step splits and Bluestein's algorithm (see lowering/llvm_cpu_fft.py)"),
    Override("sort", "llvm-cpu", host_calls.lower_on_host("sort", _rule_on_every_target("sort"),
                                                          min_work=HOST_SORT_WORK, work=host_calls.sort_work),
             iree="3.13",
             evidence="benchmarks/bench_host_kernels.py (sort); tests/test_host_kernels.py",
             why="IREE's CPU sort runs one line on one thread in quadratic time (4,096 floats: 450 ms, numpy 0.3 "
                 "ms) and its stack allocation fails to compile 65,536 (\"exceeded stack allocation limit\"): a "
                 "sort from HOST_SORT_WORK on calls numpy's (lowering/host_calls.py); below, and without host "
                 "kernels, the rule for every target (lowering/iree_sort.py)"),
    Override("argmax", "llvm-cpu", llvm_cpu_argmax.lower_arg_reduce("argmax", "reduce_max"), iree="3.13",
             evidence="tests/test_lowering.py::test_argmax_and_argmin_take_the_first_extremum_nan_first",
             why="IREE's CPU reduction over (value, position) pairs is a scalar loop (argmax of 2^20 float32: 13 "
                 "ms, the max alone 0.5 ms); the extremum, then the least position holding it, are two reductions "
                 "that vectorize (see lowering/llvm_cpu_argmax.py)"),
    Override("argmin", "llvm-cpu", llvm_cpu_argmax.lower_arg_reduce("argmin", "reduce_min"), iree="3.13",
             evidence="tests/test_lowering.py::test_argmax_and_argmin_take_the_first_extremum_nan_first",
             why="as argmax (see lowering/llvm_cpu_argmax.py)"),
    Override("convert_element_type", "llvm-cpu", llvm_cpu_bool.lower_convert, iree="3.13",
             evidence="tests/test_iree_probes.py::test_products_of_converted_bools_still_fail_with_data_tiling",
             why="IREE fuses a bool-to-number conversion into the product it feeds and, with data tiling, fails to "
                 "pack the operand as i1; a one-hot or permutation matrix product compiled only without data "
                 "tiling, so bools become numbers by a select (see lowering/llvm_cpu_bool.py)"),
    Override("pad", "llvm-cpu", llvm_cpu_pad.lower_pad, iree="3.13",
             evidence="tests/test_fft.py::test_jit_pads_complex_signals",
             why="IREE crashes on a stablehlo.pad of complex elements (complex64 and complex128); the parts are "
                 "padded apart (see lowering/llvm_cpu_pad.py)"),
    Override("sort", EVERY_TARGET, iree_sort.lower_sort, iree="3.13",
             evidence="tests/test_iree_probes.py::test_generic_sort_still_needs_the_override (llvm-cpu, and cuda "
                      "cross-compiled)",
             why="IREE sorts in place: it fails to compile a sort holding one buffer twice or an operand computed in "
                 "the sort's dispatch (argsort's iota), and its CPU sort ignores is_stable; the distinct keys are "
                 "sorted with a position key and the other operands gathered (see lowering/iree_sort.py)"),
) + tuple(
    Override(name, EVERY_TARGET, iree_scatter.lower_scatter(name), iree="3.13",
             evidence="tests/test_iree_probes.py::test_generic_scatter_still_needs_the_override (llvm-cpu, and "
                      "cuda cross-compiled)",
             why="IREE compiles only a simple form of " + name + " (indices naming the leading operand axes, one "
                 "element each); every other is rewritten into it, its computed indices and updates materialized "
                 "first for the GPU backends and, from 1,024 index rows, for llvm-cpu (see lowering/iree_scatter.py)")
    for name in ("scatter", "scatter_add")) + tuple(
    Override(name, EVERY_TARGET, iree_linalg.lower_by_own_expansion(name), iree="3.13",
             evidence="tests/test_iree_probes.py::test_generic_decompositions_still_need_their_expansion (llvm-cpu, "
                      "and cuda cross-compiled)",
             why="IREE rejects stablehlo." + name + " (\"failed to legalize operation ... explicitly marked "
                 "illegal\"), real and complex; the primitive's expansion is lowered instead (see "
                 "lowering/iree_linalg.py)")
    for name in iree_linalg.EXPANDED) + tuple(
    Override(name, "llvm-cpu", host_calls.lower_on_host(
                 name, iree_linalg.lower_as_batch_of_one(name, _rule_on_every_target(name)),
                 min_work=HOST_DECOMPOSITION_WORK[name], work=host_calls.matrix_work), iree="3.13",
             evidence="tests/test_iree_probes.py::test_unbatched_decompositions_still_fail_on_the_cpu; "
                      "tests/test_host_kernels.py; benchmarks/bench_linalg.py",
             why="IREE has no dense decomposition of its own: those built from other operations run 10-300x "
                 "slower than LAPACK, so a large one calls LAPACK (lowering/host_calls.py), as XLA does. The others, "
                 "and programs without host kernels, keep the expansion, which fails by shape on one unbatched "
                 "matrix (a 17x17 float32 SVD fails to run, \"indirect buffer reference slot 0 is out range\"; a "
                 "16x16 LU fails to compile) and runs over a batch of one, as fast (see lowering/iree_linalg.py)")
    for name in iree_linalg.DECOMPOSITIONS) + (
    Override("sparse_dense_dot", "llvm-cpu", iree_linalg.lower_by_own_expansion("sparse_dense_dot"), iree="3.13",
             evidence="benchmarks/bench_sparse.py (the scatter-add form against the ELLPACK one); "
                      "tests/test_sparse.py::test_the_cpu_lowering_scans_an_ellpack_table_where_rows_are_bounded",
             why="IREE's CPU backend compiles a scatter-add into a serial loop over the entries; with the entries "
                 "sorted by row and a bound on any row's count, the expansion scans an ELLPACK table instead, one "
                 "fused gather and multiply-add per slot (see paddle_fn/prims/sparse.py)"),
    Override("scan", "llvm-cpu", llvm_cpu_scan.lower_scan, iree="3.13",
             evidence="benchmarks/bench_models.py (recurrence); tests/test_control_flow.py (scans under jit)",
             why="IREE copies every carried buffer each loop iteration (no in-place update): a scan under reverse "
                 "mode copied its residual stacks per step (an LSTM step 65 ms for 13 ms of work); 8 steps per "
                 "iteration copy an eighth as often"),
) + tuple(
    Override(name, "llvm-cpu", llvm_cpu_trig.lower_trig(name), iree="3.13",
             evidence="tests/test_lowering.py::test_float32_sin_and_cos_reduce_large_arguments; "
                      "tests/test_f64_lowering.py (float64, which keeps its expansion)",
             why="IREE's CPU " + name + " reduces by a float32 multiple of pi/2: the error grows as 2.8e-8 |x| "
                 "(sin(1e10) gave -6e21); float32 arguments are reduced in float64 first (see "
                 "lowering/llvm_cpu_trig.py); float64 " + name + " uses its expansion, as the rows below")
    for name in ("sin", "cos")) + (
    Override("tan", "llvm-cpu", llvm_cpu_trig.lower_tan, iree="3.13",
             evidence="tests/test_lowering.py::test_float32_sin_is_relatively_accurate_for_small_and_negative_"
                      "arguments; tests/test_f64_lowering.py (float64, which keeps its expansion)",
             why="IREE's CPU float32 tan is wrong on (-0.134, 0) (tan(-1e-10) gave 6.2e-8): it is applied to |x| "
                 "and given x's sign; float64 tan uses its expansion"),
) + tuple(
    Override(name, "llvm-cpu", f64_math.lower_float64_by_expansion(name), iree="3.13",
             evidence="tests/test_f64_lowering.py (every expansion against numpy/scipy, ulps)",
             why="float64 " + name + ": IREE's CPU code calls libm functions its embedded linker cannot resolve, or "
                 "loses accuracy (expm1, log1p, sinh near 0, sinh and cosh towards overflow)" + (
                     "; float32 atan2 gives nan for 0/0 and inf/inf and +pi for -0 over a negative x"
                     if name == "atan2" else ""))
    for name in f64_math.F64_EXPANSIONS if name not in ("sin", "cos", "tan")) + tuple(
    Override(name, "llvm-cpu", _own_rule_on_signed_view(name), iree="3.13",
             evidence="tests/test_jit.py::test_jit_matches_eager_on_bool_unsigned_and_complex_values",
             why="IREE's CPU backend fails to compile " + name + " of uint8/uint32 elements; the result bits do not "
                 "depend on signedness, so the signed integers of the same width are used (bitcast in and out)")
    for name in ("rev", "cumsum", "cumprod")) + tuple(
    row for target in GPU_TARGETS for row in (
        Override("reduce_sum", target, iree_gpu.lower_sum, iree="3.13",
                 evidence="tests/test_gpu_lowering.py::test_the_sums_of_the_gpu_row_compile_for_the_gpus (the "
                          "probe: the generic forms still fail for cuda)",
                 why="IREE folds a negation fused into a sum into the combiner (acc - x), which has no neutral "
                     "element (\"failed to get neutral element for reduction\" at every shape: a layer norm's "
                     "backward pass), and makes a sum of a product by a factor constant along the summed axes "
                     "(sum(x * 2.0, axis=1)) a contraction it cannot distribute (\"failed to distribute\"), as "
                     "a sum of values widened to 64 bits in its dispatch: the negation and the factor are applied "
                     "to the sum, the widened values computed apart (see lowering/iree_gpu.py)"),
        Override("sort", target, iree_gpu.lower_sort, iree="3.13",
                 evidence="tests/test_gpu_lowering.py::test_sorts_compile_for_the_gpus (the probe: the form for "
                          "every target still fails for cuda)",
                 why="a stablehlo.sort of 32 or more elements with a result nobody reads (an argsort's values, a "
                     "sort's positions) fails to compile (\"failed to bufferize op\"); every result passes "
                     "through one optimization barrier (see lowering/iree_gpu.py)"),
        Override("fft", target, iree_gpu.lower_fft, iree="3.13",
                 evidence="tests/test_gpu_lowering.py (the op-table rows cross-compiled, and run on llvm-cpu)",
                 why="stablehlo.fft compiles only over one power-of-two axis in single precision (\"failed to "
                     "legalize operation 'stablehlo.fft'\"; complex128: \"'arith.mulf' op requires the same type\"); "
                     "the CPU's forms, built from other primitives, are used (see lowering/iree_gpu.py)"),
        Override("pad", target, iree_gpu.lower_pad, iree="3.13",
                 evidence="tests/test_gpu_lowering.py (the op-table rows cross-compiled, and run on llvm-cpu)",
                 why="a complex128 pad fails (\"'stream.async.splat' op operand #0 must be ... integer, but got "
                     "'i128'\"); the parts are padded apart (see lowering/iree_gpu.py)"),
        Override("rev", target, iree_gpu.lower_rev, iree="3.13",
                 evidence="tests/test_gpu_lowering.py::test_reversed_kernels_compile_for_the_gpus (the probe: "
                          "the generic form still fails for cuda)",
                 why="IREE fuses a convolution kernel's reversal (a convolution's input gradient) with its own "
                     "change of the kernel's layout into a gather whose index arithmetic NVPTX cannot select "
                     "(\"LLVM ERROR: Cannot select: ... umul_lohi\", 3x3 kernels of 256 channels or more); the "
                     "reversal is computed into a buffer of its own (see lowering/iree_gpu.py)"),
        Override("threefry2x32", target, iree_gpu.lower_threefry, iree="3.13",
                 evidence="tests/test_gpu_lowering.py::test_random_bits_beside_a_product_compile_for_the_gpus (the "
                          "probe: the generic form still fails for cuda)",
                 why="a dropout mask's random bits fused into the dispatch of the product they mask fail to "
                     "distribute (\"'func.func' op failed to distribute\": VGG's classifier in a training step); "
                     "the bits are computed into buffers of their own (see lowering/iree_gpu.py)"),
        Override("polygamma", target, f64_math.lower_float64_by_expansion("polygamma"), iree="3.13",
                 evidence="tests/test_gpu_lowering.py (the op-table rows cross-compiled, and run on llvm-cpu); "
                          "tests/test_f64_lowering.py (the expansion's accuracy)",
                 why="float64 polygamma's CHLO expansion fails to link (\"undefined symbol: sin\"); the float64 "
                     "expansion of lowering/f64_math.py is used")) + tuple(
        Override(name, target, iree_linalg.lower_as_batch_of_one(name, _rule_on_every_target(name)), iree="3.13",
                 evidence="tests/test_gpu_lowering.py (the op-table rows cross-compiled, and run on llvm-cpu)",
                 why="the expansion of one unbatched " + name + " (real lu, complex triangular solves) fails to "
                     "compile (\"LLVM Translation failed for operation: builtin.unrealized_conversion_cast\"); over "
                     "a batch of one it compiles, as on the CPU (see lowering/iree_linalg.py)")
        for name in ("lu", "triangular_solve")))}


def lowering_rule(prim, backend: str):
    """The rule that lowers `prim` for the IREE backend `backend`: its override there, else its own."""
    override = OVERRIDES.get((prim.name, backend)) or OVERRIDES.get((prim.name, EVERY_TARGET))
    return prim.lower if override is None else override.rule
