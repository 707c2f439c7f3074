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
