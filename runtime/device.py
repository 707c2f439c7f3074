"""Devices (IREE HAL devices behind one VmInstance) and device-resident arrays.

CPU: PADDLE_FN_NUM_CPU_DEVICES virtual devices (default 1), each its own HAL device (PADDLE_FN_CPU_DRIVER:
"local-task", multi-threaded, the default; or "local-sync", on the calling thread, lowest latency). With several
local-task devices the cores are split among them: each gets its own worker pool of cores / N threads, so devices
running at once (pmap) do not compete for one pool. All CPU devices share host memory, so a buffer of one is
directly usable by another.
GPU: the cuda, hip (platform "rocm") and vulkan drivers of the runtime wheel, listed only when a device of that
kind can really be created. The default platform is PADDLE_FN_PLATFORM, else "cpu".
Stand-in GPU: with PADDLE_FN_STAND_IN_GPU=cuda (or rocm, vulkan), that platform lists one device that computes on
the CPU: programs placed on it are compiled for the GPU's target into the disk cache and evaluated op by op here
(`executable.load_stablehlo`), so a machine without the GPU or its driver prepares the cache a GPU machine without
IREE's compiler runs from (benchmarks/gpu_check.py).
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import gc
import logging
import math
import os
import threading
from typing import Optional

import ml_dtypes
import numpy as np

from paddle_fn.runtime._iree import rt

logger = logging.getLogger("paddle_fn.runtime")

def _keep_iree_objects_at_exit():
    """At interpreter exit the final garbage collection clears reference cycles in arbitrary order, so a Device
    (and its HalDevice) can be freed before buffer views or VM contexts still living on it, and their destructors
    then crash (SIGSEGV at exit after compiled training steps). Registered first, this runs after every other exit
    hook and freezes the surviving objects out of that collection: they are freed by reference count (arrays
    before their device) or not at all; the bindings' leak report about the latter is switched off. Module
    teardown then clears module globals in an order of its own: a script's global array, read back through a
    mapping of a device buffer, can be freed after this module dropped the devices, so the devices and the VM
    instance get one reference that is never released. A process that never created an IREE object has nothing
    to protect, and must not load IREE (imported lazily) just to exit."""
    if _instance is None and not _hal_device_created:
        return
    rt._binding.disable_leak_checker()
    gc.freeze()
    for kept in (_devices_by_platform, _instance):  # a device holds its calling-thread twin
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(kept))


atexit.register(_keep_iree_objects_at_exit)

_lock = threading.RLock()

_PLATFORM_OF_DRIVER = {"local-task": "cpu", "local-sync": "cpu", "cuda": "cuda", "hip": "rocm", "vulkan": "vulkan"}
_GPU_DRIVER_OF_PLATFORM = {"cuda": "cuda", "rocm": "hip", "vulkan": "vulkan"}
PLATFORMS = ("cpu",) + tuple(_GPU_DRIVER_OF_PLATFORM)
# the `compile_stablehlo` target whose code runs on each platform
TARGET_OF_PLATFORM = {"cpu": "llvm-cpu", "cuda": "cuda", "rocm": "rocm", "vulkan": "vulkan-spirv"}
_CLASS_NAME_OF_PLATFORM = {"cpu": "CpuDevice", "cuda": "CudaDevice", "rocm": "RocmDevice", "vulkan": "VulkanDevice"}

_instance: Optional[rt.VmInstance] = None
_devices_by_platform: dict = {}   # platform -> list[Device]; GPU platforms map to [] when unusable
_default: Optional["Device"] = None  # default_device(), read from the environment once (a jitted call asks each time)
_cpu_driver_created = False
_hal_device_created = False
_cpu_threads: Optional[int] = None  # set_cpu_threads' count; None: IREE's choice (one worker per core)


def vm_instance() -> rt.VmInstance:
    global _instance
    if _instance is None:
        with _lock:
            if _instance is None:
                _instance = rt.VmInstance()
    return _instance


HOST_MEMORY = "host"  # the memory every CPU device's buffers are in


class Device:
    """One place where programs run and buffers live. Devices are singletons: compare them with `is` or `==`."""

    __slots__ = ("_platform", "_id", "_driver", "_device_info", "_hal_device", "_hal_module", "_allocation",
                 "memory", "home", "_inline_twin", "_staging_reader", "stand_in")

    def __init__(self, platform: str, id: int, driver: str, device_info=None, *, stand_in: bool = False):
        self._platform, self._id, self._driver, self._device_info = platform, id, driver, device_info
        self._hal_device = self._hal_module = self._allocation = self._inline_twin = self._staging_reader = None
        # a GPU device played by the CPU (PADDLE_FN_STAND_IN_GPU): its buffers are CPU buffers, its programs are
        # compiled for the GPU into the disk cache and evaluated op by op
        self.stand_in = stand_in
        # where its buffers live: a program reads in place the buffers of every device with the same `memory`
        self.memory = HOST_MEMORY if platform == "cpu" or stand_in else object()
        # the device the arrays its programs make belong to: itself, or for a CPU device's calling-thread twin
        # (`inline_cpu_device`, an implementation detail) that device, so that users see one device
        self.home = self

    platform = property(lambda self: self._platform, doc='"cpu", "cuda", "rocm" or "vulkan"')
    id = property(lambda self: self._id, doc="index among the devices of this platform")
    driver = property(lambda self: self._driver, doc='the IREE HAL driver: "local-task", "local-sync", "cuda", ...')
    target = property(lambda self: TARGET_OF_PLATFORM[self._platform], doc="the compile target for this device")

    def __repr__(self):
        stand_in = ", stand-in on the CPU" if self.stand_in else ""
        return f"{_CLASS_NAME_OF_PLATFORM[self._platform]}(id={self._id}{stand_in})"

    @property
    def hal_device(self) -> rt.HalDevice:
        if self._hal_device is None:
            with _lock:
                if self._hal_device is None:
                    self._hal_device = _create_hal_device(self._driver, self._device_info)
        return self._hal_device

    def hal_module(self) -> rt.VmModule:
        """The HAL module bound to this device; one module serves every VmContext loaded onto the device."""
        if self._hal_module is None:
            hal_device = self.hal_device
            with _lock:
                if self._hal_module is None:
                    self._hal_module = rt.create_hal_module(vm_instance(), hal_device)
        return self._hal_module

    def allocation(self) -> tuple:
        """(allocator, HAL device, memory type, buffer usage) for the buffers `device_put` makes here, built once:
        IREE's enum arithmetic and the allocator lookup cost more than copying a small array."""
        if self._allocation is None:
            vm_instance()  # it registers the VM type of buffer views, which the arrays' references are made with
            hal_device = self.hal_device
            usage = rt.BufferUsage.DEFAULT | rt.BufferUsage.MAPPING if self.memory is HOST_MEMORY else \
                rt.BufferUsage.DEFAULT  # CPU buffers are mapped to read them back (host memory, zero-copy)
            self._allocation = (hal_device.allocator, hal_device, int(rt.MemoryType.DEVICE_LOCAL), int(usage))
        return self._allocation


    def staging_reader(self) -> "StagingReader":
        """The reader that copies this device's buffers back to the host when they cannot be mapped."""
        if self._staging_reader is None:
            hal_device = self.hal_device
            with _lock:
                if self._staging_reader is None:
                    self._staging_reader = StagingReader(hal_device)
        return self._staging_reader


