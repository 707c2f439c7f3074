"""Paddle's Tensor methods about what lies under a Tensor: its storage (``data_ptr``, ``offset``, ``set_``,
``reconstruct_from_``, ``inplace_version``), its kind (``type``, ``layout``, ``device``), the ``DenseTensor`` that
``get_tensor()`` gives, ``random_``, ``is_same_shape``, ``sparse_dim`` / ``dense_dim`` and ``format()`` of a 0-D
Tensor; and ``paddle.tensor.create_tensor``. `install()` attaches the methods to Tensor.

A paddle_fn Tensor handle refers to one immutable array. Handles that Paddle makes share a buffer (``x.detach()``,
``x.set_(y)``, ``x.reconstruct_from_(y)``) share a `Storage` here: an in-place update through one is seen by all.
No Tensor is a view into part of another's buffer, so ``offset`` is always 0.
"""
from __future__ import annotations

import enum

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.device_name import device_of
from paddle_fn.core.trace import Tensor, Tracer, get_aval
from paddle_fn.random import paddle_randint
from paddle_fn.tensor._util import check_cpu, static_list
from paddle_fn.tensor.creation import to_tensor
from paddle_fn.tensor.math import cast

__all__ = ["create_tensor"]


class VarType(enum.Enum):
    """The kind of a Tensor (``Tensor.type``): paddle_fn's are dense, as Paddle's dynamic-mode Tensors are."""
    DENSE_TENSOR = 7


def create_tensor(dtype, name=None, persistable=False):
    """A Tensor to be filled later (``paddle.tensor.create_tensor``): Paddle's is not yet initialized; paddle_fn has
    no uninitialized Tensors, so this one is empty (shape ``[0]``) until ``paddle.assign(value, output=t)`` or
    ``t.set_(value)`` gives it a value.

    Example:
        >>> import paddle_fn as paddle
        >>> t = paddle.tensor.create_tensor(dtype='float32')
        >>> t.set_(paddle.to_tensor([1.0, 2.0])).tolist()
        [1.0, 2.0]
    """
    out = Tensor(np.zeros([0], dtypes.as_dtype(dtype).np))
    if name is not None:
        out.name = name
    out.persistable = bool(persistable)
    return out


def data_ptr(self):
    """The address of the Tensor's first element in host memory (an int).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([1, 2, 3]).data_ptr() > 0
        True
    """
    return self.concrete_value().ctypes.data


def _offset(self):
    """The byte offset of the Tensor's data in its buffer: always 0 here (no Tensor is a view into another's)."""
    return 0


def _layout(self):
    """The data layout name Paddle reports for a dense Tensor: ``'NCHW'``."""
    return "NCHW"


def _type(self):
    """The kind of Tensor: ``VarType.DENSE_TENSOR``."""
    return VarType.DENSE_TENSOR


def _device(self):
    """Where the Tensor lives: ``Device('cpu')`` for host values and CPU devices (it equals the string 'cpu'),
    ``Device('gpu:0')`` for a result a jitted function left on that GPU."""
    value = self.resolve()
    return device_of(None if isinstance(value, Tracer) else value.device_array)


def _inplace_version(self):
    """How many in-place updates (``x[i] = v``, ``x.add_(y)``, ...) were made to this Tensor's storage, through it or
    a handle sharing it (``x.detach()``).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2])
        >>> x[0] = 3.0
        >>> x.inplace_version
        1
    """
    storage = self.resolve()._storage
    return 0 if storage is None else storage.version


def is_same_shape(self, y):
    """Whether `y` (a dense or sparse Tensor) has this Tensor's shape.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones([2, 3]).is_same_shape(paddle.zeros([2, 3])), paddle.ones([2]).is_same_shape(paddle.ones([3]))
        (True, False)
    """
    return list(self.shape) == list(y.shape)


def sparse_dim(self):
    """The number of sparse axes: 0 for a dense Tensor (as for Paddle's; sparse Tensors answer for themselves)."""
    return 0


def dense_dim(self):
    """The number of dense axes: all of a dense Tensor's.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2, 3])
        >>> x.sparse_dim(), x.dense_dim()
        (0, 2)
    """
    return get_aval(self).ndim


def _is_shared_buffer_with(self, other):
    """Whether this Tensor and `other` share storage (one of them came from the other's ``detach`` or ``set_``)."""
    mine, theirs = self.resolve()._storage, other.resolve()._storage
    return self.resolve() is other.resolve() or (mine is not None and mine is theirs)


