"""A rank of a 2-process job (run by tests/test_distributed.py under mpirun, launch or spawn).

    mpirun -n 2 python tests/mpi_worker_dist.py all
    python -m paddle_fn.distributed.launch --nproc_per_node 2 tests/mpi_worker_dist.py collectives

Modes: ``collectives`` (every collective and DataParallel training against single-process training; prints
``rank R OK``), ``all`` (also pmap across processes, unused parameters, fleet), ``timeout`` (rank 1 skips a
collective: rank 0 must fail naming rank 1), ``crash`` (rank 1 raises: rank 0 must stop instead of waiting).
"""
import sys
import time

import numpy as np

import paddle_fn as paddle
import paddle_fn.distributed as dist


def check_collectives(rank, n):
    x = paddle.to_tensor([1.0, 2.0]) * (rank + 1)
    dist.all_reduce(x)
    np.testing.assert_allclose(x.numpy(), [3.0, 6.0])
    for op, want in [(dist.ReduceOp.MAX, [2.0, 4.0]), (dist.ReduceOp.MIN, [1.0, 2.0]),
                     (dist.ReduceOp.PROD, [2.0, 8.0]), (dist.ReduceOp.AVG, [1.5, 3.0])]:
        y = paddle.to_tensor([1.0, 2.0]) * (rank + 1)
        dist.all_reduce(y, op=op)
        np.testing.assert_allclose(y.numpy(), want)
    parts = []
    dist.all_gather(parts, paddle.to_tensor([rank, 10 + rank]))
    assert [p.numpy().tolist() for p in parts] == [[0, 10], [1, 11]], parts
    held = [paddle.zeros([2], "int64"), paddle.zeros([2], "int64")]
    first = held[0]
    dist.all_gather(held, paddle.to_tensor([rank, 10 + rank]))
    assert held[0] is first and first.numpy().tolist() == [0, 10], held  # a full list is updated in place
    b = paddle.to_tensor([float(rank)] * 3)
    dist.broadcast(b, src=1)
    np.testing.assert_allclose(b.numpy(), [1.0, 1.0, 1.0])
    r = paddle.to_tensor([rank + 1.0])
    dist.reduce(r, dst=0)
    np.testing.assert_allclose(r.numpy(), [3.0] if rank == 0 else [2.0])
    out = paddle.zeros([2])
    dist.scatter(out, [paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([2.0, 3.0])] if rank == 0 else None, src=0)
    np.testing.assert_allclose(out.numpy(), [2.0 * rank, 2.0 * rank + 1])
    objs = []
    dist.all_gather_object(objs, {"rank": rank})
    assert objs == [{"rank": 0}, {"rank": 1}], objs
    dist.barrier()
    gathered = []
    dist.gather(paddle.to_tensor([rank * 1.0]), gathered if rank == 1 else None, dst=1)
    assert [t.numpy().tolist() for t in gathered] == ([[0.0], [1.0]] if rank == 1 else []), gathered
    rs = paddle.zeros([2])
    dist.reduce_scatter(rs, [paddle.to_tensor([1.0, 2.0]) * (rank + 1), paddle.to_tensor([3.0, 4.0]) * (rank + 1)])
    np.testing.assert_allclose(rs.numpy(), [[3.0, 6.0], [9.0, 12.0]][rank])
    a2a = []
    dist.alltoall(a2a, [paddle.to_tensor([10 * rank + j]) for j in range(n)])
    assert [t.numpy().tolist() for t in a2a] == [[rank], [10 + rank]], a2a
    single = paddle.zeros([4])
    dist.alltoall_single(single, paddle.to_tensor([0.0, 1.0, 2.0, 3.0]) + 10 * rank)
    np.testing.assert_allclose(single.numpy(), [[0.0, 1.0, 10.0, 11.0], [2.0, 3.0, 12.0, 13.0]][rank])
    got = []
    dist.scatter_object_list(got, ["a", "b"] if rank == 0 else None, src=0)
    assert got == [["a", "b"][rank]], got
    msg = paddle.to_tensor([7.0, 8.0]) if rank == 0 else paddle.zeros([2])
    if rank == 0:
        dist.send(msg, dst=1)
    else:
        dist.recv(msg, src=0)
        np.testing.assert_allclose(msg.numpy(), [7.0, 8.0])


