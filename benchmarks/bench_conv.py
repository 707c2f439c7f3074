"""Compiled convolutions on the CPU: each convolution of a ResNet-style training step, lowered by the primitive's
generic rule and by the llvm-cpu override (lowering/llvm_cpu_conv.py), timed side by side.

    .venv/bin/python benchmarks/bench_conv.py [--reps N] [--only REGEX] [--cpu x86-64-v3]
        [--forms im2col,tap_dots,filter_barrier,positions_dots,positions_gather,patches_product] [--json PATH]

For each layer (batch 16; the shapes of the convolution probe: a 3->32 stem, ResNet-18's 7x7 stride-2 3->64 stem, 3x3 32->32, 3x3 32->64 stride 2,
3x3 64->64 on 16x16, 3x3 128->128 on 8x8, a 1x1 32->64 stride-2 shortcut, a 3x3 depthwise over 64 channels) and
each of its three convolutions (fwd: y = conv(x, w); igrad: dx from (dy, w); wgrad: dw from (x, dy), as reverse
mode produces them), the same traced program is lowered and compiled with paddle_fn's flags: "generic" is every
primitive's own rule (what any other target gets), "cpu" applies the llvm-cpu overrides for the CPU the code is
compiled for (the host's, or `--cpu`'s: x86-64-v3 is AVX2 code, to see from an AVX-512 host what an AVX2 host
gets), and each of `--forms` is that form of lowering/llvm_cpu_conv.py forced on the layers without groups (where
it unrolls at most MAX_UNROLLED slices: per window tap, or per output position for positions_dots, positions_gather
and patches_product, the forms of weight gradients). All run on the default CPU device with the inputs already on it;
contenders are interleaved and the median and min of `--reps` calls are printed with the GFLOP/s of the useful
work (2 * N * Ho * Wo * K * C/groups * k^2) and the form the override chose. Every output is checked against the
generic lowering's (rtol 1e-4). `--json PATH` writes {"machine": str, "rows": [{"layer", "op", "form", "gflop",
"generic": [median, min], "cpu": [median, min], each forced form: [median, min]}]} (seconds).

This is the evidence row of the conv_general_dilated override in lowering/targets.py: when IREE changes, run it
again, and drop or change the override where "generic" has caught up, or a forced form beats the chosen one.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re

import numpy as np

import paddle_fn as pf
import paddle_fn.nn.functional as F
from paddle_fn import runtime
from paddle_fn.lowering import llvm_cpu_conv, lower_program
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.lowering.simplify import simplify
from paddle_fn.prims.conv import conv_general_dilated_p
from paddle_fn.transforms.jit import lowering_target

from bench_jit import fmt_time, interleaved, machine_line

# name: (in channels, out channels, image size, kernel, stride, padding, groups)
LAYERS = {
    "conv1_3to32": (3, 32, 32, 3, 1, 1, 1),
    "stem_7x7s2": (3, 64, 64, 7, 2, 3, 1),
    "c32_3x3": (32, 32, 32, 3, 1, 1, 1),
    "c32to64_3x3s2": (32, 64, 32, 3, 2, 1, 1),
    "c64_3x3": (64, 64, 16, 3, 1, 1, 1),
    "c128_3x3": (128, 128, 8, 3, 1, 1, 1),
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


def chosen_form(program, target) -> str:
    conv = next(e for e in program.eqns if e.prim is conv_general_dilated_p)
    reversed_filter = llvm_cpu_conv.made_by_rev(conv.inputs[1], llvm_cpu_conv.program_producer(program))
    found = llvm_cpu_conv.rewrite(conv.inputs[0].aval, conv.inputs[1].aval, conv.outputs[0].aval, conv.params,
                                  target=target, filter_reversed=reversed_filter)
    return "generic" if found is None else found[0]


def with_form(program, form):
    """(`program` with its convolutions computed in `form` (a function of lowering/llvm_cpu_conv.py), the constants
    the form made, which are its first inputs)."""
    def run(*args):
        env = dict(zip(program.in_vars, args))
        for eqn in program.eqns:
            ins = [env[v] if v in env else v.val for v in eqn.inputs]
            if eqn.prim is conv_general_dilated_p:
                _, prog, consts = llvm_cpu_conv.rewrite(eqn.inputs[0].aval, eqn.inputs[1].aval, eqn.outputs[0].aval,
                                                        eqn.params, form=form)
                outs = eval_program(prog, consts, ins)
            else:
                outs = eqn.prim.bind(*ins, **eqn.params)
                outs = outs if eqn.prim.multiple_results else [outs]
            env.update(zip(eqn.outputs, outs))
        return [env[v] for v in program.out_vars]
    return trace_to_program(run, [v.aval for v in program.in_vars])


def unrolled_slices(conv, form: str) -> int:
    """How many slices `form` unrolls for the convolution equation `conv`: one per output position for the forms
    of weight gradients (positions_dots, positions_gather, patches_product), else one per window tap."""
    dn = conv.params["dimension_numbers"]
    if form in ("positions_dots", "positions_gather", "patches_product"):
        return math.prod(conv.outputs[0].aval.shape[d] for d in dn.out_spec[2:])
    return math.prod(conv.inputs[1].aval.shape[d] for d in dn.rhs_spec[2:])


def useful_gflop(cin, cout, size, k, stride, pad, groups) -> float:
    out = (size + 2 * pad - k) // stride + 1
    return 2 * BATCH * out * out * cout * (cin // groups) * k * k / 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--only", default="", help="regex on 'layer/op'")
    parser.add_argument("--json", default=None)
    parser.add_argument("--forms", default="", help="comma-separated forms of lowering/llvm_cpu_conv.py also timed "
                        "on the layers without groups (im2col,tap_dots,filter_barrier,positions_dots,patches_product)")
    parser.add_argument("--cpu", default=None, help="compile for this CPU instead of the host (x86-64-v3: AVX2 "
                        "code, to check a form on an AVX2 host from an AVX-512 one)")
    args = parser.parse_args()
    if args.cpu is not None:  # the lowering chooses its forms for the CPU the code is compiled for
        os.environ[runtime.compiler.CPU_TARGET_ENV] = args.cpu
        runtime.reload_cpu_target()
    target = lowering_target("llvm-cpu")
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
            texts = {"generic": lower_program(program, target=target, use_overrides=False),
                     "cpu": lower_program(program, target=target)}
            consts = {}  # a forced form's constants, passed before the inputs
            conv = next(e for e in program.eqns if e.prim is conv_general_dilated_p)
            forced = args.forms.split(",") if args.forms and shape[-1] == 1 else []
            for name in (name for name in forced if unrolled_slices(conv, name) <= llvm_cpu_conv.MAX_UNROLLED):
                forced_program, forced_consts = with_form(program, getattr(llvm_cpu_conv, name))
                texts[name] = lower_program(forced_program, target=target)
                consts[name] = [runtime.device_put(c.concrete_value(), device) for c in forced_consts]
            exes = {name: (lambda exe, args: lambda: exe(*args)[0].to_numpy())(
                        runtime.load_executable(runtime.compile_stablehlo(text), device), consts.get(name, []) + inputs)
                    for name, text in texts.items()}
            outs = {name: run() for name, run in exes.items()}
            scale = np.abs(outs["generic"]).max()
            for name in outs:
                np.testing.assert_allclose(outs[name], outs["generic"], rtol=1e-4, atol=1e-4 * scale, err_msg=name)
            times = interleaved(exes, reps=args.reps)
            gflop = useful_gflop(*shape)
            form = chosen_form(program, target)
            print(f"{layer:14s} {op:6s} {form:20s} {fmt_time(times['generic'][0]):>12s} "
                  f"{fmt_time(times['cpu'][0]):>12s} {times['generic'][0] / times['cpu'][0]:8.1f}x "
                  f"{gflop / times['cpu'][0]:8.0f}" + "".join(f"  {name} {fmt_time(times[name][0])}"
                                                              for name in texts if name not in ("generic", "cpu")))
            rows.append({"layer": layer, "op": op, "form": form, "gflop": gflop, **times})
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"machine": machine_line(), "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
