"""Data-parallel MLP step over 2 MPI processes (the issue's third contender, next to bench_pmap.py's 1 device and
2 virtual devices): 784-1024-512-10, global batch 256, SGD with `pmean` of the gradients.

    .venv/bin/mpirun -n 2 .venv/bin/python benchmarks/bench_dp_mpi.py [--reps N]

Each process runs `pmap` over its one device with `backend=paddle_fn.distributed.ProcessCollectives()`, so the
`pmean`s span both processes (128 examples each). The 1-device baseline (`jit` of the step on the whole batch) runs
on rank 0 while rank 1 waits in a barrier, interleaved with the 2-process steps in the same run, and the
2-process step is checked to give the single-device numbers.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ["PADDLE_FN_NUM_CPU_DEVICES"] = "1"

import numpy as np  # noqa: E402

import paddle_fn as pf  # noqa: E402
import paddle_fn.distributed as dist  # noqa: E402
from paddle_fn.runtime.device import set_cpu_threads  # noqa: E402

SIZES = (784, 1024, 512, 10)
BATCH, LR = 256, 0.05


def init_params(seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        out += [(rng.normal(size=(a, b)) / np.sqrt(a)).astype(np.float32), np.zeros(b, np.float32)]
    return out


def loss_fn(params, x, y):
    h = x
    for i in range(0, len(params) - 2, 2):
        h = pf.nn.functional.relu(h @ params[i] + params[i + 1])
    return pf.nn.functional.cross_entropy(h @ params[-2] + params[-1], y)


def sgd(params, x, y):
    loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
    return loss, [p - LR * g for p, g in zip(params, grads)]


def data_parallel(params, x, y):
    loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
    grads = [pf.pmean(g, "batch") for g in grads]
    return pf.pmean(loss, "batch"), [p - LR * g for p, g in zip(params, grads)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=None,
                        help="IREE worker threads per process, the 1-device baseline included (default: one per core)")
    args = parser.parse_args()
    if args.threads:
        set_cpu_threads(args.threads)
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != 2:
        raise SystemExit("run under mpirun -n 2 (or launch --nproc_per_node 2)")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=(BATCH,)).astype(np.int64)
    params = [pf.to_tensor(p) for p in init_params()]
    one = pf.jit(sgd)
    dp = pf.pmap(data_parallel, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None),
                 devices=pf.devices("cpu")[:1], backend=dist.ProcessCollectives())
    half = BATCH // world
    xs = pf.to_tensor(x[rank * half:(rank + 1) * half][None])
    ys = pf.to_tensor(y[rank * half:(rank + 1) * half][None])
    xt, yt = pf.to_tensor(x), pf.to_tensor(y)

    l2, p2 = dp(params, xs, ys)
    if rank == 0:
        l1, p1 = one(params, xt, yt)
        diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(p1, p2))
        print(f"loss 1 process {float(l1):.6f}, 2 processes {float(l2):.6f}; max |param difference| after one "
              f"step {diff:.2e}", flush=True)
    times = {"1 device (jit)": [], "2 MPI processes (pmap)": []}
    for r in range(args.reps + 3):
        dist.barrier()
        if rank == 0:
            t0 = time.perf_counter()
            np.asarray(one(params, xt, yt)[1][-1])
            if r >= 3:
                times["1 device (jit)"].append(time.perf_counter() - t0)
        dist.barrier()
        t0 = time.perf_counter()
        np.asarray(dp(params, xs, ys)[1][-1])
        if r >= 3:
            times["2 MPI processes (pmap)"].append(time.perf_counter() - t0)
    if rank == 0:
        base = statistics.median(times["1 device (jit)"])
        print(f"{'contender':28s} {'median ms':>10s} {'min ms':>8s} {'examples/s':>11s} {'vs 1 device':>12s}")
        for k, ts in times.items():
            med = statistics.median(ts)
            print(f"{k:28s} {med * 1e3:10.2f} {min(ts) * 1e3:8.2f} {BATCH / med:11.0f} {base / med:11.2f}x")


if __name__ == "__main__":
    main()
