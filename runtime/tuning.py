"""Tuning specs: IREE transform-dialect libraries that choose the CPU code of chosen operations.

IREE 3.13's llvm-cpu backend data-tiles float32 products onto its microkernels, but float64 products have no
microkernel: they take the generic `DoubleTilingExpert` pipeline, whose heuristic gives an AVX-512 target a 4x4
register tile. `F64_MATMUL_SPEC` sets an 8x16 tile, reduction step 1, for float64 `linalg.matmul` and
`linalg.batch_matmul` whose result has rows in multiples of 64 (a workgroup's share) and columns in multiples of
16 (2-6x faster on a 2-core AVX-512 host, benchmarks/README.md). Other shapes keep IREE's choice (the tile made
100x70x90 and 1000x112x100 products up to 3x slower), as do AVX2 targets (the tile was no faster there). `tests/test_tuning.py` probes IREE's default and the spec's effect.

The spec is written to a private temporary folder once per process: IREE reads it from a file, and a file in a
shared or persistent place could be replaced by someone else between our check and IREE's read.
"""
from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile

FLAG = "--iree-codegen-tuning-spec-path"
# IREE parses the spec lazily, under a lock, from the threads that configure executables in parallel; compiles
# with the spec deadlocked about once per test-suite run (every thread waiting on a futex), never without it.
# One thread compiled the float64 Hessian class's module as fast on this 2-core host (1.6-1.9 s either way).
SINGLE_THREAD_FLAG = "--mlir-disable-threading"


def _f64_product_matcher(name: str, op: str, rows_axis: int, loops: int) -> str:
    """A matcher sequence for float64 `op` whose result's axes `rows_axis`, `rows_axis + 1` are multiples of 64
    (the rows one workgroup takes) and 16, yielding the 8x16 register-tile configuration."""
    zeros = [0] * (loops - 3)
    distribution = ", ".join(map(str, [1] * len(zeros) + [64, 64, 0]))
    parallel = ", ".join(map(str, [1] * len(zeros) + [8, 16, 0]))
    reduction = ", ".join(map(str, zeros + [0, 0, 1]))
    return f"""
transform.named_sequence @{name}(%product: !transform.any_op {{transform.readonly}})
    -> (!transform.any_op, !transform.any_param) {{
  transform.match.operation_name %product ["{op}"] : !transform.any_op
  %batch, %m, %n, %k = transform.iree.match.contraction %product, lhs_type = f64, rhs_type = f64,
      output_type = f64 : !transform.any_op -> !transform.param<i64>
  %result = transform.match.structured failures(propagate) %product : (!transform.any_op) -> !transform.any_value {{
  ^bb0(%structured: !transform.any_op):
    %value = transform.match.structured.result %structured[0] : (!transform.any_op) -> !transform.any_value
    transform.match.structured.yield %value : !transform.any_value
  }}
  transform.iree.match.dim_is_multiple_of %result[{rows_axis}], 64 : !transform.any_value
  transform.iree.match.dim_is_multiple_of %result[{rows_axis + 1}], 16 : !transform.any_value
  %config = transform.param.constant #iree_codegen.compilation_info<
    lowering_config = #iree_cpu.lowering_config<distribution = [{distribution}],
                                                vector_common_parallel = [{parallel}],
                                                vector_reduction = [{reduction}]>,
    translation_info = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<DoubleTilingExpert>>
  > -> !transform.any_param
  transform.yield %product, %config : !transform.any_op, !transform.any_param
}}
"""


F64_MATMUL_SPEC = f"""module @paddle_fn_f64_matmul attributes {{ transform.with_named_sequence }} {{
transform.named_sequence @apply_op_config(%op: !transform.any_op {{transform.readonly}},
                                          %config: !transform.any_param {{transform.readonly}}) {{
  transform.annotate %op "compilation_info" = %config : !transform.any_op, !transform.any_param
  transform.yield
}}
{_f64_product_matcher("match_f64_matmul", "linalg.matmul", 0, 3)}
{_f64_product_matcher("match_f64_batch_matmul", "linalg.batch_matmul", 1, 4)}
transform.named_sequence @main(%variant: !transform.any_op {{transform.consumed}}) -> (!transform.any_op)
    attributes {{ iree_codegen.tuning_spec_entrypoint }} {{
  %result = transform.foreach_match in %variant
      @match_f64_matmul -> @apply_op_config,
      @match_f64_batch_matmul -> @apply_op_config
      : (!transform.any_op) -> !transform.any_op
  transform.yield %result : !transform.any_op
}}
}}
"""



_SPEC_KEY = f"{FLAG}=sha256:{hashlib.sha256(F64_MATMUL_SPEC.encode()).hexdigest()}"


_spec_file: list = []  # the path this process wrote the spec to, once it has


def _spec_path() -> str:
    if not _spec_file:
        folder = tempfile.mkdtemp(prefix="paddle_fn_tuning_")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = os.path.join(folder, "f64_matmul.mlir")
        with open(path, "w", encoding="utf-8") as spec:
            spec.write(F64_MATMUL_SPEC)
        _spec_file.append(path)
    return _spec_file[0]


def llvm_cpu_flags(cpu_features: frozenset, text: str) -> tuple:
    """The tuning flags for the StableHLO module `text` on an llvm-cpu target with these CPU feature names (as
    /proc/cpuinfo spells them): only a module with float64 products gets the spec, so every other keeps its
    compile-cache key and is never compiled a second time without the spec after a failure."""
    if "avx512f" not in cpu_features or "stablehlo.dot_general" not in text or "f64>" not in text:
        return ()
    return (f"{FLAG}={_spec_path()}", SINGLE_THREAD_FLAG)


def without_spec(flags: tuple) -> tuple:
    """`flags` less our spec and the single-thread flag that came with it (what a compile that failed with them
    retries); a spec or a single-thread flag of the caller's own stays."""
    ours = f"{FLAG}={_spec_file[0]}" if _spec_file else None
    if ours not in flags:
        return flags
    kept = [flag for flag in flags if flag != ours]
    last_single_thread = len(kept) - 1 - kept[::-1].index(SINGLE_THREAD_FLAG)  # appended after ours
    return tuple(kept[:last_single_thread] + kept[last_single_thread + 1:])


def key_form(flag: str) -> str:
    """`flag` as the compile cache key sees it: a tuning spec by its content, not by its (per-process) path."""
    if not flag.startswith(FLAG + "="):
        return flag
    if _spec_file and flag == f"{FLAG}={_spec_file[0]}":  # ours, written by this process: no file read per lookup
        return _SPEC_KEY
    try:
        with open(flag.split("=", 1)[1], "rb") as spec:
            return f"{FLAG}=sha256:{hashlib.sha256(spec.read()).hexdigest()}"
    except OSError:
        return flag  # IREE will report the missing file
