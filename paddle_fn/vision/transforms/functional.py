"""``paddle.vision.transforms.functional``: image operations on numpy HWC arrays (uint8 or float), on PIL images
when Pillow is installed, and (resize, pad, crops, flips, grayscale, brightness/contrast/saturation, normalize) on
CHW Tensors as Paddle's functional_tensor (`_functional_tensor`).

PIL images go through Pillow exactly as Paddle's 'pil' backend does. numpy images follow Paddle's 'cv2' backend,
re-implemented in numpy so OpenCV is not needed: bilinear resize with OpenCV's pixel-centre convention (no
antialiasing), BORDER_REFLECT_101 for 'reflect', rotation about the centre with OpenCV's inverse mapping,
grayscale with BT.601 weights, brightness/contrast through Paddle's lookup tables (contrast pivots on 74, as
Paddle's cv2 code) and hue shifted in OpenCV's full-range HSV of the channels read as BGR. uint8 results may differ
from OpenCV by one level where OpenCV rounds fixed-point intermediates. ``adjust_saturation`` blends with the
grayscale image by ``saturation_factor`` for both kinds (Paddle's cv2 code instead draws a random factor).
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.core.dtypes import get_default_dtype
from paddle_fn.tensor import to_tensor as _to_tensor
from paddle_fn.vision.transforms import _functional_tensor as FT

try:  # Pillow is optional: numpy images work without it
    from PIL import Image, ImageEnhance, ImageOps
except ImportError:  # pragma: no cover - exercised only where Pillow is absent
    Image = ImageEnhance = ImageOps = None

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "affine", "center_crop", "crop",
           "erase", "hflip", "normalize", "pad", "perspective", "resize", "rotate", "to_grayscale", "to_tensor",
           "vflip"]


def _is_pil_image(img):
    """Whether `img` is a PIL image (Paddle's private helper of this name, which its examples use)."""
    return Image is not None and isinstance(img, Image.Image)


def _is_numpy_image(img):
    """Whether `img` is a numpy HW or HWC image."""
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img):
    """Whether `img` is a Tensor (a CHW image)."""
    return isinstance(img, Tensor)


def _check_image(img, op):
    if _is_pil_image(img) or _is_numpy_image(img):
        return
    if isinstance(img, Tensor):
        raise NotImplementedError(f"paddle.vision.transforms.{op} of a Tensor image is not supported; apply it to "
                                  "the numpy/PIL image before ToTensor")
    got = f"a numpy array of shape {list(img.shape)}" if isinstance(img, np.ndarray) else type(img).__name__
    raise TypeError(f"paddle.vision.transforms.{op}: img should be a PIL image, a numpy HWC/HW image or a CHW "
                    f"Tensor, got {got}")


def _pil_interp(name):
    table = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC, "box": Image.BOX,
             "lanczos": Image.LANCZOS, "hamming": Image.HAMMING}
    if name not in table:
        raise ValueError(f"interpolation should be one of {sorted(table)} for PIL images, got {name!r}")
    return table[name]


def _keep_channel(out, img):
    """numpy ops may drop a trailing channel axis of 1, as OpenCV does; put it back."""
    return out[:, :, None] if img.ndim == 3 and out.ndim == 2 else out


def _round_cast(x, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.floor(x + 0.5), info.min, info.max).astype(dtype)
    return x.astype(dtype)


