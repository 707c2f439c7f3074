"""paddle_fn.jit benchmarks: training step, first-call latency, call overhead, matmul, vmap/Jacobian workloads.

    .venv/bin/python benchmarks/bench_jit.py [--quick] [--reps N] [--skip-torch-compile] [--profile] [--only ...]
        [--closures N] [--json PATH]

Every section interleaves its contenders in one loop (rotating their order each repetition), so that the
noise of a shared machine hits all of them alike, and prints the median and min of the repetitions. JAX,
PyTorch and PaddlePaddle are measured when they are importable; none of them is a dependency. The last
table marks the targets of the jit issue as met or not met. `--profile` adds a cProfile of the jitted
training step and of the trivial call, separating Python-side overhead from the time spent inside IREE.

`--json PATH` writes what was measured (seconds; only the sections that ran) for bench_summary.py:
    {"versions": {"python", "numpy", "IREE", "jax", "torch", "paddlepaddle": version or null},
     "mlp": {contender: [median, min]}, "mlp_losses_agree": bool,
     "first_call": {mlp: {"cold", "warm", "import", "jax_cold" (null without JAX)}} for the MLPs FIRST_CALL_MLPS,
     "overhead": {contender: [median, min] per call}, "matmul": {"n": 2048, "times": {contender: [median, min]}},
     "vmap": {workload: {contender: [median, min]}},
     "memory": {"calls", "calls_rss_bytes", "calls_objects", "closures", "kept", "bound"}}
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import logging
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time

import numpy as np

_T0 = time.perf_counter()
import paddle_fn as pf  # noqa: E402
from paddle_fn.runtime import Device, iree_version, loaded_count  # noqa: E402
from paddle_fn.runtime.executable import KEEP_RECENT  # noqa: E402
PADDLE_FN_IMPORT_SECONDS = time.perf_counter() - _T0

try:
    import jax
    import jax.numpy as jnp
    # the float64 Hessians need it; float32 inputs stay float32 (and Python scalars weakly typed) under it
    jax.config.update("jax_enable_x64", True)
except ImportError:
    jax = None
try:
    import torch
except ImportError:
    torch = None
try:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import paddle as paddlepaddle  # PaddlePaddle itself; paddle_fn is imported as `pf` here
    paddlepaddle.disable_static()
except ImportError:
    paddlepaddle = None
# PaddlePaddle sets the root logger to INFO, which would print every IREE compiler invocation
logging.getLogger().setLevel(logging.WARNING)

LEARNING_RATE = 0.01
MLP_SIZES = (784, 1024, 512, 10)
MLP_BATCH = 128
# The default CPU device runs programs on IREE's multi-threaded "local-task" driver. A second device on the
# "local-sync" driver (one thread, the caller's) shows how much of a time is the hand-off to worker threads.
LOCAL_SYNC = Device("cpu", 0, "local-sync")


# ------------------------------------------------------------------------------------------------ timing

def interleaved(contenders: dict, reps: int, inner: int = 1, warmup: int = 2) -> dict:
    """{name: (median, min)} seconds per call; each repetition runs every contender `inner` times, in an order
    rotated by one each repetition."""
    names = list(contenders)
    for name in names:
        for _ in range(warmup):
            contenders[name]()
    times = {name: [] for name in names}
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            fn = contenders[name]
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            times[name].append((time.perf_counter() - t0) / inner)
    return {name: (float(np.median(ts)), float(np.min(ts))) for name, ts in times.items()}


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:9.1f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:9.2f} ms"
    return f"{seconds:9.2f} s "


def print_results(title: str, results: dict, reference: str | None = None):
    print(f"\n## {title}")
    print(f"{'contender':34s} {'median':>12s} {'min':>12s}" + (f" {'vs ' + reference:>14s}" if reference else ""))
    for name, (med, lo) in results.items():
        ratio = ""
        if reference and reference in results:
            ratio = f" {results[reference][0] / med:13.2f}x"
        print(f"{name:34s} {fmt_time(med):>12s} {fmt_time(lo):>12s}{ratio}")


def not_installed(name: str, reason: str = "not installed"):
    print(f"{name:34s} {reason}")


# ------------------------------------------------------------------------------------------------ 1. MLP step

def mlp_data(seed=0):
    rng = np.random.default_rng(seed)
    params = [{"W": (rng.normal(size=(n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32),
               "b": np.zeros(n_out, np.float32)} for n_in, n_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:])]
    x = rng.normal(size=(MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    labels = rng.integers(0, MLP_SIZES[-1], size=MLP_BATCH)
    y = np.eye(MLP_SIZES[-1], dtype=np.float32)[labels]
    return params, x, y


def paddle_fn_mlp_step(params, x, y):
    """value_and_grad of softmax cross-entropy, then SGD; params is a list of {"W", "b"} dicts."""
    def loss(params, x, y):
        h = x
        for i, layer in enumerate(params):
            h = pf.matmul(h, layer["W"]) + layer["b"]
            if i < len(params) - 1:
                h = pf.relu(h)
        return -pf.mean(pf.sum(y * pf.log_softmax(h, axis=-1), axis=-1))
    value, grads = pf.value_and_grad(loss)(params, x, y)
    return pf.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads), value


class NumpyMLP:
    def __init__(self, params, x, y):
        self.params = [{k: v.copy() for k, v in layer.items()} for layer in params]
        self.x, self.y = x, y

    def step(self):
        hs, h = [self.x], self.x
        for i, layer in enumerate(self.params):
            h = h @ layer["W"] + layer["b"]
            if i < len(self.params) - 1:
                h = np.maximum(h, 0)
            hs.append(h)
        logits = hs[-1]
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_z = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        log_p = shifted - log_z
        loss = -np.mean(np.sum(self.y * log_p, axis=1))
        delta = (np.exp(log_p) * self.y.sum(axis=1, keepdims=True) - self.y) / len(self.x)
        for i in range(len(self.params) - 1, -1, -1):
            layer = self.params[i]
            grad_w, grad_b = hs[i].T @ delta, delta.sum(axis=0)
            if i > 0:
                delta = (delta @ layer["W"].T) * (hs[i] > 0)
            layer["W"] = layer["W"] - np.float32(LEARNING_RATE) * grad_w
            layer["b"] = layer["b"] - np.float32(LEARNING_RATE) * grad_b
        return float(loss)


class PaddleFnMLP:
    def __init__(self, params, x, y, jitted=True, device=None):
        self.fn = pf.jit(paddle_fn_mlp_step, device=device) if jitted else paddle_fn_mlp_step
        put = (lambda t: pf.device_put(t, device)) if jitted else (lambda t: pf.tree_map(pf.to_tensor, t))
        self.params, self.x, self.y = put(params), put(x), put(y)

    def step(self):
        self.params, loss = self.fn(self.params, self.x, self.y)
        return float(loss.numpy().reshape(()))


class JaxMLP:
    def __init__(self, params, x, y):
        def loss(params, x, y):
            h = x
            for i, layer in enumerate(params):
                h = h @ layer["W"] + layer["b"]
                if i < len(params) - 1:
                    h = jax.nn.relu(h)
            return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h, axis=-1), axis=-1))

        def step(params, x, y):
            value, grads = jax.value_and_grad(loss)(params, x, y)
            return jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads), value
        self.fn = jax.jit(step)
        self.params, self.x, self.y = jax.device_put(params), jax.device_put(x), jax.device_put(y)

    def step(self):
        self.params, loss = self.fn(self.params, self.x, self.y)
        jax.block_until_ready(self.params)
        return float(loss)


class TorchMLP:
    def __init__(self, params, x, y, compiled=False):
        self.params = [torch.tensor(v, requires_grad=True) for layer in params for v in (layer["W"], layer["b"])]
        self.x, self.y = torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
        self.fn = torch.compile(self._step) if compiled else self._step

    def _step(self, x, y):
        h = x
        n_layers = len(self.params) // 2
        for i in range(n_layers):
            h = h @ self.params[2 * i] + self.params[2 * i + 1]
            if i < n_layers - 1:
                h = torch.relu(h)
        loss = -(y * torch.log_softmax(h, dim=-1)).sum(dim=-1).mean()
        loss.backward()
        with torch.no_grad():
            for p in self.params:
                p.sub_(LEARNING_RATE * p.grad)
                p.grad = None
        return loss.detach()

    def step(self):
        return float(self.fn(self.x, self.y))


class PaddlePaddleMLP:
    def __init__(self, params, x, y):
        self.params = []
        for layer in params:
            for v in (layer["W"], layer["b"]):
                t = paddlepaddle.to_tensor(v)
                t.stop_gradient = False
                self.params.append(t)
        self.x, self.y = paddlepaddle.to_tensor(x), paddlepaddle.to_tensor(y)
        self.optimizer = paddlepaddle.optimizer.SGD(learning_rate=LEARNING_RATE, parameters=self.params)

    def step(self):
        h = self.x
        n_layers = len(self.params) // 2
        for i in range(n_layers):
            h = paddlepaddle.matmul(h, self.params[2 * i]) + self.params[2 * i + 1]
            if i < n_layers - 1:
                h = paddlepaddle.nn.functional.relu(h)
        loss = -(self.y * paddlepaddle.nn.functional.log_softmax(h, axis=-1)).sum(axis=-1).mean()
        loss.backward()
        self.optimizer.step()
        self.optimizer.clear_grad()
        return float(loss)


def bench_mlp(args, summary):
    params, x, y = mlp_data()
    makers = {"numpy by hand": lambda: NumpyMLP(params, x, y),
              "paddle_fn jit": lambda: PaddleFnMLP(params, x, y),
              "paddle_fn jit, local-sync": lambda: PaddleFnMLP(params, x, y, device=LOCAL_SYNC)}
    if args.eager:
        makers["paddle_fn eager"] = lambda: PaddleFnMLP(params, x, y, jitted=False)
    skipped = {}
    if jax is not None:
        makers["jax jit"] = lambda: JaxMLP(params, x, y)
    else:
        skipped["jax jit"] = "not installed"
    if torch is not None:
        makers["torch eager"] = lambda: TorchMLP(params, x, y)
        if not args.skip_torch_compile:
            makers["torch.compile"] = lambda: TorchMLP(params, x, y, compiled=True)
    else:
        skipped["torch eager"] = "not installed"
    if paddlepaddle is not None:
        makers["paddlepaddle eager"] = lambda: PaddlePaddleMLP(params, x, y)
    else:
        skipped["paddlepaddle eager"] = "not installed"

    # agreement: every contender from the same start, a few steps
    losses, first_call = {}, {}
    for name, make in list(makers.items()):
        try:
            t0 = time.perf_counter()
            model = make()
            first = model.step()
            first_call[name] = time.perf_counter() - t0
            losses[name] = [first] + [model.step() for _ in range(3)]
        except Exception as error:  # an optional contender that fails (e.g. torch.compile without a C compiler)
            skipped[name] = f"failed: {type(error).__name__}: {str(error).splitlines()[0][:80]}"
            del makers[name]
    ref = np.array(losses["numpy by hand"])
    print(f"\n## 1. MLP {'-'.join(map(str, MLP_SIZES))} training step, batch {MLP_BATCH}, float32 "
          "(value_and_grad + SGD, params fed back)")
    print("losses after 1..4 steps (all contenders start from the same params):")
    agree = True
    for name, ls in losses.items():
        ok = np.allclose(ls, ref, rtol=2e-4)
        agree &= ok
        print(f"  {name:32s} {' '.join(f'{v:.6f}' for v in ls)}   {'same' if ok else 'DIFFERENT'}"
              f"   (first call incl. setup/compile {first_call[name]:.2f} s)")
    summary["mlp_losses_agree"] = agree

    models = {name: make() for name, make in makers.items()}
    for m in models.values():
        m.step()
    results = interleaved({name: m.step for name, m in models.items()}, args.reps, inner=args.inner)
    print_results(f"MLP step time ({args.reps} interleaved repetitions x {args.inner} steps)", results,
                  reference="paddle_fn jit")
    print("  (last column: paddle_fn jit's time over that contender's; below 1, paddle_fn jit is faster)")
    for name, why in skipped.items():
        not_installed(name, why)
    summary["mlp"] = results
    if args.profile:
        profile_calls("jitted MLP steps", models["paddle_fn jit"].step, max(20, args.reps))


def profile_calls(what: str, call, n: int):
    """cProfile of `n` calls. Executable.__call__'s own time is IREE running the program (its body only pushes
    buffer refs and calls VmContext.invoke, which cProfile does not list); the rest is Python."""
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    profiler.enable()
    for _ in range(n):
        call()
    profiler.disable()
    wall = (time.perf_counter() - t0) / n
    stats = pstats.Stats(profiler)
    total = sum(tt for (cc, nc, tt, ct, callers) in stats.stats.values())
    inside = sum(tt for (file, line, fn), (cc, nc, tt, ct, callers) in stats.stats.items()
                 if fn == "__call__" and file.endswith(os.path.join("runtime", "executable.py")))
    print(f"\n## cProfile of {n} {what}: {fmt_time(wall).strip()}/call under the profiler; "
          f"{fmt_time(inside / n).strip()}/call in Executable.__call__ (IREE), {fmt_time((total - inside) / n).strip()}"
          "/call in other Python code")
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(12)
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip()))


# ------------------------------------------------------------------------------------------------ 2. first call

# What both first-call scripts start from: the MLP's parameters, a batch and one-hot labels as numpy arrays, for
# the sizes and batch in argv[2]; each script converts them with its framework's own array constructor.
_FIRST_CALL_DATA = r"""
sizes, batch = json.loads(sys.argv[2])
rng = np.random.default_rng(0)
params = [{"W": (rng.normal(size=(m, n)) / m ** 0.5).astype(np.float32), "b": np.zeros(n, np.float32)}
          for m, n in zip(sizes[:-1], sizes[1:])]
