"""``paddle.io.DataLoader``: batches from a dataset, loaded in the main process or in worker processes."""
from __future__ import annotations

import multiprocessing
import queue
import sys
import threading
import time
import weakref
from collections.abc import Mapping

import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.io.batch_sampler import BatchSampler, _InfiniteIterableSampler
from paddle_fn.io.dataset import IterableDataset
from paddle_fn.io.sampler import SequenceSampler
from paddle_fn.io.worker import _IterableEnd, _worker_loop, fetch, from_shared
from paddle_fn.tensor import to_tensor
from paddle_fn.transforms.devices import device_put, resolve_device

__all__ = ["DataLoader"]

_POLL_S = 1.0  # how often a waiting main process checks that its workers are alive


def _to_tensors(batch, device=None):
    """numpy arrays -> Tensors throughout a batch (on ``device`` when given); tuples become lists, as Paddle's
    return_list."""
    if isinstance(batch, np.ndarray):
        batch = to_tensor(batch)
    if isinstance(batch, Tensor):
        return batch if device is None else device_put(batch, device)
    if isinstance(batch, Mapping):
        return {k: _to_tensors(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return [_to_tensors(v, device) for v in batch]
    return batch


def _resolve_places(places):
    """None (host Tensors) or the one device batches are put on."""
    if places is None:
        return None
    if isinstance(places, (list, tuple)):
        if len(places) != 1:
            raise NotImplementedError(f"DataLoader(places={places!r}): one place per process is supported (Paddle's "
                                      "multi-place feeding is a static-graph feature); run one process per device")
        places = places[0]
    device = resolve_device(places)
    return None if device.platform == "cpu" else device


def _mp_context():
    return multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")


class _BatchSource:
    """Loads the batches of one epoch in the main process (no reference to the iterator, so a background thread
    using it does not keep an abandoned iterator alive)."""

    def __init__(self, loader):
        self.loader = loader
        self.batches = iter(loader._index_batches())
        self.iterator = iter(loader.dataset) if loader._is_iterable else None

    def __call__(self):
        ld = self.loader
        return fetch(ld.dataset, self.iterator, next(self.batches), ld._auto_collate, ld.collate_fn, ld.drop_last)


def _fill(load, buffer, stop):
    """Background thread of use_buffer_reader: keep ``buffer`` filled until the epoch ends, fails or is dropped."""
    while not stop.is_set():
        try:
            item = ("ok", load())
        except StopIteration:
            item = ("end", None)
        except BaseException as e:  # noqa: BLE001  (handed to the consuming thread, which re-raises it)
            item = ("err", e)
        while not stop.is_set():
            try:
                buffer.put(item, timeout=_POLL_S)
                break
            except queue.Full:
                continue
        if item[0] != "ok":
            return


class _SingleProcessIter:
    """Batches loaded in the main process; with use_buffer_reader a background thread loads up to prefetch_factor +
    reader_buffer_size batches ahead while the current one is used, and stops when the iterator is exhausted or
    dropped."""

    def __init__(self, loader):
        self._device = loader._device
        self._load = _BatchSource(loader)
        self._buffer = None
        if loader.use_buffer_reader:
            self._buffer = queue.Queue(maxsize=loader.prefetch_factor + loader.reader_buffer_size)
            self._stop = threading.Event()
            threading.Thread(target=_fill, args=(self._load, self._buffer, self._stop), daemon=True,
                             name="paddle_fn.io buffer reader").start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._buffer is None:
            return _to_tensors(self._load(), self._device)
        kind, value = self._buffer.get()
        if kind == "end":
            self._buffer.put(("end", None))  # later next() calls keep raising StopIteration
            raise StopIteration
        if kind == "err":
            self._stop.set()
            raise value
        return _to_tensors(value, self._device)

    def __del__(self):
        if self._buffer is not None:
            self._stop.set()


class _WorkerPool:
    """The worker processes and their queues; lives for one epoch, or for the loader with persistent_workers."""

    def __init__(self, loader):
        ctx = _mp_context()
        self.num_workers = loader.num_workers
        self.result_queue = ctx.Queue()
        self.index_queues = []
        self.workers = []
        self.epoch = 0  # tags tasks, so results of an abandoned epoch are recognised and dropped
        base_seed = int(np.random.randint(0, 2 ** 62))
        for wid in range(self.num_workers):
            iq = ctx.Queue()
            w = ctx.Process(target=_worker_loop, daemon=True,
                            args=(loader.dataset, loader._is_iterable, iq, self.result_queue, loader._auto_collate,
                                  loader.collate_fn, loader.drop_last, loader.worker_init_fn, wid,
                                  self.num_workers, base_seed, loader.use_shared_memory))
            w.start()
            self.index_queues.append(iq)
            self.workers.append(w)
        self._finalizer = weakref.finalize(self, _shutdown, self.workers, self.index_queues, self.result_queue)

    def shutdown(self):
        self._finalizer()


def _shutdown(workers, index_queues, result_queue):
    for iq in index_queues:
        try:
            iq.put(None)
        except (OSError, ValueError):
            pass
    deadline = time.monotonic() + 1.0  # idle workers exit at once; a stuck one is terminated
    for w in workers:
        w.join(timeout=max(0.0, deadline - time.monotonic()))
        if w.is_alive():
            w.terminate()
            w.join()
    _drain(result_queue)
    for q in [*index_queues, result_queue]:
        q.cancel_join_thread()
        q.close()


def _drain(result_queue):
    """Free the shared memory of results nobody will read."""
    while True:
        try:
            _, _, batch, _ = result_queue.get(timeout=0.05)
        except (queue.Empty, OSError, ValueError, EOFError):
            return
        if batch is not _IterableEnd:
            from_shared(batch)


class _MultiProcessIter:
    """Batches loaded by worker processes, handed out in order. Batch ``k`` goes to worker ``k % num_workers``;
    at most ``prefetch_factor * num_workers`` batches are in flight."""

    def __init__(self, loader):
        self._loader = loader
        if loader.persistent_workers and loader._pool is not None:
            self._pool = loader._pool
            if loader._is_iterable:
                for iq in self._pool.index_queues:
                    iq.put("reset")
        else:
            self._pool = _WorkerPool(loader)
            if loader.persistent_workers:
                loader._pool = self._pool
        self._pool.epoch += 1
        self._epoch = self._pool.epoch
        self._batches = iter(loader._index_batches())
        self._sent = 0
        self._next = 0
        self._done = {}
        self._finished_workers = set()
        self._exhausted = False
        self._closed = False
        for _ in range(loader.prefetch_factor * self._pool.num_workers):
            self._send()

    def _send(self):
        n = self._pool.num_workers
        if self._exhausted or len(self._finished_workers) == n:
            return
        while self._sent % n in self._finished_workers:
            self._sent += 1
            self._done[self._sent - 1] = _IterableEnd
        try:
            indices = next(self._batches)
        except StopIteration:
            self._exhausted = True
            return
        self._pool.index_queues[self._sent % n].put((self._epoch, self._sent, indices))
        self._sent += 1

    def _receive(self):
        timeout = self._loader.timeout
        start = time.monotonic()
        while True:
            wait = _POLL_S if timeout <= 0 else min(_POLL_S, max(0.0, timeout - (time.monotonic() - start)))
            try:
                epoch, batch_idx, batch, error = self._pool.result_queue.get(timeout=wait)
            except queue.Empty:
                epoch = None
            if epoch is not None:
                batch = batch if batch is _IterableEnd else from_shared(batch)
                if epoch == self._epoch:
                    return batch_idx, batch, error
                continue  # a result of an epoch that was abandoned (persistent workers): dropped
            for w in self._pool.workers:
                if not w.is_alive():
                    self._close()
                    raise RuntimeError(f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code "
                                       f"{w.exitcode}")
            if 0 < timeout <= time.monotonic() - start:
                self._close()
                raise RuntimeError(f"DataLoader timed out: no batch arrived from the workers in {timeout} s "
                                   "(DataLoader(timeout=...)); a sample takes longer to load than that")

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._closed or self._next >= self._sent:
                self._close()
                raise StopIteration
            while self._next not in self._done:
                batch_idx, batch, error = self._receive()
                if error is not None:
                    self._close()
                    error.reraise()
                self._done[batch_idx] = batch
                if batch is _IterableEnd:
                    self._finished_workers.add(batch_idx % self._pool.num_workers)
            batch = self._done.pop(self._next)
            self._next += 1
            self._send()
            if batch is not _IterableEnd:
                return _to_tensors(batch, self._loader._device)

    def _close(self):
        if not self._closed:
            self._closed = True
            if not self._loader.persistent_workers:
                self._pool.shutdown()

    def __del__(self):
        self._close()


class DataLoader:
    """Iterate a dataset in mini-batches of Tensors.

    Each batch is ``collate_fn`` (default ``paddle.io.default_collate_fn``) applied to the samples of one index
    list from ``batch_sampler`` (default: a ``BatchSampler`` over the dataset with ``batch_size``, ``shuffle``
    and ``drop_last``); numpy arrays in the result become Tensors, tuples become lists. A dataset of
    ``(image, label)`` with labels ``np.array([c])`` gives ``[Tensor[B, ...], Tensor[B, 1]]``; int labels give
    ``Tensor[B]``.

    With ``num_workers > 0`` batches are loaded by that many worker processes (whole batches per worker, in
    order, ``prefetch_factor`` batches per worker in flight); ``worker_init_fn(worker_id)`` runs first in each
    worker and ``paddle.io.get_worker_info()`` describes it. An exception in a worker is raised in the main
    process with the worker's traceback. Workers are shut down at the end of an epoch (when the iterator is
    exhausted or dropped), or kept for the next epoch with ``persistent_workers``.

    Args:
        dataset (Dataset|IterableDataset): the samples.
        feed_list: static-graph feeding; not supported (must be None).
        places (Place|str|list, optional): the device batches are put on ('gpu:0', CUDAPlace(0), a one-element
            list); None or CPU keeps them as host Tensors.
        return_list (bool): batches are lists; in dynamic mode this is always the case, as in Paddle.
        batch_sampler (BatchSampler, optional): yields the index lists; excludes batch_size/shuffle/drop_last.
        batch_size (int|None): samples per batch; None loads samples one by one without batching. Default 1.
        shuffle (bool): reshuffle the indices every epoch (numpy's global RNG). Default False.
        drop_last (bool): drop the last incomplete batch. Default False.
        collate_fn (callable, optional): list of samples -> batch.
        num_workers (int): worker processes; 0 loads in the main process. Default 0.
        use_buffer_reader (bool): with num_workers=0, load the next batches in a background thread while the
            current one is used. Default True.
        reader_buffer_size (int): with use_buffer_reader, the batches the buffer holds beyond those prefetched
            (Paddle's buffered reader). Default 2.
        prefetch_factor (int): batches loaded ahead per worker (or, with the buffer reader, queued ahead of the
            buffer: it holds up to prefetch_factor + reader_buffer_size batches). Default 2.
        use_shared_memory (bool): move worker batches through shared memory (each array is copied once into a
            shared block) instead of pickling them through the result queue. Default True.
        timeout (int|float): seconds to wait for a batch from the workers, 0 for no limit. Default 0.
        worker_init_fn (callable, optional): called with the worker id in each worker before loading.
        persistent_workers (bool): keep the workers alive between epochs. Default False.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> class RandomDataset(paddle.io.Dataset):
        ...     def __getitem__(self, idx):
        ...         return np.full([3], idx, 'float32'), np.array([idx % 2]).astype('int64')
        ...     def __len__(self):
        ...         return 5
        >>> loader = paddle.io.DataLoader(RandomDataset(), batch_size=2, shuffle=False)
        >>> len(loader)
        3
        >>> for image, label in loader:
        ...     print(image.shape, label.shape, label.dtype)
        paddle.Size([2, 3]) paddle.Size([2, 1]) paddle.int64
        paddle.Size([2, 3]) paddle.Size([2, 1]) paddle.int64
        paddle.Size([1, 3]) paddle.Size([1, 1]) paddle.int64
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True, batch_sampler=None, batch_size=1,
                 shuffle=False, drop_last=False, collate_fn=None, num_workers=0, use_buffer_reader=True,
                 reader_buffer_size=2, prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        if feed_list is not None:
            raise NotImplementedError("DataLoader(feed_list=...) feeds static-graph variables, which paddle_fn "
                                      "does not have; leave feed_list=None and iterate the loader")
        if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers should be a non-negative integer, got {num_workers!r}")
        for what, value in (("prefetch_factor", prefetch_factor), ("reader_buffer_size", reader_buffer_size)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"DataLoader: {what} should be a positive integer, got {value!r}")
        if not isinstance(timeout, (int, float)) or timeout < 0:
            raise ValueError(f"DataLoader: timeout should be a non-negative number of seconds, got {timeout!r}")
        if not isinstance(use_shared_memory, bool):
            raise TypeError(f"DataLoader: use_shared_memory should be a bool, got {use_shared_memory!r}")
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError(f"DataLoader: collate_fn should be callable, got {type(collate_fn).__name__}")
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self._device = _resolve_places(places)
        self.return_list = True  # dynamic mode always returns lists, as Paddle
        self.num_workers = num_workers
        self.use_buffer_reader = bool(use_buffer_reader)
        self.prefetch_factor = prefetch_factor
        self.reader_buffer_size = reader_buffer_size
        self.use_shared_memory = use_shared_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = bool(persistent_workers) and num_workers > 0
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self._is_iterable = isinstance(dataset, IterableDataset)
        self._pool = None
        if self._is_iterable:
            if shuffle:
                raise ValueError("DataLoader: an IterableDataset cannot be shuffled (shuffle=True); shuffle inside "
                                 "its __iter__")
            if batch_sampler is not None:
                raise ValueError("DataLoader: an IterableDataset does not take a batch_sampler")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_size, shuffle and drop_last should not be set when "
                                 "batch_sampler is given (the batch sampler decides them)")
            self.batch_size = None
            self.batch_sampler = batch_sampler
        elif batch_size is None:
            if shuffle or drop_last:
                raise ValueError("DataLoader: shuffle and drop_last need batch_size (got batch_size=None)")
            self.batch_size = None
            self.batch_sampler = None
        else:
            if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
                raise ValueError(f"DataLoader: batch_size should be None or a positive integer, got {batch_size!r}")
            self.batch_size = batch_size
            self.batch_sampler = (_InfiniteIterableSampler(dataset, batch_size) if self._is_iterable else
                                  BatchSampler(dataset=dataset, batch_size=batch_size, shuffle=shuffle,
                                               drop_last=drop_last))
        self._auto_collate = self.batch_sampler is not None

    def _index_batches(self):
        if self.batch_sampler is not None:
            return self.batch_sampler
        if self._is_iterable:
            return _InfiniteIterableSampler(self.dataset, 1)
        return SequenceSampler(self.dataset)

    def __len__(self):
        if self._is_iterable:
            raise TypeError("DataLoader over an IterableDataset has no len(): the stream length is unknown")
        if self.batch_sampler is None:
            return len(self.dataset)
        return len(self.batch_sampler)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _MultiProcessIter(self)

    def __call__(self):
        return self.__iter__()

    def __del__(self):
        if getattr(self, "_pool", None) is not None:
            self._pool.shutdown()
