"""paddle_fn.runtime: the only package that imports IREE. StableHLO text and numpy arrays in, device arrays out:
compilation (with a persistent cache), devices, device-resident arrays and low-overhead executables. IREE itself
is imported on first use (see `_iree`), not with this package."""
if __name__ != "paddle_fn.runtime":
    raise ImportError("import this package as paddle_fn.runtime, not as a top-level module")

from paddle_fn.runtime.compiler import (  # noqa: E402,F401
    STANDARD_FLAGS, TARGETS, CompiledArtifact, CompileError, cache_dir, compile_stablehlo, compiled_cpu, cpu_features,
    cpu_target, host_cpu, iree_flags, iree_version, reload_cpu_target, reload_iree_flags)
from paddle_fn.runtime.device import (  # noqa: E402,F401
    Device, DeviceArray, copy_to, default_device, default_platform, device_put, devices, gpu_available,
    inline_cpu_device, set_cpu_threads)
from paddle_fn.runtime.executable import (  # noqa: E402,F401
    INLINE_WORK_LIMIT, Executable, executable_cache_bytes, load_executable, load_stablehlo, loaded_count,
    resident_bytes, run_device, set_executable_cache_bytes)
from paddle_fn.runtime.dispatches import Dispatch, Dispatches, dispatches  # noqa: E402,F401