x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
"""

FIRST_CALL_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import paddle_fn as paddle
t_import = time.perf_counter() - t0
""" + _FIRST_CALL_DATA + r"""
params, x, y = paddle.tree_map(paddle.to_tensor, (params, x, y))

def loss(params, x, y):
    h = x
    for layer in params[:-1]:
        h = paddle.tanh(paddle.matmul(h, layer["W"]) + layer["b"])
    logits = paddle.matmul(h, params[-1]["W"]) + params[-1]["b"]
    return -paddle.mean(paddle.sum(y * paddle.log_softmax(logits, axis=-1), axis=-1))

@paddle.jit
def step(params, x, y):
    value, grads = paddle.value_and_grad(loss)(params, x, y)
    return paddle.tree_map(lambda p, g: p - 0.1 * g, params, grads), value

out = {"import": t_import}
if sys.argv[1] == "breakdown":
    t = time.perf_counter(); lowered = step.lower(params, x, y); out["trace"] = time.perf_counter() - t
    t = time.perf_counter(); lowered.as_text(); out["lower to StableHLO"] = time.perf_counter() - t
    t = time.perf_counter(); lowered.compile(); out["compile or cache load + IREE load"] = time.perf_counter() - t
    t = time.perf_counter(); params, v = step(params, x, y); v.numpy(); out["run (first)"] = time.perf_counter() - t
else:
    t = time.perf_counter(); params, v = step(params, x, y); v.numpy(); out["first call"] = time.perf_counter() - t
    t = time.perf_counter(); params, v = step(params, x, y); v.numpy(); out["second call"] = time.perf_counter() - t
print(json.dumps(out))
"""


