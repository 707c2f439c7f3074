"""Compiled convolutions on the CPU: each convolution of a ResNet-style training step, lowered by the primitive's
generic rule and by the llvm-cpu override (lowering/llvm_cpu_conv.py), timed side by side.

    .venv/bin/python benchmarks/bench_conv.py [--reps N] [--only REGEX] [--cpu x86-64-v3] [--json PATH]

For each layer (batch 16; the shapes of the convolution probe: a 3->32 stem, 3x3 32->32, 3x3 32->64 stride 2,
3x3 64->64, a 1x1 32->64 stride-2 shortcut, a 3x3 depthwise over 64 channels) and each of its three convolutions
(fwd: y = conv(x, w); igrad: dx from (dy, w); wgrad: dw from (x, dy), as reverse mode produces them), the same
traced program is lowered twice and compiled with paddle_fn's flags: "generic" is every primitive's own rule (what
any other target gets), "cpu" applies the llvm-cpu overrides. Both run on the default CPU device with the inputs
already on it; contenders are interleaved and the median and min of `--reps` calls are printed with the GFLOP/s of
the useful work (2 * N * Ho * Wo * K * C/groups * k^2) and the form the override chose. The outputs of the two
lowerings are checked to agree (rtol 1e-4). `--json PATH` writes {"machine": str, "rows": [{"layer", "op", "form",
"generic": [median, min], "cpu": [median, min], "gflop"}]} (seconds).

This is the evidence row of the conv_general_dilated override in lowering/targets.py: when IREE changes, run it
again, and drop or change the override where "generic" has caught up.
"""
from __future__ import annotations

import argparse
import json
import re

import numpy as np

import paddle_fn as pf
import paddle_fn.nn.functional as F
from paddle_fn import runtime
from paddle_fn.lowering import llvm_cpu_conv, lower_program
from paddle_fn.lowering.simplify import simplify
from paddle_fn.prims.conv import conv_general_dilated_p

from bench_jit import fmt_time, interleaved, machine_line

# name: (in channels, out channels, image size, kernel, stride, padding, groups)
LAYERS = {
    "conv1_3to32": (3, 32, 32, 3, 1, 1, 1),
    "c32_3x3": (32, 32, 32, 3, 1, 1, 1),
    "c32to64_3x3s2": (32, 64, 32, 3, 2, 1, 1),
    "c64_3x3": (64, 64, 16, 3, 1, 1, 1),
    "ds_1x1s2": (32, 64, 32, 1, 2, 0, 1),
    "dw64_3x3": (64, 64, 32, 3, 1, 1, 64),
}
BATCH = 16


def layer_functions(cin, cout, size, k, stride, pad, groups):
    """{op: (function, argument arrays)} for the layer's forward, input-gradient and weight-gradient
    convolutions."""
    rng = np.random.default_rng(0)
    x = rng.uniform(size=(BATCH, cin, size, size)).astype(np.float32)
    w = rng.uniform(size=(cout, cin // groups, k, k)).astype(np.float32)
    out = (size + 2 * pad - k) // stride + 1
    dy = rng.uniform(size=(BATCH, cout, out, out)).astype(np.float32)

    def fwd(x, w):
        return F.conv2d(x, w, stride=stride, padding=pad, groups=groups)

    def igrad(dy, w):
        return pf.vjp(lambda x: fwd(x, w), pf.zeros([BATCH, cin, size, size]))[1](dy)[0]

    def wgrad(x, dy):
        return pf.vjp(lambda w: fwd(x, w), pf.zeros(list(w.shape)))[1](dy)[0]

    return {"fwd": (fwd, (x, w)), "igrad": (igrad, (dy, w)), "wgrad": (wgrad, (x, dy))}


def chosen_form(program) -> str:
    conv = next(e for e in program.eqns if e.prim is conv_general_dilated_p)
    reversed_filter = llvm_cpu_conv.made_by_rev(conv.inputs[1], llvm_cpu_conv.program_producer(program))
    found = llvm_cpu_conv.rewrite(conv.inputs[0].aval, conv.inputs[1].aval, conv.outputs[0].aval, conv.params,
                                  filter_reversed=reversed_filter)
    return "generic" if found is None else found[0]


def useful_gflop(cin, cout, size, k, stride, pad, groups) -> float:
    out = (size + 2 * pad - k) // stride + 1
    return 2 * BATCH * out * out * cout * (cin // groups) * k * k / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--only", default="", help="regex on 'layer/op'")
    parser.add_argument("--json", default=None)
    parser.add_argument("--cpu", default=None, help="compile for this CPU instead of the host (x86-64-v3: AVX2 "
                        "code, to check a form on an AVX2 host from an AVX-512 one)")
    args = parser.parse_args()
    flags = () if args.cpu is None else (f"--iree-llvmcpu-target-cpu={args.cpu}",)
    device = runtime.default_device()
    print(machine_line() + ("" if args.cpu is None else f" | code for {args.cpu}"))
    print(f"\n{'layer':14s} {'op':6s} {'form':20s} {'generic':>12s} {'cpu':>12s} {'speed-up':>9s} {'GFLOP/s':>8s}")
    rows = []
    for layer, shape in LAYERS.items():
        for op, (fun, arrays) in layer_functions(*shape).items():
            if not re.search(args.only, f"{layer}/{op}"):
                continue
            program = simplify(pf.jit(fun).lower(*arrays).program)
            inputs = [runtime.device_put(a, device) for a in arrays]
            exes = {name: runtime.load_executable(runtime.compile_stablehlo(
                        lower_program(program, use_overrides=name == "cpu"), extra_flags=flags), device)
                    for name in ("generic", "cpu")}
            outs = {name: exe(*inputs)[0].to_numpy() for name, exe in exes.items()}
            scale = np.abs(outs["generic"]).max()
            np.testing.assert_allclose(outs["cpu"], outs["generic"], rtol=1e-4, atol=1e-4 * scale)
            times = interleaved({name: (lambda exe=exe: exe(*inputs)[0].to_numpy()) for name, exe in exes.items()},
                                reps=args.reps)
            gflop = useful_gflop(*shape)
            form = chosen_form(program)
            print(f"{layer:14s} {op:6s} {form:20s} {fmt_time(times['generic'][0]):>12s} "
                  f"{fmt_time(times['cpu'][0]):>12s} {times['generic'][0] / times['cpu'][0]:8.1f}x "
                  f"{gflop / times['cpu'][0]:8.0f}")
            rows.append({"layer": layer, "op": op, "form": form, "generic": times["generic"], "cpu": times["cpu"],
                         "gflop": gflop})
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"machine": machine_line(), "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
