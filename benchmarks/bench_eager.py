"""Eager speed: one op at a time and whole MLP training steps, paddle_fn against numpy, PyTorch, JAX and PaddlePaddle.

    .venv/bin/python benchmarks/bench_eager.py [--peer-python /tmp/peers/bin/python] [--baseline DIR]
        [--reps N] [--quick] [--only TEXT...] [--profile NAME] [--json PATH]

Per-op rows: ``x + y`` and ``x * 2.0`` (a Python scalar) on f32[8], a 64x64 matmul, ``x.sum()``, ``x.mean()`` and
``exp(x)`` on f32[8], ``x[2]`` and ``m[:, 8:16]`` (basic indexing), ``m.reshape([16, 256])``. Step rows: an MLP
training step written as Paddle code (`bench_train_loop.PROGRAM`: Layer, CrossEntropyLoss, ``backward``,
``SGD.step``), and the functional step (``value_and_grad`` of softmax cross-entropy on a parameter pytree, then SGD,
as `bench_jit.py` times it under jit), each for a large MLP (784-1024-512-10, batch 128, BLAS-bound) and a small one
(32-64-64-10, batch 16, dispatch-bound). Nothing is jitted.

Every framework runs in its own worker subprocess: paddle_fn and numpy in this interpreter, PyTorch, JAX and
PaddlePaddle in `--peer-python` (a separate venv, so none of them is installed into the project's; each prints
"not installed" when that interpreter cannot import it). For each row the driver interleaves the contenders,
rotating their order every repetition, so the noise of a shared machine hits all alike; each repetition runs a
contender for about 20 ms (the number of calls is fixed from a warm-up call), and the table gives the median and
min per call. `--baseline DIR` adds the paddle_fn of another tree (before/after numbers from one run);
`--profile NAME` prints a cProfile of that contender (e.g. "paddle_fn small MLP functional step").
`--json PATH` writes the rows that ran, in seconds per call, for bench_summary.py:
    {"versions": {framework: "name version"}, "not_installed": [framework],
     "rows": {row: {framework: [median, min]}}}     (framework: paddle_fn, numpy, torch, jax, paddle)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

from bench_train_loop import (LEARNING_RATE, Worker, initial_values, interleaved, paddle_eager_step, serve,
                              torch_eager_step)

MLPS = {"large": ((784, 1024, 512, 10), 128), "small": ((32, 64, 64, 10), 16)}
OPS = ("x + y f32[8]", "x * 2.0 f32[8]", "matmul f32[64,64]", "sum f32[8]", "mean f32[8]", "exp f32[8]",
       "x[2] f32[8]", "m[:, 8:16] f32[64,64]", "reshape f32[64,64]")
STEPS = tuple(f"{size} MLP {kind} step" for size in MLPS for kind in ("Layer", "functional"))
FRAMEWORKS = ("paddle_fn", "numpy", "torch", "jax", "paddle")
TARGET_SECONDS = 0.02  # per contender per repetition


def operands():
    rng = np.random.default_rng(0)
    return (np.arange(8, dtype=np.float32), np.ones(8, np.float32),
            rng.normal(size=(64, 64)).astype(np.float32))


def op_contenders(to_array, matmul, exp, sync=lambda r: r):
    """The per-op rows for one framework: `to_array` makes its arrays; `sync` waits for a result (JAX)."""
    a, b, m = (to_array(v) for v in operands())
    return {"x + y f32[8]": lambda: sync(a + b), "x * 2.0 f32[8]": lambda: sync(a * 2.0),
            "matmul f32[64,64]": lambda: sync(matmul(m, m)), "sum f32[8]": lambda: sync(a.sum()),
            "mean f32[8]": lambda: sync(a.mean()), "exp f32[8]": lambda: sync(exp(a)),
            "x[2] f32[8]": lambda: sync(a[2]), "m[:, 8:16] f32[64,64]": lambda: sync(m[:, 8:16]),
            "reshape f32[64,64]": lambda: sync(m.reshape([16, 256]))}


def one_hot_data(sizes, batch):
    """`initial_values` as bench_jit's functional step takes them: [{"W", "b"}] per layer and one-hot labels."""
    params, x, labels = initial_values(sizes, batch)
    layers = [{"W": w, "b": b} for w, b in zip(params[::2], params[1::2])]
    return layers, x, np.eye(sizes[-1], dtype=np.float32)[labels[:, 0]]


