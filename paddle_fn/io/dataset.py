"""Datasets: the map-style ``Dataset`` (``__getitem__`` + ``__len__``), the stream-style ``IterableDataset``
(``__iter__``) and the combinators Paddle ships (``TensorDataset``, ``ComposeDataset``, ``ChainDataset``,
``Subset``, ``random_split``)."""
from __future__ import annotations

import bisect
import math
import warnings
from typing import Generic, TypeVar

from paddle_fn.random import randperm

_T = TypeVar("_T")

__all__ = ["ChainDataset", "ComposeDataset", "ConcatDataset", "Dataset", "IterableDataset", "Subset",
           "TensorDataset", "random_split"]


class Dataset(Generic[_T]):
    """A map-style dataset: subclass it and define ``__getitem__(idx)`` (one sample) and ``__len__()``.

    A sample is usually a tuple of numpy arrays (image, label); ``paddle.io.DataLoader`` batches samples. As in
    Paddle the class is generic in the sample type (``Dataset[tuple]`` in annotations).

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> class Squares(paddle.io.Dataset):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __getitem__(self, idx):
        ...         return np.array([idx], 'float32'), np.array([idx * idx], 'int64')
        ...     def __len__(self):
        ...         return self.n
        >>> ds = Squares(4)
        >>> len(ds), ds[3]
        (4, (array([3.], dtype=float32), array([9])))
    """

    def __getitem__(self, idx):
        raise NotImplementedError(f"'{type(self).__name__}' is a paddle.io.Dataset and must define "
                                  "__getitem__(self, idx) returning one sample")

    def __len__(self):
        raise NotImplementedError(f"'{type(self).__name__}' is a paddle.io.Dataset and must define __len__(self)")


class IterableDataset(Dataset[_T]):
    """A stream-style dataset: subclass it and define ``__iter__`` yielding samples.

    With ``DataLoader(num_workers=N)`` every worker process iterates its own copy of the dataset; split the stream
    between workers with ``paddle.io.get_worker_info()`` (see ``docs/data.md``), or every sample comes N times.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> class Count(paddle.io.IterableDataset):
        ...     def __iter__(self):
        ...         for i in range(5):
        ...             yield np.array([i], 'float32')
        >>> [b.shape for b in paddle.io.DataLoader(Count(), batch_size=2)]
        [paddle.Size([2, 1]), paddle.Size([2, 1]), paddle.Size([1, 1])]
    """

    def __iter__(self):
        raise NotImplementedError(f"'{type(self).__name__}' is a paddle.io.IterableDataset and must define "
                                  "__iter__(self) yielding samples")

    def __getitem__(self, idx):
        raise RuntimeError(f"'{type(self).__name__}' is an IterableDataset: it has no __getitem__, iterate it")

    def __len__(self):
        raise TypeError(f"'{type(self).__name__}' is an IterableDataset: it has no len()")


class TensorDataset(Dataset):
    """A dataset of Tensors (or arrays) sharing the first dimension: sample ``i`` is ``[t[i] for t in tensors]``.

    Args:
        tensors (list|tuple): Tensors whose shape[0] is the number of samples.

    Example:
        >>> import paddle_fn as paddle
        >>> ds = paddle.io.TensorDataset([paddle.arange(6.).reshape([3, 2]), paddle.to_tensor([7, 8, 9])])
        >>> len(ds)
        3
        >>> ds[1]
        [Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 3.]), Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
               8)]
    """

    def __init__(self, tensors):
        if not isinstance(tensors, (list, tuple)) or not tensors:
            raise TypeError("TensorDataset(tensors): tensors must be a non-empty list or tuple of Tensors, got "
                            f"{type(tensors).__name__}")
        lengths = [t.shape[0] for t in tensors]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"TensorDataset: all tensors must have the same shape[0], got {lengths}")
        self.tensors = tensors

    def __getitem__(self, index):
        return [t[index] for t in self.tensors]

    def __len__(self):
        return self.tensors[0].shape[0]


