"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10, Cifar100 read from Paddle's standard files, and
DatasetFolder / ImageFolder over a directory of images. Nothing is downloaded: a missing file raises an error
naming the URL and the path to put it at."""
from paddle_fn.vision.datasets.cifar import Cifar10, Cifar100  # noqa: F401
from paddle_fn.vision.datasets.folder import DatasetFolder, ImageFolder  # noqa: F401
from paddle_fn.vision.datasets.mnist import MNIST, FashionMNIST  # noqa: F401

__all__ = ["Cifar10", "Cifar100", "DatasetFolder", "FashionMNIST", "ImageFolder", "MNIST"]
