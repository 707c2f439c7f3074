"""`paddle.jit.to_static` training steps of Layers: the first call, the steps while IREE compiles, and the compiled
steps, for paddle_fn and (with `--paddle-python`) PaddlePaddle running the same code.

    .venv/bin/python benchmarks/bench_to_static.py [--only resnet18 transformer lstm gru] [--steps N]
        [--forms step layer eager] [--paddle-python /tmp/pdref/bin/python]
        [--paddle-path /tmp/peers/lib/python3.11/site-packages]

Each model's training step (loss, ``backward()``, ``SGD.step()``, ``clear_grad()``) runs in one of three forms
(`--forms`, default `step`): `step`, the whole step under `to_static`; `layer`, ``model = paddle.jit.to_static(model)``
with ``backward()`` and the optimizer eager (the form of Paddle's own guides); `eager`, no `to_static` (Paddle's
dygraph). Each form runs in a fresh process with an empty compile cache, so its first call is cold: paddle_fn's runs
the traced program op by op while IREE compiles in the background (transforms/background_compile.py), Paddle's
builds its static program. Printed per model and form: the first call, the median of the next `--steps` calls
(paddle_fn: still op by op while the compile runs), for paddle_fn how long the compile still took after them, the
median of 5 steps after that (compiled), and the first and last losses (the same Python code trains the same
architecture in both; weights differ).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MODELS = ("resnet18", "transformer", "lstm", "gru")
FORMS = ("step", "layer", "eager")


def build(paddle, name):
    """(model, input, label or None, loss function of (model, input, label)), seeded."""
    import numpy as np
    paddle.seed(0)
    rng = np.random.default_rng(0)
    if name == "resnet18":  # paddle.vision.models.resnet18, batch 8, 3x64x64
        model = paddle.vision.models.resnet18(num_classes=10)
        cross_entropy = paddle.nn.CrossEntropyLoss()
        return (model, paddle.to_tensor(rng.standard_normal((8, 3, 64, 64)).astype("float32")),
                paddle.to_tensor(rng.integers(0, 10, (8,)).astype("int64")), lambda m, x, y: cross_entropy(m(x), y))
    if name == "transformer":  # 2 encoder layers, d 256, 4 heads, ff 1024; batch 8, sequence 128
        model = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0), 2)
        return (model, paddle.to_tensor(rng.standard_normal((8, 128, 256)).astype("float32")), None,
                lambda m, x, y: (m(x) ** 2).mean())
    layer = paddle.nn.LSTM if name == "lstm" else paddle.nn.GRU  # 128 -> 256, batch 16, 64 steps
    return (layer(128, 256), paddle.to_tensor(rng.standard_normal((16, 64, 128)).astype("float32")), None,
            lambda m, x, y: (m(x)[0] ** 2).mean())


def child(framework, name, form, steps):
    """Time one model's step in one form in this process and print the measurements as one JSON line."""
    import numpy as np
    if framework == "paddle_fn":
        import paddle_fn as paddle
        from paddle_fn.transforms.background_compile import wait_for_background_compiles
    else:
        import paddle
    model, x, y, loss_fn = build(paddle, name)
    opt = paddle.optimizer.SGD(learning_rate=1e-3, parameters=model.parameters())
    if form == "layer":
        model = paddle.jit.to_static(model)

    def eager_step(x, y):
        loss = loss_fn(model, x, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    step = paddle.jit.to_static(eager_step) if form == "step" else eager_step

    def timed():
        start = time.perf_counter()
        loss = float(step(x, y))
        return time.perf_counter() - start, loss

    first, loss = timed()
    runs = [timed() for _ in range(steps)]
    out = {"first": first, "steps": float(np.median([t for t, _ in runs])), "losses": [loss, runs[-1][1]]}
    if framework == "paddle_fn":
        start = time.perf_counter()
        wait_for_background_compiles()
        out["compile_left"] = time.perf_counter() - start
    out["compiled"] = float(np.median([timed()[0] for _ in range(5)]))
    print(json.dumps(out))


def run(python, env, framework, name, form, steps):
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([python, os.path.abspath(__file__), "--child", framework, name, form, "--steps",
                               str(steps)],
                              env=dict(env, PADDLE_FN_CACHE_DIR=cache), capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=MODELS, default=list(MODELS))
    ap.add_argument("--steps", type=int, default=3, help="steps timed after the first call")
    ap.add_argument("--forms", nargs="+", choices=FORMS, default=["step"],
                    help="step: the whole step under to_static; layer: to_static(model); eager: neither")
    ap.add_argument("--paddle-python", help="a Python with PaddlePaddle 3.x: also time Paddle's to_static")
    ap.add_argument("--paddle-path", help="PYTHONPATH for --paddle-python (where paddle is installed)")
    ap.add_argument("--child", nargs=3, metavar=("FRAMEWORK", "MODEL", "FORM"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(*args.child, args.steps)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    contenders = [("paddle_fn", sys.executable, dict(os.environ, PYTHONPATH=here))]
    if args.paddle_python:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        contenders.append(("paddle", args.paddle_python, dict(env, PYTHONPATH=args.paddle_path) if args.paddle_path
                           else env))
    print(f"| model | form | framework | first call | next {args.steps} steps (median) | compile left after them | "
          "5 steps after (compiled) | losses (first, last) |\n|---|---|---|---:|---:|---:|---:|---|")
    for name in args.only:
        for form in args.forms:
            for framework, python, env in contenders:
                report(name, form, framework, run(python, env, framework, name, form, args.steps))


def report(name, form, framework, r):
    """One table row of `run`'s measurements."""
    if "error" in r:
        print(f"| {name} | {form} | {framework} | {r['error']} |||||")
        return
    left = f"{r['compile_left']:.2f} s" if "compile_left" in r else ""
    compiled = f"{r['compiled'] * 1e3:.0f} ms" if "compiled" in r else ""
    print(f"| {name} | {form} | {framework} | {r['first']:.2f} s | {r['steps'] * 1e3:.0f} ms | {left} | {compiled} | "
          f"{r['losses'][0]:.4f}, {r['losses'][1]:.4f} |", flush=True)


if __name__ == "__main__":
    main()
