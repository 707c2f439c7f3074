"""The Paddle training loop, eagerly and under to_static: paddle_fn against PaddlePaddle (and PyTorch).

    .venv/bin/python benchmarks/bench_train_loop.py [--paddle-python /tmp/pdref/bin/python]
        [--torch-python PY] [--baseline DIR] [--reps N] [--inner N] [--quick] [--profile]

One program text (`PROGRAM` below: a Layer MLP 784-1024-512-10, batch 128, `nn.CrossEntropyLoss`,
`optimizer.SGD`, ``loss.backward(); opt.step(); opt.clear_grad()``) is executed with `paddle` bound to
`paddle_fn` and, in a second interpreter, to PaddlePaddle itself: eagerly (dygraph) and with the step under
`paddle.jit.to_static`. Each framework runs in its own worker subprocess (its own interpreter, given on the
command line, so PaddlePaddle needs no install in the project's venv); the parent drives all workers in one
interleaved loop, rotating the order of the contenders each repetition, so the noise of a shared machine hits
all of them alike, and prints medians, mins and ratios. Micro-benchmarks show the per-op costs behind the
step: an eager ``x + y`` on f32[8], a 128x784 @ 784x1024 matmul, and one ``backward`` of a 3-op graph.
Every MLP contender first runs 4 steps from the same parameters and the losses are printed side by side.
`--profile` prints a cProfile of paddle_fn's eager step; `--baseline DIR` adds the paddle_fn of another checkout
(before/after numbers from the same run).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time

import numpy as np

SIZES = (784, 1024, 512, 10)
BATCH = 128
LEARNING_RATE = 0.01

# The program under test, executed with `paddle` bound to the framework (paddle_fn or PaddlePaddle).
PROGRAM = '''
class MLP(paddle.nn.Layer):
    def __init__(self, sizes=(784, 1024, 512, 10)):
        super().__init__()
        self.fc1 = paddle.nn.Linear(sizes[0], sizes[1])
        self.fc2 = paddle.nn.Linear(sizes[1], sizes[2])
        self.fc3 = paddle.nn.Linear(sizes[2], sizes[3])
        self.relu = paddle.nn.ReLU()

    def forward(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def make_step(model, opt, loss_fn):
    def train_step(x, y):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return train_step


def make_forward(model, loss_fn):
    def forward_loss(x, y):
        return loss_fn(model(x), y)
    return forward_loss
'''


def initial_values(sizes=SIZES, batch=BATCH, seed=0):
    """Parameters (He-normal weights [in, out], zero biases), inputs and labels [batch, 1], the same for every
    framework."""
    rng = np.random.default_rng(seed)
    params = []
    for n_in, n_out in zip(sizes[:-1], sizes[1:]):
        params += [(rng.normal(size=(n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
                   np.zeros(n_out, np.float32)]
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    labels = rng.integers(0, sizes[-1], size=(batch, 1)).astype(np.int64)
    return params, x, labels


# ------------------------------------------------------------------------------------------------ workers

def paddle_program(paddle, sizes=SIZES):
    """`PROGRAM` executed with `paddle` bound to the framework; returns fresh() -> (model, optimizer, loss_fn), the
    model holding `initial_values(sizes)`'s parameters."""
    env = {"paddle": paddle}
    exec(PROGRAM, env)
    params = initial_values(sizes)[0]

    def fresh():
        model = env["MLP"](sizes)
        for p, v in zip(model.parameters(), params):
            p.set_value(v)
        opt = paddle.optimizer.SGD(learning_rate=LEARNING_RATE, parameters=model.parameters())
        return model, opt, paddle.nn.CrossEntropyLoss()
    return env, fresh


def paddle_eager_step(paddle, sizes=SIZES, batch=BATCH):
    """The eager (dygraph) training step of `PROGRAM` on `initial_values(sizes, batch)`: a function returning the
    loss as a float."""
    env, fresh = paddle_program(paddle, sizes)
    _, x_np, y_np = initial_values(sizes, batch)
    x, y = paddle.to_tensor(x_np), paddle.to_tensor(y_np)
    step = env["make_step"](*fresh())
    return lambda: float(step(x, y))


