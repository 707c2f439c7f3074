"""Linear algebra over `dot_general`: matmul (numpy's 1-D/N-D broadcasting rules), mm, bmm, dot, t,
diagonal, trace, outer, inner, addmm, kron, cross, dist.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import accepts_out, normalize_axis, shape_of
from paddle_fn.tensor.indexing import getitem
from paddle_fn.tensor.promotion import as_tensor, broadcast_shapes, broadcast_to_shape, cast

__all__ = ["matmul", "mm", "bmm", "dot", "t", "diagonal", "trace", "outer", "inner", "addmm", "kron", "cross", "dist"]


def _promoted(x, y):
    x, y = as_tensor(x), as_tensor(y)
    dt = dtypes.result_dtype_tensors(get_aval(x).dtype, get_aval(y).dtype)
    return cast(x, dt), cast(y, dt)


@accepts_out
def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with numpy's rules: 1-D operands are promoted to matrices (and the added dim removed),
    leading (batch) dimensions broadcast. Two 1-D operands give a 0-D Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.matmul(paddle.ones([2, 3]), paddle.ones([3, 4])).shape
        paddle.Size([2, 4])
        >>> paddle.matmul(paddle.ones([5, 2, 3]), paddle.ones([3])).shape
        paddle.Size([5, 2])
    """
    x, y = _promoted(x, y)
    xs, ys = shape_of(x), shape_of(y)
    if not xs or not ys:
        raise ShapeError(f"matmul: operands must be at least 1-D, got shapes {list(xs)} and {list(ys)}")
    x_vec, y_vec = len(xs) == 1, len(ys) == 1
    if x_vec:  # a vector is a matrix with one row (x) or one column (y); transposing it changes nothing
        x, transpose_x = st.reshape(x, new_sizes=(1,) + xs), False
    if y_vec:
        y, transpose_y = st.reshape(y, new_sizes=ys + (1,)), False
    xs, ys = shape_of(x), shape_of(y)
    # the transpose flags only pick which dimension is contracted: dot_general needs no transposed copies
    x_rows, x_k = (-1, -2) if transpose_x else (-2, -1)
    y_k, y_cols = (-1, -2) if transpose_y else (-2, -1)
    if xs[x_k] != ys[y_k]:
        raise ShapeError(f"matmul: contracting dimensions differ: x has shape {list(xs)}, y has shape {list(ys)} "
                         f"({xs[x_k]} != {ys[y_k]}) with transpose_x={bool(transpose_x)}, "
                         f"transpose_y={bool(transpose_y)}")
    batch = broadcast_shapes("matmul", xs[:-2], ys[:-2])
    if len(ys) == 2 and not transpose_x:
        # a batch of matrices times one matrix (a linear layer on [batch, seq, features]): one product with x's
        # batch dims as free dims; broadcasting y over the batch would make it a batched product, which compilers
        # run as many small ones (a transformer block's step took 1.4x as long)
        out = red.dot_general(x, y, dimension_numbers=(((len(xs) - 1,), (2 + y_k,)), ((), ())))
        return st.reshape(out, new_sizes=batch + (() if x_vec else (xs[x_rows],)) + (() if y_vec else (ys[y_cols],)))
    nb = len(batch)
    x = broadcast_to_shape(x, batch + xs[-2:])
    y = broadcast_to_shape(y, batch + ys[-2:])
    out = red.dot_general(x, y, dimension_numbers=(((nb + 2 + x_k,), (nb + 2 + y_k,)),
                                                   (tuple(range(nb)), tuple(range(nb)))))
    out_shape = batch + (() if x_vec else (xs[x_rows],)) + (() if y_vec else (ys[y_cols],))
    return st.reshape(out, new_sizes=out_shape)


def mm(input, mat2, name=None):  # noqa: A002 - Paddle's parameter name
    """Matrix product (same rules as `matmul`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.mm(paddle.ones([3, 2]), paddle.ones([2, 4])).shape
        paddle.Size([3, 4])
    """
    return matmul(input, mat2)


@accepts_out
def bmm(x, y, name=None):
    """Batched matrix product of two 3-D Tensors [B, M, K] x [B, K, N] -> [B, M, N].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bmm(paddle.ones([2, 3, 4]), paddle.ones([2, 4, 5])).shape
        paddle.Size([2, 3, 5])
    """
    x, y = as_tensor(x), as_tensor(y)
    xs, ys = shape_of(x), shape_of(y)
    if len(xs) != 3 or len(ys) != 3 or xs[0] != ys[0]:
        raise ShapeError(f"bmm: expected two 3-D Tensors with the same batch size, got shapes {list(xs)} and "
                         f"{list(ys)}")
    return matmul(x, y)


