"""paddle.vision.models: Paddle 3.3.1's parameter counts, state_dict names and outputs on the same weights,
pretrained loading from a file, and a short training run."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.vision import models


def _count(net):
    return sum(int(np.prod(v.shape)) for v in net.state_dict().values())


@pytest.mark.parametrize("name, total, entries", [
    # Paddle 3.3.1: sum of the state_dict sizes (parameters and BatchNorm statistics) and its length
    ("LeNet", 61610, 10), ("resnet18", 11699112, 102), ("resnet50", 25610152, 267), ("mobilenet_v2", 3538984, 262),
    ("resnext50_32x4d", 25097128, 267), ("resnext50_64x4d", 45290920, 267),
    ("wide_resnet50_2", 68951464, 267)])
def test_parameter_counts_equal_paddle(name, total, entries):
    net = getattr(models, name)()
    assert _count(net) == total and len(net.state_dict()) == entries


@pytest.mark.parametrize("name, total", [("vgg11", 132863336), ("vgg16", 138357544)])
def test_vgg_counts_equal_paddle(name, total):
    # the 120M-parameter classifier is slow to initialise; count it in closed form
    classifier = 512 * 7 * 7 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 1000 + 1000
    assert _count(getattr(models, name)(num_classes=0)) + classifier == total


def test_state_dict_names_are_paddles():
    keys = list(models.resnet18().state_dict())
    assert keys[:5] == ["conv1.weight", "bn1.weight", "bn1.bias", "bn1._mean", "bn1._variance"]
    assert "layer2.0.downsample.0.weight" in keys and keys[-2:] == ["fc.weight", "fc.bias"]
    keys = list(models.mobilenet_v2().state_dict())
    assert keys[:2] == ["features.0.0.weight", "features.0.1.weight"] and "features.1.conv.1.weight" in keys
    assert list(models.vgg16(batch_norm=True, num_classes=0).state_dict())[:3] == [
        "features.0.weight", "features.0.bias", "features.1.weight"]


def _fill(net):
    """Deterministic weights, the same in the script run under Paddle 3.3.1."""
    state = {}
    for i, (k, v) in enumerate(net.state_dict().items()):
        w = 0.05 * np.sin(np.arange(int(np.prod(v.shape))) * 0.37 + i)
        state[k] = (1.0 + np.abs(w) if k.endswith("_variance") else w).reshape(v.shape).astype("float32")
    net.set_state_dict(state)
    net.eval()
    return net


@pytest.mark.parametrize("name, shape, first, total", [
    ("LeNet", (2, 1, 28, 28), [0.018148, 0.000266, -0.017652, -0.033182], -0.49709),
    ("resnet18", (1, 3, 32, 32), [0.003741, 0.012932, 0.020373, 0.025056], 0.01921),
    ("mobilenet_v2", (1, 3, 32, 32), [-0.016756, -0.028795, -0.036937, -0.040079], -0.00813)])
def test_outputs_equal_paddle_on_the_same_weights(name, shape, first, total):
    net = _fill(getattr(models, name)())
    x = paddle.to_tensor((0.5 * np.cos(np.arange(np.prod(shape)) * 0.11)).reshape(shape).astype("float32"))
    y = net(x).numpy()
    np.testing.assert_allclose(y.ravel()[:4], first, atol=2e-6)
    assert float(y.sum()) == pytest.approx(total, abs=2e-5)


def test_shapes_and_options():
    x = paddle.rand([1, 3, 32, 32])
    assert models.resnet18(num_classes=0, with_pool=False)(x).shape == [1, 512, 1, 1]
    assert models.MobileNetV2(scale=0.25, num_classes=0)(x).shape == [1, 1280, 1, 1]
    assert models.LeNet(num_classes=0)(paddle.rand([2, 1, 28, 28])).shape == [2, 16, 5, 5]
    with pytest.raises(ValueError, match="depth"):
        models.ResNet(models.BasicBlock, depth=20)
    with pytest.raises(NotImplementedError, match="Dilation"):
        models.BasicBlock(4, 4, dilation=2)


def test_pretrained_from_a_file_and_a_clear_error_without_one(tmp_path, monkeypatch):
    net = _fill(models.mobilenet_v2(scale=0.25, num_classes=10))
    path = str(tmp_path / "w.pdparams")
    paddle.save(net.state_dict(), path)
    loaded = models.mobilenet_v2(pretrained=path, scale=0.25, num_classes=10)
    for (k, a), b in zip(net.state_dict().items(), loaded.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    monkeypatch.setattr("paddle_fn.vision.models._utils.WEIGHTS_HOME", str(tmp_path / "cache"))
    with pytest.raises(FileNotFoundError, match="mobilenet_v2_x1.0.pdparams.*does not download"):
        models.mobilenet_v2(pretrained=True, scale=1.0, num_classes=0)
    with pytest.raises(ValueError, match="pretrained=False"):
        models.vgg11(pretrained=True, num_classes=0)


def test_lenet_trains_with_model_fit():
    paddle.seed(1)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, size=(64, 1))
    # class 1 images are brighter in the top half
    x = rng.normal(size=(64, 1, 28, 28)).astype("float32")
    x[:, :, :14] += 0.5 * y[:, :, None, None]
    batches = [(x[i:i + 16], y[i:i + 16]) for i in range(0, 64, 16)]
    model = paddle.Model(models.LeNet(num_classes=2))
    model.prepare(paddle.optimizer.Adam(0.003, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    before = model.evaluate(batches, verbose=0)
    model.fit(batches, epochs=8, verbose=0)
    after = model.evaluate(batches, verbose=0)
    assert after["loss"][0] < 0.5 * before["loss"][0] and after["acc"] > 0.9
