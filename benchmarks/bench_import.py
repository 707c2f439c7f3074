"""How long `import paddle_fn` takes next to `import numpy`, each in a fresh process.

    .venv/bin/python benchmarks/bench_import.py [--repeat N] [--no-pyc] [--json PATH]

Runs the three statements below alternately, each in its own interpreter, and prints the median wall and CPU
time of the statement itself (measured inside the child, so interpreter start-up is not counted) and paddle_fn's
ratio to numpy. The "ready" row also computes once, eagerly. By default the children use a private bytecode
cache, warmed by one untimed run each, as an installed package would; `--no-pyc` writes no bytecode, so
paddle_fn's modules are compiled from source in every run while numpy's installed bytecode is read (what a
checkout with PYTHONDONTWRITEBYTECODE=1 and no __pycache__ folders sees).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

STATEMENTS = {
    "numpy_s": "import numpy",
    "paddle_fn_s": "import paddle_fn",
    "ready_s": "import paddle_fn; paddle_fn.to_tensor(1.) + 1",
}
CHILD = ("import time; t0, c0 = time.perf_counter(), time.process_time(); {}; "
         "print(time.perf_counter() - t0, time.process_time() - c0)")


def child_env(pyc_dir):
    env = dict(os.environ)
    if pyc_dir is None:  # the bytecode installed with numpy is read, none is written for paddle_fn's sources
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pyc_dir
    return env


def time_statement(statement, env):
    """(wall, CPU) seconds of `statement` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", CHILD.format(statement)], env=env, check=True,
                         capture_output=True, text=True).stdout
    wall, cpu = out.split()[-2:]
    return float(wall), float(cpu)


def measure(repeat, use_pyc):
    with tempfile.TemporaryDirectory(prefix="bench_import_pyc_") as pyc_dir:
        env = child_env(pyc_dir if use_pyc else None)
        for statement in STATEMENTS.values():  # warm-up: fills the bytecode cache and the OS file cache
            time_statement(statement, env)
        times = {key: [] for key in STATEMENTS}
        for _ in range(repeat):
            for key, statement in STATEMENTS.items():
                times[key].append(time_statement(statement, env))
    result = {key: statistics.median(wall for wall, _ in ts) for key, ts in times.items()}
    result["ratio"] = result["paddle_fn_s"] / result["numpy_s"]
    # CPU time, of every thread (numpy's BLAS threads starting included), is less inflated than wall time when other
    # processes share the cores; on a quiet host the wall time is the number to compare
    result["cpu_s"] = {key: statistics.median(cpu for _, cpu in ts) for key, ts in times.items()}
    result["cpu_ratio"] = result["cpu_s"]["paddle_fn_s"] / result["cpu_s"]["numpy_s"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="timed runs of each statement (default 15)")
    parser.add_argument("--no-pyc", action="store_true", help="compile from source in every run")
    parser.add_argument("--json", metavar="PATH", help="also write the medians and the ratio to PATH")
    args = parser.parse_args()
    result = measure(args.repeat, use_pyc=not args.no_pyc)
    print(f"medians of {args.repeat} interleaved runs, {'no bytecode cache' if args.no_pyc else 'bytecode cached'}")
    print(f"  {'':<50} {'wall':>8}    {'CPU':>8}")
    for key, statement in STATEMENTS.items():
        print(f"  {statement:<50} {result[key] * 1e3:8.1f} ms {result['cpu_s'][key] * 1e3:8.1f} ms")
    print(f"  paddle_fn / numpy: {result['ratio']:.2f}x wall, {result['cpu_ratio']:.2f}x CPU")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
