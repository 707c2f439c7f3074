"""``paddle.vision.transforms`` classes: callable image transforms built on `functional`.

Random transforms draw from Python's ``random`` module (``random.seed(n)`` makes them reproducible), except
``RandomResizedCrop``'s scale and ratio, drawn from numpy's global RNG, exactly as Paddle does. In DataLoader
workers both are seeded per worker.
"""
from __future__ import annotations

import math
import numbers
import random

import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.random import paddle_normal
from paddle_fn.tensor import to_tensor
from paddle_fn.vision.transforms import functional as F

__all__ = ["BaseTransform", "BrightnessTransform", "CenterCrop", "ColorJitter", "Compose", "ContrastTransform",
           "Grayscale", "HueTransform", "Normalize", "Pad", "RandomAffine", "RandomCrop", "RandomErasing",
           "RandomHorizontalFlip", "RandomPerspective", "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip",
           "Resize", "SaturationTransform", "ToTensor", "Transpose"]


def _get_image_size(img):
    """(width, height) of a PIL image, numpy HWC image or CHW Tensor."""
    if F._is_pil_image(img):
        return img.size
    if isinstance(img, np.ndarray):
        return img.shape[1], img.shape[0]
    if isinstance(img, Tensor):
        return img.shape[-1], img.shape[-2]
    raise TypeError(f"expected a PIL image, numpy array or Tensor image, got {type(img).__name__}")


def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    """A jitter amount -> the [low, high] range factors are drawn from, or None for 'no change'."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative, got {value}")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, got {value}")
        value = list(value)
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2, got {value!r}")
    return None if value[0] == value[1] == center else value


def _angle_range(value, name, lengths):
    """An angle argument as Paddle reads it: a number d is the range (-d, d), else a sequence of `lengths`."""
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be positive, got {value}")
        return [-value, value]
    if len(value) not in lengths:
        raise ValueError(f"If {name} is a sequence, its length should be one of {lengths}, got {len(value)}")
    return list(value)


class Compose:
    """Apply transforms one after the other.

    Args:
        transforms (list): the transforms.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> t = T.Compose([T.Resize((4, 4)), T.ToTensor()])
        >>> t(np.zeros([8, 8, 3], 'uint8')).shape
        paddle.Size([3, 4, 4])
    """

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for f in self.transforms:
            data = f(data)
        return data

    def __repr__(self):
        return type(self).__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"


class BaseTransform:
    """Base class of transforms. ``keys`` names what each element of a tuple input is ('image', 'boxes', 'mask',
    'coords' or a key of your own with an ``_apply_<key>`` method); a transform is applied to the first
    ``len(keys)`` elements and later ones pass through. ``_get_params(inputs)`` runs once per call and its
    result is ``self.params``, so random parameters are shared by the image and its boxes/mask.

    Args:
        keys (list|tuple, optional): input kinds; default ('image',).

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> class AddOne(T.BaseTransform):
        ...     def _apply_image(self, image):
        ...         return image + 1
        ...     def _apply_label(self, label):
        ...         return label
        >>> AddOne(keys=['image', 'label'])((np.zeros(2), 7))
        (array([1., 1.]), 7)
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, (list, tuple)):
            raise ValueError(f"keys should be a sequence, but got keys={keys!r}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure: define _apply_{k} on "
                                          f"{type(self).__name__}")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        inputs = (inputs,) if single else inputs
        self.params = self._get_params(inputs)
        outputs = [self._get_apply(key)(x) for key, x in zip(self.keys, inputs)]
        outputs += list(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} does not transform images")

    def _apply_boxes(self, boxes):
        raise NotImplementedError(f"{type(self).__name__} does not transform boxes")

    def _apply_mask(self, mask):
        raise NotImplementedError(f"{type(self).__name__} does not transform masks")

    def _apply_coords(self, coords):
        raise NotImplementedError(f"{type(self).__name__} does not transform coords")


