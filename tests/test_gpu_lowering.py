"""The GPU rows of lowering/targets.py (lowering/iree_gpu.py and the forms it borrows), without a GPU: the programs
they lower cross-compile for cuda and rocm, the generic forms they replace still fail there (so an IREE upgrade that
lifts a limit shows which row may go), and the same text, compiled for llvm-cpu, gives eager's numbers."""
import pytest

from paddle_fn import runtime
from paddle_fn.lowering.emitter import Target
from paddle_fn.lowering.targets import GPU_TARGETS, OVERRIDES

from optable.iree_rows import compile_and_run_on_cpu, rows_module, rows_with_programs

pytest.importorskip("iree.compiler")

# the primitives whose GPU rows mend op-table rows
ROW_PRIMITIVES = ("fft", "pad", "polygamma", "lu", "triangular_solve")


def _compile(text, target):
    return runtime.compile_stablehlo(text, target=target, use_disk_cache=False)


def test_every_gpu_target_has_the_same_rows():
    rows = {target: sorted(name for name, t in OVERRIDES if t == target) for target in GPU_TARGETS}
    assert rows["cuda"] == sorted(ROW_PRIMITIVES)
    assert all(names == rows["cuda"] for names in rows.values()), rows


def _mended_rows():
    """The op-table cases (a row in one dtype) whose program holds a primitive of ROW_PRIMITIVES."""
    return [case for case in rows_with_programs() if any(e.prim.name in ROW_PRIMITIVES for e in case[1].eqns)]


# one case of each kind that failed for cuda and rocm with the generic forms (row name, its last argument's dtype)
FAILED_GENERIC = {("ifft_2d", "complex128"), ("rfft_3d", "float32"), ("fft_one_power_of_two", "complex128"),
                  ("pad_complex", "complex128"), ("polygamma", "float64"), ("lu_f32", "float32"),
                  ("triangular_solve_complex", "complex64")}


def _failed_generic():
    cases = [case for case in _mended_rows() if (case[0].name, str(case[2][-1].dtype)) in FAILED_GENERIC]
    assert len(cases) == len(FAILED_GENERIC)
    return cases


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_the_op_table_rows_of_the_gpu_rows_cross_compile(target):
    """FFTs, complex pads, float64 polygamma, lu and complex triangular solves, which failed for cuda and rocm."""
    assert _compile(rows_module(_failed_generic(), Target(target)), target).vmfb


def test_without_the_gpu_rows_they_still_fail_for_cuda():
    """The probe: each case lowered as for a backend with no rows of its own (vulkan-spirv: the rows for every
    target only) fails to compile for cuda with IREE 3.13; when one compiles, its GPU row may go."""
    for case in _failed_generic():
        with pytest.raises(runtime.CompileError):
            _compile(rows_module([case], Target("vulkan-spirv")), "cuda")


def test_the_op_table_rows_lowered_for_cuda_give_eager_numbers_on_the_cpu():
    failures = compile_and_run_on_cpu(_mended_rows(), Target("cuda"))
    assert not failures, "\n".join(failures)