def functional_loss(matmul, relu, log_softmax):
    """Softmax cross-entropy of an MLP on a parameter pytree, from one framework's matmul, relu and log_softmax."""
    def loss(params, x, y):
        h = x
        for i, layer in enumerate(params):
            h = matmul(h, layer["W"]) + layer["b"]
            if i < len(params) - 1:
                h = relu(h)
        return -(y * log_softmax(h)).sum(-1).mean()
    return loss


class FunctionalStep:
    """The functional training step: ``value_and_grad`` of the loss, then SGD on the pytree; returns the loss."""

    def __init__(self, value_and_grad, tree_map, convert, sizes, batch):
        self.value_and_grad, self.tree_map = value_and_grad, tree_map
        params, x, y = one_hot_data(sizes, batch)
        self.params, self.x, self.y = tree_map(convert, params), convert(x), convert(y)

    def __call__(self):
        value, grads = self.value_and_grad(self.params, self.x, self.y)
        self.params = self.tree_map(lambda p, g: p - LEARNING_RATE * g, self.params, grads)
        return float(value)


# ------------------------------------------------------------------------------------------------ workers

def _paddle_fn_contenders(label):
    import paddle_fn as pf
    from bench_jit import NumpyMLP
    rows = {f"{label} {name}": fn for name, fn in op_contenders(pf.to_tensor, pf.matmul, pf.exp).items()}
    rows.update({f"numpy {name}": fn for name, fn in op_contenders(np.asarray, np.matmul, np.exp).items()})
    loss = functional_loss(pf.matmul, pf.nn.functional.relu, lambda h: pf.nn.functional.log_softmax(h, axis=-1))
    for size, (sizes, batch) in MLPS.items():
        rows[f"{label} {size} MLP Layer step"] = paddle_eager_step(pf, sizes, batch)
        rows[f"{label} {size} MLP functional step"] = FunctionalStep(pf.value_and_grad(loss), pf.tree_map,
                                                                     pf.to_tensor, sizes, batch)
        numpy_mlp = NumpyMLP(*one_hot_data(sizes, batch))
        rows[f"numpy {size} MLP Layer step"] = rows[f"numpy {size} MLP functional step"] = numpy_mlp.step
    return rows, f"paddle_fn ({label})"


def _torch_contenders():
    import torch
    # one thread, as paddle_fn's eager products below 2^27 multiply-adds run: on a shared 2-core machine torch's
    # spinning worker threads otherwise make its small products 100x slower
    torch.set_num_threads(1)
    rows = {f"torch {name}": fn for name, fn in op_contenders(torch.from_numpy, torch.matmul, torch.exp).items()}
    loss = functional_loss(torch.matmul, torch.relu, lambda h: torch.log_softmax(h, dim=-1))
    for size, (sizes, batch) in MLPS.items():
        rows[f"torch {size} MLP Layer step"] = torch_eager_step(torch, sizes, batch)
        rows[f"torch {size} MLP functional step"] = FunctionalStep(
            lambda p, x, y: torch.func.grad_and_value(loss)(p, x, y)[::-1], torch.utils._pytree.tree_map,
            torch.from_numpy, sizes, batch)
    return rows, f"torch {torch.__version__}"


def _jax_contenders():
    import jax
    import jax.numpy as jnp
    rows = {f"jax {name}": fn for name, fn in op_contenders(jnp.asarray, jnp.matmul, jnp.exp,
                                                            jax.block_until_ready).items()}
    loss = functional_loss(jnp.matmul, jax.nn.relu, lambda h: jax.nn.log_softmax(h, axis=-1))
    for size, (sizes, batch) in MLPS.items():  # JAX has no Layer API: only the functional step
        rows[f"jax {size} MLP functional step"] = FunctionalStep(jax.value_and_grad(loss), jax.tree_util.tree_map,
                                                                 jnp.asarray, sizes, batch)
    return rows, f"jax {jax.__version__}"


def _paddle_contenders():
    import logging
    import paddle
    logging.getLogger().setLevel(logging.WARNING)
    paddle.disable_static()
    paddle.set_device("cpu")
    rows = {f"paddle {name}": fn for name, fn in op_contenders(paddle.to_tensor, paddle.matmul, paddle.exp).items()}
    for size, (sizes, batch) in MLPS.items():  # dygraph: the Layer step (Paddle's functional autograd is static)
        rows[f"paddle {size} MLP Layer step"] = paddle_eager_step(paddle, sizes, batch)
    return rows, f"paddlepaddle {paddle.__version__}"


