"""``paddle.vision``: image datasets, transforms and models, and the image backend setting.

The backend ('pil' by default, as Paddle, or 'cv2') decides what datasets hand to transforms: PIL images, or
numpy arrays. paddle_fn never needs OpenCV: 'cv2' means numpy HWC arrays in RGB order.
"""
import numpy as np

from paddle_fn.vision import datasets, models, ops, transforms  # noqa: F401
from paddle_fn.vision.models import *  # noqa: F401,F403  (paddle.vision.resnet50, as Paddle re-exports them)
from paddle_fn.vision.datasets.folder import _open_image

__all__ = ["datasets", "get_image_backend", "image_load", "models", "ops", "set_image_backend",
           "transforms"] + models.__all__

_BACKENDS = ("pil", "cv2")


def set_image_backend(backend):
    """Choose what the vision datasets and ``image_load`` return: 'pil' (PIL images) or 'cv2' (numpy arrays).

    Args:
        backend (str): 'pil' or 'cv2'.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vision.set_image_backend('cv2')
        >>> paddle.vision.get_image_backend()
        'cv2'
        >>> paddle.vision.set_image_backend('pil')
    """
    if backend not in _BACKENDS:
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    datasets.folder._backend[0] = backend


def get_image_backend():
    """The current image backend, 'pil' unless changed with ``set_image_backend``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.vision.get_image_backend()
        'pil'
    """
    return datasets.folder._backend[0]


def image_load(path, backend=None):
    """Load an image file: a PIL image with backend 'pil', a numpy HWC array with 'cv2' (Paddle's cv2 backend gives
    BGR channel order, as ``cv2.imread``; so does this).

    Args:
        path (str): the image file.
        backend (str, optional): 'pil' or 'cv2'; default the current backend.

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from PIL import Image
        >>> import paddle_fn as paddle
        >>> path = os.path.join(tempfile.mkdtemp(), 'red.png')
        >>> Image.fromarray(np.full([2, 3, 3], [255, 0, 0], 'uint8')).save(path)
        >>> paddle.vision.image_load(path).size
        (3, 2)
        >>> paddle.vision.image_load(path, backend='cv2')[0, 0]
        array([  0,   0, 255], dtype=uint8)
    """
    backend = get_image_backend() if backend is None else backend
    if backend not in _BACKENDS:
        raise ValueError(f"image_load: expected backend are one of ['pil', 'cv2'], but got {backend}")
    img = _open_image(path)
    if backend == "pil":
        return img
    return np.asarray(img.convert("RGB"))[..., ::-1].copy()
