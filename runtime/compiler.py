"""StableHLO text -> IREE `.vmfb` bytes, behind a persistent on-disk cache.

A cold compile costs 0.35-2.5 s (the `iree-compile` subprocess); a cache hit costs a few stats, a file read and an
HMAC (see `disk_cache` for what the cache trusts).
`iree.compiler` itself is imported only when something must really be compiled (the import alone is ~0.1 s).
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import logging
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Callable, Optional

from paddle_fn.runtime import disk_cache, tuning
from paddle_fn.runtime.dispatch_names import has_scopes, scoped_dispatch_names

logger = logging.getLogger("paddle_fn.runtime")

DATA_TILING_FLAG = "--iree-dispatch-creation-data-tiling"
SYSTEM_LINKER_FLAG = "--iree-llvmcpu-link-embedded=false"

# Always used for llvm-cpu. Never add --iree-opt-level=O2/O3: IREE 3.13 fails to compile real programs with them
# (iree-org/iree#21828). Without the f64 flag IREE silently demotes float64 signatures to float32. The data-tiled
# products call IREE's precompiled microkernels instead of generating their loops: 0.4-0.6 s less compile time for
# an MLP or LSTM training step, the same run time (benchmarks/bench_models.py's cold first calls). IREE's
# compile-time evaluation of constant expressions compiles each one on its own: the parameters of a jitted
# sampler of 1,000 draws made 60-70 of them and half its compile time; without it they are computed when the
# module loads (benchmarks/bench_compile.py).
STANDARD_FLAGS = (
    "--iree-llvmcpu-target-cpu=host",
    DATA_TILING_FLAG,
    "--iree-llvmcpu-enable-ukernels=all",
    "--iree-input-demote-f64-to-f32=false",
    "--iree-opt-const-eval=false",
)

# Cross-compilation targets: compile only; the host CPU flag and data tiling are CPU matters.
_TARGET_FLAGS = {
    "llvm-cpu": STANDARD_FLAGS,
    "cuda": ("--iree-cuda-target=sm_80", "--iree-input-demote-f64-to-f32=false"),
    "rocm": ("--iree-rocm-target=gfx942", "--iree-input-demote-f64-to-f32=false"),
    "vulkan-spirv": ("--iree-input-demote-f64-to-f32=false",),
    "metal-spirv": ("--iree-input-demote-f64-to-f32=false",),
}
TARGETS = tuple(_TARGET_FLAGS)

# For programs of at least LARGE_WORK element operations (core.ir.work_estimate; 2^28 is a 645^3 product) on the
# CPU: each thread's share of a data-tiled product is sized 2 MiB instead of 256 KiB, reusing each packed panel
# across more of the output. 2048^2 float32 went from 66 to 90 GFLOP/s on a 2-core AVX2 host, 1024^2 and the MLP
# step were unchanged; small programs are left alone, where the larger tiles cost 0.5-1.4 s more compile time.
LARGE_WORK = 1 << 28
LARGE_PROGRAM_FLAGS = ("--iree-llvmcpu-matmul-tile-bytes=2097152",)


def flags_for_work(target: str, work: float) -> tuple:
    """The extra flags a program of about `work` element operations compiles with for `target`."""
    return LARGE_PROGRAM_FLAGS if target == "llvm-cpu" and work >= LARGE_WORK else ()


class CompileError(RuntimeError):
    """IREE rejected a StableHLO module. The message holds IREE's diagnostics and the path of the saved module."""

    def __init__(self, message: str, *, diagnostics: str, mlir_path: Optional[str]):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.mlir_path = mlir_path


@dataclasses.dataclass(frozen=True)
class CompiledArtifact:
    vmfb: bytes
    flags: tuple          # the flags that actually produced `vmfb` (after any retry)
    from_cache: bool
    key: str
    compile_seconds: float
    retried_without_data_tiling: bool
    target: str = "llvm-cpu"

    def __repr__(self):
        origin = "disk cache" if self.from_cache else f"compiled in {self.compile_seconds:.2f}s"
        return f"CompiledArtifact(target={self.target!r}, {len(self.vmfb)} bytes, {origin}, key={self.key[:12]})"


