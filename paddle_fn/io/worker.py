"""Worker processes of ``DataLoader(num_workers > 0)``.

Each worker runs `_worker_loop`: it takes ``(epoch, batch index, sample indices)`` tasks from its own index queue,
loads and collates the whole batch, converts Tensors in it to numpy (arrays need no runtime state) and puts
``(epoch, batch index, batch, error)`` on the shared result queue. With ``use_shared_memory`` every array is copied
into a POSIX shared-memory block and only its name travels through the queue; the main process copies it out and
unlinks the block. An exception is sent back with the worker's
formatted traceback and re-raised by the main process. ``get_worker_info()`` describes the worker inside it.

Workers are started with 'fork' on Linux: the eager path is numpy, and a forked child can also compile and run
``paddle.jit`` programs (measured with IREE 3.13: a forked worker using jit starts in 0.4 s, 'forkserver' 0.7 s and
'spawn' 0.7 s, all correct), so fork is safe and the fastest. Elsewhere 'spawn' is used, which needs the dataset,
collate_fn and worker_init_fn to be picklable (defined at module level).
"""
from __future__ import annotations

import mmap
import os
import pickle
import queue
import random
import traceback
from collections.abc import Mapping
from multiprocessing import resource_tracker, shared_memory

import numpy as np

try:  # the POSIX shared-memory calls under multiprocessing.shared_memory (absent on Windows)
    import _posixshmem
except ImportError:
    _posixshmem = None

from paddle_fn.core.trace import Tensor
from paddle_fn.io.collate import default_collate_fn, default_convert_fn
from paddle_fn.random import seed as paddle_seed

__all__ = ["WorkerInfo", "get_worker_info"]

_worker_info = None


class WorkerInfo:
    """What a DataLoader worker process knows about itself: ``id``, ``num_workers``, ``dataset`` (this worker's
    copy) and ``seed`` (the epoch's base seed; the worker seeds ``random``, ``numpy`` and ``paddle.seed`` from
    ``seed + id``). Attributes are read-only.

    Example:
        >>> from paddle_fn.io import WorkerInfo
        >>> info = WorkerInfo(id=1, num_workers=2, dataset=None, seed=7)
        >>> info.id, info.num_workers, info.seed
        (1, 2, 7)
    """

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """Inside a DataLoader worker process: its ``WorkerInfo`` (``id``, ``num_workers``, ``dataset``, ``seed``);
    in the main process: ``None``. An IterableDataset uses it to give each worker its own part of the stream.

    Example:
        >>> import paddle_fn as paddle
        >>> print(paddle.io.get_worker_info())
        None
    """
    return _worker_info


class _IterableEnd:
    """Result payload of a worker whose IterableDataset is exhausted."""


class _WorkerError:
    """An exception raised in a worker, carried to the main process with the worker's traceback."""

    def __init__(self, worker_id, exc, tb):
        self.worker_id = worker_id
        self.exc_type = type(exc)
        try:  # a class defined where the main process cannot import it cannot be re-raised as itself
            pickle.dumps(self.exc_type)
        except Exception:  # noqa: BLE001  (any pickling failure: fall back to RuntimeError)
            self.exc_type = RuntimeError
        self.text = f"DataLoader worker {worker_id} raised {type(exc).__name__}: {exc}\nWorker traceback:\n{tb}"

    def reraise(self):
        try:
            err = self.exc_type(self.text)
        except Exception:  # noqa: BLE001  (an exception class whose constructor takes other arguments)
            err = RuntimeError(self.text)
        raise err