def _paddle_contenders(paddle, label):
    """{contender name: (step function, losses of the first 4 steps or None)} for paddle_fn or PaddlePaddle."""
    env, fresh = paddle_program(paddle)
    params, x_np, y_np = initial_values()
    x, y = paddle.to_tensor(x_np), paddle.to_tensor(y_np)
    contenders, notes = {f"{label} eager": (paddle_eager_step(paddle), None)}, {}

    try:  # the whole step (forward, backward, update) as one static program
        model_s, opt_s, loss_fn_s = fresh()
        static = paddle.jit.to_static(env["make_step"](model_s, opt_s, loss_fn_s))
        contenders[f"{label} to_static step"] = (lambda: float(static(x, y)), None)
    except Exception as e:  # noqa: BLE001 - reported, and the forward is timed instead
        notes[f"{label} to_static step"] = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    model_f, _, loss_fn_f = fresh()
    forward = paddle.jit.to_static(env["make_forward"](model_f, loss_fn_f))
    contenders[f"{label} to_static forward+loss"] = (lambda: float(forward(x, y)), None)

    # micro-benchmarks: per-op dispatch, one BLAS-sized matmul, one backward through a small graph
    a, b = paddle.to_tensor(np.arange(8, dtype=np.float32)), paddle.to_tensor(np.ones(8, np.float32))
    m1 = paddle.to_tensor(x_np)
    m2 = paddle.to_tensor(params[0])
    w = paddle.to_tensor(np.linspace(0.5, 1.5, 8).astype(np.float32), stop_gradient=False)

    def three_op_graph():
        return ((w * a).exp() + b).sum()

    def backward_only():
        loss = three_op_graph()
        t0 = time.perf_counter()
        loss.backward()
        w.clear_grad()
        return time.perf_counter() - t0

    contenders[f"{label} x + y f32[8]"] = (lambda: a + b, None)
    contenders[f"{label} matmul 128x784 @ 784x1024"] = (lambda: paddle.matmul(m1, m2).numpy(), None)
    contenders[f"{label} 3-op forward"] = (three_op_graph, None)
    contenders[f"{label} backward of 3-op graph"] = (backward_only, "self-timed")
    return contenders, notes


def torch_eager_step(torch, sizes=SIZES, batch=BATCH):
    """`PROGRAM`'s training step written for PyTorch (same parameters, loss and SGD): returns the loss as a float."""
    params, x_np, y_np = initial_values(sizes, batch)
    layers = [torch.nn.Linear(n_in, n_out) for n_in, n_out in zip(sizes[:-1], sizes[1:])]
    with torch.no_grad():
        for i, layer in enumerate(layers):  # Paddle's Linear weight is [in, out], torch's [out, in]
            layer.weight.copy_(torch.from_numpy(params[2 * i].T.copy()))
            layer.bias.copy_(torch.from_numpy(params[2 * i + 1]))
    model = torch.nn.Sequential(layers[0], torch.nn.ReLU(), layers[1], torch.nn.ReLU(), layers[2])
    opt = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(x_np), torch.from_numpy(y_np[:, 0])

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return float(loss)
    return step


def _torch_contenders(torch, label):
    params, x_np, _ = initial_values()
    a, b = torch.arange(8, dtype=torch.float32), torch.ones(8)
    m1, m2 = torch.from_numpy(x_np), torch.from_numpy(params[0])
    return {f"{label} eager": (torch_eager_step(torch), None), f"{label} x + y f32[8]": (lambda: a + b, None),
            f"{label} matmul 128x784 @ 784x1024": (lambda: (m1 @ m2).numpy(), None)}, {}


