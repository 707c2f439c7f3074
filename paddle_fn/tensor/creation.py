"""Creation functions: to_tensor, zeros/ones/full(_like), arange, linspace, eye, empty, clone, assign, diag,
tril/triu.

Constants are built as a broadcast 0-d literal or from `iota`, so under `jit` they stay a few IR
equations instead of large embedded arrays.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError, UnsupportedError
from paddle_fn.core.trace import Tensor, Tracer, adopt, concrete_or_error, get_aval
from paddle_fn.prims.base import reshape_p
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn.tensor import linalg
from paddle_fn.tensor._util import accepts_out, accepts_placement, check_cpu, ndim, shape_of, static_list, write_out
from paddle_fn.tensor.promotion import as_tensor, cast, python_to_numpy

__all__ = ["to_tensor", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
           "arange", "linspace", "eye", "clone", "assign", "diag", "tril", "triu", "meshgrid", "diag_embed",
           "diagflat", "logspace", "from_numpy", "asarray", "array", "finfo", "iinfo", "pi", "e", "inf", "nan",
           "MmapStorage"]

# Paddle's and numpy's constants (``paddle.pi``, ``jnp.pi``): Python floats, so they keep full precision until they
# meet a Tensor and take its dtype.
pi = math.pi
"""π as a Python float."""
e = math.e
"""Euler's number as a Python float."""
inf = math.inf
"""Positive infinity as a Python float."""
nan = math.nan
"""Not a number, as a Python float."""


