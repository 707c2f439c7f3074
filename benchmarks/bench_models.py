"""Compiled training steps of six model classes, paddle_fn against JAX, torch and PaddlePaddle side by side.

    PYTHONPATH=/tmp/peers/lib/python3.11/site-packages .venv/bin/python benchmarks/bench_models.py [--quick]
        [--reps N] [--only CLASS ...] [--skip-torch-compile] [--skip-eager] [--cold-runs N] [--skip-cold]
        [--json PATH] [--out DIR]

The classes (`MODELS`; float32 unless said): conv, a ResNet-20-style net (21 convolutions, NCHW/OIHW, per-channel
biases, no batch norm) on 16 CIFAR-sized images; attention, one pre-layernorm transformer block; recurrence, an
LSTM over 64 steps through the framework's scan (a Python loop in torch and Paddle, which have none); chain,
layer_norm -> gelu -> tanh on [64, 4096]; hessian, the float64 Laplacian of a small tanh MLP over 1024 points and a
Hessian-vector product in its parameters; mlp, bench_jit's MLP 784-1024-512-10. A call of conv, attention,
recurrence and mlp is one SGD step (loss, gradients, update, parameters fed back); of chain, the value and the
gradients; each model is written once over a namespace of each framework's ops (`paddle_ops` serves paddle_fn and
PaddlePaddle alike). The contenders: paddle_fn jit (the row the targets are about), paddle_fn eager (the same step,
not jitted), JAX jit, torch eager, torch.compile and PaddlePaddle eager (dygraph), the peers measured where
importable (none of them is a dependency). All start from the same numpy-generated parameters and data; the first
three values of each (losses, or the hessian's outputs) are compared with JAX's (else torch's, else paddle_fn
eager's) and a disagreement is printed loudly, not fatal. Step times interleave the contenders in one loop,
rotating their order each repetition, each call waiting for its result (numpy of the loss); median and min.

Cold first call: paddle_fn jit, JAX jit and (without --quick) torch.compile each run in a fresh process (this
script, `--cold-child CLASS CONTENDER`, where the other peers cannot be imported) with empty caches
(PADDLE_FN_CACHE_DIR and TORCHINDUCTOR_CACHE_DIR empty folders; JAX keeps no disk cache unless told to): the time
from before the first call (trace, compile, run) to its loss in numpy, the framework's import timed apart.
paddle_fn's first calls run op by op while IREE compiles in the background (docs/jit.md); the cold run also
reports when its executable was ready. Warm-cache first call (paddle_fn jit and JAX jit): the same, with the disk
cache filled by one such process before (JAX's persistent compilation cache switched on for every program); target
under 0.1 s.

Targets, per class: paddle_fn jit's step <= 1.0x JAX jit's and <= 1.5x the best peer's (JAX jit, torch eager,
torch.compile, Paddle eager), its cold first call <= 1.5x JAX's. `--out DIR` writes summary.md (a header: date,
host CPU and whether it has AVX-512, versions, command; one row per class with the times, ratios and targets met
or NOT MET) and ratios.png (bench_summary's chart: paddle_fn's time over each peer's, torch as the faster of eager
and compiled; needs matplotlib, without it only the table). `--quick`: 3 repetitions, one cold run, no
torch.compile cold run: a smoke run whose numbers are noise.

`--json PATH` writes what was measured (seconds):
    {"versions": {"python", "numpy", "IREE", "jax", "torch", "paddlepaddle": version or null}, "host", "command",
     "classes": {class: {"workload": text, "step": {contender: [median, min]},
                         "cold": {contender: {"first call", "second call", "import", "runs"; paddle_fn jit
                                              also "compiled": from its first call until the background compile
                                              is done; paddle_fn jit and JAX jit also "warm first call": the
                                              first call with the disk cache filled}},
                         "values": {contender: [first 3 values: the loss; for chain and hessian the sum of the
                                                 outputs]}, "agree": bool, "failed": {contender: error}}}}
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from functools import partial
from types import SimpleNamespace

import numpy as np

# Which module each contender needs. A `--cold-child` process makes the other peers unimportable (bench_jit then
# sees them as not installed), so that only the framework it times is loaded, and times that framework's import.
FRAMEWORK = {"paddle_fn jit": "paddle_fn", "paddle_fn eager": "paddle_fn", "jax jit": "jax", "torch eager": "torch",
             "torch.compile": "torch", "paddlepaddle eager": "paddle"}
COLD_CHILD = sys.argv[1:2] == ["--cold-child"] and len(sys.argv) == 4
CHILD_IMPORT_SECONDS = None
if COLD_CHILD:
    for _peer in {"jax", "torch", "paddle"} - {FRAMEWORK[sys.argv[3]]}:
        sys.modules[_peer] = None  # `import _peer` raises ImportError
    _t0 = time.perf_counter()
    __import__(FRAMEWORK[sys.argv[3]])
    CHILD_IMPORT_SECONDS = time.perf_counter() - _t0

from bench_eager import functional_loss  # noqa: E402
from bench_jit import (LEARNING_RATE, as_numpy, fmt_time, interleaved, jax, mlp_data, not_installed,  # noqa: E402
                       paddlepaddle, pf, print_results, torch, versions)
from bench_summary import command_line, host_cpu, make_row, plot, ratio_target, source_commit  # noqa: E402
from paddle_fn.transforms.background_compile import wait_for_background_compiles  # noqa: E402

jnp = getattr(jax, "numpy", None)  # bench_jit imported jax.numpy where JAX is installed
PEERS = ("jax jit", "torch eager", "torch.compile", "paddlepaddle eager")
CONTENDERS = ("paddle_fn jit", "paddle_fn eager") + PEERS
COLD_CONTENDERS = ("paddle_fn jit", "jax jit", "torch.compile")
WARM_CONTENDERS = ("paddle_fn jit", "jax jit")
LN_EPS = 1e-5
STEP_TARGET_JAX, STEP_TARGET_BEST, COLD_TARGET_JAX, WARM_TARGET_SECONDS = 1.0, 1.5, 1.5, 0.1


# ------------------------------------------------------------------------------------------------ framework ops

def leaves(tree) -> list:
    """The leaves of a pytree of dicts (in sorted key order, as JAX and paddle_fn flatten them), lists and tuples."""
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def tree_apply(fn, tree):
    """`tree` with `fn` applied to each leaf (dicts, lists and tuples kept)."""
    if isinstance(tree, dict):
        return {key: tree_apply(fn, value) for key, value in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_apply(fn, item) for item in tree)
    return fn(tree)


def flat_numpy(tree) -> np.ndarray:
    """Every leaf of a result, whatever its framework, in numpy, one float64 vector (this waits for the result)."""
    return np.concatenate([np.asarray(as_numpy(leaf), np.float64).ravel() for leaf in leaves(tree)])


def loop_scan(step, carry, xs):
    """scan's final carry by a Python loop over the leading axis of xs (torch and Paddle have no scan)."""
    for t in range(xs.shape[0]):
        carry = step(carry, xs[t])[0]
    return carry


