"""The float64 product tuning spec (runtime/tuning.py): the probe of IREE's default it answers, when it applies, the
compile cache key and the fallback without it."""
import glob
import hashlib
import os
import platform
import re

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.runtime import compiler, tuning

AVX512 = "--iree-llvmcpu-target-cpu=skylake-avx512"


def _product(m, n, k, dtype="f64", transpose_lhs=False):
    lhs = f"tensor<{k}x{m}x{dtype}>" if transpose_lhs else f"tensor<{m}x{k}x{dtype}>"
    rhs, out = f"tensor<{k}x{n}x{dtype}>", f"tensor<{m}x{n}x{dtype}>"
    contracting = 0 if transpose_lhs else 1
    return (f"module {{\n  func.func @main(%a: {lhs}, %b: {rhs}) -> {out} {{\n"
            f"    %r = stablehlo.dot_general %a, %b, contracting_dims = [{contracting}] x [0] : ({lhs}, {rhs}) -> {out}\n"
            f"    return %r : {out}\n  }}\n}}\n")


def _vector_tiles(text, tmp_path, *flags):
    """The `vector_common_parallel` tile IREE configures for the product in `text` with `flags`."""
    folder = tmp_path / f"configs{len(list(tmp_path.iterdir()))}"
    for attempt in range(3):  # iree-compile deadlocks now and then (runtime/compiler.py's STALL_SECONDS)
        try:
            compiler._run_compiler(text, "llvm-cpu", compiler.STANDARD_FLAGS + (
                AVX512, *flags, f"--iree-hal-dump-executable-configurations-to={folder}"))
            break
        except compiler._CompilerFailure as failure:
            if "no CPU time" not in str(failure) or attempt == 2:
                raise
    found = set()
    for path in glob.glob(os.path.join(folder, "configured_*dispatch*.mlir")):
        with open(path) as config:
            found.update(re.findall(r"linalg\.(?:batch_)?matmul.*?vector_common_parallel = \[([0-9, ]+)\]", config.read()))
    return found


def test_f64_matmul_tile_probe(tmp_path):
    """IREE 3.13 gives float64 products on AVX-512 a 4x4 register tile (the spec's reason; when this fails after an
    IREE upgrade, measure again whether the spec is still needed); the spec sets 8x16 where the result's shape is a
    multiple of it, in plain and transposed products, and leaves other shapes alone."""
    spec = tuning.llvm_cpu_flags(frozenset({"avx512f"}), _product(8, 16, 8))
    assert _vector_tiles(_product(1024, 64, 64), tmp_path) == {"4, 4, 0"}
    assert _vector_tiles(_product(1024, 64, 64), tmp_path, *spec) == {"8, 16, 0"}
    assert _vector_tiles(_product(64, 64, 1024, transpose_lhs=True), tmp_path, *spec) == {"8, 16, 0"}
    for other in (_product(100, 70, 90), _product(1000, 112, 100)):
        assert _vector_tiles(other, tmp_path, *spec) == _vector_tiles(other, tmp_path)
    assert _vector_tiles(_product(1024, 64, 64, "f32"), tmp_path, *spec) == set()  # float32: data-tiled microkernels


def test_spec_only_for_float64_products_on_avx512_hosts_and_keyed_by_content(tmp_path, monkeypatch):
    f64, f32 = _product(8, 16, 8), _product(8, 16, 8, "f32")
    assert tuning.llvm_cpu_flags(frozenset({"avx2", "fma"}), f64) == ()
    assert tuning.llvm_cpu_flags(frozenset({"avx512f"}), f32) == ()
    flag, single_thread = tuning.llvm_cpu_flags(frozenset({"avx2", "avx512f"}), f64)
    assert single_thread == "--mlir-disable-threading"  # the spec's lazy parse deadlocked parallel compiles
    assert flag.startswith(tuning.FLAG + "=") and os.path.isfile(flag.split("=", 1)[1])
    moved = tmp_path / "elsewhere.mlir"
    moved.write_text(tuning.F64_MATMUL_SPEC)
    same = compiler.cache_key("text", (flag,), "llvm-cpu")
    assert compiler.cache_key("text", (f"{tuning.FLAG}={moved}",), "llvm-cpu") == same
    moved.write_text(tuning.F64_MATMUL_SPEC.replace("8, 16, 0", "8, 32, 0"))
    assert compiler.cache_key("text", (f"{tuning.FLAG}={moved}",), "llvm-cpu") != same
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(compiler, "host_cpu_features", lambda: frozenset({"avx512f"}))
    assert flag in compiler.compile_stablehlo(f64).flags
    assert not any(f.startswith(tuning.FLAG) for f in compiler.compile_stablehlo(f32).flags)
    assert not any(f.startswith(tuning.FLAG) for f in compiler.compile_stablehlo(f64, target="cuda").flags)


