"""The layer families of paddle.nn (activation, common, conv, norm, pooling, loss, distance, vision): each layer
against its functional op or numpy, parameter shapes / names / initializers, train vs eval behaviour, reprs as
Paddle 3.3.1 prints them, gradients through the bridge and the eager tape, and a small LeNet that trains."""
import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn import nn

RNG = np.random.default_rng(0)


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float32))


ACTIVATIONS = [
    (nn.ReLU(), F.relu, "ReLU()"), (nn.ReLU6(), F.relu6, "ReLU6()"),
    (nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2), "LeakyReLU(negative_slope=0.2)"),
    (nn.ELU(), F.elu, "ELU(alpha=1.0)"), (nn.CELU(), F.celu, "CELU(alpha=1.0)"),
    (nn.SELU(), F.selu, "SELU(scale=1.0507009873554805, alpha=1.6732632423543772)"),
    (nn.GELU(approximate=True), lambda x: F.gelu(x, True), "GELU(approximate=True)"),
    (nn.Sigmoid(), F.sigmoid, "Sigmoid()"), (nn.Hardsigmoid(), F.hardsigmoid, "Hardsigmoid()"),
    (nn.Hardswish(), F.hardswish, "Hardswish()"), (nn.Hardtanh(), F.hardtanh, "Hardtanh(min=-1.0, max=1.0)"),
    (nn.Hardshrink(), F.hardshrink, "Hardshrink(threshold=0.5)"),
    (nn.Softshrink(), F.softshrink, "Softshrink(threshold=0.5)"), (nn.Tanhshrink(), F.tanhshrink, "Tanhshrink()"),
    (nn.Tanh(), F.tanh, "Tanh()"), (nn.Softmax(axis=0), lambda x: F.softmax(x, 0), "Softmax(axis=0)"),
    (nn.LogSoftmax(), F.log_softmax, "LogSoftmax(axis=-1)"),
    (nn.Softplus(), F.softplus, "Softplus(beta=1, threshold=20)"), (nn.Softsign(), F.softsign, "Softsign()"),
    (nn.Swish(), F.swish, "Swish()"), (nn.SiLU(), F.silu, "SiLU()"), (nn.Mish(), F.mish, "Mish()"),
    (nn.LogSigmoid(), F.log_sigmoid, "LogSigmoid()"),
    (nn.ThresholdedReLU(), F.thresholded_relu, "ThresholdedReLU(threshold=1.0, value=0.0)"),
    (nn.Maxout(2), lambda x: F.maxout(x, 2), "Maxout(groups=2, axis=1)"), (nn.GLU(), F.glu, "GLU(axis=-1)"),
]


@pytest.mark.parametrize("layer, fn, text", ACTIVATIONS, ids=[a[2].split("(")[0] for a in ACTIVATIONS])
def test_activation_layers_equal_their_functional_op_and_print_as_paddle(layer, fn, text):
    x = t(RNG.normal(size=(2, 4, 6)) * 3)
    np.testing.assert_allclose(layer(x).numpy(), fn(x).numpy(), rtol=1e-6)
    assert repr(layer) == text
    assert list(layer.parameters()) == []


def test_prelu_has_paddle_parameter_and_per_channel_slopes():
    m = nn.PReLU(3, init=0.1)
    assert [n for n, _ in m.named_parameters()] == ["_weight"] and m._weight.shape == [3]
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(m(t(x)).numpy(), np.where(x >= 0, x, 0.1 * x), rtol=1e-6)
    with pytest.raises(ValueError, match="data_format"):
        nn.PReLU(data_format="HWC")


def test_thresholded_relu_value():
    np.testing.assert_allclose(nn.ThresholdedReLU(1.0, -2.0)(t([0.5, 3.0])).numpy(), [-2.0, 3.0])


# ---------------------------------------------------------------------------------------------- common

