"""Paddle 3's Tensor methods that have no function of the same name: the ``new_*`` constructors, the dtype
shortcuts (``x.float()``, ``x.long()``), memory-layout queries (``stride``, ``is_contiguous``; a paddle_fn Tensor
is always one dense row-major block), ``to``, ``type_as``, ``requires_grad``, ``mT``, ``split_with_sizes``,
``apply`` and the diagonal fills. `install()` attaches them to Tensor.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.tensor._util import check_cpu, check_not_pinned, normalize_axis, sizes_argument, static_list
from paddle_fn.tensor.aliases import matrix_transpose
from paddle_fn.tensor.creation import full
from paddle_fn.tensor.scatters import diagonal_scatter
from paddle_fn.tensor import storage_methods
from paddle_fn.tensor.manipulation import concat, reshape, split, tile
from paddle_fn.tensor.promotion import as_tensor, cast


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new Tensor of shape `size` filled with `fill_value`, in this Tensor's dtype unless `dtype` is given
    (``new_zeros``, ``new_ones`` and ``new_empty`` fill with 0, 1 and 0); ``requires_grad=True`` makes it need a
    gradient.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2], dtype='int32')
        >>> x.new_full([2, 2], 7).tolist(), x.new_zeros([3]).dtype
        ([[7, 7], [7, 7]], paddle.int32)
    """
    check_cpu("new_full", device)
    check_not_pinned("new_full", pin_memory)
    out = full(static_list("new_full", size, "size"), fill_value,
               dtype=get_aval(self).dtype if dtype is None else dtype)
    out.stop_gradient = not requires_grad
    return out


def _new_filled(name, value):
    def method(self, size, *more_sizes, dtype=None, device=None, requires_grad=False, pin_memory=False):
        # x.new_zeros([2, 3]) or x.new_zeros(2, 3)
        return new_full(self, sizes_argument(size, more_sizes), value, dtype=dtype, device=device,
                        requires_grad=requires_grad, pin_memory=pin_memory)
    method.__name__ = method.__qualname__ = f"new_{name}"
    method.__doc__ = f"A new Tensor of shape `size` filled with {value} (see ``new_full``)."
    return method


def _cast_to(dtype):
    def method(self):
        return cast(self, dtype)
    method.__doc__ = f"This Tensor cast to {dtype.name}."
    return method


def stride(self, dim=None):
    """The number of elements to step in memory for one step along each dimension (or along `dim`), as for a
    dense row-major array: paddle_fn Tensors always are one.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2, 3])
        >>> x.stride(), x.stride(0), x.is_contiguous()
        ([3, 1], 3, True)
    """
    shape = get_aval(self).shape
    strides = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    return strides if dim is None else strides[normalize_axis("stride", dim, len(shape))]


def is_contiguous(self):
    """True: a paddle_fn Tensor is always one dense row-major block (so ``contiguous()`` returns it as it is)."""
    return True


def contiguous(self):
    """This Tensor (already contiguous; see ``is_contiguous``)."""
    return self


def element_size(self):
    """The size of one element in bytes.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones([2], dtype='float64').element_size()
        8
    """
    return get_aval(self).dtype.np.itemsize


def to(self, *args, **kwargs):
    """This Tensor converted to a dtype and/or device: ``x.to('float64')``, ``x.to(paddle.int32)``,
    ``x.to('cpu')``, ``x.to(other)`` (other's dtype), ``x.to('cpu', 'float16')``; `blocking` is accepted (transfers
    here are synchronous).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2])
        >>> x.to('float64').dtype, x.to('cpu', paddle.int32).dtype, x.to(paddle.zeros([1], 'int64')).dtype
        (paddle.float64, paddle.int32, paddle.int64)
    """
    unknown = set(kwargs) - {"device", "dtype", "blocking", "non_blocking", "copy"}
    if unknown:
        raise TypeError(f"to: unexpected keyword argument(s) {sorted(unknown)}")
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype = get_aval(arg).dtype
        elif isinstance(arg, bool):
            continue  # the positional `blocking` flag
        elif _is_dtype(arg):
            dtype = arg
        else:
            device = arg
    check_cpu("to", device)
    return self if dtype is None else cast(self, dtype)


