"""The GPU check's preparation, checked without a GPU (docs/gpu.md): a cache filled with a stand-in CUDA device serves
a process that has no IREE compiler and another CPU, after `gpu_check.install_cache` copied it the way the GPU
run does; CUDA cache keys do not name the host CPU; tests/test_gpu.py is skipped here, saying why."""
import importlib.metadata
import json
import math
import os
import pathlib
import stat
import subprocess
import sys

from paddle_fn.runtime import compiler, disk_cache

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import gpu_check  # noqa: E402
from gpu_check import install_cache  # noqa: E402

# one tiny program on the CUDA device, in a process of its own; argv[1] == "absent": as on the GPU machine, without
# the compiler (its package metadata and its module) and on another CPU
PROGRAM = """
import importlib.metadata, sys
import numpy as np
if sys.argv[1] == "absent":
    real = importlib.metadata.version
    def version(name):
        if name == "iree-base-compiler":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)
    importlib.metadata.version = version
    sys.modules["iree.compiler"] = None  # importing it fails
import paddle_fn as paddle
from paddle_fn.runtime import compiler
if sys.argv[1] == "absent":
    assert not compiler.compiler_installed()
    compiler.host_cpu = lambda: "another CPU [x86_64 000000000000]"
gpu = paddle.devices("cuda")[0]
assert gpu.stand_in and gpu.target == "cuda", gpu
x = paddle.device_put(paddle.to_tensor(np.arange(4, dtype=np.float32)), gpu)
print(paddle.jit(lambda v: paddle.sum(v * 3.0), device=gpu)(x).item())
if sys.argv[1] == "absent":
    try:
        paddle.jit(lambda v: v - 1.0, device=gpu)(x)  # not in the cache
    except Exception as error:
        print(type(error).__name__, "not installed" in str(error))
"""