@functools.cache
def iree_version() -> str:
    """The IREE version the cache keys name: the compiler wheel's, which the runtime's pin matches;
    "compiler-X/runtime-Y" where the two differ. Without the compiler (a GPU machine running a cache prepared
    elsewhere: benchmarks/gpu_check.py) the runtime's version stands for it: an entry under that key was compiled
    by the same version, and loading a module needs the runtime to match."""
    compiler, runtime = (_installed_version(name) for name in ("iree-base-compiler", "iree-base-runtime"))
    compiler, runtime = compiler or runtime or "unknown", runtime or "unknown"
    return compiler if compiler == runtime else f"compiler-{compiler}/runtime-{runtime}"


def _installed_version(distribution: str) -> Optional[str]:
    """An installed wheel's version, from the name of its ``.dist-info`` folder beside the ``iree`` package;
    package metadata where there is none (an unusual install). The folder costs one directory listing: importlib's
    metadata imports the email package and scans every path entry, 9 ms of a warm-cache first call."""
    prefix = distribution.replace("-", "_") + "-"
    spec = importlib.util.find_spec("iree")
    for package in (spec.submodule_search_locations or ()) if spec else ():
        try:
            names = os.listdir(os.path.dirname(package))
        except OSError:
            continue
        for name in names:
            if name.startswith(prefix) and name.endswith(".dist-info"):
                version = name[len(prefix):-len(".dist-info")]
                if version and "-" not in version:  # not another wheel whose name starts the same
                    return version
    from importlib import metadata  # heavy: only where the folder is not found
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def _first_processor() -> dict:
    """/proc/cpuinfo's first processor block (it describes them all), or {} where there is none."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break
                name, _, value = line.partition(":")
                fields[name.strip()] = value.strip()
    except OSError:
        pass
    return fields


@functools.cache
def host_cpu_features() -> frozenset:
    """The host CPU's feature names as /proc/cpuinfo spells them (avx2, avx512f, ...); empty where unknown."""
    fields = _first_processor()
    return frozenset((fields.get("flags") or fields.get("Features") or "").split())


@functools.cache
def host_cpu() -> str:
    """Model name of the host CPU plus a digest of its feature flags.

    `--iree-llvmcpu-target-cpu=host` bakes the host's instruction set into the vmfb, so a cache entry is only
    valid on a CPU with the same features; the digest keeps the string short and stable across processes.
    """
    model = _first_processor().get("model name") or platform.processor() or platform.machine()
    digest = hashlib.sha256(" ".join(sorted(host_cpu_features())).encode()).hexdigest()[:12]
    return f"{model} [{platform.machine()} {digest}]"


CPU_TARGET_ENV = "PADDLE_FN_CPU_TARGET"
_CPU_FLAG = "--iree-llvmcpu-target-cpu"


def reload_cpu_target() -> str:
    """Read $PADDLE_FN_CPU_TARGET again and return what `cpu_target` gives from now on. The variable is read when
    this module is imported, not on every jit call (the executables' cache key needs the CPU on every call, and
    reading the environment there was a measurable part of a small call); a program that changes the variable
    after importing paddle_fn calls this for the change to take effect.

    Example:
        >>> import os
        >>> from paddle_fn import runtime
        >>> os.environ["PADDLE_FN_CPU_TARGET"] = "x86-64-v3"  # AVX2 code from now on
        >>> runtime.reload_cpu_target(), runtime.cpu_target()
        ('x86-64-v3', 'x86-64-v3')
        >>> del os.environ["PADDLE_FN_CPU_TARGET"]
        >>> runtime.reload_cpu_target()
        'host'
    """
    global _cpu_target
    _cpu_target = os.environ.get(CPU_TARGET_ENV, "").strip() or "host"
    return _cpu_target


def cpu_target() -> str:
    """The CPU llvm-cpu code is compiled for: $PADDLE_FN_CPU_TARGET (an LLVM CPU name: x86-64-v3 for AVX2 code that
    runs on any AVX2 machine, x86-64-v4, skylake-avx512, znver4, ...), else "host", the host's own instruction
    set (the fastest code, and only valid on CPUs with the host's features: why the host is in the cache key). The
    variable as it was at import, or at the last `reload_cpu_target`."""
    return _cpu_target


_cpu_target = "host"
reload_cpu_target()


IREE_FLAGS_ENV = "PADDLE_FN_IREE_FLAGS"
# flags that say where code runs, which paddle_fn chooses: the device (jit's device=) and $PADDLE_FN_CPU_TARGET
_PLACEMENT_FLAGS = {_CPU_FLAG: f"${CPU_TARGET_ENV}", "--iree-hal-target-backends": "the device (jit(device=...))",
                    "--iree-hal-target-device": "the device (jit(device=...))"}


