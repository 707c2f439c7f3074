"""Compiled decompositions side by side: `jit` of eigh, svd, qr and eig on one n x n matrix, real or complex, against
numpy (LAPACK) and JAX's jit (LAPACK too), in one run.

    .venv/bin/python benchmarks/bench_linalg.py [--sizes 16 64 256] [--dtypes float32 complex64 float64]
        [--ops eigh svd qr eig] [--reps 7]
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages /path/to/.venv/bin/python \\
        /path/to/benchmarks/bench_linalg.py    # with JAX

The compiled eigh and svd are parallel Jacobi methods (prims/matrices.py's jacobi_sweeps: n - 1 rounds of n/2
rotations per sweep), qr is Householder reflections, eig a Hessenberg reduction and shifted QR iterations, each
round, column or step one iteration of an IREE loop. Every contender runs in the same loop, one after another, with the order rotated each repetition, so the noise of a
shared machine hits them alike; a row gives the medians in ms, the ratio of paddle_fn's median to JAX's (numpy's
without JAX) and each one's first call (paddle_fn's compile, from a cold disk cache only on a first run; JAX's
trace and compile). Each contender's result is first checked against numpy's (eigenvalues, singular values, |R|).
JAX is measured when importable and is never a dependency.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform
import time

import numpy as np

os.environ.setdefault("PADDLE_FN_BACKGROUND_COMPILE", "0")  # time the executable, not the op-by-op first calls

import paddle_fn as paddle  # noqa: E402 - after the setting it reads
from bench_fft import measure  # noqa: E402 - the interleaved medians, shared with the FFT table

try:  # optional peer, never a dependency
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None


def _matrix(op, n, dtype, rng):
    a = rng.standard_normal((n, n))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((n, n))
    a = a.astype(dtype)
    return (a + a.conj().T) / 2 if op == "eigh" else a


# per op: paddle_fn's function, numpy's, JAX's (names resolved when JAX is present), and the gauge-free value
# (eigenvalues, singular values, |R|) the results are checked by
OPS = {
    "eigh": (paddle.linalg.eigh, np.linalg.eigh, "eigh", lambda out: out[0]),
    "svd": (lambda m: paddle.linalg.svd(m), lambda m: np.linalg.svd(m, full_matrices=False),
            lambda m: jnp.linalg.svd(m, full_matrices=False), lambda out: out[1]),
    "qr": (paddle.linalg.qr, np.linalg.qr, "qr", lambda out: np.abs(np.asarray(out[1]))),
    "eig": (paddle.linalg.eig, np.linalg.eig, "eig", lambda out: np.sort_complex(np.asarray(out[0]))),
}


def _first_call(f):
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def contenders(op, a):
    """{name: a thunk that runs it to completion}, {name: its first call in s}, numpy's gauge-free value."""
    fun, numpy_f, jax_f, value = OPS[op]
    tensor, jitted = paddle.to_tensor(a), paddle.jit(fun)
    thunks = {"paddle_fn jit": lambda: [t.numpy() for t in jitted(tensor)], "numpy": lambda: numpy_f(a)}
    if jax is not None:
        jax_fun = jax.jit(getattr(jnp.linalg, jax_f) if isinstance(jax_f, str) else jax_f)
        x = jnp.asarray(a)
        thunks["JAX jit"] = lambda: jax.block_until_ready(jax_fun(x))
    first = {name: _first_call(thunk) for name, thunk in thunks.items()}
    want = np.asarray(value(thunks["numpy"]()))
    for name, thunk in thunks.items():
        got = np.asarray(value(thunk()))
        assert np.abs(got - want).max() <= 1e-3 * max(1.0, np.abs(want).max()), f"{op}: {name} differs from numpy"
    return thunks, first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "complex64", "float64"])
    parser.add_argument("--ops", nargs="+", default=["eigh", "svd"], choices=list(OPS))
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print(f"# bench_linalg, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, JAX {'not installed' if jax is None else jax.__version__}\n")
    reference = "numpy" if jax is None else "JAX jit"
    print(f"| op | n | dtype | paddle_fn jit (ms) | numpy (ms) | JAX jit (ms) | jit / {reference} | first call: "
          "paddle_fn / JAX (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        for dtype in args.dtypes:
            for op in args.ops:
                thunks, first = contenders(op, _matrix(op, n, dtype, rng))
                ms = {name: median for name, (median, _) in measure(thunks, args.reps).items()}
                jax_ms = f"{ms['JAX jit']:.3f}" if "JAX jit" in ms else "-"
                jax_first = f"{first['JAX jit']:.2f}" if "JAX jit" in first else "-"
                print(f"| {op} | {n} | {dtype} | {ms['paddle_fn jit']:.2f} | {ms['numpy']:.3f} | {jax_ms} | "
                      f"{ms['paddle_fn jit'] / ms[reference]:.2g}x | {first['paddle_fn jit']:.2f} / {jax_first} |",
                      flush=True)


if __name__ == "__main__":
    main()