def _is_dtype(value):
    try:
        dtypes.as_dtype(value)
    except TypeError:
        return False
    return True


def type_as(self, other):
    """This Tensor cast to `other`'s dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones([1]).type_as(paddle.zeros([1], 'int32')).dtype
        paddle.int32
    """
    return cast(self, get_aval(as_tensor(other)).dtype)


def _requires_grad(self):
    """``not stop_gradient``: whether backward computes a gradient for this Tensor (settable)."""
    return not self.stop_gradient


def _set_requires_grad(self, value):
    self.stop_gradient = not value


def requires_grad_(self, requires_grad=True):
    """Set ``requires_grad`` (``stop_gradient = not requires_grad``) and return this Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones([2]).requires_grad_().stop_gradient
        False
    """
    self.stop_gradient = not requires_grad
    return self


def ndimension(self):
    """The number of dimensions (``ndim``)."""
    return get_aval(self).ndim


def repeat(self, repeats, *more_repeats):
    """This Tensor repeated `repeats` times along each dimension (``x.repeat(2, 1)`` or ``x.repeat([2, 1])``;
    the same as ``paddle.tile``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([[1, 2]]).repeat(2, 2).tolist()
        [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    return tile(self, sizes_argument(repeats, more_repeats))


def split_with_sizes(self, split_sizes, dim=0):
    """This Tensor split along `dim` into pieces of the given sizes (which add up to the dimension's size).

    Example:
        >>> import paddle_fn as paddle
        >>> [p.shape for p in paddle.ones([2, 3]).split_with_sizes([1, 2], dim=1)]
        [paddle.Size([2, 1]), paddle.Size([2, 2])]
    """
    sizes = static_list("split_with_sizes", split_sizes, "split_sizes")
    ax = normalize_axis("split_with_sizes", dim, get_aval(self).ndim)
    if sum(sizes) != get_aval(self).shape[ax]:
        raise ShapeError(f"split_with_sizes: the sizes {sizes} add up to {sum(sizes)}, but dimension {ax} has size "
                         f"{get_aval(self).shape[ax]}")
    return split(self, sizes, axis=ax)


def resize_(self, shape, fill_zero=False, name=None):
    """In place: this Tensor's elements, in row-major order, as a Tensor of `shape`; elements beyond the old
    size are 0 (Paddle leaves them uninitialised unless `fill_zero`; here they are always zeros).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([1.0, 2.0, 3.0]).resize_([2, 2]).tolist()
        [[1.0, 2.0], [3.0, 0.0]]
    """
    shape = static_list("resize_", shape, "shape")
    size = int(np.prod(shape, dtype=np.int64))
    flat = reshape(self, [-1])
    have = get_aval(flat).shape[0]
    if size > have:
        flat = concat([flat, full([size - have], 0, dtype=get_aval(self).dtype)])
    self._rebind(reshape(flat[:size], shape))
    return self


def is_dense(self):
    """True: a paddle_fn Tensor is always dense (paddle.sparse holds the sparse formats)."""
    return True


def is_sparse(self):
    """False: a dense Tensor (sparse Tensors answer True); installed as is_sparse_coo and is_sparse_csr too."""
    return False


def is_dist(self):
    """False: a paddle_fn Tensor is never a distributed (sharded) Tensor; pmap and DataParallel shard values."""
    return False


def apply(self, func):
    """``func(self)``: apply a function of one Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([1.0, 2.0]).apply(lambda t: t * 3).tolist()
        [3.0, 6.0]
    """
    return func(self)


def apply_(self, func):
    """In place: rebind this Tensor to ``func(self)`` and return it."""
    self._rebind(func(self))
    return self


def _diagonal_positions(shape, offset, wrap):
    """Flat positions of the diagonal that fill_diagonal_ writes: (i, i + offset) in a matrix, continuing every
    `cols + 1` rows below a square block when `wrap`; (i, i, ..., i) in a Tensor of more equal dimensions."""
    if len(shape) > 2:
        if len(set(shape)) != 1:
            raise ShapeError(f"fill_diagonal_: a Tensor of rank > 2 must have equal dimensions, got {list(shape)}")
        return np.arange(shape[0]) * sum(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    rows, cols = shape
    r = np.arange(rows)
    c = (r % (cols + 1) if wrap else r) + offset
    keep = (c >= 0) & (c < cols)
    return r[keep] * cols + c[keep]


def fill_diagonal_(self, value, offset=0, wrap=False, name=None):
    """Set the main diagonal (shifted right by `offset`) to `value`, in place. For a matrix with more rows than
    columns, `wrap=True` restarts the diagonal every ``cols + 1`` rows, as numpy's ``fill_diagonal`` does.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([3, 4])
        >>> x.fill_diagonal_(5.0, offset=1).tolist()
        [[0.0, 5.0, 0.0, 0.0], [0.0, 0.0, 5.0, 0.0], [0.0, 0.0, 0.0, 5.0]]
    """
    shape = tuple(get_aval(self).shape)
    if len(shape) < 2:
        raise ShapeError(f"fill_diagonal_: x must have at least 2 dimensions, got shape {list(shape)}")
    positions = _diagonal_positions(shape, int(offset), bool(wrap))
    flat = reshape(self, [-1]).at[as_tensor(positions.astype(np.int64))].set(value)
    self._rebind(reshape(flat, list(shape)))
    return self


def fill_diagonal_tensor(self, y, offset=0, dim1=0, dim2=1, name=None):
    """``paddle.diagonal_scatter(x, y, offset, dim1, dim2)``: a copy with the diagonal `offset` of the plane
    (`dim1`, `dim2`) replaced by `y`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.zeros([2, 3]).fill_diagonal_tensor(paddle.to_tensor([1.0, 2.0])).tolist()
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """
    return diagonal_scatter(self, y, offset, dim1, dim2)


def fill_diagonal_tensor_(self, y, offset=0, dim1=0, dim2=1, name=None):
    """In-place ``fill_diagonal_tensor``."""
    self._rebind(diagonal_scatter(self, y, offset, dim1, dim2))
    return self


_CASTS = {"float": dtypes.float32, "double": dtypes.float64, "half": dtypes.float16, "bfloat16": dtypes.bfloat16,
          "int": dtypes.int32, "long": dtypes.int64, "short": dtypes.int16, "char": dtypes.int8, "byte": dtypes.uint8,
          "bool": dtypes.bool_}


def install():
    """Attach the methods to Tensor (called by methods.install)."""
    for name, value in (("zeros", 0), ("ones", 1), ("empty", 0)):
        setattr(Tensor, f"new_{name}", _new_filled(name, value))
    for name, dtype in _CASTS.items():
        setattr(Tensor, name, _cast_to(dtype))
    for fn in (new_full, stride, is_contiguous, contiguous, element_size, to, type_as, requires_grad_, ndimension, repeat,
               split_with_sizes, resize_, is_dense, is_sparse, is_dist, apply, apply_, fill_diagonal_, fill_diagonal_tensor, fill_diagonal_tensor_):
        setattr(Tensor, fn.__name__, fn)
    Tensor.is_sparse_coo = Tensor.is_sparse_csr = is_sparse
    Tensor.get_strides = stride
    Tensor.strides = property(stride)
    Tensor.itemsize = property(element_size)
    Tensor.requires_grad = property(_requires_grad, _set_requires_grad)
    Tensor.mT = property(matrix_transpose)
    Tensor.data = property(lambda self: self, _assign_data)
    storage_methods.install()


def _assign_data(self, value):
    """``x.data = y``: x takes y's value (as set_value, without gradient history)."""
    self.set_value(value)