def to_numpy(batch):
    """Tensors -> numpy arrays throughout a batch (dicts, lists, tuples)."""
    if isinstance(batch, Tensor):
        return np.asarray(batch.numpy())
    if isinstance(batch, Mapping):
        return {k: to_numpy(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_numpy(v) for v in batch)
    return batch


class SharedArray:
    """A numpy array parked in shared memory by a worker: name, shape and dtype."""

    def __init__(self, array):
        shm = shared_memory.SharedMemory(create=True, size=array.nbytes)
        np.ndarray(array.shape, array.dtype, buffer=shm.buf)[...] = array
        # the main process unlinks the block; without this the worker's tracker would remove it when the worker exits
        resource_tracker.unregister(shm._name, "shared_memory")
        self.name, self.shape, self.dtype = shm.name, array.shape, array.dtype.str
        shm.close()

    def take(self):
        """Copy the array out and free the block (main process)."""
        if _posixshmem is None:
            shm = shared_memory.SharedMemory(name=self.name)
            try:
                return np.array(np.ndarray(self.shape, np.dtype(self.dtype), buffer=shm.buf))
            finally:
                shm.close()
                shm.unlink()
        # opened and unlinked directly: SharedMemory would register the block with the resource tracker and
        # unregister it again (two writes to the tracker's pipe, Python < 3.13), and the main process blocked on
        # them whenever the tracker process was short of CPU (bench_hapi.py on a busy 2-core machine: up to
        # 3.6 ms per batch)
        path = "/" + self.name.lstrip("/")
        fd = _posixshmem.shm_open(path, os.O_RDWR, mode=0o600)
        try:
            with mmap.mmap(fd, int(np.prod(self.shape)) * np.dtype(self.dtype).itemsize) as buf:
                return np.array(np.ndarray(self.shape, np.dtype(self.dtype), buffer=buf))
        finally:
            os.close(fd)
            _posixshmem.shm_unlink(path)


def _map_arrays(batch, fn):
    if isinstance(batch, (np.ndarray, SharedArray)):
        return fn(batch)
    if isinstance(batch, Mapping):
        return {k: _map_arrays(v, fn) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(_map_arrays(v, fn) for v in batch)
    return batch


def to_shared(batch):
    """numpy arrays (of plain dtypes, non-empty) -> SharedArray throughout a batch."""
    return _map_arrays(batch, lambda a: SharedArray(a) if isinstance(a, np.ndarray) and a.nbytes and
                       a.dtype.kind in "biufc" else a)


def from_shared(batch):
    """SharedArray -> numpy arrays throughout a batch, freeing the shared blocks."""
    return _map_arrays(batch, lambda a: a.take() if isinstance(a, SharedArray) else a)


def fetch(dataset, iterator, indices, auto_collate, collate_fn, drop_last):
    """Load one batch: samples ``dataset[i]`` (map-style) or the next ones of ``iterator``, then collate.

    For an IterableDataset ``indices`` is a list of placeholders, one per sample wanted; raises StopIteration when
    the stream is exhausted (or has fewer samples left than a full batch with ``drop_last``).
    """
    if iterator is None:
        samples = [dataset[i] for i in indices] if auto_collate else dataset[indices]
    elif not auto_collate:
        samples = next(iterator)
    else:
        samples = []
        for _ in indices:
            try:
                samples.append(next(iterator))
            except StopIteration:
                break
        if not samples or (drop_last and len(samples) < len(indices)):
            raise StopIteration
    if auto_collate:
        return (collate_fn or default_collate_fn)(samples)
    return (collate_fn or default_convert_fn)(samples)


def _worker_loop(dataset, is_iterable, index_queue, result_queue, auto_collate, collate_fn, drop_last,
                 worker_init_fn, worker_id, num_workers, base_seed, use_shared_memory):
    global _worker_info
    seed = base_seed + worker_id
    random.seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    paddle_seed(seed)
    _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, dataset=dataset, seed=base_seed)
    init_error = None
    try:
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
    except Exception as e:  # noqa: BLE001  (reported to the main process with the first task)
        init_error = _WorkerError(worker_id, e, traceback.format_exc())
    iterator = iter(dataset) if is_iterable and init_error is None else None
    while True:
        try:
            task = index_queue.get()
        except (EOFError, OSError, queue.Empty):
            return
        if task is None:
            return
        if task == "reset":  # a new epoch with persistent workers: restart the stream
            iterator = iter(dataset) if is_iterable and init_error is None else None
            continue
        epoch, batch_idx, indices = task
        if init_error is not None:
            result_queue.put((epoch, batch_idx, None, init_error))
            continue
        try:
            batch = to_numpy(fetch(dataset, iterator, indices, auto_collate, collate_fn, drop_last))
            result_queue.put((epoch, batch_idx, to_shared(batch) if use_shared_memory else batch, None))
        except StopIteration:
            result_queue.put((epoch, batch_idx, _IterableEnd, None))
        except Exception as e:  # noqa: BLE001  (every failure goes back to the main process)
            result_queue.put((epoch, batch_idx, None, _WorkerError(worker_id, e, traceback.format_exc())))
