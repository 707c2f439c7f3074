"""Cifar10 / Cifar100 from the python-pickle tar.gz archives Paddle downloads, read with a whitelisting unpickler
(numpy arrays, lists, dicts, bytes only: a crafted archive cannot run code)."""
from __future__ import annotations

import tarfile

import numpy as np

from paddle_fn.core.dtypes import get_default_dtype
from paddle_fn.framework.io import _SafeUnpickler
from paddle_fn.io.dataset import Dataset
from paddle_fn.vision.datasets.folder import Image, _local_file, _resolve_backend

__all__ = ["Cifar10", "Cifar100"]

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
MODE_FLAG_MAP = {"train10": "data_batch", "test10": "test_batch", "train100": "train", "test100": "test"}


class _BatchUnpickler(_SafeUnpickler):
    """paddle.load's unpickler (its allow-list, dtype and memory rules), with a refusal that speaks of CIFAR."""

    refusal_hint = ("a CIFAR batch holds only numpy arrays, lists and dicts, so this file is not a CIFAR python "
                    "archive (it was refused without running it)")


class Cifar10(Dataset):
    """CIFAR-10: sample ``i`` is ``(image, label)``, a 32x32 RGB image and a 0-D int64 label array.

    The image is a PIL image with backend 'pil' (Paddle's default; a uint8 HWC numpy array without Pillow), a
    float32 (default dtype) HWC numpy array with 'cv2', or what ``transform`` makes of it.

    Args:
        data_file (str, optional): the ``cifar-10-python.tar.gz`` archive. Default: Paddle's cache
            ``~/.cache/paddle/dataset/cifar/cifar-10-python.tar.gz``.
        mode (str): 'train' (the data_batch_* members) or 'test' (test_batch). Default 'train'.
        transform (callable, optional): applied to each image.
        download (bool): use the cache location when data_file is not given (never downloads). Default True.
        backend (str, optional): 'pil' or 'cv2'; default ``paddle.vision.get_image_backend()``.

    Example:
        >>> import io, os, pickle, tarfile, tempfile
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> path = os.path.join(tempfile.mkdtemp(), 'cifar-10-python.tar.gz')
        >>> batch = pickle.dumps({b'data': np.zeros([2, 3072], 'uint8'), b'labels': [4, 9]})
        >>> with tarfile.open(path, 'w:gz') as tar:
        ...     info = tarfile.TarInfo('cifar-10-batches-py/data_batch_1')
        ...     info.size = len(batch)
        ...     tar.addfile(info, io.BytesIO(batch))
        >>> ds = paddle.vision.datasets.Cifar10(data_file=path, backend='cv2')
        >>> image, label = ds[1]
        >>> len(ds), image.shape, image.dtype, label
        (2, (32, 32, 3), dtype('float32'), array(9))
    """

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        who = type(self).__name__
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise ValueError(f"{who}: mode should be 'train' or 'test', but got {mode!r}")
        self.mode = mode.lower()
        self.backend = _resolve_backend(backend, who)
        self._init_url_md5_flag()
        self.data_file = _local_file(data_file, self.data_url, "cifar", download, "data_file", who)
        self.transform = transform
        self._load_data()
        self.dtype = get_default_dtype()

    def _init_url_md5_flag(self):
        self.data_url = CIFAR10_URL
        self.flag = MODE_FLAG_MAP[self.mode + "10"]

    def _load_data(self):
        self.data = []
        with tarfile.open(self.data_file, mode="r") as f:
            names = sorted(m.name for m in f if self.flag in m.name and m.isfile())
            for name in names:
                batch = _BatchUnpickler(f.extractfile(name), f"{type(self).__name__}: archive member {name!r}",
                                        encoding="bytes").load()
                if not isinstance(batch, dict) or b"data" not in batch:
                    raise ValueError(f"{type(self).__name__}: archive member {name} is not a CIFAR batch (a dict "
                                     "with b'data' and b'labels' / b'fine_labels')")
                labels = batch.get(b"labels", batch.get(b"fine_labels"))
                if labels is None:
                    raise ValueError(f"{type(self).__name__}: archive member {name} has no b'labels' or "
                                     "b'fine_labels'")
                self.data.extend(zip(np.asarray(batch[b"data"], dtype=np.uint8), labels))

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            if Image is not None:
                image = Image.fromarray(image)
            if self.transform is not None:
                image = self.transform(image)
            return image, np.array(label).astype("int64")
        image = image.astype(self.dtype)
        if self.transform is not None:
            image = self.transform(image)
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100: as ``Cifar10`` (the 'train' / 'test' members of ``cifar-100-python.tar.gz``, fine labels).

    Example:
        >>> import io, os, pickle, tarfile, tempfile
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> path = os.path.join(tempfile.mkdtemp(), 'cifar-100-python.tar.gz')
        >>> batch = pickle.dumps({b'data': np.zeros([1, 3072], 'uint8'), b'fine_labels': [42]})
        >>> with tarfile.open(path, 'w:gz') as tar:
        ...     info = tarfile.TarInfo('cifar-100-python/test')
        ...     info.size = len(batch)
        ...     tar.addfile(info, io.BytesIO(batch))
        >>> ds = paddle.vision.datasets.Cifar100(data_file=path, mode='test')
        >>> image, label = ds[0]
        >>> image.size, int(label)
        ((32, 32), 42)
    """

    def _init_url_md5_flag(self):
        self.data_url = CIFAR100_URL
        self.flag = MODE_FLAG_MAP[self.mode + "100"]
