"""Products, pairings and integrals built from existing ops: tensordot, mv, baddbmm, block_diag, cartesian_prod,
combinations, cdist, vander, tril_indices, triu_indices, trapezoid and cumulative_trapezoid. Index patterns that
depend only on shapes (combinations, triangle indices) are computed with numpy at trace time, so every transform
sees plain gathers and constants.
"""
from __future__ import annotations

import itertools

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import reduction as red
from paddle_fn.tensor import math as m
from paddle_fn.tensor._util import normalize_axis, shape_of, static_int, static_list
from paddle_fn.tensor.creation import meshgrid, ones_like, to_tensor, zeros
from paddle_fn.tensor.logic import not_equal
from paddle_fn.tensor.linalg import _promoted, bmm, matmul
from paddle_fn.tensor.manipulation import _slice_axis, concat, diff, gather, reshape, stack, unsqueeze, where
from paddle_fn.tensor.promotion import as_tensor, broadcast_shapes, broadcast_to_shape, cast

__all__ = ["tensordot", "vdot", "mv", "baddbmm", "block_diag", "cartesian_prod", "combinations", "cdist", "vander",
           "tril_indices", "triu_indices", "trapezoid", "cumulative_trapezoid", "pdist", "renorm"]

_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def _tensordot_axes(axes, rank_x, rank_y):
    """Paddle's `axes` forms as two equal-length lists: an int n (x's last n dims with y's first n), one list
    (the same dims of both), or [x_axes, y_axes] where the shorter list is completed from the longer one."""
    if isinstance(axes, Tensor):
        axes = np.asarray(static_list("tensordot", reshape(axes, [-1]), "axes")).reshape(shape_of(axes)).tolist()
    if not isinstance(axes, (list, tuple)):
        n = static_int("tensordot", axes, "axes")
        if not 0 <= n <= min(rank_x, rank_y):
            raise ShapeError(f"tensordot: axes={n} must be between 0 and the smaller rank "
                             f"({min(rank_x, rank_y)}) of x (rank {rank_x}) and y (rank {rank_y})")
        return list(range(rank_x - n, rank_x)), list(range(n))
    if all(not isinstance(a, (list, tuple)) for a in axes):
        ax_x = ax_y = static_list("tensordot", axes, "axes")
    elif len(axes) == 1:
        ax_x = ax_y = static_list("tensordot", axes[0], "axes")
    elif len(axes) == 2:
        ax_x, ax_y = (static_list("tensordot", a, "axes") for a in axes)
        longer = ax_x if len(ax_x) > len(ax_y) else ax_y
        ax_x, ax_y = ax_x + longer[len(ax_x):], ax_y + longer[len(ax_y):]
    else:
        raise ShapeError(f"tensordot: axes must be an int, one list of axes or [x_axes, y_axes], got {axes!r}")
    return ax_x, ax_y


def tensordot(x, y, axes=2, name=None):
    """Sum of products of x and y over the dimension pairs named by `axes`; the result has x's remaining dims
    followed by y's. `axes` is an int n (x's last n dims with y's first n), one list of axes used for both, or
    [x_axes, y_axes] (the shorter list is completed from the longer one, as in Paddle).

    Example:
        >>> import paddle_fn as paddle
        >>> x, y = paddle.ones([2, 3, 4]), paddle.ones([3, 4, 5])
        >>> paddle.tensordot(x, y).shape
        paddle.Size([2, 5])
        >>> paddle.tensordot(x, y, axes=[[1], [0]]).shape
        paddle.Size([2, 4, 4, 5])
    """
    x, y = _promoted(x, y)
    xs, ys = shape_of(x), shape_of(y)
    ax_x, ax_y = _tensordot_axes(axes, len(xs), len(ys))
    ax_x = [normalize_axis("tensordot", a, len(xs)) for a in ax_x]
    ax_y = [normalize_axis("tensordot", a, len(ys)) for a in ax_y]
    if len(set(ax_x)) != len(ax_x) or len(set(ax_y)) != len(ax_y):
        raise ShapeError(f"tensordot: an axis is named twice in x axes {ax_x} or y axes {ax_y}")
    for a, b in zip(ax_x, ax_y):
        if xs[a] != ys[b]:
            raise ShapeError(f"tensordot: dimension {a} of x (shape {list(xs)}) has size {xs[a]} but dimension {b} "
                             f"of y (shape {list(ys)}) has size {ys[b]}; contracted dimensions must match")
    return red.dot_general(x, y, dimension_numbers=((tuple(ax_x), tuple(ax_y)), ((), ())))