def to_tensor(pic, data_format="CHW"):
    """Convert a PIL image or numpy HWC image to a Tensor in CHW (or HWC) layout; uint8 data is scaled to [0, 1]
    in the default float dtype, other dtypes keep their values.

    Args:
        pic (PIL.Image|numpy.ndarray): the image.
        data_format (str): 'CHW' or 'HWC' for the result. Default 'CHW'.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> t = F.to_tensor(np.full([2, 2, 3], 255, 'uint8'))
        >>> t.shape, t.dtype, float(t.max())
        (paddle.Size([3, 2, 2]), paddle.float32, 1.0)
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be CHW or HWC, got {data_format!r}")
    _check_image(pic, "to_tensor")
    if _is_pil_image(pic):
        modes = {"I": np.int32, "I;16": np.int16, "F": np.float32}
        arr = np.array(pic, dtype=modes.get(pic.mode, np.uint8))
        if pic.mode == "1":
            arr = arr * 255
    else:
        arr = pic
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return _to_tensor((arr.astype(np.float64) / 255.0).astype(get_default_dtype()))
    return _to_tensor(np.ascontiguousarray(arr))


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel on a Tensor, numpy array or PIL image (as float32).

    Args:
        img (Tensor|numpy.ndarray|PIL.Image): the image.
        mean (list|tuple|float): per-channel means.
        std (list|tuple|float): per-channel standard deviations.
        data_format (str): 'CHW' or 'HWC', where the channel axis is. Default 'CHW'.
        to_rgb (bool): reverse the channel order first (BGR -> RGB; numpy/PIL only). Default False.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.normalize(np.full([1, 2, 2], 255.0, 'float32'), mean=[127.5], std=[127.5])
        array([[[1., 1.],
                [1., 1.]]], dtype=float32)
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: data_format should be CHW or HWC, got {data_format!r}")
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean = np.asarray(mean, dtype=np.float32).reshape(shape)
    std = np.asarray(std, dtype=np.float32).reshape(shape)
    if isinstance(img, Tensor):
        if to_rgb:
            raise ValueError("normalize: to_rgb is supported for numpy/PIL images, not Tensors (flip the channel "
                             "axis of the Tensor first)")
        return (img - _to_tensor(mean).astype(img.dtype)) / _to_tensor(std).astype(img.dtype)
    _check_image(img, "normalize")
    arr = np.asarray(img, dtype=np.float32)
    if to_rgb:
        arr = arr[..., ::-1]
    return (arr - mean) / std


def _resize_numpy(img, oh, ow, interpolation):
    h, w = img.shape[:2]
    if interpolation == "nearest":
        ys = np.minimum(np.floor(np.arange(oh) * (h / oh)).astype(int), h - 1)
        xs = np.minimum(np.floor(np.arange(ow) * (w / ow)).astype(int), w - 1)
        return img[ys][:, xs]
    if interpolation == "bicubic":
        return _resize_bicubic(img, oh, ow)
    if interpolation != "bilinear":
        raise NotImplementedError(f"resize: interpolation {interpolation!r} is supported for PIL images only; numpy "
                                  "images support 'nearest', 'bilinear' and 'bicubic'")

    def axis(n_out, n_in):
        src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
        i0 = np.floor(src).astype(int)
        frac = src - i0
        low, high = i0 < 0, i0 >= n_in - 1  # OpenCV clamps to the edge pixel with weight 1
        frac[low | high] = 0.0
        i0 = np.clip(i0, 0, n_in - 1)
        return i0, np.minimum(i0 + 1, n_in - 1), frac

    y0, y1, fy = axis(oh, h)
    x0, x1, fx = axis(ow, w)
    a = img.astype(np.float64)
    fy = fy.reshape((-1, 1) + (1,) * (a.ndim - 2))
    fx = fx.reshape((1, -1) + (1,) * (a.ndim - 2))
    top = a[y0][:, x0] * (1 - fx) + a[y0][:, x1] * fx
    bottom = a[y1][:, x0] * (1 - fx) + a[y1][:, x1] * fx
    return _round_cast(top * (1 - fy) + bottom * fy, img.dtype)


def _cubic_weights(n_out, n_in):
    """OpenCV's bicubic (A = -0.75): source indices (clamped to the edge) and weights, one row per output pixel."""
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    i0 = np.floor(src).astype(int)
    t = (src - i0)[:, None]
    d = np.abs(np.arange(-1, 3)[None, :] - t)
    a = -0.75
    w = np.where(d <= 1, ((a + 2) * d - (a + 3)) * d * d + 1, ((a * d - 5 * a) * d + 8 * a) * d - 4 * a)
    return np.clip(i0[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1), w


def _resize_bicubic(img, oh, ow):
    a = img.astype(np.float64)
    yi, wy = _cubic_weights(oh, img.shape[0])
    xi, wx = _cubic_weights(ow, img.shape[1])
    extra = (1,) * (a.ndim - 2)
    cols = (a[:, xi] * wx.reshape((1,) + wx.shape + extra)).sum(axis=2)     # [h, ow, ...]
    out = (cols[yi] * wy.reshape(wy.shape + (1,) + extra)).sum(axis=1)      # [oh, ow, ...]
    return _round_cast(out, img.dtype)


def resize(img, size, interpolation="bilinear"):
    """Resize an image. An int ``size`` scales the smaller edge to ``size`` keeping the aspect ratio; a
    ``(height, width)`` pair gives the exact size.

    Args:
        img (PIL.Image|numpy.ndarray): the image (HWC or HW).
        size (int|list|tuple): the target size.
        interpolation (str): 'bilinear' (default), 'nearest', 'bicubic'; PIL images also 'box', 'lanczos',
            'hamming'.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> img = np.array([[0, 100], [200, 255]], 'uint8')[:, :, None]
        >>> F.resize(img, (4, 4))[:, :, 0]
        array([[  0,  25,  75, 100],
               [ 50,  72, 117, 139],
               [150, 167, 200, 216],
               [200, 214, 241, 255]], dtype=uint8)
    """
    if not (isinstance(size, int) or (isinstance(size, (list, tuple)) and len(size) == 2)):
        raise TypeError(f"resize: size should be an int or a (height, width) pair, got {size!r}")
    if isinstance(img, Tensor):
        return FT.resize(img, size, interpolation)
    _check_image(img, "resize")
    w, h = img.size if _is_pil_image(img) else (img.shape[1], img.shape[0])
    hw = FT.resized_hw(h, w, size)
    if hw is None:
        return img
    oh, ow = hw
    if _is_pil_image(img):
        return img.resize((ow, oh), _pil_interp(interpolation))
    return _keep_channel(_resize_numpy(img, oh, ow, interpolation), img)


def _padding4(padding):
    if isinstance(padding, numbers.Number):
        return (int(padding),) * 4
    if isinstance(padding, (list, tuple)) and len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        return tuple(padding)
    raise ValueError(f"pad: padding must be an int or a 2- or 4-element tuple (left, top, right, bottom), got "
                     f"{padding!r}")


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders of an image.

    Args:
        img (PIL.Image|numpy.ndarray): the image.
        padding (int|list|tuple): all sides; (left/right, top/bottom); or (left, top, right, bottom).
        fill (int|float|tuple): the value for 'constant' padding (one per channel or one for all).
        padding_mode (str): 'constant', 'edge', 'reflect' (without repeating the edge) or 'symmetric'.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.pad(np.array([[1, 2]], 'uint8'), (1, 0), padding_mode='reflect')
        array([[2, 1, 2, 1]], dtype=uint8)
    """
    modes = {"constant": "constant", "edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}
    if padding_mode not in modes:
        raise ValueError(f"pad: padding_mode should be one of {list(modes)}, got {padding_mode!r}")
    left, top, right, bottom = _padding4(padding)
    if isinstance(img, Tensor):
        return FT.pad(img, left, top, right, bottom, fill, padding_mode)
    _check_image(img, "pad")
    if _is_pil_image(img) and padding_mode == "constant":
        return ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
    arr = np.asarray(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    if padding_mode == "constant":
        out = np.empty((arr.shape[0] + top + bottom, arr.shape[1] + left + right) + arr.shape[2:], arr.dtype)
        out[...] = np.asarray(fill, dtype=arr.dtype)
        out[top:top + arr.shape[0], left:left + arr.shape[1]] = arr
    else:
        out = np.pad(arr, widths, mode=modes[padding_mode])
    return Image.fromarray(out, mode=img.mode) if _is_pil_image(img) else out


def crop(img, top, left, height, width):
    """The ``height x width`` region whose top-left corner is (``top``, ``left``).

    Args:
        img (PIL.Image|numpy.ndarray): the image.
        top (int): first row.
        left (int): first column.
        height (int): rows kept.
        width (int): columns kept.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.crop(np.arange(16).reshape(4, 4), 1, 2, 2, 2)
        array([[ 6,  7],
               [10, 11]])
    """
    if isinstance(img, Tensor):
        return FT.crop(img, top, left, height, width)
    _check_image(img, "crop")
    if _is_pil_image(img):
        return img.crop((left, top, left + width, top + height))
    return img[top:top + height, left:left + width]


def center_crop(img, output_size):
    """The centred ``output_size`` (int or (height, width)) region of an image.

    Args:
        img (PIL.Image|numpy.ndarray): the image.
        output_size (int|list|tuple): the size kept.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.center_crop(np.arange(16).reshape(4, 4), 2)
        array([[ 5,  6],
               [ 9, 10]])
    """
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    if isinstance(img, Tensor):
        FT.check(img, "center_crop")
        w, h = img.shape[2], img.shape[1]
    else:
        _check_image(img, "center_crop")
        w, h = img.size if _is_pil_image(img) else (img.shape[1], img.shape[0])
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror an image left-right.

    Args:
        img (PIL.Image|numpy.ndarray): the image.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.hflip(np.array([[1, 2, 3]]))
        array([[3, 2, 1]])
    """
    if isinstance(img, Tensor):
        return FT.flip(img, 2, "hflip")
    _check_image(img, "hflip")
    return img.transpose(Image.FLIP_LEFT_RIGHT) if _is_pil_image(img) else img[:, ::-1].copy()


def vflip(img):
    """Flip an image upside down.

    Args:
        img (PIL.Image|numpy.ndarray): the image.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.vflip(np.array([[1], [2]]))
        array([[2],
               [1]])
    """
    if isinstance(img, Tensor):
        return FT.flip(img, 1, "vflip")
    _check_image(img, "vflip")
    return img.transpose(Image.FLIP_TOP_BOTTOM) if _is_pil_image(img) else img[::-1].copy()


def _lut(img, table, op):
    if img.dtype != np.uint8:
        raise TypeError(f"{op}: numpy images must be uint8 (got {img.dtype}); convert with "
                        "img.clip(0, 255).astype('uint8') or use a PIL image")
    return table.clip(0, 255).astype(np.uint8)[img]


def adjust_brightness(img, brightness_factor):
    """Scale the brightness: 0 gives black, 1 the original, 2 twice as bright (clipped).

    Args:
        img (PIL.Image|numpy.ndarray): the image (numpy: uint8).
        brightness_factor (float): non-negative factor.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.adjust_brightness(np.array([[10, 100, 200]], 'uint8'), 1.5)
        array([[ 15, 150, 255]], dtype=uint8)
    """
    if brightness_factor < 0:
        raise ValueError(f"adjust_brightness: brightness_factor should be non-negative, got {brightness_factor}")
    if isinstance(img, Tensor):
        return FT.adjust_brightness(img, brightness_factor)
    _check_image(img, "adjust_brightness")
    if _is_pil_image(img):
        return ImageEnhance.Brightness(img).enhance(brightness_factor)
    return _lut(img, np.arange(256) * brightness_factor, "adjust_brightness")


def adjust_contrast(img, contrast_factor):
    """Scale the contrast: 0 gives a flat grey image, 1 the original. PIL images pivot on their mean grey level;
    numpy images on 74, as Paddle's cv2 backend.

    Args:
        img (PIL.Image|numpy.ndarray): the image (numpy: uint8).
        contrast_factor (float): non-negative factor.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.adjust_contrast(np.array([[10, 74, 200]], 'uint8'), 2.0)
        array([[  0,  74, 255]], dtype=uint8)
    """
    if contrast_factor < 0:
        raise ValueError(f"adjust_contrast: contrast_factor should be non-negative, got {contrast_factor}")
    if isinstance(img, Tensor):
        return FT.adjust_contrast(img, contrast_factor)
    _check_image(img, "adjust_contrast")
    if _is_pil_image(img):
        return ImageEnhance.Contrast(img).enhance(contrast_factor)
    return _lut(img, (np.arange(256) - 74) * contrast_factor + 74, "adjust_contrast")


def _gray(arr):
    """BT.601 luma of RGB data, computed as OpenCV does for uint8 (14-bit fixed point)."""
    if arr.dtype == np.uint8:
        a = arr.astype(np.int64)
        return ((a[..., 0] * 4899 + a[..., 1] * 9617 + a[..., 2] * 1868 + 8192) >> 14).astype(np.uint8)
    return (arr[..., 0] * 0.299 + arr[..., 1] * 0.587 + arr[..., 2] * 0.114).astype(arr.dtype)


def adjust_saturation(img, saturation_factor):
    """Scale the colour saturation: 0 gives the grayscale image, 1 the original, 2 doubles it.

    Args:
        img (PIL.Image|numpy.ndarray): an RGB image.
        saturation_factor (float): non-negative factor.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.adjust_saturation(np.array([[[200, 100, 0]]], 'uint8'), 0.0)
        array([[[118, 118, 118]]], dtype=uint8)
    """
    if saturation_factor < 0:
        raise ValueError(f"adjust_saturation: saturation_factor should be non-negative, got {saturation_factor}")
    if isinstance(img, Tensor):
        return FT.adjust_saturation(img, saturation_factor)
    _check_image(img, "adjust_saturation")
    if _is_pil_image(img):
        return ImageEnhance.Color(img).enhance(saturation_factor)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"adjust_saturation: needs an RGB HWC image, got shape {list(img.shape)}")
    gray = _gray(img).astype(np.float64)[..., None]
    out = img.astype(np.float64) * saturation_factor + gray * (1 - saturation_factor)
    return _round_cast(np.clip(out, 0, 255), img.dtype)


