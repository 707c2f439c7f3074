"""Host kernels: routines of this process (ducc's FFT, numpy's sort, LAPACK) that compiled CPU programs call.

A program imports them as functions of one VM module (`install`'s `module_name`): IREE compiles a call to an
external `func.func` with tensor operands into a wait for the operands' buffers, the call with their buffer views,
and the import of the returned views, checked against the declared types (a wrong shape or element type fails the
call with IREE's message instead of reading past a buffer). The module is a `PyModuleInterface`, one per device
(results are allocated on it) and set of imported names, added to the context of every program that imports it.

This layer knows nothing of what the kernels compute: each function's name holds a key naming the kernel and its
parameters, which the handler the upper layer installs decodes and runs (transforms/host_kernels.py); the operands
are read in place (CPU buffers are host memory), each result is copied into a new buffer of the device. The calls
are synchronous and run on the thread that runs the program, holding the GIL for the kernel's Python
part only (IREE releases it while a program runs).
"""
from __future__ import annotations

import re
import threading
from typing import Callable, Optional

import numpy as np

from paddle_fn.runtime._iree import rt
from paddle_fn.runtime.device import Device, device_put, dtype_of

_lock = threading.Lock()
# (module name, the pattern of its function names, handler), or None
_installed: Optional[tuple] = None


def install(module_name: str, function_pattern: bytes, handler: Callable) -> None:
    """Serve the functions of the VM module `module_name` to every program loaded from now on: each name a program
    imports matches `function_pattern` (a regular expression over bytes whose three groups are the number of
    operands, the number of results and the function's key); ``handler(key: str, operands: list of read-only numpy
    arrays) -> list of numpy arrays`` runs them, one array per result. Installing the same again is a no-op."""
    global _installed
    with _lock:
        entry = (module_name, re.compile(re.escape(module_name.encode()) + rb"\.(" + function_pattern + rb")"),
                 handler)
        if _installed is not None and _installed[1] == entry[1] and _installed[2] is handler:
            return
        if _installed is not None:
            raise RuntimeError(f"host kernels are already installed as module {_installed[0]!r}")
        _installed = entry


def module_for(vmfb, device: Device):
    """The host-kernel module to load beside the program `vmfb` on `device`, exporting the functions the program
    imports (their names are in its import table), or None when it imports none."""
    installed = _installed
    if installed is None or device.platform != "cpu":
        return None
    data = bytes(vmfb)
    if installed[0].encode() not in data:
        return None
    functions = frozenset((match.group(1).decode(), int(match.group(2)), int(match.group(3)), match.group(4).decode())
                          for match in installed[1].finditer(data))
    if not functions:
        return None
    with _lock:
        module = _modules.get((device, functions))
        if module is None:
            module = _modules[device, functions] = _create_module(device, installed, functions)
        return module


_modules: dict = {}  # (device, the functions it exports) -> VM module of host kernels


def _create_module(device: Device, installed, functions):
    module_name, _, handler = installed

    def array_of(ref) -> np.ndarray:
        view = ref.deref(rt.HalBufferView)
        array = np.ndarray(tuple(view.shape), dtype_of(view.element_type), buffer=view.map())
        array.setflags(write=False)
        return array

    class Kernels:
        """One instance per VM context (IREE makes one for each program loaded beside the module)."""

        def __init__(self, interface):
            pass

    def function(key):
        def call(kernels, *operands):
            results = handler(key, [array_of(ref) for ref in operands])
            views = tuple(device_put(result, device)._ref for result in results)
            return views[0] if len(views) == 1 else views
        return call

    interface = rt.PyModuleInterface(module_name, Kernels)
    for name, n_operands, n_results, key in sorted(functions):
        interface.export(name, "0" + "r" * n_operands + "_" + "r" * n_results, function(key))
    return interface.create()