def worker(framework, label):
    import warnings
    warnings.simplefilter("ignore")
    rows, version = (_paddle_fn_contenders(label) if framework == "paddle_fn" else
                     {"torch": _torch_contenders, "jax": _jax_contenders, "paddle": _paddle_contenders}[framework]())
    first = {name: fn() for name, fn in rows.items() if name.endswith(" step")}  # the first step's loss
    serve({name: (fn, None) for name, fn in rows.items()}, {"version": version, "contenders": list(rows),
                                                            "first": first})


# ------------------------------------------------------------------------------------------------ driver

def fmt_us(seconds):
    return f"{seconds * 1e6:9.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:9.2f} ms"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["paddle_fn", "torch", "jax", "paddle"], help=argparse.SUPPRESS)
    parser.add_argument("--label", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--peer-python", default="/tmp/peers/bin/python",
                        help="interpreter with torch / jax / paddlepaddle installed (each skipped if not importable)")
    parser.add_argument("--baseline", metavar="DIR", help="also time the paddle_fn importable from DIR (a tree with "
                        "paddle_fn/, its mapped packages linked inside it), labelled 'paddle_fn@base'")
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 repetitions: a smoke run")
    parser.add_argument("--profile", metavar="NAME", help="print a cProfile of this contender")
    parser.add_argument("--only", nargs="+", metavar="TEXT", help="only the rows whose name contains one of these")
    parser.add_argument("--json", metavar="PATH", help="also write the results to PATH (structure: see above)")
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.label or args.worker)
    if args.quick:
        args.reps = 3

    workers = {"paddle_fn": Worker(sys.executable, "paddle_fn", script=__file__)}
    if args.baseline:
        workers["paddle_fn@base"] = Worker(sys.executable, "paddle_fn", "paddle_fn@base", args.baseline, __file__)
    missing = []
    for framework in ("torch", "jax", "paddle"):
        ok = os.path.exists(args.peer_python) and subprocess.run(
            [args.peer_python, "-c", f"import {framework}"], capture_output=True).returncode == 0
        if ok:
            workers[framework] = Worker(args.peer_python, framework, script=__file__)
        else:
            missing.append(framework)
    print(f"# {time.strftime('%Y-%m-%d %H:%M')} | {platform.processor() or platform.machine()}, {os.cpu_count()} "
          f"cores, load {os.getloadavg()[0]:.1f} | python {platform.python_version()}, numpy {np.__version__} | "
          + " | ".join(w.info["version"] for w in workers.values())
          + "".join(f" | {m}: not installed" for m in missing))
    owner = {name: w for w in workers.values() for name in w.info["contenders"]}
    columns = [label for label in ("paddle_fn", "paddle_fn@base", "numpy", "torch", "jax", "paddle")
               if label in workers or label == "numpy"]

    print("\nfirst step's loss: " + "; ".join(f"{name} {loss:.6f}" for w in workers.values()
                                             for name, loss in w.info["first"].items()))
    print(f"\nmedian (min) per call, {args.reps} interleaved repetitions of ~{TARGET_SECONDS * 1e3:.0f} ms each; "
          "last columns: paddle_fn's median / torch's, / Paddle's")
    print(f"{'':28s}" + "".join(f"{c:>26s}" for c in columns) + f"{'/ torch':>9s}{'/ paddle':>9s}")
    measured = {}
    for row in OPS + STEPS:
        if args.only and not any(text in row for text in args.only):
            continue
        jobs = {}
        for col in columns:
            name = f"{col} {row}"
            if name in owner:
                once = owner[name].ask(name, 1)
                jobs[name] = (owner[name], max(1, int(TARGET_SECONDS / max(once, 1e-7))))
        res = interleaved(jobs, args.reps)
        cells = "".join(f"{fmt_us(res[n][0]) + ' (' + fmt_us(res[n][1]).strip() + ')':>26s}" if n in res
                        else f"{'n/a':>26s}" for n in (f"{c} {row}" for c in columns))
        mine = res.get(f"paddle_fn {row}", (None,))[0]
        ratios = "".join(f"{mine / res[ref][0]:8.2f}x" if mine and ref in res else f"{'':9s}"
                         for ref in (f"torch {row}", f"paddle {row}"))
        print(f"{row:28s}{cells}{ratios}", flush=True)
        measured[row] = {col: res[f"{col} {row}"] for col in columns if f"{col} {row}" in res}
    if args.profile:
        print(f"\n## cProfile of {args.profile}\n" + owner[args.profile].ask(f"profile:{args.profile}", 20)["profile"])
    for w in workers.values():
        w.close()
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"versions": {name: w.info["version"] for name, w in workers.items()},
                       "not_installed": missing, "rows": measured}, out, indent=1)


if __name__ == "__main__":
    main()
