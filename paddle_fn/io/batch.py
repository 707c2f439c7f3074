"""``paddle.batch``: Paddle's reader decorator that groups the samples of a reader into lists of `batch_size`."""
from __future__ import annotations

from paddle_fn.io.batch_sampler import group_into_batches


def batch(reader, batch_size, drop_last=False):
    """A reader (a function returning an iterable) whose items are lists of `batch_size` consecutive samples of
    `reader`'s; the last, shorter list is kept unless `drop_last`.

    Example:
        >>> import paddle_fn as paddle
        >>> def reader():
        ...     yield from range(5)
        >>> list(paddle.batch(reader, batch_size=2)())
        [[0, 1], [2, 3], [4]]
        >>> list(paddle.batch(reader, batch_size=2, drop_last=True)())
        [[0, 1], [2, 3]]
    """
    size = int(batch_size)
    if size <= 0:
        raise ValueError(f"batch: batch_size should be a positive integer value, but got batch_size={batch_size}")

    def batch_reader():
        return group_into_batches(reader(), size, drop_last)
    return batch_reader
