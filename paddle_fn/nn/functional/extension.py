"""Extensions (`paddle.nn.functional.extension`): diag_embed, sequence_mask."""
from __future__ import annotations

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, is_concrete
from paddle_fn.tensor import math as m
from paddle_fn.tensor.creation import arange, to_tensor
from paddle_fn.tensor.creation import diag_embed as _diag_embed
from paddle_fn.tensor.manipulation import unsqueeze

__all__ = ["diag_embed", "sequence_mask"]

diag_embed = _diag_embed


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """A mask of the valid steps of sequences with lengths `x`: ``out[..., j] = j < x[...]`` (Paddle's
    ``paddle.nn.functional.sequence_mask``).

    Args:
        x (Tensor): integer lengths, any shape.
        maxlen (int|Tensor, optional): the length of the new last axis; default: ``max(x)`` (which needs a
            concrete `x`: pass `maxlen` under jit).
        dtype (str, optional): the mask's dtype. Default: 'int64'.
        name (str, optional): unused, for compatibility.

    Returns:
        A Tensor of shape ``x.shape + [maxlen]``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.functional.sequence_mask(paddle.to_tensor([1, 3, 0]), maxlen=4).numpy()
        array([[1, 0, 0, 0],
               [1, 1, 1, 0],
               [0, 0, 0, 0]])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"sequence_mask: x must hold integer lengths, got dtype {x.dtype.name}")
    if maxlen is None:
        if not is_concrete(x):
            raise ShapeError("sequence_mask: maxlen=None takes max(x), which is not known while x is traced; pass "
                             "maxlen explicitly")
        maxlen = int(m.max(x)) if x.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(maxlen)
    steps = arange(int(maxlen), dtype=x.dtype)
    return (steps < unsqueeze(x, -1)).astype(dtype)
