"""Collation: a list of samples -> one batch. Numpy arrays and numbers are stacked into numpy arrays (the
DataLoader turns them into Tensors in the main process), Tensors into Tensors, strings are kept as lists and
dicts/lists/tuples are collated field by field."""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.tensor import stack

__all__ = ["default_collate_fn", "default_convert_fn"]


def default_collate_fn(batch):
    """Stack a list of samples into a batch, recursively.

    numpy arrays -> ``np.stack`` (a new leading batch axis); Python/numpy numbers -> a 1-D numpy array (ints give
    int64, floats float64, numpy scalars keep their dtype); Tensors -> ``paddle.stack``; strings -> the list;
    dicts -> a dict of collated fields; lists/tuples -> a list of collated fields (all samples must have the same
    number of fields).

    Args:
        batch (list): the samples.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.io import default_collate_fn
        >>> out = default_collate_fn([(np.zeros([2], 'float32'), 1), (np.ones([2], 'float32'), 2)])
        >>> out[0].shape, out[1]
        ((2, 2), array([1, 2]))
        >>> default_collate_fn([{'x': 1.5, 'name': 'a'}, {'x': 2.5, 'name': 'b'}])
        {'x': array([1.5, 2.5]), 'name': ['a', 'b']}
    """
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, Tensor):
        return stack(batch, axis=0)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, (numbers.Number, np.number, np.bool_)):
        return np.array(batch)
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        length = len(sample)
        for s in batch:
            if len(s) != length:
                raise RuntimeError("default_collate_fn: every sample in a batch should have the same number of "
                                   f"fields, got {len(s)} and {length}")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError("default_collate_fn: a batch must contain numpy arrays, Tensors, numbers, strings, dicts or "
                    f"lists, but got {type(sample).__name__}; pass DataLoader(collate_fn=...) for other types")


def default_convert_fn(batch):
    """The conversion used when ``DataLoader(batch_size=None)`` does no batching: containers are rebuilt
    (tuples become lists), leaves are kept as they are (the DataLoader then makes numpy arrays Tensors).

    Args:
        batch: one sample.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.io import default_convert_fn
        >>> default_convert_fn((np.ones(2), {'k': 3}))
        [array([1., 1.]), {'k': 3}]
    """
    if isinstance(batch, (np.ndarray, Tensor, str, bytes, numbers.Number)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(value) for key, value in batch.items()}
    if isinstance(batch, Sequence):
        return [default_convert_fn(x) for x in batch]
    return batch
