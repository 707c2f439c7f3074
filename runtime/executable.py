"""A compiled function loaded onto one device, called through IREE's low-level VM path.

`VmContext.invoke` with pre-resolved function and refs pushed straight into a `VmVariantList` costs about half of
what IREE's high-level `FunctionInvoker` costs (11 vs 20+ µs per call on local-task).
"""
from __future__ import annotations

import re
import threading
from typing import Optional

import numpy as np
import iree.runtime as rt

from paddle_fn.runtime.device import DeviceArray, Device, TARGET_OF_PLATFORM, copy_to, default_device, device_put
from paddle_fn.runtime.device import vm_instance

_INPUT = re.compile(r"%input\d+\b")
_OUTPUT = re.compile(r"%output\d+\b")


class Executable:
    """`exe(*args) -> list[DeviceArray]`; args are numpy arrays (copied in) or DeviceArrays (used in place)."""

    __slots__ = ("device", "function_name", "signature", "num_inputs", "num_outputs", "_module", "_context",
                 "_function", "_takes_any_cpu_buffer", "_invoke_lock")

    def __init__(self, vmfb, device: Device, function: str = "main"):
        instance = vm_instance()
        self._module = rt.VmModule.copy_buffer(instance, vmfb)
        self._function = self._module.lookup_function(function)
        if self._function is None:
            exported = [name for name in self._module.function_names if not name.startswith("__")]
            raise ValueError(f"the compiled module has no function {function!r}; it exports {exported}")
        self._context = rt.VmContext(instance, modules=[device.hal_module(), self._module])
        self.device, self.function_name = device, function
        self.signature = self._function.reflection.get("iree.abi.declaration", "")
        self.num_inputs: Optional[int] = len(_INPUT.findall(self.signature)) if self.signature else None
        self.num_outputs: Optional[int] = len(_OUTPUT.findall(self.signature)) if self.signature else None
        # CPU devices share host memory: a buffer of any CPU device can be read by a program on another
        self._takes_any_cpu_buffer = device.platform == "cpu"
        # an IREE VmContext must be externally synchronized; invoke releases the GIL, so threads would race
        self._invoke_lock = threading.Lock()

    def __repr__(self):
        return f"Executable({self.function_name!r} on {self.device}: {self.num_inputs} in, {self.num_outputs} out)"

    def __call__(self, *args) -> list:
        if self.num_inputs is not None and len(args) != self.num_inputs:
            raise TypeError(f"{self!r} takes {self.num_inputs} arguments, got {len(args)}; "
                            f"signature: {self.signature}")
        device = self.device
        inputs = rt.VmVariantList(len(args))
        for arg in args:
            if type(arg) is not DeviceArray:
                arg = device_put(arg, device)
            elif arg._device is not device and not (self._takes_any_cpu_buffer and arg._device.platform == "cpu"):
                arg = copy_to(arg, device)
            inputs.push_ref(arg._view.ref)
        outputs = rt.VmVariantList(self.num_outputs or 1)
        try:
            with self._invoke_lock:
                self._context.invoke(self._function, inputs, outputs)
        except (RuntimeError, ValueError) as error:
            raise RuntimeError(self._describe_failed_call(args, error)) from error
        view_type = rt.HalBufferView
        return [DeviceArray(outputs.get_as_object(index, view_type), device) for index in range(outputs.size)]

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