def reload_iree_flags() -> tuple:
    """Read $PADDLE_FN_IREE_FLAGS again: IREE compiler flags (`--name=value`, separated as a shell separates words)
    added to every compile's, replacing a default flag of the same name, as XLA_FLAGS adds to XLA's. They are part of
    each compiled program's cache key. Read when paddle_fn.runtime is first imported, like $PADDLE_FN_CPU_TARGET.

    Example:
        >>> import os
        >>> from paddle_fn import runtime
        >>> os.environ["PADDLE_FN_IREE_FLAGS"] = "--iree-global-opt-use-im2col-for-convs"
        >>> runtime.reload_iree_flags()
        ('--iree-global-opt-use-im2col-for-convs',)
        >>> del os.environ["PADDLE_FN_IREE_FLAGS"]
        >>> runtime.reload_iree_flags()
        ()
    """
    global _iree_flags
    flags = tuple(shlex.split(os.environ.get(IREE_FLAGS_ENV, "")))
    for flag in flags:
        name = flag.split("=", 1)[0]
        if not flag.startswith("--"):
            raise ValueError(f"${IREE_FLAGS_ENV} holds {flag!r}, which is not an IREE compiler flag: write each as "
                             "--name=value (iree-compile --help lists them)")
        if name in _PLACEMENT_FLAGS:
            raise ValueError(f"${IREE_FLAGS_ENV} holds {flag!r}: where code runs is chosen by "
                             f"{_PLACEMENT_FLAGS[name]}, not by this variable")
    _iree_flags = flags
    return flags


def iree_flags() -> tuple:
    """The flags of $PADDLE_FN_IREE_FLAGS as last read (`reload_iree_flags`)."""
    return _iree_flags


_iree_flags = ()
reload_iree_flags()


def compiled_cpu(extra_flags=()) -> str:
    """The CPU llvm-cpu code compiled with `extra_flags` is for: their --iree-llvmcpu-target-cpu, else cpu_target()."""
    return next(flag.split("=", 1)[1] for flag in resolve_flags("llvm-cpu", extra_flags)
                if flag.startswith(_CPU_FLAG + "="))


_FEATURES_PROBE = "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }"


def cpu_features(cpu: str) -> frozenset:
    """The feature names (avx2, avx512f, ...) of the CPU llvm-cpu code for `cpu` is compiled for: "host", the host's
    (host_cpu_features); an LLVM CPU name, the features LLVM gives it (`llvm_cpu_features`)."""
    return host_cpu_features() if cpu == "host" else llvm_cpu_features(cpu)


@functools.cache
def llvm_cpu_features(cpu: str) -> frozenset:
    """The features LLVM gives the CPU named `cpu`, read from the executable target iree-compile writes for it
    (0.1-0.3 s once per name); a name LLVM does not know is a ValueError."""
    try:
        sources = _iree_compile(_FEATURES_PROBE, target_backends=["llvm-cpu"], input_type="stablehlo",
                                extra_args=[f"{_CPU_FLAG}={cpu}", "--compile-to=executable-sources"]).decode()
    except _CompilerFailure as failure:
        raise ValueError(f"llvm-cpu code cannot be compiled for the CPU {cpu!r} (${CPU_TARGET_ENV} or {_CPU_FLAG}): "
                         f"{failure.diagnostics.splitlines()[0]}; use an LLVM CPU name such as x86-64-v3 (AVX2), "
                         "x86-64-v4 (AVX-512) or host") from None
    listed = re.search(r'cpu_features = "([^"]*)"', sources)
    return frozenset(f[1:] for f in (listed.group(1).split(",") if listed else ()) if f.startswith("+"))


def resolve_flags(target: str, extra_flags=()) -> tuple:
    """The target's default flags, then $PADDLE_FN_IREE_FLAGS's (`iree_flags`) and `extra_flags`, each `--name=value`
    replacing a default of that name."""
    if target not in _TARGET_FLAGS:
        raise ValueError(f"unknown IREE target {target!r}; expected one of {', '.join(TARGETS)}")
    extra_flags = _replacing(_iree_flags, tuple(extra_flags))
    targeted, cpu = _TARGET_FLAGS[target], cpu_target()
    if target == "llvm-cpu" and cpu != "host":
        targeted = tuple(f"{_CPU_FLAG}={cpu}" if flag.startswith(_CPU_FLAG + "=") else flag for flag in targeted)
    return _replacing(targeted, extra_flags)


