"""Input encodings (`paddle.nn.functional.input`): one_hot and embedding."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.tape import no_grad
from paddle_fn.core.trace import Tracer, concrete_or_error, get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.assertion import check
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import eager_value, shape_of, static_int
from paddle_fn.tensor.logic import equal
from paddle_fn.tensor.manipulation import gather, reshape
from paddle_fn.tensor.math import max as reduce_max
from paddle_fn.tensor.math import sum as reduce_sum
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["embedding", "one_hot"]

def _renormed(ids, weight, max_norm, norm_type):
    """`weight` with each row that `ids` use and whose p-norm exceeds `max_norm` scaled to max_norm (Paddle's
    embedding_renorm_, whose ``1e-7`` it adds to the norm); the other rows as they are."""
    table = ew.stop_gradient(weight)
    n = shape_of(weight)[0]
    used = reduce_max(_id_one_hot(ids, n, get_aval(weight).dtype), axis=0)
    magnitude = ew.abs(table)
    if norm_type == float("inf"):
        norms = reduce_max(magnitude, axis=1, keepdim=True)
    else:
        norms = ew.pow(reduce_sum(ew.pow(magnitude, st.full_like(magnitude, norm_type)), axis=1, keepdim=True),
                       st.full_like(reduce_sum(magnitude, axis=1, keepdim=True), 1.0 / norm_type))
    scale = ew.div(st.full_like(norms, max_norm), ew.add(norms, st.full_like(norms, 1e-7)))
    shrink = bw.and_(ew.gt(norms, st.full_like(norms, max_norm)), ew.gt(reshape(used, [n, 1]),
                                                                        st.full_like(norms, 0)))
    return ew.select(st.broadcast_in_dim(shrink, shape=shape_of(table), broadcast_dimensions=(0, 1)),
                     ew.mul(table, st.broadcast_in_dim(scale, shape=shape_of(table), broadcast_dimensions=(0, 1))),
                     table)


def _id_one_hot(ids, n, dtype):
    """[len(ids), n]: row i is the one-hot of ids[i]."""
    a = get_aval(ids)
    return cast(ew.eq(st.broadcast_in_dim(ids, shape=(a.shape[0], n), broadcast_dimensions=(0,)),
                      st.iota(dtype=a.dtype, shape=(a.shape[0], n), dimension=1)), dtype)


def _occurrences(ids, n, dtype):
    """How many times each of `ids` occurs among them."""
    return gather(reduce_sum(_id_one_hot(ids, n, dtype), axis=0), ids)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False, scale_grad_by_freq=False,
              name=None):
    """Rows of `weight` [num_embeddings, dim] at the int ids `x`: shape x.shape + [dim]. Ids equal to
    `padding_idx` (negative counts from the end) give zeros and no gradient to that row. `sparse` (Paddle's
    gradient storage) does not change the values.

    Paddle 3.3's options: `max_norm` first rescales every row that `x` uses whose `norm_type`-norm exceeds it to
    that norm, and, as Paddle updates the weight in place, an eager `weight` Tensor is updated too (the gradient
    flows to the weight as if unscaled, as in Paddle); `scale_grad_by_freq` divides each row's gradient by how often
    its id occurs in `x`.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> w = paddle.to_tensor([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embedding(paddle.to_tensor([[2, 0]]), w, padding_idx=2).numpy()
        array([[[0., 0.],
                [0., 0.]]], dtype=float32)
        >>> w = paddle.to_tensor([[3., 4.], [0.3, 0.4]])
        >>> F.embedding(paddle.to_tensor([0, 1]), w, max_norm=2.0).numpy()
        array([[1.2, 1.6],
               [0.3, 0.4]], dtype=float32)
        >>> w.numpy()[0]   # updated in place, as in Paddle
        array([1.2, 1.6], dtype=float32)
    """
    x, weight = as_tensor(x), as_tensor(weight)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"embedding: x must hold integer ids, got {get_aval(x).dtype.name}")
    if get_aval(weight).ndim != 2:
        raise ShapeError(f"embedding: weight must be 2-D [num_embeddings, dim], got shape {list(shape_of(weight))}")
    if scale_grad_by_freq and sparse:
        raise ValueError("embedding: scale_grad_by_freq=True does not go with sparse=True (as in Paddle)")
    n, dim = shape_of(weight)
    ids = reshape(x, [-1])
    table = weight
    if max_norm:
        with no_grad():  # Paddle's renorm is not recorded either
            renormed = _renormed(ids, weight, max_norm, norm_type)
        if isinstance(weight, Tracer):  # traced: the rescaled values, the gradient to the weight unscaled
            table = ew.add(weight, ew.stop_gradient(ew.sub(renormed, weight)))
        else:  # eager: Paddle's in-place update of the weight, whose rows are then looked up
            with no_grad():
                weight._rebind(renormed)
    rows = gather(table, ids)
    if scale_grad_by_freq:
        counts = _occurrences(ids, n, get_aval(rows).dtype)
        inverse = st.broadcast_in_dim(ew.div(st.full_like(counts, 1.0), counts), shape=shape_of(rows),
                                      broadcast_dimensions=(0,))
        scaled = ew.mul(rows, inverse)
        rows = ew.add(scaled, ew.stop_gradient(ew.sub(rows, scaled)))
    rows = reshape(rows, list(shape_of(x)) + [dim])
    if padding_idx is None:
        return rows
    pad_id = padding_idx + n if padding_idx < 0 else padding_idx
    is_pad = st.broadcast_in_dim(equal(x, pad_id), shape=shape_of(rows),
                                 broadcast_dimensions=tuple(range(get_aval(x).ndim)))
    return ew.select(is_pad, st.full_like(rows, 0), rows)


def one_hot(x, num_classes=-1, name=None):
    """float32 one-hot vectors of length `num_classes` for the int Tensor `x`: shape x.shape + [num_classes];
    ``num_classes=-1`` takes the largest label plus one (that needs the labels' values: eager only).
    A label outside [0, num_classes) raises ValueError eagerly, as in Paddle; under jit the labels are not known
    and such a label gives a row of zeros, unless checked mode's "index" checks are on (docs/jit.md).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> F.one_hot(paddle.to_tensor([1, 0]), 3).numpy()
        array([[0., 1., 0.],
               [1., 0., 0.]], dtype=float32)
    """
    x = as_tensor(x)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"one_hot: x must be an integer Tensor, got {get_aval(x).dtype.name}")
    n = static_int("one_hot", num_classes, "num_classes")
    if n == -1:
        labels = concrete_or_error(x, "one_hot: x", "num_classes=-1 takes the largest label plus one, which needs "
                                   "the labels' values; pass num_classes")
        n = int(labels.max()) + 1 if labels.size else 0
    v = eager_value(x)
    if v is not None and v.size and (v.min() < 0 or v.max() >= n):
        bad = v[(v < 0) | (v >= n)].reshape(-1)[0]
        raise ValueError(f"one_hot: label {bad} is out of range for num_classes={n} (x: {get_aval(x).dtype.name}, "
                         f"shape {list(v.shape)}); labels must lie in [0, {n}): raise num_classes or fix the labels")
    if v is None:  # traced: the condition checked mode verifies
        a = get_aval(x)
        in_range = bw.and_(ew.ge(x, st.full(a.shape, 0, a.dtype)), ew.lt(x, st.full(a.shape, n, a.dtype)))
        x = check(x, in_range, kind="index", message=f"one_hot: {{failures}} of the {a.size} labels ({fmt(a)}) are out "
                  f"of range for num_classes={n}; labels must lie in [0, {n})")
    shape = shape_of(x) + (n,)
    classes = st.iota(dtype=get_aval(x).dtype, shape=shape, dimension=len(shape) - 1)
    spread = st.broadcast_in_dim(x, shape=shape, broadcast_dimensions=tuple(range(len(shape) - 1)))
    return cast(ew.eq(spread, classes), dtypes.float32)
