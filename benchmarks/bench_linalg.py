"""Compiled decompositions against numpy (LAPACK): `jit` of qr, eigh, svd and eig on one n x n matrix, real or
complex, best of a few calls after the compile, and the first call (the compile included); with JAX importable
(PYTHONPATH=/tmp/peers/...), JAX's jitted eig on the CPU too (LAPACK geev through its custom call).

    .venv/bin/python benchmarks/bench_linalg.py [--sizes 64 256] [--dtypes complex64 float32]
        [--ops qr eigh svd eig] [--reps 3]

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

try:  # an optional peer, for eig's JAX column
    import jax
    jax.config.update("jax_enable_x64", True)  # complex128 input stays complex128
except ImportError:
    jax = None


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


def _jax_eig(x, reps):
    """JAX's jitted eig of x in milliseconds (best of `reps`), or "-" without JAX."""
    if jax is None:
        return "-"
    jitted = jax.jit(jax.numpy.linalg.eig)
    jitted(x)[0].block_until_ready()
    return f"{_best(lambda: jitted(x)[0].block_until_ready(), max(reps, 5)) * 1e3:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[64])
    parser.add_argument("--dtypes", nargs="+", default=["complex64"])
    parser.add_argument("--ops", nargs="+", default=["qr", "eigh", "svd", "eig"], choices=["qr", "eigh", "svd", "eig"])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print("| op | n | dtype | jit (ms) | numpy (ms) | ratio | first call (s) | JAX jit (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for dtype in args.dtypes:
            a, h = _matrices(n, dtype, rng)
            cases = {"qr": (paddle.linalg.qr, a, np.linalg.qr), "eigh": (paddle.linalg.eigh, h, np.linalg.eigh),
                     "svd": (paddle.linalg.svd, a, lambda m: np.linalg.svd(m, full_matrices=False)),
                     "eig": (paddle.linalg.eig, a, np.linalg.eig)}
            for op in args.ops:
                fun, x, reference = cases[op]
                jitted, tensor = paddle.jit(fun), paddle.to_tensor(x)
                start = time.perf_counter()
                jitted(tensor)[0].numpy()
                first = time.perf_counter() - start
                compiled = _best(lambda: jitted(tensor)[0].numpy(), args.reps)
                lapack = _best(lambda: reference(x), max(args.reps, 5))
                print(f"| {op} | {n} | {dtype} | {compiled * 1e3:.2f} | {lapack * 1e3:.3f} | {compiled / lapack:.0f}x "
                      f"| {first:.1f} | {_jax_eig(x, args.reps) if op == 'eig' else '-'} |", flush=True)


if __name__ == "__main__":
    main()