def _as_tuple(sample):
    return tuple(sample) if isinstance(sample, (list, tuple)) else (sample,)


class ComposeDataset(Dataset):
    """Zip map-style datasets of equal length: sample ``i`` is the fields of every dataset's sample ``i`` in one
    tuple.

    Args:
        datasets (list|tuple): the map-style datasets.

    Example:
        >>> import paddle_fn as paddle
        >>> a = paddle.io.TensorDataset([paddle.to_tensor([1, 2])])
        >>> b = paddle.io.TensorDataset([paddle.to_tensor([10, 20]), paddle.to_tensor([5, 6])])
        >>> [int(x) for x in paddle.io.ComposeDataset([a, b])[1]]
        [2, 20, 6]
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset: datasets should not be empty")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ComposeDataset only supports map-style datasets, got an IterableDataset "
                                f"'{type(d).__name__}' (use ChainDataset for streams)")
        lengths = [len(d) for d in self.datasets]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"ComposeDataset: all datasets must have the same length, got {lengths}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        return tuple(field for d in self.datasets for field in _as_tuple(d[idx]))


class ChainDataset(IterableDataset):
    """Chain iterable datasets one after the other.

    Args:
        datasets (list|tuple): the IterableDatasets.

    Example:
        >>> import paddle_fn as paddle
        >>> class Range(paddle.io.IterableDataset):
        ...     def __init__(self, a, b):
        ...         self.a, self.b = a, b
        ...     def __iter__(self):
        ...         return iter(range(self.a, self.b))
        >>> list(paddle.io.ChainDataset([Range(0, 2), Range(5, 7)]))
        [0, 1, 5, 6]
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ChainDataset: datasets should not be empty")
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset only supports IterableDatasets, got '{type(d).__name__}' "
                                "(use ConcatDataset for map-style datasets)")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Concatenate map-style datasets: indices run through the first dataset, then the second, ...

    Args:
        datasets (list|tuple): the map-style datasets.

    Example:
        >>> import paddle_fn as paddle
        >>> a = paddle.io.TensorDataset([paddle.to_tensor([1, 2])])
        >>> b = paddle.io.TensorDataset([paddle.to_tensor([3, 4, 5])])
        >>> cat = paddle.io.ConcatDataset([a, b])
        >>> len(cat), int(cat[3][0]), int(cat[-1][0])
        (5, 4, 5)
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be empty")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset (use ChainDataset)")
        self.cumulative_sizes = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise IndexError(f"ConcatDataset: index {idx} out of range for length {len(self)}")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        if which == len(self.datasets):
            raise IndexError(f"ConcatDataset: index {idx} out of range for length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): the indices to keep.

    Example:
        >>> import paddle_fn as paddle
        >>> ds = paddle.io.TensorDataset([paddle.to_tensor([10, 11, 12, 13])])
        >>> sub = paddle.io.Subset(ds, indices=[3, 0])
        >>> len(sub), int(sub[0][0])
        (2, 13)
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into non-overlapping ``Subset``s of the given lengths.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to 1 (the floor of each share, the
    remainder handed out one by one from the first split, as Paddle). The permutation is drawn from Paddle's global
    seed stream (``paddle.seed``), as Paddle's ``paddle.randperm``.

    Args:
        dataset (Dataset): the dataset to split.
        lengths (list): the lengths or fractions of the splits.
        generator: not supported; seed with ``paddle.seed`` instead.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.seed(2023)
        >>> a, b = paddle.io.random_split(range(10), [3, 7])
        >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
        (3, 7, True)
    """
    if generator is not None:
        raise NotImplementedError("random_split(generator=...) is not supported: the split follows Paddle's global "
                                  "seed; call paddle.seed(n) before random_split for a reproducible split")
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction at index {i} is {frac}, not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"random_split: length of split at index {i} is 0; this split is empty")
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(f"random_split: sum of input lengths ({sum(lengths)}) does not equal the length of the "
                         f"input dataset ({n})")
    perm = randperm(n).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out