class ToTensor(BaseTransform):
    """PIL image or numpy HWC image -> Tensor (CHW by default); uint8 data is scaled to [0, 1].

    Args:
        data_format (str): 'CHW' or 'HWC'. Default 'CHW'.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.ToTensor()(np.full([2, 2, 1], 51, 'uint8'))
        Tensor(shape=[1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[0.20000000, 0.20000000],
                 [0.20000000, 0.20000000]]])
    """

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    """Resize to ``size``: an int scales the smaller edge (keeping the aspect ratio), (h, w) is exact.

    Args:
        size (int|list|tuple): the target size.
        interpolation (str): 'bilinear' (default), 'nearest', and for PIL images 'bicubic', 'box', 'lanczos',
            'hamming'.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.Resize(4)(np.zeros([8, 16, 3], 'uint8')).shape
        (4, 8, 3)
    """

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, int) or (isinstance(size, (list, tuple)) and len(size) == 2)):
            raise TypeError(f"Resize: size should be an int or a (height, width) pair, got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    """Crop a random area (``scale`` of the image, aspect ``ratio``) and resize it to ``size``.

    The area and aspect ratio come from numpy's global RNG, the position from Python's ``random``; after 10 failed
    attempts the centre crop clamped to ``ratio`` is used, as Paddle.

    Args:
        size (int|list|tuple): output size.
        scale (tuple): range of the cropped area relative to the image. Default (0.08, 1.0).
        ratio (tuple): range of the aspect ratio (w / h). Default (3/4, 4/3).
        interpolation (str): see Resize. Default 'bilinear'.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomResizedCrop(5)(np.zeros([20, 30, 3], 'uint8')).shape
        (5, 5, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        if scale[0] > scale[1]:
            raise ValueError(f"RandomResizedCrop: scale should be of kind (min, max), got {scale}")
        if ratio[0] > ratio[1]:
            raise ValueError(f"RandomResizedCrop: ratio should be of kind (min, max), got {ratio}")
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _get_param(self, image, attempts=10):
        width, height = _get_image_size(image)
        area = height * width
        log_ratio = tuple(math.log(x) for x in self.ratio)
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crop the centre ``size`` (int or (h, w)) region.

    Args:
        size (int|list|tuple): the size kept.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.CenterCrop(2)(np.arange(16).reshape(4, 4))
        array([[ 5,  6],
               [ 9, 10]])
    """

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    """A flip (`_flip`, ``F.hflip`` or ``F.vflip``) applied with probability ``prob``."""
    _flip = None

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError(f"{type(self).__name__}: prob should be in [0, 1], got {prob}")
        self.prob = prob

    def _apply_image(self, img):
        return type(self)._flip(img) if random.random() < self.prob else img


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob`` (Python ``random``).

    Args:
        prob (float): flip probability. Default 0.5.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomHorizontalFlip(prob=1.0)(np.array([[1, 2, 3]]))
        array([[3, 2, 1]])
    """
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    """Flip upside down with probability ``prob`` (Python ``random``).

    Args:
        prob (float): flip probability. Default 0.5.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomVerticalFlip(prob=1.0)(np.array([[1], [2]]))
        array([[2],
               [1]])
    """
    _flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel.

    Args:
        mean (float|list|tuple): channel means (a number is used for 3 channels). Default 0.0.
        std (float|list|tuple): channel standard deviations. Default 1.0.
        data_format (str): 'CHW' or 'HWC'. Default 'CHW'.
        to_rgb (bool): reverse the channels first (numpy/PIL). Default False.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> t = T.Compose([T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
        >>> t(np.array([[[0], [255]]], 'uint8'))
        Tensor(shape=[1, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[-1.,  1.]]])
    """

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes of an image (numpy/PIL images become numpy; a HW image gets a channel axis first).

    Args:
        order (list|tuple): the new axis order. Default (2, 0, 1): HWC -> CHW.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.Transpose()(np.zeros([4, 5, 3])).shape
        (3, 4, 5)
    """

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            return img.transpose(list(self.order))
        img = np.asarray(img)
        if img.ndim == 2:
            img = img[..., None]
        return img.transpose(self.order)


class _ColorTransform(BaseTransform):
    """A colour transform: `_adjust` (``F.adjust_*``) by a factor drawn uniformly from ``self.value`` (a
    ``(min, max)`` pair; None leaves the image as it is)."""
    _adjust = None

    def _apply_image(self, img):
        if self.value is None:
            return img
        return type(self)._adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_ColorTransform):
    """Scale the brightness by a factor drawn uniformly from [max(0, 1 - value), 1 + value].

    Args:
        value (float|list|tuple): the jitter amount, or the (min, max) factor range.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> out = T.BrightnessTransform(0.4)(np.full([2, 2, 3], 100, 'uint8'))
        >>> 60 <= int(out[0, 0, 0]) <= 140
        True
    """
    _adjust = staticmethod(F.adjust_brightness)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "brightness")


class ContrastTransform(_ColorTransform):
    """Scale the contrast by a factor drawn uniformly from [max(0, 1 - value), 1 + value].

    Args:
        value (float|list|tuple): the jitter amount, or the (min, max) factor range.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.ContrastTransform(0.4)(np.full([2, 2, 3], 74, 'uint8'))[0, 0]
        array([74, 74, 74], dtype=uint8)
    """
    _adjust = staticmethod(F.adjust_contrast)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        if value < 0:
            raise ValueError("contrast value should be non-negative")
        self.value = _check_input(value, "contrast")


class SaturationTransform(_ColorTransform):
    """Scale the saturation by a factor drawn uniformly from [max(0, 1 - value), 1 + value].

    Args:
        value (float|list|tuple): the jitter amount, or the (min, max) factor range.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.SaturationTransform(0.4)(np.full([1, 1, 3], 90, 'uint8'))
        array([[[90, 90, 90]]], dtype=uint8)
    """
    _adjust = staticmethod(F.adjust_saturation)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "saturation")


