"""The CPU llvm-cpu code is compiled for, as the lowering sees it: its features choose the forms of
lowering/targets.py's overrides (the convolutions' in tests/test_conv_lowering.py), and code for one CPU never
shares a cache entry with code for another."""
import os
import platform

import numpy as np
import pytest

import paddle_fn as pf
import paddle_fn.nn.functional as F
from paddle_fn.lowering import Target
from paddle_fn import runtime
from paddle_fn.runtime import compiler, executable
from paddle_fn.transforms.jit import lowering_target

X86 = platform.machine() in ("x86_64", "AMD64")


@pytest.mark.skipif(not X86, reason="x86-64 CPU names")
def test_a_named_cpu_has_the_features_llvm_gives_it():
    avx2, avx512 = compiler.cpu_features("x86-64-v3"), compiler.cpu_features("x86-64-v4")
    assert {"avx2", "fma"} <= avx2 and "avx512f" not in avx2
    assert {"avx2", "avx512f"} <= avx512
    assert compiler.cpu_features("host") == compiler.host_cpu_features()


def test_an_unknown_cpu_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"'no-such-cpu' \(\$PADDLE_FN_CPU_TARGET.*x86-64-v3"):
        compiler.cpu_features("no-such-cpu")


def test_the_variable_is_read_at_import_and_again_by_reload(compile_for):
    before = compiler.cpu_target()
    other = "x86-64-v2" if before != "x86-64-v2" else "x86-64-v3"
    os.environ[compiler.CPU_TARGET_ENV] = other  # compile_for restores it
    assert compiler.cpu_target() == before  # not read on every call: jit's cache key asks for it on every call
    assert compiler.reload_cpu_target() == other == compiler.cpu_target() == runtime.cpu_target()
    compile_for("  ")
    assert compiler.cpu_target() == "host"


def test_the_lowering_target_is_the_cpu_the_code_is_compiled_for(compile_for):
    compile_for(None)
    # jit's CPU programs run in this process, so they may call host kernels (lowering/host_calls.py)
    assert lowering_target("llvm-cpu") == Target("llvm-cpu", "host", compiler.host_cpu_features(), True)
    assert lowering_target("llvm-cpu", host_kernels=False).host_kernels is False
    assert lowering_target("cuda") == Target("cuda")
    compile_for("x86-64-v3")
    assert compiler.compiled_cpu() == "x86-64-v3"
    assert compiler.compiled_cpu(("--iree-llvmcpu-target-cpu=x86-64-v4",)) == "x86-64-v4"  # the flags win
    target = lowering_target("llvm-cpu")
    assert target.cpu == "x86-64-v3" and target.cpu_features == compiler.cpu_features("x86-64-v3")


@pytest.mark.skipif(not X86, reason="x86-64 CPU names")
def test_the_convolution_form_follows_the_cpu_compiled_for(compile_for):
    """One 3x3 convolution with 16 features: the direct kernel (behind its filter barrier) in code for AVX-512,
    one im2col product in code for AVX2, whichever way the CPU is named."""
    lowered = pf.jit(lambda x, w: F.conv2d(x, w, padding=1)).lower(pf.ones([2, 16, 8, 8]), pf.ones([16, 16, 3, 3]))
    assert "stablehlo.convolution" in lowered.as_text("llvm-cpu", ("--iree-llvmcpu-target-cpu=x86-64-v4",))
    assert "stablehlo.convolution" not in lowered.as_text("llvm-cpu", ("--iree-llvmcpu-target-cpu=x86-64-v3",))
    compile_for("x86-64-v3")
    assert "stablehlo.convolution" not in lowered.as_text()
    compile_for("x86-64-v4")
    assert "stablehlo.convolution" in lowered.as_text()


@pytest.mark.skipif(not X86, reason="code for x86-64-v3 runs on x86-64 hosts")
def test_code_for_avx2_and_for_the_host_never_share_an_executable(monkeypatch, compile_for, tmp_path):
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    compiled_for = []
    real = executable.compile_stablehlo

    def recording(text, **options):
        compiled_for.append(compiler.compiled_cpu())
        return real(text, **options)

    monkeypatch.setattr(executable, "compile_stablehlo", recording)
    x = pf.to_tensor(np.arange(4.0, dtype=np.float32))
    lowered = pf.jit(lambda x: x * 3.0 + 1.0).lower(x)
    for cpu in ("x86-64-v3", "host", "x86-64-v3", "host"):
        compile_for(cpu)
        np.testing.assert_allclose(lowered.compile()(x).numpy(), np.arange(4.0) * 3 + 1)
    assert compiled_for == ["x86-64-v3", "host"]  # once each, then each CPU's own executable
    text = lowered.as_text()
    keys = set()
    for cpu in ("x86-64-v3", "host"):
        compile_for(cpu)
        keys.add(compiler.compile_stablehlo(text).key)
    assert len(keys) == 2  # the disk cache keeps them apart too
