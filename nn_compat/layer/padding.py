"""The fixed-mode padding layers of Paddle 3.3 (`paddle.nn.ZeroPad1D`, `ConstantPad2D`, `ReflectionPad3D`, ...):
`Pad1D` / `Pad2D` / `Pad3D` with the mode (and for ZeroPad the value) fixed, over `paddle.nn.functional.pad`.

The padding list runs from the last spatial axis to the first, two ints per axis: ``[left, right]`` (1-D),
``[left, right, top, bottom]`` (2-D), ``[left, right, top, bottom, front, back]`` (3-D), whatever the
data_format; one int pads every side by that much. (`ZeroPad2D` lives in ``common`` with `Pad2D`.)"""
from __future__ import annotations

from paddle_fn.nn_compat.layer.common import _PadND

__all__ = ["CircularPad1D", "CircularPad2D", "CircularPad3D", "ConstantPad1D", "ConstantPad2D", "ConstantPad3D",
           "ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D",
           "ReplicationPad3D", "ZeroPad1D", "ZeroPad3D"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _FixedModePad(_PadND):
    """A PadND layer with its mode fixed by the class; checks the data_format, the input's rank and (reflect)
    that every pad is smaller than its axis, with errors that name the layer."""
    _fixed_mode = "constant"

    def __init__(self, padding, value, data_format, name):
        what = type(self).__name__
        if data_format not in _FORMATS[self._n_dim]:
            raise ValueError(f"{what}: data_format must be {' or '.join(map(repr, _FORMATS[self._n_dim]))}, "
                             f"got {data_format!r}")
        super().__init__(padding, self._fixed_mode, value, data_format, name)

    def forward(self, x):
        what, shape, rank = type(self).__name__, list(x.shape), self._n_dim + 2
        if len(shape) != rank:
            raise ValueError(f"{what}: expects a {rank}-D input ({self._data_format}), got shape {shape}; use the "
                             f"{len(shape) - 2}D layer for a {len(shape)}-D input or reshape it to {rank}-D")
        spatial = range(2, rank) if self._data_format[1] == "C" else range(1, rank - 1)
        if self._mode == "reflect":
            for i, axis in enumerate(reversed(spatial)):
                lo, hi = self.padding[2 * i], self.padding[2 * i + 1]
                if max(lo, hi) >= shape[axis]:
                    raise ValueError(f"{what}: reflect padding ({lo}, {hi}) of axis {axis} must be smaller than its "
                                     f"size {shape[axis]} (input shape {shape}); use ReplicationPad or CircularPad "
                                     "to pad further")
        return super().forward(x)


class ZeroPad1D(_FixedModePad):
    """Pad the last axis of a 3-D input with zeros: ``[left, right]``.

    Args:
        padding (int|list|Tensor): one int for both sides or ``[left, right]``.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ZeroPad1D([1, 2])
        >>> m
        ZeroPad1D(padding=[1, 2], mode=constant, value=0.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1, 2, 3]]])).tolist()
        [[[0, 1, 2, 3, 0, 0]]]
    """

    def __init__(self, padding, data_format="NCL", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ZeroPad3D(_FixedModePad):
    """Pad the three spatial axes of a 5-D input with zeros: ``[left, right, top, bottom, front, back]``.

    Args:
        padding (int|list|Tensor): one int for every side or six ints.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ZeroPad3D([1, 0, 0, 0, 0, 1])
        >>> m(paddle.to_tensor([[[[[1, 2]]]]])).tolist()
        [[[[[0, 1, 2]], [[0, 0, 0]]]]]
    """
    _n_dim = 3

    def __init__(self, padding, data_format="NCDHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ConstantPad1D(_FixedModePad):
    """Pad the last axis of a 3-D input with the constant `value`: ``[left, right]``.

    Args:
        padding (int|list|Tensor): one int for both sides or ``[left, right]``.
        value (float): the constant.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ConstantPad1D([2, 1], 9.0)
        >>> m
        ConstantPad1D(padding=[2, 1], mode=constant, value=9.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1, 2, 3]]])).tolist()
        [[[9, 9, 1, 2, 3, 9]]]
    """

    def __init__(self, padding, value, data_format="NCL", name=None):
        super().__init__(padding, value, data_format, name)


class ConstantPad2D(_FixedModePad):
    """Pad the two spatial axes of a 4-D input with the constant `value`: ``[left, right, top, bottom]``.

    Args:
        padding (int|list|Tensor): one int for every side or four ints.
        value (float): the constant.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ConstantPad2D([1, 0, 0, 1], 7.0)
        >>> m(paddle.to_tensor([[[[1, 2], [3, 4]]]])).tolist()
        [[[[7, 1, 2], [7, 3, 4], [7, 7, 7]]]]
    """
    _n_dim = 2

    def __init__(self, padding, value, data_format="NCHW", name=None):
        super().__init__(padding, value, data_format, name)


class ConstantPad3D(_FixedModePad):
    """Pad the three spatial axes of a 5-D input with the constant `value`:
    ``[left, right, top, bottom, front, back]``.

    Args:
        padding (int|list|Tensor): one int for every side or six ints.
        value (float): the constant.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ConstantPad3D([0, 1, 0, 0, 1, 0], 5.0)
        >>> m(paddle.to_tensor([[[[[1, 2]]]]])).tolist()
        [[[[[5, 5, 5]], [[1, 2, 5]]]]]
    """
    _n_dim = 3

    def __init__(self, padding, value, data_format="NCDHW", name=None):
        super().__init__(padding, value, data_format, name)


class ReflectionPad1D(_FixedModePad):
    """Pad the last axis of a 3-D input with its reflection (the edge not repeated): ``[left, right]``; each pad
    must be smaller than the axis.

    Args:
        padding (int|list|Tensor): one int for both sides or ``[left, right]``.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReflectionPad1D([2, 1])
        >>> m
        ReflectionPad1D(padding=[2, 1], mode=reflect, value=0.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1, 2, 3, 4]]])).tolist()
        [[[3, 2, 1, 2, 3, 4, 3]]]
    """
    _fixed_mode = "reflect"

    def __init__(self, padding, data_format="NCL", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ReflectionPad2D(_FixedModePad):
    """Pad the two spatial axes of a 4-D input with their reflection: ``[left, right, top, bottom]``; each pad
    must be smaller than its axis.

    Args:
        padding (int|list|Tensor): one int for every side or four ints.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReflectionPad2D([1, 0, 0, 1])
        >>> m(paddle.to_tensor([[[[1, 2, 3], [4, 5, 6]]]])).tolist()
        [[[[2, 1, 2, 3], [5, 4, 5, 6], [2, 1, 2, 3]]]]
    """
    _n_dim = 2
    _fixed_mode = "reflect"

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ReflectionPad3D(_FixedModePad):
    """Pad the three spatial axes of a 5-D input with their reflection:
    ``[left, right, top, bottom, front, back]``; each pad must be smaller than its axis.

    Args:
        padding (int|list|Tensor): one int for every side or six ints.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReflectionPad3D([0, 1, 0, 0, 1, 0])
        >>> m(paddle.to_tensor([[[[[1, 2]], [[3, 4]]]]])).tolist()
        [[[[[3, 4, 3]], [[1, 2, 1]], [[3, 4, 3]]]]]
    """
    _n_dim = 3
    _fixed_mode = "reflect"

    def __init__(self, padding, data_format="NCDHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ReplicationPad1D(_FixedModePad):
    """Pad the last axis of a 3-D input by repeating its edge values: ``[left, right]``.

    Args:
        padding (int|list|Tensor): one int for both sides or ``[left, right]``.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReplicationPad1D([1, 2])
        >>> m
        ReplicationPad1D(padding=[1, 2], mode=replicate, value=0.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1, 2, 3]]])).tolist()
        [[[1, 1, 2, 3, 3, 3]]]
    """
    _fixed_mode = "replicate"

    def __init__(self, padding, data_format="NCL", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ReplicationPad2D(_FixedModePad):
    """Pad the two spatial axes of a 4-D input by repeating their edge values: ``[left, right, top, bottom]``.

    Args:
        padding (int|list|Tensor): one int for every side or four ints.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReplicationPad2D([0, 1, 1, 0])
        >>> m(paddle.to_tensor([[[[1, 2], [3, 4]]]])).tolist()
        [[[[1, 2, 2], [1, 2, 2], [3, 4, 4]]]]
    """
    _n_dim = 2
    _fixed_mode = "replicate"

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class ReplicationPad3D(_FixedModePad):
    """Pad the three spatial axes of a 5-D input by repeating their edge values:
    ``[left, right, top, bottom, front, back]``.

    Args:
        padding (int|list|Tensor): one int for every side or six ints.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ReplicationPad3D([1, 0, 0, 0, 0, 1])
        >>> m(paddle.to_tensor([[[[[1, 2]]]]])).tolist()
        [[[[[1, 1, 2]], [[1, 1, 2]]]]]
    """
    _n_dim = 3
    _fixed_mode = "replicate"

    def __init__(self, padding, data_format="NCDHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class CircularPad1D(_FixedModePad):
    """Pad the last axis of a 3-D input by wrapping around (the right end continues from the left):
    ``[left, right]``.

    Args:
        padding (int|list|Tensor): one int for both sides or ``[left, right]``.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.CircularPad1D([1, 2])
        >>> m
        CircularPad1D(padding=[1, 2], mode=circular, value=0.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1, 2, 3]]])).tolist()
        [[[3, 1, 2, 3, 1, 2]]]
    """
    _fixed_mode = "circular"

    def __init__(self, padding, data_format="NCL", name=None):
        super().__init__(padding, 0.0, data_format, name)


class CircularPad2D(_FixedModePad):
    """Pad the two spatial axes of a 4-D input by wrapping around: ``[left, right, top, bottom]``.

    Args:
        padding (int|list|Tensor): one int for every side or four ints.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.CircularPad2D([1, 0, 0, 1])
        >>> m(paddle.to_tensor([[[[1, 2], [3, 4]]]])).tolist()
        [[[[2, 1, 2], [4, 3, 4], [2, 1, 2]]]]
    """
    _n_dim = 2
    _fixed_mode = "circular"

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, 0.0, data_format, name)


class CircularPad3D(_FixedModePad):
    """Pad the three spatial axes of a 5-D input by wrapping around: ``[left, right, top, bottom, front, back]``.

    Args:
        padding (int|list|Tensor): one int for every side or six ints.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.CircularPad3D([0, 0, 1, 0, 0, 1])
        >>> m(paddle.to_tensor([[[[[1], [2]], [[3], [4]]]]])).tolist()
        [[[[[2], [1], [2]], [[4], [3], [4]], [[2], [1], [2]]]]]
    """
    _n_dim = 3
    _fixed_mode = "circular"

    def __init__(self, padding, data_format="NCDHW", name=None):
        super().__init__(padding, 0.0, data_format, name)