class HueTransform(_ColorTransform):
    """Rotate the hue by a factor drawn uniformly from [-value, value] (value <= 0.5).

    Args:
        value (float|list|tuple): the jitter amount, or the (min, max) range within [-0.5, 0.5].
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.HueTransform(0.4)(np.full([1, 1, 3], 90, 'uint8'))
        array([[[90, 90, 90]]], dtype=uint8)
    """
    _adjust = staticmethod(F.adjust_hue)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)


class ColorJitter(BaseTransform):
    """Random brightness, contrast, saturation and hue changes, applied in a random order.

    Args:
        brightness (float|list|tuple): see BrightnessTransform. Default 0 (unchanged).
        contrast (float|list|tuple): see ContrastTransform. Default 0.
        saturation (float|list|tuple): see SaturationTransform. Default 0.
        hue (float|list|tuple): see HueTransform. Default 0.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.ColorJitter(0.4, 0.4, 0.4, 0.4)(np.zeros([4, 4, 3], 'uint8')).shape
        (4, 4, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _get_param(self, brightness, contrast, saturation, hue):
        transforms = []
        if brightness is not None:
            transforms.append(BrightnessTransform(brightness, self.keys))
        if contrast is not None:
            transforms.append(ContrastTransform(contrast, self.keys))
        if saturation is not None:
            transforms.append(SaturationTransform(saturation, self.keys))
        if hue is not None:
            transforms.append(HueTransform(hue, self.keys))
        random.shuffle(transforms)
        return Compose(transforms)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


class RandomCrop(BaseTransform):
    """Crop a random ``size`` region, optionally padding first.

    Args:
        size (int|list|tuple): output (h, w).
        padding (int|list|tuple, optional): padding applied first (see ``functional.pad``).
        pad_if_needed (bool): pad an image smaller than ``size``. Default False.
        fill (int|tuple): the constant padding value. Default 0.
        padding_mode (str): 'constant', 'edge', 'reflect' or 'symmetric'. Default 'constant'.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomCrop(4, padding=2)(np.zeros([6, 6, 3], 'uint8')).shape
        (4, 4, 3)
        >>> T.RandomCrop(8, pad_if_needed=True)(np.zeros([6, 6, 3], 'uint8')).shape
        (8, 8, 3)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_param(self, img, output_size):
        w, h = _get_image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: the image ({h}x{w}) is smaller than the crop size {th}x{tw}; pass "
                             "pad_if_needed=True or padding")
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        i, j, h, w = self._get_param(img, self.size)
        return F.crop(img, i, j, h, w)