def _replacing(flags: tuple, replacements: tuple) -> tuple:
    """`flags` less those named in `replacements` (`--name` or `--name=value`), then `replacements`."""
    named = {flag.split("=", 1)[0] for flag in replacements}
    return tuple(flag for flag in flags if flag.split("=", 1)[0] not in named) + replacements


# a product, its operands' types and its result's: `: (tensor<64x3xf32>, tensor<3x5xf32>) -> tensor<64x5xf32>`
_PRODUCT = re.compile(r"stablehlo\.(dot_general|convolution)\b[^\n]*:\s*\(tensor<([^>]*)>,\s*tensor<([^>]*)>\)"
                      r"\s*->\s*tensor<([^>]*)>")


def _tiling_pays(kind: str, lhs: str, rhs: str, result: str) -> bool:
    """Whether data tiling can speed up this product (types as written in a tensor<...>): IREE 3.13 has microkernels
    for products of two matrices in float32 and narrower types, none for float64 or for a product with a vector."""
    if result.rsplit("x", 1)[-1] == "f64":
        return False
    return kind == "convolution" or (lhs.count("x") >= 2 and rhs.count("x") >= 2)


def module_flags(text: str, target: str, extra_flags=()) -> tuple:
    """`resolve_flags` for the module `text`: on llvm-cpu, a module with products none of which data tiling can
    speed up (`_tiling_pays`) compiles without it, unless `extra_flags` say otherwise. Data tiling then adds only its
    packing copies: the float64 Hessian class (benchmarks/bench_models.py) went from 54 dispatches to 29 and
    2.54 -> 1.94 ms with AVX-512 code (2.07 -> 1.84 ms AVX2), a 256^2 float64 product 0.33 -> 0.20 ms, the same
    results to the bit (at 1024^2 as fast); the chain class, whose products are sums as products with a vector of
    ones (llvm_cpu_sum), 0.64-0.83 -> 0.58-0.73 ms."""
    flags = resolve_flags(target, extra_flags)
    if target == "llvm-cpu" and DATA_TILING_FLAG in flags:
        products = _PRODUCT.findall(text)
        if products and not any(_tiling_pays(*product) for product in products):
            flags = tuple(flag for flag in flags if flag != DATA_TILING_FLAG)
    return flags


def cache_key(text: str, flags: tuple, target: str) -> str:
    """The disk-cache key of `text` compiled for `target` with `flags`. llvm-cpu code is valid only on CPUs with the
    host's features (`host_cpu`); a GPU target's module holds no host code, so its key names no host CPU, and a
    cache filled by cross-compiling on one machine serves a GPU machine with another CPU."""
    host = host_cpu() if target == "llvm-cpu" else ""
    material = "\0".join((text, "\x1f".join(map(tuning.key_form, flags)), target, iree_version(), host))
    return hashlib.sha256(material.encode()).hexdigest()


def compiler_installed() -> bool:
    """Whether IREE's compiler (the iree-base-compiler wheel) can be imported here; found without importing it."""
    try:
        return importlib.util.find_spec("iree.compiler") is not None
    except ModuleNotFoundError:  # no iree package at all
        return False


class _CompilerFailure(Exception):
    """`iree-compile` exited with an error; `diagnostics` is its stderr without the tool's boilerplate."""

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


def _run_compiler(text: str, target: str, flags: tuple, compile_to: Optional[str] = None) -> bytes:
    """iree-compile's output for `text`: the `.vmfb`, or with `compile_to` (one of its --compile-to phases) the
    program's text after that phase (runtime/dispatches.py reads the dispatches there)."""
    # a module declaring its devices (--iree-hal-target-device, pmap's multi-device module) names no backend
    declares_devices = any(flag.startswith("--iree-hal-target-device=") for flag in flags)
    backends = [] if declares_devices else [target]
    until = [f"--compile-to={compile_to}"] if compile_to else []
    if has_scopes(text) and not declares_devices:  # named_scope names into the dispatch names
        flow = _iree_compile(text, target_backends=backends, input_type="stablehlo",
                             extra_args=[*flags, "--compile-to=flow", "--mlir-print-debuginfo"])
        return _iree_compile(scoped_dispatch_names(flow.decode()), target_backends=backends,
                             extra_args=[*flags, "--compile-from=flow", *until])
    return _iree_compile(text, target_backends=backends, input_type="stablehlo", extra_args=[*flags, *until])


