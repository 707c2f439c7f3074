"""paddle.Model.fit: paddle_fn (compiled step, and eager) against PaddlePaddle (dygraph, to_static), plus DataLoader.

    .venv/bin/python benchmarks/bench_hapi.py [--paddle-python /tmp/pdref/bin/python] [--nets mlp lenet]
        [--reps N] [--steps N] [--quick]

The program is the MNIST program of Paddle's API overview (reference appendix A1): ``paddle.vision.datasets.MNIST``
with ``Normalize(mean=[0.0], std=[256.])``, the MLP 784-1024-512-10 (or ``paddle.vision.models.LeNet``),
``paddle.Model(net).prepare(Adam, CrossEntropyLoss, Accuracy)`` and ``model.fit(..., batch_size=64)``, on a
synthetic MNIST written in the real idx-ubyte.gz format (so both frameworks read it with their own MNIST class).
It runs with ``paddle`` bound to paddle_fn and, in a second interpreter (``--paddle-python``, so PaddlePaddle needs
no install in the project's venv), to PaddlePaddle itself. Each framework runs in a worker subprocess; the parent
drives all workers in one loop, rotating the order every repetition, so a shared machine's noise hits all alike.

Every ``fit`` is timed by a callback: steps/s is the steady state (from the end of the first step to the end of the
last, so compilation and DataLoader start-up are left out) and "waiting" is the share of that time spent between
one step's end and the next one's begin: fetching the batch (and the loop's own bookkeeping). Sources:

- ``memory``: a list of ready batches (numpy): the step alone;
- ``workers0`` / ``workers2``: the MNIST Dataset, batched by ``fit``'s DataLoader with 0 or 2 worker processes;
- ``loader0`` / ``loader2``: the DataLoader alone (no training), batches/s.

Every contender first trains 4 batches from the same initial parameters; the losses are printed side by side.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from bench_train_loop import Worker  # its worker subprocess protocol: one JSON line of info, then answers

BATCH = 64
N_TRAIN = 64 * 150  # a multiple of 100 (Paddle reads MNIST in chunks of 100), more batches than any timed fit

# The networks under test, with `paddle` bound to the framework (the MLP is appendix A1's, verbatim).
PROGRAM = '''
def mlp():
    return paddle.nn.Sequential(
        paddle.nn.Flatten(),
        paddle.nn.Linear(784, 1024),
        paddle.nn.ReLU(),
        paddle.nn.Linear(1024, 512),
        paddle.nn.ReLU(),
        paddle.nn.Linear(512, 10)
    )


def lenet():
    return paddle.vision.models.LeNet(num_classes=10)
'''

# contender mode -> the sources it is timed on
MODES = {"paddle_fn": {"compiled": ("memory", "workers0", "workers2", "loader0", "loader2"), "eager": ("memory",)},
         "paddle": {"dygraph": ("memory", "workers2"), "to_static": ("memory",)}}


def initial_params(shapes, seed=0):
    """The same parameters for every framework: weights scaled by 1/sqrt(fan-in), zero biases."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        if len(shape) == 1:
            out.append(np.zeros(shape, np.float32))
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            out.append((rng.normal(size=shape) / np.sqrt(fan_in)).astype(np.float32))
    return out


# ------------------------------------------------------------------------------------------------ worker