def paddle_ops(P) -> SimpleNamespace:
    """The ops the models use, from paddle_fn or PaddlePaddle (the same API); the transforms only in paddle_fn."""
    F = P.nn.functional
    transforms = {} if P is not pf else dict(value_and_grad=pf.value_and_grad, tree_map=pf.tree_map, vmap=pf.vmap,
                                             hessian=pf.hessian, jvp=pf.jvp, grad=pf.grad)
    return SimpleNamespace(**transforms,
        conv2d=lambda x, w, b, stride, pad: F.conv2d(x, w, b, stride=stride, padding=pad),
        layer_norm=lambda x, g, b: F.layer_norm(x, x.shape[-1], g, b, epsilon=LN_EPS),
        gelu=F.gelu, relu=F.relu, tanh=P.tanh, sigmoid=F.sigmoid, softmax=F.softmax, log_softmax=F.log_softmax,
        matmul=P.matmul, mean=P.mean, sum=P.sum, trace=P.trace, transpose=P.transpose, reshape=P.reshape,
        zeros=lambda shape: P.zeros(shape, "float32"),
        scan=(lambda f, init, xs: P.scan(f, init, xs)[0]) if P is pf else loop_scan)


def jax_ops() -> SimpleNamespace:
    """The same ops from JAX (layer_norm written out, as jax.nn has none), and its transforms."""
    def conv2d(x, w, b, stride, pad):
        y = jax.lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad)] * 2,
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    def layer_norm(x, g, b):
        centred = x - jnp.mean(x, -1, keepdims=True)
        return centred * jax.lax.rsqrt(jnp.mean(centred * centred, -1, keepdims=True) + LN_EPS) * g + b
    return SimpleNamespace(
        conv2d=conv2d, layer_norm=layer_norm, gelu=partial(jax.nn.gelu, approximate=False), relu=jax.nn.relu,
        tanh=jnp.tanh, sigmoid=jax.nn.sigmoid, softmax=jax.nn.softmax, log_softmax=jax.nn.log_softmax,
        matmul=jnp.matmul, mean=jnp.mean, sum=jnp.sum, trace=jnp.trace, transpose=jnp.transpose, reshape=jnp.reshape,
        zeros=lambda shape: jnp.zeros(shape, jnp.float32),  # jax_enable_x64 is on (bench_jit): say float32
        scan=lambda f, init, xs: jax.lax.scan(f, init, xs)[0],
        value_and_grad=jax.value_and_grad, tree_map=jax.tree_util.tree_map, vmap=jax.vmap, hessian=jax.hessian,
        jvp=jax.jvp, grad=jax.grad)


def torch_ops() -> SimpleNamespace:
    """The same ops from torch, the transforms from torch.func."""
    F = torch.nn.functional
    return SimpleNamespace(
        conv2d=F.conv2d, layer_norm=lambda x, g, b: F.layer_norm(x, (x.shape[-1],), g, b, LN_EPS), gelu=F.gelu,
        relu=torch.relu, tanh=torch.tanh, sigmoid=torch.sigmoid, softmax=lambda x: torch.softmax(x, -1),
        log_softmax=lambda x: torch.log_softmax(x, -1), matmul=torch.matmul, mean=torch.mean, sum=torch.sum,
        trace=torch.trace, transpose=torch.permute, reshape=torch.reshape, zeros=torch.zeros, scan=loop_scan,
        vmap=torch.func.vmap, hessian=torch.func.hessian, jvp=torch.func.jvp, grad=torch.func.grad)


# ------------------------------------------------------------------------------------------------ the models

