"""The data-parallel MLP step that bench_pmap.py and bench_dp_mpi.py both time, kept in one place so the two
benchmarks stay comparable: 784-1024-512-10, global batch 256, SGD. It imports paddle_fn, so a benchmark sets
``PADDLE_FN_NUM_CPU_DEVICES`` before importing it."""
from __future__ import annotations

import statistics

import numpy as np

import paddle_fn as pf

SIZES = (784, 1024, 512, 10)
BATCH, LR = 256, 0.05


def init_params(seed=0):
    """The layers' weights (scaled normal) and biases (zeros) as numpy arrays, [w0, b0, w1, b1, ...]."""
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


def global_batch():
    """The global batch as numpy arrays ``x`` [BATCH, 784] and ``y`` [BATCH], and the initial parameters as
    Tensors."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=(BATCH,)).astype(np.int64)
    return x, y, [pf.to_tensor(p) for p in init_params()]


def sgd_step(params, x, y):
    """One SGD step on the whole batch: (loss, new params)."""
    loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
    return loss, [p - LR * g for p, g in zip(params, grads)]


def pmean_sgd_step(params, x, y):
    """One SGD step on this device's shard under ``pmap(axis_name="batch")``: the gradients and the loss are
    averaged over the devices, so every device takes the whole batch's step."""
    loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
    grads = [pf.pmean(g, "batch") for g in grads]
    return pf.pmean(loss, "batch"), [p - LR * g for p, g in zip(params, grads)]


def print_times(times):
    """A table of each contender's median and min step time, throughput, and speed-up over the first one."""
    base = statistics.median(next(iter(times.values())))
    print(f"{'contender':28s} {'median ms':>10s} {'min ms':>8s} {'examples/s':>11s} {'vs 1 device':>12s}")
    for k, ts in times.items():
        med = statistics.median(ts)
        print(f"{k:28s} {med * 1e3:10.2f} {min(ts) * 1e3:8.2f} {BATCH / med:11.0f} {base / med:11.2f}x")