def worker(framework: str, label: str):
    """Serve timing requests on stdin/stdout: 'NAME INNER' -> seconds per call (JSON lines)."""
    import logging
    import warnings
    warnings.simplefilter("ignore")
    if framework == "paddle_fn":
        import paddle_fn as paddle
        contenders, notes = _paddle_contenders(paddle, label)
        version = label
    elif framework == "paddle":
        import paddle
        logging.getLogger().setLevel(logging.WARNING)
        paddle.disable_static()
        paddle.set_device("cpu")
        contenders, notes = _paddle_contenders(paddle, "paddle")
        version = f"paddlepaddle {paddle.__version__}"
    else:
        import torch
        contenders, notes = _torch_contenders(torch, "torch")
        version = f"torch {torch.__version__}"
    losses, first = {}, {}
    for name, (fn, _) in contenders.items():
        if name.endswith((" eager", " to_static step")):
            t0 = time.perf_counter()
            losses[name] = [fn() for _ in range(4)]
            first[name] = time.perf_counter() - t0
    serve(contenders, {"version": version, "contenders": list(contenders), "losses": losses, "first": first,
                       "notes": notes})


def serve(contenders, info):
    """A worker's loop: print `info` (plus the numpy and Python versions) as a JSON line, then answer requests on
    stdin: 'NAME INNER' -> seconds per call of contender NAME over INNER calls, 'profile:NAME INNER' -> a cProfile of
    INNER calls. `contenders` maps names to (function, kind); a "self-timed" function returns its own seconds."""
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the frameworks print must not mix with the protocol
    print(json.dumps({**info, "numpy": np.__version__, "python": platform.python_version()}), file=out, flush=True)
    for line in sys.stdin:
        name, inner = line.rsplit(" ", 1)
        if name.startswith("profile:"):
            fn = contenders[name[len("profile:"):]][0]
            prof = cProfile.Profile()
            prof.runcall(lambda: [fn() for _ in range(int(inner))])
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
            print(json.dumps({"profile": text.getvalue()}), file=out, flush=True)
            continue
        fn, kind = contenders[name]
        total = 0.0
        if kind == "self-timed":
            for _ in range(int(inner)):
                total += fn()
        else:
            t0 = time.perf_counter()
            for _ in range(int(inner)):
                fn()
            total = time.perf_counter() - t0
        print(json.dumps(total / int(inner)), file=out, flush=True)


# ------------------------------------------------------------------------------------------------ driver