def set_(self, source=None, shape=None, stride=None, offset=0, name=None):
    """Make this Tensor use `source`'s storage (in place): all of it, or the elements that `shape`, `stride` (in
    elements) and `offset` (in bytes) select from its flattened buffer; with no `source`, an empty Tensor of this
    dtype. With the whole of `source`, the two share storage from then on (an in-place update of either shows in
    both).

    Example:
        >>> import paddle_fn as paddle
        >>> src = paddle.to_tensor([11., 22., 33., 44., 55., 66.])
        >>> x = paddle.to_tensor([1., 2.])
        >>> x.set_(src, shape=[3], stride=[2]).tolist()
        [11.0, 33.0, 55.0]
        >>> x.set_(src, shape=[2, 2], offset=8).tolist()
        [[33.0, 44.0], [55.0, 66.0]]
    """
    if source is None:
        self._rebind(Tensor(np.zeros([0], get_aval(self).dtype.np)))
        return self
    if not isinstance(source, Tensor):
        raise TypeError(f"set_: source must be a Tensor, got {type(source).__name__}")
    if shape is None and stride is None and offset == 0:
        self._rebind(source)
        self._share_storage_with(source)
        return self
    flat = np.ascontiguousarray(source.concrete_value()).reshape(-1)
    shape = list(source.shape) if shape is None else static_list("set_", shape, "shape")
    itemsize = flat.dtype.itemsize
    if stride is None:
        stride = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    stride = static_list("set_", stride, "stride")
    if offset % itemsize or len(stride) != len(shape):
        raise ValueError(f"set_: offset {offset} must be a multiple of the element size {itemsize} bytes, and "
                         f"stride {stride} needs one entry per dimension of shape {shape}")
    start = offset // itemsize
    last = start + sum((n - 1) * s for n, s in zip(shape, stride) if n > 0)
    if min(shape, default=1) > 0 and (start < 0 or last >= flat.size):
        raise ValueError(f"set_: shape {shape}, stride {stride} and offset {offset} reach element {last} of a "
                         f"source with {flat.size} elements")
    picked = np.lib.stride_tricks.as_strided(flat[start:], shape, [s * itemsize for s in stride])
    self._rebind(Tensor(np.array(picked)))
    return self


def reconstruct_from_(self, other):
    """Make this Tensor a copy of the handle `other` (in place): its value, storage and ``stop_gradient``, without
    gradient history.

    Example:
        >>> import paddle_fn as paddle
        >>> t1 = paddle.to_tensor([1.0], stop_gradient=False)
        >>> t1.reconstruct_from_(paddle.to_tensor([2.0, 3.0]))
        >>> t1.tolist(), t1.stop_gradient
        ([2.0, 3.0], True)
    """
    self._grad_node = None
    self._share_storage_with(other)
    self.stop_gradient = other.stop_gradient


def random_(self, from_=0, to=None, *, generator=None):
    """Fill with integers drawn uniformly from ``[from_, to)`` (in place), from the global seed; `to` defaults to
    the dtype's largest integer (for floats, the largest one it holds exactly, 2**mantissa bits). Paddle's
    `generator` is accepted as None only (draws come from the global seed here).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([3], dtype=paddle.int32)
        >>> values = x.random_(0, 10).tolist()
        >>> all(0 <= v < 10 for v in values)
        True
    """
    if generator is not None:
        raise TypeError("random_: generator objects are not supported; draws come from the global seed "
                        "(paddle.seed)")
    low = from_
    aval = get_aval(self)
    if to is None:
        to = (2 ** (np.finfo(aval.dtype.np).nmant + 1) if aval.dtype.kind == "f"
              else int(np.iinfo(aval.dtype.np).max))
    if low >= to:
        raise ValueError(f"random_: from ({low}) must be less than to ({to})")
    draw = paddle_randint(low, to, shape=list(aval.shape), dtype="int64")
    self._rebind(cast(draw, aval.dtype))
    return self


class DenseTensor:
    """What ``Tensor.get_tensor()`` gives: Paddle's DenseTensor view of a Tensor's value. ``set(array, place)``
    replaces the Tensor's value (in place), as Paddle's legacy code does through it.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.5, 2.0])
        >>> print(x.get_tensor())
          - shape: [2]
          - layout: NCHW
          - place: Place(cpu)
          - dtype: float32
          - data: [1.5 2]
        >>> x.get_tensor().set([3.0, 4.0], None); x.tolist()
        [3.0, 4.0]
    """

    def __init__(self, tensor):
        self._tensor = tensor

    def shape(self):
        return list(self._tensor.shape)

    def _dtype(self):
        return self._tensor.dtype

    def _numel(self):
        return self._tensor.size

    def _is_initialized(self):
        return True

    def set(self, array, place=None):
        """Replace the Tensor's value with `array` (its shape and dtype too); `place` can only be None or the CPU."""
        check_cpu("set", place)
        self._tensor._rebind(to_tensor(np.asarray(array)).detach())

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._tensor.concrete_value(), dtype=dtype)

    def __str__(self):
        t = self._tensor
        data = " ".join(f"{v:g}" for v in np.asarray(t.concrete_value()).reshape(-1).tolist())
        return (f"  - shape: {list(t.shape)}\n  - layout: NCHW\n  - place: {t.place}\n  - dtype: {t.dtype.name}\n"
                f"  - data: [{data}]")


def get_tensor(self):
    """The DenseTensor view of this Tensor (see `DenseTensor`)."""
    return DenseTensor(self)


def install():
    """Attach the methods to Tensor (called by tensor_only.install)."""
    for fn in (data_ptr, is_same_shape, set_, reconstruct_from_, random_, get_tensor, sparse_dim, dense_dim,
               _is_shared_buffer_with):
        setattr(Tensor, fn.__name__, fn)
    for name, getter in (("offset", _offset), ("layout", _layout), ("type", _type), ("device", _device),
                         ("inplace_version", _inplace_version)):
        setattr(Tensor, name, property(getter))