def _create_hal_device(driver_name: str, device_info) -> rt.HalDevice:
    global _cpu_driver_created, _hal_device_created
    _hal_device_created = True
    if _PLATFORM_OF_DRIVER[driver_name] == "cpu":
        _cpu_driver_created = True
        if device_info is None:
            return rt.get_driver(driver_name).create_default_device()
        # a worker pool of its own, `device_info` threads (the topology flag is read when a driver is created)
        rt.flags.parse_flags(f"--task_topology_group_count={device_info}")
        try:
            return rt._binding.create_hal_driver(driver_name).create_default_device()
        finally:
            rt.flags.parse_flags(f"--task_topology_group_count={_cpu_threads or 0}")  # 0: IREE's choice
    return rt.get_driver(driver_name).create_device(device_info)


def inline_cpu_device(device: "Device") -> "Device":
    """The calling-thread (local-sync) twin of a CPU device: same memory, no worker-thread hand-off, so the
    lowest latency for small programs. Buffers of the two are interchangeable."""
    if device.platform != "cpu":
        raise ValueError(f"inline_cpu_device needs a CPU device, got {device!r}")
    if device.driver == "local-sync":
        return device
    with _lock:
        twin = device._inline_twin
        if twin is None:
            twin = device._inline_twin = Device("cpu", device.id, "local-sync")
            twin.home = device
        return twin


