"""Input encodings (`paddle.nn.functional.input`): one_hot and embedding."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.assertion import check
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import eager_value, shape_of, static_int
from paddle_fn.tensor.logic import equal
from paddle_fn.tensor.manipulation import gather, reshape
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["embedding", "one_hot"]

def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """Rows of `weight` [num_embeddings, dim] at the int ids `x`: shape x.shape + [dim]. Ids equal to
    `padding_idx` (negative counts from the end) give zeros and no gradient to that row. `sparse` is accepted and
    ignored.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.nn.functional as F
        >>> w = paddle.to_tensor([[0., 0.], [1., 1.], [2., 2.]])
        >>> F.embedding(paddle.to_tensor([[2, 0]]), w, padding_idx=2).numpy()
        array([[[0., 0.],
                [0., 0.]]], dtype=float32)
    """
    x, weight = as_tensor(x), as_tensor(weight)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"embedding: x must hold integer ids, got {get_aval(x).dtype.name}")
    if get_aval(weight).ndim != 2:
        raise ShapeError(f"embedding: weight must be 2-D [num_embeddings, dim], got shape {list(shape_of(weight))}")
    n, dim = shape_of(weight)
    ids = reshape(x, [-1])
    rows = reshape(gather(weight, ids), list(shape_of(x)) + [dim])
    if padding_idx is None:
        return rows
    pad_id = padding_idx + n if padding_idx < 0 else padding_idx
    is_pad = st.broadcast_in_dim(equal(x, pad_id), shape=shape_of(rows),
                                 broadcast_dimensions=tuple(range(get_aval(x).ndim)))
    return ew.select(is_pad, st.full_like(rows, 0), rows)


def one_hot(x, num_classes, name=None):
    """float32 one-hot vectors of length `num_classes` for the int Tensor `x`: shape x.shape + [num_classes].
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