def normal(rng, shape, scale, dtype=np.float32):
    return (rng.normal(size=shape) * scale).astype(dtype)


def cross_entropy(o, logits, y):
    """Softmax cross-entropy against one-hot labels y, the batch's mean."""
    return -o.mean(o.sum(y * o.log_softmax(logits), -1))


CONV_BATCH, CONV_CLASSES, CONV_STAGES, CONV_BLOCKS = 16, 10, ((32, 1), (64, 2), (128, 2)), 3


def conv_data(rng, batch=CONV_BATCH):
    """A 3x3 stem 3 -> 32, then CONV_BLOCKS BasicBlocks per stage (widths 32, 64, 128, strides 1, 2, 2), the first
    block of a strided stage with a 1x1 stride-2 shortcut conv: 1 + 18 + 2 = 21 convolutions; a linear head."""
    def conv(c_out, c_in, k, gain=1.0):
        return {"w": normal(rng, (c_out, c_in, k, k), gain * np.sqrt(2.0 / (c_in * k * k))),
                "b": normal(rng, (c_out,), 0.01)}
    params, c_in = {"stem": conv(32, 3, 3), "blocks": []}, 32
    for width, stride in CONV_STAGES:
        for i in range(CONV_BLOCKS):
            # no batch norm: the residual branch starts small (Fixup-like), so 9 blocks do not blow up the signal
            block = {"c1": conv(width, c_in, 3), "c2": conv(width, width, 3, gain=0.2)}
            if i == 0 and stride != 1:
                block["down"] = conv(width, c_in, 1)
            params["blocks"].append(block)
            c_in = width
    params["head"] = {"w": normal(rng, (c_in, CONV_CLASSES), 1 / np.sqrt(c_in)),
                      "b": np.zeros(CONV_CLASSES, np.float32)}
    x = normal(rng, (batch, 3, 32, 32), 1.0)
    y = np.eye(CONV_CLASSES, dtype=np.float32)[rng.integers(0, CONV_CLASSES, batch)]
    return params, (x, y)


def conv_loss(o, params, x, y):
    h = o.relu(o.conv2d(x, params["stem"]["w"], params["stem"]["b"], 1, 1))
    for block in params["blocks"]:
        stride = 2 if "down" in block else 1  # the structure of the pytree, static under every jit
        branch = o.relu(o.conv2d(h, block["c1"]["w"], block["c1"]["b"], stride, 1))
        branch = o.conv2d(branch, block["c2"]["w"], block["c2"]["b"], 1, 1)
        shortcut = o.conv2d(h, block["down"]["w"], block["down"]["b"], stride, 0) if "down" in block else h
        h = o.relu(branch + shortcut)
    return cross_entropy(o, o.matmul(o.mean(h, (2, 3)), params["head"]["w"]) + params["head"]["b"], y)


ATT_BATCH, ATT_SEQ, ATT_D, ATT_HEADS = 8, 128, 256, 4


def attention_data(rng, batch=ATT_BATCH, seq=ATT_SEQ, d=ATT_D):

    def dense(n_in, n_out):
        return normal(rng, (n_in, n_out), 1 / np.sqrt(n_in)), normal(rng, (n_out,), 0.01)
    params = {}
    for name, (n_in, n_out) in {"qkv": (d, 3 * d), "o": (d, d), "fc1": (d, 4 * d), "fc2": (4 * d, d)}.items():
        params[f"w_{name}"], params[f"b_{name}"] = dense(n_in, n_out)
    for ln in ("ln1", "ln2"):
        params[f"{ln}_g"], params[f"{ln}_b"] = 1 + normal(rng, (d,), 0.1), normal(rng, (d,), 0.1)
    shape = (batch, seq, d)
    return params, (normal(rng, shape, 1.0), normal(rng, shape, 1.0))