def test_embedding_padding_row_is_zero_and_names_follow_paddle():
    emb = nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4 and emb.weight.shape == [5, 3]
    np.testing.assert_array_equal(emb.weight.numpy()[4], 0.0)
    out = emb(paddle.to_tensor([[4, 1]]))
    np.testing.assert_array_equal(out.numpy()[0, 0], 0.0)
    np.testing.assert_allclose(out.numpy()[0, 1], emb.weight.numpy()[1])
    assert repr(emb) == "Embedding(5, 3, padding_idx=4, sparse=False, scale_grad_by_freq=False)"
    with pytest.raises(ValueError, match="padding_idx"):
        nn.Embedding(5, 3, padding_idx=5)
    renormed = nn.Embedding(5, 3, max_norm=1e-3)
    renormed(paddle.to_tensor([0, 2]))
    norms = np.linalg.norm(renormed.weight.numpy(), axis=1)
    assert norms[0] <= 1e-3 + 1e-9 and norms[2] <= 1e-3 + 1e-9 and norms[1] > 1e-3  # only the rows looked up


def test_dropout_train_and_eval():
    m = nn.Dropout(0.5)
    paddle.seed(3)
    a = m(paddle.ones([1000])).numpy()
    assert set(np.unique(a)) <= {0.0, 2.0} and 400 < (a == 0).sum() < 600
    paddle.seed(3)
    np.testing.assert_array_equal(m(paddle.ones([1000])).numpy(), a)  # the global seed decides the mask
    m.eval()
    np.testing.assert_array_equal(m(paddle.ones([5])).numpy(), 1.0)
    down = nn.Dropout(0.25, mode="downscale_in_infer")
    down.eval()
    np.testing.assert_allclose(down(paddle.ones([3])).numpy(), 0.75)
    assert repr(m) == "Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)"
    d2 = nn.Dropout2D(0.5)
    out = d2(paddle.ones([2, 16, 3, 3])).numpy()
    assert ((out == 0).all(axis=(2, 3)) | (out == 2).all(axis=(2, 3))).all()  # whole channels
    d2.eval()
    np.testing.assert_array_equal(d2(paddle.ones([1, 2, 1, 1])).numpy(), 1.0)
    ad = nn.AlphaDropout(0.3)
    ad.eval()
    np.testing.assert_array_equal(ad(t([-1.0, 2.0])).numpy(), [-1.0, 2.0])


def test_common_layers_against_functional():
    x = t(RNG.normal(size=(2, 3, 4, 4)))
    assert nn.Flatten()(x).shape == [2, 48] and nn.Flatten(0, 1)(x).shape == [6, 4, 4]
    assert nn.Identity(3, foo=1)(x) is x
    np.testing.assert_allclose(nn.Pad2D([1, 0, 2, 0], mode="reflect")(x).numpy(),
                               F.pad(x, [1, 0, 2, 0], mode="reflect").numpy())
    assert repr(nn.Pad3D(1)) == "Pad3D(padding=[1, 1, 1, 1, 1, 1], mode=constant, value=0.0, data_format=NCDHW)"
    np.testing.assert_allclose(nn.ZeroPad2D(1)(x).numpy(), np.pad(x.numpy(), ((0, 0), (0, 0), (1, 1), (1, 1))))
    np.testing.assert_allclose(nn.Upsample(scale_factor=2)(x).numpy(), x.numpy().repeat(2, 2).repeat(2, 3))
    np.testing.assert_allclose(nn.UpsamplingBilinear2D(size=[7, 7])(x).numpy(),
                               F.interpolate(x, [7, 7], mode="bilinear", align_corners=True).numpy(), rtol=1e-6)
    np.testing.assert_allclose(nn.Unfold([2, 2])(x).numpy(), F.unfold(x, [2, 2]).numpy())
    np.testing.assert_allclose(nn.PixelShuffle(1)(x).numpy(), x.numpy())
    a, b = RNG.normal(size=(2, 3, 4, 4)).astype(np.float32), RNG.normal(size=(2, 3, 4, 4)).astype(np.float32)
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    np.testing.assert_allclose(nn.CosineSimilarity()(t(a), t(b)).numpy(), cos, rtol=1e-5)
    u, v = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(3, 4)).astype(np.float32)
    np.testing.assert_allclose(nn.PairwiseDistance()(t(u), t(v)).numpy(), np.linalg.norm(u - v + 1e-6, axis=-1),
                               rtol=1e-5)


