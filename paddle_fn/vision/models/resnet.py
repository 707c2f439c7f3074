"""Residual networks (``ResNet``, ``BasicBlock``, ``BottleneckBlock``, ``resnet18`` ... ``resnet152``) of
``paddle.vision.models``, with Paddle's layer names so its ``.pdparams`` files load."""
import paddle_fn as paddle
from paddle_fn import nn
from paddle_fn.vision.models._utils import load_pretrained

__all__ = ["ResNet", "BasicBlock", "BottleneckBlock", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152"]

# ResNeXt (groups x width per group) and wide ResNets (twice the bottleneck width), as Paddle names them
_VARIANTS = {**{f"resnext{d}_{g}x4d": (d, {"groups": g, "width": 4}) for d in (50, 101, 152) for g in (32, 64)},
             **{f"wide_resnet{d}_2": (d, {"width": 128}) for d in (50, 101)}}
_URLS = {arch: f"https://paddle-hapi.bj.bcebos.com/models/{arch}.pdparams"
         for arch in [f"resnet{d}" for d in (18, 34, 50, 101, 152)] + list(_VARIANTS)}

# residual blocks per stage for each depth
_LAYERS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


class BasicBlock(nn.Layer):
    """Two 3x3 convolutions with BatchNorm and a shortcut (ResNet-18/34).

    Args:
        inplanes (int): input channels.
        planes (int): output channels.
        stride (int, optional): stride of the first convolution. Default: 1.
        downsample (Layer, optional): applied to the shortcut when the shape changes. Default: None.
        groups (int, optional): must be 1. Default: 1.
        base_width (int, optional): must be 64. Default: 64.
        dilation (int, optional): must be 1. Default: 1.
        norm_layer (callable, optional): the normalization layer class. Default: ``nn.BatchNorm2D``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models.resnet import BasicBlock
        >>> BasicBlock(8, 8)(paddle.rand([1, 8, 6, 6])).shape
        paddle.Size([1, 8, 6, 6])
    """

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        norm_layer = norm_layer or nn.BatchNorm2D
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1, 3x3 and 1x1 convolutions with BatchNorm and a shortcut, widening by 4 (ResNet-50/101/152).

    Args:
        inplanes (int): input channels.
        planes (int): bottleneck channels (the output has ``4 * planes``).
        stride (int, optional): stride of the 3x3 convolution. Default: 1.
        downsample (Layer, optional): applied to the shortcut when the shape changes. Default: None.
        groups (int, optional): groups of the 3x3 convolution (ResNeXt). Default: 1.
        base_width (int, optional): width per group. Default: 64.
        dilation (int, optional): dilation of the 3x3 convolution. Default: 1.
        norm_layer (callable, optional): the normalization layer class. Default: ``nn.BatchNorm2D``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models.resnet import BottleneckBlock
        >>> down = paddle.nn.Sequential(paddle.nn.Conv2D(8, 16, 1, bias_attr=False), paddle.nn.BatchNorm2D(16))
        >>> BottleneckBlock(8, 4, downsample=down)(paddle.rand([1, 8, 5, 5])).shape
        paddle.Size([1, 16, 5, 5])
    """

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64, dilation=1,
                 norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups, dilation=dilation,
                               bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Layer):
    """ResNet: a 7x7 stem, a 3x3 max-pool, four stages of residual blocks, global average pooling and a Linear
    classifier (Paddle's ``paddle.vision.models.ResNet``).

    Args:
        block (BasicBlock|BottleneckBlock): the residual block class.
        depth (int, optional): 18, 34, 50, 101 or 152. Default: 50.
        width (int, optional): base width per group of the bottleneck blocks. Default: 64.
        num_classes (int, optional): classes; 0 or less leaves the classifier out. Default: 1000.
        with_pool (bool, optional): global average pooling before the classifier. Default: True.
        groups (int, optional): groups of the 3x3 convolutions (ResNeXt). Default: 1.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models import ResNet, BasicBlock
        >>> net = ResNet(BasicBlock, depth=18, num_classes=10)
        >>> net(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in _LAYERS:
            raise ValueError(f"ResNet: depth must be one of {sorted(_LAYERS)}, got {depth}")
        layers = _LAYERS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width, previous_dilation,
                        norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups, base_width=self.base_width,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(paddle.flatten(x, 1))
        return x


def _resnet(arch, block, depth, pretrained, **kwargs):
    model = ResNet(block, depth, **kwargs)
    if pretrained:
        load_pretrained(model, arch, _URLS.get(arch), pretrained)
    return model


def resnet18(pretrained=False, **kwargs):
    """ResNet-18 (BasicBlock), 11,699,112 parameters and statistics for 1000 classes.

    Args:
        pretrained (bool|str, optional): load ImageNet weights from Paddle's cache
            (``~/.cache/paddle/hapi/weights/resnet18.pdparams``) or from this ``.pdparams`` path; paddle_fn never
            downloads. Default: False.
        **kwargs: ``num_classes``, ``with_pool``, ``width``, ``groups`` (see ``ResNet``).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models import resnet18
        >>> model = resnet18(num_classes=10)
        >>> model(paddle.rand([1, 3, 64, 64])).shape
        paddle.Size([1, 10])
    """
    return _resnet("resnet18", BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34 (BasicBlock), 21,814,696 parameters and statistics. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnet34
        >>> [len(getattr(resnet34(num_classes=0), f"layer{i}")) for i in (1, 2, 3, 4)]
        [3, 4, 6, 3]
    """
    return _resnet("resnet34", BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50 (BottleneckBlock), 25,610,152 parameters and statistics. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnet50
        >>> resnet50().fc.weight.shape
        paddle.Size([2048, 1000])
    """
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101 (BottleneckBlock). Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnet101
        >>> len(resnet101(num_classes=0).layer3)
        23
    """
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152 (BottleneckBlock). Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnet152
        >>> len(resnet152(num_classes=0).layer3)
        36
    """
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, **kwargs)


def _variant(arch, pretrained, kwargs):
    depth, preset = _VARIANTS[arch]
    return _resnet(arch, BottleneckBlock, depth, pretrained, **{**kwargs, **preset})


def resnext50_32x4d(pretrained=False, **kwargs):
    """ResNeXt-50 32x4d: ResNet-50's bottlenecks with 3x3 convolutions of 32 groups of 4 channels per 64 planes.
    Arguments as ``resnet18`` (``groups`` and ``width`` are set).

    Example:
        >>> from paddle_fn.vision.models import resnext50_32x4d
        >>> resnext50_32x4d(num_classes=10).layer1[0].conv2.weight.shape
        paddle.Size([128, 4, 3, 3])
    """
    return _variant("resnext50_32x4d", pretrained, kwargs)


def resnext50_64x4d(pretrained=False, **kwargs):
    """ResNeXt-50 64x4d (64 groups). Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnext50_64x4d
        >>> resnext50_64x4d(num_classes=10).layer1[0].conv2._groups
        64
    """
    return _variant("resnext50_64x4d", pretrained, kwargs)


def resnext101_32x4d(pretrained=False, **kwargs):
    """ResNeXt-101 32x4d. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnext101_32x4d
        >>> len(resnext101_32x4d(num_classes=0).layer3)
        23
    """
    return _variant("resnext101_32x4d", pretrained, kwargs)


def resnext101_64x4d(pretrained=False, **kwargs):
    """ResNeXt-101 64x4d. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnext101_64x4d
        >>> resnext101_64x4d(num_classes=0).layer1[0].conv2.weight.shape
        paddle.Size([256, 4, 3, 3])
    """
    return _variant("resnext101_64x4d", pretrained, kwargs)


def resnext152_32x4d(pretrained=False, **kwargs):
    """ResNeXt-152 32x4d. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnext152_32x4d
        >>> len(resnext152_32x4d(num_classes=0).layer3)
        36
    """
    return _variant("resnext152_32x4d", pretrained, kwargs)


def resnext152_64x4d(pretrained=False, **kwargs):
    """ResNeXt-152 64x4d. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import resnext152_64x4d
        >>> len(resnext152_64x4d(num_classes=0).layer2)
        8
    """
    return _variant("resnext152_64x4d", pretrained, kwargs)


def wide_resnet50_2(pretrained=False, **kwargs):
    """Wide ResNet-50-2: ResNet-50 with bottlenecks twice as wide. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import wide_resnet50_2
        >>> wide_resnet50_2(num_classes=10).layer1[0].conv2.weight.shape
        paddle.Size([128, 128, 3, 3])
    """
    return _variant("wide_resnet50_2", pretrained, kwargs)


def wide_resnet101_2(pretrained=False, **kwargs):
    """Wide ResNet-101-2. Arguments as ``resnet18``.

    Example:
        >>> from paddle_fn.vision.models import wide_resnet101_2
        >>> len(wide_resnet101_2(num_classes=0).layer3)
        23
    """
    return _variant("wide_resnet101_2", pretrained, kwargs)
