"""pmap benchmark: a data-parallel MLP training step (784-1024-512-10, global batch 256, SGD with pmean of the
gradients) on 1 device (jit on the whole batch) against 2 virtual CPU devices (pmap, 128 examples each; as one
multi-device module and as per-device segments with host collectives), and JAX's pmap over 2 forced host devices
when JAX is importable.

    .venv/bin/python benchmarks/bench_pmap.py [--reps N]

The contenders run interleaved (the order rotating each repetition) so a shared machine's noise hits them alike;
the median and min step times are printed with the throughput ratio, and the 2-device step is checked to give the
single-device numbers.
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("PADDLE_FN_NUM_CPU_DEVICES", "2")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import numpy as np  # noqa: E402

import paddle_fn as pf  # noqa: E402
from _dp_mlp import (LR, SIZES, global_batch, init_params, pmean_sgd_step, print_times,  # noqa: E402
                     sgd_step)

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None

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
    x, y, params = global_batch()

    one = pf.jit(sgd_step)
    dp = pf.pmap(pmean_sgd_step, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None),
                 devices=devices[:2])
    xt, yt = pf.to_tensor(x), pf.to_tensor(y)
    xs, ys = pf.to_tensor(x.reshape(2, -1, SIZES[0])), pf.to_tensor(y.reshape(2, -1))
    def with_strategy(strategy):
        def run():
            pf.config.update("pmap_strategy", strategy)
            return dp(params, xs, ys)
        return run
    contenders = {"1 device (jit)": lambda: one(params, xt, yt),
                  "2 devices (pmap, one module)": with_strategy("module"),
                  "2 devices (pmap, segments)": with_strategy("segments")}
    if jax is not None:
        jstep = jax_step()
        jparams = [jnp.asarray(p) for p in init_params()]
        jx, jy = jnp.asarray(x.reshape(2, -1, SIZES[0])), jnp.asarray(y.reshape(2, -1).astype(np.int32))
        contenders["JAX pmap, 2 host devices"] = lambda: jax.block_until_ready(jstep(jparams, jx, jy))

    l1, p1 = one(params, xt, yt)
    for name in ("2 devices (pmap, one module)", "2 devices (pmap, segments)"):
        l2, p2 = contenders[name]()
        diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(p1, p2))
        print(f"loss 1 device {float(l1):.6f}, {name} {float(l2):.6f}; max |param difference| after one step "
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
    print_times(times)


if __name__ == "__main__":
    main()
