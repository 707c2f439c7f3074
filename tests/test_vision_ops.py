"""paddle.vision.ops: ConvNormActivation as Paddle builds it; nms and box_iou against a loop written here."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import nn
from paddle_fn.vision.ops import ConvNormActivation, box_iou, nms


def test_conv_norm_activation_layers_padding_and_bias():
    block = ConvNormActivation(4, 6, kernel_size=5, stride=2, dilation=2, groups=2)
    conv = block[0]
    assert [type(m).__name__ for m in block] == ["Conv2D", "BatchNorm2D", "ReLU"]
    assert conv.bias is None and conv.weight.shape == [6, 2, 5, 5]
    assert block(paddle.ones([1, 4, 20, 20])).shape == [1, 6, 10, 10]  # padding (5-1)//2*2 keeps 20 -> 10
    bare = ConvNormActivation(3, 3, norm_layer=None, activation_layer=nn.Hardswish)
    assert [type(m).__name__ for m in bare] == ["Conv2D", "Hardswish"] and bare[0].bias is not None


def _reference_nms(boxes, scores, threshold):
    order = list(np.argsort(-scores, kind="stable"))
    keep = []
    while order:
        best = order.pop(0)
        keep.append(best)
        order = [i for i in order if _iou(boxes[best], boxes[i]) <= threshold]
    return keep


def _iou(a, b):
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.7])
def test_nms_matches_greedy_suppression(threshold):
    rng = np.random.default_rng(int(threshold * 10))
    xy = rng.uniform(0, 50, size=(60, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(5, 25, size=(60, 2))], axis=1)
    scores = rng.uniform(size=60)
    got = nms(paddle.to_tensor(boxes), threshold, paddle.to_tensor(scores)).numpy()
    assert got.dtype == np.int64 and list(got) == _reference_nms(boxes, scores, threshold)
    assert list(nms(paddle.to_tensor(boxes), threshold, paddle.to_tensor(scores), top_k=3).numpy()) == \
        _reference_nms(boxes, scores, threshold)[:3]


def test_nms_by_category_and_without_scores():
    boxes = paddle.to_tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [0., 0., 10., 9.]])
    scores = paddle.to_tensor([0.5, 0.9, 0.8])
    assert list(nms(boxes, 0.5, scores).numpy()) == [1]
    assert list(nms(boxes, 0.5, scores, paddle.to_tensor([0, 1, 0]), [0, 1]).numpy()) == [1, 2]
    assert list(nms(boxes, 0.5, scores, paddle.to_tensor([0, 1, 0]), [0]).numpy()) == [2]
    assert list(nms(boxes, 0.5).numpy()) == [0]  # taken as sorted best first
    with pytest.raises(ValueError, match="category_idxs needs categories"):
        nms(boxes, 0.5, scores, paddle.to_tensor([0, 1, 0]))
    with pytest.raises(ValueError, match=r"\[N, 4\]"):
        nms(paddle.ones([3, 5]))


def test_box_iou():
    a = np.array([[0., 0., 4., 4.], [2., 2., 6., 6.]])
    b = np.array([[0., 0., 4., 4.], [10., 10., 11., 11.], [3., 3., 5., 5.]])
    got = box_iou(paddle.to_tensor(a), paddle.to_tensor(b)).numpy()
    want = np.array([[_iou(x, y) for y in b] for x in a])
    np.testing.assert_allclose(got, want, rtol=1e-12)