def set_cpu_threads(count: int):
    """Use `count` worker threads for the CPU (local-task; split among the virtual CPU devices when there are
    several). Call it before the first CPU device is used."""
    global _cpu_threads
    if int(count) < 1:
        raise ValueError(f"set_cpu_threads needs a positive thread count, got {count}")
    with _lock:
        if _cpu_driver_created:
            raise RuntimeError("set_cpu_threads must be called before the first CPU device is used "
                               "(the thread pool is created with the first device); call it at program start")
        _cpu_threads = int(count)
        rt.flags.parse_flags(f"--task_topology_group_count={_cpu_threads}")


def _cpu_devices() -> list:
    driver = os.environ.get("PADDLE_FN_CPU_DRIVER", "local-task")
    if driver not in ("local-task", "local-sync"):
        raise ValueError(f"PADDLE_FN_CPU_DRIVER={driver!r}; expected 'local-task' or 'local-sync'")
    count_text = os.environ.get("PADDLE_FN_NUM_CPU_DEVICES", "1")
    try:
        count = int(count_text)
    except ValueError:
        count = 0
    if count < 1:
        raise ValueError(f"PADDLE_FN_NUM_CPU_DEVICES={count_text!r}; expected a positive integer")
    if driver == "local-sync" or count == 1:
        return [Device("cpu", index, driver) for index in range(count)]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    threads = max(1, (_cpu_threads or cores) // count)  # the cores, split among the devices
    return [Device("cpu", index, driver, device_info=threads) for index in range(count)]


STAND_IN_ENV = "PADDLE_FN_STAND_IN_GPU"


def _gpu_devices(platform: str) -> list:
    if os.environ.get(STAND_IN_ENV, "").strip() == platform:
        return [Device(platform, 0, "local-sync", stand_in=True)]
    driver_name = _GPU_DRIVER_OF_PLATFORM[platform]
    try:
        if driver_name not in rt.query_available_drivers():
            return []
        infos = rt.get_driver(driver_name).query_available_devices()
    except Exception as error:  # no driver library, no loader: the usual case on a machine without that GPU
        logger.debug("no %s devices: %s", platform, error)
        return []
    found = [Device(platform, index, driver_name, info) for index, info in enumerate(infos)]
    if found:
        try:
            found[0].hal_device  # a listed device must be usable; creating one proves the whole driver stack
        except Exception as error:
            logger.info("%s driver lists %d device(s) but none can be created: %s", platform, len(found), error)
            return []
    return found


def default_platform() -> str:
    platform = os.environ.get("PADDLE_FN_PLATFORM", "cpu")
    if platform not in PLATFORMS:
        raise ValueError(f"PADDLE_FN_PLATFORM={platform!r}; expected one of {', '.join(PLATFORMS)}")
    return platform


def devices(platform: Optional[str] = None) -> list:
    """The devices of `platform` (default: the default platform); [] for a GPU platform without a usable GPU."""
    platform = default_platform() if platform is None else platform
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; expected one of {', '.join(PLATFORMS)}")
    with _lock:
        if platform not in _devices_by_platform:
            _devices_by_platform[platform] = _cpu_devices() if platform == "cpu" else _gpu_devices(platform)
        return list(_devices_by_platform[platform])


def default_device() -> Device:
    global _default
    if _default is None:
        found = devices()
        if not found:
            raise RuntimeError(f"PADDLE_FN_PLATFORM={default_platform()!r} but no such device can be created here")
        _default = found[0]
    return _default


def gpu_available() -> bool:
    return any(devices(platform) for platform in _GPU_DRIVER_OF_PLATFORM)


def _forget_devices():
    """Test hook: the next `devices()` re-reads the environment. Existing Device objects stay usable."""
    global _default
    with _lock:
        _devices_by_platform.clear()
        _default = None


# ---- dtypes ----------------------------------------------------------------------------------------------------

# numpy dtype -> (IREE's HAL element type name, the element type an IREE function declaration writes)
_ELEMENT_TYPES = {
    np.dtype(np.bool_): ("BOOL_8", "i1"), np.dtype(np.int8): ("SINT_8", "i8"),
    np.dtype(np.int16): ("SINT_16", "i16"), np.dtype(np.int32): ("SINT_32", "i32"),
    np.dtype(np.int64): ("SINT_64", "i64"), np.dtype(np.uint8): ("UINT_8", "ui8"),
    np.dtype(np.uint16): ("UINT_16", "ui16"), np.dtype(np.uint32): ("UINT_32", "ui32"),
    np.dtype(np.uint64): ("UINT_64", "ui64"), np.dtype(np.float16): ("FLOAT_16", "f16"),
    np.dtype(ml_dtypes.bfloat16): ("BFLOAT_16", "bf16"), np.dtype(np.float32): ("FLOAT_32", "f32"),
    np.dtype(np.float64): ("FLOAT_64", "f64"), np.dtype(np.complex64): ("COMPLEX_64", "complex<f32>"),
    np.dtype(np.complex128): ("COMPLEX_128", "complex<f64>"),
}
DTYPE_OF_DECLARED_ELEMENT = {declared: dtype for dtype, (_, declared) in _ELEMENT_TYPES.items()}
# IREE reports signless integers for results whose sign it dropped; StableHLO's signless integers are signed.
_DTYPE_OF_SIGNLESS = {"INT_8": np.dtype(np.int8), "INT_16": np.dtype(np.int16), "INT_32": np.dtype(np.int32),
                      "INT_64": np.dtype(np.int64)}


@functools.cache
def _element_types() -> tuple:
    """(dtype -> IREE element type, element type -> dtype), built on first use (IREE's enums load lazily)."""
    of_dtype = {dtype: getattr(rt.HalElementType, name) for dtype, (name, _) in _ELEMENT_TYPES.items()}
    of_element = {int(element_type): dtype for dtype, element_type in of_dtype.items()}
    of_element.update({int(getattr(rt.HalElementType, name)): dtype for name, dtype in _DTYPE_OF_SIGNLESS.items()})
    return of_dtype, of_element


def element_type_of(dtype: np.dtype):
    try:
        return _element_types()[0][dtype]
    except KeyError:
        supported = ", ".join(sorted(str(d) for d in _ELEMENT_TYPES))
        raise TypeError(f"dtype {dtype} cannot be placed on a device; supported dtypes: {supported}") from None


def dtype_of(element_type: int) -> np.dtype:
    try:
        return _element_types()[1][element_type]
    except KeyError:
        raise TypeError(f"device buffer has IREE element type {element_type:#x}, which has no numpy dtype") from None


# ---- arrays ----------------------------------------------------------------------------------------------------

class DeviceArray:
    """An immutable array in a device buffer. `to_numpy()` gives a read-only host view (cached).

    It holds the VM reference to its IREE buffer view, which executables push as an input as it is; the view object
    itself is made only when something asks for it. `shape` and `dtype`, when given, spare querying the view.
    `committed`: the array was placed on its device on purpose (``device_put(x, device)``, or computed by a program
    that ran there because of such inputs), so programs taking it run there (as JAX's committed arrays)."""

    __slots__ = ("_ref", "_view", "_device", "_shape", "_dtype", "_host", "committed", "__weakref__")

    def __init__(self, ref: rt.VmRef, device: Device, shape: Optional[tuple] = None,
                 dtype: Optional[np.dtype] = None, committed: bool = False):
        self._ref, self._device, self._shape, self._dtype = ref, device, shape, dtype
        self._view = self._host = None
        self.committed = committed

    device = property(lambda self: self._device)

    @property
    def buffer_view(self) -> rt.HalBufferView:
        """The IREE HalBufferView (for code that talks to IREE)."""
        if self._view is None:
            self._view = self._ref.deref(rt.HalBufferView)
        return self._view

    @property
    def shape(self) -> tuple:
        if self._shape is None:
            self._shape = tuple(self.buffer_view.shape)
        return self._shape

    @property
    def dtype(self) -> np.dtype:
        if self._dtype is None:
            self._dtype = dtype_of(self.buffer_view.element_type)
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.buffer_view.byte_length

    def to_numpy(self) -> np.ndarray:
        """A read-only numpy array with this array's contents; zero-copy on CPU. It stays valid on its own."""
        if self._host is None:
            self._host = self._read_to_host()
        return self._host

    def __array__(self, dtype=None, copy=None):
        host = self.to_numpy()
        if dtype is not None and np.dtype(dtype) != host.dtype:
            return host.astype(dtype)
        return host.copy() if copy else host

    def __repr__(self):
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device={self._device})"

    def _read_to_host(self) -> np.ndarray:
        view = self.buffer_view
        if self._device.memory is HOST_MEMORY or _is_mappable(view.get_buffer()):
            # the mapping is the array's base: it keeps the buffer alive (and costs a third of `asarray`)
            host = np.ndarray(self.shape, self.dtype, buffer=view.map())
        else:
            host = self._device.staging_reader().read(view.get_buffer(), self.shape, self.dtype)
        host.setflags(write=False)  # cheaper than through `flags`
        return host


