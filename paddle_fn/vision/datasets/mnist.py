"""MNIST and FashionMNIST from the idx-ubyte.gz files Paddle downloads (read locally, never downloaded)."""
from __future__ import annotations

import gzip

import numpy as np

from paddle_fn.core.dtypes import get_default_dtype
from paddle_fn.io.dataset import Dataset
from paddle_fn.vision.datasets.folder import Image, _local_file, _resolve_backend

__all__ = ["FashionMNIST", "MNIST"]


def _read_idx(path, magic, who):
    """The array stored in an idx file (gzip-compressed): big-endian magic, dimension sizes, then uint8 data."""
    with gzip.open(path, "rb") as f:
        buf = f.read()
    found = int.from_bytes(buf[:4], "big") if len(buf) >= 4 else None
    if found != magic:
        raise ValueError(f"{who}: {path} is not an idx file of this kind (magic number {found}, expected {magic}); "
                         "pass the *-images-idx3-ubyte.gz file as image_path and *-labels-idx1-ubyte.gz as "
                         "label_path")
    ndim = magic & 0xFF
    dims = [int.from_bytes(buf[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    start = 4 + 4 * ndim
    count = int(np.prod(dims))
    if len(buf) - start < count:
        raise ValueError(f"{who}: {path} is truncated: the header announces {dims} but holds {len(buf) - start} "
                         "bytes of data")
    return np.frombuffer(buf, dtype=np.uint8, count=count, offset=start).reshape(dims)


class MNIST(Dataset):
    """The MNIST handwritten digits: sample ``i`` is ``(image, label)`` with ``label`` an int64 array of shape
    [1].

    The image is a 28x28 grayscale PIL image with backend 'pil' (Paddle's default; a uint8 numpy array when Pillow
    is not installed), a float32 (default dtype) numpy array with backend 'cv2', or whatever ``transform`` makes of
    it (``ToTensor()`` gives a [1, 28, 28] Tensor in [0, 1]).

    Args:
        image_path (str, optional): the ``*-images-idx3-ubyte.gz`` file. Default: Paddle's cache
            ``~/.cache/paddle/dataset/mnist/train-images-idx3-ubyte.gz`` (or ``t10k-...`` for mode 'test').
        label_path (str, optional): the ``*-labels-idx1-ubyte.gz`` file; default likewise.
        mode (str): 'train' or 'test'. Default 'train'.
        transform (callable, optional): applied to each image.
        download (bool): use the cache location when a path is not given (paddle_fn never downloads: a missing
            file raises an error with the URL to fetch). Default True.
        backend (str, optional): 'pil' or 'cv2'; default ``paddle.vision.get_image_backend()``.

    Example:
        >>> import gzip, os, tempfile
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> d = tempfile.mkdtemp()
        >>> with gzip.open(os.path.join(d, 'img.gz'), 'wb') as f:
        ...     _ = f.write(b'\\x00\\x00\\x08\\x03' + (2).to_bytes(4, 'big') + (28).to_bytes(4, 'big') * 2
        ...                 + bytes(2 * 28 * 28))
        >>> with gzip.open(os.path.join(d, 'lbl.gz'), 'wb') as f:
        ...     _ = f.write(b'\\x00\\x00\\x08\\x01' + (2).to_bytes(4, 'big') + bytes([7, 3]))
        >>> ds = paddle.vision.datasets.MNIST(image_path=os.path.join(d, 'img.gz'),
        ...                                   label_path=os.path.join(d, 'lbl.gz'),
        ...                                   transform=paddle.vision.transforms.ToTensor())
        >>> image, label = ds[1]
        >>> len(ds), image.shape, label
        (2, paddle.Size([1, 28, 28]), array([3]))
    """

    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        who = type(self).__name__
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise ValueError(f"{who}: mode should be 'train' or 'test', but got {mode!r}")
        self.mode = mode.lower()
        self.backend = _resolve_backend(backend, who)
        train = self.mode == "train"
        self.image_path = _local_file(image_path, self.TRAIN_IMAGE_URL if train else self.TEST_IMAGE_URL,
                                      self.NAME, download, "image_path", who)
        self.label_path = _local_file(label_path, self.TRAIN_LABEL_URL if train else self.TEST_LABEL_URL,
                                      self.NAME, download, "label_path", who)
        self.transform = transform
        self.images = _read_idx(self.image_path, 2051, who)
        self.labels = _read_idx(self.label_path, 2049, who).astype(np.int64).reshape(-1, 1)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{who}: {len(self.images)} images but {len(self.labels)} labels; the image and label "
                             "files do not belong together")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        image, label = self.images[idx], self.labels[idx]
        if self.backend == "pil":
            if Image is not None:
                image = Image.fromarray(image, mode="L")
            if self.transform is not None:
                image = self.transform(image)
            return image, label.astype("int64")
        image = image.astype(self.dtype)
        if self.transform is not None:
            image = self.transform(image)
        return image.astype(self.dtype), label.astype("int64")

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando's clothing images, MNIST's format): the same arguments and samples as ``MNIST``;
    the default cache folder is ``~/.cache/paddle/dataset/fashion-mnist``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vision.datasets.FashionMNIST.TRAIN_IMAGE_URL
        'https://dataset.bj.bcebos.com/fashion_mnist/train-images-idx3-ubyte.gz'
    """

    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
