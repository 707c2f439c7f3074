"""Host kernels against IREE's code built from other operations: `jit` of an FFT or a decomposition, once calling
the library routine (pocketfft, LAPACK) from the compiled program and once compiled without host kernels, by size,
in one run; where the call pays for itself sets lowering/targets.py's thresholds (HOST_FFT_WORK, ...), which the
rows register in host_calls.MIN_WORK.

    .venv/bin/python benchmarks/bench_host_kernels.py [--ops fft rfft2 sort eigh svd qr cholesky lu eig]
        [--sizes 4 8 16 32 64] [--fft-sizes 64 256 1024 4096 16384] (also the sort lengths) [--reps 9]
        [--batch 1000]

A row gives the medians in ms of the two forms (interleaved, the order rotated each repetition) and the work the
lowering estimates for it (the primitive's cost, or n^3 per matrix; --batch B maps the decompositions over B
matrices, where the per-matrix cost of the libraries counts): the thresholds sit where the ratio crosses 1.
The two results are checked against each other first.
"""
from __future__ import annotations

import argparse
import datetime
import os
import platform

import numpy as np

os.environ.setdefault("PADDLE_FN_BACKGROUND_COMPILE", "0")  # time the executables, not the op-by-op first calls

import paddle_fn as paddle  # noqa: E402 - after the setting it reads
from bench_fft import measure  # noqa: E402 - the interleaved medians, shared with the FFT table
from paddle_fn.core.config import config  # noqa: E402
from paddle_fn.lowering import host_calls  # noqa: E402
from paddle_fn.runtime import CompileError  # noqa: E402

# op -> (function of one operand, the operand for a size, the work estimate of that size)
OPS = {
    "fft": (paddle.fft.fft, lambda n, rng: (rng.standard_normal((8, n)) + 1j * rng.standard_normal((8, n)))
            .astype("complex64"), lambda n: 5 * 8 * n * max(np.log2(n), 1)),
    "rfft2": (paddle.fft.rfft2, lambda n, rng: rng.standard_normal((n, n)).astype("float32"),
              lambda n: 5 * n * (n // 2 + 1) * max(np.log2(n * n), 1)),
    "sort": (paddle.sort, lambda n, rng: rng.standard_normal((8, n)).astype("float32"),
             lambda n: 8 * n * max(np.log2(n), 1)),
    "eigh": (paddle.linalg.eigh, lambda n, rng: (lambda a: a + a.T)(rng.standard_normal((n, n)).astype("float32")),
             lambda n: n ** 3),
    "svd": (paddle.linalg.svd, lambda n, rng: rng.standard_normal((n, n)).astype("float32"), lambda n: n ** 3),
    "qr": (paddle.linalg.qr, lambda n, rng: rng.standard_normal((n, n)).astype("float32"), lambda n: n ** 3),
    "cholesky": (paddle.linalg.cholesky, lambda n, rng: (lambda a: a @ a.T + n * np.eye(n, dtype="float32"))(
        rng.standard_normal((n, n)).astype("float32")), lambda n: n ** 3),
    "lu": (paddle.linalg.lu, lambda n, rng: rng.standard_normal((n, n)).astype("float32"), lambda n: n ** 3),
    "eig": (paddle.linalg.eig, lambda n, rng: rng.standard_normal((n, n)).astype("float32"), lambda n: n ** 3),
}


def _run(jitted, tensor, host_kernels):
    config.jit_host_kernels = host_kernels  # read when the function compiles (its first call)
    out = jitted(tensor)
    return [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", nargs="+", default=list(OPS), choices=list(OPS))
    parser.add_argument("--sizes", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    parser.add_argument("--fft-sizes", type=int, nargs="+", default=[64, 256, 1024, 4096, 16384])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--batch", type=int, default=1, help="decompose a stack of this many matrices")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    host_calls.MIN_WORK.update({kind: 0 for kind in host_calls.MIN_WORK})  # every size calls the host kernel
    print(f"# bench_host_kernels, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs\n")
    print("| op | size | work | host kernel (ms) | compiled form (ms) | host / compiled |")
    print("|---|---|---:|---:|---:|---:|")
    for op in args.ops:
        fun, operand, work = OPS[op]
        for n in (args.fft_sizes if op in ("fft", "rfft2", "sort") else args.sizes):
            value = operand(n, rng)
            if op not in ("fft", "rfft2", "sort") and args.batch > 1:
                value = np.stack([value] * args.batch)
            tensor, on_host, compiled = paddle.to_tensor(value), paddle.jit(fun), paddle.jit(fun)
            thunks = {"host": lambda: _run(on_host, tensor, True), "compiled": lambda: _run(compiled, tensor, False)}
            host = thunks["host"]()
            try:
                built = thunks["compiled"]()
            except CompileError:  # IREE's own sort of 16,384 floats and more
                ms = {name: median for name, (median, _) in measure({"host": thunks["host"]}, args.reps).items()}
                print(f"| {op} | {n} | {work(n):.3g} | {ms['host']:.3f} | fails to compile | |", flush=True)
                continue
            if op not in ("eig", "eigh", "svd", "qr", "lu"):  # decompositions may differ by order, signs, phases
                scale = max(np.abs(h).max() for h in host)
                assert all(np.abs(h - c).max() <= 1e-3 * scale for h, c in zip(host, built)), f"{op} {n}"
            ms = {name: median for name, (median, _) in measure(thunks, args.reps).items()}
            print(f"| {op} | {n} | {work(n):.3g} | {ms['host']:.3f} | {ms['compiled']:.3f} | "
                  f"{ms['host'] / ms['compiled']:.2g} |", flush=True)
    config.jit_host_kernels = True


if __name__ == "__main__":
    main()
