"""The Tensor-image paths of `paddle_fn.vision.transforms.functional`: CHW Tensors (as ``ToTensor`` makes), in
Paddle's functional_tensor semantics (resize through ``interpolate``, pad through ``nn.functional.pad``, colour
changes as blends with a black / mean-grey / grayscale image, clipped to [0, 1] for float and [0, 255] for
integer images, affine and perspective warps through ``grid_sample`` at the output pixels' centres)."""
from __future__ import annotations

import numbers

import numpy as np

from paddle_fn.nn.functional import grid_sample, interpolate
from paddle_fn.nn.functional import pad as _pad_nd
from paddle_fn.tensor import concat, is_floating_point, lerp, to_tensor, zeros_like


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


def _warp(img, grid, interpolation, fill, op):
    """`img` (CHW) read at the normalized points `grid` [H, W, 2] (numpy); outside the image `fill` (per channel,
    or None for zeros), told apart from the image by a channel of ones warped along, as Paddle does."""
    check(img, op)
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(f"{op}: interpolation must be 'nearest' or 'bilinear' for Tensor images, got "
                         f"{interpolation!r}")
    batch = img.unsqueeze(0)
    if fill is not None:
        batch = concat([batch, to_tensor(np.ones((1, 1) + tuple(img.shape[1:]))).astype(img.dtype)], axis=1)
    out = grid_sample(batch, to_tensor(grid[None]).astype(img.dtype), mode=interpolation, padding_mode="zeros",
                      align_corners=False).squeeze(0)
    if fill is None:
        return out
    inside, out = out[-1:], out[:-1]
    values = np.asarray(fill, dtype=np.float64).reshape(-1, 1, 1)
    if values.shape[0] not in (1, out.shape[0]):
        raise ValueError(f"{op}: fill needs one value or one per channel ({out.shape[0]}), got {fill!r}")
    fill_img = to_tensor(values).astype(img.dtype).expand(out.shape)
    if interpolation == "nearest":
        outside = (inside < 0.5).astype(img.dtype)
        return out * (1.0 - outside) + outside * fill_img
    return out * inside + (1.0 - inside) * fill_img


def _pixel_centres(h, w, centred):
    """The output pixels' centres (x, y), [h, w] each, from the image's centre or from its top-left corner."""
    xs = np.arange(w, dtype=np.float64) + 0.5 - (w * 0.5 if centred else 0.0)
    ys = np.arange(h, dtype=np.float64) + 0.5 - (h * 0.5 if centred else 0.0)
    return np.meshgrid(xs, ys)


def affine(img, matrix, interpolation, fill):
    """Warp by the inverse affine `matrix` (6 numbers, output -> input, about the image centre)."""
    h, w = img.shape[-2:]
    x, y = _pixel_centres(h, w, centred=True)
    m = np.asarray(matrix, dtype=np.float64)
    grid = np.stack([(m[0] * x + m[1] * y + m[2]) / (0.5 * w), (m[3] * x + m[4] * y + m[5]) / (0.5 * h)], -1)
    return _warp(img, grid, interpolation, fill, "affine")


def perspective(img, coeffs, interpolation, fill):
    """Warp by the perspective `coeffs` (8 numbers, output -> input pixel coordinates)."""
    h, w = img.shape[-2:]
    x, y = _pixel_centres(h, w, centred=False)
    a, b, c, d, e, f, g, k = np.asarray(coeffs, dtype=np.float64)
    denominator = g * x + k * y + 1.0
    grid = np.stack([(a * x + b * y + c) / denominator / (0.5 * w) - 1.0,
                     (d * x + e * y + f) / denominator / (0.5 * h) - 1.0], -1)
    return _warp(img, grid, interpolation, fill, "perspective")