def _is_mappable(buffer: rt.HalBuffer) -> bool:
    return bool(buffer.memory_type() & int(rt.MemoryType.HOST_VISIBLE)) and \
        bool(buffer.allowed_usage() & int(rt.BufferUsage.MAPPING_SCOPED))


class StagingReader:
    """Reads device-only memory (a GPU's) back to the host: a copy on the device queue into a host-visible staging
    buffer, a wait, then a copy out of its mapping. One per device, kept: its staging buffer (pinned host memory,
    whose allocation costs far more than copying a few floats) grows to the largest read and is reused, and one
    semaphore counts the copies. A lock orders the readers of one device."""

    __slots__ = ("_hal_device", "_lock", "buffer", "_size", "_semaphore", "_copies")

    _MIN_BYTES = 1 << 16

    def __init__(self, hal_device: rt.HalDevice):
        self._hal_device, self._lock = hal_device, threading.Lock()
        self.buffer, self._size, self._semaphore, self._copies = None, 0, None, 0

    def read(self, buffer: rt.HalBuffer, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """A new host array with the contents of `buffer` (of `shape` and `dtype`)."""
        size = buffer.byte_length()
        with self._lock:
            if size > self._size:
                self._size = max(self._MIN_BYTES, 1 << (size - 1).bit_length())
                self.buffer = self._hal_device.allocator.allocate_buffer(
                    memory_type=int(rt.MemoryType.HOST_LOCAL | rt.MemoryType.DEVICE_VISIBLE),
                    allowed_usage=int(rt.BufferUsage.TRANSFER_TARGET | rt.BufferUsage.MAPPING_SCOPED),
                    allocation_size=self._size)
            if self._semaphore is None:
                self._semaphore = self._hal_device.create_semaphore(0)
            done = rt.HalFence.create_at(self._semaphore, self._copies + 1)
            self._hal_device.queue_copy(buffer, self.buffer, wait_semaphores=rt.HalFence.create_at(
                self._semaphore, self._copies), signal_semaphores=done)
            self._copies += 1
            done.wait()
            return np.array(self.buffer.map().asarray(shape, np.dtype(dtype)))  # copied out: the buffer is reused


def device_put(array, device: Optional[Device] = None, *, committed: bool = False) -> DeviceArray:
    """Copy a numpy array (any layout, 0-d included) into a new buffer on `device` (default: the default device),
    `committed` to it or not (see `DeviceArray`)."""
    device = default_device() if device is None else device
    host = np.asarray(array)
    if not host.flags.c_contiguous:
        host = host.copy(order="C")  # not np.ascontiguousarray: it turns 0-d arrays into 1-d ones
    allocator, hal_device, memory_type, usage = device.allocation()
    view = allocator.allocate_buffer_copy(memory_type=memory_type, allowed_usage=usage, device=hal_device,
                                          buffer=host, element_type=element_type_of(host.dtype))
    return DeviceArray(view.ref, device, host.shape, host.dtype, committed)


def input_for(arg, device: Device) -> DeviceArray:
    """`arg` as a buffer a program on `device` can read: a numpy array is copied in; a DeviceArray is used in place
    where it lives or in the same memory (any CPU device's: they share host memory), else copied to `device`."""
    if type(arg) is not DeviceArray:
        return device_put(arg, device)
    if arg._device.memory is device.memory:
        return arg
    return copy_to(arg, device)


def copy_to(array: DeviceArray, device: Device) -> DeviceArray:
    """The same values in a buffer owned by `device` (the array itself when it already lives there)."""
    if array.device is device:
        return array
    return device_put(array.to_numpy(), device)
