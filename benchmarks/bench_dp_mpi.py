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
import time

os.environ["PADDLE_FN_NUM_CPU_DEVICES"] = "1"

import numpy as np  # noqa: E402

import paddle_fn as pf  # noqa: E402
import paddle_fn.distributed as dist  # noqa: E402
from _dp_mlp import BATCH, global_batch, pmean_sgd_step, print_times, sgd_step  # noqa: E402
from paddle_fn.runtime.device import set_cpu_threads  # noqa: E402

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
    x, y, params = global_batch()
    one = pf.jit(sgd_step)
    dp = pf.pmap(pmean_sgd_step, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None),
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
        print_times(times)


if __name__ == "__main__":
    main()
