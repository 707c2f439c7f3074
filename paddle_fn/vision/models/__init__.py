"""``paddle.vision.models``: classic image networks with Paddle's layer names, so Paddle's ``.pdparams`` weight
files load into them: `LeNet`, `VGG` (`vgg11`, `vgg13`, `vgg16`, `vgg19`), `ResNet` with `BasicBlock` /
`BottleneckBlock` (`resnet18` ... `resnet152`, the ResNeXts `resnext50_32x4d` ... `resnext152_64x4d`, the wide
ResNets `wide_resnet50_2` and `wide_resnet101_2`) and `MobileNetV2` (`mobilenet_v2`). ``pretrained=True`` reads the
weights from Paddle's download cache (``~/.cache/paddle/hapi/weights``) or from a path given as ``pretrained``;
paddle_fn never downloads.

Example:
    >>> from paddle_fn.vision.models import LeNet, resnet18
    >>> LeNet().fc[0].weight.shape, resnet18().fc.weight.shape
    (paddle.Size([400, 120]), paddle.Size([512, 1000]))
"""
from paddle_fn.vision.models.lenet import LeNet  # noqa: F401
from paddle_fn.vision.models.mobilenetv2 import MobileNetV2, mobilenet_v2  # noqa: F401
from paddle_fn.vision.models.resnet import (  # noqa: F401
    BasicBlock, BottleneckBlock, ResNet, resnet18, resnet34, resnet50, resnet101, resnet152, resnext50_32x4d,
    resnext50_64x4d, resnext101_32x4d, resnext101_64x4d, resnext152_32x4d, resnext152_64x4d, wide_resnet50_2,
    wide_resnet101_2)
from paddle_fn.vision.models.vgg import VGG, vgg11, vgg13, vgg16, vgg19  # noqa: F401

__all__ = ["LeNet", "VGG", "vgg11", "vgg13", "vgg16", "vgg19", "ResNet", "BasicBlock", "BottleneckBlock", "resnet18",
           "resnet34", "resnet50", "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d", "resnext101_32x4d",
           "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d", "wide_resnet50_2", "wide_resnet101_2",
           "MobileNetV2", "mobilenet_v2"]
