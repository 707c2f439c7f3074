"""The Tensor-image paths of `paddle_fn.vision.transforms.functional`: CHW Tensors (as ``ToTensor`` makes), in
Paddle's functional_tensor semantics (resize through ``interpolate``, pad through ``nn.functional.pad``, colour
changes as blends with a black / mean-grey / grayscale image, clipped to [0, 1] for float and [0, 255] for
integer images)."""
from __future__ import annotations

import numbers

from paddle_fn.nn.functional import interpolate
from paddle_fn.nn.functional import pad as _pad_nd
from paddle_fn.tensor import is_floating_point, lerp, to_tensor, zeros_like


def check(img, op):
    if img.ndim != 3:
        raise TypeError(f"paddle.vision.transforms.{op}: a Tensor image must be CHW (3-D), got shape {img.shape}")


def resized_hw(h, w, size):
    """The (height, width) that ``resize`` gives an h x w image, for every backend: an int `size` scales the
    shorter edge to it keeping the aspect ratio, a pair is the exact size; None when an int `size` already is the
    shorter edge (then ``resize`` returns the image itself, as Paddle does)."""
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return None
        return (int(size * h / w), size) if w < h else (size, int(size * w / h))
    return tuple(size)


def resize(img, size, interpolation):
    check(img, "resize")
    hw = resized_hw(img.shape[1], img.shape[2], size)
    if hw is None:
        return img
    oh, ow = hw
    return interpolate(img.unsqueeze(0), size=(oh, ow), mode=interpolation.lower(), data_format="NCHW").squeeze(0)


def pad(img, left, top, right, bottom, fill, padding_mode):
    check(img, "pad")
    if padding_mode == "symmetric":
        raise ValueError("pad: padding_mode 'symmetric' is not supported for Tensor images (as Paddle); use "
                         "'reflect', 'edge' or 'constant', or pad the numpy/PIL image")
    if not isinstance(fill, numbers.Number):
        raise TypeError(f"pad: fill must be a number for Tensor images, got {fill!r}")
    mode = "replicate" if padding_mode == "edge" else padding_mode
    out = _pad_nd(img.unsqueeze(0), pad=[left, right, top, bottom], mode=mode, value=float(fill), data_format="NCHW")
    return out.squeeze(0)


def crop(img, top, left, height, width):
    check(img, "crop")
    return img[:, top:top + height, left:left + width]


def flip(img, axis, op):
    check(img, op)
    return img.flip(axis=[axis])


def _gray(img):
    weights = to_tensor([0.2989, 0.587, 0.114]).astype(img.dtype).reshape([-1, 1, 1])
    return (img * weights).sum(axis=0, keepdim=True)


def to_grayscale(img, num_output_channels):
    check(img, "to_grayscale")
    if img.shape[0] != 3:
        raise ValueError(f"to_grayscale: needs a 3-channel CHW image, got shape {img.shape}")
    g = _gray(img)
    return g.expand([num_output_channels, img.shape[1], img.shape[2]])


def _blend(img1, img2, ratio):
    top = 1.0 if is_floating_point(img1) else 255.0
    return lerp(img2.astype("float32"), img1.astype("float32"), float(ratio)).clip(0, top).astype(img1.dtype)


def adjust_brightness(img, factor):
    check(img, "adjust_brightness")
    return _blend(img, zeros_like(img), factor)


def adjust_contrast(img, factor):
    check(img, "adjust_contrast")
    grey = _gray(img.astype("float32")) if img.shape[0] == 3 else img.astype("float32")
    return _blend(img, grey.mean().expand(img.shape).astype(img.dtype), factor)


def adjust_saturation(img, factor):
    check(img, "adjust_saturation")
    if img.shape[0] != 3:
        raise ValueError(f"adjust_saturation: needs a 3-channel CHW image, got shape {img.shape}")
    return _blend(img, _gray(img.astype("float32")).expand(img.shape).astype(img.dtype), factor)
