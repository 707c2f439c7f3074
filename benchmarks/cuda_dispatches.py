"""The dispatches IREE makes of a ResNet block's and a transformer block's training steps for CUDA, cross-compiled
here without a GPU (`Lowered.dispatches`, compiled up to IREE's choice of code-generation pipelines).

    .venv/bin/python benchmarks/cuda_dispatches.py [--target cuda] [--list] [--only block|transformer]

The workloads (float32, one SGD step: loss, gradients, update): "block", a ResNet BasicBlock (two 3x3 convolutions
without bias, each followed by batch norm with batch statistics, ReLU, the identity shortcut; NCHW, batch 64, 64
channels, 32x32), the new running statistics returned too; "transformer", a pre-layernorm transformer block (batch
16, sequence 512, width 512, 8 heads of 64, softmax(QK^T/8)V written out, an MLP 512-2048-512 with exact GELU) with a
mean-square loss. Each is shown as paddle_fn compiles it (matmul precision float32), with
`matmul_precision="bf16x3"` (its products in bfloat16, which IREE runs on tensor cores), and the block also with
IREE's `--iree-global-opt-use-im2col-for-convs` (convolutions as an im2col gather and a matrix product).

For each: the number of dispatches and of executables, the dispatches by kind (IREE's root operation: conv,
matmul for every product, reduction, elementwise, transpose, other), and with `--list` every dispatch with its
pipeline. Which convolution is which is read off the loop order in the name: forward conv_N x H x W x O x I x 3 x 3,
input gradient conv_N x H x W x I x 3 x 3 x O, weight gradient conv_O x 3 x 3 x I x N x H x W (or its transpose).
The numbers and what they mean: docs/architecture.md, "CUDA: dispatches of a ResNet block and a transformer block".
"""
from __future__ import annotations

import argparse
import re
from collections import Counter

import numpy as np

import paddle_fn as paddle
import paddle_fn.nn.functional as F

BLOCK_BATCH, BLOCK_CHANNELS, BLOCK_SIZE = 64, 64, 32
SEQ_BATCH, SEQ_LENGTH, WIDTH, HEADS = 16, 512, 512, 8
PRODUCTS = ("matmul", "batch_matmul", "matmul_like", "matvec", "matvec_like", "vecmat", "contract")


def normal(rng, *shape, scale=1.0):
    return paddle.to_tensor((rng.normal(size=shape) * scale).astype(np.float32))


def conv_bn(h, w, gamma, beta, stats):
    return F.batch_norm_with_stats(F.conv2d(h, w, padding=1), *stats, gamma, beta, training=True)


def block_loss(params, stats, x):
    """(mean square of a BasicBlock's output, the new running statistics of its two batch norms)."""
    h, *stats1 = conv_bn(x, params["w1"], params["g1"], params["b1"], stats[0])
    h, *stats2 = conv_bn(F.relu(h), params["w2"], params["g2"], params["b2"], stats[1])
    out = F.relu(h + x)
    return paddle.mean(out * out), [stats1, stats2]


def block_step(params, stats, x):
    (loss, stats), grads = paddle.value_and_grad(block_loss, has_aux=True)(params, stats, x)
    return {name: params[name] - 0.1 * grads[name] for name in params}, stats, loss


def block_args(rng):
    c = BLOCK_CHANNELS
    params = {"w1": normal(rng, c, c, 3, 3, scale=0.05), "w2": normal(rng, c, c, 3, 3, scale=0.05),
              "g1": paddle.ones([c]), "b1": paddle.zeros([c]), "g2": paddle.ones([c]), "b2": paddle.zeros([c])}
    stats = [(paddle.zeros([c]), paddle.ones([c])) for _ in range(2)]
    return params, stats, normal(rng, BLOCK_BATCH, c, BLOCK_SIZE, BLOCK_SIZE)


def transformer_loss(params, x):
    batch, length, width = x.shape
    head = width // HEADS
    qkv = paddle.matmul(F.layer_norm(x, width, params["g1"], params["b1"]), params["w_qkv"])
    qkv = qkv.reshape([batch, length, 3, HEADS, head]).transpose([2, 0, 3, 1, 4])
    scores = paddle.matmul(qkv[0], qkv[1], transpose_y=True) * head ** -0.5
    attended = paddle.matmul(F.softmax(scores, axis=-1), qkv[2]).transpose([0, 2, 1, 3]).reshape([batch, length, width])
    x = x + paddle.matmul(attended, params["w_o"])
    hidden = F.gelu(paddle.matmul(F.layer_norm(x, width, params["g2"], params["b2"]), params["w_up"]))
    x = x + paddle.matmul(hidden, params["w_down"])
    return paddle.mean(x * x)


def transformer_step(params, x):
    loss, grads = paddle.value_and_grad(transformer_loss)(params, x)
    return {name: params[name] - 0.1 * grads[name] for name in params}, loss


def transformer_args(rng):
    d = WIDTH
    params = {"w_qkv": normal(rng, d, 3 * d, scale=d ** -0.5), "w_o": normal(rng, d, d, scale=d ** -0.5),
              "w_up": normal(rng, d, 4 * d, scale=d ** -0.5), "w_down": normal(rng, 4 * d, d, scale=(4 * d) ** -0.5),
              "g1": paddle.ones([d]), "b1": paddle.zeros([d]), "g2": paddle.ones([d]), "b2": paddle.zeros([d])}
    return params, normal(rng, SEQ_BATCH, SEQ_LENGTH, d)


# (workload, variant): (step, argument maker, matmul precision, extra IREE flags)
RUNS = {
    ("block", "float32"): (block_step, block_args, "float32", ()),
    ("block", "bf16x3"): (block_step, block_args, "bf16x3", ()),
    ("block", "im2col flag"): (block_step, block_args, "float32", ("--iree-global-opt-use-im2col-for-convs",)),
    ("transformer", "float32"): (transformer_step, transformer_args, "float32", ()),
    ("transformer", "bf16x3"): (transformer_step, transformer_args, "bf16x3", ()),
}
KINDS = ("conv", "matmul", "reduction", "elementwise", "transpose", "other")


def kind(name: str) -> str:
    """The kind of a dispatch, from IREE's name for it: its root operation with the ordinal, shapes and types cut."""
    root = re.sub(r"^main_dispatch_\d+_|_[\dx]+_[a-z\dx]+$", "", name)
    if root.startswith("_encoding"):
        return "other"
    if root in PRODUCTS:
        return "matmul"
    return next((k for k in KINDS if root.startswith(k)), "other")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="cuda")
    parser.add_argument("--list", action="store_true", help="every dispatch with its pipeline")
    parser.add_argument("--only", choices=("block", "transformer"))
    args = parser.parse_args()
    print(f"| workload | variant | dispatches | executables | {' | '.join(KINDS)} |")
    print("|---|---|---:|---:|" + "---:|" * len(KINDS))
    listings = []
    for (workload, variant), (step, make_args, precision, flags) in RUNS.items():
        if args.only not in (None, workload):
            continue
        lowered = paddle.jit(step, matmul_precision=precision).lower(*make_args(np.random.default_rng(0)))
        found = lowered.dispatches(args.target, flags)
        counts = Counter(kind(name) for name in found.names)
        print(f"| {workload} | {variant} | {len(found)} | {found.executables} | "
              + " | ".join(str(counts[k]) for k in KINDS) + " |")
        listings.append(f"{workload}, {variant}: {found}")
    if args.list:
        print("\n" + "\n\n".join(listings))


if __name__ == "__main__":
    main()
