"""Paddle 3.3's fixed-mode padding layers (ZeroPad1D/3D, ConstantPad, ReflectionPad, ReplicationPad, CircularPad
1D/2D/3D), Unflatten, ChannelShuffle / F.channel_shuffle, PixelUnshuffle / F.pixel_unshuffle, Softmax2D and the
Silu alias: against numpy (np.pad modes constant / reflect / edge / wrap, reshapes), against answers Paddle 3.3.1
gave for the padding order of every rank and data_format, gradients, jit, reprs and errors."""
import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn import nn

RNG = np.random.default_rng(0)
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}
LAYERS = {  # (rank of the spatial part, mode) -> the layer class
    (1, "constant"): nn.ConstantPad1D, (2, "constant"): nn.ConstantPad2D, (3, "constant"): nn.ConstantPad3D,
    (1, "reflect"): nn.ReflectionPad1D, (2, "reflect"): nn.ReflectionPad2D, (3, "reflect"): nn.ReflectionPad3D,
    (1, "replicate"): nn.ReplicationPad1D, (2, "replicate"): nn.ReplicationPad2D,
    (3, "replicate"): nn.ReplicationPad3D, (1, "circular"): nn.CircularPad1D, (2, "circular"): nn.CircularPad2D,
    (3, "circular"): nn.CircularPad3D,
}
FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def arange(*shape):
    return paddle.to_tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))


def np_pad(x, padding, mode, value, channel_last):
    """numpy's reference: Paddle's list runs from the last spatial axis to the first, two ints per axis."""
    n = len(padding) // 2
    spatial = list(range(1, 1 + n)) if channel_last else list(range(2, 2 + n))
    widths = [(0, 0)] * x.ndim
    for i, axis in enumerate(reversed(spatial)):
        widths[axis] = (padding[2 * i], padding[2 * i + 1])
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode=NP_MODE[mode])


CASES = [(n, mode, fmt) for (n, mode) in LAYERS for fmt in FORMATS[n]]


@pytest.mark.parametrize("n, mode, fmt", CASES, ids=[f"{LAYERS[c[:2]].__name__}-{c[2]}" for c in CASES])
def test_each_padding_layer_equals_numpy_pad(n, mode, fmt):
    x = RNG.normal(size=(2, 3) + (4, 5, 3)[:n]).astype(np.float32)
    if fmt[1] != "C":  # channel-last: move the channels to the end
        x = np.moveaxis(x, 1, -1).copy()
    padding = [1, 2, 0, 3, 2, 1][:2 * n]
    layer = LAYERS[n, mode](padding, 2.5, fmt) if mode == "constant" else LAYERS[n, mode](padding, fmt)
    want = np_pad(x, padding, mode, 2.5, fmt[1] != "C")
    np.testing.assert_array_equal(layer(paddle.to_tensor(x)).numpy(), want)


@pytest.mark.parametrize("layer, n", [(nn.ZeroPad1D, 1), (nn.ZeroPad2D, 2), (nn.ZeroPad3D, 3)])
def test_zero_pad_layers_and_an_int_padding_pad_every_side(layer, n):
    x = RNG.normal(size=(1, 2) + (3,) * n).astype(np.float32)
    np.testing.assert_array_equal(layer(2)(paddle.to_tensor(x)).numpy(), np.pad(x, [(0, 0), (0, 0)] + [(2, 2)] * n))
    assert layer(1).padding == [1] * (2 * n)
    np.testing.assert_array_equal(layer(paddle.to_tensor([1, 0] * n))(paddle.to_tensor(x)).numpy(),
                                  np.pad(x, [(0, 0), (0, 0)] + [(1, 0)] * n))