def vdot(x, y):
    """The dot product of x and y flattened (JAX's and numpy's ``vdot``, on real dtypes): a 0-D Tensor. Paddle's
    ``dot`` keeps Paddle's meaning (row-wise products of 2-D inputs); this is the name a JAX port reaches for.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vdot(paddle.to_tensor([[1., 2.], [3., 4.]]), paddle.ones([2, 2])).item()
        10.0
    """
    x, y = _promoted(x, y)
    if int(np.prod(shape_of(x))) != int(np.prod(shape_of(y))):
        raise ShapeError(f"vdot: x (shape {list(shape_of(x))}) and y (shape {list(shape_of(y))}) must have the same "
                         "number of elements")
    return red.dot_general(reshape(x, [-1]), reshape(y, [-1]), dimension_numbers=(((0,), (0,)), ((), ())))


def mv(x, vec, name=None):
    """Matrix-vector product of a 2-D Tensor [M, N] and a 1-D Tensor [N]: shape [M].

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.mv(paddle.to_tensor([[1., 2.], [3., 4.]]), paddle.to_tensor([1., 1.])).tolist()
        [3.0, 7.0]
    """
    x, vec = as_tensor(x), as_tensor(vec)
    xs, vs = shape_of(x), shape_of(vec)
    if len(xs) != 2 or len(vs) != 1 or xs[1] != vs[0]:
        raise ShapeError(f"mv: expected a 2-D x [M, N] and a 1-D vec [N], got shapes {list(xs)} and {list(vs)}")
    return matmul(x, vec)


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002 - Paddle's parameter name
    """beta * input + alpha * bmm(x, y) for 3-D x [B, M, K] and y [B, K, N]; `input` is [B, M, N] or a 2-D
    [M, N] shared by the batch (it broadcasts).

    Example:
        >>> import paddle_fn as paddle
        >>> out = paddle.baddbmm(paddle.ones([2, 2, 2]), paddle.ones([2, 2, 3]), paddle.ones([2, 3, 2]),
        ...                      beta=0.5, alpha=2.0)
        >>> out.shape, out[0].tolist()
        (paddle.Size([2, 2, 2]), [[6.5, 6.5], [6.5, 6.5]])
    """
    input, x, y = as_tensor(input), as_tensor(x), as_tensor(y)
    product = bmm(x, y)
    out_shape, in_shape = shape_of(product), shape_of(input)
    if len(in_shape) not in (2, 3) or broadcast_shapes("baddbmm", in_shape, out_shape) != out_shape:
        raise ShapeError(f"baddbmm: input of shape {list(in_shape)} must be 2-D or 3-D and broadcast to the "
                         f"product's shape {list(out_shape)} (x {list(shape_of(x))} @ y {list(shape_of(y))})")
    return m.add(m.multiply(input, beta), m.multiply(product, alpha))


def _same_dtype_tensors(op, x, what):
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"{op}: {what} must be a non-empty list or tuple of Tensors, got {type(x).__name__}")
    xs = [as_tensor(t) for t in x]
    names = [get_aval(t).dtype.name for t in xs]
    if len(set(names)) != 1:
        raise TypeError(f"{op}: all Tensors must have one dtype (as in Paddle), got {names}; cast them first")
    return xs


