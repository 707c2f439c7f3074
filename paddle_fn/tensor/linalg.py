"""Linear algebra over `dot_general`: matmul (numpy's 1-D/N-D broadcasting rules), mm, bmm, dot, t,
diagonal, trace, outer, inner.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import normalize_axis, paddle_scalar, shape_of
from paddle_fn.tensor.promotion import as_tensor, broadcast_shapes, broadcast_to_shape, cast, full_like_scalar

__all__ = ["matmul", "mm", "bmm", "dot", "t", "diagonal", "trace", "outer", "inner"]


def _same_dtype(op, x, y):
    x, y = as_tensor(x), as_tensor(y)
    dt = dtypes.result_dtype_tensors(op, get_aval(x).dtype, get_aval(y).dtype)
    return x, cast(y, dt)


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product with numpy's rules: 1-D operands are promoted to matrices (and the added dim removed),
    leading (batch) dimensions broadcast. Two 1-D operands give shape [1] (Paddle 2.3).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.matmul(paddle.ones([2, 3]), paddle.ones([3, 4])).shape
        [2, 4]
        >>> paddle.matmul(paddle.ones([5, 2, 3]), paddle.ones([3])).shape
        [5, 2]
    """
    x, y = _same_dtype("matmul", x, y)
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
    nb = len(batch)
    x = broadcast_to_shape(x, batch + xs[-2:])
    y = broadcast_to_shape(y, batch + ys[-2:])
    out = red.dot_general(x, y, dimension_numbers=(((nb + 2 + x_k,), (nb + 2 + y_k,)),
                                                   (tuple(range(nb)), tuple(range(nb)))))
    out_shape = batch + (() if x_vec else (xs[x_rows],)) + (() if y_vec else (ys[y_cols],))
    return paddle_scalar(st.reshape(out, new_sizes=out_shape))


def mm(input, mat2, name=None):  # noqa: A002 - Paddle's parameter name
    """Matrix product (same rules as `matmul`).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.mm(paddle.ones([3, 2]), paddle.ones([2, 4])).shape
        [3, 4]
    """
    return matmul(input, mat2)


def bmm(x, y, name=None):
    """Batched matrix product of two 3-D Tensors [B, M, K] x [B, K, N] -> [B, M, N].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bmm(paddle.ones([2, 3, 4]), paddle.ones([2, 4, 5])).shape
        [2, 3, 5]
    """
    x, y = as_tensor(x), as_tensor(y)
    xs, ys = shape_of(x), shape_of(y)
    if len(xs) != 3 or len(ys) != 3 or xs[0] != ys[0]:
        raise ShapeError(f"bmm: expected two 3-D Tensors with the same batch size, got shapes {list(xs)} and "
                         f"{list(ys)}")
    return matmul(x, y)


def dot(x, y, name=None):
    """Inner product of 1-D Tensors (shape [1]), or row-wise of 2-D Tensors [N, D] (shape [N, 1]).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.dot(paddle.to_tensor([1., 2.]), paddle.to_tensor([3., 4.])).numpy()
        array([11.], dtype=float32)
    """
    x, y = _same_dtype("dot", x, y)
    xs, ys = shape_of(x), shape_of(y)
    if xs != ys or len(xs) not in (1, 2):
        raise ShapeError(f"dot: x and y must be 1-D or 2-D with the same shape, got {list(xs)} and {list(ys)}")
    nb = len(xs) - 1
    out = red.dot_general(x, y, dimension_numbers=(((nb,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))
    return st.reshape(out, new_sizes=xs[:-1] + (1,))


def t(input, name=None):  # noqa: A002
    """Transpose a 2-D Tensor; 0-D and 1-D Tensors are returned as they are.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.t(paddle.ones([2, 3])).shape
        [3, 2]
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
        cols = ew.add(rows, full_like_scalar(k, dtypes.int64, (length,)))
    elif k < 0:
        rows = ew.add(rows, full_like_scalar(-k, dtypes.int64, (length,)))
    from paddle_fn.tensor.indexing import getitem
    rest = [d for d in range(a.ndim) if d not in (a1, a2)]
    moved = st.transpose(x, permutation=tuple(rest) + (a1, a2))
    return getitem(moved, (Ellipsis, rows, cols))


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal `offset` of the planes spanned by axis1 and axis2.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.trace(paddle.to_tensor([[1., 2.], [3., 4.]])).numpy()
        array([5.], dtype=float32)
    """
    d = diagonal(x, offset, axis1, axis2)
    return paddle_scalar(red.reduce_sum(d, axes=(get_aval(d).ndim - 1,)))


def outer(x, y, name=None):
    """Outer product of the flattened x and y: shape [x.size, y.size].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.outer(paddle.to_tensor([1., 2.]), paddle.to_tensor([1., 10.])).numpy()
        array([[ 1., 10.],
               [ 2., 20.]], dtype=float32)
    """
    x, y = _same_dtype("outer", x, y)
    n, m = get_aval(x).size, get_aval(y).size
    xb = st.broadcast_in_dim(st.reshape(x, new_sizes=(n,)), shape=(n, m), broadcast_dimensions=(0,))
    yb = st.broadcast_in_dim(st.reshape(y, new_sizes=(m,)), shape=(n, m), broadcast_dimensions=(1,))
    return ew.mul(xb, yb)


def inner(x, y, name=None):
    """Inner product over the last dimension: shape x.shape[:-1] + y.shape[:-1].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.inner(paddle.ones([2, 3]), paddle.ones([4, 3])).shape
        [2, 4]
    """
    x, y = _same_dtype("inner", x, y)
    xs, ys = shape_of(x), shape_of(y)
    if xs[-1:] != ys[-1:]:
        raise ShapeError(f"inner: the last dimensions differ: x has shape {list(xs)}, y has shape {list(ys)}")
    out = red.dot_general(x, y, dimension_numbers=(((len(xs) - 1,), (len(ys) - 1,)), ((), ())))
    return paddle_scalar(out)