# What Paddle 3.3.1 printed (`.astype('int64').tolist()` of the layer applied to arange(prod(shape)).reshape(shape)).
PADDLE = [
    (nn.ZeroPad1D([1, 2]), (1, 2, 2), [[[0, 0, 1, 0, 0], [0, 2, 3, 0, 0]]]),
    (nn.ZeroPad1D([1, 2], "NLC"), (1, 2, 2), [[[0, 0], [0, 1], [2, 3], [0, 0], [0, 0]]]),
    (nn.ConstantPad2D([1, 0, 2, 0], 7.0), (1, 1, 2, 2), [[[[7, 7, 7], [7, 7, 7], [7, 0, 1], [7, 2, 3]]]]),
    (nn.ConstantPad2D([1, 0, 2, 0], 7.0, "NHWC"), (1, 2, 2, 1),
     [[[[7], [7], [7]], [[7], [7], [7]], [[7], [0], [1]], [[7], [2], [3]]]]),
    (nn.ZeroPad3D([1, 0, 0, 0, 0, 1]), (1, 1, 1, 1, 2), [[[[[0, 0, 1]], [[0, 0, 0]]]]]),
    (nn.ZeroPad3D([1, 0, 0, 0, 0, 1], "NDHWC"), (1, 1, 1, 2, 1), [[[[[0], [0], [1]]], [[[0], [0], [0]]]]]),
    (nn.ReflectionPad1D([2, 1]), (1, 1, 4), [[[2, 1, 0, 1, 2, 3, 2]]]),
    (nn.ReflectionPad2D([1, 0, 0, 1]), (1, 1, 2, 3), [[[[1, 0, 1, 2], [4, 3, 4, 5], [1, 0, 1, 2]]]]),
    (nn.ReflectionPad3D([0, 1, 0, 0, 1, 0]), (1, 1, 2, 1, 2), [[[[[2, 3, 2]], [[0, 1, 0]], [[2, 3, 2]]]]]),
    (nn.ReplicationPad1D([1, 2], "NLC"), (1, 2, 2), [[[0, 1], [0, 1], [2, 3], [2, 3], [2, 3]]]),
    (nn.ReplicationPad2D([0, 1, 2, 0]), (1, 1, 2, 2), [[[[0, 1, 1], [0, 1, 1], [0, 1, 1], [2, 3, 3]]]]),
    (nn.ReplicationPad3D([1, 0, 0, 1, 0, 0]), (1, 1, 1, 2, 2), [[[[[0, 0, 1], [2, 2, 3], [2, 2, 3]]]]]),
    (nn.CircularPad1D([1, 2]), (1, 1, 3), [[[2, 0, 1, 2, 0, 1]]]),
    (nn.CircularPad2D([1, 0, 0, 1], "NHWC"), (1, 2, 2, 1), [[[[1], [0], [1]], [[3], [2], [3]], [[1], [0], [1]]]]),
    (nn.CircularPad3D([0, 0, 1, 0, 0, 1]), (1, 1, 2, 2, 1), [[[[[1], [0], [1]], [[3], [2], [3]], [[1], [0], [1]]]]]),
    (nn.ChannelShuffle(2), (1, 4, 1, 1), [[[[0]], [[2]], [[1]], [[3]]]]),
    (nn.ChannelShuffle(3), (1, 6, 1, 1), [[[[0]], [[2]], [[4]], [[1]], [[3]], [[5]]]]),
    (nn.ChannelShuffle(2, "NHWC"), (1, 1, 1, 6), [[[[0, 3, 1, 4, 2, 5]]]]),
    (nn.PixelUnshuffle(2), (1, 1, 2, 4), [[[[0, 2]], [[1, 3]], [[4, 6]], [[5, 7]]]]),
    (nn.PixelUnshuffle(2, "NHWC"), (1, 2, 2, 2), [[[[0, 2, 4, 6, 1, 3, 5, 7]]]]),
]


@pytest.mark.parametrize("layer, shape, want", PADDLE, ids=[f"{p[0]!r}" for p in PADDLE])
def test_layers_give_paddle_3_3_1s_answers(layer, shape, want):
    assert layer(arange(*shape)).astype("int64").tolist() == want