@accepts_out
def dot(x, y, name=None):
    """Inner product of 1-D Tensors (a 0-D result), or row-wise of 2-D Tensors [N, D] (shape [N]).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.dot(paddle.to_tensor([1., 2.]), paddle.to_tensor([3., 4.])).numpy()
        array(11., dtype=float32)
    """
    x, y = _promoted(x, y)
    xs, ys = shape_of(x), shape_of(y)
    if xs != ys or len(xs) not in (1, 2):
        raise ShapeError(f"dot: x and y must be 1-D or 2-D with the same shape, got {list(xs)} and {list(ys)}")
    nb = len(xs) - 1
    return red.dot_general(x, y, dimension_numbers=(((nb,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))


def t(input, name=None):  # noqa: A002
    """Transpose a 2-D Tensor; 0-D and 1-D Tensors are returned as they are.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.t(paddle.ones([2, 3])).shape
        paddle.Size([3, 2])
    """
    x = as_tensor(input)
    n = get_aval(x).ndim
    if n > 2:
        raise ShapeError(f"t: expected a Tensor of at most 2 dimensions, got shape {list(shape_of(x))}; use "
                         "paddle.transpose(x, perm)")
    return st.transpose(x, permutation=(1, 0)) if n == 2 else x


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal `offset` of the planes spanned by axis1 and axis2, as the last dimension.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.diagonal(paddle.to_tensor([[1, 2], [3, 4]])).numpy()
        array([1, 4])
    """
    x = as_tensor(x)
    a = get_aval(x)
    a1, a2 = normalize_axis("diagonal", axis1, a.ndim), normalize_axis("diagonal", axis2, a.ndim)
    if a1 == a2:
        raise ShapeError(f"diagonal: axis1 and axis2 must differ, both are {a1}")
    k = int(offset)
    n1, n2 = a.shape[a1], a.shape[a2]
    length = max(0, min(n1, n2 - k) if k >= 0 else min(n1 + k, n2))
    rows = st.iota(dtype=dtypes.int64, shape=(length,), dimension=0)
    cols = rows
    if k > 0:
        cols = ew.add(rows, st.full((length,), k, dtypes.int64))
    elif k < 0:
        rows = ew.add(rows, st.full((length,), -k, dtypes.int64))
    rest = [d for d in range(a.ndim) if d not in (a1, a2)]
    moved = st.transpose(x, permutation=tuple(rest) + (a1, a2))
    return getitem(moved, (Ellipsis, rows, cols))


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal `offset` of the planes spanned by axis1 and axis2.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.trace(paddle.to_tensor([[1., 2.], [3., 4.]])).numpy()
        array(5., dtype=float32)
    """
    d = diagonal(x, offset, axis1, axis2)
    return red.reduce_sum(d, axes=(get_aval(d).ndim - 1,))


@accepts_out
def outer(x, y, name=None):
    """Outer product of the flattened x and y: shape [x.size, y.size].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.outer(paddle.to_tensor([1., 2.]), paddle.to_tensor([1., 10.])).numpy()
        array([[ 1., 10.],
               [ 2., 20.]], dtype=float32)
    """
    x, y = _promoted(x, y)
    nx, ny = get_aval(x).size, get_aval(y).size
    xb = st.broadcast_in_dim(st.reshape(x, new_sizes=(nx,)), shape=(nx, ny), broadcast_dimensions=(0,))
    yb = st.broadcast_in_dim(st.reshape(y, new_sizes=(ny,)), shape=(nx, ny), broadcast_dimensions=(1,))
    return ew.mul(xb, yb)


def inner(x, y, name=None):
    """Inner product over the last dimension: shape x.shape[:-1] + y.shape[:-1].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.inner(paddle.ones([2, 3]), paddle.ones([4, 3])).shape
        paddle.Size([2, 4])
    """
    x, y = _promoted(x, y)
    xs, ys = shape_of(x), shape_of(y)
    if xs[-1:] != ys[-1:]:
        raise ShapeError(f"inner: the last dimensions differ: x has shape {list(xs)}, y has shape {list(ys)}")
    out = red.dot_general(x, y, dimension_numbers=(((len(xs) - 1,), (len(ys) - 1,)), ((), ())))
    return out


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002 - Paddle's parameter name
    """beta * input + alpha * (x @ y), with `input` broadcast to the product's shape.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.addmm(paddle.ones([2, 2]), paddle.ones([2, 3]), paddle.ones([3, 2]), beta=0.5, alpha=2.0).numpy()
        array([[6.5, 6.5],
               [6.5, 6.5]], dtype=float32)
    """
    x, y = as_tensor(x), as_tensor(y)
    if get_aval(x).ndim != 2 or get_aval(y).ndim != 2:
        raise ShapeError(f"addmm: x and y must be 2-D, got shapes {list(shape_of(x))} and {list(shape_of(y))}")
    return m.add(m.multiply(input, beta), m.multiply(matmul(x, y), alpha))


def kron(x, y, name=None):
    """The Kronecker product: block (i, j, ...) of the result is x[i, j, ...] * y.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.kron(paddle.to_tensor([[1, 2]]), paddle.to_tensor([[1], [10]])).numpy()
        array([[ 1,  2],
               [10, 20]])
    """
    x, y = _promoted(x, y)
    rank = max(get_aval(x).ndim, get_aval(y).ndim)
    xs = (1,) * (rank - get_aval(x).ndim) + shape_of(x)
    ys = (1,) * (rank - get_aval(y).ndim) + shape_of(y)
    # interleave: x's dims at even positions, y's at odd ones, then merge each pair
    interleaved = tuple(v for a, b in zip(xs, ys) for v in (a, b))
    xb = st.broadcast_in_dim(st.reshape(x, new_sizes=xs), shape=interleaved,
                             broadcast_dimensions=tuple(range(0, 2 * rank, 2)))
    yb = st.broadcast_in_dim(st.reshape(y, new_sizes=ys), shape=interleaved,
                             broadcast_dimensions=tuple(range(1, 2 * rank, 2)))
    return st.reshape(ew.mul(xb, yb), new_sizes=tuple(a * b for a, b in zip(xs, ys)))


def cross(x, y, axis=None, name=None):
    """The 3-vector cross product along `axis` (None: the first dimension of size 3).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cross(paddle.to_tensor([1., 0., 0.]), paddle.to_tensor([0., 1., 0.])).numpy()
        array([0., 0., 1.], dtype=float32)
    """
    x, y = _promoted(x, y)
    shape = broadcast_shapes("cross", shape_of(x), shape_of(y))
    x, y = broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)
    if axis is None:
        if 3 not in shape:
            raise ShapeError(f"cross: no dimension of size 3 in shape {list(shape)}; pass axis")
        ax = shape.index(3)
    else:
        ax = normalize_axis("cross", axis, len(shape))
        if shape[ax] != 3:
            raise ShapeError(f"cross: dimension {ax} of shape {list(shape)} must have size 3")

    def part(v, i):
        start = tuple(i if d == ax else 0 for d in range(len(shape)))
        limit = tuple(i + 1 if d == ax else s for d, s in enumerate(shape))
        return st.slice(v, start_indices=start, limit_indices=limit)

    x0, x1, x2 = (part(x, i) for i in range(3))
    y0, y1, y2 = (part(y, i) for i in range(3))
    return st.concatenate(ew.sub(ew.mul(x1, y2), ew.mul(x2, y1)), ew.sub(ew.mul(x2, y0), ew.mul(x0, y2)),
                          ew.sub(ew.mul(x0, y1), ew.mul(x1, y0)), dimension=ax)


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) over all elements, a 0-D Tensor: p=inf/-inf give max/min |x - y|, p=0 the
    number of non-zero differences.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.dist(paddle.to_tensor([3., 0.]), paddle.to_tensor([0., 4.])).numpy()
        array(5., dtype=float32)
    """
    d = m.abs(m.subtract(x, y))
    if get_aval(d).dtype.kind != "f":
        raise TypeError(f"dist: expected floating-point Tensors, got {get_aval(d).dtype.name}")
    p = float(p)
    if p == float("inf"):
        return m.max(d)
    if p == float("-inf"):
        return m.min(d)
    if p == 0:
        return m.sum(cast(ew.ne(d, st.full_like(d, 0)), get_aval(d).dtype))
    if p == 2:
        return m.sqrt(m.sum(ew.mul(d, d)))
    return m.pow(m.sum(m.pow(d, p)), 1.0 / p)
