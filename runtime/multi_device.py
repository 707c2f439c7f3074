"""One compiled module spanning several devices (pmap's single-process fast path): loaded with a HAL module over
all of them, called once per step; IREE runs each device's part on that device and moves data between them."""
from __future__ import annotations

import threading

from paddle_fn.runtime._iree import rt
from paddle_fn.runtime.compiler import compile_stablehlo
from paddle_fn.runtime.device import DeviceArray, Device, input_for, vm_instance
from paddle_fn.runtime.executable import invoke_without_preempting


class MultiDeviceExecutable:
    """`exe(args) -> list[DeviceArray]`: argument k lives on `arg_devices[k]` (numpy arrays are copied there, CPU
    buffers of any device are read in place), result k on `result_devices[k]`. Built by `load_multi_device`;
    pmap's tests run it (tests/test_pmap.py)."""

    __slots__ = ("devices", "arg_devices", "result_devices", "_module", "_function", "_context", "_lock")

    def __init__(self, vmfb: bytes, devices, arg_devices, result_devices, function: str = "main"):
        instance = vm_instance()
        self.devices, self.arg_devices, self.result_devices = tuple(devices), tuple(arg_devices), \
            tuple(result_devices)
        self._module = rt.VmModule.copy_buffer(instance, vmfb)
        self._function = self._module.lookup_function(function)
        hal = rt.create_hal_module(instance, devices=[d.hal_device for d in self.devices])
        self._context = rt.VmContext(instance, modules=[hal, self._module])
        self._lock = threading.Lock()  # a VmContext must be externally synchronized

    def __repr__(self):
        return f"MultiDeviceExecutable(over {list(self.devices)}: {len(self.arg_devices)} in, " \
               f"{len(self.result_devices)} out)"

    def __call__(self, args) -> list:
        if len(args) != len(self.arg_devices):
            raise TypeError(f"{self!r} takes {len(self.arg_devices)} arguments, got {len(args)}")
        inputs = rt.VmVariantList(len(args))
        for arg, device in zip(args, self.arg_devices):
            inputs.push_ref(input_for(arg, device)._ref)
        outputs = rt.VmVariantList(len(self.result_devices))
        with self._lock:
            invoke_without_preempting(self._context, self._function, inputs, outputs)  # CPU worker threads
        return [DeviceArray(outputs.get_as_ref(k), d) for k, d in enumerate(self.result_devices)]


def load_multi_device(text: str, devices, arg_devices, result_devices, *, extra_flags=(), use_disk_cache=None,
                      log=None) -> MultiDeviceExecutable:
    """Compile (or fetch from the disk cache) a multi-device CPU module and load it over `devices`."""
    devices = list(devices)
    if any(not isinstance(d, Device) or d.platform != "cpu" for d in devices):
        raise ValueError(f"a multi-device module runs on CPU devices here, got {devices}")
    artifact = compile_stablehlo(text, target="llvm-cpu", extra_flags=extra_flags, use_disk_cache=use_disk_cache,
                                 log=log)
    return MultiDeviceExecutable(artifact.vmfb, devices, arg_devices, result_devices)