def _run(mode, cache):
    env = {**os.environ, "PADDLE_FN_STAND_IN_GPU": "cuda", "PADDLE_FN_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split("\n")


def test_a_prepared_cache_serves_a_process_without_the_compiler_after_install_cache(tmp_path):
    prepared = tmp_path / "prepared"
    assert _run("present", prepared)[0] == "18.0"
    entries = [p for p in prepared.iterdir() if p.suffix == ".vmfb"]
    assert len(entries) == 1  # compiled for CUDA (cross-compiled: nothing ran on a GPU)
    assert b"--iree-cuda-target=sm_80" in entries[0].read_bytes()

    # carried to another machine, the files come with modes the cache refuses
    carried = tmp_path / "carried"
    carried.mkdir()
    for path in prepared.iterdir():
        if path.is_file():
            (carried / path.name).write_bytes(path.read_bytes())
            os.chmod(carried / path.name, 0o644)
    os.chmod(carried, 0o777)
    messages = []
    assert disk_cache.secret_key(str(carried), log=messages.append) is None and "other users" in messages[0]

    installed = tmp_path / "private" / "cache"
    (tmp_path / "private").mkdir(mode=0o700)
    install_cache(carried, installed)
    assert stat.S_IMODE(installed.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in installed.iterdir()} == {0o600}
    assert disk_cache.secret_key(str(installed), log=messages.append) is not None

    out = _run("absent", installed)
    assert out[:2] == ["18.0", "CompileError True"]  # a hit; the next program, a miss, could not be compiled


def test_cuda_cache_keys_do_not_name_the_host_cpu(monkeypatch):
    flags = compiler.resolve_flags("cuda")
    cuda, cpu = compiler.cache_key("text", flags, "cuda"), compiler.cache_key("text", flags, "llvm-cpu")
    monkeypatch.setattr(compiler, "host_cpu", lambda: "another CPU [x86_64 000000000000]")
    assert compiler.cache_key("text", flags, "cuda") == cuda
    assert compiler.cache_key("text", flags, "llvm-cpu") != cpu  # CPU code stays keyed by the CPU it is for


def test_iree_version_without_the_compiler_is_the_runtimes(monkeypatch):
    with_compiler = compiler.iree_version()
    real = compiler._installed_version
    monkeypatch.setattr(compiler, "_installed_version", lambda name: None if name == "iree-base-compiler" else
                        real(name))
    assert compiler.iree_version.__wrapped__() == with_compiler == real("iree-base-runtime")  # uncached


def test_installed_versions_come_from_the_dist_info_folders_as_package_metadata_says(monkeypatch):
    for name in ("iree-base-compiler", "iree-base-runtime"):
        assert compiler._installed_version(name) == importlib.metadata.version(name)
    assert compiler._installed_version("no-such-wheel") is None
    monkeypatch.setattr(compiler.os, "listdir", lambda path: [])  # no folder found: package metadata answers
    assert compiler._installed_version("iree-base-runtime") == importlib.metadata.version("iree-base-runtime")


def test_the_gpu_tests_are_skipped_without_a_cuda_device_and_say_why():
    env = {k: v for k, v in os.environ.items() if k != "PADDLE_FN_STAND_IN_GPU"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "tests/test_gpu.py"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "passed" not in done.stdout and " skipped" in done.stdout
    assert "no CUDA device here" in done.stdout and "docs/gpu.md" in done.stdout


class _Child:
    """A stand-in for the workloads child process: it records the workloads and environment it was started with and
    appends a result for each (a crash in `crash_in` after its first contender, which it never finishes)."""
    started = []

    def __init__(self, command, cwd, env, crash_in=None):
        names, lines = command[command.index("--only") + 1].split(","), pathlib.Path(command[command.index(
            "--results") + 1])
        _Child.started.append((names, {k: v for k, v in env.items() if k != "PATH"}, "--prepare" in command))
        with open(lines, "a") as file:
            for name in names:
                file.write(json.dumps({"name": name, "started": 0.0}) + "\n")
                if name == crash_in:
                    file.write(json.dumps({"name": name, "contender": "paddle_fn float32",
                                           "result": {"median_ms": 3.0}}) + "\n")
                    self.returncode = -11
                    return
                file.write(json.dumps({"name": name, "result": {"paddle_fn float32": {"median_ms": 2.0}}}) + "\n")
        self.returncode = 0

    def poll(self):
        return self.returncode


def test_workloads_with_the_same_environment_share_a_child_and_a_crash_starts_the_next(monkeypatch, tmp_path):
    crash_in = "mlp_small graphs"
    monkeypatch.setattr(gpu_check.subprocess, "Popen", lambda *a, **k: _Child(*a, **k, crash_in=crash_in))
    _Child.started = []
    results = gpu_check.run_workloads({"PATH": "/bin"}, math.inf, tmp_path / "lines.jsonl", prepare=True)
    assert list(results) == list(gpu_check.WORKLOADS)
    assert results[crash_in]["paddle_fn float32"] == {"median_ms": 3.0}  # measured before the crash
    assert "crashed (exit status -11)" in results[crash_in][gpu_check.UNMEASURED]["error"]
    assert results["conv_step im2col"] == {"paddle_fn float32": {"median_ms": 2.0}}  # the next child's
    assert _Child.started == [
        (["trivial_call", "mlp_small", "mlp_big", "conv_step", "transformer_step", "matmul_8192"], {}, True),
        (["mlp_big three products", "conv_step three products", "transformer_step three products"],
         {"PADDLE_FN_BF16X3_AS_THREE_PRODUCTS": "1"}, True),
        (["trivial_call inline", "mlp_small inline"], {"IREE_PY_RUNTIME_FLAGS": "--cuda_allow_inline_execution=true"},
         True),
        (["trivial_call graphs", "mlp_small graphs"], {"IREE_PY_RUNTIME_FLAGS": "--cuda_use_streams=false"}, True),
        (["conv_step im2col"], {"PADDLE_FN_IREE_FLAGS": "--iree-global-opt-use-im2col-for-convs"}, True)]

def _report(workloads, tests=None):
    return {"date": "2026-11-28", "gpu": "H100", "versions": {}, "command": "c", "cache_entries": 3,
            "not_prepared": {}, "workloads": workloads,
            "tests": {"returncode": 0, "tail": "", "seconds": 1.0,
                      "tests": tests or {"test_a": {"outcome": "passed", "message": ""}}}}


def test_a_variant_is_compared_with_the_peers_of_the_workload_it_varies():
    report = _report({
        "conv_step": {"paddle_fn float32": {"median_ms": 30.0}, "jax default": {"median_ms": 10.0},
                      "torch strict f32": {"median_ms": 20.0}},
        "conv_step im2col": {"paddle_fn float32": {"median_ms": 15.0}}})
    rows = [line for line in gpu_check.markdown(report).splitlines() if "paddle_fn float32" in line]
    assert "| 3.00x | 1.50x |" in rows[0] and "| 1.50x | 0.75x |" in rows[1] and "im2col" in rows[1]


def test_a_rehearsal_fails_on_a_failed_test_or_a_contender_error(tmp_path):
    path = tmp_path / "gpu_check.json"
    assert gpu_check.rehearsal_problems(path) == ["the run wrote no gpu_check.json"]
    path.write_text(json.dumps(_report({"mlp_small": {"paddle_fn float32": {"median_ms": 1.0}}})))
    assert gpu_check.rehearsal_problems(path) == []
    path.write_text(json.dumps(_report(
        {"mlp_small": {"paddle_fn float32": {"error": "CompileError: not in the disk cache"}},
         "mlp_big": {"error": "stopped at its time limit (90 s)"}},
        {"test_b": {"outcome": "failure", "message": "differs"}})))
    assert gpu_check.rehearsal_problems(path) == [
        "test test_b: failure differs", "mlp_small paddle_fn float32: CompileError: not in the disk cache",
        "mlp_big: stopped at its time limit (90 s)"]