class _Setup:
    """One framework's datasets, batches and models (one per contender), in a worker process."""

    def __init__(self, paddle, data_dir, nets):
        self.paddle = paddle
        env = {"paddle": paddle}
        exec(PROGRAM, env)
        self.nets = {name: env[name] for name in nets}
        normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.])
        self.dataset = paddle.vision.datasets.MNIST(
            image_path=os.path.join(data_dir, "train-images-idx3-ubyte.gz"),
            label_path=os.path.join(data_dir, "train-labels-idx1-ubyte.gz"), mode="train", transform=normalize)
        samples = [self.dataset[i] for i in range(4 * BATCH)]
        images = np.stack([np.asarray(s[0], np.float32).reshape(1, 28, 28) for s in samples])
        labels = np.stack([np.asarray(s[1], np.int64).reshape(1) for s in samples])
        self.batches = [(images[i:i + BATCH], labels[i:i + BATCH]) for i in range(0, len(samples), BATCH)]

        class Timer(paddle.callbacks.Callback):
            def on_train_batch_begin(self, step, logs=None):
                self.begin.append(time.perf_counter())

            def on_train_batch_end(self, step, logs=None):
                self.end.append(time.perf_counter())

        self.timer_class = Timer

    def model(self, net, mode):
        paddle = self.paddle
        network = self.nets[net]()
        values = initial_params([list(p.shape) for p in network.parameters()])
        for p, v in zip(network.parameters(), values):
            p.set_value(v)
        if mode == "to_static":
            network = paddle.jit.to_static(network)
        # the specs as the manual writes them for a to_static network (whose forward Paddle cannot inspect)
        model = paddle.Model(network, inputs=[paddle.static.InputSpec([None, 1, 28, 28], "float32", "image")],
                             labels=[paddle.static.InputSpec([None, 1], "int64", "label")])
        extra = {"jit": False} if mode == "eager" else {}
        model.prepare(paddle.optimizer.Adam(parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                      paddle.metric.Accuracy(), **extra)
        return model

    def first_losses(self, model):
        return [float(np.asarray(model.train_batch([x], [y])[0][0])) for x, y in self.batches]

    def fit(self, model, source, steps):
        """{'rate': steps per second, 'wait': share of the time between steps} of one timed fit."""
        timer = self.timer_class()
        timer.begin, timer.end = [], []
        if source == "memory":
            data, kwargs = [self.batches[i % len(self.batches)] for i in range(steps)], {}
        else:
            data, kwargs = self.dataset, {"batch_size": BATCH, "num_workers": int(source[-1]), "num_iters": steps}
        model.fit(data, epochs=1, verbose=0, callbacks=[timer], **kwargs)
        span = timer.end[-1] - timer.end[0]
        wait = sum(b - e for b, e in zip(timer.begin[1:], timer.end[:-1]))
        return {"rate": (len(timer.end) - 1) / span, "wait": wait / span}

    def loader(self, source, steps):
        loader = self.paddle.io.DataLoader(self.dataset, batch_size=BATCH, shuffle=True, drop_last=True,
                                           num_workers=int(source[-1]))
        it = iter(loader)
        next(it)
        t0 = time.perf_counter()
        for _ in range(steps - 1):
            next(it)
        return {"rate": (steps - 1) / (time.perf_counter() - t0), "wait": 0.0}


def worker(framework):
    """Serve timing requests on stdin/stdout: 'CONTENDER SOURCE STEPS' -> {'rate': ..., 'wait': ...} (JSON lines)."""
    import logging
    import warnings
    warnings.simplefilter("ignore")
    if framework == "paddle_fn":
        import paddle_fn as paddle
        version = "paddle_fn"
    else:
        import paddle
        logging.getLogger().setLevel(logging.WARNING)
        paddle.set_device("cpu")
        version = f"paddlepaddle {paddle.__version__}"
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the frameworks print must not mix with the protocol
    nets = os.environ["BENCH_HAPI_NETS"].split()
    setup = _Setup(paddle, os.environ["BENCH_HAPI_DATA"], nets)
    models, losses, first = {}, {}, {}
    for net in nets:
        for mode, sources in MODES[framework].items():
            name = f"{framework} {mode} {net}"
            if any(not s.startswith("loader") for s in sources):
                t0 = time.perf_counter()
                losses[name] = setup.first_losses(setup.model(net, mode))
                first[name] = time.perf_counter() - t0
                models[name] = setup.model(net, mode)
    contenders = {f"{framework} {mode} {net} {source}": (f"{framework} {mode} {net}", source)
                  for net in nets for mode, sources in MODES[framework].items() for source in sources}
    print(json.dumps({"version": version, "contenders": list(contenders), "losses": losses, "first": first,
                      "numpy": np.__version__, "python": platform.python_version()}), file=out, flush=True)
    for line in sys.stdin:
        name, steps = line.rsplit(" ", 1)
        model_name, source = contenders[name]
        if source.startswith("loader"):
            result = setup.loader(source, int(steps))
        else:
            result = setup.fit(models[model_name], source, int(steps))
        print(json.dumps(result), file=out, flush=True)


# ------------------------------------------------------------------------------------------------ driver

def write_data(directory):
    """A synthetic MNIST training set in the idx-ubyte.gz format, written with the examples' helper."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    from mnist_data import mnist_files
    files = mnist_files(None, n_train=N_TRAIN, n_test=BATCH)
    for path in files["train"]:
        os.replace(path, os.path.join(directory, os.path.basename(path)))
    shutil.rmtree(os.path.dirname(files["test"][0]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["paddle_fn", "paddle"], help=argparse.SUPPRESS)
    parser.add_argument("--label", help=argparse.SUPPRESS)
    parser.add_argument("--paddle-python", default="/tmp/pdref/bin/python",
                        help="interpreter with paddlepaddle installed (skipped if it cannot import paddle)")
    parser.add_argument("--nets", nargs="+", choices=["mlp", "lenet"], default=["mlp", "lenet"])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--steps", type=int, default=60, help="training steps (batches) per timed fit")
    parser.add_argument("--quick", action="store_true", help="2 repetitions of 15 steps: a smoke run")
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker)
    if args.quick:
        args.reps, args.steps = 2, 15

    with tempfile.TemporaryDirectory() as data_dir:
        write_data(data_dir)
        os.environ.update(BENCH_HAPI_DATA=data_dir, BENCH_HAPI_NETS=" ".join(args.nets))  # the workers' inputs
        workers = [Worker(sys.executable, "paddle_fn", script=__file__)]
        probe = subprocess.run([args.paddle_python, "-c", "import paddle"], capture_output=True) \
            if os.path.exists(args.paddle_python) else None
        if probe is not None and probe.returncode == 0:
            workers.append(Worker(args.paddle_python, "paddle", script=__file__))
        print(f"# {time.strftime('%Y-%m-%d')} | {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
              "| " + " | ".join(f"{w.info['version']} (python {w.info['python']}, numpy {w.info['numpy']})"
                                for w in workers))
        if len(workers) == 1:
            print("paddle: not available (no interpreter that imports it; see --paddle-python)")

        print("\n## losses of the first 4 batches (same initial parameters; time includes setup and compilation)")
        for w in workers:
            for name, losses in w.info["losses"].items():
                print(f"  {name:28s} {' '.join(f'{v:.6f}' for v in losses)}   ({w.info['first'][name]:.2f} s)")

        jobs = {name: w for w in workers for name in w.info["contenders"]}
        for name, w in jobs.items():  # warm-up: compilation, first DataLoader start
            w.ask(name, args.steps)
        results = {name: [] for name in jobs}
        names = list(jobs)
        for rep in range(args.reps):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                results[name].append(jobs[name].ask(name, args.steps))
        for w in workers:
            w.close()

    for net in args.nets:
        rows = {n: r for n, r in results.items() if n.split()[2] == net}
        reference = max((n for n in rows if n.startswith("paddle ") and n.endswith(" memory")),
                        key=lambda n: np.median([r["rate"] for r in rows[n]]), default=None)
        print(f"\n## Model.fit, {net}, batch {BATCH} ({args.reps} interleaved repetitions x {args.steps} steps)")
        print(f"{'contender':40s} {'steps/s':>9s} {'(min-max)':>15s} {'ms/step':>8s} {'waiting':>8s} "
              f"{'vs ' + (reference or 'paddle'):>28s}")
        for name, runs in rows.items():
            rates = [r["rate"] for r in runs]
            med = float(np.median(rates))
            ratio = f"{med / np.median([r['rate'] for r in rows[reference]]):27.2f}x" if reference else ""
            print(f"{name:40s} {med:9.1f} {f'({min(rates):.0f}-{max(rates):.0f})':>15s} {1e3 / med:8.2f} "
                  f"{np.median([r['wait'] for r in runs]):8.1%} {ratio}")


if __name__ == "__main__":
    main()
