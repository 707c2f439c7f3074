"""paddle.io: datasets, samplers, batch samplers, collation and the DataLoader (in-process and with real worker
processes), checked against closed forms and the shapes/dtypes Paddle 3.3.1 produces."""
import gc
import multiprocessing
import os
import threading
import time

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.distributed import env as dist_env
from paddle_fn.io import dataloader as dataloader_module
from paddle_fn.io import (
    BatchSampler, ChainDataset, ComposeDataset, DataLoader, Dataset, DistributedBatchSampler, IterableDataset,
    RandomSampler, SequenceSampler, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
    default_collate_fn, get_worker_info, random_split)


class Pairs(Dataset):
    """(float32 image [2, 3] filled with idx, label) with the label in a chosen form."""

    def __init__(self, n=5, label="np1"):
        self.n, self.label = n, label

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        label = {"np1": np.array([i]).astype("int64"), "int": i, "np0": np.array(i), "float": 1.5 * i,
                 "str": "a"}[self.label]
        return np.full([2, 3], i, "float32"), label


# ----------------------------------------------------------------------------------------------- batches as Paddle

@pytest.mark.parametrize("label,shape,dtype", [("np1", [2, 1], paddle.int64), ("int", [2], paddle.int64),
                                               ("np0", [2], paddle.int64), ("float", [2], paddle.float64)])
def test_label_shapes_as_paddle(label, shape, dtype):
    x, y = next(iter(DataLoader(Pairs(label=label), batch_size=2)))
    assert x.shape == [2, 2, 3] and x.dtype == paddle.float32
    assert y.shape == shape and y.dtype == dtype