class Pad(BaseTransform):
    """Pad the image borders.

    Args:
        padding (int|list|tuple): all sides; (left/right, top/bottom); or (left, top, right, bottom).
        fill (int|tuple): the constant padding value. Default 0.
        padding_mode (str): 'constant', 'edge', 'reflect' or 'symmetric'. Default 'constant'.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.Pad(1, fill=9)(np.zeros([1, 1], 'uint8'))
        array([[9, 9, 9],
               [9, 0, 9],
               [9, 9, 9]], dtype=uint8)
    """

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        if not isinstance(padding, (numbers.Number, list, tuple)):
            raise TypeError(f"Pad: padding should be a number or a sequence, got {type(padding).__name__}")
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise TypeError(f"Pad: fill should be a number, string or sequence, got {type(fill).__name__}")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(f"Pad: padding_mode should be constant, edge, reflect or symmetric, got "
                             f"{padding_mode!r}")
        if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
            raise ValueError(f"Pad: padding must be an int or a 2 or 4 element tuple, not a {len(padding)} element "
                             "tuple")
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from ``degrees`` (Python ``random``).

    Args:
        degrees (float|list|tuple): the range (-degrees, degrees), or (min, max).
        interpolation (str): 'nearest' (default) or 'bilinear'; PIL images also 'bicubic'.
        expand (bool): enlarge the output to hold the whole rotated image. Default False.
        center (tuple, optional): rotation centre (x, y); default the image centre.
        fill (int|tuple): value outside the rotated image. Default 0.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomRotation(90)(np.zeros([4, 6, 3], 'uint8')).shape
        (4, 6, 3)
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        self.degrees = _angle_range(degrees, "degrees", (2,))
        super().__init__(keys)
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _apply_image(self, img):
        angle = random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class Grayscale(BaseTransform):
    """Convert to grayscale with 1 or 3 channels.

    Args:
        num_output_channels (int): 1 or 3. Default 1.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> T.Grayscale()(np.zeros([4, 4, 3], 'uint8')).shape
        (4, 4, 1)
    """

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomErasing(BaseTransform):
    """With probability ``prob`` (Python ``random``), erase a random rectangle whose area is a ``scale`` fraction of
    the image and whose aspect ratio lies in ``ratio`` (both drawn from numpy's global RNG, as Paddle).

    Args:
        prob (float): probability of erasing. Default 0.5.
        scale (tuple): (min, max) erased fraction of the area. Default (0.02, 0.33).
        ratio (tuple): (min, max) aspect ratio of the rectangle. Default (0.3, 3.3).
        value (number|list|tuple|str): the fill: one value, one per channel (1 or 3), or 'random' for normal
            noise (x255 for numpy/PIL images). Default 0.
        inplace (bool): modify numpy/Tensor inputs in place. Default False.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms as T
        >>> np.random.seed(0)
        >>> out = T.RandomErasing(prob=1.0, value=7)(np.zeros([8, 8, 3], 'uint8'))
        >>> bool((out == 7).any()), bool((out == 0).any())
        (True, True)
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        if not isinstance(scale, (tuple, list)) or not 0 <= scale[0] <= scale[1] <= 1:
            raise ValueError(f"RandomErasing: scale should be (min, max) within [0, 1], got {scale!r}")
        if not isinstance(ratio, (tuple, list)) or not 0 <= ratio[0] <= ratio[1]:
            raise ValueError(f"RandomErasing: ratio should be of kind (min, max), got {ratio!r}")
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomErasing: the probability should be in range [0, 1], got {prob}")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"RandomErasing: value should be a number, tuple, list or str, got {value!r}")
        if isinstance(value, str) and value != "random":
            raise ValueError("value must be 'random' when type is str")
        self.prob = prob
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    def _get_param(self, img, value):
        if isinstance(img, Tensor):
            c, h, w = img.shape[-3], img.shape[-2], img.shape[-1]
        else:
            shape = np.asarray(img).shape
            h, w, c = shape[0], shape[1], (shape[2] if len(shape) == 3 else 1)
        log_ratio = np.log(self.ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*self.scale) * h * w
            aspect_ratio = np.exp(np.random.uniform(*log_ratio))
            eh = int(round(np.sqrt(erase_area * aspect_ratio)))
            ew = int(round(np.sqrt(erase_area / aspect_ratio)))
            if eh >= h or ew >= w:
                continue
            if isinstance(img, Tensor):
                v = (paddle_normal(shape=[c, eh, ew]) if value is None else
                     to_tensor(np.asarray(value, "float32")).reshape([-1, 1, 1])).astype(img.dtype)
            elif value is None:
                v = np.random.normal(size=[eh, ew, c]) * 255
            else:
                v = np.array(value)[None, None, :]
            return np.random.randint(0, h - eh + 1), np.random.randint(0, w - ew + 1), eh, ew, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        if random.random() >= self.prob:
            return img
        if isinstance(self.value, numbers.Number):
            value = [self.value]
        elif isinstance(self.value, str):
            value = None
        else:
            value = list(self.value)
        if value is not None and len(value) not in (1, 3):
            raise ValueError("RandomErasing: value should be a number or a sequence of length 1 or 3 (one per "
                             f"channel), got {self.value!r}")
        top, left, eh, ew, v = self._get_param(img, value)
        return F.erase(img, top, left, eh, ew, v, self.inplace)


class RandomAffine(BaseTransform):
    """A random affine transform (`functional.affine`): a rotation by an angle drawn from ``degrees``, a
    translation up to ``translate`` times the image size each way, a scale drawn from ``scale`` and shears drawn
    from ``shear`` (Python ``random``, as Paddle).

    Args:
        degrees (float|list|tuple): the angle range (-degrees, degrees), or (min, max); clockwise.
        translate (list|tuple, optional): the largest (x, y) shifts as fractions of the width and height.
        scale (list|tuple, optional): the (min, max) scale.
        shear (float|list|tuple, optional): the x shear range (-shear, shear) or (min, max), or (x min, x max,
            y min, y max).
        interpolation (str): 'nearest' (default), 'bilinear' or (PIL images) 'bicubic'.
        fill (int|tuple): the value outside the moved image. Default 0.
        center (list|tuple, optional): the rotation centre (x, y); default the image centre.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomAffine([-90, 90], translate=[0.2, 0.2], scale=[0.5, 0.5])(paddle.rand([3, 8, 10])).shape
        paddle.Size([3, 8, 10])
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0, center=None,
                 keys=None):
        self.degrees = _angle_range(degrees, "degrees", (2,))
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ValueError(f"RandomAffine: interpolation must be 'nearest', 'bilinear' or 'bicubic', got "
                             f"{interpolation!r}")
        if translate is not None and (len(translate) != 2 or not all(0.0 <= t <= 1.0 for t in translate)):
            raise ValueError(f"RandomAffine: translate should be two fractions in [0, 1], got {translate}")
        if scale is not None and (len(scale) != 2 or not all(v > 0 for v in scale)):
            raise ValueError(f"RandomAffine: scale should be two positive values, got {scale}")
        if center is not None and len(center) != 2:
            raise ValueError(f"RandomAffine: center should be (x, y), got {center}")
        self.translate, self.scale, self.center = translate, scale, center
        self.shear = None if shear is None else _angle_range(shear, "shear", (2, 4))
        self.interpolation, self.fill = interpolation, 0 if fill is None else fill

    def _get_param(self, img_size):
        """(angle, (tx, ty), scale, (shear_x, shear_y)) drawn for an image of size (width, height)."""
        angle = random.uniform(self.degrees[0], self.degrees[1])
        translations = (0, 0)
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * img_size[0], self.translate[1] * img_size[1]
            translations = (int(random.uniform(-max_dx, max_dx)), int(random.uniform(-max_dy, max_dy)))
        scale = 1.0 if self.scale is None else random.uniform(self.scale[0], self.scale[1])
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = random.uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = random.uniform(self.shear[2], self.shear[3])
        return angle, translations, scale, tuple(shear)

    def _apply_image(self, img):
        return F.affine(img, *self._get_param(_get_image_size(img)), interpolation=self.interpolation,
                        fill=self.fill, center=self.center)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, a random perspective transform (`functional.perspective`) moving each corner
    inwards by up to ``distortion_scale`` times half the image size (Python ``random``, as Paddle).

    Args:
        prob (float): the probability of transforming. Default 0.5.
        distortion_scale (float): in [0, 1]. Default 0.5.
        interpolation (str): 'nearest' (default), 'bilinear' or (PIL images) 'bicubic'.
        fill (int|tuple): the value outside the warped image. Default 0.
        keys (list|tuple, optional): see BaseTransform.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.vision.transforms as T
        >>> T.RandomPerspective(prob=1.0, distortion_scale=0.9)(paddle.rand([3, 20, 15])).shape
        paddle.Size([3, 20, 15])
    """

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1 or not 0 <= distortion_scale <= 1:
            raise ValueError(f"RandomPerspective: prob and distortion_scale must be in [0, 1], got {prob} and "
                             f"{distortion_scale}")
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise ValueError(f"RandomPerspective: interpolation must be 'nearest', 'bilinear' or 'bicubic', got "
                             f"{interpolation!r}")
        self.prob, self.distortion_scale, self.interpolation, self.fill = prob, distortion_scale, interpolation, fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the image's corners and where they go."""
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(low_edge, size, reach):  # a coordinate up to `reach` pixels in from an edge
            return int(random.uniform(0, reach + 1)) if low_edge else int(random.uniform(size - reach - 1, size))

        endpoints = [[near(True, width, dx), near(True, height, dy)], [near(False, width, dx), near(True, height, dy)],
                     [near(False, width, dx), near(False, height, dy)], [near(True, width, dx), near(False, height, dy)]]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def _apply_image(self, img):
        width, height = _get_image_size(img)
        if random.random() < self.prob:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, self.fill)
        return img
