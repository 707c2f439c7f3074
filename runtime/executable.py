"""A compiled function loaded onto one device, called through IREE's low-level VM path.

`VmContext.invoke` with the function resolved once, the inputs' VM references pushed straight into a
`VmVariantList` and one results list reused costs about half of what IREE's high-level `FunctionInvoker` costs
(11 vs 20+ µs per call on local-task); results are kept as VM references too, and their shapes and dtypes are read
once from the function's declaration instead of from each result's buffer view.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import math
import os
import re
import threading
import time
import weakref
from typing import Callable, Optional

import numpy as np

from paddle_fn.runtime import host_kernels
from paddle_fn.runtime._iree import rt
from paddle_fn.runtime.compiler import compile_stablehlo, cpu_target, flags_for_work, iree_flags
from paddle_fn.runtime.device import DTYPE_OF_DECLARED_ELEMENT, DeviceArray, Device, TARGET_OF_PLATFORM
from paddle_fn.runtime.device import default_device, inline_cpu_device, input_for, vm_instance

_INPUT = re.compile(r"%input\d+\b")
_TENSOR = r"tensor<((?:[^<>]|<[^<>]*>)*)>"
# A result's declared type, and the type it encodes when IREE's ABI declares another (unsigned integers are passed
# as signless ones: `tensor<4xi8> {iree.abi.encoding = tensor<4xui8>}`)
_OUTPUT = re.compile(rf"%output\d+\b(?:: {_TENSOR})?(?: \{{[^{{}}]*?iree\.abi\.encoding = {_TENSOR}[^{{}}]*\}})?")
_STATIC_TENSOR = re.compile(r"((?:\d+x)*)(.+)")


def _result_types(signature: str) -> list:
    """(index, shape, dtype) of each result in an IREE function declaration; shape and dtype are None for one that
    is not a tensor of static shape and an element type a device holds (its buffer view is asked instead)."""
    types = []
    for index, (declared, encoded) in enumerate(_OUTPUT.findall(signature)):
        tensor = encoded or declared
        dims, element = _STATIC_TENSOR.fullmatch(tensor).groups() if tensor else ("", None)
        dtype = DTYPE_OF_DECLARED_ELEMENT.get(element)
        types.append((index, None, None) if dtype is None else
                     (index, tuple(int(d) for d in dims.split("x")[:-1]), dtype))
    return types


# IREE 3.13 wakes a thread waiting for a program's results (`iree_async_semaphore_multi_wait`) before the worker
# thread that signalled the result has finished with the wait's state, and the woken thread spins (`pause`) until
# it has. Where the woken caller preempts that worker on its core, both wait for the next scheduler tick: on 2
# cores a 2.3 ms training step took 4.0 or 8.0 ms in half the calls. SCHED_BATCH keeps a waking thread from
# preempting the running one (and changes nothing else: same share of the CPU), so the calling thread holds it
# while it waits for the worker threads; its own policy is back when the call returns. A thread with another
# policy than the default is left as it is. benchmarks/README.md, "Waiting for the worker threads".
_SCHED_OTHER, _SCHED_BATCH = getattr(os, "SCHED_OTHER", None), getattr(os, "SCHED_BATCH", None)
_defer_wakeups = _SCHED_BATCH is not None and hasattr(os, "sched_setscheduler")  # cleared where refused
_NO_PRIORITY = os.sched_param(0) if _defer_wakeups else None  # what both policies take


def invoke_without_preempting(context, function, inputs, results):
    """`context.invoke(function, inputs, results)` with the calling thread in SCHED_BATCH while it waits (above)."""
    global _defer_wakeups
    switched = False
    if _defer_wakeups:
        try:
            switched = os.sched_getscheduler(0) == _SCHED_OTHER
            if switched:
                os.sched_setscheduler(0, _SCHED_BATCH, _NO_PRIORITY)
        except OSError:  # a sandbox refusing the calls: wait as IREE does
            _defer_wakeups = switched = False
    try:
        context.invoke(function, inputs, results)
    finally:
        if switched:
            os.sched_setscheduler(0, _SCHED_OTHER, _NO_PRIORITY)


class Executable:
    """`exe(*args) -> list[DeviceArray]`; args are numpy arrays (copied in) or DeviceArrays (used in place)."""

    __slots__ = ("device", "function_name", "signature", "num_inputs", "num_outputs", "_module", "_context",
                 "_function", "_invoke_lock", "_results", "_result_types", "_reload", "_size", "_used", "_ref",
                 "_waits_for_workers", "__weakref__")

    def __init__(self, vmfb, device: Device, function: str = "main", reload: Optional[Callable[[], bytes]] = None):
        self.device, self.function_name = device, function
        self._load(vmfb)
        # how to get the vmfb back after `_unload` (None: never unloaded); `_used` is the resident set's clock bit
        self._reload, self._size, self._used, self._ref = reload, _LOADED_OVERHEAD + len(vmfb), False, None
        self.signature = self._function.reflection.get("iree.abi.declaration", "")
        self.num_inputs: Optional[int] = len(_INPUT.findall(self.signature)) if self.signature else None
        self._result_types = _result_types(self.signature) if self.signature else None
        self.num_outputs: Optional[int] = len(self._result_types) if self.signature else None
        # an IREE VmContext must be externally synchronized; invoke releases the GIL, so threads would race. The
        # results list is reused by every call (invoke empties it first), under the same lock.
        self._invoke_lock = threading.Lock()
        self._results = rt.VmVariantList(self.num_outputs or 1)
        self._waits_for_workers = device.driver == "local-task"

    def _load(self, vmfb):
        instance = vm_instance()
        self._module = rt.VmModule.copy_buffer(instance, vmfb)
        self._function = self._module.lookup_function(self.function_name)
        if self._function is None:
            exported = [name for name in self._module.function_names if not name.startswith("__")]
            raise ValueError(f"the compiled module has no function {self.function_name!r}; it exports {exported}")
        host = host_kernels.module_for(vmfb, self.device)
        modules = [self.device.hal_module(), self._module] if host is None else \
            [self.device.hal_module(), host, self._module]
        self._context = rt.VmContext(instance, modules=modules)

    def _unload(self):
        """Free the loaded module (called by the resident set, holding the invoke lock); the next call reloads."""
        self._module = self._context = self._function = None

    def __repr__(self):
        return f"Executable({self.function_name!r} on {self.device}: {self.num_inputs} in, {self.num_outputs} out)"

    def __call__(self, *args) -> list:
        if self.num_inputs is not None and len(args) != self.num_inputs:
            raise TypeError(f"{self!r} takes {self.num_inputs} arguments, got {len(args)}; "
                            f"signature: {self.signature}")
        device = self.device
        memory = device.memory
        inputs = rt.VmVariantList(len(args))
        for arg in args:
            if type(arg) is not DeviceArray or arg._device.memory is not memory:  # the common case stays inline
                arg = input_for(arg, device)
            inputs.push_ref(arg._ref)
        results = self._results
        get = results.get_as_ref
        lock = self._invoke_lock
        lock.acquire()  # not `with`: its __exit__ call costs a tenth of a trivial program's run
        try:
            if self._context is None:  # unloaded by the resident set's bound: the same program, loaded again
                self._load(self._reload())
                _make_resident(self)
            self._used = True
            try:
                if self._waits_for_workers:
                    invoke_without_preempting(self._context, self._function, inputs, results)
                else:
                    self._context.invoke(self._function, inputs, results)
                types = self._result_types or [(index, None, None) for index in range(results.size)]
                home = device.home
                return [DeviceArray(get(index), home, shape, dtype) for index, shape, dtype in types]
            except (RuntimeError, ValueError) as error:
                raise RuntimeError(self._describe_failed_call(args, error)) from error
        finally:
            lock.release()

    def _describe_failed_call(self, args, error) -> str:
        def describe(arg):
            if isinstance(arg, DeviceArray):
                return f"DeviceArray{list(arg.shape)}:{arg.dtype}@{arg.device}"
            array = np.asarray(arg)
            return f"ndarray{list(array.shape)}:{array.dtype}"
        return (f"IREE failed running {self.function_name!r} on {self.device} with arguments "
                f"({', '.join(describe(arg) for arg in args)}); the compiled signature is {self.signature}\n"
                f"IREE said: {error}")


def load_executable(artifact_or_vmfb, device: Optional[Device] = None, function: str = "main") -> Executable:
    """Load a `CompiledArtifact` (or raw vmfb bytes) onto `device` (default: the default device). About 0.1-0.2 ms."""
    device = default_device() if device is None else device
    target = getattr(artifact_or_vmfb, "target", None)
    if target is not None and target != TARGET_OF_PLATFORM[device.platform]:
        raise ValueError(f"this program was compiled for target {target!r} but {device} runs "
                         f"{TARGET_OF_PLATFORM[device.platform]!r} code; compile with target=device.target")
    return Executable(getattr(artifact_or_vmfb, "vmfb", artifact_or_vmfb), device, function)


# Programs doing less work than this run on the calling thread (IREE's local-sync driver): handing a dispatch to
# worker threads costs ~10 us, more than such a program computes. Measured with benchmarks/bench_jit.py.
INLINE_WORK_LIMIT = 1 << 16


def run_device(device: Device, work: float) -> Device:
    """Where a program of about `work` element operations runs best: a multi-threaded CPU device's calling-thread
    twin (`inline_cpu_device`) when the work is too small to pay for waking worker threads, else `device`."""
    if device.platform == "cpu" and device.driver == "local-task" and work < INLINE_WORK_LIMIT:
        return inline_cpu_device(device)
    return device


# Executables by (sha256 of the StableHLO text, device): shared by every caller holding one, so identical programs
# load once; dropped when the last holder lets go, except the most recently loaded few, kept for callers that
# come back with a fresh program of the same text (a new jit closure per step) -- a fixed bound on what is kept
# for functions that are gone.
KEEP_RECENT = 32
_lock = threading.Lock()
_shared: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()
_recent: collections.OrderedDict = collections.OrderedDict()
_loading: dict = {}  # (text hash, device) -> the lock its compile holds

# The resident set bounds what every live jit signature keeps loaded (each holds its Executable for as long as the
# function lives): past `executable_cache_bytes`, the least recently called executables are unloaded, and loaded
# again from the disk cache (or recompiled) on their next call. A loaded module costs about 40 KiB of resident
# memory for a 10 KiB vmfb (benchmarks/bench_jit.py's memory section): its size is counted as the vmfb's plus
# _LOADED_OVERHEAD. The order is a clock (second chance): calls only set `_used`, without a lock.
_LOADED_OVERHEAD = 30 << 10
_ENV_CACHE_BYTES = "PADDLE_FN_EXECUTABLE_CACHE_BYTES"
_resident: collections.OrderedDict = collections.OrderedDict()  # weakref(executable) -> size, oldest first
_resident_bytes = 0
_dead: collections.deque = collections.deque()  # weakrefs of resident executables collected since (append is atomic)


def _cache_bytes_from_environment() -> int:
    value = os.environ.get(_ENV_CACHE_BYTES, "").strip()
    if not value:
        return 256 << 20
    try:
        return _checked_cache_bytes(int(value))
    except ValueError:
        raise ValueError(f"{_ENV_CACHE_BYTES}={value!r} is not a number of bytes >= 0 (default 268435456, "
                         "256 MiB)") from None


def _checked_cache_bytes(limit) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"the executable cache bound must be a number of bytes >= 0, got {limit!r}")
    return limit


_cache_bytes = _cache_bytes_from_environment()


def set_executable_cache_bytes(limit: int) -> None:
    """Keep at most about `limit` bytes of executables loaded (default 256 MiB, or PADDLE_FN_EXECUTABLE_CACHE_BYTES);
    0 keeps only the one being called. Executables over the bound are unloaded now, least recently called first."""
    global _cache_bytes
    limit = _checked_cache_bytes(limit)
    with _lock:
        _cache_bytes = limit
        _shrink(keep=None)


def executable_cache_bytes() -> int:
    return _cache_bytes


def resident_bytes() -> int:
    """The bytes counted for the executables loaded now through `load_stablehlo` (at most the bound, plus the one
    being loaded)."""
    with _lock:
        _forget_dead()
        return _resident_bytes


def _make_resident(exe: Executable):
    with _lock:
        _make_resident_locked(exe)


def _make_resident_locked(exe: Executable):
    global _resident_bytes
    if exe._ref is None:
        exe._ref = weakref.ref(exe, _dead.append)
    _resident[exe._ref] = exe._size
    _resident_bytes += exe._size
    _shrink(keep=exe)


def _forget_dead():
    global _resident_bytes
    while _dead:
        _resident_bytes -= _resident.pop(_dead.popleft(), 0)


def _shrink(keep: Optional[Executable]):
    """Unload the least recently called executables until the bound holds; one being called (its lock is taken)
    is passed over, and so is `keep`, the one just loaded."""
    global _resident_bytes
    _forget_dead()
    passed_over = 0
    while _resident_bytes > _cache_bytes and passed_over < 2 * len(_resident):
        ref, size = _resident.popitem(last=False)
        exe = ref()
        if exe is None:  # collected, its weakref callback not run yet
            _resident_bytes -= size
            continue
        if exe is keep or exe._used or not exe._invoke_lock.acquire(blocking=False):
            exe._used = False  # a second chance: called since the last sweep
            _resident[ref] = size
            passed_over += 1
            continue
        try:
            exe._unload()
        finally:
            exe._invoke_lock.release()
        _resident_bytes -= size


def load_stablehlo(text: str, device: Device, *, work: float = math.inf, use_disk_cache: Optional[bool] = None,
                   log: Optional[Callable[[str], None]] = None, cached_only: bool = False) -> Optional[tuple]:
    """Compile (or fetch from the disk cache) and load StableHLO `text` for `device`, on the device `run_device`
    picks for `work`. Returns (executable, how it was obtained: a few words for a log); with `cached_only`, None
    instead of compiling when the program is neither loaded nor in the disk cache.

    A compile holds only its own program's lock, so other programs load and run while it runs (a compile in a
    background thread does not stall the caller's other functions); a second caller of the same text waits for it.
    A stand-in GPU device (runtime.device) loads nothing: the program is compiled for its target into the disk
    cache (`cached_only` or not: preparing the cache is what it is for), and None returned, so that jit evaluates
    the program op by op on the CPU.
    """
    device = run_device(device, work)
    if device.stand_in:
        compile_stablehlo(text, target=device.target, extra_flags=flags_for_work(device.target, work),
                          use_disk_cache=use_disk_cache, log=log)
        return None
    # code for one CPU, or compiled with other flags of $PADDLE_FN_IREE_FLAGS, is never another's
    key = (hashlib.sha256(text.encode()).hexdigest(), device, cpu_target(), iree_flags())
    with _lock:
        exe = _shared.get(key)
        if exe is not None:
            _note_recent_locked(key, exe)
            return exe, "shared with an identical program already loaded"
        program_lock = _loading.setdefault(key, threading.Lock())
    with program_lock:
        with _lock:
            exe = _shared.get(key)  # loaded by the caller this one waited for
            if exe is not None:
                _note_recent_locked(key, exe)
                return exe, "shared with an identical program already loaded"
        started = time.perf_counter()
        compile_it = functools.partial(compile_stablehlo, text, target=device.target,
                                       extra_flags=flags_for_work(device.target, work),
                                       use_disk_cache=use_disk_cache, log=log)
        artifact = compile_it(cached_only=cached_only)
        if artifact is None:
            return None
        exe = Executable(artifact.vmfb, device, reload=lambda: compile_it().vmfb)
        with _lock:
            _shared[key] = exe
            _loading.pop(key, None)
            _make_resident_locked(exe)
            _note_recent_locked(key, exe)
    origin = "loaded from the disk cache" if artifact.from_cache else f"compiled in {artifact.compile_seconds:.2f} s"
    return exe, f"{origin}, {time.perf_counter() - started:.3f} s in all"


def _note_recent_locked(key, exe: Executable):
    _recent[key] = exe
    _recent.move_to_end(key)
    while len(_recent) > KEEP_RECENT:
        _recent.popitem(last=False)


def loaded_count() -> int:
    """How many executables loaded through `load_stablehlo` are alive (for tests and memory benchmarks)."""
    return len(_shared)