def test_a_failed_compile_with_the_spec_retries_without_it():
    flags = compiler.STANDARD_FLAGS + tuning.llvm_cpu_flags(frozenset({"avx512f"}), _product(8, 16, 8))
    messages = []
    retry = compiler._fallback_flags("llvm-cpu", flags, "error: transform kernel config strategy failed", messages.append)
    assert retry == compiler.STANDARD_FLAGS and "tuning spec" in messages[0]
    assert compiler._fallback_flags("llvm-cpu", retry, "error: x", messages.append) == tuple(
        f for f in compiler.STANDARD_FLAGS if f != compiler.DATA_TILING_FLAG)


@pytest.mark.parametrize("shape", [(64, 64, 64), (64, 16, 1024), (40, 48, 8)])
def test_f64_products_with_the_tiles_agree_with_numpy(shape):
    m, n, k = shape
    rng = np.random.default_rng(m + n + k)
    a, b, batched = rng.normal(size=(m, k)), rng.normal(size=(k, n)), rng.normal(size=(3, m, k))
    got = paddle.jit(lambda x, y, z: (x @ y, x.T @ x, z @ y))(paddle.to_tensor(a), paddle.to_tensor(b),
                                                              paddle.to_tensor(batched))
    for g, want in zip(got, (a @ b, a.T @ a, batched @ b)):
        np.testing.assert_allclose(g.numpy(), want, rtol=1e-12, atol=1e-12 * k)


def test_code_for_a_named_cpu_gets_no_spec_and_runs_on_an_x86_host(monkeypatch, compile_for, tmp_path):
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    compile_for("x86-64-v3")  # AVX2 code, which this x86-64 host runs
    flags = compiler.resolve_flags("llvm-cpu")
    assert "--iree-llvmcpu-target-cpu=x86-64-v3" in flags and "--iree-llvmcpu-target-cpu=host" not in flags
    monkeypatch.setattr(compiler, "host_cpu_features", lambda: frozenset({"avx512f"}))
    assert not any(f.startswith(tuning.FLAG) for f in compiler.compile_stablehlo(_product(8, 16, 8)).flags)
    if platform.machine() in ("x86_64", "AMD64"):
        a = np.arange(12.0).reshape(3, 4)
        np.testing.assert_allclose(paddle.jit(lambda x: paddle.tanh(x @ x.T))(paddle.to_tensor(a)).numpy(),
                                   np.tanh(a @ a.T), rtol=1e-12)
    compile_for(None)
    assert compiler.resolve_flags("llvm-cpu") == compiler.STANDARD_FLAGS


def test_the_fallback_drops_only_our_spec_and_keeps_the_callers_flags(tmp_path):
    own_spec = f"{tuning.FLAG}={tmp_path / 'mine.mlir'}"
    assert tuning.without_spec((own_spec, tuning.SINGLE_THREAD_FLAG)) == (own_spec, tuning.SINGLE_THREAD_FLAG)
    ours = tuning.llvm_cpu_flags(frozenset({"avx512f"}), _product(8, 16, 8))
    assert tuning.without_spec(("--a", tuning.SINGLE_THREAD_FLAG) + ours) == ("--a", tuning.SINGLE_THREAD_FLAG)
    assert tuning.without_spec(("--a",) + ours) == ("--a",)


def test_a_callers_spec_is_keyed_by_content_without_writing_ours(tmp_path, monkeypatch):
    monkeypatch.setattr(tuning, "_spec_file", [])
    spec = tmp_path / "mine.mlir"
    spec.write_text("module {}")
    assert tuning.key_form(f"{tuning.FLAG}={spec}").endswith(hashlib.sha256(b"module {}").hexdigest())
    assert tuning._spec_file == []
