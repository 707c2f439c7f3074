"""`InputSpec` (``paddle.static.InputSpec``) and the static-mode switches, which paddle_fn answers honestly."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.dtypes import as_dtype
from paddle_fn.core.trace import Tensor
from paddle_fn.transforms.devices import set_device

__all__ = ["InputSpec", "disable_static", "enable_static", "in_dynamic_mode"]


class InputSpec:
    """The description of one input of a function or Layer: its shape, dtype and name, for
    ``paddle.jit.to_static(..., input_spec=[...])`` and ``paddle.jit.save(..., input_spec=[...])``.

    A ``None`` (or -1) dimension is dynamic: it prints as -1, ``paddle.jit.save`` keeps it symbolic in the saved
    program, and the loaded program is specialised for each concrete size it is called with.

    Args:
        shape (list|tuple): the dimensions; ``None`` or -1 for a dynamic one.
        dtype (str|paddle.dtype|np.dtype, optional): Default: 'float32'.
        name (str, optional): the input's name. Default: None (jit.save uses the argument's name).
        stop_gradient (bool, optional): whether the input needs no gradient. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.static import InputSpec
        >>> x_spec = InputSpec(shape=[None, 784], dtype='float32', name='x')
        >>> x_spec
        InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, stop_gradient=False)
        >>> InputSpec.from_tensor(paddle.ones([2, 3]), name='y')
        InputSpec(shape=(2, 3), dtype=paddle.float32, name=y, stop_gradient=False)
    """

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = self._verify(shape)
        self.dtype = as_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    @staticmethod
    def _verify(shape):
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"Type of `shape` in InputSpec should be one of (tuple, list), but received "
                            f"{type(shape).__name__}.")
        dims = []
        for i, d in enumerate(shape):
            if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer))):
                raise ValueError(f"shape[{i}] should be an `int`, but received `{type(d).__name__}`:{d}.")
            dims.append(-1 if d is None or d < -1 else int(d))
        return tuple(dims)

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """An InputSpec with the shape and dtype of `tensor`; its name is `name`, else the Tensor's name.

        Args:
            tensor (Tensor): the source Tensor.
            name (str, optional): Default: None (the Tensor's name).

        Example:
            >>> import paddle_fn as paddle
            >>> from paddle_fn.static import InputSpec
            >>> InputSpec.from_tensor(paddle.ones([2, 2]), name='x')
            InputSpec(shape=(2, 2), dtype=paddle.float32, name=x, stop_gradient=False)
        """
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Input `tensor` should be a Tensor, but received {type(tensor).__name__}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        """An InputSpec with the shape and dtype of a numpy array.

        Args:
            ndarray (numpy.ndarray): the source array.
            name (str, optional): Default: None.

        Example:
            >>> import numpy as np
            >>> from paddle_fn.static import InputSpec
            >>> InputSpec.from_numpy(np.ones([2, 2], np.int32), name='x')
            InputSpec(shape=(2, 2), dtype=paddle.int32, name=x, stop_gradient=False)
        """
        if not isinstance(ndarray, np.ndarray):
            raise ValueError(f"Input `ndarray` should be a numpy.ndarray, but received {type(ndarray).__name__}.")
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        """Insert `batch_size` in front of the shape, in place; returns this InputSpec.

        Args:
            batch_size (int|list|tuple): the batch dimension (a list or tuple of one int is accepted).

        Example:
            >>> from paddle_fn.static import InputSpec
            >>> InputSpec(shape=[64], name='x').batch(4)
            InputSpec(shape=(4, 64), dtype=paddle.float32, name=x, stop_gradient=False)
        """
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"Length of batch_size: {batch_size} shall be 1, but received {len(batch_size)}.")
            batch_size = batch_size[0]
        elif isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise TypeError(f"type(batch_size) shall be `int`, but received {type(batch_size).__name__}.")
        self.shape = self._verify([batch_size, *self.shape])
        return self

    def unbatch(self):
        """Remove the first dimension of the shape, in place; returns this InputSpec.

        Example:
            >>> from paddle_fn.static import InputSpec
            >>> InputSpec(shape=[4, 64], name='x').unbatch()
            InputSpec(shape=(64,), dtype=paddle.float32, name=x, stop_gradient=False)
        """
        if len(self.shape) == 0:
            raise ValueError("Not support to unbatch a InputSpec when len(shape) == 0.")
        self.shape = self.shape[1:]
        return self

    def __repr__(self):
        return (f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype!r}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")

    def __eq__(self, other):
        return type(self) is type(other) and all(getattr(self, a) == getattr(other, a)
                                                 for a in ("shape", "dtype", "name", "stop_gradient"))

    def __hash__(self):
        # As Paddle: the name is not part of the hash, so inputs differing only by name share a program.
        return hash((self.shape, self.dtype, self.stop_gradient))


def enable_static():
    """Paddle's switch to the static-graph mode, which paddle_fn does not have: it always raises.

    paddle_fn runs eagerly (dygraph) and compiles with ``paddle.jit`` / ``paddle.jit.to_static``; write the
    program as Python functions or Layers and decorate them instead of building a ``paddle.static.Program``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.enable_static()
        Traceback (most recent call last):
        ...
        NotImplementedError: paddle.enable_static(): paddle_fn has no static-graph mode ...
    """
    raise NotImplementedError(
        "paddle.enable_static(): paddle_fn has no static-graph mode (Program, Executor, static.data); it runs "
        "eagerly like Paddle's dygraph and compiles with paddle.jit.to_static. Remove enable_static() and decorate "
        "the function or Layer with @paddle.jit.to_static (InputSpec describes its inputs)")


def disable_static(place=None):
    """Paddle's switch back to dygraph mode; paddle_fn is always in it, so this only checks `place`.

    Args:
        place (str|Place, optional): accepted as Paddle does; set the device with ``paddle.set_device``.
            Default: None.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.disable_static()
        >>> paddle.in_dynamic_mode()
        True
    """
    if place is not None:
        set_device(place)


def in_dynamic_mode():
    """Always True: paddle_fn runs eagerly (``paddle.in_dynamic_mode``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.in_dynamic_mode()
        True
    """
    return True