# The same step in JAX, which keeps no compilation cache on disk unless told to: every fresh process compiles.
JAX_FIRST_CALL_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import jax
import jax.numpy as jnp
t_import = time.perf_counter() - t0
""" + _FIRST_CALL_DATA + r"""
params, x, y = jax.tree_util.tree_map(jnp.asarray, (params, x, y))

def loss(params, x, y):
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["W"] + layer["b"])
    logits = h @ params[-1]["W"] + params[-1]["b"]
    return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits, axis=-1), axis=-1))

@jax.jit
def step(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value

out = {"import": t_import}
t = time.perf_counter(); params, v = step(params, x, y); float(v); out["first call"] = time.perf_counter() - t
t = time.perf_counter(); params, v = step(params, x, y); float(v); out["second call"] = time.perf_counter() - t
print(json.dumps(out))
"""


# The MLP steps whose first call is timed: the training step and a small one (sizes, batch)
FIRST_CALL_MLPS = {"784-1024-512-10": ((784, 1024, 512, 10), 128), "32-64-10": ((32, 64, 10), 16)}


def fresh_process(mode: str, cache_dir: str, script: str = FIRST_CALL_SCRIPT,
                  mlp: str = "784-1024-512-10") -> dict:
    env = dict(os.environ, PADDLE_FN_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, mode, json.dumps(FIRST_CALL_MLPS[mlp])], env=env,
                          capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"first-call subprocess failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["process wall"] = wall
    return result


def bench_first_call(args, summary):
    cold_runs, warm_runs = (1, 3) if args.quick else (3, 7)
    summary["first_call"] = {}
    for mlp, (sizes, batch) in FIRST_CALL_MLPS.items():
        cold, warm = [], []
        with tempfile.TemporaryDirectory(prefix="paddle_fn_bench_cache_") as root:
            for i in range(cold_runs):
                cold.append(fresh_process("plain", os.path.join(root, f"cache{i}"), mlp=mlp))  # empty: a cold compile
            for _ in range(warm_runs):
                warm.append(fresh_process("plain", os.path.join(root, "cache0"), mlp=mlp))
            breakdown = fresh_process("breakdown", os.path.join(root, "cache0"), mlp=mlp)
            jax_cold = ([fresh_process("plain", root, JAX_FIRST_CALL_SCRIPT, mlp) for _ in range(cold_runs)]
                        if jax else [])

        def med(runs, key):
            return float(np.median([r[key] for r in runs]))
        print(f"\n## 2. First call in a fresh process (MLP {mlp} step, batch {batch}; median over runs)")
        print(f"{'':28s} {'runs':>5s} {'import':>10s} {'first call':>12s} {'second call':>12s} {'process wall':>13s}")
        for label, runs in (("cold disk cache", cold), ("warm disk cache", warm),
                            ("jax jit (no disk cache)", jax_cold)):
            if not runs:
                not_installed(label)
                continue
            print(f"{label:28s} {len(runs):5d} {fmt_time(med(runs, 'import')):>10s} "
                  f"{fmt_time(med(runs, 'first call')):>12s} {fmt_time(med(runs, 'second call')):>12s} "
                  f"{fmt_time(med(runs, 'process wall')):>13s}")
        print("warm-cache first call, broken down (one process, AOT path): " +
              ", ".join(f"{k} {fmt_time(v).strip()}" for k, v in breakdown.items()
                        if k not in ("import", "process wall")))
        summary["first_call"][mlp] = {"cold": med(cold, "first call"), "warm": med(warm, "first call"),
                                      "import": med(cold + warm, "import"),
                                      "jax_cold": med(jax_cold, "first call") if jax_cold else None}
    print(f"import paddle_fn in this process: {PADDLE_FN_IMPORT_SECONDS:.3f} s")


# ------------------------------------------------------------------------------------------------ 3. overhead

def bench_overhead(args, summary):
    calls = 200 if args.quick else 1000
    host = np.arange(4, dtype=np.float32)
    add_one = pf.jit(lambda x: x + 1.0)
    on_device = pf.device_put(pf.to_tensor(host))
    add_one(on_device)
    add_one_sync = pf.jit(lambda x: x + 1.0, device=LOCAL_SYNC)
    on_sync_device = pf.device_put(pf.to_tensor(host), LOCAL_SYNC)
    add_one_sync(on_sync_device)

    contenders = {
        "paddle_fn jit, device-resident": lambda: add_one(on_device),
        "paddle_fn jit, numpy in/out": lambda: add_one(host).numpy(),
        "paddle_fn jit, device, local-sync": lambda: add_one_sync(on_sync_device),
        "numpy x + 1": lambda: host + 1.0,
    }
    if jax is not None:
        jax_add_one = jax.jit(lambda x: x + 1.0)
        jax_x = jax.device_put(host)
        contenders["jax jit, device-resident"] = lambda: jax_add_one(jax_x).block_until_ready()
        contenders["jax jit, numpy in/out"] = lambda: np.asarray(jax_add_one(host))
    if torch is not None:
        torch_x = torch.from_numpy(host)
        contenders["torch eager x + 1"] = lambda: torch_x + 1.0

    def batched(fn):
        def run():
            for _ in range(calls):
                fn()
        return run
    results = interleaved({k: batched(v) for k, v in contenders.items()}, args.reps)
    results = {k: (m / calls, lo / calls) for k, (m, lo) in results.items()}
    print_results(f"3. Per-call overhead, jit(x + 1) on f32[4] ({args.reps} repetitions x {calls} calls)", results)
    summary["overhead"] = results
    if args.profile:
        profile_calls("jit(x + 1) calls, device-resident", lambda: add_one(on_device), 10 * calls)


def rss_bytes() -> int:
    """This process's resident memory now (Linux /proc; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def bench_memory(args, summary):
    """What jitted calls keep: growth over 10,000 calls of one function, and the executables (and memory) still held
    after many short-lived jit closures, each a distinct program, have been called once and dropped."""
    calls, closures = 10_000, args.closures
    x = pf.device_put(pf.to_tensor(np.arange(4, dtype=np.float32)))
    add_one = pf.jit(lambda x: x + 1.0)
    for _ in range(100):
        add_one(x)
    gc.collect()
    rss0, objects0 = rss_bytes(), len(gc.get_objects())
    for _ in range(calls):
        add_one(x)
    gc.collect()
    rss_growth, object_growth = rss_bytes() - rss0, len(gc.get_objects()) - objects0

    gc.collect()
    rss0, loaded0 = rss_bytes(), loaded_count()
    t0 = time.perf_counter()
    for k in range(closures):
        pf.jit(lambda x, k=k: x * float(k) + 0.5)(x)  # float(k) is a literal of the program: a distinct program each
    gc.collect()
    kept, closure_rss = loaded_count() - loaded0, rss_bytes() - rss0
    print(f"\n## 6. Memory: {calls} calls of one jitted function; {closures} jit closures called once and dropped")
    print(f"{calls} calls: resident memory {rss_growth / 2**20:+.2f} MiB, Python objects {object_growth:+d}")
    print(f"{closures} dead closures: {kept} executables kept (bound: runtime KEEP_RECENT = "
          f"{KEEP_RECENT}), resident memory {closure_rss / 2**20:+.2f} MiB "
          f"({time.perf_counter() - t0:.1f} s, compiles included)")
    summary["memory"] = {"calls": calls, "calls_rss_bytes": rss_growth, "calls_objects": object_growth,
                         "closures": closures, "bound": KEEP_RECENT,
                         "kept": kept}


# ------------------------------------------------------------------------------------------------ 4. matmul

def bench_matmul(args, summary):
    n = 2048
    rng = np.random.default_rng(0)
    a, b = (rng.normal(size=(n, n)).astype(np.float32) for _ in range(2))
    matmul = pf.jit(pf.matmul)
    a_dev, b_dev = pf.device_put(pf.to_tensor(a)), pf.device_put(pf.to_tensor(b))
    ours = matmul(a_dev, b_dev)
    np.testing.assert_allclose(ours.numpy(), a @ b, rtol=2e-3, atol=2e-2)
    contenders = {"paddle_fn jit(matmul)": lambda: matmul(a_dev, b_dev),
                  "numpy (OpenBLAS)": lambda: a @ b}
    if jax is not None:
        jax_mm = jax.jit(jnp.matmul)
        ja, jb = jax.device_put(a), jax.device_put(b)
        contenders["jax jit(matmul)"] = lambda: jax_mm(ja, jb).block_until_ready()
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        contenders["torch matmul"] = lambda: ta @ tb
    reps = max(3, args.reps // 2)
    results = interleaved(contenders, reps)
    flops = 2.0 * n ** 3
    print(f"\n## 4. {n}x{n} float32 matmul ({reps} interleaved repetitions)")
    print(f"{'contender':34s} {'median':>12s} {'GFLOP/s (median)':>18s} {'GFLOP/s (best)':>16s}")
    for name, (med, lo) in results.items():
        print(f"{name:34s} {fmt_time(med):>12s} {flops / med / 1e9:18.1f} {flops / lo / 1e9:16.1f}")
    summary["matmul"] = {"n": n, "times": results}


# ------------------------------------------------------------------------------------------------ 5. vmap workloads

VMAP_COLUMNS = ("paddle_fn eager", "paddle_fn jit", "numpy by hand", "jax jit", "torch.func eager",
                "paddlepaddle eager")


def as_numpy(value) -> np.ndarray:
    """One contender's result (a paddle_fn, torch or PaddlePaddle tensor, a JAX or numpy array) as numpy; a torch
    tensor on a GPU is copied to the host first."""
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu()
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def vmap_workloads(rng):
    """bench_vmap.py's workloads, written with explicit arguments so that jit sees them as inputs, plus the float64
    Hessians: [(name, {contender: call}, pick)], `pick` taking the array to compare out of a call's result."""
    workloads = [("per-example grads, MLP 32-64-10, b=256", *per_example_workload(rng))]
    for n in (64, 256):
        workloads.append((f"hessian, n={n}", *hessian_workload(rng, n, np.float32)))
    for mode in ("fwd", "rev"):
        workloads.append((f"jac{mode} tanh(A@x), n=512", *jacobian_workload(rng, 512, mode)))
    for n in (64, 256):  # after the others, so that their random data stays what earlier runs measured
        workloads.append((f"hessian, n={n}, float64", *hessian_workload(rng, n, np.float64)))
    return workloads


def per_example_workload(rng):
    """Per-example gradients of a 32-64-10 MLP over a batch of 256."""
    sizes = [(32, 64), (64, 10)]
    params = [{"W": (rng.normal(size=s) * 0.1).astype(np.float32), "b": np.zeros(s[1], np.float32)} for s in sizes]
    xs = rng.normal(size=(256, 32)).astype(np.float32)
    ys = rng.integers(0, 10, size=(256,))

    def loss(params, x, y):
        h = pf.tanh(pf.matmul(x, params[0]["W"]) + params[0]["b"])
        logits = pf.matmul(h, params[1]["W"]) + params[1]["b"]
        logp = logits - pf.logsumexp(logits)
        return -pf.sum(logp * pf.cast(pf.arange(10) == y, "float32"))
    per_example = pf.vmap(pf.grad(loss), in_axes=(None, 0, 0))
    t_params, t_xs, t_ys = pf.tree_map(pf.to_tensor, params), pf.to_tensor(xs), pf.to_tensor(ys)
    jitted = pf.jit(per_example)
    d_params, d_xs, d_ys = pf.device_put((t_params, t_xs, t_ys))

    W0, W1, b0, b1 = params[0]["W"], params[1]["W"], params[0]["b"], params[1]["b"]

    def numpy_per_example():
        h = np.tanh(xs @ W0 + b0)
        logits = h @ W1 + b1
        p = np.exp(logits - logits.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        d = p.copy()
        d[np.arange(len(ys)), ys] -= 1
        dh = (d @ W1.T) * (1 - h * h)
        return [{"W": xs[:, :, None] * dh[:, None, :], "b": dh}, {"W": h[:, :, None] * d[:, None, :], "b": d}]
    contenders = {"paddle_fn eager": lambda: per_example(t_params, t_xs, t_ys),
                  "paddle_fn jit": lambda: jitted(d_params, d_xs, d_ys), "numpy by hand": numpy_per_example}
    if jax is not None:
        def jax_loss(params, x, y):
            h = jnp.tanh(x @ params[0]["W"] + params[0]["b"])
            logits = h @ params[1]["W"] + params[1]["b"]
            logp = logits - jax.scipy.special.logsumexp(logits)
            return -jnp.sum(logp * (jnp.arange(10) == y).astype(jnp.float32))
        jax_pe = jax.jit(jax.vmap(jax.grad(jax_loss), in_axes=(None, 0, 0)))
        jargs = jax.device_put((params, xs, ys))
        contenders["jax jit"] = lambda: jax.block_until_ready(jax_pe(*jargs))
    if torch is not None:
        def torch_loss(params, x, y):
            h = torch.tanh(x @ params[0]["W"] + params[0]["b"])
            logits = h @ params[1]["W"] + params[1]["b"]
            logp = logits - torch.logsumexp(logits, 0)
            return -(logp * (torch.arange(10) == y).float()).sum()
        torch_pe = torch.func.vmap(torch.func.grad(torch_loss), in_dims=(None, 0, 0))
        targs = ([{k: torch.from_numpy(v) for k, v in layer.items()} for layer in params], torch.from_numpy(xs),
                 torch.from_numpy(ys))
        contenders["torch.func eager"] = lambda: torch_pe(*targs)
    # PaddlePaddle has no vmap of grad in dygraph: no contender
    return contenders, lambda result: as_numpy(result[1]["W"])


def hessian_workload(rng, n, dtype):
    A = (rng.normal(size=(n, n)) / np.sqrt(n)).astype(dtype)
    x = rng.normal(size=(n,)).astype(dtype)

    def f(x, A):
        return pf.sum(pf.tanh(pf.matmul(A, x)) ** 2) + 0.5 * pf.sum(x ** 2)
    hess = pf.hessian(f)
    jitted = pf.jit(hess)
    tx, tA = pf.to_tensor(x), pf.to_tensor(A)
    dx, dA = pf.device_put((tx, tA))

    def numpy_hessian():
        t = np.tanh(A @ x)
        w = 2 * (1 - t * t) * (1 - 3 * t * t)
        return (A.T * w) @ A + np.eye(n, dtype=dtype)
    contenders = {"paddle_fn eager": lambda: hess(tx, tA), "paddle_fn jit": lambda: jitted(dx, dA),
                  "numpy by hand": numpy_hessian}
    if jax is not None:
        jax_h = jax.jit(jax.hessian(lambda x, A: jnp.sum(jnp.tanh(A @ x) ** 2) + 0.5 * jnp.sum(x ** 2)))
        jx, jA = jax.device_put((x, A))
        contenders["jax jit"] = lambda: jax_h(jx, jA).block_until_ready()
    if torch is not None:
        torch_h = torch.func.hessian(lambda x, A: (torch.tanh(A @ x) ** 2).sum() + 0.5 * (x ** 2).sum())
        ttx, ttA = torch.from_numpy(x), torch.from_numpy(A)
        contenders["torch.func eager"] = lambda: torch_h(ttx, ttA)
    if paddlepaddle is not None:
        px, pA = paddlepaddle.to_tensor(x, stop_gradient=False), paddlepaddle.to_tensor(A)

        def paddle_hessian():
            value = paddlepaddle.sum(paddlepaddle.tanh(paddlepaddle.matmul(pA, px)) ** 2) + 0.5 * paddlepaddle.sum(
                px ** 2)
            return paddlepaddle.autograd.hessian(value, px)[:]
        contenders["paddlepaddle eager"] = paddle_hessian
    return contenders, as_numpy


def jacobian_workload(rng, n, mode):
    A = (rng.normal(size=(n, n)) / np.sqrt(n)).astype(np.float32)
    x = rng.normal(size=(n,)).astype(np.float32)
    jac = (pf.jacfwd if mode == "fwd" else pf.jacrev)(lambda x, A: pf.tanh(pf.matmul(A, x)))
    jitted = pf.jit(jac)
    tx, tA = pf.to_tensor(x), pf.to_tensor(A)
    dx, dA = pf.device_put((tx, tA))
    contenders = {"paddle_fn eager": lambda: jac(tx, tA), "paddle_fn jit": lambda: jitted(dx, dA),
                  "numpy by hand": lambda: (1 - np.tanh(A @ x) ** 2)[:, None] * A}
    if jax is not None:
        jax_jac = jax.jit((jax.jacfwd if mode == "fwd" else jax.jacrev)(lambda x, A: jnp.tanh(A @ x)))
        jx, jA = jax.device_put((x, A))
        contenders["jax jit"] = lambda: jax_jac(jx, jA).block_until_ready()
    if torch is not None:
        torch_jac = (torch.func.jacfwd if mode == "fwd" else torch.func.jacrev)(lambda x, A: torch.tanh(A @ x))
        ttx, ttA = torch.from_numpy(x), torch.from_numpy(A)
        contenders["torch.func eager"] = lambda: torch_jac(ttx, ttA)
    if paddlepaddle is not None and mode == "rev":  # paddle.autograd.jacobian is reverse mode, row by row
        px, pA = paddlepaddle.to_tensor(x, stop_gradient=False), paddlepaddle.to_tensor(A)
        contenders["paddlepaddle eager"] = lambda: paddlepaddle.autograd.jacobian(
            paddlepaddle.tanh(paddlepaddle.matmul(pA, px)), px)[:]
    return contenders, as_numpy


def bench_vmap_workloads(args, summary):
    workloads = vmap_workloads(np.random.default_rng(0))
    header = [c for c in VMAP_COLUMNS if any(c in contenders for _, contenders, _ in workloads)]
    print(f"\n## 5. bench_vmap.py workloads under jit ({args.reps} interleaved repetitions; median (min))")
    print(f"{'workload':40s} " + " ".join(f"{h:>22s}" for h in header) + f" {'jit vs eager':>12s}")
    summary["vmap"] = {}
    for name, contenders, pick in workloads:
        reference = pick(contenders["numpy by hand"]())
        for contender, call in contenders.items():
            np.testing.assert_allclose(pick(call()), reference, rtol=2e-3, atol=2e-4, err_msg=f"{name}: {contender}")
        results = interleaved(contenders, args.reps, warmup=1)
        cells = [f"{fmt_time(results[h][0]).strip()} ({fmt_time(results[h][1]).strip()})" if h in results else "n/a"
                 for h in header]
        speedup = results["paddle_fn eager"][0] / results["paddle_fn jit"][0]
        print(f"{name:40s} " + " ".join(f"{c:>22s}" for c in cells) + f" {speedup:11.1f}x")
        summary["vmap"][name] = results


# ------------------------------------------------------------------------------------------------ summary

def versions() -> dict:
    """{name: version} of the interpreter, numpy, IREE and the peers (None for a peer that is not installed)."""
    found = {"python": platform.python_version(), "numpy": np.__version__, "IREE": iree_version()}
    for label, module in (("jax", jax), ("torch", torch), ("paddlepaddle", paddlepaddle)):
        found[label] = module.__version__ if module is not None else None
    return found


def machine_line() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{time.strftime('%Y-%m-%d')} | {model}, {os.cpu_count()} cores | " + ", ".join(
        f"{name} {version or 'not installed'}" for name, version in versions().items())


def print_targets(summary):
    rows = []
    if "mlp" in summary:
        ours = summary["mlp"]["paddle_fn jit"][0]
        if "jax jit" in summary["mlp"]:
            theirs = summary["mlp"]["jax jit"][0]
            rows.append(("MLP step <= JAX jit step", f"{fmt_time(ours).strip()} vs {fmt_time(theirs).strip()}",
                         ours <= theirs))
            ours = summary["mlp"]["paddle_fn jit, local-sync"][0]
            rows.append(("  same on the local-sync driver (info)",
                         f"{fmt_time(ours).strip()} vs {fmt_time(theirs).strip()}", ours <= theirs))
        else:
            rows.append(("MLP step <= JAX jit step", "JAX not installed", None))
        rows.append(("MLP losses agree across contenders", "", summary["mlp_losses_agree"]))
    if "matmul" in summary:
        times = summary["matmul"]["times"]
        ours, ref = times["paddle_fn jit(matmul)"][0], times["numpy (OpenBLAS)"][0]
        rows.append(("matmul 2048 >= 90% of numpy", f"{ref / ours * 100:.0f}% of numpy", ref / ours >= 0.9))
    if "overhead" in summary:
        ours = summary["overhead"]["paddle_fn jit, device-resident"][0]
        rows.append(("trivial call <= 20 us (device-resident)", fmt_time(ours).strip(), ours <= 20e-6))
        ours = summary["overhead"]["paddle_fn jit, device, local-sync"][0]
        rows.append(("  same on the local-sync driver (info)", fmt_time(ours).strip(), ours <= 20e-6))
    if "memory" in summary:
        memory = summary["memory"]
        rows.append(("no growth over 10,000 jitted calls", f"{memory['calls_rss_bytes'] / 2**20:+.2f} MiB, "
                     f"{memory['calls_objects']:+d} objects", memory["calls_objects"] <= 0 and
                     memory["calls_rss_bytes"] < 1 << 20))
        rows.append((f"executables kept by {memory['closures']} dead closures bounded",
                     f"{memory['kept']} kept", memory["kept"] <= KEEP_RECENT))
    for mlp, first in summary.get("first_call", {}).items():
        ours, theirs = first["cold"], first["jax_cold"]
        rows.append((f"cold first call {mlp} <= JAX's", f"{fmt_time(ours).strip()} vs "
                     f"{fmt_time(theirs).strip() if theirs else 'JAX not installed'}",
                     None if theirs is None else ours <= theirs))
        rows.append((f"warm-cache first call {mlp} < 0.1 s", fmt_time(first["warm"]).strip(), first["warm"] < 0.1))
    print("\n## Targets")
    for what, measured, met in rows:
        verdict = "n/a" if met is None else ("met" if met else "NOT MET")
        print(f"{what:42s} {measured:>28s}   {verdict}")


SECTIONS = {"mlp": bench_mlp, "first-call": bench_first_call, "overhead": bench_overhead, "matmul": bench_matmul,
            "vmap": bench_vmap_workloads, "memory": bench_memory}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few repetitions (a smoke run, noisy numbers)")
    ap.add_argument("--reps", type=int, help="interleaved repetitions per section (default 30; 3 with --quick)")
    ap.add_argument("--inner", type=int, help="MLP steps per contender per repetition (default 5; 2 with --quick)")
    ap.add_argument("--closures", type=int, help="distinct jit closures of the memory section, each compiled once "
                    "(~0.5 s each with an empty disk cache; default 300, 40 with --quick)")
    ap.add_argument("--only", nargs="+", choices=list(SECTIONS), help="run only these sections")
    ap.add_argument("--skip-torch-compile", action="store_true", help="leave torch.compile out (its compile is slow)")
    ap.add_argument("--eager", action="store_true", help="also time the un-jitted paddle_fn MLP step")
    ap.add_argument("--profile", action="store_true", help="cProfile the jitted MLP step and the trivial call")
    ap.add_argument("--json", metavar="PATH", help="also write the measurements to PATH (structure: see above)")
    args = ap.parse_args()
    args.reps = args.reps or (3 if args.quick else 30)
    args.inner = args.inner or (2 if args.quick else 5)
    args.closures = args.closures or (40 if args.quick else 300)
    if torch is not None:
        torch.set_num_threads(os.cpu_count() or 1)
    print("# " + machine_line())
    summary = {}
    for name in args.only or SECTIONS:
        SECTIONS[name](args, summary)
    print_targets(summary)
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"versions": versions(), **summary}, out, indent=1)


if __name__ == "__main__":
    main()