def _rgb_to_hsv_full(arr):
    """OpenCV's full-range HSV (all three in [0, 255]) of uint8 RGB, with its 12-bit fixed-point divisions."""
    a = arr.astype(np.int64)
    r, g, b = a[..., 0], a[..., 1], a[..., 2]
    v = a.max(-1)
    diff = v - a.min(-1)
    with np.errstate(divide="ignore"):
        sdiv = np.where(v > 0, np.rint((255 << 12) / np.maximum(v, 1)), 0).astype(np.int64)
        hdiv = np.where(diff > 0, np.rint((256 << 12) / (6.0 * np.maximum(diff, 1))), 0).astype(np.int64)
    s = (diff * sdiv + (1 << 11)) >> 12
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * hdiv + (1 << 11)) >> 12
    h = np.where(h < 0, h + 256, h)
    return h.astype(np.float64), s.astype(np.float64), v.astype(np.float64)


def _hsv_full_to_rgb(h, s, v):
    h6 = (h * np.float32(6.0 / 255)).astype(np.float32)  # OpenCV reads full-range hue back on a 255 scale
    s, v = (s / 255.0).astype(np.float32), (v / 255.0).astype(np.float32)
    h6 = np.where(h6 >= 6, h6 - 6, h6)
    sector = np.floor(h6).astype(int) % 6
    f = h6 - np.floor(h6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    rgb = [np.choose(sector, [c[k] for c in choices]) for k in range(3)]
    return np.stack(rgb, axis=-1)


def adjust_hue(img, hue_factor):
    """Rotate the hue by ``hue_factor`` of a full turn (in [-0.5, 0.5]).

    Args:
        img (PIL.Image|numpy.ndarray): an RGB image (numpy: uint8; processed in OpenCV's HSV of the channels read
            as BGR, as Paddle's cv2 backend).
        hue_factor (float): the shift, -0.5 to 0.5.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.adjust_hue(np.array([[[0, 0, 255]]], 'uint8'), 0.5)
        array([[[252, 255,   0]]], dtype=uint8)
    """
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor {hue_factor} is not in [-0.5, 0.5]")
    _check_image(img, "adjust_hue")
    if _is_pil_image(img):
        if img.mode in ("L", "1", "I", "F"):
            return img
        h, s, v = img.convert("HSV").split()
        # the shift truncated toward zero and wrapped, as uint8 arithmetic; a negative factor turns the hue back
        np_h = (np.array(h, dtype=np.uint8).astype(np.int64) + int(hue_factor * 255)) % 256
        return Image.merge("HSV", (Image.fromarray(np_h.astype(np.uint8), "L"), s, v)).convert(img.mode)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"adjust_hue: needs an RGB HWC image, got shape {list(img.shape)}")
    bgr = img.astype(np.uint8)[..., ::-1]
    h, s, v = _rgb_to_hsv_full(bgr)
    h = (h + int(hue_factor * 255)) % 256
    rgb = np.clip(np.rint(_hsv_full_to_rgb(h, s, v).astype(np.float32) * 255), 0, 255).astype(np.uint8)
    return rgb[..., ::-1].astype(img.dtype)