class Worker:
    """A worker subprocess: `python script --worker FRAMEWORK --label LABEL`, answering `serve`'s requests."""

    def __init__(self, python, framework, label=None, path=None, script=__file__):
        env = dict(os.environ)
        if path is not None:  # import paddle_fn from there first
            env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.abspath(path), env.get("PYTHONPATH")) if p)
        self.log = tempfile.TemporaryFile("w+")  # the worker's stderr (framework warnings), shown if it fails
        self.proc = subprocess.Popen([python, os.path.abspath(script), "--worker", framework, "--label",
                                      label or framework], text=True, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.log.seek(0)
            tail = "".join(self.log.readlines()[-15:])
            raise RuntimeError(f"the {label or framework} worker ({python}) exited before it was ready:\n{tail}")
        self.info = json.loads(line)

    def ask(self, name, inner):
        self.proc.stdin.write(f"{name} {inner}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()
        self.log.close()


def interleaved(jobs, reps):
    """jobs: {name: (worker, inner)} -> {name: (median, min)} seconds per call, order rotated every repetition."""
    names = list(jobs)
    times = {n: [] for n in names}
    for name in names:  # warm-up
        jobs[name][0].ask(name, jobs[name][1])
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            times[name].append(jobs[name][0].ask(name, jobs[name][1]))
    return {n: (float(np.median(t)), float(np.min(t))) for n, t in times.items()}


def print_table(title, results, reference):
    from bench_jit import fmt_time  # the driver runs in the project's venv, where bench_jit's imports work
    print(f"\n## {title}")
    print(f"{'contender':40s} {'median':>12s} {'min':>12s} {'median / ' + reference:>28s}")
    for name, (med, lo) in results.items():
        ratio = f"{med / results[reference][0]:27.2f}x" if reference in results else ""
        print(f"{name:40s} {fmt_time(med):>12s} {fmt_time(lo):>12s} {ratio}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["paddle_fn", "paddle", "torch"], help=argparse.SUPPRESS)
    parser.add_argument("--label", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--baseline", metavar="DIR",
                        help="also time the paddle_fn found in DIR (e.g. an older checkout: git archive REV | tar -x "
                             "-C DIR), labelled 'paddle_fn@base'")
    parser.add_argument("--paddle-python", default="/tmp/pdref/bin/python",
                        help="interpreter with paddlepaddle installed (skipped if it cannot import paddle)")
    parser.add_argument("--torch-python", default=sys.executable, help="interpreter with torch installed")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--inner", type=int, default=5, help="MLP steps per contender per repetition")
    parser.add_argument("--quick", action="store_true", help="3 repetitions, 2 steps: a smoke run")
    parser.add_argument("--profile", action="store_true", help="cProfile of paddle_fn's eager step")
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.label or args.worker)
    if args.quick:
        args.reps, args.inner = 3, 2

    workers = {"paddle_fn": Worker(sys.executable, "paddle_fn")}
    if args.baseline:
        workers["paddle_fn@base"] = Worker(sys.executable, "paddle_fn", "paddle_fn@base", args.baseline)
    for framework, python in (("paddle", args.paddle_python), ("torch", args.torch_python)):
        probe = subprocess.run([python, "-c", f"import {framework}"], capture_output=True) \
            if os.path.exists(python) else None
        if probe is not None and probe.returncode == 0:
            workers[framework] = Worker(python, framework)
    print(f"# {time.strftime('%Y-%m-%d')} | {platform.processor() or platform.machine()}, {os.cpu_count()} cores | "
          + " | ".join(f"{w.info['version']} (python {w.info['python']}, numpy {w.info['numpy']})"
                       for w in workers.values()))
    for framework in ("paddle", "torch"):
        if framework not in workers:
            print(f"{framework}: not available (no interpreter that imports it)")

    print("\n## losses after 1..4 steps (every contender starts from the same parameters)")
    for w in workers.values():
        for name, losses in w.info["losses"].items():
            print(f"  {name:32s} {' '.join(f'{v:.6f}' for v in losses)}   (first 4 steps incl. setup/compile "
                  f"{w.info['first'][name]:.2f} s)")
        for name, note in w.info["notes"].items():
            print(f"  {name:32s} not timed: {note}")

    def jobs(suffixes, inner):
        return {name: (w, inner) for w in workers.values() for name in w.info["contenders"]
                if name.endswith(suffixes)}

    steps = interleaved(jobs((" eager", " to_static step", " to_static forward+loss"), args.inner), args.reps)
    print_table(f"MLP 784-1024-512-10 training step, batch 128 ({args.reps} interleaved repetitions x {args.inner} "
                "steps)", steps, "paddle eager" if "paddle" in workers else "paddle_fn eager")
    micro = interleaved(jobs((" x + y f32[8]",), 2000 if not args.quick else 200), args.reps)
    micro.update(interleaved(jobs((" matmul 128x784 @ 784x1024",), 20 if not args.quick else 3), args.reps))
    micro.update(interleaved(jobs((" 3-op forward", " backward of 3-op graph"), 300 if not args.quick else 30),
                             args.reps))
    print_table("micro-benchmarks (eager)", micro, "paddle x + y f32[8]" if "paddle" in workers
                else "paddle_fn x + y f32[8]")
    if args.profile:
        profile = workers["paddle_fn"].ask("profile:paddle_fn eager", 20)["profile"]
        print("\n## cProfile of 20 paddle_fn eager steps\n" + profile)
    for w in workers.values():
        w.close()


if __name__ == "__main__":
    main()
