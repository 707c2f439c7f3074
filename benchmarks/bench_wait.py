"""How the calling thread waits for IREE's CPU worker threads: bench_models' compiled steps called with the waiting
thread switched to SCHED_BATCH (`runtime.executable.invoke_without_preempting`, the default) and without, in turn.

    .venv/bin/python benchmarks/bench_wait.py [--reps N] [--only CLASS ...]

Each class's step is compiled once and one program object serves both ways; the two alternate call by call, in an
order swapped every repetition, each call waiting for its loss. Reports the median, the 90th percentile and the
maximum of each, and the calling thread's CPU time per call (`time.thread_time`): a waiter spinning in IREE's wait
shows there. Without the switch, a waiter woken onto the core of the worker that woke it can spin until the next
scheduler tick (benchmarks/README.md, "Waiting for the worker threads"). Linux only (scheduling policies).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import bench_models
import paddle_fn as pf
from paddle_fn.runtime import executable

DEFAULT_REPS = {"conv": 100, "attention": 200, "recurrence": 200}


def functional_step(name: str) -> bench_models.Functional:
    """bench_models' paddle_fn jit contender for class `name`, compiled and run once."""
    model = bench_models.MODELS[name]
    params, data = model.data(np.random.default_rng(0))
    fn = bench_models.class_function(model, bench_models.paddle_ops(pf))
    step = bench_models.Functional(pf.jit(fn), params, data, pf.device_put, bench_models.feeds_back(model))
    step.step()
    bench_models.wait_for_background_compiles()
    step.step()
    return step


def measure(step: bench_models.Functional, reps: int) -> dict:
    """{way: (wall times, calling-thread CPU times)} over `reps` alternating calls of each way."""
    times = {"SCHED_BATCH while waiting": ([], []), "IREE's wait as it is": ([], [])}
    ways = list(times)
    for rep in range(reps):
        for way in ways[rep % 2:] + ways[:rep % 2]:
            executable._defer_wakeups = way == ways[0]
            cpu, wall = time.thread_time(), time.perf_counter()
            step.step()
            times[way][0].append(time.perf_counter() - wall)
            times[way][1].append(time.thread_time() - cpu)
    executable._defer_wakeups = True
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=None, help="calls of each way (default: 300; conv 100, "
                        "attention and recurrence 200)")
    parser.add_argument("--only", nargs="+", choices=list(bench_models.MODELS), default=list(bench_models.MODELS))
    args = parser.parse_args()
    if not hasattr(os, "SCHED_BATCH"):
        raise SystemExit("bench_wait.py: scheduling policies are Linux's; nothing to compare here")
    print("| class | way | calls | median | 90th pct. | max | caller CPU median | caller CPU 90th pct. |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|")
    for name in args.only:
        reps = args.reps or DEFAULT_REPS.get(name, 300)
        for way, (wall, cpu) in measure(functional_step(name), reps).items():
            ms = lambda values, q: f"{np.percentile(values, q) * 1e3:.3f} ms"  # noqa: E731
            print(f"| {name} | {way} | {reps} | {ms(wall, 50)} | {ms(wall, 90)} | {ms(wall, 100)} | "
                  f"{ms(cpu, 50)} | {ms(cpu, 90)} |", flush=True)


if __name__ == "__main__":
    main()
