"""DatasetFolder / ImageFolder, the image loaders, the image-backend setting and the local-file check shared by the
downloadable datasets."""
from __future__ import annotations

import os

import numpy as np

from paddle_fn.core.dtypes import get_default_dtype
from paddle_fn.io.dataset import Dataset

try:  # Pillow is optional for numpy-only pipelines
    from PIL import Image
except ImportError:  # pragma: no cover - exercised only where Pillow is absent
    Image = None

__all__ = ["DatasetFolder", "ImageFolder"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")
DATA_HOME = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")

_backend = ["pil"]  # the image backend of paddle.vision.set_image_backend (one mutable cell)


def _resolve_backend(backend, who):
    backend = _backend[0] if backend is None else backend
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{who}: expected backend are one of ['pil', 'cv2'], but got {backend}")
    return backend


def _local_file(path, url, module_name, download, arg_name, who):
    """The file to read: ``path`` if given, else Paddle's cache location of ``url``, which must exist."""
    if path is not None:
        if not os.path.exists(path):
            raise FileNotFoundError(f"{who}: {arg_name}={path!r} does not exist")
        return path
    if not download:
        raise ValueError(f"{who}: {arg_name} is not set and downloading automatically is disabled; pass "
                         f"{arg_name}='<path to {url.rsplit('/', 1)[-1]}>'")
    target = os.path.join(DATA_HOME, module_name, url.rsplit("/", 1)[-1])
    if not os.path.exists(target):
        raise FileNotFoundError(f"{who}: {target} does not exist and paddle_fn does not download (no network "
                                f"access). Download {url} yourself and put it at {target}, or pass "
                                f"{arg_name}='<path to the file>'")
    return target


def _open_image(path):
    if Image is None:
        raise ImportError("reading image files needs Pillow: pip install pillow")
    with open(path, "rb") as f:
        img = Image.open(f)
        img.load()
    return img


def pil_loader(path):
    return _open_image(path).convert("RGB")


def cv2_loader(path):
    """RGB numpy HWC image (Paddle's cv2 loader converts OpenCV's BGR to RGB)."""
    return np.asarray(pil_loader(path))


def default_loader(path):
    return cv2_loader(path) if _backend[0] == "cv2" else pil_loader(path)


def has_valid_extension(filename, extensions):
    if not isinstance(extensions, (list, tuple)):
        raise TypeError("`extensions` must be list or tuple.")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def _walk(directory):
    for root, _, fnames in sorted(os.walk(directory, followlinks=True)):
        for fname in sorted(fnames):
            yield os.path.join(root, fname)


class DatasetFolder(Dataset):
    """Samples from a folder with one sub-folder per class (``root/cat/x.png``, ``root/dog/y.png``): sample ``i``
    is ``(loader(path), class_index)``, classes numbered in sorted name order.

    Args:
        root (str): the folder.
        loader (callable, optional): path -> sample; default loads an RGB image (PIL, or numpy with backend 'cv2').
        extensions (list|tuple, optional): file endings to keep; default the image extensions.
        transform (callable, optional): applied to each loaded sample.
        is_valid_file (callable, optional): path -> bool, the filter used when ``extensions`` is None (when both
            are given the extensions decide).

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from PIL import Image
        >>> from paddle_fn.vision.datasets import DatasetFolder
        >>> root = tempfile.mkdtemp()
        >>> for cls in ['cat', 'dog']:
        ...     os.makedirs(os.path.join(root, cls))
        ...     Image.fromarray(np.zeros([4, 4, 3], 'uint8')).save(os.path.join(root, cls, '0.png'))
        >>> ds = DatasetFolder(root)
        >>> len(ds), ds.classes, ds[1][1]
        (2, ['cat', 'dog'], 1)
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        classes = sorted(d.name for d in os.scandir(root) if d.is_dir())
        class_to_idx = {c: i for i, c in enumerate(classes)}
        check = (lambda p: has_valid_extension(p, extensions)) if extensions is not None else is_valid_file
        samples = [(p, class_to_idx[c]) for c in classes for p in _walk(os.path.join(os.path.expanduser(root), c))
                   if check(p)]
        if not samples:
            raise RuntimeError(f"Found 0 directories in subfolders of: {root}\nSupported extensions are: "
                               f"{','.join(extensions or ())}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = get_default_dtype()

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every image file under ``root`` (recursively, sorted), without labels: sample ``i`` is ``[image]``.

    Args:
        root (str): the folder.
        loader (callable, optional): path -> sample; default loads an RGB image.
        extensions (list|tuple, optional): file endings to keep; default the image extensions.
        transform (callable, optional): applied to each loaded sample.
        is_valid_file (callable, optional): path -> bool, used when ``extensions`` is None.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from PIL import Image
        >>> from paddle_fn.vision.datasets import ImageFolder
        >>> root = tempfile.mkdtemp()
        >>> Image.fromarray(np.zeros([4, 6, 3], 'uint8')).save(os.path.join(root, 'a.png'))
        >>> ds = ImageFolder(root)
        >>> len(ds), ds[0][0].size
        (1, (6, 4))
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        check = (lambda p: has_valid_extension(p, extensions)) if extensions is not None else is_valid_file
        samples = [p for p in _walk(os.path.expanduser(root)) if check(p)]
        if not samples:
            raise RuntimeError(f"Found 0 files in subfolders of: {root}\nSupported extensions are: "
                               f"{','.join(extensions or ())}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
