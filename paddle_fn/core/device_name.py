"""``paddle.device.Device``: a device's name as a string, with its type and index (what ``Tensor.device`` returns)."""
from __future__ import annotations


class Device(str):
    """A computing device, as Paddle 3.3's ``paddle.device.Device`` (what ``Tensor.device`` returns): the device's
    name as a string (``'cpu'``, ``'gpu:0'``), with its ``type`` and ``index`` (None for the CPU).

    Example:
        >>> import paddle_fn as paddle
        >>> d = paddle.to_tensor([1]).device
        >>> print(d)
        cpu
        >>> d == 'cpu', d.type, d.index
        (True, 'cpu', None)
    """

    def __new__(cls, type="cpu", index=None):  # noqa: A002 - Paddle's name
        name, _, number = str(type).partition(":")
        if number:
            index = int(number)
        if name == "cpu":
            index = None
        self = super().__new__(cls, name if index is None else f"{name}:{index}")
        self._type, self._index = name, index
        return self

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self):
        return self._index


# a runtime platform -> the device type Paddle names it by (Paddle's ROCm build calls its GPUs gpu too)
_PADDLE_TYPE = {"cpu": "cpu", "cuda": "gpu", "rocm": "gpu"}


def device_of(array) -> Device:
    """The device a Tensor backed by `array` reports: None (a host value) and any CPU device are ``'cpu'`` (Paddle has
    one CPU place), a GPU is ``'gpu:N'``, another platform ``'<platform>:N'``. `array` is the runtime's device array,
    read by its ``device.platform`` and ``device.id`` (the core does not import the runtime); a value spread over
    devices (pmap's) has no one device and reports its first shard's."""
    device = getattr(array, "device", None)
    if device is None:
        shards = getattr(array, "shards", None)
        device = getattr(shards[0], "device", None) if shards else None
    if device is None or device.platform == "cpu":
        return Device("cpu")
    return Device(_PADDLE_TYPE.get(device.platform, device.platform), device.id)
