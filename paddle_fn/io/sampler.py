"""Samplers: iterables of dataset indices. ``RandomSampler`` and ``WeightedRandomSampler`` draw from numpy's
global RNG (``np.random.seed``) and ``SubsetRandomSampler`` from Paddle's global seed (``paddle.seed``), as
Paddle does."""
from __future__ import annotations

from typing import Generic, TypeVar

import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.random import randperm

_T = TypeVar("_T")

__all__ = ["RandomSampler", "Sampler", "SequenceSampler", "SubsetRandomSampler", "WeightedRandomSampler"]


class Sampler(Generic[_T]):
    """Base class of samplers: subclass it and define ``__iter__`` (yielding indices) and usually ``__len__``.

    Args:
        data_source (Dataset, optional): the dataset the indices are for.

    Example:
        >>> import paddle_fn as paddle
        >>> class EvenFirst(paddle.io.Sampler):
        ...     def __iter__(self):
        ...         n = len(self.data_source)
        ...         return iter(list(range(0, n, 2)) + list(range(1, n, 2)))
        ...     def __len__(self):
        ...         return len(self.data_source)
        >>> list(EvenFirst(range(5)))
        [0, 2, 4, 1, 3]
    """

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"'{type(self).__name__}' is a paddle.io.Sampler and must define __iter__")


class SequenceSampler(Sampler):
    """Indices ``0, 1, ..., len(data_source) - 1`` in order.

    Args:
        data_source (Dataset): the dataset.

    Example:
        >>> import paddle_fn as paddle
        >>> list(paddle.io.SequenceSampler(range(4)))
        [0, 1, 2, 3]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Random indices into ``data_source``: a permutation, or ``num_samples`` draws with ``replacement``.

    Args:
        data_source (Dataset): the dataset.
        replacement (bool): draw with replacement. Default False.
        num_samples (int, optional): how many indices; default ``len(data_source)``.
        generator (iterator, optional): if given, the indices are taken from it (``next(generator)``) instead.

    The draws use numpy's global RNG, as Paddle: ``np.random.seed(n)`` makes them reproducible.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> np.random.seed(0)
        >>> sorted(paddle.io.RandomSampler(range(5)))
        [0, 1, 2, 3, 4]
        >>> len(paddle.io.RandomSampler(range(5), replacement=True, num_samples=8))
        8
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got replacement={replacement!r}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"RandomSampler: num_samples should be a positive integer, got {self.num_samples!r}")
        if not replacement and self.num_samples > len(data_source):
            raise ValueError("RandomSampler: num_samples should be smaller than or equal to the length of "
                             f"data_source when replacement is False, but got num_samples: {self.num_samples} > "
                             f"data_source: {len(data_source)}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
            return
        yield from np.random.choice(len(self.data_source), self.num_samples, replace=self.replacement).tolist()

    def __len__(self):
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights``.

    Args:
        weights (list|tuple|numpy.ndarray|Tensor): non-negative weights, one per index (1-D).
        num_samples (int): how many indices to draw.
        replacement (bool): draw with replacement. Default True.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> np.random.seed(0)
        >>> idx = list(paddle.io.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=20))
        >>> sorted(set(idx))
        [1, 3]
    """

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"WeightedRandomSampler: num_samples should be a positive integer, got {num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"WeightedRandomSampler: replacement should be a bool, got {replacement!r}")
        w = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"WeightedRandomSampler: weights must be 1-D, got shape {list(w.shape)}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("WeightedRandomSampler: weights must be finite and non-negative")
        positive = int(np.sum(w > 0))
        if positive == 0:
            raise ValueError("WeightedRandomSampler: weights should have at least one positive value")
        if not replacement and positive < num_samples:
            raise ValueError(f"WeightedRandomSampler: only {positive} weights are positive, fewer than "
                             f"num_samples={num_samples} with replacement=False")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        return iter(np.random.choice(len(p), self.num_samples, self.replacement, p).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order (a permutation from Paddle's global seed, ``paddle.seed``).

    Args:
        indices (sequence): the indices to sample from; must not be empty.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(1)
        >>> sorted(paddle.io.SubsetRandomSampler([4, 7, 9]))
        [4, 7, 9]
    """

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be greater than 0.")
        self.indices = indices

    def __iter__(self):
        for i in randperm(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)