def attention_loss(o, p, x, target):
    """Pre-layernorm block: x + attention(ln1(x)), then + MLP(ln2(.)) with exact gelu; MSE to a target."""
    (b, s, d), heads = x.shape, ATT_HEADS
    qkv = o.matmul(o.layer_norm(x, p["ln1_g"], p["ln1_b"]), p["w_qkv"]) + p["b_qkv"]
    qkv = o.transpose(o.reshape(qkv, [b, s, 3, heads, d // heads]), [2, 0, 3, 1, 4])  # [3, b, heads, s, d/heads]
    scores = o.matmul(qkv[0], o.transpose(qkv[1], [0, 1, 3, 2])) * float((d // heads) ** -0.5)
    attended = o.reshape(o.transpose(o.matmul(o.softmax(scores), qkv[2]), [0, 2, 1, 3]), [b, s, d])
    x = x + o.matmul(attended, p["w_o"]) + p["b_o"]
    hidden = o.gelu(o.matmul(o.layer_norm(x, p["ln2_g"], p["ln2_b"]), p["w_fc1"]) + p["b_fc1"])
    x = x + o.matmul(hidden, p["w_fc2"]) + p["b_fc2"]
    return o.mean((x - target) ** 2)


LSTM_STEPS, LSTM_BATCH, LSTM_IN, LSTM_HIDDEN = 64, 16, 128, 256


def lstm_data(rng):
    h4 = 4 * LSTM_HIDDEN
    params = {"w_x": normal(rng, (LSTM_IN, h4), 1 / np.sqrt(LSTM_IN)),
              "w_h": normal(rng, (LSTM_HIDDEN, h4), 1 / np.sqrt(LSTM_HIDDEN)), "b": normal(rng, (h4,), 0.1)}
    xs = normal(rng, (LSTM_STEPS, LSTM_BATCH, LSTM_IN), 1.0)
    return params, (xs, normal(rng, (LSTM_BATCH, LSTM_HIDDEN), 0.5))


def lstm_loss(o, p, xs, target):
    """The input projection of all steps in one product, then the recurrence by scan; MSE of the last h."""
    n = LSTM_HIDDEN
    projected = o.matmul(xs, p["w_x"]) + p["b"]  # [steps, batch, 4 hidden]: gates i, f, g, o

    def cell(carry, z):
        h, c = carry
        z = z + o.matmul(h, p["w_h"])
        c = o.sigmoid(z[:, n:2 * n]) * c + o.sigmoid(z[:, :n]) * o.tanh(z[:, 2 * n:3 * n])
        return (o.sigmoid(z[:, 3 * n:]) * o.tanh(c), c), None
    zeros = o.zeros([LSTM_BATCH, n])
    h, _ = o.scan(cell, (zeros, zeros), projected)
    return o.mean((h - target) ** 2)


CHAIN_SHAPE = (64, 4096)


def chain_data(rng):
    n = CHAIN_SHAPE[-1]
    return {"x": normal(rng, CHAIN_SHAPE, 1.0), "g": 1 + normal(rng, (n,), 0.1), "b": normal(rng, (n,), 0.1)}, ()


def chain_loss(o, p):
    """sum(tanh(gelu(layer_norm(x, gamma, beta)))), differentiated in x, gamma and beta."""
    return o.sum(o.tanh(o.gelu(o.layer_norm(p["x"], p["g"], p["b"]))))


def mlp_class_data(rng):
    """bench_jit's MLP parameters and batch (its own seed, 0)."""
    params, x, y = mlp_data()
    return params, (x, y)


def mlp_loss(o, params, x, y):
    return functional_loss(o.matmul, o.relu, o.log_softmax)(params, x, y)


HESS_SIZES, HESS_POINTS = (3, 64, 64, 1), 1024


def hessian_data(rng):
    def layers():
        return [{"W": normal(rng, (m, n), 1 / np.sqrt(m), np.float64), "b": normal(rng, (n,), 0.1, np.float64)}
                for m, n in zip(HESS_SIZES[:-1], HESS_SIZES[1:])]
    params, direction = layers(), layers()
    return params, (rng.uniform(-1, 1, (HESS_POINTS, HESS_SIZES[0])), direction)


def tanh_mlp(o, params, x):
    for layer in params[:-1]:
        x = o.tanh(o.matmul(x, layer["W"]) + layer["b"])
    return o.matmul(x, params[-1]["W"]) + params[-1]["b"]


def hessian_eval(o):
    """(params, points, v) -> (Laplacian of u(x) at each point: trace of vmap(hessian), Hessian-vector product
    of mean(u^2) in the parameters with direction v: jvp of grad); paddle_fn, JAX and torch.func alike."""
    def u(params, x):
        return o.sum(tanh_mlp(o, params, x))

    def energy(params, points):
        return o.mean(tanh_mlp(o, params, points) ** 2)

    def evaluate(params, points, v):
        laplacian = o.vmap(lambda x: o.trace(o.hessian(u, 1)(params, x)))(points)
        return laplacian, o.jvp(lambda p: o.grad(energy)(p, points), (params,), (v,))[1]
    return evaluate


def paddle_hessian_eval(params, points, v):
    """The same with PaddlePaddle's double backward (dygraph has no vmap/jvp): one gradient in the points kept
    differentiable, then one more backward per input coordinate; the HVP as the gradient of <grad, v>."""
    o = paddle_ops(paddlepaddle)
    (du,) = paddlepaddle.grad(tanh_mlp(o, params, points).sum(), points, create_graph=True)
    laplacian = sum(paddlepaddle.grad(du[:, k].sum(), points, retain_graph=True)[0][:, k]
                    for k in range(HESS_SIZES[0]))
    grads = paddlepaddle.grad(o.mean(tanh_mlp(o, params, points) ** 2), leaves(params), create_graph=True)
    hvp = paddlepaddle.grad(sum((g * d).sum() for g, d in zip(grads, leaves(v))), leaves(params))
    return laplacian, hvp


MODELS = {
    "conv": SimpleNamespace(data=conv_data, loss=conv_loss, workload=(
        f"ResNet-20-style: 3x3 stem 3->32, {CONV_BLOCKS} BasicBlocks per stage (32, 64, 128; strides 1, 2, 2; "
        "1x1 stride-2 shortcuts): 21 convs with per-channel biases, no batch norm, ReLU, global average pool, "
        f"linear head, softmax cross-entropy; batch {CONV_BATCH}, 3x32x32 NCHW, OIHW weights; one SGD step")),
    "attention": SimpleNamespace(data=attention_data, loss=attention_loss, workload=(
        f"transformer block: pre-layernorm, {ATT_HEADS}-head self-attention, MLP {ATT_D}-{4 * ATT_D}-{ATT_D} "
        f"with exact gelu, residuals; batch {ATT_BATCH}, seq {ATT_SEQ}, d {ATT_D}; MSE to a target; one SGD step")),
    "recurrence": SimpleNamespace(data=lstm_data, loss=lstm_loss, workload=(
        f"LSTM via scan (torch, Paddle: Python loop), {LSTM_STEPS} steps, batch {LSTM_BATCH}, input {LSTM_IN}, "
        f"hidden {LSTM_HIDDEN}; MSE of the last hidden state; one SGD step")),
    "chain": SimpleNamespace(data=chain_data, loss=chain_loss, update=False, workload=(
        f"layer_norm -> gelu -> tanh on {CHAIN_SHAPE[0]}x{CHAIN_SHAPE[1]} float32, sum: its value and gradients "
        "in x, gamma and beta (no update)")),
    "hessian": SimpleNamespace(data=hessian_data, loss=None, workload=(
        f"float64 tanh MLP {'-'.join(map(str, HESS_SIZES))}: Laplacian (trace of vmap(hessian) in x) at "
        f"{HESS_POINTS} points, plus the HVP of mean(u^2) in the parameters (jvp of grad); no update")),
    "mlp": SimpleNamespace(data=mlp_class_data, loss=mlp_loss, workload=(
        "MLP 784-1024-512-10, ReLU, batch 128, softmax cross-entropy; one SGD step (bench_jit's)")),
}


# ------------------------------------------------------------------------------------------------ contenders

def grad_step(loss, o, update):
    """The functional step of paddle_fn and JAX: (params, *data) -> (params - lr * gradients, loss) with `update`,
    else -> (loss, gradients)."""
    def step(params, *data):
        value, grads = o.value_and_grad(loss)(params, *data)
        if not update:
            return value, grads
        return o.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads), value
    return step


def wait(out):
    """Block until a result is there: read its first value (the loss; the hessian's first Laplacian) on the host."""
    return float(np.asarray(as_numpy(leaves(out)[0])).ravel()[0])


class Functional:
    """A contender calling fn(params, *data): a training step, whose (new params, loss) it feeds back when
    `update`, or a function of fixed params (forward + gradients, the hessian's evaluation). `step()` returns the
    result once it is ready (`sync`: JAX waits for the whole result; the others read the loss)."""

    def __init__(self, fn, params, data, put, update, sync=wait):
        self.fn, self.update, self.sync = fn, update, sync
        self.params, self.data = put(params), [put(d) for d in data]

    def step(self):
        out = self.fn(self.params, *self.data)
        if self.update:
            self.params, out = out
            self.sync((self.params, out))
        else:
            self.sync(out)
        return out


class TorchTrainer:
    """torch's step on `device`: the loss, backward and (with `update`) one fused in-place SGD update, returning the loss, else
    (loss, gradients); torch.compile compiles it whole."""

    def __init__(self, loss, params, data, update, compiled, device="cpu"):
        self.loss = loss
        self.params = tree_apply(lambda a: torch.tensor(a, requires_grad=True, device=device), params)
        self.leaves, self.data = leaves(self.params), [torch.from_numpy(d.copy()).to(device) for d in data]
        self.update, self.fn = update, torch.compile(self._step) if compiled else self._step

    def _step(self, *data):
        value = self.loss(self.params, *data)
        value.backward()
        grads = [p.grad for p in self.leaves]
        if self.update:
            with torch.no_grad():
                torch._foreach_add_(self.leaves, grads, alpha=-LEARNING_RATE)
        for p in self.leaves:
            p.grad = None
        return value.detach() if self.update else (value.detach(), grads)

    def step(self):
        out = self.fn(*self.data)
        wait(out)
        return out


class PaddleTrainer:
    """PaddlePaddle's dygraph step: the loss, backward, optimizer.SGD's step (with `update`), clear_grad. Returns
    the result in numpy, as the gradients are cleared (an all-numpy result is ready)."""

    def __init__(self, loss, params, data, update):
        self.loss, self.params = loss, tree_apply(lambda a: paddlepaddle.to_tensor(a, stop_gradient=False), params)
        self.leaves, self.data = leaves(self.params), [paddlepaddle.to_tensor(d) for d in data]
        self.optimizer = paddlepaddle.optimizer.SGD(learning_rate=LEARNING_RATE, parameters=self.leaves)
        self.update = update

    def step(self):
        value = self.loss(self.params, *self.data)
        value.backward()
        if self.update:
            self.optimizer.step()
        out = wait(value) if self.update else flat_numpy((value, [p.grad for p in self.leaves]))
        self.optimizer.clear_grad()
        return out


def class_function(model, o):
    """What a class's functional contenders (paddle_fn, JAX) call with (params, *data) in framework `o`: the
    training step of its loss, else the hessian's evaluation."""
    return grad_step(partial(model.loss, o), o, getattr(model, "update", True)) if model.loss else hessian_eval(o)


def feeds_back(model) -> bool:
    """Whether a call of the class's function returns new parameters to feed back (`Functional`'s `update`)."""
    return bool(model.loss) and getattr(model, "update", True)


def makers(model, params, data, args) -> tuple[dict, dict]:
    """({contender: a function making it}, {contender: why it is not measured}) for one class."""
    update, trains = getattr(model, "update", True), feeds_back(model)
    functional = partial(class_function, model)
    fn = functional(paddle_ops(pf))
    made, skipped = {"paddle_fn jit": lambda: Functional(pf.jit(fn), params, data, pf.device_put, trains)}, {}
    if not args.skip_eager:
        made["paddle_fn eager"] = lambda: Functional(fn, params, data, partial(pf.tree_map, pf.to_tensor), trains)
    if jax is not None:
        made["jax jit"] = lambda: Functional(jax.jit(functional(jax_ops())), params, data, jax.device_put, trains,
                                             sync=jax.block_until_ready)
    if torch is not None:
        def torch_maker(compiled):
            if model.loss:
                return lambda: TorchTrainer(partial(model.loss, torch_ops()), params, data, update, compiled)
            evaluate = hessian_eval(torch_ops())
            return lambda: Functional(torch.compile(evaluate) if compiled else evaluate, params, data,
                                      partial(tree_apply, torch.from_numpy), False)
        made["torch eager"] = torch_maker(False)
        if not args.skip_torch_compile:
            made["torch.compile"] = torch_maker(True)
    if paddlepaddle is not None:
        if model.loss:
            made["paddlepaddle eager"] = lambda: PaddleTrainer(partial(model.loss, paddle_ops(paddlepaddle)),
                                                               params, data, update)
        else:
            made["paddlepaddle eager"] = lambda: Functional(paddle_hessian_eval, params, data, partial(
                tree_apply, lambda a: paddlepaddle.to_tensor(a, stop_gradient=False)), False)
    for name in CONTENDERS:
        if name == "paddle_fn eager" and args.skip_eager:
            skipped[name] = "skipped (--skip-eager)"
        elif name == "torch.compile" and torch is not None and args.skip_torch_compile:
            skipped[name] = "skipped (--skip-torch-compile)"
        elif name not in made:
            skipped[name] = "not installed"
    return made, skipped


# ------------------------------------------------------------------------------------------------ measuring

def check_values(name: str, made: dict, dtype) -> dict:
    """Make every contender, run 3 steps, compare; returns the class's results so far (runners, values, failed)."""
    runners, values, failed, setup = {}, {}, {}, {}
    for contender, make in made.items():
        try:
            t0 = time.perf_counter()
            runner = make()
            values[contender] = [flat_numpy(runner.step())]
            setup[contender] = time.perf_counter() - t0
            values[contender] += [flat_numpy(runner.step()) for _ in range(2)]
            runners[contender] = runner
        except Exception as error:  # an optional contender (or paddle_fn itself) failing is reported, not fatal
            failed[contender] = f"{type(error).__name__}: {str(error).strip().splitlines()[0][:150]}"
            print(f"!!! {name}: {contender} FAILED: {failed[contender]}")
    reference = next((c for c in ("jax jit", "torch eager", "paddle_fn eager", "paddle_fn jit") if c in values), None)
    if reference is None:
        return {"runners": runners, "values": {}, "agree": False, "failed": failed}
    rtol = 1e-9 if dtype == np.float64 else 1e-4
    agree = True
    print(f"values of the first 3 calls (compared with {reference}: max |difference| / max |value|, at most "
          f"{rtol:g}):")
    for contender, got in values.items():
        ref = np.array(values[reference])
        err = float(np.max(np.abs(np.array(got) - ref)) / np.max(np.abs(ref)))
        same = err <= rtol
        agree &= same
        shown = " ".join(f"{v[0]:.6f}" for v in got) + ("" if got[0].size == 1 else f" ... ({got[0].size} values)")
        print(f"  {contender:22s} {shown:42s} {'same' if same else 'DIFFERENT !!!':14s} max rel err {err:.1e}"
              f"   (first call, setup included {setup[contender]:.2f} s)")
    if not agree:
        print(f"!!! {name}: THE CONTENDERS' VALUES DISAGREE (see above) !!!")
    return {"runners": runners, "values": {c: [float(v[0] if v.size == 1 else v.sum()) for v in vs]
                                           for c, vs in values.items()}, "agree": agree, "failed": failed}


def cold_first_call(name: str, contender: str, root: str) -> dict:
    """One fresh process of this script timing `contender`'s first call of class `name`, every cache empty."""
    return _child_first_call(name, contender, tempfile.mkdtemp(dir=root), disk_caches=False)


def warm_first_calls(name: str, contender: str, root: str, runs: int) -> list[dict]:
    """`runs` fresh processes timing `contender`'s first call of class `name` with its disk cache filled by one
    process before them (JAX's persistent compilation cache switched on for every program, paddle_fn's is on)."""
    cache = tempfile.mkdtemp(dir=root)
    _child_first_call(name, contender, cache, disk_caches=True)
    return [_child_first_call(name, contender, cache, disk_caches=True) for _ in range(runs)]


def _child_first_call(name: str, contender: str, cache: str, disk_caches: bool) -> dict:
    env = dict(os.environ, PADDLE_FN_CACHE_DIR=os.path.join(cache, "paddle_fn"),
               TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"))
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    if disk_caches:
        env.update(JAX_COMPILATION_CACHE_DIR=os.path.join(cache, "jax"), JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
                   JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold-child", name, contender], env=env,
                          capture_output=True, text=True, timeout=1800)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return json.loads(lines[-1])


def cold_child(name: str, contender: str):
    """In the fresh process: make the contender (data to the device), then time its first and second call."""
    params, data = MODELS[name].data(np.random.default_rng(0))
    made, _ = makers(MODELS[name], params, data, argparse.Namespace(skip_eager=True, skip_torch_compile=False))
    runner = made[contender]()
    times = {"import": CHILD_IMPORT_SECONDS}
    started = time.perf_counter()
    for call in ("first call", "second call"):
        t0 = time.perf_counter()
        runner.step()
        times[call] = time.perf_counter() - t0
    if contender == "paddle_fn jit":  # its first calls ran op by op while IREE compiled in the background
        wait_for_background_compiles()
        times["compiled"] = time.perf_counter() - started
    print(json.dumps(times))


def bench_class(name: str, args) -> dict:
    model = MODELS[name]
    params, data = model.data(np.random.default_rng(0))
    made, skipped = makers(model, params, data, args)
    print(f"\n## {name}: {model.workload}")
    result = check_values(name, made, leaves(params)[0].dtype)
    runners = result.pop("runners")
    wait_for_background_compiles()  # paddle_fn jit's first calls ran op by op: time the executable, as JAX's
    steps = interleaved({c: r.step for c, r in runners.items()}, args.reps, warmup=1)
    print_results(f"{name} step time ({args.reps} interleaved repetitions)", steps, reference="paddle_fn jit")
    print("  (last column: paddle_fn jit's time over that contender's; below 1, paddle_fn jit is faster)")
    for contender, why in {**skipped, **result["failed"]}.items():
        not_installed(contender, why)
    del runners
    cold = {}
    wanted = [c for c in COLD_CONTENDERS if c in steps and not (args.quick and c == "torch.compile")]
    if not args.skip_cold and wanted:
        print(f"cold first call, fresh process, empty caches ({args.cold_runs} run(s) each; median); warm-cache: "
              "the same with the disk cache filled by one process before")
        with tempfile.TemporaryDirectory(prefix="bench_models_cold_") as root:
            for contender in wanted:
                try:
                    runs = [cold_first_call(name, contender, root) for _ in range(args.cold_runs)]
                except (RuntimeError, subprocess.TimeoutExpired) as error:
                    print(f"!!! {name}: cold first call of {contender} FAILED: {error}")
                    continue
                cold[contender] = {key: float(np.median([r[key] for r in runs])) for key in runs[0]}
                cold[contender]["runs"] = len(runs)
                if contender in WARM_CONTENDERS:
                    try:
                        warm = warm_first_calls(name, contender, root, args.cold_runs)
                        cold[contender]["warm first call"] = float(np.median([r["first call"] for r in warm]))
                    except (RuntimeError, subprocess.TimeoutExpired) as error:
                        print(f"!!! {name}: warm-cache first call of {contender} FAILED: {error}")
                compiled, warm_first = cold[contender].get("compiled"), cold[contender].get("warm first call")
                print(f"  {contender:22s} first call {fmt_time(cold[contender]['first call'])}   second call "
                      f"{fmt_time(cold[contender]['second call'])}   import {fmt_time(cold[contender]['import'])}"
                      + ("" if compiled is None else f"   executable ready after {fmt_time(compiled)}")
                      + ("" if warm_first is None else f"   warm-cache first call {fmt_time(warm_first)}"))
    return {"workload": model.workload, "step": steps, "cold": cold, **result}


# ------------------------------------------------------------------------------------------------ the table

def verdicts(entry: dict) -> dict:
    """The ratios and targets of one class: {key: value or None}."""
    step = {c: t[0] for c, t in entry["step"].items()}
    ours, jax_step = step.get("paddle_fn jit"), step.get("jax jit")
    best = min((c for c in PEERS if c in step), key=step.get, default=None)
    cold = {c: v["first call"] for c, v in entry["cold"].items()}

    def ratio(a, b):
        return a / b if a is not None and b is not None else None
    warm = entry["cold"].get("paddle_fn jit", {}).get("warm first call")
    out = {"vs_jax": ratio(ours, jax_step), "best": best, "vs_best": ratio(ours, step.get(best)),
           "cold_vs_jax": ratio(cold.get("paddle_fn jit"), cold.get("jax jit")),
           "warm_met": None if warm is None else warm <= WARM_TARGET_SECONDS}
    for key, target in (("vs_jax", STEP_TARGET_JAX), ("vs_best", STEP_TARGET_BEST), ("cold_vs_jax", COLD_TARGET_JAX)):
        out[f"{key}_met"] = None if out[key] is None else out[key] <= target
    return out


def markdown(summary: dict, header: list[str]) -> str:
    """The dated table: `header` lines, one row per class, the notes and the workloads."""
    def seconds(value):
        return fmt_time(value).strip() if value is not None else "—"

    def ratio(value):
        return f"{value:.2f}" if value is not None else "—"

    def met(flag):
        return "n/a" if flag is None else ("met" if flag else "**NOT MET**")
    columns = (["class", "paddle_fn jit", "paddle_fn eager", "JAX jit", "torch eager", "torch.compile", "Paddle eager",
                "/ JAX", "/ best peer", f"step <= {STEP_TARGET_JAX}x JAX", f"step <= {STEP_TARGET_BEST}x best peer",
                "cold paddle_fn", "cold JAX", "cold / JAX", f"cold <= {COLD_TARGET_JAX}x JAX", "warm-cache paddle_fn",
                "warm-cache JAX", f"warm-cache <= {WARM_TARGET_SECONDS:g} s", "values agree"])
    lines = header + ["", "| " + " | ".join(columns) + " |",
                      "|---|" + "---:|" * 8 + "---|---|" + "---:|" * 3 + "---|" + "---:|" * 2 + "---|---|"]
    for name, entry in summary.items():
        v = verdicts(entry)
        cold = {c: d["first call"] for c, d in entry["cold"].items()}
        cells = ([name] + [seconds(entry["step"].get(c, (None,))[0]) for c in CONTENDERS] +
                 [ratio(v["vs_jax"]), ratio(v["vs_best"]) + (f" ({v['best']})" if v["best"] else ""),
                  met(v["vs_jax_met"]), met(v["vs_best_met"]), seconds(cold.get("paddle_fn jit")),
                  seconds(cold.get("jax jit")), ratio(v["cold_vs_jax"]), met(v["cold_vs_jax_met"]),
                  seconds(entry["cold"].get("paddle_fn jit", {}).get("warm first call")),
                  seconds(entry["cold"].get("jax jit", {}).get("warm first call")), met(v["warm_met"]),
                  "yes" if entry["agree"] else "**NO**"])
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Step times are medians per call; ratios are paddle_fn jit's time over the peer's (below 1: "
              "paddle_fn faster); the best peer is the fastest of JAX jit, torch eager, torch.compile and Paddle "
              "eager. Cold: the first call (trace, compile, run) in a fresh process with empty caches, median. "
              "Warm-cache: the same with the disk cache filled by a process before (JAX's persistent cache on).", "",
              "Workloads:"] + [f"- {name}: {entry['workload']}" for name, entry in summary.items()]
    return "\n".join(lines) + "\n"


def chart_rows(summary: dict) -> list[dict]:
    """bench_summary's rows for its chart: a step row and a cold row per class (torch: the faster of eager and
    torch.compile)."""
    rows = []
    for name, entry in summary.items():
        step = {c: t[0] for c, t in entry["step"].items()}
        torch_times = [step[c] for c in ("torch eager", "torch.compile") if c in step]
        rows.append(make_row(f"{name} step", {"paddle_fn": step.get("paddle_fn jit"), "JAX": step.get("jax jit"),
                                              "torch": min(torch_times, default=None),
                                              "Paddle": step.get("paddlepaddle eager")},
                             ratio_target(f"<= {STEP_TARGET_JAX}x JAX", "JAX", STEP_TARGET_JAX)))
        cold = {c: d["first call"] for c, d in entry["cold"].items()}
        rows.append(make_row(f"{name} cold first call",
                             {"paddle_fn": cold.get("paddle_fn jit"), "JAX": cold.get("jax jit"),
                              "torch": cold.get("torch.compile")},
                             ratio_target(f"<= {COLD_TARGET_JAX}x JAX", "JAX", COLD_TARGET_JAX)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 repetitions, one cold run each (a smoke run)")
    ap.add_argument("--reps", type=int, help="interleaved repetitions per class (default 15; 3 with --quick)")
    ap.add_argument("--only", nargs="+", choices=list(MODELS), metavar="CLASS",
                    help=f"run only these classes ({', '.join(MODELS)})")
    ap.add_argument("--skip-torch-compile", action="store_true", help="leave torch.compile out (its compile is slow)")
    ap.add_argument("--skip-eager", action="store_true", help="leave the un-jitted paddle_fn step out")
    ap.add_argument("--cold-runs", type=int, help="fresh processes per cold contender (default 3; 1 with --quick)")
    ap.add_argument("--skip-cold", action="store_true", help="do not time the cold first calls")
    ap.add_argument("--json", metavar="PATH", help="also write the measurements to PATH (structure: see above)")
    ap.add_argument("--out", metavar="DIR", help="write summary.md and ratios.png there")
    ap.add_argument("--cold-child", nargs=2, metavar=("CLASS", "CONTENDER"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cold_child:
        return cold_child(*args.cold_child)
    args.reps = args.reps or (3 if args.quick else 15)
    args.cold_runs = args.cold_runs or (1 if args.quick else 3)
    if torch is not None:
        torch.set_num_threads(os.cpu_count() or 1)
    started, load = time.time(), os.getloadavg()[0]
    date = time.strftime("%Y-%m-%d", time.localtime(started))
    print(f"# {date} | {host_cpu()} | " + ", ".join(f"{k} {v or 'not installed'}" for k, v in versions().items()))
    summary = {name: bench_class(name, args) for name in args.only or MODELS}
    header = [f"## paddle_fn model classes against JAX, torch and PaddlePaddle, {date}", "",
              f"- host: {host_cpu()}; load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
              f"{(time.time() - started) / 60:.1f} min",
              "- versions: " + ", ".join(f"{k} {v or 'not installed'}" for k, v in
                                         {"paddle_fn": source_commit(), **versions()}.items()),
              f"- command: `{command_line()}`"]
    table = markdown(summary, header)
    print("\n" + table)
    title = f"{header[0][3:]} ({host_cpu()})"
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.md").write_text(table)
        written = ["summary.md"] + (["ratios.png"] if plot(chart_rows(summary), str(out / "ratios.png"), title) else [])
        print("wrote " + ", ".join(str(out / name) for name in written))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"versions": versions(), "host": host_cpu(), "command": command_line(), "classes": summary}, indent=1))


if __name__ == "__main__":
    main()
