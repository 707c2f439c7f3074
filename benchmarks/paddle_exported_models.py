"""PaddlePaddle's exported vision models and Transformers, run by paddle_fn: the table of docs/to_static.md
("Running models PaddlePaddle exported"). Two steps, each in the interpreter that has its library:

    # 1. with PaddlePaddle 3.3 installed: export each model (random weights and batch-norm statistics) and record
    #    Paddle's outputs on random inputs (about 1 GB of files, a few minutes)
    cd /tmp && python3 /path/to/benchmarks/paddle_exported_models.py export DIR [--mode eval|train] [names...]
    # 2. with paddle_fn: load each export, run it eagerly and compiled, print the markdown rows
    .venv/bin/python benchmarks/paddle_exported_models.py check DIR [--eager-only] [names...]

Not a test: Paddle is never a dependency, and compiling the large models takes minutes.
"""
import argparse
import glob
import os
import sys
import time

import numpy as np

_CAUSAL = np.triu(np.full([4, 4], -1e9, "float32"), 1)
# name -> (constructor source, the shape of each input; None for the causal mask)
MODELS = {
    "lenet": ("M.LeNet()", [[2, 1, 28, 28]]),
    "alexnet": ("M.alexnet()", [[1, 3, 224, 224]]),
    "vgg16": ("M.vgg16(batch_norm=True)", [[1, 3, 224, 224]]),
    "resnet18": ("M.resnet18()", [[2, 3, 64, 64]]),
    "resnet50": ("M.resnet50()", [[2, 3, 64, 64]]),
    "mobilenet_v1": ("M.mobilenet_v1()", [[2, 3, 64, 64]]),
    "mobilenet_v2": ("M.mobilenet_v2()", [[2, 3, 64, 64]]),
    "mobilenet_v3_small": ("M.mobilenet_v3_small()", [[2, 3, 64, 64]]),
    "mobilenet_v3_large": ("M.mobilenet_v3_large()", [[2, 3, 64, 64]]),
    "squeezenet1_0": ("M.squeezenet1_0()", [[2, 3, 64, 64]]),
    "squeezenet1_1": ("M.squeezenet1_1()", [[2, 3, 64, 64]]),
    "shufflenet_v2_x1_0": ("M.shufflenet_v2_x1_0()", [[2, 3, 64, 64]]),
    "shufflenet_v2_swish": ("M.shufflenet_v2_swish()", [[2, 3, 64, 64]]),
    "densenet121": ("M.densenet121()", [[2, 3, 64, 64]]),
    "googlenet": ("M.googlenet()", [[1, 3, 224, 224]]),
    "inception_v3": ("M.inception_v3()", [[1, 3, 299, 299]]),
    "resnext50_32x4d": ("M.resnext50_32x4d()", [[1, 3, 64, 64]]),
    "wide_resnet50_2": ("M.wide_resnet50_2()", [[1, 3, 64, 64]]),
    "transformer_encoder": ("nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64), 2)", [[2, 6, 32]]),
    "transformer_decoder": ("WithMask(nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 2, 32, "
                            "normalize_before=True), 2, norm=nn.LayerNorm(16)))", [[2, 4, 16], [2, 5, 16], None]),
    "transformer": ("WithMask(nn.Transformer(32, 4, 2, 2, 64))", [[2, 5, 32], [2, 4, 32], None]),
}


def export(out_dir, mode, names):
    import paddle
    import paddle.nn as nn
    import paddle.vision.models as M  # noqa: F401 - the constructors in MODELS
    from paddle.static import InputSpec
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "data", "pir_models"))
    from make_fixtures import _randomize

    class WithMask(nn.Layer):
        """A decoder or Transformer called with a causal target mask as its third input."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, first, second, tgt_mask):
            if isinstance(self.inner, nn.Transformer):
                return self.inner(first, second, tgt_mask=tgt_mask)
            return self.inner(first, second, tgt_mask)

    paddle.seed(0)
    rng = np.random.default_rng(0)
    os.makedirs(out_dir, exist_ok=True)
    scope = {"M": M, "nn": nn, "WithMask": WithMask}
    for name, (source, shapes) in MODELS.items():
        if names and name not in names:
            continue
        layer = eval(source, scope)  # the constructor sources above, written in this file
        _randomize(layer, rng)
        layer.train() if mode == "train" else layer.eval()
        inputs = [_CAUSAL if s is None else rng.standard_normal(s).astype("float32") for s in shapes]
        code = layer.forward.__code__
        specs = [InputSpec(list(x.shape) if x.ndim == 2 else [None] + list(x.shape[1:]), "float32", n)
                 for x, n in zip(inputs, code.co_varnames[1:code.co_argcount])]
        prefix = os.path.join(out_dir, name)
        paddle.jit.save(layer, prefix, input_spec=specs)
        outs = paddle.jit.load(prefix)(*[paddle.to_tensor(x) for x in inputs])
        outs = outs if isinstance(outs, list) else [outs]
        np.savez(prefix + ".ref.npz", **{f"in{i}": x for i, x in enumerate(inputs)},
                 **{f"out{i}": o.numpy() for i, o in enumerate(outs)})
        print(name, "exported", flush=True)


def check(out_dir, eager_only, names):
    import paddle_fn as paddle
    for name in MODELS:
        if (names and name not in names) or not glob.glob(os.path.join(out_dir, name + ".json")):
            continue
        with np.load(os.path.join(out_dir, name + ".ref.npz")) as ref:
            inputs = [paddle.to_tensor(ref[f"in{i}"]) for i in range(sum(k.startswith("in") for k in ref.files))]
            want = [ref[f"out{i}"] for i in range(sum(k.startswith("out") for k in ref.files))]
        layer = paddle.jit.load(os.path.join(out_dir, name))

        def error(outs):
            outs = outs if isinstance(outs, list) else [outs]
            return max(float(np.abs(o.numpy() - w).max()) for o, w in zip(outs, want))

        eager = error(layer(*inputs))
        compiled, seconds = "-", 0.0
        if not eager_only:
            start = time.perf_counter()
            executable = paddle.jit(lambda *xs: layer(*xs)).lower(*inputs).compile()
            seconds = time.perf_counter() - start
            compiled = f"{error(executable(*inputs)):.1e}"
        largest = max(float(np.abs(w).max()) for w in want)
        print(f"| {MODELS[name][0]} | {list(inputs[0].shape)} | {eager:.1e} | {compiled} | {largest:.3g} | "
              f"compile {seconds:.0f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["export", "check"])
    parser.add_argument("dir")
    parser.add_argument("names", nargs="*", help="models to export or check (default: all)")
    parser.add_argument("--mode", choices=["eval", "train"], default="eval", help="the layer's mode at export")
    parser.add_argument("--eager-only", action="store_true", help="check: skip the compiled run")
    args = parser.parse_args()
    if args.step == "export":
        export(args.dir, args.mode, args.names)
    else:
        check(args.dir, args.eager_only, args.names)


if __name__ == "__main__":
    main()