def _float_or(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtypes.as_dtype(dtype)


def _shape_arg(op, shape):
    dims = static_list(op, shape, "shape")
    if any(d < 0 for d in dims):
        raise ShapeError(f"{op}: shape {dims} has a negative dimension")
    return tuple(dims)


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Create a Tensor from a Python scalar, (nested) list/tuple, numpy array or Tensor; the data is copied.

    As in Paddle 3 a Python scalar gives a 0-D Tensor (shape []) and a list of one gives shape [1]. Python
    floats become the default float dtype, Python complex numbers the default complex dtype, Python ints int64
    and bools bool; numpy arrays keep their dtype. With `dtype` given, Python values are converted to it
    directly, so they keep their exact value (``to_tensor([1.1], dtype='float64')`` holds the float64 nearest
    1.1, not a float32 rounding of it). Ragged nested lists raise ValueError. `place` can only be None or the CPU
    (a string, ``CPUPlace()``): eager Tensors live there, and another place raises.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor(2.0)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               2.)
        >>> paddle.to_tensor([[1, 2], [3, 4]]).dtype
        paddle.int64
        >>> paddle.to_tensor([1.1], dtype='float64').item()
        1.1
    """
    check_cpu("to_tensor", place)
    if isinstance(data, Tensor):
        if isinstance(data, Tracer):
            out = data if dtype is None else cast(data, dtype)
            return out
        arr = np.array(data.concrete_value())
        if dtype is not None:
            arr = arr.astype(dtypes.as_dtype(dtype).np)
    elif isinstance(data, (list, tuple)) and _holds_traced(data):
        return _stacked(data, dtype)
    else:
        arr = python_to_numpy(data, dtype)
    dtypes.as_dtype(arr.dtype)  # rejects unsupported numpy dtypes (complex, object, strings) with a clear error
    out = adopt(arr)  # a fresh array (python_to_numpy and np.array copy): no second copy
    out.stop_gradient = stop_gradient
    return out


def _holds_traced(data) -> bool:
    if isinstance(data, Tensor):
        return isinstance(data, Tracer) or data._alias is not None
    return isinstance(data, (list, tuple)) and any(_holds_traced(d) for d in data)


def _stacked(data, dtype):
    """A nested list holding traced Tensors (under jit, vmap, pmap or grad) stacked with ops, as ``jnp.array`` does:
    the dtype and shape are what the same list of concrete values would give, and a ragged list is refused alike."""
    def placeholder(d):
        if isinstance(d, Tensor):
            return np.zeros(shape_of(d), get_aval(d).dtype.np)
        if isinstance(d, (list, tuple)):
            return [placeholder(e) for e in d]
        return d
    target = dtypes.as_dtype(python_to_numpy(placeholder(data), dtype).dtype)

    def build(d):
        if isinstance(d, (list, tuple)):
            parts = [build(e) for e in d]
            return st.concatenate(*[st.expand_dims(p, dimensions=(0,)) for p in parts], dimension=0)
        return as_tensor(d, dtype=target)
    return build(data)


@accepts_placement
@accepts_out
def full(shape, fill_value, dtype=None, name=None):
    """A Tensor of `shape` filled with `fill_value` (a Python scalar or a one-element Tensor).

    dtype defaults to the default float dtype for a float (or Tensor) fill value, int64 for an int and bool
    for a bool.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.full([2, 2], 7).numpy()
        array([[7, 7],
               [7, 7]])
    """
    shape = _shape_arg("full", shape)
    if isinstance(fill_value, Tensor):
        v = fill_value if dtype is None else cast(fill_value, dtype)
        if get_aval(v).size != 1:
            raise ShapeError(f"full: fill_value must have one element, got shape {list(shape_of(v))}")
        return st.broadcast_in_dim(st.reshape(v, new_sizes=()), shape=shape, broadcast_dimensions=())
    if dtype is None:
        dtype = dtypes.dtype_of_scalar(fill_value) if isinstance(fill_value, (bool, int, float)) else \
            dtypes.as_dtype(np.asarray(fill_value).dtype)
    return st.full(shape, fill_value, dtype)


@accepts_placement
@accepts_out
def zeros(shape, dtype=None, name=None):
    """A Tensor of zeros (default float dtype unless `dtype` is given).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.zeros([2, 3]).shape
        paddle.Size([2, 3])
    """
    return st.full(_shape_arg("zeros", shape), 0, _float_or(dtype))


@accepts_placement
@accepts_out
def ones(shape, dtype=None, name=None):
    """A Tensor of ones (default float dtype unless `dtype` is given).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones([2], dtype='int32').numpy()
        array([1, 1], dtype=int32)
    """
    return st.full(_shape_arg("ones", shape), 1, _float_or(dtype))


@accepts_placement
@accepts_out
def empty(shape, dtype=None, name=None):
    """An uninitialised Tensor in Paddle; here it is filled with zeros (values are never observable garbage).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.empty([2, 3]).shape
        paddle.Size([2, 3])
    """
    return zeros(shape, dtype)


def _like(x, dtype):
    a = get_aval(as_tensor(x))
    return a.shape, (a.dtype if dtype is None else dtypes.as_dtype(dtype))


@accepts_placement
def zeros_like(x, dtype=None, name=None):
    """Zeros with the shape (and, unless given, the dtype) of `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.zeros_like(paddle.to_tensor([1, 2])).numpy()
        array([0, 0])
    """
    shape, dt = _like(x, dtype)
    return st.full(shape, 0, dt)


@accepts_placement
def ones_like(x, dtype=None, name=None):
    """Ones with the shape (and, unless given, the dtype) of `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.ones_like(paddle.to_tensor([1., 2.])).numpy()
        array([1., 1.], dtype=float32)
    """
    shape, dt = _like(x, dtype)
    return st.full(shape, 1, dt)


@accepts_placement
def full_like(x, fill_value, dtype=None, name=None):
    """`fill_value` with the shape (and, unless given, the dtype) of `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.full_like(paddle.to_tensor([1., 2.]), 3.5).numpy()
        array([3.5, 3.5], dtype=float32)
    """
    shape, dt = _like(x, dtype)
    return full(shape, fill_value, dt)


@accepts_placement
def empty_like(x, dtype=None, name=None):
    """Like `zeros_like` (Paddle leaves the values uninitialised).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.empty_like(paddle.ones([2])).shape
        paddle.Size([2])
    """
    return zeros_like(x, dtype)


def _concrete_number(op, v, what):
    if isinstance(v, Tensor):
        arr = concrete_or_error(v, f"{op}: {what}", "pass a Python number instead")
        return arr.reshape(-1)[0].item()
    return v


@accepts_placement
@accepts_out
def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from `start` to `end` (exclusive) spaced by `step`; `arange(n)` counts 0..n-1.

    dtype defaults to int64 when all of start/end/step are ints, else the default float dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.arange(5).numpy()
        array([0, 1, 2, 3, 4])
        >>> paddle.arange(0, 1, 0.25).numpy()
        array([0.  , 0.25, 0.5 , 0.75], dtype=float32)
    """
    if end is None:
        start, end = 0, start
    start, end, step = (_concrete_number("arange", v, n) for v, n in ((start, "start"), (end, "end"),
                                                                      (step, "step")))
    if step == 0:
        raise ValueError("arange: step must not be 0")
    if dtype is None:
        dtype = dtypes.int64 if all(isinstance(v, (int, np.integer)) for v in (start, end, step)) \
            else dtypes.default_float_dtype()
    dtype = dtypes.as_dtype(dtype)
    n = max(0, math.ceil((end - start) / step))
    idx = st.iota(dtype=dtype, shape=(n,), dimension=0)
    if step != 1:
        idx = ew.mul(idx, st.full((n,), step, dtype))
    if start != 0:
        idx = ew.add(idx, st.full((n,), start, dtype))
    return idx


def linspace(start, stop, num, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """`num` evenly spaced values from `start` to `stop`, both included. `out` (a Tensor) is made to hold the
    result; `requires_grad=True` gives it ``stop_gradient=False``; `device` can only be None or the CPU, where
    eager Tensors live (another device raises).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.linspace(0, 1, 5).numpy()
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    check_cpu("linspace", device)
    start, stop, num = (_concrete_number("linspace", v, n) for v, n in ((start, "start"), (stop, "stop"),
                                                                        (num, "num")))
    num = int(num)
    if num < 1:
        raise ValueError(f"linspace: num must be at least 1, got {num}")
    dtype = _float_or(dtype)
    work = dtype if dtype.kind == "f" else dtypes.float64
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    vals = ew.add(ew.mul(st.iota(dtype=work, shape=(num,), dimension=0), st.full((num,), step, work)),
                  st.full((num,), start, work))
    if num > 1:  # the last value is exactly `stop`, as numpy's linspace
        is_last = ew.eq(st.iota(dtype=dtypes.int32, shape=(num,), dimension=0),
                        st.full((num,), num - 1, dtypes.int32))
        vals = ew.select(is_last, st.full((num,), stop, work), vals)
    vals = cast(vals, dtype)  # to an integer dtype toward zero, as Paddle: linspace(0, 5, 3, dtype=int) is [0, 2, 5]
    vals.stop_gradient = not requires_grad
    return write_out(vals, out)


@accepts_placement
@accepts_out
def eye(num_rows, num_columns=None, dtype=None, name=None):
    """A 2-D Tensor with ones on the diagonal and zeros elsewhere.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.eye(2, 3, dtype='int32').numpy()
        array([[1, 0, 0],
               [0, 1, 0]], dtype=int32)
    """
    rows = int(_concrete_number("eye", num_rows, "num_rows"))
    cols = rows if num_columns is None else int(_concrete_number("eye", num_columns, "num_columns"))
    return st.eye(rows, cols, dtype=_float_or(dtype))


def clone(x, name=None):
    """A copy of `x`, through which gradients flow back to `x` (as Paddle's): a new handle, sharing no storage with
    `x` (an in-place update of one leaves the other as it was).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor(1.0, stop_gradient=False)
        >>> y = x.clone()
        >>> (y ** 2).backward()
        >>> y.stop_gradient, x.grad.item()
        (False, 2.0)
    """
    x = as_tensor(x)
    if isinstance(x, Tracer):
        return x
    return reshape_p.bind(x, new_sizes=tuple(get_aval(x).shape))  # the identity op, recorded by the tape


def assign(x, output=None):
    """Return `x` (a Tensor, numpy array, scalar or nested list) as a new Tensor, or make `output` hold it.

    With `output`, as in Paddle, the Tensor `output` takes `x`'s value, shape and dtype (and, under the eager tape,
    its gradient history: a gradient reaching `output` flows to `x`) and is returned. Values are never written:
    `output` is a handle that now refers to `x`'s value, so anything that held `output`'s old value keeps it.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.assign([[1, 2], [3, 4]]).shape
        paddle.Size([2, 2])
        >>> out = paddle.zeros([2])
        >>> paddle.assign(paddle.to_tensor([5.0, 6.0]), output=out) is out, out.numpy()
        (True, array([5., 6.], dtype=float32))
    """
    if output is None:
        return clone(x) if isinstance(x, Tensor) else to_tensor(x)
    if not isinstance(output, Tensor):
        raise TypeError(f"assign: output must be a Tensor, got {type(output).__name__}")
    return write_out(x if isinstance(x, Tensor) else to_tensor(x), output)


def _tri_mask(op, x, diagonal, lower):
    if ndim(x) < 2:
        raise ShapeError(f"{op}: x must have at least 2 dimensions, got shape {list(shape_of(x))}")
    shape = shape_of(x)
    rows = st.iota(dtype=dtypes.int64, shape=shape, dimension=len(shape) - 2)
    cols = st.iota(dtype=dtypes.int64, shape=shape, dimension=len(shape) - 1)
    offset = ew.add(rows, st.full(shape, int(diagonal), dtypes.int64))
    return ew.le(cols, offset) if lower else ew.ge(cols, offset)


@accepts_out
def tril(x, diagonal=0, name=None):
    """The lower triangle of the last two dimensions of `x` (elements with col - row <= diagonal); the rest 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tril(paddle.ones([2, 2])).numpy()
        array([[1., 0.],
               [1., 1.]], dtype=float32)
    """
    x = as_tensor(x)
    a = get_aval(x)
    return ew.select(_tri_mask("tril", x, diagonal, True), x, st.full(a.shape, 0, a.dtype))


@accepts_out
def triu(x, diagonal=0, name=None):
    """The upper triangle of the last two dimensions of `x` (elements with col - row >= diagonal); the rest 0.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.triu(paddle.ones([2, 2])).numpy()
        array([[1., 1.],
               [0., 1.]], dtype=float32)
    """
    x = as_tensor(x)
    a = get_aval(x)
    return ew.select(_tri_mask("triu", x, diagonal, False), x, st.full(a.shape, 0, a.dtype))


def diag(x, offset=0, padding_value=0, name=None):
    """1-D `x`: a square matrix with `x` on diagonal `offset` and `padding_value` elsewhere.
    2-D `x`: its diagonal `offset` as a 1-D Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diag(paddle.to_tensor([1, 2])).numpy()
        array([[1, 0],
               [0, 2]])
        >>> paddle.diag(paddle.to_tensor([[1, 2], [3, 4]]), offset=1).numpy()
        array([2])
    """
    x = as_tensor(x)
    a = get_aval(x)
    k = int(offset)
    if a.ndim == 1:
        m = a.shape[0]
        n = m + abs(k)
        padded = st.pad(x, Tensor(np.zeros((), a.dtype.np)), padding_config=((0, abs(k), 0),)) if k else x
        # row i holds x[i] at column i + k (k >= 0); column j holds x[j] at row j - k (k < 0)
        vals = st.broadcast_in_dim(padded, shape=(n, n), broadcast_dimensions=(0,) if k >= 0 else (1,))
        rows = st.iota(dtype=dtypes.int64, shape=(n, n), dimension=0)
        cols = st.iota(dtype=dtypes.int64, shape=(n, n), dimension=1)
        on_diag = ew.eq(ew.sub(cols, rows), st.full((n, n), k, dtypes.int64))
        return ew.select(on_diag, vals, st.full((n, n), padding_value, a.dtype))
    if a.ndim == 2:
        return linalg.diagonal(x, offset=k)
    raise ShapeError(f"diag: x must be 1-D or 2-D, got shape {list(a.shape)}")


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D Tensors (a list or separate arguments), with matrix ('ij') indexing: output k
    has shape [len(x1), len(x2), ...] and varies along dimension k.

    Example:
        >>> import paddle_fn as paddle
        >>> a, b = paddle.meshgrid(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4, 5]))
        >>> a.shape, b.numpy()
        (paddle.Size([2, 3]), array([[3, 4, 5],
               [3, 4, 5]]))
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    xs = [as_tensor(x) for x in args]
    for x in xs:
        if ndim(x) not in (0, 1):
            raise ShapeError(f"meshgrid: every input must be 1-D, got shape {list(shape_of(x))}")
    xs = [st.reshape(x, new_sizes=(get_aval(x).size,)) for x in xs]
    shape = tuple(shape_of(x)[0] for x in xs)
    return [st.broadcast_in_dim(x, shape=shape, broadcast_dimensions=(k,)) for k, x in enumerate(xs)]


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's parameter name
    """Matrices with the last dimension of `input` on their diagonal `offset`, in the plane (dim1, dim2) of
    the output (which has one more dimension than the input).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diag_embed(paddle.to_tensor([[1, 2]])).numpy()
        array([[[1, 0],
                [0, 2]]])
    """
    x = as_tensor(input)
    a = get_aval(x)
    rank = a.ndim + 1
    d1, d2 = (d % rank if -rank <= d < rank else None for d in (dim1, dim2))
    if d1 is None or d2 is None or d1 == d2:
        raise ShapeError(f"diag_embed: dim1={dim1} and dim2={dim2} must be two different dims of the rank-{rank} "
                         "output")
    k = int(offset)
    m = a.shape[-1]
    n = m + abs(k)
    batch = a.shape[:-1]
    # build [..., n, n] with the diagonal in the last two dims, then move those two dims into place
    padded = st.pad(x, Tensor(np.zeros((), a.dtype.np)),
                    padding_config=((0, 0, 0),) * (a.ndim - 1) + ((0, abs(k), 0),)) if k else x
    plane = batch + (n, n)
    along = a.ndim - 1 if k >= 0 else a.ndim
    vals = st.broadcast_in_dim(padded, shape=plane, broadcast_dimensions=tuple(range(a.ndim - 1)) + (along,))
    rows = st.iota(dtype=dtypes.int64, shape=plane, dimension=rank - 2)
    cols = st.iota(dtype=dtypes.int64, shape=plane, dimension=rank - 1)
    on_diag = ew.eq(ew.sub(cols, rows), st.full(plane, k, dtypes.int64))
    out = ew.select(on_diag, vals, st.full(plane, 0, a.dtype))
    rest = iter(range(rank - 2))  # output dim d reads dim perm[d] of the [..., n, n] planes
    perm = [0] * rank
    for d in range(rank):
        if d == d1:
            perm[d] = rank - 2
        elif d == d2:
            perm[d] = rank - 1
        else:
            perm[d] = next(rest)
    return st.transpose(out, permutation=tuple(perm)) if perm != list(range(rank)) else out


def diagflat(x, offset=0, name=None):
    """A square matrix with the flattened `x` on diagonal `offset`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diagflat(paddle.to_tensor([[1, 2]]), offset=1).numpy()
        array([[0, 1, 0],
               [0, 0, 2],
               [0, 0, 0]])
    """
    x = as_tensor(x)
    return diag(st.reshape(x, new_sizes=(get_aval(x).size,)), offset=offset)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """`num` values base ** linspace(start, stop, num).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.logspace(0, 2, 3).numpy()
        array([  1.,  10., 100.], dtype=float32)
    """
    dtype = _float_or(dtype)
    work = dtype if dtype.kind == "f" else dtypes.float64
    exponents = linspace(start, stop, num, dtype=work)
    base_t = st.full((int(num),), _concrete_number("logspace", base, "base"), work)
    out = ew.pow(base_t, exponents)
    return cast(out, dtype)  # to an integer dtype toward zero, as Paddle


def from_numpy(ndarray):
    """A Tensor holding `ndarray`'s values, with its dtype.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> paddle.from_numpy(np.arange(3, dtype=np.int16)).dtype
        paddle.int16
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy.ndarray, got {type(ndarray).__name__}; use paddle.to_tensor "
                        "for other data")
    return to_tensor(ndarray)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """`obj` (a Tensor, numpy array, number or nested list) as a Tensor, as Paddle 3's ``asarray``. Tensors are
    immutable values here, so ``copy`` (True, False or None) never changes a result; with ``copy=False`` a
    dtype conversion is still made, where the array API would raise.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.asarray([[1, 2], [3, 4]], dtype='float32').tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    if copy not in (None, True, False):
        raise TypeError(f"asarray: copy must be True, False or None, got {copy!r}")
    if isinstance(obj, Tensor):
        out = obj if dtype is None else cast(obj, dtype)
        return out if requires_grad == (not out.stop_gradient) else to_tensor(out, stop_gradient=not requires_grad)
    return to_tensor(obj, dtype=dtype, place=device, stop_gradient=not requires_grad)


def array(object, dtype=None):  # noqa: A002 - JAX's and numpy's parameter name
    """`object` as a new Tensor: JAX's ``jnp.array`` name for `to_tensor`, so ported code runs unchanged. A list
    of traced values (under jit, vmap, pmap or grad) is stacked.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.array([[1, 2], [3, 4]], dtype='float32').tolist()
        [[1.0, 2.0], [3.0, 4.0]]
        >>> paddle.vmap(lambda v: paddle.array([v, 2 * v]))(paddle.to_tensor([1.0, 2.0])).tolist()
        [[1.0, 2.0], [2.0, 4.0]]
    """
    return to_tensor(object, dtype=dtype)


class finfo:
    """The limits of a floating dtype, as Paddle's ``paddle.finfo``: `bits`, `eps`, `min`, `max`, `tiny` (the same
    as `smallest_normal`), `resolution` and `dtype` (its name).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.finfo(paddle.float32).eps, paddle.finfo('bfloat16').bits
        (1.1920928955078125e-07, 16)
    """

    def __init__(self, dtype):
        d = dtypes.as_dtype(dtype)
        if d.kind != "f":
            raise TypeError(f"finfo: {d.name} is not a floating dtype; use paddle.iinfo for integer dtypes")
        info = ml_dtypes.finfo(d.np)
        self.dtype, self.bits = d.name, int(info.bits)
        self.eps, self.min, self.max = float(info.eps), float(info.min), float(info.max)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = float(info.resolution)

    def __repr__(self):
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, resolution={self.resolution:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype, as Paddle's ``paddle.iinfo``: `bits`, `min`, `max` and `dtype` (its name).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.iinfo(paddle.int8).min, paddle.iinfo('uint8').max
        (-128, 255)
    """

    def __init__(self, dtype):
        d = dtypes.as_dtype(dtype)
        if d.kind not in "iu":
            raise TypeError(f"iinfo: {d.name} is not an integer dtype; use paddle.finfo for floating dtypes")
        info = np.iinfo(d.np)
        self.dtype, self.bits, self.min, self.max = d.name, int(info.bits), int(info.min), int(info.max)

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


class MmapStorage:
    """The first `nbytes` bytes of the file `filename`, mapped into memory (read-only); `get_slice` reads Tensors
    from them without reading the file first (``paddle.MmapStorage``).

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> a = paddle.arange(4 * 5).reshape([4, 5]).astype(paddle.float32)
        >>> path = os.path.join(tempfile.mkdtemp(), "weights.bin")
        >>> a.numpy().tofile(path)
        >>> storage = paddle.MmapStorage(path, a.size * a.element_size())
        >>> storage.get_slice(dtype=paddle.float32, start=0, stop=a.size).reshape([4, 5]).tolist()[1]
        [5.0, 6.0, 7.0, 8.0, 9.0]
    """

    def __init__(self, filename, nbytes):
        self._bytes = np.memmap(filename, dtype=np.uint8, mode="r", shape=(int(nbytes),))

    def get_slice(self, dtype="uint8", start=0, stop=-1, step=1):
        """A 1-D Tensor of `dtype` holding ``stop - start`` elements read from byte `start` on, as Paddle 3.3.1
        reads them (`start` is a byte offset, the count is ``stop - start``); ``stop=-1`` reads to the end of the
        mapped bytes. Only ``step=1`` is supported."""
        dtype = dtypes.as_dtype(dtype)
        offset, step = int(start), int(step)
        if step != 1:
            raise UnsupportedError(f"MmapStorage.get_slice: step={step} is not supported; read with step=1 and "
                                   "slice the Tensor")
        count = (self._bytes.size - offset) // dtype.np.itemsize if int(stop) == -1 else int(stop) - offset
        end = offset + count * dtype.np.itemsize
        if count < 0 or offset < 0 or end > self._bytes.size:
            raise ValueError(f"MmapStorage.get_slice: {count} {dtype.name} elements from byte {offset} need bytes "
                             f"up to {end}, but {self._bytes.size} bytes are mapped")
        return Tensor(np.frombuffer(self._bytes[offset:end].tobytes(), dtype=dtype.np))
