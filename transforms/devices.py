"""Devices: listing them, choosing the default, placing Tensors; Paddle's CPUPlace / CUDAPlace accepted."""
from __future__ import annotations

from paddle_fn.core.config import config
from paddle_fn.core.errors import PaddleFnError
from paddle_fn.core.pytree import tree_map
from paddle_fn.core.trace import Tensor, Tracer
from paddle_fn.runtime import Device, default_device as _runtime_default, device_put as _put, devices as _devices
from paddle_fn.transforms._args import as_leaf


class CPUPlace:
    """Paddle's CPU place; accepted wherever a device is."""

    platform = "cpu"

    def __repr__(self):
        return "Place(cpu)"

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash("cpu")


class CUDAPlace:
    """Paddle's GPU place, ``CUDAPlace(0)``; resolves to the CUDA device with that id when one exists."""

    platform = "cuda"

    def __init__(self, id: int = 0):  # noqa: A002 - Paddle's name
        self.id = int(id)

    def __repr__(self):
        return f"Place(gpu:{self.id})"

    def __eq__(self, other):
        return isinstance(other, CUDAPlace) and other.id == self.id

    def __hash__(self):
        return hash(("gpu", self.id))


_PLATFORMS = ("cpu", "cuda", "rocm", "vulkan")


def devices(platform: str | None = None) -> list:
    """The devices paddle_fn can run on: CPU devices first, then GPUs where one exists.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.devices()[0].platform
        'cpu'
    """
    if platform is not None:
        return list(_devices(platform))
    return [d for p in _PLATFORMS for d in _devices(p)]


def resolve_device(spec) -> Device:
    """Turn None, a Device, 'cpu', 'cpu:1', 'gpu', 'gpu:0', CPUPlace() or CUDAPlace(i) into a Device."""
    if spec is None:
        return config.default_device or _runtime_default()
    if isinstance(spec, Device):
        return spec
    if isinstance(spec, CPUPlace):
        spec = "cpu"
    elif isinstance(spec, CUDAPlace):
        spec = f"gpu:{spec.id}"
    if isinstance(spec, str):
        name, _, idx = spec.lower().partition(":")
        platform = {"gpu": "cuda", "cuda": "cuda", "cpu": "cpu", "rocm": "rocm", "hip": "rocm",
                    "vulkan": "vulkan"}.get(name)
        if platform is None:
            raise PaddleFnError(f"unknown device {spec!r}; use 'cpu', 'cpu:N', 'gpu:N', CPUPlace() or CUDAPlace(N)")
        found = list(_devices(platform))
        i = int(idx) if idx else 0
        if not found:
            raise PaddleFnError(f"no {platform} device is available (devices: {devices()}); use 'cpu'")
        if i >= len(found):
            raise PaddleFnError(f"device {spec!r} does not exist: there are {len(found)} {platform} device(s)")
        return found[i]
    raise PaddleFnError(f"cannot use {spec!r} as a device; use a paddle_fn device, 'cpu', 'gpu:0' or a Place")


def set_device(device):
    """Set the default device of jit and device_put (Paddle's ``paddle.set_device('cpu')``); returns its Paddle
    place (``CPUPlace()``, ``CUDAPlace(i)``; the device itself on platforms Paddle has no place for).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.set_device("cpu")
        Place(cpu)
    """
    d = resolve_device(device)
    config.update("default_device", d)
    if d.platform == "cpu":
        return CPUPlace()
    return CUDAPlace(d.id) if d.platform == "cuda" else d


def get_device() -> str:
    """The default device as Paddle names it: ``'cpu'`` or ``'gpu:0'``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.get_device()
        'cpu'
    """
    d = resolve_device(None)
    return "cpu" if d.platform == "cpu" and d.id == 0 else \
        (f"cpu:{d.id}" if d.platform == "cpu" else f"gpu:{d.id}")


def device_put(x, device=None):
    """Copy a Tensor (or array) into `device`'s memory; the result stays there when passed to jitted functions.

    As in JAX, a Tensor put on a `device` named here is *committed* to it: a jitted function called with it runs on
    that device, whatever the default device is, and its results are committed there too (arguments committed to
    two different devices are an error). Without `device`, the Tensor goes to the default device uncommitted, and
    a jitted call runs where the other arguments say.

    Example:
        >>> import paddle_fn as paddle
        >>> y = paddle.device_put(paddle.to_tensor([1.0, 2.0]))
        >>> y.numpy()
        array([1., 2.], dtype=float32)
        >>> cpu = paddle.devices("cpu")[0]
        >>> paddle.jit(lambda v: v * 2)(paddle.device_put(y, cpu)).device_array.device == cpu
        True
    """
    d = resolve_device(device)
    committed = device is not None

    def put(leaf):
        t = as_leaf(leaf, "device_put")
        if isinstance(t, Tracer):
            return t
        return Tensor.from_device_array(_put(t.concrete_value(), d, committed=committed),
                                        stop_gradient=t.stop_gradient)
    return tree_map(put, x)


def device_get(x):
    """The values of a pytree of Tensors as numpy arrays (``jax.device_get``); other leaves pass through.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.device_get({"w": paddle.to_tensor([1.0, 2.0]), "step": 3})
        {'w': array([1., 2.], dtype=float32), 'step': 3}
    """
    return tree_map(lambda leaf: leaf.numpy() if isinstance(leaf, Tensor) else leaf, x)


def device_count(platform: str | None = None) -> int:
    """How many devices of `platform` there are (None: the default device's platform), as ``jax.device_count``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.device_count("cpu") >= 1
        True
    """
    return len(_devices(platform or resolve_device(None).platform))


def local_device_count(platform: str | None = None) -> int:
    """The devices of this process (``jax.local_device_count``): every device, since a process sees only its own.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.local_device_count() == paddle.device_count()
        True
    """
    return device_count(platform)


def block_until_ready(x):
    """Return `x` (a pytree) once every Tensor in it is computed, as ``jax.block_until_ready``. A jitted call returns
    after its program has run (IREE invokes it synchronously); what this waits for is the compiles jit runs in the
    background (see `Tensor.block_until_ready`), so JAX code and benchmarks that call it port unchanged (see
    docs/jit.md).

    Example:
        >>> import paddle_fn as paddle
        >>> out = paddle.block_until_ready({"y": paddle.jit(paddle.sin)(paddle.ones([2]))})
        >>> out["y"].shape
        paddle.Size([2])
    """
    return tree_map(lambda leaf: leaf.block_until_ready() if isinstance(leaf, Tensor) else leaf, x)


def is_compiled_with_cuda() -> bool:
    """True when an NVIDIA GPU can be used here: IREE's CUDA driver is present and creates a device.

    Paddle answers whether its build has CUDA; paddle_fn has one build, so it answers whether `jit` can run
    on a CUDA device on this machine.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_compiled_with_cuda() == bool(paddle.devices('cuda'))
        True
    """
    return bool(devices("cuda"))


def is_compiled_with_rocm() -> bool:
    """True when an AMD GPU can be used here (IREE's HIP driver creates a device).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_compiled_with_rocm() == bool(paddle.devices('rocm'))
        True
    """
    return bool(devices("rocm"))


def is_compiled_with_xpu() -> bool:
    """Always False: paddle_fn has no Kunlun XPU backend.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_compiled_with_xpu()
        False
    """
    return False