@pytest.mark.parametrize("layer, text", [
    (nn.ZeroPad1D(1), "ZeroPad1D(padding=[1, 1], mode=constant, value=0.0, data_format=NCL)"),
    (nn.ConstantPad2D(1, 2.0), "ConstantPad2D(padding=[1, 1, 1, 1], mode=constant, value=2.0, data_format=NCHW)"),
    (nn.ReflectionPad3D([1, 0, 0, 0, 0, 1]),
     "ReflectionPad3D(padding=[1, 0, 0, 0, 0, 1], mode=reflect, value=0.0, data_format=NCDHW)"),
    (nn.CircularPad1D(2, "NLC"), "CircularPad1D(padding=[2, 2], mode=circular, value=0.0, data_format=NLC)"),
    (nn.Unflatten(1, [2, 3]), "Unflatten(axis=1, shape=[2, 3])"),
    (nn.ChannelShuffle(2), "ChannelShuffle(groups=2)"),
    (nn.ChannelShuffle(2, "NHWC", name="a"), "ChannelShuffle(groups=2, data_format=NHWC, name=a)"),
    (nn.PixelUnshuffle(2), "PixelUnshuffle(downscale_factor=2)"),
    (nn.PixelUnshuffle(2, "NHWC", name="b"), "PixelUnshuffle(downscale_factor=2, data_format=NHWC, name=b)"),
    (nn.Softmax2D(), "Softmax2D()"),
])
def test_reprs_are_paddles(layer, text):
    assert repr(layer) == text


def test_pixel_unshuffle_and_channel_shuffle_equal_numpy_reshapes_in_both_layouts():
    x = RNG.normal(size=(2, 3, 4, 6)).astype(np.float32)
    want = x.reshape(2, 3, 2, 2, 3, 2).transpose(0, 1, 3, 5, 2, 4).reshape(2, 12, 2, 3)
    np.testing.assert_array_equal(F.pixel_unshuffle(paddle.to_tensor(x), 2).numpy(), want)
    nhwc = F.pixel_unshuffle(paddle.to_tensor(x.transpose(0, 2, 3, 1)), 2, data_format="NHWC")
    np.testing.assert_array_equal(nhwc.numpy(), want.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(F.pixel_shuffle(F.pixel_unshuffle(paddle.to_tensor(x), 2), 2).numpy(), x)
    y = RNG.normal(size=(2, 6, 3, 2)).astype(np.float32)
    want = y.reshape(2, 2, 3, 3, 2).transpose(0, 2, 1, 3, 4).reshape(2, 6, 3, 2)
    np.testing.assert_array_equal(nn.ChannelShuffle(2)(paddle.to_tensor(y)).numpy(), want)
    nhwc = F.channel_shuffle(paddle.to_tensor(y.transpose(0, 2, 3, 1)), 2, data_format="NHWC")
    np.testing.assert_array_equal(nhwc.numpy(), want.transpose(0, 2, 3, 1))


def test_unflatten_softmax2d_and_silu():
    x = RNG.normal(size=(4, 6, 8)).astype(np.float32)
    np.testing.assert_array_equal(nn.Unflatten(1, [2, -1])(paddle.to_tensor(x)).numpy(), x.reshape(4, 2, 3, 8))
    np.testing.assert_array_equal(nn.Unflatten(-1, (2, 2, 2))(paddle.to_tensor(x)).numpy(), x.reshape(4, 6, 2, 2, 2))
    for shape in [(3, 2, 5), (2, 3, 2, 5)]:
        z = RNG.normal(size=shape).astype(np.float32)
        e = np.exp(z - z.max(axis=-3, keepdims=True))
        np.testing.assert_allclose(nn.Softmax2D()(paddle.to_tensor(z)).numpy(), e / e.sum(axis=-3, keepdims=True),
                                   rtol=1e-6)
    assert nn.Silu is nn.SiLU  # as in Paddle 3.3, one class under two names
    np.testing.assert_allclose(nn.Silu()(paddle.to_tensor([0.0, 1.0])).numpy(), [0.0, 1 / (1 + np.exp(-1))],
                               rtol=1e-6)


def test_gradients_count_how_often_each_input_is_copied():
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0]).reshape([1, 1, 4])
    # ReflectionPad1D([2, 1]) reads inputs 2, 1, 0, 1, 2, 3, 2: x[1] twice, x[2] three times
    g = paddle.grad(lambda t: nn.ReflectionPad1D([2, 1])(t).sum())(x)
    np.testing.assert_array_equal(g.numpy(), [[[1.0, 2.0, 3.0, 1.0]]])
    g = paddle.grad(lambda t: nn.CircularPad1D([1, 2])(t).sum())(x)
    np.testing.assert_array_equal(g.numpy(), [[[2.0, 2.0, 1.0, 2.0]]])
    g = paddle.grad(lambda t: (nn.ConstantPad1D(1, 5.0)(t) ** 2).sum())(x)
    np.testing.assert_array_equal(g.numpy(), 2 * x.numpy())
    # a permutation: the gradient of sum(w * unshuffle(x)) is w shuffled back
    w = arange(1, 4, 1, 2)
    g = paddle.grad(lambda t: (nn.PixelUnshuffle(2)(t) * w).sum())(arange(1, 1, 2, 4))
    np.testing.assert_array_equal(g.numpy(), F.pixel_shuffle(w, 2).numpy())


