"""``paddle.vision.ops``: the building blocks and detection operators of Paddle's vision models.

`ConvNormActivation` is the convolution + normalization + activation block MobileNet, EfficientNet-style and
detection backbones are written with; `nms` and `box_iou` are non-maximum suppression and box overlaps for
detection heads (eager: their results decide which boxes exist, a data-dependent shape).
"""
from __future__ import annotations

import numpy as np

import paddle_fn as paddle
from paddle_fn import nn

__all__ = ["ConvNormActivation", "box_iou", "nms"]


class ConvNormActivation(nn.Sequential):
    """``Conv2D`` -> normalization -> activation, as one Sequential (Paddle's ``paddle.vision.ops``).

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        kernel_size (int): convolution kernel size. Default: 3.
        stride (int): convolution stride. Default: 1.
        padding (int, optional): the padding; None keeps the spatial size at stride 1:
            ``(kernel_size - 1) // 2 * dilation``.
        groups (int): convolution groups. Default: 1.
        norm_layer (callable, optional): the normalization Layer class (called with ``out_channels``); None for
            none. Default: ``nn.BatchNorm2D``.
        activation_layer (callable, optional): the activation Layer class; None for none. Default: ``nn.ReLU``.
        dilation (int): convolution dilation. Default: 1.
        bias (bool, optional): give the convolution a bias; None gives it one only without a norm layer.

    Example:
        >>> import paddle_fn as paddle
        >>> block = paddle.vision.ops.ConvNormActivation(3, 8, stride=2)
        >>> block(paddle.ones([1, 3, 16, 16])).shape
        paddle.Size([1, 8, 8, 8])
        >>> [type(layer).__name__ for layer in block]
        ['Conv2D', 'BatchNorm2D', 'ReLU']
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None, groups=1,
                 norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1, bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding, dilation=dilation,
                            groups=groups, bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


def _boxes(x, what):
    a = np.asarray(x.numpy() if isinstance(x, paddle.Tensor) else x, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 4:
        raise ValueError(f"{what}: boxes must have shape [N, 4] as (x1, y1, x2, y2), got {list(a.shape)}")
    return a


def _iou(a, b):
    """IoU of every box of `a` with every box of `b` (numpy, (x1, y1, x2, y2), areas as Paddle: no +1)."""
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    low = np.maximum(a[:, None, :2], b[None, :, :2])
    high = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(high - low, 0, None), axis=-1)
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union > 0, inter / union, 0.0)


def box_iou(boxes1, boxes2):
    """The IoU of every box of `boxes1` ([N, 4]) with every box of `boxes2` ([M, 4]) as an [N, M] Tensor; boxes
    are (x1, y1, x2, y2).

    Example:
        >>> import paddle_fn as paddle
        >>> a = paddle.to_tensor([[0., 0., 2., 2.]])
        >>> b = paddle.to_tensor([[1., 1., 3., 3.], [4., 4., 5., 5.]])
        >>> paddle.vision.ops.box_iou(a, b).numpy().round(4)
        array([[0.1429, 0.    ]], dtype=float32)
    """
    a, b = _boxes(boxes1, "box_iou"), _boxes(boxes2, "box_iou")
    dtype = boxes1.dtype if isinstance(boxes1, paddle.Tensor) else "float32"
    return paddle.to_tensor(_iou(a, b)).astype(dtype)


def _suppress(boxes, order, threshold):
    """Greedy NMS over `order` (indices, best first): keep a box unless it overlaps a kept one above threshold."""
    keep = []
    suppressed = np.zeros(len(order), bool)
    overlaps = _iou(boxes[order], boxes[order])
    for rank, index in enumerate(order):
        if suppressed[rank]:
            continue
        keep.append(index)
        suppressed |= overlaps[rank] > threshold
    return keep


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None, top_k=None):
    """Non-maximum suppression: the indices (int64, best score first) of the boxes kept, each dropping every
    lower-scored box that overlaps it with IoU above `iou_threshold`. With `category_idxs`, boxes of different
    categories never suppress each other (only the `categories` listed take part).

    Args:
        boxes (Tensor): [N, 4] boxes as (x1, y1, x2, y2).
        iou_threshold (float): the IoU above which a box is suppressed. Default: 0.3.
        scores (Tensor, optional): [N] scores; without them the boxes are taken to be sorted best first.
        category_idxs (Tensor, optional): [N] category of each box (needs `scores` and `categories`).
        categories (list, optional): the categories to keep boxes of.
        top_k (int, optional): keep at most this many (the best scored).

    Example:
        >>> import paddle_fn as paddle
        >>> boxes = paddle.to_tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [20., 20., 30., 30.]])
        >>> scores = paddle.to_tensor([0.9, 0.8, 0.7])
        >>> paddle.vision.ops.nms(boxes, 0.5, scores).numpy()
        array([0, 2])
        >>> paddle.vision.ops.nms(boxes, 0.5, scores, paddle.to_tensor([0, 1, 0]), [0, 1]).numpy()
        array([0, 1, 2])
    """
    b = _boxes(boxes, "nms")
    if scores is None:
        if category_idxs is not None:
            raise ValueError("nms: category_idxs needs scores (which box of a category is best)")
        order = np.arange(len(b))
    else:
        s = np.asarray(scores.numpy() if isinstance(scores, paddle.Tensor) else scores, dtype=np.float64)
        if s.shape != (len(b),):
            raise ValueError(f"nms: scores must have shape [{len(b)}] (one per box), got {list(s.shape)}")
        order = np.argsort(-s, kind="stable")
    if category_idxs is None:
        keep = _suppress(b, order, iou_threshold)
    else:
        if categories is None:
            raise ValueError("nms: category_idxs needs categories, the list of categories to keep boxes of")
        c = np.asarray(category_idxs.numpy() if isinstance(category_idxs, paddle.Tensor) else category_idxs)
        if c.shape != (len(b),):
            raise ValueError(f"nms: category_idxs must have shape [{len(b)}], got {list(c.shape)}")
        keep = []
        for category in categories:
            keep += _suppress(b, order[c[order] == category], iou_threshold)
        rank = {index: r for r, index in enumerate(order)}
        keep.sort(key=rank.__getitem__)
    if top_k is not None:
        keep = keep[:int(top_k)]
    return paddle.to_tensor(np.asarray(keep, dtype=np.int64))
