"""Where a compiled step's time goes, dispatch by dispatch: one bench_models class's paddle_fn jit program, timed
by IREE's own `iree-benchmark-module --dispatch_statistics` (CPU, local-task; the tool ships in the runtime wheel).

    .venv/bin/python benchmarks/dispatch_times.py CLASS [--repetitions N] [--top K] [--flags FLAG ...]

The program is lowered and compiled as jit does it (`Lowered.cross_compile("llvm-cpu")`, plus `--flags`), its
inputs are written as .npy files, and the tool runs it: the whole call's median, then one row per dispatch
function with its time per call of the program (all its calls together), its number of calls and its share of
the total, slowest first. The tool's own
calls wait as IREE does (no SCHED_BATCH, benchmarks/README.md "Waiting for the worker threads"), so its whole-call
times have tails; the dispatch rows come from a separate profiled pass. What IREE names a dispatch and which code
generator it chose: `Lowered.dispatches()`.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile

import numpy as np

import bench_models
import paddle_fn as pf
from paddle_fn.core.pytree import tree_leaves

TOOL = "iree-benchmark-module"
# google-benchmark's rows: "BM_main/<name>   <real> <unit>   <cpu> <unit>   <iterations> <counters>"
_ROW = re.compile(r"^BM_main/(\S+)\s+([\d.]+) (ns|us|ms|s)\s+([\d.]+) (ns|us|ms|s)\s+\d+\s*(.*)$")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# google-benchmark writes counters with SI suffixes: 9.64648m, 1.2k
_SI = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9}


def _counter(text: str) -> float:
    return float(text[:-1]) * _SI[text[-1]] if text[-1:] in _SI else float(text)


def tool_path() -> str:
    """The runtime wheel's iree-benchmark-module (beside its Python extension)."""
    import iree._runtime_libs as libs
    return os.path.join(os.path.dirname(libs.__file__), TOOL)


def class_program(name: str, flags=()):
    """(vmfb bytes, flat input arrays) of class `name`'s paddle_fn jit step."""
    model = bench_models.MODELS[name]
    params, data = model.data(np.random.default_rng(0))
    fn = bench_models.class_function(model, bench_models.paddle_ops(pf))
    args = [pf.tree_map(pf.to_tensor, params)] + [pf.tree_map(pf.to_tensor, d) for d in data]
    vmfb = pf.jit(fn).lower(*args).cross_compile("llvm-cpu", tuple(flags)).vmfb
    return vmfb, [np.asarray(leaf.numpy()) for leaf in tree_leaves(args)]


def dispatch_times(vmfb: bytes, inputs, repetitions: int = 5) -> tuple[float, list[dict]]:
    """(the median whole-call time in seconds, [{"name", "seconds": per program call, all its calls together,
    "calls": its calls per program call, "percent": its share}] slowest first)."""
    with tempfile.TemporaryDirectory(prefix="dispatch_times_") as folder:
        module = os.path.join(folder, "main.vmfb")
        with open(module, "wb") as out:
            out.write(vmfb)
        command = [tool_path(), f"--module={module}", "--device=local-task", "--function=main",
                   "--dispatch_statistics", f"--benchmark_repetitions={repetitions}", "--benchmark_min_time=0.3s"]
        for k, array in enumerate(inputs):
            path = os.path.join(folder, f"input{k}.npy")
            np.save(path, array)
            command.append(f"--input=@{path}")
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{TOOL} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    calls, rows = [], []
    for line in done.stdout.splitlines():
        found = _ROW.match(line.strip())
        if not found:
            continue
        label, real, unit, counters = found.group(1), float(found.group(2)), found.group(3), found.group(6)
        if label.endswith("/real_time"):  # one repetition of the whole call
            calls.append(real * _SECONDS[unit])
        elif "/" not in label:  # a dispatch function's row
            fields = dict(item.split("=", 1) for item in counters.split())
            rows.append({"name": label, "seconds": real * _SECONDS[unit],
                         "calls": round(_counter(fields.get("calls", "1"))),
                         "percent": _counter(fields.get("percent", "nan"))})
    if not calls or not rows:
        raise RuntimeError(f"{TOOL} printed no dispatch rows:\n{done.stdout[-2000:]}{done.stderr[-1000:]}")
    return float(np.median(calls)), sorted(rows, key=lambda row: -row["seconds"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model_class", choices=list(bench_models.MODELS))
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--top", type=int, default=25, help="rows to print (default 25)")
    parser.add_argument("--flags", nargs="*", default=[], help="extra iree-compile flags")
    args = parser.parse_args()
    median, rows = dispatch_times(*class_program(args.model_class, args.flags), args.repetitions)
    print(f"{args.model_class}: {median * 1e3:.3f} ms per call (median of {args.repetitions}), "
          f"{sum(row['calls'] for row in rows)} dispatches of {len(rows)} functions\n")
    print("| dispatch | ms per program call (all its calls) | calls | share |\n|---|---:|---:|---:|")
    for row in rows[:args.top]:
        print(f"| {row['name']} | {row['seconds'] * 1e3:.3f} | {row['calls']} | {row['percent']:.1f}% |")


if __name__ == "__main__":
    main()