def _rotation_matrix(center, angle):
    """OpenCV's getRotationMatrix2D(center, angle, 1): counter-clockwise for positive angles."""
    a, b = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    cx, cy = center
    return np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])


def _warp_numpy(img, m, out_w, out_h, interpolation, fill, op="rotate"):
    """OpenCV's warpAffine: every output pixel reads the source at the inverse-mapped point; for 'nearest' the
    point is computed in OpenCV's 10-bit fixed point so that ties round as OpenCV rounds them."""
    det = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / det if det else 0.0
    i00, i01, i10, i11 = m[1, 1] * d, -m[0, 1] * d, -m[1, 0] * d, m[0, 0] * d
    i02, i12 = -i00 * m[0, 2] - i01 * m[1, 2], -i10 * m[0, 2] - i11 * m[1, 2]
    xs = np.arange(out_w, dtype=np.float64)[None, :]
    ys = np.arange(out_h, dtype=np.float64)[:, None]
    if interpolation == "nearest":
        sx = np.rint(i00 * xs * 1024).astype(np.int64) + np.rint((i01 * ys + i02) * 1024).astype(np.int64) + 512
        sy = np.rint(i10 * xs * 1024).astype(np.int64) + np.rint((i11 * ys + i12) * 1024).astype(np.int64) + 512
        return _sample_numpy(img, sx >> 10, sy >> 10, interpolation, fill, op)
    return _sample_numpy(img, i00 * xs + i01 * ys + i02, i10 * xs + i11 * ys + i12, interpolation, fill, op)


