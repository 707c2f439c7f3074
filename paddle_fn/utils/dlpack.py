"""``paddle.utils.dlpack``: exchange Tensors with other array libraries through DLPack. A paddle_fn Tensor's value
is a read-only numpy array on the host, which DLPack cannot export, so the capsule holds a copy; any DLPack
producer on the CPU (numpy, torch, jax, ...) can be imported.
"""
from __future__ import annotations

import numpy as np

import paddle_fn

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(x):
    """A DLPack capsule holding a copy of `x`'s values (for ``torch.utils.dlpack.from_dlpack`` and friends).

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> capsule = paddle.utils.dlpack.to_dlpack(paddle.to_tensor([1.0, 2.0]))
        >>> type(capsule).__name__
        'PyCapsule'
    """
    if not isinstance(x, paddle_fn.Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(x).__name__}")
    return np.array(x.numpy()).__dlpack__()


class _Capsule:
    """A bare DLPack capsule dressed as a producer, so numpy's ``from_dlpack`` accepts it."""

    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, stream=None, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU: a bare capsule carries no device query; paddle_fn reads host memory


def from_dlpack(dlpack, *, device=None, copy=None):
    """A Tensor with the values of a DLPack capsule or of any object with ``__dlpack__`` (a numpy array, a torch
    CPU tensor, ...), copied into paddle_fn's immutable storage. `device` can only be None or the CPU (where eager
    Tensors live); since the values are always copied, ``copy=False`` (share the memory) raises ValueError.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> paddle.utils.dlpack.from_dlpack(np.arange(3)).tolist()
        [0, 1, 2]
        >>> x = paddle.to_tensor([1.0, 2.0])
        >>> paddle.utils.dlpack.from_dlpack(paddle.utils.dlpack.to_dlpack(x)).tolist()
        [1.0, 2.0]
    """
    if copy is False:
        raise ValueError("from_dlpack: copy=False (sharing the producer's memory) is not possible here: "
                         "paddle_fn copies the values into its own storage; pass copy=None or True")
    producer = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    return paddle_fn.to_tensor(np.from_dlpack(producer), place=device)
