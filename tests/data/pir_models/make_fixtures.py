"""Regenerates the PaddlePaddle-exported models of tests/test_jit_load_paddle.py (run with PaddlePaddle 3.3.1
installed; not run by the test suite, which never imports Paddle):

    cd /tmp && python3 /path/to/tests/data/pir_models/make_fixtures.py /path/to/tests/data/pir_models

For each model it writes ``<name>.json`` / ``<name>.pdiparams`` with ``paddle.jit.save`` and ``<name>.npz`` with
fixed inputs (``in0``, ``in1``, ...) and Paddle's outputs on them (``out0``, ...), from the loaded model as Paddle
runs it (``paddle.jit.load``). Weights and batch-norm statistics are random so that every layer matters.
"""
import os
import sys

import numpy as np
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.static import InputSpec


class TinyCNN(nn.Layer):
    """The operators of the vision models at small widths: a ResNet stem and residual block, a MobileNetV3 block
    (depthwise conv, hardswish, squeeze-excitation), a ShuffleNet channel split and shuffle, a SqueezeNet-style
    concat, the poolings, dropout and a classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2D(3, 8, 3, stride=2, padding=1, bias_attr=False), nn.BatchNorm2D(8),
                                  nn.ReLU())
        self.pool = nn.MaxPool2D(3, stride=2, padding=1)
        self.res = nn.Sequential(nn.Conv2D(8, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(),
                                 nn.Conv2D(8, 8, 3, padding=1), nn.BatchNorm2D(8))
        self.expand = nn.Sequential(nn.Conv2D(8, 16, 1), nn.BatchNorm2D(16), nn.ReLU6())
        self.depthwise = nn.Sequential(nn.Conv2D(16, 16, 3, padding=1, groups=16), nn.BatchNorm2D(16),
                                       nn.Hardswish())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2D(1), nn.Conv2D(16, 4, 1), nn.ReLU(), nn.Conv2D(4, 16, 1),
                                nn.Hardsigmoid())
        self.project = nn.Sequential(nn.Conv2D(16, 8, 1), nn.BatchNorm2D(8))
        self.branch = nn.Conv2D(4, 4, 1)
        self.avg = nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True, exclusive=False)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = F.relu(x + self.res(x))
        y = self.depthwise(self.expand(x))
        x = x + self.project(y * self.se(y))
        left, right = paddle.split(x, 2, axis=1)
        x = paddle.concat([left, self.branch(right)], axis=1)
        n, c, h, w = x.shape
        x = x.reshape([-1, 2, c // 2, h, w]).transpose([0, 2, 1, 3, 4]).reshape([-1, c, h, w])
        x = paddle.concat([self.avg(x), F.adaptive_max_pool2d(x, 3)], axis=1)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(self.dropout(x))


class Misc(nn.Layer):
    """Elementwise operators and reductions beyond the vision models."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        h = self.fc(x)
        a = F.gelu(h) + F.sigmoid(h) * paddle.tanh(h) - F.silu(h) / (paddle.exp(-paddle.abs(h)) + 1.0)
        b = F.leaky_relu(h, 0.1) + paddle.sqrt(paddle.abs(h) + 1.0) + F.gelu(h, approximate=True)
        c = paddle.maximum(a, b) - paddle.mean(a, axis=-1, keepdim=True) + paddle.sum(b, axis=1, keepdim=True)
        d = paddle.stack([c, a], axis=1).max(axis=1) + paddle.unsqueeze(c.mean(axis=-1), -1)
        return paddle.cast(d, "float64") * 2.0, paddle.log(paddle.abs(d) + 1.0)


class Misc2(nn.Layer):
    """Comparisons, arg-reductions, the other interpolations and an even split."""

    def forward(self, x):
        a, b, c = paddle.split(x, 3, axis=-1)
        m = paddle.minimum(a, b) + paddle.pow(paddle.abs(c) + 1.0, b) * paddle.rsqrt(paddle.abs(a) + 1.0)
        m = m + F.swish(b) + paddle.where(paddle.less_than(a, b) | paddle.greater_equal(b, c), a, c)
        m = m + ((a <= 0.0).astype("float32") - paddle.equal(paddle.argmin(b, axis=-1),
                                                                            paddle.argmax(c, axis=-1)).astype(
            "float32").unsqueeze(-1))
        image = m.unsqueeze(1)
        up = F.interpolate(image, size=[5, 7], mode="bilinear", align_corners=True)
        line = F.interpolate(m, size=[9], mode="linear", data_format="NCW")
        volume = F.interpolate(image.unsqueeze(1), scale_factor=2, mode="trilinear")
        return up, line, volume


class Misc3(nn.Layer):
    """Group, instance and p-norms, PReLU, more element-wise functions, gathers, expand, tile and top-k."""

    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(2, 4)
        self.inorm = nn.InstanceNorm2D(4)
        self.prelu = nn.PReLU(4)

    def forward(self, x, idx):
        v = (self.prelu(self.gn(x)) + self.inorm(x)).mean(axis=[2, 3])
        b = F.log_softmax(v, axis=-1) + paddle.pow(v, 2) + paddle.square(v) + paddle.erf(v) + paddle.sin(v) * \
            paddle.cos(v) + F.normalize(v, axis=-1) + paddle.floor(v) + paddle.sign(v) + \
            paddle.reciprocal(paddle.abs(v) + 1)
        c = paddle.gather(b, idx, axis=1) + paddle.index_select(b, idx, axis=1)
        d = paddle.expand(c.unsqueeze(1), [-1, 3, -1]) + paddle.tile(c.unsqueeze(1), [1, 3, 1])
        values, indices = paddle.topk(b, 2, axis=-1)
        return d, values, indices, paddle.assign(b)