def test_strings_dicts_single_arrays_and_len():
    x, names = next(iter(DataLoader(Pairs(label="str"), batch_size=2)))
    assert names == ["a", "a"]

    class D(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return {"a": np.ones(2) * i, "b": [i, np.float32(i)]}

    b = next(iter(DataLoader(D(), batch_size=3)))
    assert b["a"].shape == [3, 2] and b["a"].dtype == paddle.float64
    assert b["b"][0].dtype == paddle.int64 and b["b"][1].dtype == paddle.float32

    class Single(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.ones(2, "float32") * i

    batch = next(iter(DataLoader(Single(), batch_size=3)))
    assert isinstance(batch, paddle.Tensor) and batch.shape == [3, 2]
    assert len(DataLoader(Single(), batch_size=2)) == 2
    assert len(DataLoader(Single(), batch_size=2, drop_last=True)) == 1
    assert [b.shape for b in DataLoader(Single(), batch_size=None)] == [[2]] * 3


def test_collate_errors_and_custom_collate():
    with pytest.raises(RuntimeError, match="same number of fields"):
        default_collate_fn([(1, 2), (1,)])
    with pytest.raises(TypeError, match="collate_fn"):
        default_collate_fn([object(), object()])
    out = list(DataLoader(Pairs(4), batch_size=2, collate_fn=lambda s: np.stack([x for x, _ in s]).sum(0)))
    np.testing.assert_allclose(out[1].numpy(), np.full([2, 3], 5.0))


def test_shuffle_and_batch_sampler_arguments():
    np.random.seed(3)
    labels = np.concatenate([y.numpy().ravel() for _, y in DataLoader(Pairs(7), batch_size=3, shuffle=True)])
    assert sorted(labels.tolist()) == list(range(7)) and labels.tolist() != list(range(7))
    bs = BatchSampler(sampler=SequenceSampler(range(5)), batch_size=2)
    assert [y.numpy().ravel().tolist() for _, y in DataLoader(Pairs(5), batch_sampler=bs)] == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(Pairs(), batch_sampler=bs, batch_size=2)
    with pytest.raises(NotImplementedError, match="feed_list"):
        DataLoader(Pairs(), feed_list=[1])
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(Pairs(), num_workers=-1)


# ----------------------------------------------------------------------------------------------- datasets

def test_dataset_combinators():
    ds = TensorDataset([paddle.arange(6.).reshape([3, 2]), paddle.to_tensor([7, 8, 9])])
    assert len(ds) == 3 and int(ds[2][1]) == 9
    with pytest.raises(ValueError, match="shape\\[0\\]"):
        TensorDataset([paddle.zeros([2]), paddle.zeros([3])])
    comp = ComposeDataset([Pairs(3), Pairs(3, label="int")])
    assert len(comp[1]) == 4 and comp[1][3] == 1
    with pytest.raises(ValueError, match="same length"):
        ComposeDataset([Pairs(3), Pairs(4)])
    sub = Subset(Pairs(5), [4, 0])
    assert len(sub) == 2 and sub[0][0][0, 0] == 4

    class R(IterableDataset):
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __iter__(self):
            return iter(range(self.a, self.b))

    assert list(ChainDataset([R(0, 2), R(5, 6)])) == [0, 1, 5]
    with pytest.raises(TypeError, match="IterableDataset"):
        ChainDataset([Pairs()])


def test_random_split_follows_paddle_seed():
    paddle.seed(7)
    a, b, c = random_split(range(10), [0.5, 0.3, 0.2])
    assert (len(a), len(b), len(c)) == (5, 3, 2)
    assert sorted(list(a) + list(b) + list(c)) == list(range(10))
    paddle.seed(7)
    assert list(random_split(range(10), [5, 3, 2])[0]) == list(a)
    with pytest.raises(ValueError, match="does not equal"):
        random_split(range(10), [3, 3])


# ----------------------------------------------------------------------------------------------- samplers

def test_samplers():
    assert list(SequenceSampler(range(3))) == [0, 1, 2]
    np.random.seed(0)
    perm = list(RandomSampler(range(6)))
    np.random.seed(0)
    assert perm == np.random.choice(6, 6, replace=False).tolist()  # numpy's global RNG, as Paddle
    assert len(list(RandomSampler(range(3), replacement=True, num_samples=10))) == 10
    assert list(RandomSampler(range(3), generator=iter([2, 0, 1]))) == [2, 0, 1]
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(range(3), num_samples=5)
    np.random.seed(1)
    draws = np.array(list(WeightedRandomSampler([0.0, 1.0, 3.0], num_samples=4000)))
    assert set(draws.tolist()) == {1, 2} and abs((draws == 2).mean() - 0.75) < 0.03
    with pytest.raises(ValueError, match="replacement=False"):
        WeightedRandomSampler([0.0, 1.0, 1.0], num_samples=3, replacement=False)
    paddle.seed(2)
    assert sorted(SubsetRandomSampler([5, 9, 11])) == [5, 9, 11]
    with pytest.raises(ValueError, match="greater than 0"):
        SubsetRandomSampler([])


def test_batch_sampler_and_distributed_batch_sampler_as_paddle():
    assert list(BatchSampler(dataset=range(5), batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(dataset=range(5), batch_size=2, drop_last=True)) == 2
    with pytest.raises(ValueError, match="both"):
        BatchSampler(dataset=range(3), sampler=SequenceSampler(range(3)))
    data = list(range(10))
    # expected values printed by Paddle 3.3.1
    bs = DistributedBatchSampler(data, batch_size=2, num_replicas=3, rank=2)
    assert list(bs) == [[4, 5], [0, 1]] and len(bs) == 2
    assert list(DistributedBatchSampler(data, batch_size=2, num_replicas=3, rank=0, drop_last=True)) == [[0, 1], [6, 7]]
    shards = [sum(DistributedBatchSampler(data, 2, num_replicas=2, rank=r, shuffle=True), []) for r in range(2)]
    assert sorted(shards[0] + shards[1]) == data  # each epoch the ranks split one shuffled order
    s = DistributedBatchSampler(data, 3, num_replicas=2, rank=1, shuffle=True)
    s.set_epoch(4)
    first = list(s)
    s.set_epoch(4)
    assert list(s) == first


def test_distributed_batch_sampler_reads_launcher_env(monkeypatch):
    monkeypatch.setitem(dist_env._STATE, "comm", None)  # as in a fresh process: another test may have joined a job
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "1")
    s = DistributedBatchSampler(list(range(6)), batch_size=3)
    assert (s.nranks, s.local_rank) == (2, 1) and list(s) == [[3, 4, 5]]


# ----------------------------------------------------------------------------------------------- worker processes

class WhoLoads(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        info = get_worker_info()
        return np.full([2], i, "float32"), os.getpid(), info.id, info.num_workers, float(np.random.rand())


def test_workers_load_whole_batches_in_order():
    seen = list(DataLoader(WhoLoads(), batch_size=3, num_workers=2))
    assert [b[0].numpy()[:, 0].tolist() for b in seen] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    pids = {int(b[1].numpy()[0]) for b in seen}
    assert os.getpid() not in pids and len(pids) == 2  # real processes, not the main one
    assert [b[2].numpy().tolist() for b in seen] == [[0] * 3, [1] * 3, [0] * 3, [1]]  # batch k -> worker k % 2
    assert all((b[1].numpy() == b[1].numpy()[0]).all() for b in seen)  # a whole batch comes from one worker
    assert seen[0][3].numpy().tolist() == [2, 2, 2]
    assert seen[0][4].numpy()[0] != seen[1][4].numpy()[0]  # workers' numpy RNGs are seeded differently
    assert get_worker_info() is None


class Failing(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise KeyError(f"sample {i} is missing")
        return np.zeros(1)


def test_worker_exception_is_reraised_with_its_traceback():
    with pytest.raises(KeyError) as e:
        list(DataLoader(Failing(), batch_size=2, num_workers=2))
    assert "DataLoader worker 1" in str(e.value) and "sample 3 is missing" in str(e.value)
    assert "Worker traceback" in str(e.value) and "__getitem__" in str(e.value)


class Stream(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, 7, step):
            yield np.array([i])


def _mark(worker_id):
    np.random.seed(1000 + worker_id)


class Marked(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return np.array([np.random.randint(0, 10 ** 6)])


def test_iterable_dataset_split_by_worker_info_and_worker_init_fn():
    single = sorted(v for b in DataLoader(Stream(), batch_size=2) for v in b.numpy().ravel().tolist())
    multi = [b.numpy().ravel().tolist() for b in DataLoader(Stream(), batch_size=2, num_workers=2)]
    assert single == list(range(7)) and sorted(sum(multi, [])) == single
    assert multi[0] == [0, 2] and multi[1] == [1, 3]
    got = [int(b.numpy()[0, 0]) for b in DataLoader(Marked(), batch_size=1, num_workers=2, worker_init_fn=_mark)]
    expected = [np.random.RandomState(1000).randint(0, 10 ** 6), np.random.RandomState(1001).randint(0, 10 ** 6)]
    assert got[:2] == expected


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(2)
        return np.zeros(1)


def test_timeout_and_persistent_workers():
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out"):
        list(DataLoader(Slow(), num_workers=1, timeout=0.3))
    assert time.monotonic() - t0 < 3
    loader = DataLoader(WhoLoads(), batch_size=5, num_workers=2, persistent_workers=True)
    pids = [{int(b[1].numpy()[0]) for b in loader} for _ in range(2)]
    assert pids[0] == pids[1]  # the same worker processes serve both epochs
    procs = loader._pool.workers
    del loader
    for p in procs:
        p.join(timeout=5)
        assert not p.is_alive()


def _buffer_readers():
    # only the DataLoader's threads: other tests in this process may leave unrelated ones (pmap's device pool)
    return sum(t.name == "paddle_fn.io buffer reader" for t in threading.enumerate())


def test_abandoned_iterator_stops_its_buffer_thread():
    before = _buffer_readers()
    for _ in range(3):
        next(iter(DataLoader(Pairs(20), batch_size=2)))  # the reader thread fills its buffer, then is dropped
    gc.collect()
    deadline = time.monotonic() + 10
    while _buffer_readers() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _buffer_readers() == before


def test_buffer_reader_off_and_errors_in_main_process():
    out = [y.numpy().ravel().tolist() for _, y in DataLoader(Pairs(5), batch_size=2, use_buffer_reader=False)]
    assert out == [[0, 1], [2, 3], [4]]
    with pytest.raises(KeyError, match="missing"):
        list(DataLoader(Failing(), batch_size=2))


def _shm_blocks():
    return {n for n in os.listdir("/dev/shm") if n.startswith("psm_")} if os.path.isdir("/dev/shm") else set()


def test_shared_memory_transport_and_abandoned_epochs():
    before = _shm_blocks()
    via_shm = [y.numpy().tolist() for _, y in DataLoader(Pairs(7, label="int"), batch_size=2, num_workers=2)]
    via_queue = [y.numpy().tolist() for _, y in DataLoader(Pairs(7, label="int"), batch_size=2, num_workers=2,
                                                             use_shared_memory=False)]
    assert via_shm == via_queue == [[0, 1], [2, 3], [4, 5], [6]]
    loader = DataLoader(Pairs(12, label="int"), batch_size=2, num_workers=2, persistent_workers=True)
    for k, _ in enumerate(loader):
        if k == 1:
            break  # batches already in flight belong to the abandoned epoch
    assert [y.numpy().tolist() for _, y in loader][:2] == [[0, 1], [2, 3]]
    del loader
    it = iter(DataLoader(Pairs(12), batch_size=2, num_workers=2))
    next(it)
    del it
    assert _shm_blocks() <= before  # every shared block was copied out or freed


def test_places():
    ds = TensorDataset([paddle.arange(6.).reshape([3, 2])])
    assert [b[0].shape for b in DataLoader(ds, batch_size=2, places=[paddle.CPUPlace()])] == [[2, 2], [1, 2]]
    with pytest.raises(NotImplementedError, match="one place per process"):
        DataLoader(ds, places=["cpu", "cpu"])
    if not paddle.devices("cuda"):
        with pytest.raises(Exception, match="no cuda device"):
            DataLoader(ds, places="gpu:0")


class Compiled(Dataset):
    """Each sample runs a jit-compiled program, in a worker forked after the parent used the IREE runtime."""

    def __init__(self, fn):
        self.fn = fn

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return self.fn(paddle.to_tensor(np.full([3], i, "float32"))).numpy()


def test_forked_workers_can_run_compiled_programs():
    double = paddle.jit(lambda x: x * 2.0)
    np.testing.assert_allclose(double(paddle.to_tensor([1.0])).numpy(), [2.0])  # the parent's runtime is live
    out = [b.numpy() for b in DataLoader(Compiled(double), batch_size=1, num_workers=2)]
    np.testing.assert_allclose(np.concatenate(out), [[0, 0, 0], [2, 2, 2]])


class Dies(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        os._exit(3)  # the worker process disappears without reporting


def test_a_dead_worker_is_reported():
    with pytest.raises(RuntimeError, match="exited unexpectedly with exit code 3"):
        list(DataLoader(Dies(), batch_size=1, num_workers=1))


def test_spawned_workers(monkeypatch):
    # the start method used off Linux: the dataset travels to the worker by pickle, the worker imports paddle_fn
    monkeypatch.setattr(dataloader_module, "_mp_context", lambda: multiprocessing.get_context("spawn"))
    batches = list(DataLoader(Pairs(5, label="int"), batch_size=2, num_workers=1))
    assert [y.numpy().tolist() for _, y in batches] == [[0, 1], [2, 3], [4]]
