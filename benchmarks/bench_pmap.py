"""pmap benchmark: a data-parallel MLP training step (784-1024-512-10, global batch 256, SGD with pmean of the
gradients) on 1 device (jit on the whole batch) against 2 virtual CPU devices (pmap, 128 examples each), and
JAX's pmap over 2 forced host devices when JAX is importable.

    .venv/bin/python benchmarks/bench_pmap.py [--reps N]

The contenders run interleaved (the order rotating each repetition) so a shared machine's noise hits them alike;
the median and min step times are printed with the throughput ratio, and the 2-device step is checked to give the
single-device numbers.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("PADDLE_FN_NUM_CPU_DEVICES", "2")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import numpy as np  # noqa: E402

import paddle_fn as pf  # noqa: E402

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None

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


def one_device_step():
    @pf.jit
    def step(params, x, y):
        loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
        return loss, [p - LR * g for p, g in zip(params, grads)]
    return step


def data_parallel_step(devices):
    def step(params, x, y):
        loss, grads = pf.value_and_grad(loss_fn)(params, x, y)
        grads = [pf.pmean(g, "batch") for g in grads]
        return pf.pmean(loss, "batch"), [p - LR * g for p, g in zip(params, grads)]
    return pf.pmap(step, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None), devices=devices)


def jax_step():
    def loss(params, x, y):
        h = x
        for i in range(0, len(params) - 2, 2):
            h = jax.nn.relu(h @ params[i] + params[i + 1])
        logits = h @ params[-2] + params[-1]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        grads = jax.lax.pmean(grads, "batch")
        return jax.lax.pmean(value, "batch"), [p - LR * g for p, g in zip(params, grads)]
    return jax.pmap(step, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    devices = pf.devices("cpu")
    if len(devices) < 2:
        raise SystemExit("needs PADDLE_FN_NUM_CPU_DEVICES=2 (set before paddle_fn is imported)")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[-1], size=(BATCH,)).astype(np.int64)
    params = [pf.to_tensor(p) for p in init_params()]

    one, dp = one_device_step(), data_parallel_step(devices[:2])
    xt, yt = pf.to_tensor(x), pf.to_tensor(y)
    xs, ys = pf.to_tensor(x.reshape(2, -1, SIZES[0])), pf.to_tensor(y.reshape(2, -1))
    contenders = {"1 device (jit)": lambda: one(params, xt, yt),
                  "2 devices (pmap)": lambda: dp(params, xs, ys)}
    if jax is not None:
        jstep = jax_step()
        jparams = [jnp.asarray(p) for p in init_params()]
        jx, jy = jnp.asarray(x.reshape(2, -1, SIZES[0])), jnp.asarray(y.reshape(2, -1).astype(np.int32))
        contenders["JAX pmap, 2 host devices"] = lambda: jax.block_until_ready(jstep(jparams, jx, jy))

    (l1, p1), (l2, p2) = one(params, xt, yt), dp(params, xs, ys)
    diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(p1, p2))
    print(f"loss 1 device {float(l1):.6f}, 2 devices {float(l2):.6f}; max |param difference| after one step "
          f"{diff:.2e}")
    times = {k: [] for k in contenders}
    names = list(contenders)
    for _ in range(3):
        for k in names:
            out = contenders[k]()
            if k != "JAX pmap, 2 host devices":
                np.asarray(out[0])
    for r in range(args.reps):
        order = names[r % len(names):] + names[:r % len(names)]
        for k in order:
            t0 = time.perf_counter()
            out = contenders[k]()
            if k != "JAX pmap, 2 host devices":
                np.asarray(out[1][-1])  # wait for the values
            times[k].append(time.perf_counter() - t0)
    base = statistics.median(times[names[0]])
    print(f"{'contender':28s} {'median ms':>10s} {'min ms':>8s} {'examples/s':>11s} {'vs 1 device':>12s}")
    for k in names:
        med = statistics.median(times[k])
        print(f"{k:28s} {med * 1e3:10.2f} {min(times[k]) * 1e3:8.2f} {BATCH / med:11.0f} {base / med:11.2f}x")


if __name__ == "__main__":
    main()
