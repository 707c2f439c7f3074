"""Batch samplers: iterables of index lists, one list per mini-batch. ``DistributedBatchSampler`` gives each of
``num_replicas`` processes its own share of every epoch."""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.distributed import get_rank, get_world_size
from paddle_fn.io.dataset import IterableDataset
from paddle_fn.io.sampler import RandomSampler, Sampler, SequenceSampler

__all__ = ["BatchSampler", "DistributedBatchSampler"]


def _check_batch_args(cls, batch_size, shuffle, drop_last):
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise ValueError(f"{cls}: batch_size should be a positive integer, got {batch_size!r}")
    if not isinstance(shuffle, bool):
        raise TypeError(f"{cls}: shuffle should be a bool, got {shuffle!r}")
    if not isinstance(drop_last, bool):
        raise TypeError(f"{cls}: drop_last should be a bool, got {drop_last!r}")


def group_into_batches(items, batch_size, drop_last):
    """Lists of `batch_size` consecutive items of the iterable `items` (the last, shorter one unless `drop_last`).

    Example:
        >>> from paddle_fn.io.batch_sampler import group_into_batches
        >>> list(group_into_batches(range(5), 2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class BatchSampler(Sampler):
    """Group the indices of a sampler (or of a dataset, in order or shuffled) into mini-batches.

    Args:
        dataset (Dataset, optional): a map-style dataset; its indices are sampled by a ``SequenceSampler``, or a
            ``RandomSampler`` when ``shuffle``. Give either ``dataset`` or ``sampler``.
        sampler (Sampler, optional): the sampler whose indices are grouped.
        shuffle (bool): with ``dataset``, shuffle the indices every epoch. Default False.
        batch_size (int): indices per batch. Default 1.
        drop_last (bool): drop the last batch when it is smaller than batch_size. Default False.

    Example:
        >>> import paddle_fn as paddle
        >>> list(paddle.io.BatchSampler(dataset=range(5), batch_size=2))
        [[0, 1], [2, 3], [4]]
        >>> bs = paddle.io.BatchSampler(sampler=paddle.io.SequenceSampler(range(5)), batch_size=2, drop_last=True)
        >>> list(bs), len(bs)
        ([[0, 1], [2, 3]], 2)
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if dataset is None:
            if sampler is None:
                raise ValueError("BatchSampler: either dataset or sampler should be set")
            if not isinstance(sampler, (Sampler, list, tuple, range)) and not hasattr(sampler, "__iter__"):
                raise TypeError(f"BatchSampler: sampler should be a paddle.io.Sampler, got {type(sampler).__name__}")
            if shuffle:
                raise ValueError("BatchSampler: shuffle should be False when sampler is set (shuffle in the sampler)")
            self.sampler = sampler
        else:
            if sampler is not None:
                raise ValueError("BatchSampler: should not set both dataset and sampler")
            if isinstance(dataset, IterableDataset):
                raise TypeError("BatchSampler: dataset should be a map-style Dataset, not an IterableDataset")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        _check_batch_args("BatchSampler", batch_size, shuffle, drop_last)
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last

    def __iter__(self):
        return group_into_batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)


class _InfiniteIterableSampler:
    """Batches of ``None`` placeholders for an IterableDataset: the samples come from the dataset's iterator."""

    def __init__(self, dataset, batch_size=1):
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size


class DistributedBatchSampler(BatchSampler):
    """Batches of this process's share of the dataset in data-parallel training.

    The index list is padded by wrapping around to a multiple of ``num_replicas``; rank ``r`` takes, from every
    group of ``batch_size * num_replicas`` consecutive indices, the ``r``-th block of ``batch_size`` (and its share
    of the final partial group), exactly as Paddle, so all ranks see disjoint samples and the same batch count.
    With ``shuffle`` the padded list is shuffled by ``np.random.RandomState(epoch)``; the epoch advances by one
    per pass, or is set with ``set_epoch``.

    Args:
        dataset (Dataset): any object with ``__len__``.
        batch_size (int): samples per batch on this process.
        num_replicas (int, optional): number of processes; default ``paddle.distributed.get_world_size()`` (the
            initialized job, else ``PADDLE_TRAINERS_NUM``, 1 outside a distributed launch).
        rank (int, optional): this process's rank; default ``paddle.distributed.get_rank()`` (0 outside a launch).
        shuffle (bool): shuffle every epoch. Default False.
        drop_last (bool): drop the last incomplete batch. Default False.

    Example:
        >>> import paddle_fn as paddle
        >>> bs = paddle.io.DistributedBatchSampler(list(range(10)), batch_size=2, num_replicas=3, rank=2)
        >>> list(bs), len(bs)
        ([[4, 5], [0, 1]], 2)
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False, drop_last=False):
        _check_batch_args("DistributedBatchSampler", batch_size, shuffle, drop_last)
        if num_replicas is not None and (not isinstance(num_replicas, int) or num_replicas <= 0):
            raise ValueError(f"DistributedBatchSampler: num_replicas should be a positive integer, got "
                             f"{num_replicas!r}")
        if rank is not None and (not isinstance(rank, int) or rank < 0):
            raise ValueError(f"DistributedBatchSampler: rank should be a non-negative integer, got {rank!r}")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.nranks = get_world_size() if num_replicas is None else num_replicas
        self.local_rank = get_rank() if rank is None else rank
        if self.local_rank >= self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank {self.local_rank} must be < num_replicas {self.nranks}")
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _local_indices(self):
        n = len(self.dataset)
        indices = list(range(n))
        pad = self.total_size - n
        indices += (indices * math.ceil(pad / n))[:pad] if n else []
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        group = self.batch_size * self.nranks
        tail = self.total_size % group
        local = []
        for start in range(self.local_rank * self.batch_size, self.total_size - tail, group):
            local += indices[start:start + self.batch_size]
        share = tail // self.nranks
        rest = indices[self.total_size - tail:]
        local += rest[self.local_rank * share:(self.local_rank + 1) * share]
        return local

    def __iter__(self):
        return group_into_batches(self._local_indices(), self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def set_epoch(self, epoch):
        """Set the epoch that seeds the shuffle (call it before each epoch so every rank shuffles alike).

        Args:
            epoch (int): the epoch number.

        Example:
            >>> import paddle_fn as paddle
            >>> bs = paddle.io.DistributedBatchSampler(list(range(6)), batch_size=3, shuffle=True)
            >>> bs.set_epoch(1)
            >>> first = list(bs)
            >>> bs.set_epoch(1)
            >>> list(bs) == first
            True
        """
        self.epoch = epoch
