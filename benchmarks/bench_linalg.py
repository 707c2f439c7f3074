"""Compiled decompositions against numpy (LAPACK): `jit` of qr, eigh and svd on one n x n matrix, real or complex,
best of a few calls after the compile, and the first call (the compile included).

    .venv/bin/python benchmarks/bench_linalg.py [--sizes 64 256] [--dtypes complex64 float32] [--ops qr eigh svd]
        [--reps 3]

The compiled eigh and svd are cyclic Jacobi methods (one rotation per loop iteration), so their time grows as
n^2 loop iterations per sweep: a 256 x 256 complex eigh takes minutes; pick the sizes per operation with --ops.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("PADDLE_FN_BACKGROUND_COMPILE", "0")  # time the executable, not the op-by-op first calls

import paddle_fn as paddle  # noqa: E402 - after the setting it reads


def _best(f, reps):
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def _matrices(n, dtype, rng):
    a = rng.standard_normal((n, n))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((n, n))
    a = a.astype(dtype)
    return a, (a + a.conj().T) / 2


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64])
    parser.add_argument("--dtypes", nargs="+", default=["complex64"])
    parser.add_argument("--ops", nargs="+", default=["qr", "eigh", "svd"], choices=["qr", "eigh", "svd"])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print("| op | n | dtype | jit (ms) | numpy (ms) | ratio | first call (s) |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for dtype in args.dtypes:
            a, h = _matrices(n, dtype, rng)
            cases = {"qr": (paddle.linalg.qr, a, np.linalg.qr), "eigh": (paddle.linalg.eigh, h, np.linalg.eigh),
                     "svd": (paddle.linalg.svd, a, lambda m: np.linalg.svd(m, full_matrices=False))}
            for op in args.ops:
                fun, x, reference = cases[op]
                jitted, tensor = paddle.jit(fun), paddle.to_tensor(x)
                start = time.perf_counter()
                jitted(tensor)[0].numpy()
                first = time.perf_counter() - start
                compiled = _best(lambda: jitted(tensor)[0].numpy(), args.reps)
                lapack = _best(lambda: reference(x), max(args.reps, 5))
                print(f"| {op} | {n} | {dtype} | {compiled * 1e3:.2f} | {lapack * 1e3:.3f} | {compiled / lapack:.0f}x "
                      f"| {first:.1f} |", flush=True)


if __name__ == "__main__":
    main()