def check_pmap(rank, n):
    """pmap over this process's devices, its psum/axis_index spanning both processes."""
    k = len(paddle.devices())
    x = np.arange(2 * k, dtype="float32").reshape(k, 2) + 100 * rank
    f = paddle.pmap(lambda v: (paddle.psum(v, "i"), paddle.axis_index("i"), paddle.psum(v.sum(), "i")),
                    axis_name="i", backend=dist.ProcessCollectives())
    total, index, scalar = f(paddle.to_tensor(x))
    everyone = np.concatenate([np.arange(2 * k, dtype="float32").reshape(k, 2) + 100 * r for r in range(n)])
    np.testing.assert_allclose(total.numpy(), np.broadcast_to(everyone.sum(0), (k, 2)))
    assert index.numpy().tolist() == list(range(rank * k, rank * k + k))
    np.testing.assert_allclose(scalar.numpy(), np.full(k, everyone.sum()))  # 0-D values cross processes as 0-D
    g = paddle.pmap(lambda v: (paddle.pmean(v, "i"), paddle.all_gather(v, "i")), axis_name="i")  # the default
    # backend spans the processes once the job has several
    mean, gathered = g(paddle.to_tensor(x))
    np.testing.assert_allclose(mean.numpy(), np.broadcast_to(everyone.mean(0), (k, 2)), rtol=1e-6)
    np.testing.assert_allclose(gathered.numpy(), np.broadcast_to(everyone, (k,) + everyone.shape))


def mlp(seed):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 1))


def train(model, x, y, steps=3):
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    for _ in range(steps):
        loss = paddle.nn.functional.mse_loss(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
    return {k: v.numpy() for k, v in model.state_dict().items()}


def check_data_parallel(rank, n):
    data = np.random.RandomState(0)
    x, y = data.randn(8, 4).astype("float32"), data.randn(8, 1).astype("float32")
    # Different seeds: DataParallel must start every rank from rank 0's weights.
    dp = paddle.DataParallel(mlp(seed=rank), comm_buffer_size=1, last_comm_buffer_size=1)
    got = train(dp, x[rank::n], y[rank::n])
    want = train(mlp(seed=0), x, y)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)
    # no_sync: local gradients only.
    with dp.no_sync():
        paddle.nn.functional.mse_loss(dp(paddle.to_tensor(x[rank::n])), paddle.to_tensor(y[rank::n])).backward()
    grads = []
    dist.all_gather(grads, dp.parameters()[0].grad)
    assert not np.allclose(grads[0].numpy(), grads[1].numpy()), "no_sync must not average"
    try:
        paddle.jit(lambda xb: dp(xb).sum().backward())(paddle.to_tensor(x[rank::n]))
        raise AssertionError("a compiled DataParallel backward must fail clearly")
    except NotImplementedError as e:
        assert "averages gradients eagerly" in str(e), e


class TwoBranches(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a, self.b = paddle.nn.Linear(2, 1), paddle.nn.Linear(2, 1)

    def forward(self, x, branch):
        return self.a(x) if branch == 0 else self.b(x)


def check_unused_parameters(rank, n):
    """Rank 0 uses branch a, rank 1 branch b: each parameter's gradient is the mean over ranks (0 where unused)."""
    x = paddle.to_tensor([[1.0, 2.0]])
    strict = paddle.DataParallel(TwoBranches())
    try:
        strict(x, rank)
        raise AssertionError("unused parameters must be reported")
    except RuntimeError as e:
        assert "did not use parameter(s) ['" + "ab"[1 - rank] + ".weight'" in str(e), e
    dp = paddle.DataParallel(TwoBranches(), find_unused_parameters=True)
    dp(x, rank).sum().backward()
    for name in ("a", "b"):
        layer = getattr(dp._layers, name)
        np.testing.assert_allclose(layer.weight.grad.numpy(), [[0.5], [1.0]], err_msg=name)
        np.testing.assert_allclose(layer.bias.grad.numpy(), [0.5], err_msg=name)


def check_fleet(rank, n):
    """fleet's collective mode is DataParallel: gradients averaged, rank 0's weights everywhere."""
    from paddle_fn.distributed import fleet
    fleet.init(is_collective=True)
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (rank, n, rank == 0)
    model = fleet.distributed_model(mlp(seed=10 + rank))
    model(paddle.to_tensor(np.full((2, 4), rank, "float32"))).sum().backward()
    grads, weights = [], []
    dist.all_gather(grads, model.parameters()[0].grad)
    dist.all_gather(weights, model.parameters()[0])
    np.testing.assert_allclose(grads[0].numpy(), grads[1].numpy())
    np.testing.assert_allclose(weights[0].numpy(), weights[1].numpy())


def main(mode):
    dist.init_parallel_env()
    rank, n = dist.get_rank(), dist.get_world_size()
    assert n == 2, n
    if mode in ("collectives", "all"):
        check_collectives(rank, n)
        check_data_parallel(rank, n)
        if mode == "all":  # the rest is transport-independent: run under mpirun only, to keep the tests fast
            check_pmap(rank, n)
            check_unused_parameters(rank, n)
            check_fleet(rank, n)
        print(f"rank {rank} OK", flush=True)
    elif mode == "timeout":
        dist.barrier()
        if rank == 0:
            dist.all_reduce(paddle.to_tensor([1.0]))
        else:
            time.sleep(4)
        print(f"rank {rank} finished", flush=True)
    elif mode == "crash":
        dist.barrier()
        if rank == 1:
            raise ValueError("rank 1 fails on purpose")
        dist.all_reduce(paddle.to_tensor([1.0]))
        print(f"rank {rank} finished", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