def block_diag(inputs, name=None):
    """A block-diagonal matrix with the Tensors of `inputs` on its diagonal (0-D Tensors are [1, 1] blocks,
    1-D Tensors of length n are [1, n] blocks).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.block_diag([paddle.to_tensor([[1, 2]]), paddle.to_tensor(3)]).tolist()
        [[1, 2, 0], [0, 0, 3]]
    """
    xs = _same_dtype_tensors("block_diag", inputs, "inputs")
    for t in xs:
        if get_aval(t).ndim > 2:
            raise ShapeError(f"block_diag: every input must be 0-D, 1-D or 2-D, got shapes "
                             f"{[list(shape_of(b)) for b in xs]}")
    blocks = [reshape(t, (1, 1) if get_aval(t).ndim == 0 else (1, -1)) if get_aval(t).ndim < 2 else t for t in xs]
    dt = get_aval(blocks[0]).dtype
    total = sum(shape_of(b)[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        r, c = shape_of(b)
        rows.append(concat([zeros([r, start], dt), b, zeros([r, total - start - c], dt)], axis=1))
        start += c
    return concat(rows, axis=0)


def cartesian_prod(x, name=None):
    """The Cartesian product of a list of 1-D Tensors: shape [prod(lengths), len(x)], rows in lexicographic
    order; a list of one Tensor gives that Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cartesian_prod([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).tolist()
        [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    xs = _same_dtype_tensors("cartesian_prod", x, "x")
    for t in xs:
        if get_aval(t).ndim != 1:
            raise ShapeError(f"cartesian_prod: every input must be 1-D, got shapes {[list(shape_of(b)) for b in xs]}")
    if len(xs) == 1:
        return xs[0]
    return stack([reshape(g, [-1]) for g in meshgrid(xs)], axis=1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The length-r combinations of the elements of 1-D `x`, as rows of a [count, r] Tensor in
    itertools.combinations order (with_replacement=True: combinations_with_replacement). r=0 gives an empty 1-D
    Tensor, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.combinations(paddle.to_tensor([1, 2, 3])).tolist()
        [[1, 2], [1, 3], [2, 3]]
    """
    x = as_tensor(x)
    if get_aval(x).ndim != 1:
        raise ShapeError(f"combinations: x must be 1-D, got shape {list(shape_of(x))}")
    r = static_int("combinations", r, "r")
    if r < 0:
        raise ValueError(f"combinations: r must be a non-negative int, got {r}")
    if r == 0:
        return zeros([0], get_aval(x).dtype)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = np.array(list(pick(range(shape_of(x)[0]), r)), dtype=np.int64).reshape(-1)
    if index.size == 0:
        return zeros([0, r], get_aval(x).dtype)
    return reshape(gather(x, to_tensor(index)), [-1, r])


def pdist(x, p=2.0, name=None):
    """The p-norm distances between the rows of the 2-D `x` [N, M], one per pair i < j, in row-major order of the
    pairs: shape [N * (N - 1) / 2] (``cdist(x, x)``'s upper triangle, computed only for those pairs, so the
    zero self-distances never enter the gradient).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0., 0.], [3., 4.], [1., 1.]])
        >>> paddle.pdist(x).numpy()
        array([5.       , 1.4142135, 3.6055512], dtype=float32)
    """
    x = as_tensor(x)
    if get_aval(x).ndim != 2 or get_aval(x).dtype.kind != "f":
        raise ShapeError(f"pdist: x must be a 2-D floating-point Tensor [N, M], got shape {list(shape_of(x))} "
                         f"and dtype {get_aval(x).dtype.name}")
    p = float(p)
    if p < 0:
        raise ValueError(f"pdist: p must be >= 0, got {p}")
    first, second = np.triu_indices(shape_of(x)[0], k=1)
    return _distance(m.subtract(gather(x, to_tensor(first)), gather(x, to_tensor(second))), p)


def renorm(x, p, axis, max_norm):
    """`x` with every slice along `axis` (``x[i]`` for axis 0) whose `p`-norm exceeds `max_norm` scaled down to
    norm `max_norm` (by ``max_norm / (norm + 1e-7)``, as Paddle); the other slices unchanged.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.renorm(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]), 2, 0, 3).numpy()
        array([[1.       , 2.       ],
               [1.8000001, 2.4      ]], dtype=float32)
    """
    x = as_tensor(x)
    rank = get_aval(x).ndim
    ax = normalize_axis("renorm", axis, rank)
    p = float(p)
    if p <= 0:
        raise ValueError(f"renorm: p must be > 0, got {p}")
    others = [d for d in range(rank) if d != ax]
    norm = m.pow(m.sum(m.pow(m.abs(x), p), axis=others, keepdim=True), 1.0 / p)
    scale = where(norm > max_norm, max_norm / (norm + 1e-7), ones_like(norm))
    return x * scale


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distance between each row of x [..., P, M] and each row of y [..., R, M]: shape [..., P, R]
    (batch dims broadcast). p=0 counts differing coordinates, p=inf takes the largest difference. compute_mode
    only picks Paddle's kernel; the values are computed directly here.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0., 0.], [1., 1.]])
        >>> paddle.cdist(x, paddle.to_tensor([[3., 4.]])).tolist()
        [[5.0], [3.605551242828369]]
        >>> paddle.cdist(x, paddle.to_tensor([[3., 4.]]), p=1).tolist()
        [[7.0], [5.0]]
    """
    x, y = _promoted(x, y)
    xs, ys = shape_of(x), shape_of(y)
    if len(xs) < 2 or len(ys) < 2 or xs[-1] != ys[-1]:
        raise ShapeError(f"cdist: x and y must be at least 2-D with the same last dimension, got shapes {list(xs)} "
                         f"and {list(ys)}")
    if get_aval(x).dtype.kind != "f":
        raise TypeError(f"cdist: expected floating-point Tensors, got {get_aval(x).dtype.name}; cast with "
                        "x.astype('float32')")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {list(_CDIST_MODES)}, got {compute_mode!r}")
    p = float(p)
    if p < 0:
        raise ValueError(f"cdist: p must be >= 0, got {p}")
    batch = broadcast_shapes("cdist", xs[:-2], ys[:-2])
    x = unsqueeze(broadcast_to_shape(x, batch + xs[-2:]), -2)  # [..., P, 1, M]
    y = unsqueeze(broadcast_to_shape(y, batch + ys[-2:]), -3)  # [..., 1, R, M]
    return _distance(m.subtract(x, y), p)


def _distance(difference, p):
    """The p-norm of `difference` over its last axis (p = 0 counts nonzeros, p = inf takes the largest)."""
    d = m.abs(difference)
    if p == float("inf"):
        return m.max(d, axis=-1)
    if p == 0:
        return m.sum(cast(not_equal(d, 0), get_aval(d).dtype), axis=-1)
    if p == 1:
        return m.sum(d, axis=-1)
    if p == 2:
        return m.sqrt(m.sum(m.multiply(d, d), axis=-1))
    return m.pow(m.sum(m.pow(d, p), axis=-1), 1.0 / p)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of 1-D `x`: column j is x ** (n - 1 - j) (increasing=True: x ** j); n defaults
    to len(x). The dtype is x's.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vander(paddle.to_tensor([1, 2, 3])).tolist()
        [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
        >>> paddle.vander(paddle.to_tensor([2., 3.]), n=3, increasing=True).tolist()
        [[1.0, 2.0, 4.0], [1.0, 3.0, 9.0]]
    """
    x = as_tensor(x)
    if get_aval(x).ndim != 1:
        raise ShapeError(f"vander: x must be 1-D, got shape {list(shape_of(x))}")
    length = shape_of(x)[0]
    n = length if n is None else static_int("vander", n, "n")
    if n < 0:
        raise ValueError(f"vander: n must be non-negative, got {n}")
    if n == 0:
        return zeros([length, 0], get_aval(x).dtype)
    # repeated products instead of pow: exact for integers and differentiable at x == 0
    columns = [ones_like(x)]
    for _ in range(n - 1):
        columns.append(m.multiply(columns[-1], x))
    return stack(columns if increasing else columns[::-1], axis=1)


def _triangle_indices(op, row, col, offset, dtype, lower):
    row, col, offset = static_int(op, row, "row"), static_int(op, col, "col"), static_int(op, offset, "offset")
    if row < 0 or col < 0:
        raise ValueError(f"{op}: row and col must be non-negative, got row={row}, col={col}")
    dt = dtypes.as_dtype(dtype)
    if dt.name not in ("int32", "int64"):
        raise TypeError(f"{op}: dtype must be 'int32' or 'int64', got {dt.name}")
    pick = np.tril_indices if lower else np.triu_indices
    return to_tensor(np.stack(pick(row, offset, col)).reshape(2, -1), dtype=dt)


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, count] (row, column) indices of the lower triangle of a row x col matrix, diagonal `offset`
    included (offset > 0: above the main diagonal), in row-major order.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tril_indices(3, 3).tolist()
        [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _triangle_indices("tril_indices", row, col, offset, dtype, lower=True)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The [2, count] (row, column) indices of the upper triangle of a row x col matrix (col defaults to row),
    diagonal `offset` included (offset < 0: below the main diagonal), in row-major order.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.triu_indices(3, 4, 1).tolist()
        [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    """
    return _triangle_indices("triu_indices", row, row if col is None else col, offset, dtype, lower=False)


def _trapezoid_areas(op, y, x, dx, axis):
    """The area of each trapezoid along `axis`: (y[i] + y[i+1]) / 2 * (x[i+1] - x[i]) (or * dx, default 1)."""
    y = as_tensor(y)
    a = get_aval(y)
    if a.dtype.kind != "f":
        raise TypeError(f"{op}: y must be a floating-point Tensor, got {a.dtype.name}; cast with "
                        "y.astype('float32')")
    if a.ndim == 0:
        raise ShapeError(f"{op}: y must be at least 1-D, got a 0-D Tensor")
    if x is not None and dx is not None:
        raise ValueError(f"{op}: pass x or dx, not both")
    ax = normalize_axis(op, axis, a.ndim)
    n = a.shape[ax]
    mid = m.multiply(m.add(_slice_axis(y, ax, 1, n), _slice_axis(y, ax, 0, max(n - 1, 0))), 0.5)
    if x is None:
        return mid if dx is None else m.multiply(mid, dx), ax
    x = as_tensor(x)
    xs = shape_of(x)
    if len(xs) == 1:
        if xs[0] != n:
            # Paddle broadcasts a wrong-length x silently and returns a wrong integral; refuse instead
            raise ShapeError(f"{op}: 1-D x has length {xs[0]} but y (shape {list(a.shape)}) has {n} samples along "
                             f"axis {ax}; x needs one coordinate per sample")
        widths = reshape(diff(x), [n - 1 if d == ax else 1 for d in range(a.ndim)])
    elif len(xs) == a.ndim:
        widths = diff(x, axis=ax)
    else:
        raise ShapeError(f"{op}: x must be 1-D or have y's rank, got x shape {list(xs)} and y shape {list(a.shape)}")
    return m.multiply(mid, widths), ax


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integrate y along `axis` with the trapezoidal rule, at sample points x (1-D, or y's shape) or spacing dx
    (default 1); pass at most one of x and dx.

    Example:
        >>> import paddle_fn as paddle
        >>> y = paddle.to_tensor([1., 2., 4.])
        >>> paddle.trapezoid(y).tolist(), paddle.trapezoid(y, x=paddle.to_tensor([0., 1., 3.])).tolist()
        (4.5, 7.5)
    """
    areas, ax = _trapezoid_areas("trapezoid", y, x, dx, axis)
    return m.sum(areas, axis=ax)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoidal integral of y along `axis` (one element fewer than y there); x and dx as in
    `trapezoid`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.cumulative_trapezoid(paddle.to_tensor([1., 2., 4.]), dx=2.0).tolist()
        [3.0, 9.0]
    """
    areas, ax = _trapezoid_areas("cumulative_trapezoid", y, x, dx, axis)
    return m.cumsum(areas, axis=ax)
