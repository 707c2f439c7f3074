"""Cold compiles, flag by flag: each program's `iree-compile` with paddle_fn's flags and with one flag changed,
interleaved, as the CPU seconds the compiler used (robust to other processes on the host) and wall seconds, plus
the compiled call's run time, and JAX's compile of the same function where JAX is importable.

    .venv/bin/python benchmarks/bench_compile.py [--variant --iree-opt-const-eval=true] [--rounds 3]
        [--programs gamma beta dirichlet poisson mlp lstm]

The programs: jitted samplers of 1,000 draws (`random.gamma`, `beta`, `dirichlet` over 3 concentrations,
`poisson`), an MLP training step (784-1024-512-10, batch 128) and an LSTM step by `scan` (hidden 256, 64 steps).
`--variant` is an IREE flag that replaces paddle_fn's own of the same name (or is added): the default compares
against IREE's compile-time evaluation of constant expressions (paddle_fn turns it off).
"""
from __future__ import annotations

import argparse
import resource
import time

import numpy as np

import paddle_fn as paddle
from paddle_fn import random
from paddle_fn.runtime import compiler, load_executable


def _samplers():
    key = random.PRNGKey(0)
    return {
        "gamma": (lambda k: random.gamma(k, 2.0, (1000,)), (key,)),
        "beta": (lambda k: random.beta(k, 2.0, 3.0, (1000,)), (key,)),
        "dirichlet": (lambda k, alpha: random.dirichlet(k, alpha, (1000,)), (key, paddle.to_tensor([1.0, 2.0, 3.0]))),
        "poisson": (lambda k: random.poisson(k, 3.0, (1000,)), (key,)),
    }


def _mlp():
    rng = np.random.default_rng(0)
    sizes = [784, 1024, 512, 10]
    params = [(paddle.to_tensor(rng.normal(0, 0.05, (i, o)).astype(np.float32)), paddle.zeros([o]))
              for i, o in zip(sizes[:-1], sizes[1:])]
    x = paddle.to_tensor(rng.normal(size=(128, 784)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 10, 128))

    def loss(params, x, y):
        for w, b in params[:-1]:
            x = paddle.nn.functional.relu(x @ w + b)
        w, b = params[-1]
        return paddle.nn.functional.cross_entropy(x @ w + b, y)

    def step(params, x, y):
        grads = paddle.grad(loss)(params, x, y)
        return paddle.tree.map(lambda p, g: p - 0.01 * g, params, grads)
    return step, (params, x, y)


def _lstm():
    rng = np.random.default_rng(0)
    hidden, inputs, steps, batch = 256, 64, 64, 32
    w = paddle.to_tensor(rng.normal(0, 0.05, (inputs + hidden, 4 * hidden)).astype(np.float32))
    xs = paddle.to_tensor(rng.normal(size=(steps, batch, inputs)).astype(np.float32))

    def loss(w, xs):
        def cell(carry, x):
            h, c = carry
            i, f, g, o = paddle.split(paddle.concat([x, h], axis=1) @ w, 4, axis=1)
            c = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
            h = paddle.nn.functional.sigmoid(o) * paddle.tanh(c)
            return (h, c), h
        zeros = paddle.zeros([batch, hidden])
        _, hs = paddle.scan(cell, (zeros, zeros), xs)
        return (hs ** 2).mean()

    return (lambda w, xs: w - 0.01 * paddle.grad(loss)(w, xs)), (w, xs)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _compile(text, flags):
    cpu, wall = _child_cpu(), time.perf_counter()
    artifact = compiler.compile_stablehlo(text, extra_flags=flags, use_disk_cache=False)
    return artifact, _child_cpu() - cpu, time.perf_counter() - wall


def _run_ms(artifact, args, reps=20):
    """The median call of the compiled program, its outputs read back (the functions capture no constants, so
    the program's inputs are the arguments' leaves)."""
    executable = load_executable(artifact)
    leaves = [np.asarray(leaf) for leaf in paddle.tree.leaves(args)]
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        [out.to_numpy() for out in executable(*leaves)]
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times))


def _jax_compile_seconds(name):
    try:
        import jax  # deliberate lazy import: an optional peer, measured only where installed
    except ImportError:
        return None
    key = jax.random.PRNGKey(0)
    functions = {"gamma": lambda k: jax.random.gamma(k, 2.0, (1000,)),
                 "beta": lambda k: jax.random.beta(k, 2.0, 3.0, (1000,)),
                 "dirichlet": lambda k: jax.random.dirichlet(k, jax.numpy.array([1.0, 2.0, 3.0]), (1000,)),
                 "poisson": lambda k: jax.random.poisson(k, 3.0, (1000,))}
    if name not in functions:
        return None
    start = time.perf_counter()
    jax.jit(functions[name]).lower(key).compile()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="--iree-opt-const-eval=true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--programs", nargs="+", default=["gamma", "beta", "dirichlet", "poisson", "mlp", "lstm"])
    args = parser.parse_args()
    programs = dict(_samplers(), mlp=_mlp(), lstm=_lstm())
    print("| program | flags | compile CPU s | compile wall s | run ms | JAX compile s |")
    print("|---|---|---:|---:|---:|---:|")
    for name in args.programs:
        fun, fun_args = programs[name]
        lowered = paddle.jit(fun).lower(*fun_args)
        assert len(lowered.in_avals) == len(lowered.program.in_avals), f"{name} captures constants"
        text = lowered.as_text()
        results = {"paddle_fn": [], args.variant: []}
        for _ in range(args.rounds):
            for label, flags in (("paddle_fn", ()), (args.variant, (args.variant,))):
                artifact, cpu, wall = _compile(text, flags)
                results[label].append((cpu, wall, _run_ms(artifact, fun_args)))
        jax_seconds = _jax_compile_seconds(name)
        for label, rows in results.items():
            cpu, wall, run = (float(np.median(column)) for column in zip(*rows))
            jax_cell = f"{jax_seconds:.2f}" if jax_seconds is not None and label == "paddle_fn" else ""
            print(f"| {name} | {label} | {cpu:.2f} | {wall:.2f} | {run:.3f} | {jax_cell} |")


if __name__ == "__main__":
    main()