def _sample_numpy(img, src_x, src_y, interpolation, fill, op):
    """The image read at the source points (integers for 'nearest', floats for 'bilinear'), `fill` outside, as
    OpenCV's warps with a constant border; a number fills channel 0 only, as OpenCV's borderValue Scalar(fill, 0,
    0, 0) that Paddle passes."""
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"{op}: interpolation {interpolation!r} is supported for PIL images only; numpy "
                                  "images support 'nearest' and 'bilinear'")
    h, w = img.shape[:2]
    a = img.astype(np.float64)
    fill_vec = np.zeros(a.shape[2:] or (1,))
    fill_arr = np.atleast_1d(np.asarray(fill, dtype=np.float64))
    fill_vec[:min(len(fill_vec), len(fill_arr))] = fill_arr[:len(fill_vec)]
    fill_px = fill_vec if a.ndim == 3 else fill_vec[0]

    def sample(yi, xi):
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        vals = a[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        mask = inside.reshape(inside.shape + (1,) * (a.ndim - 2))
        return np.where(mask, vals, fill_px)

    if interpolation == "nearest":
        return _round_cast(sample(src_y, src_x), img.dtype)
    # bilinear: float coordinates reproduce OpenCV's results here
    x0, y0 = np.floor(src_x).astype(np.int64), np.floor(src_y).astype(np.int64)
    fx, fy = src_x - x0, src_y - y0
    if a.ndim == 3:
        fx, fy = fx[..., None], fy[..., None]
    out = ((sample(y0, x0) * (1 - fx) + sample(y0, x0 + 1) * fx) * (1 - fy)
           + (sample(y0 + 1, x0) * (1 - fx) + sample(y0 + 1, x0 + 1) * fx) * fy)
    return _round_cast(out, img.dtype)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate an image by ``angle`` degrees counter-clockwise about ``center`` (default: the image centre).

    Args:
        img (PIL.Image|numpy.ndarray): the image.
        angle (float): degrees, counter-clockwise.
        interpolation (str): 'nearest' (default) or 'bilinear'; PIL images also 'bicubic'.
        expand (bool): enlarge the output to hold the whole rotated image. Default False.
        center (tuple, optional): (x, y) rotation centre.
        fill (int|tuple): value of the area outside the rotated image. Default 0.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.rotate(np.arange(9, dtype='uint8').reshape(3, 3), 90)
        array([[0, 0, 0],
               [2, 5, 8],
               [1, 4, 7]], dtype=uint8)
    """
    _check_image(img, "rotate")
    if _is_pil_image(img):
        return img.rotate(angle, _pil_interp(interpolation), expand, center, fillcolor=fill)
    h, w = img.shape[:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = _rotation_matrix(center, angle)
    if expand:  # the bounding box of the rotated corners, the image moved to its middle
        corners = m @ np.array([[0, w, w, 0], [0, 0, h, h], [1, 1, 1, 1]], dtype=np.float64)
        nw = math.ceil(corners[0].max() - 1e-9) - math.floor(corners[0].min() + 1e-9)
        nh = math.ceil(corners[1].max() - 1e-9) - math.floor(corners[1].min() + 1e-9)
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _keep_channel(_warp_numpy(img, m, w, h, interpolation, fill), img)


def _inverse_affine_matrix(center, angle, translate, scale, shear):
    """The 6 numbers mapping output to input points of Paddle's affine (PIL and Tensor paths): about `center`, the
    inverse of translate o rotate(angle, clockwise) o shear o scale."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]  # the inverse of [[a, b], [c, d]], divided by the scale
    cx, cy = center
    tx, ty = translate
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotate by `angle` degrees clockwise, scale, shear and translate an image, keeping its size.

    The three kinds of image follow Paddle's three backends: PIL images through Pillow's affine transform and
    CHW Tensors through ``grid_sample`` (both about ``center``, default the image centre), numpy HWC images as
    Paddle's OpenCV code (which rotates and scales about the origin: its translation replaces the centring). For
    PIL images `fill` colours the outside as documented; Paddle 3.3.1 hands it to Pillow's unrelated ``fill``
    argument, so its outside stays black.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): the image.
        angle (float): degrees, clockwise.
        translate (list|tuple): (x, y) pixels.
        scale (float): positive.
        shear (float|list|tuple): degrees; one number shears along x, two are (x, y).
        interpolation (str): 'nearest' (default) or 'bilinear'; PIL images also 'bicubic'.
        fill (int|tuple): the value outside the moved image. Default 0.
        center (list|tuple, optional): (x, y) of the rotation centre (PIL and Tensor images).

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.vision.transforms.functional as F
        >>> img = paddle.arange(9, dtype='float32').reshape([1, 3, 3])
        >>> F.affine(img, 90, translate=[0, 0], scale=1.0, shear=0).numpy()[0]
        array([[6., 3., 0.],
               [7., 4., 1.],
               [8., 5., 2.]], dtype=float32)
    """
    if not (_is_pil_image(img) or _is_numpy_image(img) or _is_tensor_image(img)):
        raise TypeError(f"affine: img should be a PIL image, a numpy HWC/HW image or a CHW Tensor, got "
                        f"{type(img).__name__}")
    if not isinstance(angle, numbers.Number) or isinstance(angle, bool):
        raise TypeError(f"affine: angle should be an int or float, got {angle!r}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"affine: translate should be a sequence of length 2, got {translate!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = shear * 2
    if len(shear) != 2:
        raise ValueError(f"affine: shear should be a number or a sequence of two values, got {shear}")
    angle = float(angle)
    if _is_pil_image(img):
        width, height = img.size
        centre = [width * 0.5, height * 0.5] if center is None else center
        matrix = _inverse_affine_matrix(centre, angle, translate, scale, shear)
        return img.transform(img.size, Image.AFFINE, matrix, _pil_interp(interpolation),
                             fillcolor=tuple([fill] * 3) if isinstance(fill, int) else fill)
    if _is_tensor_image(img):
        # Paddle measures the centre from the image's middle, reading its sides swapped (as here)
        centre = [0.0, 0.0] if center is None else [c - s * 0.5 for c, s in zip(center, img.shape[-2:])]
        matrix = _inverse_affine_matrix(centre, angle, [float(t) for t in translate], scale, shear)
        return FT.affine(img, matrix, interpolation, fill)
    h, w = img.shape[:2]
    rotation = _rotation_matrix((0.0, 0.0), angle) * scale
    m = np.stack([rotation[0] + math.tan(math.radians(shear[1])) * rotation[1],
                  rotation[1] + math.tan(math.radians(shear[0])) * rotation[0]])
    m[:, 2] = translate
    fill = tuple([fill] * 3) if isinstance(fill, int) else fill
    return _keep_channel(_warp_numpy(img, m, w, h, interpolation, fill, "affine"), img)


def _perspective_coeffs(startpoints, endpoints):
    """The 8 coefficients of the perspective map taking each of the 4 `endpoints` to its start point (output to
    input), by least squares as Paddle."""
    rows, rhs = [], []
    for (sx, sy), (ex, ey) in zip(startpoints, endpoints):
        rows.append([ex, ey, 1, 0, 0, 0, -sx * ex, -sx * ey])
        rows.append([0, 0, 0, ex, ey, 1, -sy * ex, -sy * ey])
        rhs += [sx, sy]
    return np.linalg.lstsq(np.array(rows, dtype=np.float64), np.array(rhs, dtype=np.float64), rcond=None)[0]


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Warp an image so that the 4 `startpoints` [[x, y], ...] move to `endpoints` (a perspective transform).

    PIL images go through Pillow's perspective transform and CHW Tensors through ``grid_sample`` at the pixel
    centres, both with Paddle's least-squares coefficients; numpy images as OpenCV's warpPerspective (pixel
    corners, the exact 4-point homography), which Paddle's cv2 backend calls. `fill` colours PIL images' outside
    too (Paddle 3.3.1's stays black, as in `affine`).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): the image.
        startpoints (list): 4 points [x, y] of the input: top-left, top-right, bottom-right, bottom-left.
        endpoints (list): where they go.
        interpolation (str): 'nearest' (default) or 'bilinear'; PIL images also 'bicubic'.
        fill (int|tuple): the value outside the warped image. Default 0.

    Example:
        >>> import paddle_fn as paddle
        >>> import paddle_fn.vision.transforms.functional as F
        >>> img = paddle.arange(16, dtype='float32').reshape([1, 4, 4])
        >>> corners = [[0, 0], [3, 0], [3, 3], [0, 3]]
        >>> F.perspective(img, corners, [[1, 0], [4, 0], [4, 3], [1, 3]]).numpy()[0]   # one pixel right
        array([[ 0.,  0.,  1.,  2.],
               [ 0.,  4.,  5.,  6.],
               [ 0.,  8.,  9., 10.],
               [ 0., 12., 13., 14.]], dtype=float32)
    """
    if not (_is_pil_image(img) or _is_numpy_image(img) or _is_tensor_image(img)):
        raise TypeError(f"perspective: img should be a PIL image, a numpy HWC/HW image or a CHW Tensor, got "
                        f"{type(img).__name__}")
    if np.shape(startpoints) != (4, 2) or np.shape(endpoints) != (4, 2):
        raise ValueError(f"perspective: startpoints and endpoints must be 4 points [x, y] each, got "
                         f"{startpoints} and {endpoints}")
    if _is_pil_image(img):
        coeffs = _perspective_coeffs(startpoints, endpoints)
        return img.transform(img.size, Image.PERSPECTIVE, tuple(coeffs), _pil_interp(interpolation),
                             fillcolor=tuple([fill] * 3) if isinstance(fill, int) else fill)
    if _is_tensor_image(img):
        return FT.perspective(img, _perspective_coeffs(startpoints, endpoints), interpolation, fill)
    # OpenCV: the homography taking the start points (float32) to the end points, inverted per output pixel
    start, end = np.float32(startpoints).astype(np.float64), np.float32(endpoints).astype(np.float64)
    forward = np.append(_perspective_coeffs(end, start), 1.0).reshape(3, 3)
    inverse = np.linalg.inv(forward)
    h, w = img.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    den = inverse[2, 0] * xs + inverse[2, 1] * ys + inverse[2, 2]
    safe = np.where(den == 0, 1.0, den)
    src_x = np.where(den == 0, 0.0, (inverse[0, 0] * xs + inverse[0, 1] * ys + inverse[0, 2]) / safe)
    src_y = np.where(den == 0, 0.0, (inverse[1, 0] * xs + inverse[1, 1] * ys + inverse[1, 2]) / safe)
    if interpolation == "nearest":
        src_x, src_y = np.rint(src_x).astype(np.int64), np.rint(src_y).astype(np.int64)
    return _keep_channel(_sample_numpy(img, src_x, src_y, interpolation, fill, "perspective"), img)


