"""vision.transforms' affine and perspective warps (functional and the RandomAffine/RandomPerspective transforms),
Paddle's private image-kind helpers and adjust_hue with a negative factor. The Tensor and PIL expectations are
paddlepaddle 3.3.1's (CPU); its numpy path needs OpenCV, so numpy images are checked against exact shifts."""
import random

import numpy as np
import pytest
from PIL import Image

import paddle_fn as paddle
import paddle_fn.vision.transforms as T
import paddle_fn.vision.transforms.functional as F

START = [[0, 0], [5, 0], [5, 4], [0, 4]]
END = [[1, 0], [5, 1], [4, 4], [0, 3]]


def _tensor_image():
    return paddle.to_tensor(np.arange(60, dtype="float32").reshape(3, 4, 5))


def _pil_image():
    return Image.fromarray((np.arange(90).reshape(5, 6, 3) * 5 % 256).astype("uint8"))


def test_affine_of_a_tensor_image_matches_paddle():
    img = _tensor_image()
    out = F.affine(img, 30, [1, -1], 0.8, [10, 5], interpolation="nearest", fill=7)
    np.testing.assert_array_equal(out.numpy()[0], [[7, 10, 6, 7, 3], [7, 15, 16, 12, 13], [7, 7, 7, 18, 19],
                                                   [7, 7, 7, 7, 7]])
    out = F.affine(img, 30, [1, -1], 0.8, [10, 5], interpolation="bilinear", fill=7)
    np.testing.assert_allclose(out.numpy()[0], [[7.0, 6.4319, 7.9066, 6.2442, 4.5818],
                                                [6.2831, 12.6087, 14.4182, 12.7558, 11.0934],
                                                [7.0, 7.0, 6.354, 12.9441, 11.9665], [7.0, 7.0, 7.0, 7.0, 7.0]],
                               atol=1e-4)
    out = F.affine(img, -45, (0, 1), 1.2, 8, center=[1, 2])
    np.testing.assert_array_equal(out.numpy()[0], [[0, 2, 3, 8, 14], [1, 2, 7, 13, 14], [0, 6, 12, 12, 18],
                                                   [5, 10, 11, 17, 18]])


def test_perspective_of_a_tensor_image_matches_paddle():
    img = _tensor_image()
    out = F.perspective(img, START, END, interpolation="nearest", fill=3)
    np.testing.assert_array_equal(out.numpy()[0], [[3, 0, 1, 3, 3], [10, 6, 7, 8, 4], [15, 11, 12, 13, 14],
                                                   [3, 3, 18, 19, 3]])
    out = F.perspective(img, START, END, interpolation="bilinear", fill=3)
    np.testing.assert_allclose(out.numpy()[0], [[2.6718, 0.3643, 1.6468, 2.2703, 2.8901],
                                                [3.375, 6.6154, 6.2308, 5.8462, 4.5298],
                                                [11.0309, 13.1538, 12.7692, 12.3846, 4.375],
                                                [2.9072, 3.9294, 8.5529, 17.433, 2.8889]], atol=1e-4)


def test_pil_warps_match_paddle_and_fill_colours_the_outside():
    img = _pil_image()
    out = np.array(F.affine(img, 30, [1, -1], 0.8, [10, 5]))
    np.testing.assert_array_equal(out[..., 0], [[0, 0, 180, 105, 120, 45], [0, 14, 29, 210, 225, 150],
                                                [0, 119, 134, 59, 74, 255], [0, 0, 0, 0, 179, 0], [0, 0, 0, 0, 0, 0]])
    out = np.array(F.affine(img, -20, [0, 0], 1.1, 0, interpolation="bilinear"))
    np.testing.assert_array_equal(out[..., 0], [[14, 27, 52, 93, 134, 171], [43, 84, 124, 165, 206, 247],
                                                [115, 156, 197, 198, 159, 120], [168, 129, 90, 54, 94, 135],
                                                [25, 44, 85, 126, 151, 164]])
    out = np.array(F.perspective(img, START, END))
    np.testing.assert_array_equal(out[..., 0], [[0, 0, 15, 0, 0, 0], [0, 105, 120, 135, 60, 75],
                                                [14, 195, 210, 225, 240, 0], [104, 119, 59, 74, 89, 0],
                                                [0, 0, 0, 164, 179, 0]])
    # Paddle 3.3.1 leaves the outside black whatever fill says; here fill colours it
    filled = np.array(F.perspective(img, START, END, fill=(1, 2, 3)))
    assert filled[0, 0].tolist() == [1, 2, 3] and (filled[1:4, 1:4] == out[1:4, 1:4]).all()


def test_numpy_warps_follow_opencv_coordinates():
    img = np.arange(20, dtype=np.uint8).reshape(4, 5, 1)
    shifted = F.affine(img, 0, [1, 2], 1.0, 0, fill=9)
    assert shifted.shape == (4, 5, 1)
    np.testing.assert_array_equal(shifted[2:, 1:, 0], img[:2, :4, 0])
    assert (shifted[:2, :, 0] == 9).all() and (shifted[:, 0, 0] == 9).all()
    corners = [[0, 0], [4, 0], [4, 3], [0, 3]]
    np.testing.assert_array_equal(F.perspective(img, corners, corners), img)
    moved = F.perspective(img[..., 0], corners, [[1, 0], [5, 0], [5, 3], [1, 3]], interpolation="bilinear")
    np.testing.assert_array_equal(moved[:, 1:], img[:, :4, 0])
    with pytest.raises(NotImplementedError, match="bicubic"):
        F.perspective(img, corners, corners, interpolation="bicubic")


def test_random_affine_and_perspective_draw_parameters_as_paddle():
    img = paddle.rand([3, 16, 20])
    random.seed(0)
    assert T.RandomAffine([-90, 90], translate=[0.2, 0.2], scale=[0.5, 0.5], shear=[-10, 10])(img).shape == [3, 16, 20]
    random.seed(0)
    angle, (tx, ty), scale, shear = T.RandomAffine(30, translate=[0.25, 0.5], shear=[1, 2, 3, 4])._get_param((20, 16))
    assert -30 <= angle <= 30 and abs(tx) <= 5 and abs(ty) <= 8 and scale == 1.0
    assert 1 <= shear[0] <= 2 and 3 <= shear[1] <= 4
    start, end = T.RandomPerspective(prob=1.0, distortion_scale=0.5).get_params(20, 16, 0.5)
    assert start == [[0, 0], [19, 0], [19, 15], [0, 15]]
    assert 0 <= end[0][0] <= 5 and 14 <= end[1][0] <= 19 and 11 <= end[2][1] <= 15
    assert T.RandomPerspective(prob=0.0)(img) is img
    with pytest.raises(ValueError, match="translate"):
        T.RandomAffine(10, translate=[2, 0])


def test_image_kind_helpers_and_a_negative_hue_shift():
    img = _pil_image()
    assert F._is_pil_image(img) and not F._is_pil_image(np.zeros([2, 2]))
    assert F._is_numpy_image(np.zeros([2, 2, 3])) and not F._is_numpy_image(np.zeros([2]))
    assert F._is_tensor_image(paddle.ones([3, 2, 2]))
    h, s, v = img.convert("HSV").split()
    shifted = F.adjust_hue(img, -0.1)  # int(-0.1 * 255) = -25, wrapped as uint8 arithmetic wraps
    want = Image.merge("HSV", (Image.fromarray(((np.array(h, np.int64) - 25) % 256).astype(np.uint8), "L"), s, v))
    np.testing.assert_array_equal(np.array(shifted), np.array(want.convert("RGB")))
