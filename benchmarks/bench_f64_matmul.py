"""Compiled float64 matrix products on the CPU with and without the float64 tuning spec (runtime/tuning.py), next
to numpy (OpenBLAS) and, when installed, JAX's jit with x64 enabled.

    .venv/bin/python benchmarks/bench_f64_matmul.py [--reps N] [--cpu x86-64-v3]

Each row is one product `a @ b` (or `a.T @ b`, the weight-gradient form reverse mode makes) of float64 matrices:
the shapes of a tanh MLP's layers (1024 points, width 64), larger squares, and shapes the spec leaves alone (sizes
that are not multiples of its 8x16 tile). "spec" and "IREE default" compile the same StableHLO with paddle_fn's
flags, with and without the spec; the inputs are already on the device; contenders are interleaved and the median
and min of `--reps` calls printed. Outputs are checked against numpy. This is the evidence of the spec: when IREE
changes its float64 heuristic (tests/test_tuning.py's probe fails), run it again.
"""
from __future__ import annotations

import argparse
from unittest import mock

import numpy as np

import paddle_fn as pf
from paddle_fn import runtime
from paddle_fn.runtime import compiler

from bench_jit import fmt_time, interleaved, machine_line

try:
    import jax
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None

# name: (m, n, k, lhs transposed)
SHAPES = {
    "mlp layer 1024x64x64": (1024, 64, 64, False),
    "weight gradient 64x64, K 1024": (64, 64, 1024, True),
    "square 256": (256, 256, 256, False),
    "square 512": (512, 512, 512, False),
    "4096x128x128": (4096, 128, 128, False),
    "not a multiple: 1000x100x100": (1000, 100, 100, False),
    "not a multiple: 1024x50x50": (1024, 50, 50, False),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--cpu", default=None, help="compile for this CPU instead of the host (x86-64-v3: AVX2 code)")
    args = parser.parse_args()
    flags = () if args.cpu is None else (f"--iree-llvmcpu-target-cpu={args.cpu}",)
    device = runtime.default_device()
    print(machine_line() + ("" if args.cpu is None else f" | code for {args.cpu}"))
    print(f"\n{'product':32s} {'spec':>12s} {'IREE default':>13s} {'numpy':>12s} {'jax jit':>12s} "
          f"{'default/spec':>12s} {'spec GFLOP/s':>12s}")
    rng = np.random.default_rng(0)
    for name, (m, n, k, transposed) in SHAPES.items():
        a = rng.normal(size=(k, m) if transposed else (m, k))
        b = rng.normal(size=(k, n))
        product = (lambda x, y: x.T @ y) if transposed else (lambda x, y: x @ y)
        text = pf.jit(product).lower(pf.to_tensor(a), pf.to_tensor(b)).as_text()
        spec = runtime.compile_stablehlo(text, extra_flags=flags, use_disk_cache=False)
        with mock.patch.object(compiler.tuning, "llvm_cpu_flags", lambda *_: ()):
            default = runtime.compile_stablehlo(text, extra_flags=flags, use_disk_cache=False)
        inputs = [runtime.device_put(x, device) for x in (a, b)]
        contenders = {label: (lambda exe=runtime.load_executable(art, device): exe(*inputs)[0].to_numpy())
                      for label, art in (("spec", spec), ("default", default))}
        contenders["numpy"] = lambda: product(a, b)
        if jax is not None:
            ja, jb, jitted = jax.device_put(a), jax.device_put(b), jax.jit(product)
            contenders["jax"] = lambda: jitted(ja, jb).block_until_ready()
        want = product(a, b)
        for label in ("spec", "default"):
            np.testing.assert_allclose(contenders[label](), want, rtol=1e-10, atol=1e-10 * k)
        times = interleaved(contenders, reps=args.reps)
        jax_time = fmt_time(times["jax"][0]) if "jax" in times else "not installed"
        print(f"{name:32s} {fmt_time(times['spec'][0]):>12s} {fmt_time(times['default'][0]):>13s} "
              f"{fmt_time(times['numpy'][0]):>12s} {jax_time:>12s} {times['default'][0] / times['spec'][0]:11.1f}x "
              f"{2 * m * n * k / times['spec'][0] / 1e9:12.0f}")


if __name__ == "__main__":
    main()
