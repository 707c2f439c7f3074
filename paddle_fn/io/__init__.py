"""``paddle.io``: datasets, samplers and the DataLoader (Paddle's data pipeline).

Samples are loaded as numpy data (in worker processes with ``num_workers > 0``), collated into numpy batches and
turned into Tensors in the main process. See ``docs/data.md``.
"""
from paddle_fn.io.batch_sampler import BatchSampler, DistributedBatchSampler
from paddle_fn.io.collate import default_collate_fn, default_convert_fn
from paddle_fn.io.dataloader import DataLoader
from paddle_fn.io.dataset import (
    ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split)
from paddle_fn.io.sampler import (
    RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)
from paddle_fn.io.worker import WorkerInfo, get_worker_info

__all__ = ["BatchSampler", "ChainDataset", "ComposeDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedBatchSampler", "IterableDataset", "RandomSampler", "Sampler", "SequenceSampler", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate_fn",
           "default_convert_fn", "get_worker_info", "random_split"]
