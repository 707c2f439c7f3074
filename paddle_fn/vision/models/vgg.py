"""VGG networks (``VGG``, ``vgg11``, ``vgg13``, ``vgg16``, ``vgg19``) of ``paddle.vision.models``."""
import paddle_fn as paddle
from paddle_fn import nn
from paddle_fn.vision.models._utils import load_pretrained

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19"]

# Paddle publishes ImageNet weights for vgg16 only
_URLS = {"vgg16": "https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams"}

# channels of each 3x3 convolution, "M" a 2x2 max-pool (configurations A, B, D, E of the VGG paper)
_CFGS = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False):
    """The convolutional part of a VGG from a configuration list (channels, or ``'M'`` for max-pooling)."""
    layers, in_channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """VGG: ``features`` (from ``make_layers``), a 7x7 adaptive average pool and a three-layer classifier with
    dropout, as Paddle's ``paddle.vision.models.VGG``.

    Args:
        features (Layer): the convolutional part, e.g. ``make_layers(cfg, batch_norm)``.
        num_classes (int, optional): classes; 0 or less leaves the classifier out. Default: 1000.
        with_pool (bool, optional): apply the 7x7 adaptive average pool. Default: True.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models.vgg import VGG, make_layers
        >>> model = VGG(make_layers([8, "M", 16, "M"]), num_classes=0, with_pool=False)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 16, 8, 8])
    """

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(paddle.flatten(x, 1))
        return x


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    model = VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)
    if pretrained:
        load_pretrained(model, arch, _URLS.get(arch), pretrained)
    return model


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG 11-layer model (configuration A), 132,863,336 parameters for 1000 classes.

    Args:
        pretrained (bool|str, optional): load ImageNet weights (Paddle publishes them for vgg16 only) from
            Paddle's cache or from this ``.pdparams`` path. Default: False.
        batch_norm (bool, optional): BatchNorm2D after each convolution. Default: False.
        **kwargs: ``num_classes``, ``with_pool`` (see ``VGG``).

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models import vgg11
        >>> model = vgg11(num_classes=0)   # the features only (the classifier holds 120M parameters)
        >>> len(model.features), model(paddle.rand([1, 3, 32, 32])).shape
        (21, paddle.Size([1, 512, 7, 7]))
    """
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG 13-layer model (configuration B). Arguments as ``vgg11``.

    Example:
        >>> from paddle_fn.vision.models import vgg13
        >>> len(vgg13(num_classes=0).features)
        25
    """
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG 16-layer model (configuration D), 138,357,544 parameters for 1000 classes. Arguments as ``vgg11``.

    Example:
        >>> from paddle_fn.vision.models import vgg16
        >>> len(vgg16(batch_norm=True, num_classes=0).features)
        44
    """
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG 19-layer model (configuration E). Arguments as ``vgg11``.

    Example:
        >>> from paddle_fn.vision.models import vgg19
        >>> len(vgg19(num_classes=0).features)
        37
    """
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)
