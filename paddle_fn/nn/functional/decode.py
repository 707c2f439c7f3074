"""Decoding helpers (`paddle.nn.functional.gather_tree`): backtrack beam-search ids through their parents, as
one reverse scan."""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.prims.control_flow import scan
from paddle_fn.tensor.creation import arange
from paddle_fn.tensor.manipulation import expand, take_along_axis
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["gather_tree"]


def gather_tree(ids, parents):
    """Backtrack beam search: the full id sequence that ends in each final beam.

    ``out[T-1, b, k] = ids[T-1, b, k]`` and, walking back, ``out[t, b, k] = ids[t, b, p]`` where ``p`` is the
    parent (``parents[t+1, b, .]``) of the beam chosen at step t + 1.

    Args:
        ids (Tensor): ``[max_time, batch_size, beam_size]`` int32/int64, the id selected at each step.
        parents (Tensor): same shape and dtype, the beam each selected id extends.

    Returns:
        Tensor: ``[max_time, batch_size, beam_size]``, the backtracked ids.

    Example:
        >>> import paddle_fn as paddle
        >>> ids = paddle.to_tensor([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
        >>> parents = paddle.to_tensor([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
        >>> paddle.nn.functional.gather_tree(ids, parents).numpy()
        array([[[2, 2],
                [1, 6]],
        <BLANKLINE>
               [[3, 3],
                [6, 1]],
        <BLANKLINE>
               [[0, 1],
                [9, 0]]])
    """
    ids, parents = as_tensor(ids), as_tensor(parents)
    if ids.ndim != 3 or list(ids.shape) != list(parents.shape):
        raise ShapeError(f"gather_tree: ids and parents must both be [max_time, batch_size, beam_size], got "
                         f"{ids.shape} and {parents.shape}")
    for what, x in (("ids", ids), ("parents", parents)):
        if x.dtype not in (dtypes.int32, dtypes.int64):
            raise DTypeError(f"gather_tree: {what} must be int32 or int64, got {x.dtype}")
    _, batch, beam = ids.shape
    start = expand(arange(beam, dtype=parents.dtype).unsqueeze(0), [batch, beam])

    def back(beam_index, x):
        ids_t, parents_t = x
        return take_along_axis(parents_t, beam_index, axis=1), take_along_axis(ids_t, beam_index, axis=1)

    _, out = scan(back, start, (ids, parents), reverse=True)
    return out
