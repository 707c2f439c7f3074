"""``paddle.vision.transforms``: image transforms (classes) and their ``functional`` forms, on numpy HWC images
and PIL images (when Pillow is installed). See ``docs/data.md``."""
from paddle_fn.vision.transforms import functional
from paddle_fn.vision.transforms.functional import (
    adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, affine, center_crop, crop, erase, hflip,
    normalize, pad, perspective, resize, rotate, to_grayscale, to_tensor, vflip)
from paddle_fn.vision.transforms.transforms import (
    BaseTransform, BrightnessTransform, CenterCrop, ColorJitter, Compose, ContrastTransform, Grayscale,
    HueTransform, Normalize, Pad, RandomAffine, RandomCrop, RandomErasing, RandomHorizontalFlip, RandomPerspective,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize, SaturationTransform, ToTensor, Transpose)

__all__ = ["BaseTransform", "BrightnessTransform", "CenterCrop", "ColorJitter", "Compose", "ContrastTransform",
           "Grayscale", "HueTransform", "Normalize", "Pad", "RandomAffine", "RandomCrop", "RandomErasing",
           "RandomHorizontalFlip", "RandomPerspective", "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip",
           "Resize", "SaturationTransform", "ToTensor", "Transpose",
           "adjust_brightness", "adjust_contrast", "adjust_hue", "adjust_saturation", "affine", "center_crop", "crop",
           "erase", "functional", "hflip", "normalize", "pad", "perspective", "resize", "rotate", "to_grayscale",
           "to_tensor", "vflip"]