# An iree-compile that uses no CPU time for this long is deadlocked: IREE 3.13 hung now and then with the float64
# tuning spec (every thread waiting on a futex, about once per run of the test suite, never in 100 repeated
# compiles of the same modules alone; runtime/tuning.py now compiles those modules on one thread). Compiling is
# CPU-bound throughout, so even a machine loaded 7-fold gives it some time each second.
STALL_SECONDS = 10.0


def _cpu_seconds(pid: int) -> Optional[float]:
    """The CPU time process `pid` has used (Linux's /proc), or None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _iree_compile(source: str, **options) -> bytes:
    """iree-compile `source` with `options` (those of iree.compiler.compile_str), killed when it stops using CPU
    time for STALL_SECONDS: a hung compile becomes a failure, and the fallback flags get their turn."""
    from iree.compiler.tools.core import CompilerOptions, TempFileSaver, build_compile_command_line
    with TempFileSaver.implicit() as saver:
        command = build_compile_command_line("-", saver, CompilerOptions(**options))
    return _run_watched(command, source.encode(), STALL_SECONDS)


def _run_watched(command: list, stdin: bytes, stall_seconds: float) -> bytes:
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        used, progress_at, pending = None, time.monotonic(), stdin
        while True:
            try:
                out, err = process.communicate(pending, timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                pending = None  # written already: communicate goes on with it
                now, seconds = time.monotonic(), _cpu_seconds(process.pid)
                if seconds is None or seconds != used:
                    used, progress_at = seconds, now
                elif now - progress_at > stall_seconds:
                    process.kill()
                    process.communicate()
                    raise _CompilerFailure(f"{os.path.basename(command[0])} used no CPU time for {stall_seconds:.0f} s "
                                           "(deadlocked) and was stopped") from None
    if process.returncode != 0:
        raise _CompilerFailure(err.decode(errors="replace").strip() or
                               f"{os.path.basename(command[0])} exited with status {process.returncode}")
    if err:
        sys.stderr.write(err.decode(errors="replace"))  # IREE's warnings, as compile_str shows them
    return out


def _system_linker_available() -> bool:
    return shutil.which("ld") is not None or shutil.which("cc") is not None


def _fallback_flags(target: str, flags: tuple, diagnostics: str, log) -> Optional[tuple]:
    """The flags for the next attempt after a failed compile, or None when nothing is left to try."""
    if (target == "llvm-cpu" and "undefined symbol" in diagnostics and SYSTEM_LINKER_FLAG not in flags
            and _system_linker_available()):
        # IREE's embedded linker has no libm, so float64 sin/cos/tanh/atan2/fmod cannot be linked into the
        # embedded ELF; the system linker resolves them against the real libm (exact results).
        _report(log, "IREE's embedded linker lacks a math library symbol (float64 transcendentals); "
                     f"retrying with the system linker ({SYSTEM_LINKER_FLAG})")
        return flags + (SYSTEM_LINKER_FLAG,)
    untuned = tuning.without_spec(flags)
    if untuned != flags:
        _report(log, "IREE failed to compile with the float64 tuning spec; retrying without it")
        return untuned
    if DATA_TILING_FLAG in flags:
        first_error = next((line for line in diagnostics.splitlines() if "error" in line), diagnostics[:200])
        _report(log, f"IREE failed to compile with {DATA_TILING_FLAG} ({first_error.strip()}); "
                     "retrying without data tiling (matmuls may be slower)")
        return tuple(flag for flag in flags if flag != DATA_TILING_FLAG)
    return None


def _report(log, message: str, *, warning: bool = False):
    if log is not None:
        log(message)
    elif warning:
        logger.warning(message)
    else:
        logger.info(message)


def disk_cache_enabled(use_disk_cache: Optional[bool] = None) -> bool:
    if use_disk_cache is not None:
        return use_disk_cache
    return os.environ.get("PADDLE_FN_DISK_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def cache_dir() -> str:
    """PADDLE_FN_CACHE_DIR, else $XDG_CACHE_HOME/paddle_fn/iree, else ~/.cache/paddle_fn/iree."""
    explicit = os.environ.get("PADDLE_FN_CACHE_DIR")
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "paddle_fn", "iree")


def compile_stablehlo(text: str, *, target: str = "llvm-cpu", extra_flags=(), use_disk_cache: Optional[bool] = None,
                      log: Optional[Callable[[str], None]] = None,
                      cached_only: bool = False) -> Optional[CompiledArtifact]:
    """Compile StableHLO text for `target` to a `.vmfb`, or fetch it from the disk cache (only that, returning None
    when it is not there, with `cached_only`).

    On failure, retries with the system linker (float64 libm symbols on llvm-cpu) and then without data tiling;
    raises `CompileError` when every attempt fails.
    """
    requested_flags = module_flags(text, target, extra_flags)
    if target == "llvm-cpu" and f"{_CPU_FLAG}=host" in requested_flags:
        requested_flags += tuning.llvm_cpu_flags(host_cpu_features(), text)
    key = cache_key(text, requested_flags, target)
    warn = functools.partial(_report, log, warning=True)
    directory = cache_dir() if disk_cache_enabled(use_disk_cache) else None
    secret = disk_cache.secret_key(directory, log=warn) if directory is not None else None
    if secret is None:
        directory = None  # an untrusted directory gets nothing from us either, not even a failed module
    else:
        entry = disk_cache.read(directory, key, secret, log=warn)
        if entry is not None:
            return CompiledArtifact(vmfb=entry.vmfb, flags=tuple(entry.flags), from_cache=True, key=key,
                                    compile_seconds=0.0, retried_without_data_tiling=entry.retried_without_data_tiling,
                                    target=target)
    if cached_only:
        return None
    if not compiler_installed():
        where = f"the disk cache {directory}" if directory is not None else "any disk cache (the cache is off)"
        raise CompileError(f"the program (cache key {key[:12]}, target {target!r}) is not in {where}, and the IREE "
                           "compiler is not installed here (pip install iree-base-compiler), so it cannot be "
                           "compiled; a cache prepared on another machine (benchmarks/gpu_check.py prepare) holds "
                           "only the programs it ran", diagnostics="", mlir_path=None)
    started = time.perf_counter()
    flags, attempts = requested_flags, 0
    while True:
        attempts += 1
        try:
            vmfb = _run_compiler(text, target, flags)
            break
        except _CompilerFailure as failure:
            next_flags = _fallback_flags(target, flags, failure.diagnostics, log)
            if next_flags is None:
                raise _compile_error(text, target, flags, key, failure.diagnostics, directory, attempts) from None
            flags = next_flags
    seconds = time.perf_counter() - started
    retried = DATA_TILING_FLAG in requested_flags and DATA_TILING_FLAG not in flags
    if directory is not None:
        disk_cache.write(directory, key, disk_cache.Entry(vmfb=vmfb, flags=list(flags),
                                                          retried_without_data_tiling=retried), secret, log=warn)
    return CompiledArtifact(vmfb=vmfb, flags=flags, from_cache=False, key=key, compile_seconds=seconds,
                            retried_without_data_tiling=retried, target=target)


_MAX_DIAGNOSTIC_LINES = 60


def _compile_error(text, target, flags, key, diagnostics, directory, attempts) -> CompileError:
    mlir_path = _save_failed_module(text, key, directory)
    lines = diagnostics.splitlines()
    if len(lines) > _MAX_DIAGNOSTIC_LINES:
        lines = lines[:_MAX_DIAGNOSTIC_LINES] + [f"... ({len(lines) - _MAX_DIAGNOSTIC_LINES} more lines)"]
    where = (f"The failing StableHLO module was saved to {mlir_path}; reproduce with:\n"
             f"  iree-compile {mlir_path} --iree-input-type=stablehlo --iree-hal-target-backends={target} "
             f"{' '.join(flags)} -o /dev/null") if mlir_path else "(the failing module could not be saved)"
    tried = f" ({attempts} attempts with fallback flags; the last one's output follows)" if attempts > 1 else ""
    yours = f"\nThe flags include ${IREE_FLAGS_ENV}'s: {' '.join(_iree_flags)}" if _iree_flags else ""
    message = (f"IREE could not compile the StableHLO module for target {target!r}{tried}.\n"
               "IREE's diagnostics:\n  " + "\n  ".join(lines) + "\n" + where + yours)
    return CompileError(message, diagnostics=diagnostics, mlir_path=mlir_path)


def _save_failed_module(text: str, key: str, directory: Optional[str]) -> Optional[str]:
    candidates = [os.path.join(directory, "failed")] if directory else []
    candidates.append(os.path.join(tempfile.gettempdir(), "paddle_fn_failed"))
    for folder in candidates:
        try:
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{key[:24]}.mlir")
            disk_cache.write_atomically(path, text.encode())
            return path
        except OSError:
            continue
    return None
