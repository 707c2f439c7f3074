"""LeNet, the small convolutional network of ``paddle.vision.models.LeNet``."""
import paddle_fn as paddle
from paddle_fn import nn

__all__ = ["LeNet"]


class LeNet(nn.Layer):
    """LeNet-5 for 1x28x28 images (MNIST): two convolution + max-pool stages then three Linear layers, with
    Paddle's layer names (``features.0.weight``, ..., ``fc.2.bias``), 61,610 parameters for 10 classes.

    Args:
        num_classes (int, optional): outputs of the last Linear; 0 or less leaves the classifier out (the
            output is then the ``[N, 16, 5, 5]`` feature map). Default: 10.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.vision.models import LeNet
        >>> model = LeNet()
        >>> model(paddle.rand([2, 1, 28, 28])).shape
        paddle.Size([2, 10])
        >>> sum(p.size for p in model.parameters())
        61610
    """

    def __init__(self, num_classes=10):
        super().__init__()
        self.num_classes = num_classes
        self.features = nn.Sequential(
            nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
            nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
        if num_classes > 0:
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, num_classes))

    def forward(self, inputs):
        x = self.features(inputs)
        if self.num_classes > 0:
            x = self.fc(paddle.flatten(x, 1))
        return x
