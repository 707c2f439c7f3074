"""`Dirac`: the identity kernel for convolutions (Paddle's ``paddle.nn.initializer.Dirac``)."""
from __future__ import annotations

import numpy as np

import paddle_fn
from paddle_fn.nn_compat.initializer.initializer import Initializer, _cast

__all__ = ["Dirac"]


class Dirac(Initializer):
    """Initialize a 3-D/4-D/5-D convolution weight ``[out_channels, in_channels, *kernel]`` so the convolution
    passes its input through: in each of `groups` groups of output channels, channel ``i`` gets a 1 at input
    channel ``i`` and the kernel's centre (``k // 2`` along each spatial axis), for ``i < min(out_channels /
    groups, in_channels)``; everything else is 0.

    Args:
        groups (int, optional): the number of groups the output channels are split into. Default: 1.

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.nn.Parameter([2, 2, 3], 'float32')
        >>> paddle.nn.initializer.Dirac()(w).numpy()
        array([[[0., 1., 0.],
                [0., 0., 0.]],
        <BLANKLINE>
               [[0., 0., 0.],
                [0., 1., 0.]]], dtype=float32)
    """

    def __init__(self, groups=1, name=None):
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"Dirac: 'groups' must be a positive integer, got {groups!r}")
        self._groups = groups

    def _value(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: only Tensors with 3/4/5 dimensions can be initialized, got shape {list(shape)}")
        if shape[0] % self._groups:
            raise ValueError(f"Dirac: dimension 0 of the shape {list(shape)} must be divisible by groups "
                             f"({self._groups})")
        if not dtype.is_floating_point:
            raise TypeError(f"Dirac: the parameter must be float16, bfloat16, float32 or float64, got {dtype.name}")
        w = np.zeros(shape, np.float32)
        per_group = shape[0] // self._groups
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self._groups):
            for i in range(min(per_group, shape[1])):
                w[(g * per_group + i, i) + centre] = 1.0
        return _cast(paddle_fn.to_tensor(w), dtype)
