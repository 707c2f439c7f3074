"""MobileNetV2 (``MobileNetV2``, ``mobilenet_v2``) of ``paddle.vision.models``, with Paddle's layer names."""
import paddle_fn as paddle
from paddle_fn import nn
from paddle_fn.vision.models._utils import _make_divisible, load_pretrained

__all__ = ["MobileNetV2", "mobilenet_v2"]

_URLS = {"mobilenetv2_1.0": "https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams"}


class _ConvNormActivation(nn.Sequential):
    """Conv2D (no bias) + BatchNorm2D + ReLU6, Paddle's ``ConvNormActivation`` as MobileNetV2 uses it."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, groups=1, norm_layer=nn.BatchNorm2D):
        super().__init__(
            nn.Conv2D(in_channels, out_channels, kernel_size, stride, (kernel_size - 1) // 2, groups=groups,
                      bias_attr=False),
            norm_layer(out_channels), nn.ReLU6())


class InvertedResidual(nn.Layer):
    """MobileNetV2's block: 1x1 expansion, 3x3 depthwise convolution, 1x1 linear projection, and a shortcut when
    the shape is kept."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride must be 1 or 2, got {stride}")
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(_ConvNormActivation(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer))
        layers += [_ConvNormActivation(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim, norm_layer=norm_layer),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# expansion t, channels c, repeats n, first stride s of each stage
_SETTINGS = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
             [6, 320, 1, 1]]


class MobileNetV2(nn.Layer):
    """MobileNetV2 ("Inverted Residuals and Linear Bottlenecks"), as ``paddle.vision.models.MobileNetV2``.

    Args:
        scale (float, optional): channel multiplier. Default: 1.0.
        num_classes (int, optional): classes; 0 or less leaves the classifier out. Default: 1000.
        with_pool (bool, optional): global average pooling before the classifier. Default: True.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models import MobileNetV2
        >>> net = MobileNetV2(scale=0.5, num_classes=10)
        >>> net(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        input_channel = _make_divisible(32 * scale, 8)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features = [_ConvNormActivation(3, input_channel, stride=2)]
        for t, c, n, s in _SETTINGS:
            output_channel = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, expand_ratio=t))
                input_channel = output_channel
        features.append(_ConvNormActivation(input_channel, self.last_channel, kernel_size=1))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(paddle.flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2, 3,538,984 parameters and statistics at scale 1.0 with 1000 classes.

    Args:
        pretrained (bool|str, optional): load ImageNet weights (scale 1.0 only) from Paddle's cache
            (``~/.cache/paddle/hapi/weights/mobilenet_v2_x1.0.pdparams``) or from this ``.pdparams`` path.
            Default: False.
        scale (float, optional): channel multiplier. Default: 1.0.
        **kwargs: ``num_classes``, ``with_pool`` (see ``MobileNetV2``).

    Example:
        >>> from paddle_fn.vision.models import mobilenet_v2
        >>> mobilenet_v2().classifier[1].weight.shape
        paddle.Size([1280, 1000])
    """
    model = MobileNetV2(scale=scale, **kwargs)
    if pretrained:
        load_pretrained(model, f"mobilenetv2_{scale}", _URLS.get(f"mobilenetv2_{scale}"), pretrained)
    return model
