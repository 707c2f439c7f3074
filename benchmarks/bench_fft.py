"""FFTs side by side: paddle_fn jitted and eager against numpy.fft, scipy.fft and JAX (jit), in one run.

    .venv/bin/python benchmarks/bench_fft.py [--reps N] [--only fft1d rfft2 heat]
    PYTHONPATH=/tmp/peers/lib/python3.11/site-packages .venv/bin/python benchmarks/bench_fft.py   # with JAX

Workloads (targets: jit within 1.5x of JAX, eager within 1.2x of numpy): a 1-D FFT of 2^20 complex64 points, a
2048x2048 float32 `rfft2`, and one step of a spectral 2-D heat equation on a 512^2 grid (rfft2, multiply by
exp(-nu |k|^2 dt), irfft2). Every contender runs in
the same loop, one after another, with the order rotated each repetition, so the noise of a shared machine hits
them alike; each row gives the median and min in ms and the ratio of the medians to the reference (scipy.fft for
the eager rows, JAX jit for the compiled ones, scipy.fft when JAX is not installed). Each contender's result is
first checked against numpy's. JAX is measured when importable and is never a dependency.
"""
from __future__ import annotations

import argparse
import datetime
import platform
import statistics
import time

import numpy as np
import scipy.fft

import paddle_fn as paddle

try:  # optional peer, never a dependency
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


def heat_multiplier(n, nu=0.1, dt=1e-3):
    k = np.fft.fftfreq(n, 1.0 / n)
    ky, kx = k[:, None], np.fft.rfftfreq(n, 1.0 / n)[None, :]
    return np.exp(-nu * (kx ** 2 + ky ** 2) * dt).astype(np.float32)


def transform_contenders(paddle_fn_f, numpy_f, scipy_f, jax_f, x):
    """{contender: thunk} of one transform of the numpy array `x` (JAX's when it is installed)."""
    xt, compiled = paddle.to_tensor(x), paddle.jit(paddle_fn_f)
    contenders = {"paddle_fn jit": lambda: compiled(xt).numpy(), "paddle_fn eager": lambda: paddle_fn_f(xt).numpy(),
                  "numpy.fft": lambda: numpy_f(x), "scipy.fft": lambda: scipy_f(x)}
    if jax is not None:
        xj, jitted = jnp.asarray(x), jax.jit(jax_f)
        contenders["JAX jit"] = lambda: np.asarray(jitted(xj).block_until_ready())
    return contenders


def workloads(rng, names):
    """name -> (numpy reference result, {contender: thunk})."""
    out = {}
    if "fft1d" in names:
        x = (rng.standard_normal(2 ** 20) + 1j * rng.standard_normal(2 ** 20)).astype(np.complex64)
        out["fft 2^20 complex64"] = (np.fft.fft(x), transform_contenders(
            paddle.fft.fft, np.fft.fft, scipy.fft.fft, jnp.fft.fft if jax else None, x))
    if "rfft2" in names:
        r = rng.standard_normal((2048, 2048)).astype(np.float32)
        out["rfft2 2048x2048 float32"] = (np.fft.rfft2(r), transform_contenders(
            paddle.fft.rfft2, np.fft.rfft2, scipy.fft.rfft2, jnp.fft.rfft2 if jax else None, r))
    if "heat" in names:
        n = 512
        u = rng.standard_normal((n, n)).astype(np.float32)
        m = heat_multiplier(n)
        mt = paddle.to_tensor(m)

        def step(lib, multiplier):
            return lambda v: lib.irfft2(lib.rfft2(v) * multiplier, s=(n, n))
        out["heat step 512^2 (rfft2, irfft2)"] = (step(np.fft, m)(u), transform_contenders(
            step(paddle.fft, mt), step(np.fft, m), step(scipy.fft, m), step(jnp.fft, jnp.asarray(m)) if jax else None,
            u))
    return out


def measure(contenders, reps):
    names = list(contenders)
    times = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            t0 = time.perf_counter()
            contenders[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: (statistics.median(ts) * 1e3, min(ts) * 1e3) for name, ts in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--only", nargs="*", default=["fft1d", "rfft2", "heat"])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"# bench_fft, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
          f"JAX {'not installed' if jax is None else jax.__version__}\n")
    print("| workload | contender | median ms | min ms | ratio to reference (median) |")
    print("|---|---|---|---|---|")
    for workload, (want, contenders) in workloads(rng, args.only).items():
        for name, thunk in contenders.items():  # warm-up (compiles) and correctness
            got = np.asarray(thunk())
            scale = np.abs(want).max()
            assert np.abs(got - want).max() <= 1e-4 * scale, f"{workload}: {name} differs from numpy"
        results = measure(contenders, args.reps)
        reference = "JAX jit" if "JAX jit" in results else "scipy.fft"
        for name, (median, least) in results.items():
            ref = reference if name != "paddle_fn eager" else "scipy.fft"
            ratio = median / results[ref][0]
            print(f"| {workload} | {name} | {median:.2f} | {least:.2f} | {ratio:.2f}x {ref} |")


if __name__ == "__main__":
    main()