def test_layers_run_under_jit():
    x = arange(1, 4, 4, 2)
    f = paddle.jit(lambda t: nn.ChannelShuffle(2)(nn.ReplicationPad2D([1, 0, 0, 1])(nn.Softmax2D()(t))))
    np.testing.assert_allclose(f(x).numpy(), nn.ChannelShuffle(2)(nn.ReplicationPad2D([1, 0, 0, 1])(
        nn.Softmax2D()(x))).numpy(), rtol=1e-6)


@pytest.mark.parametrize("make, call, match", [
    (lambda: nn.ZeroPad1D([1, 2, 3]), None, "ZeroPad1D: padding needs 1 or 2 ints"),
    (lambda: nn.ReflectionPad2D(1, "NCL"), None, "ReflectionPad2D: data_format must be 'NCHW' or 'NHWC'"),
    (lambda: nn.ReflectionPad1D(3), (1, 1, 3), r"ReflectionPad1D: reflect padding \(3, 3\) of axis 2 must be smaller "
                                               r"than its size 3 \(input shape \[1, 1, 3\]\)"),
    (lambda: nn.ReplicationPad2D(1), (1, 1, 3), r"ReplicationPad2D: expects a 4-D input \(NCHW\), got shape "
                                                r"\[1, 1, 3\]; use the 1D layer"),
    (lambda: nn.ChannelShuffle(2, "NCL"), None, "ChannelShuffle: data_format must be 'NCHW' or 'NHWC'"),
    (lambda: nn.ChannelShuffle(0), None, "ChannelShuffle: groups must be a positive int, got 0"),
    (lambda: nn.ChannelShuffle(3), (1, 4, 1, 1), r"channel_shuffle: groups 3 must divide the 4 channels"),
    (lambda: nn.PixelUnshuffle(2), (1, 1, 3, 4), r"pixel_unshuffle: downscale_factor 2 must divide both height 3"),
    (lambda: nn.PixelUnshuffle(2), (1, 4, 4), r"pixel_unshuffle: expects a 4-D input \(NCHW\), got shape \[1, 4, 4\]"),
    (lambda: nn.Softmax2D(), (2, 2), r"Softmax2D: expects a 3-D \[C, H, W\] or 4-D \[N, C, H, W\] input, got shape"),
    (lambda: nn.Unflatten(1, [4, 2]), (2, 6), r"unflatten: shape \[4, 2\] holds 8 elements"),
])
def test_bad_input_names_the_layer_and_the_shapes(make, call, match):
    with pytest.raises(ValueError, match=match):
        layer = make()
        if call is not None:
            layer(arange(*call))