def test_bilinear_parameters_and_output():
    m = nn.Bilinear(2, 3, 4)
    assert [(n, p.shape) for n, p in m.named_parameters()] == [("weight", [4, 2, 3]), ("bias", [1, 4])]
    x1, x2 = RNG.normal(size=(5, 2)).astype(np.float32), RNG.normal(size=(5, 3)).astype(np.float32)
    want = np.einsum("ni,kij,nj->nk", x1, m.weight.numpy(), x2) + m.bias.numpy()
    np.testing.assert_allclose(m(t(x1), t(x2)).numpy(), want, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------- conv

def test_conv_layers_shapes_init_and_repr():
    c = nn.Conv2D(4, 8, 3, stride=2, padding=1, groups=2)
    assert c.weight.shape == [8, 2, 3, 3] and c.bias.shape == [8]
    np.testing.assert_array_equal(c.bias.numpy(), 0.0)
    paddle.seed(0)
    big = nn.Conv2D(16, 64, 3)
    assert abs(big.weight.numpy().std() - np.sqrt(2.0 / (16 * 9))) < 0.01  # Paddle's Normal(0, sqrt(2/fan_in))
    assert repr(c) == "Conv2D(4, 8, kernel_size=[3, 3], stride=[2, 2], padding=1, groups=2, data_format=NCHW)"
    x = t(RNG.normal(size=(1, 4, 6, 6)))
    np.testing.assert_allclose(c(x).numpy(), F.conv2d(x, c.weight, c.bias, 2, 1, 1, 2).numpy(), rtol=1e-5)
    assert nn.Conv2DTranspose(4, 6, 3, groups=2).weight.shape == [4, 3, 3, 3]
    assert nn.Conv1D(2, 3, 5).weight.shape == [3, 2, 5] and nn.Conv3D(2, 3, 2).weight.shape == [3, 2, 2, 2, 2]
    assert nn.Conv2D(2, 3, 1, bias_attr=False).bias is None
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")


def test_conv_padding_mode_pads_before_the_convolution():
    c = nn.Conv1D(1, 1, 3, padding=1, padding_mode="circular", weight_attr=nn.initializer.Constant(1.0))
    out = c(t([[[1.0, 2.0, 3.0, 4.0]]])).numpy().ravel()
    np.testing.assert_allclose(out, [4 + 1 + 2, 1 + 2 + 3, 2 + 3 + 4, 3 + 4 + 1])


def test_conv_transpose_output_size():
    c = nn.Conv2DTranspose(2, 2, 3, stride=2)
    x = t(RNG.normal(size=(1, 2, 4, 4)))
    assert c(x).shape == [1, 2, 9, 9] and c(x, output_size=[10, 10]).shape == [1, 2, 10, 10]


# ---------------------------------------------------------------------------------------------- norm

def test_batchnorm_running_statistics_follow_paddles_formula():
    bn = nn.BatchNorm2D(3, momentum=0.8)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias"]
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    mean, var = np.zeros(3), np.ones(3)
    for step in range(3):
        x = RNG.normal(loc=step, scale=2.0, size=(4, 3, 2, 2)).astype(np.float32)
        out = bn(t(x)).numpy()
        bm, bv = x.mean((0, 2, 3)), x.var((0, 2, 3))
        np.testing.assert_allclose(out, (x - bm[:, None, None]) / np.sqrt(bv[:, None, None] + 1e-5), rtol=1e-4,
                                   atol=1e-5)
        mean, var = 0.8 * mean + 0.2 * bm, 0.8 * var + 0.2 * bv
        np.testing.assert_allclose(bn._mean.numpy(), mean, rtol=1e-5)
        np.testing.assert_allclose(bn._variance.numpy(), var, rtol=1e-5)
    bn.eval()
    x = RNG.normal(size=(2, 3, 2, 2)).astype(np.float32)
    np.testing.assert_allclose(bn(t(x)).numpy(), (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), mean, rtol=1e-5)  # eval does not update
    with pytest.raises(ValueError, match="4-D"):
        bn(paddle.ones([2, 3]))


def test_batchnorm_global_stats_and_old_api():
    bn = nn.BatchNorm1D(2, use_global_stats=True)
    x = t([[1.0, 2.0], [3.0, 6.0]])
    np.testing.assert_allclose(bn(x).numpy(), x.numpy() / np.sqrt(1 + 1e-5), rtol=1e-6)
    np.testing.assert_array_equal(bn._mean.numpy(), 0.0)
    old = nn.BatchNorm(2, act="relu", is_test=True)
    np.testing.assert_allclose(old(t([[-1.0, 2.0]])).numpy(), [[0.0, 2.0 / np.sqrt(1 + 1e-5)]], rtol=1e-6)
    assert repr(nn.BatchNorm1D(3)) == "BatchNorm1D(num_features=3, momentum=0.9, epsilon=1e-05, data_format=NCL)"


def test_other_norms_against_numpy():
    x = RNG.normal(size=(2, 4, 3, 3)).astype(np.float32)
    ln = nn.LayerNorm([3, 3])
    m, v = x.mean((2, 3), keepdims=True), x.var((2, 3), keepdims=True)
    np.testing.assert_allclose(ln(t(x)).numpy(), (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    assert ln.weight.shape == [3, 3] and repr(ln) == "LayerNorm(normalized_shape=[3, 3], epsilon=1e-05)"
    gn = nn.GroupNorm(2, 4)
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(gn(t(x)).numpy(), want, rtol=1e-4, atol=1e-5)
    inorm = nn.InstanceNorm2D(4)
    assert [n for n, _ in inorm.named_parameters()] == ["scale", "bias"]
    np.testing.assert_allclose(inorm(t(x)).numpy(), (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.LocalResponseNorm(3)(t(x)).numpy(), F.local_response_norm(t(x), 3).numpy())
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(3, 4)


# ---------------------------------------------------------------------------------------------- pooling

def test_pooling_layers_against_numpy():
    x = RNG.normal(size=(2, 3, 4, 6)).astype(np.float32)
    blocks = x.reshape(2, 3, 2, 2, 3, 2)
    np.testing.assert_allclose(nn.MaxPool2D(2)(t(x)).numpy(), blocks.max((3, 5)))
    np.testing.assert_allclose(nn.AvgPool2D(2, stride=2)(t(x)).numpy(), blocks.mean((3, 5)), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(nn.AdaptiveAvgPool2D(1)(t(x)).numpy(), x.mean((2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(nn.AdaptiveMaxPool2D([2, 3])(t(x)).numpy(), blocks.max((3, 5)))
    y = x.reshape(2, 3, 24)
    np.testing.assert_allclose(nn.MaxPool1D(4)(t(y)).numpy(), y.reshape(2, 3, 6, 4).max(-1))
    np.testing.assert_allclose(nn.AvgPool1D(4)(t(y)).numpy(), y.reshape(2, 3, 6, 4).mean(-1), rtol=1e-6)
    np.testing.assert_allclose(nn.AdaptiveAvgPool1D(3)(t(y)).numpy(), y.reshape(2, 3, 3, 8).mean(-1), rtol=1e-5)
    assert nn.MaxPool3D(2)(paddle.ones([1, 1, 4, 4, 4])).shape == [1, 1, 2, 2, 2]
    assert repr(nn.MaxPool2D(2)) == "MaxPool2D(kernel_size=2, stride=None, padding=0)"
    assert repr(nn.AdaptiveMaxPool1D(2)) == "AdaptiveMaxPool1D(output_size=2, return_mask=False)"


# ---------------------------------------------------------------------------------------------- loss

def test_loss_layers_against_numpy():
    logits = RNG.normal(size=(4, 5)).astype(np.float32)
    label = np.array([0, 3, 1, 4])
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    np.testing.assert_allclose(nn.CrossEntropyLoss()(t(logits), paddle.to_tensor(label)).numpy(),
                               -logp[np.arange(4), label].mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.NLLLoss(reduction="sum")(t(logp), paddle.to_tensor(label)).numpy(),
                               -logp[np.arange(4), label].sum(), rtol=1e-5)
    a, b = RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=(3, 2)).astype(np.float32)
    np.testing.assert_allclose(nn.MSELoss()(t(a), t(b)).numpy(), ((a - b) ** 2).mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.L1Loss("none")(t(a), t(b)).numpy(), np.abs(a - b), rtol=1e-6)
    p, y = 1 / (1 + np.exp(-a)), (b > 0).astype(np.float32)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(t(p), t(y)).numpy(), bce.mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.BCEWithLogitsLoss()(t(a), t(y)).numpy(), bce.mean(), rtol=1e-5)
    d = np.abs(a - b)
    np.testing.assert_allclose(nn.SmoothL1Loss()(t(a), t(b)).numpy(), np.where(d < 1, 0.5 * d * d, d - 0.5).mean(),
                               rtol=1e-5)
    q = np.full((3, 2), 0.5, np.float32)
    np.testing.assert_allclose(nn.KLDivLoss("sum")(t(logp[:3, :2]), t(q)).numpy(),
                               (q * (np.log(q) - logp[:3, :2])).sum(), rtol=1e-5)
    s = np.sign(b).astype(np.float32)
    np.testing.assert_allclose(nn.MarginRankingLoss(0.1)(t(a), t(b), t(s)).numpy(),
                               np.maximum(0, -s * (a - b) + 0.1).mean(), rtol=1e-5)
    np.testing.assert_allclose(nn.HingeEmbeddingLoss()(t(a), t(s)).numpy(),
                               np.where(s > 0, a, np.maximum(0, 1 - a)).mean(), rtol=1e-5)
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss("avg")


# ---------------------------------------------------------------------------------------------- gradients

def _lenet():
    paddle.seed(7)
    return nn.Sequential(
        nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(), nn.MaxPool2D(2),
        nn.Conv2D(4, 8, 3), nn.ReLU(), nn.AdaptiveAvgPool2D(1), nn.Flatten(), nn.Linear(8, 3))


def test_grads_through_the_bridge_equal_the_tape():
    model = _lenet()
    x = t(RNG.normal(size=(4, 1, 8, 8)))
    y = paddle.to_tensor([0, 1, 2, 1])
    _, params, buffers = nn.split(model)

    def loss_fn(p):
        return F.cross_entropy(nn.functional_call(model, {**p, **buffers}, x), y)

    grads = paddle.grad(loss_fn)(params)
    assert set(grads) == set(params) and grads["0.weight"].shape == [4, 1, 3, 3]
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), grads[name].numpy(), rtol=1e-4, atol=1e-6)


def test_lenet_trains_with_functional_sgd():
    model = _lenet()
    x = t(RNG.normal(size=(16, 1, 8, 8)))
    y = paddle.to_tensor(RNG.integers(0, 3, size=16))
    _, params, buffers = nn.split(model)

    def loss_fn(p, b):
        out, new_b = nn.functional_call(model, {**p, **b}, x, return_buffers=True)
        return F.cross_entropy(out, y), new_b

    losses = []
    for _ in range(8):
        (loss, buffers), grads = paddle.value_and_grad(loss_fn, has_aux=True)(params, buffers)
        params = {k: v - 0.2 * grads[k] for k, v in params.items()}
        losses.append(float(loss))
    assert losses[-1] < 0.8 * losses[0], losses
    with paddle.no_grad():  # parameters are tape leaves: written in place only outside the tape, as optimizers do
        nn.update_state(model, {**params, **buffers})
    assert not np.allclose(model[1]._mean.numpy(), 0.0)  # the running statistics came back through the bridge