class Text(nn.Layer):
    """Token and position embeddings, a padding mask, slicing and reductions."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.pos = nn.Embedding(6, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, ids):
        h = self.emb(ids) + self.pos(paddle.arange(ids.shape[1]).unsqueeze(0))
        mask = (ids != 0).astype("float32").unsqueeze(-1)
        h = paddle.where(mask > 0, h, paddle.zeros_like(h))
        pooled = h.sum(axis=1) / mask.sum(axis=1).clip(min=1.0)
        return self.fc(F.gelu(pooled + h[:, 0, :])), paddle.argmax(h, axis=-1)


class Segmenter(nn.Layer):
    """Upsampling (transposed convolution, bilinear and nearest interpolation), padding, slicing, and a reshape
    to a size taken from the input's shape at run time."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2D(3, 4, 3, stride=2, padding=1)
        self.up = nn.Conv2DTranspose(4, 4, 2, stride=2)
        self.head = nn.Conv2D(8, 2, 1)

    def forward(self, x):
        d = F.relu(self.down(x))
        u = F.interpolate(d, scale_factor=2, mode="bilinear") + F.interpolate(d, scale_factor=2, mode="nearest")
        y = F.pad(paddle.concat([self.up(d), u], axis=1), [1, 1, 1, 1], mode="reflect")
        y = self.head(y)[:, :, 1:-1, 1:-1]
        return F.sigmoid(y), y.transpose([0, 2, 3, 1]).reshape([y.shape[0], -1, 2]).mean(axis=1)


class Decoder(nn.Layer):
    def __init__(self):
        super().__init__()
        self.transformer = nn.Transformer(16, 2, 1, 1, 32, normalize_before=True)

    def forward(self, src, tgt, tgt_mask):
        return self.transformer(src, tgt, tgt_mask=tgt_mask)


def running_sum(x):
    return paddle.cumsum(x, axis=1)


def _randomize(layer, rng):
    """Random weights and batch-norm statistics, so that no layer is an identity."""
    for name, p in layer.state_dict().items():
        if name.endswith("_variance"):
            value = rng.uniform(0.5, 1.5, p.shape)
        elif name.endswith("_mean"):
            value = rng.normal(0.0, 0.2, p.shape)
        else:
            fan_in = int(np.prod(p.shape[1:])) if len(p.shape) == 4 else (p.shape[0] if len(p.shape) == 2 else 4)
            value = rng.normal(0.0, 1.0 / np.sqrt(fan_in), p.shape)
        p.set_value(value.astype(p.numpy().dtype))


def _models():
    rng = np.random.default_rng(2026)
    causal = np.triu(np.full([4, 4], -1e9, "float32"), 1)
    yield "lenet", paddle.vision.models.LeNet(), [rng.standard_normal([2, 1, 28, 28])]
    yield "tiny_cnn", TinyCNN(), [rng.standard_normal([2, 3, 20, 20])]
    yield ("tiny_encoder", nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32), 1),
           [rng.standard_normal([2, 5, 16])])
    yield "tiny_transformer", Decoder(), [rng.standard_normal([2, 5, 16]), rng.standard_normal([2, 4, 16]), causal]
    yield "misc", Misc(), [rng.standard_normal([3, 6])]
    yield "text", Text(), [np.array([[3, 7, 1, 0, 0, 0], [5, 19, 2, 8, 4, 0]], "int64")]
    yield "segmenter", Segmenter(), [rng.standard_normal([2, 3, 8, 8])]
    yield "misc2", Misc2(), [rng.standard_normal([2, 3, 6])]
    yield "misc3", Misc3(), [rng.standard_normal([2, 4, 5, 5]), np.array([3, 0, 2], "int64")]


def main(out_dir):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    for name, layer, inputs in _models():
        _randomize(layer, rng)
        layer.eval()
        inputs = [np.asarray(x, dtype=x.dtype if x.dtype == np.int64 else "float32") for x in inputs]
        names = [n for n in layer.forward.__code__.co_varnames[1:layer.forward.__code__.co_argcount]]
        # the batch dimension dynamic, except in the mask and in the 2-D inputs of the elementwise model
        specs = [InputSpec([None] + list(x.shape[1:]) if x.ndim >= 3 or x.dtype == np.int64 else list(x.shape),
                           x.dtype.name, n) for x, n in zip(inputs, names)]
        prefix = os.path.join(out_dir, name)
        paddle.jit.save(layer, prefix, input_spec=specs)
        loaded = paddle.jit.load(prefix)
        outs = loaded(*[paddle.to_tensor(x) for x in inputs])
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        np.savez(prefix + ".npz", **{f"in{i}": x for i, x in enumerate(inputs)},
                 **{f"out{i}": o.numpy() for i, o in enumerate(outs)})
        print(name, [list(o.shape) for o in outs])
    # an operator paddle_fn does not translate
    paddle.jit.save(running_sum, os.path.join(out_dir, "cumsum"), input_spec=[InputSpec([None, 4], "float32", "x")])


if __name__ == "__main__":
    main(sys.argv[1])
