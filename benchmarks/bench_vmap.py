"""vmap / Jacobian / Hessian workloads (eager baseline; the jit issue compiles the same functions).

    .venv/bin/python benchmarks/bench_vmap.py [--repeat N]

Prints the median (and min) wall time of each workload, with a hand-written numpy version of the same
computation where one is short to write, and JAX's when it is installed (optional, never a dependency).
"""
from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

import paddle_fn as paddle


def timeit(fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def mlp_workload(rng):
    sizes = [(32, 64), (64, 10)]
    params = [{"W": paddle.to_tensor(rng.normal(size=s).astype(np.float32) * 0.1),
               "b": paddle.zeros([s[1]])} for s in sizes]
    xs = paddle.to_tensor(rng.normal(size=(256, 32)).astype(np.float32))
    ys = paddle.to_tensor(rng.integers(0, 10, size=(256,)))

    def loss(params, x, y):
        h = paddle.tanh(paddle.matmul(x, params[0]["W"]) + params[0]["b"])
        logits = paddle.matmul(h, params[1]["W"]) + params[1]["b"]
        logp = logits - paddle.logsumexp(logits)
        return -paddle.sum(logp * paddle.cast(paddle.arange(10) == y, "float32"))

    per_example = paddle.vmap(paddle.grad(loss), in_axes=(None, 0, 0))

    W0, W1 = params[0]["W"].numpy(), params[1]["W"].numpy()
    X, Y = xs.numpy(), ys.numpy()

    def numpy_per_example():
        h = np.tanh(X @ W0)
        logits = h @ W1
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        d = p.copy()
        d[np.arange(len(Y)), Y] -= 1
        gW1 = h[:, :, None] * d[:, None, :]
        dh = (d @ W1.T) * (1 - h * h)
        gW0 = X[:, :, None] * dh[:, None, :]
        return gW0, gW1

    return lambda: per_example(params, xs, ys), numpy_per_example


def hessian_workload(rng, n):
    A = paddle.to_tensor(rng.normal(size=(n, n)).astype(np.float32) / np.float32(np.sqrt(n)))
    x = paddle.to_tensor(rng.normal(size=(n,)).astype(np.float32))

    def f(x):
        return paddle.sum(paddle.tanh(paddle.matmul(A, x)) ** 2) + 0.5 * paddle.sum(x ** 2)

    An, xn = A.numpy(), x.numpy()

    def numpy_hessian():
        t = np.tanh(An @ xn)
        w = 2 * (1 - t * t) * (1 - 3 * t * t)
        return (An.T * w) @ An + np.eye(n, dtype=np.float32)

    return lambda: paddle.hessian(f)(x), numpy_hessian


def jacobian_workload(rng, n, mode):
    A = paddle.to_tensor(rng.normal(size=(n, n)).astype(np.float32) / np.float32(np.sqrt(n)))
    x = paddle.to_tensor(rng.normal(size=(n,)).astype(np.float32))
    jac = paddle.jacfwd if mode == "fwd" else paddle.jacrev
    An, xn = A.numpy(), x.numpy()
    return (lambda: jac(lambda x: paddle.tanh(paddle.matmul(A, x)))(x),
            lambda: (1 - np.tanh(An @ xn) ** 2)[:, None] * An)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    workloads = [
        ("per-example grads, MLP 32-64-10, batch 256", *mlp_workload(rng)),
        ("hessian, n=64", *hessian_workload(rng, 64)),
        ("hessian, n=256", *hessian_workload(rng, 256)),
        ("jacfwd tanh(A@x), n=512", *jacobian_workload(rng, 512, "fwd")),
        ("jacrev tanh(A@x), n=512", *jacobian_workload(rng, 512, "rev")),
    ]
    print(f"# {time.strftime('%Y-%m-%d')} {platform.machine()} {platform.processor() or ''} "
          f"python {platform.python_version()} numpy {np.__version__}")
    print(f"{'workload':48s} {'paddle_fn eager median (min)':>30s} {'numpy by hand median':>22s}")
    for name, ours, ref in workloads:
        m, lo = timeit(ours, args.repeat)
        rm, _ = timeit(ref, args.repeat)
        print(f"{name:48s} {m * 1e3:16.2f} ms ({lo * 1e3:7.2f}) {rm * 1e3:18.2f} ms")


if __name__ == "__main__":
    main()