def to_grayscale(img, num_output_channels=1):
    """Convert an RGB image to grayscale with 1 or 3 (identical) channels.

    Args:
        img (PIL.Image|numpy.ndarray): an RGB image.
        num_output_channels (int): 1 or 3. Default 1.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.to_grayscale(np.array([[[255, 0, 0], [0, 255, 0]]], 'uint8'))[..., 0]
        array([[ 76, 150]], dtype=uint8)
    """
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, got {num_output_channels}")
    if isinstance(img, Tensor):
        return FT.to_grayscale(img, num_output_channels)
    _check_image(img, "to_grayscale")
    if _is_pil_image(img):
        gray = img.convert("L")
        if num_output_channels == 1:
            return gray
        g = np.array(gray, dtype=np.uint8)
        return Image.fromarray(np.dstack([g, g, g]), "RGB")
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"to_grayscale: needs an RGB HWC image, got shape {list(img.shape)}")
    g = _gray(img)[:, :, None]
    return g if num_output_channels == 1 else np.repeat(g, 3, axis=2)


def erase(img, i, j, h, w, v, inplace=False):
    """Overwrite the ``h x w`` region at row ``i``, column ``j`` with ``v`` (a value or an array broadcastable to the
    region: HWC for numpy/PIL images, CHW for Tensors).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): the image (numpy/PIL HWC, Tensor CHW).
        i (int): first row.
        j (int): first column.
        h (int): rows erased.
        w (int): columns erased.
        v (number|numpy.ndarray|Tensor): the new values.
        inplace (bool): write into ``img`` itself (numpy arrays and Tensors). Default False.

    Example:
        >>> import numpy as np
        >>> import paddle_fn.vision.transforms.functional as F
        >>> F.erase(np.ones([3, 3, 1], 'uint8'), 0, 1, 2, 2, 0)[..., 0]
        array([[1, 0, 0],
               [1, 0, 0],
               [1, 1, 1]], dtype=uint8)
    """
    if isinstance(img, Tensor):
        FT.check(img, "erase")
        out = img if inplace else img.clone()
        out[..., i:i + h, j:j + w] = v if isinstance(v, Tensor) else _to_tensor(np.asarray(v)).astype(img.dtype)
        return out
    _check_image(img, "erase")
    if _is_pil_image(img):
        arr = np.array(img, dtype=np.uint8)
        arr[i:i + h, j:j + w, ...] = v
        return Image.fromarray(arr, img.mode)
    out = img if inplace else img.copy()
    out[i:i + h, j:j + w, ...] = v
    return out
