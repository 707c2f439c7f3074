"""paddle.vision transforms and datasets: numbers against Paddle 3.3.1 (its cv2 backend for numpy images, PIL for PIL
images), closed forms, dataset files written here (never downloaded), and the MNIST-style pipeline."""
import gzip
import io
import os
import pickle
import random
import tarfile

import numpy as np
import pytest
from PIL import Image

import paddle_fn as paddle
import paddle_fn.vision.transforms as T
import paddle_fn.vision.transforms.functional as F

# ----------------------------------------------------------------------------------------------- functional (numpy)

RAMP = (np.arange(12).reshape(3, 4, 1) * 20).astype("uint8")
GRID = (np.arange(20).reshape(4, 5) * 12).astype("uint8")[:, :, None]
COLORS = np.array([[[200, 30, 90], [10, 250, 128]], [[0, 0, 0], [90, 90, 200]]], "uint8")


def test_resize_bilinear_matches_paddle_cv2():
    # values from paddle.vision.transforms.functional.resize (cv2 backend) in Paddle 3.3.1
    out = F.resize(RAMP, (5, 3))
    assert out.shape == (5, 3, 1) and out.dtype == np.uint8
    np.testing.assert_array_equal(out[..., 0], [[3, 30, 57], [35, 62, 89], [83, 110, 137], [131, 158, 185],
                                                [163, 190, 217]])


def test_resize_bicubic_matches_paddle_cv2():
    # OpenCV rounds fixed-point intermediates for uint8: results agree within one level
    np.testing.assert_allclose(F.resize(RAMP, (5, 3), "bicubic")[..., 0],
                               [[0, 22, 50], [28, 55, 83], [82, 110, 137], [137, 165, 192], [170, 198, 225]], atol=1)
    f = RAMP.astype("float32")
    np.testing.assert_allclose(F.resize(f, (3, 4), "bicubic"), f, rtol=1e-6)  # same size: the identity
    with pytest.raises(NotImplementedError, match="PIL images only"):
        F.resize(RAMP, (5, 3), "lanczos")


def test_resize_int_size_keeps_aspect_and_float_images():
    assert F.resize(np.zeros([10, 20, 3], "uint8"), 5).shape == (5, 10, 3)
    assert F.resize(np.zeros([20, 10, 3], "uint8"), 5).shape == (10, 5, 3)
    img = np.zeros([5, 5, 3], "float32")
    assert F.resize(img, 5) is img  # already the size: returned as is, as Paddle
    f = np.linspace(0, 1, 4, dtype="float32").reshape(1, 4, 1).repeat(2, 0)
    out = F.resize(f, (2, 8))
    assert out.dtype == np.float32
    # a linear ramp stays linear inside (pixel centres map with the half-pixel rule), clamps at the edges
    np.testing.assert_allclose(out[0, :, 0], np.clip((np.arange(8) + 0.5) / 2 - 0.5, 0, 3) / 3, atol=1e-6)


def test_rotate_matches_paddle_cv2():
    np.testing.assert_array_equal(F.rotate(GRID, 30)[..., 0], [[0, 24, 36, 108, 0], [12, 24, 96, 96, 168],
                                                               [60, 72, 144, 156, 228], [120, 132, 204, 204, 0]])
    np.testing.assert_array_equal(F.rotate(GRID, 30, "bilinear")[..., 0],
                                  [[0, 14, 38, 78, 22], [9, 43, 84, 124, 113], [49, 89, 130, 170, 211],
                                   [81, 135, 176, 185, 84]])
    out = F.rotate(GRID, 40, "nearest", True)
    assert out.shape == (8, 7, 1)
    np.testing.assert_array_equal(out[3, :, 0], [0, 12, 24, 96, 168, 168, 0])


def test_color_ops_match_paddle_cv2():
    np.testing.assert_array_equal(F.adjust_hue(COLORS, 0.2), [[[102, 30, 200], [179, 250, 10]],
                                                              [[0, 0, 0], [90, 200, 178]]])
    np.testing.assert_array_equal(F.to_grayscale(COLORS)[..., 0], [[88, 164], [0, 103]])
    np.testing.assert_array_equal(F.adjust_contrast(COLORS, 1.7), [[[255, 0, 101], [0, 255, 165]],
                                                                   [[0, 0, 0], [101, 101, 255]]])
    np.testing.assert_array_equal(F.adjust_brightness(COLORS, 0.5), (COLORS * 0.5).astype("uint8"))
    assert F.to_grayscale(COLORS, 3).shape == (2, 2, 3)
    gray = F.adjust_saturation(COLORS, 0.0)
    np.testing.assert_array_equal(gray[..., 0], F.to_grayscale(COLORS)[..., 0])
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(COLORS, 0.7)
    with pytest.raises(TypeError, match="uint8"):
        F.adjust_brightness(COLORS.astype("float32"), 1.2)


def test_pad_modes_crop_flip():
    row = np.array([[1, 2, 3]], "uint8")
    np.testing.assert_array_equal(F.pad(row, (2, 0), padding_mode="reflect"), [[3, 2, 1, 2, 3, 2, 1]])
    np.testing.assert_array_equal(F.pad(row, (2, 0), padding_mode="symmetric"), [[2, 1, 1, 2, 3, 3, 2]])
    np.testing.assert_array_equal(F.pad(row, (1, 0), padding_mode="edge"), [[1, 1, 2, 3, 3]])
    out = F.pad(np.zeros([1, 1, 3], "uint8"), [1, 0, 0, 2], fill=(5, 6, 7))
    assert out.shape == (3, 2, 3) and out[2, 0].tolist() == [5, 6, 7] and out[0, 1].tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="padding"):
        F.pad(row, (1, 2, 3))
    img = np.arange(24).reshape(4, 6)
    np.testing.assert_array_equal(F.crop(img, 1, 2, 2, 3), img[1:3, 2:5])
    np.testing.assert_array_equal(F.center_crop(img, (2, 4)), img[1:3, 1:5])
    np.testing.assert_array_equal(F.hflip(img), img[:, ::-1])
    np.testing.assert_array_equal(F.vflip(img), img[::-1])
    with pytest.raises(TypeError, match="a PIL image, a numpy HWC"):
        F.hflip([1, 2])


def test_to_tensor_and_normalize():
    t = F.to_tensor(np.full([2, 3, 3], 51, "uint8"))
    assert t.shape == [3, 2, 3] and t.dtype == paddle.float32
    np.testing.assert_allclose(t.numpy(), 0.2, rtol=1e-6)
    assert F.to_tensor(np.full([2, 3], 200.0, "float32"), data_format="HWC").shape == [2, 3, 1]
    assert float(F.to_tensor(np.full([2, 3], 200.0, "float32")).max()) == 200.0  # non-uint8 is not scaled
    x = paddle.to_tensor(np.ones([3, 2, 2], "float32"))
    out = F.normalize(x, [0.5, 0.0, 1.0], [0.5, 2.0, 1.0])
    np.testing.assert_allclose(out.numpy()[:, 0, 0], [1.0, 0.5, 0.0])
    hwc = np.stack([np.full([2, 2], v, "float32") for v in (1.0, 2.0, 3.0)], -1)
    np.testing.assert_allclose(F.normalize(hwc, [1, 2, 3], [1, 1, 1], "HWC", to_rgb=True)[0, 0], [2.0, 0.0, -2.0])
    with pytest.raises(ValueError, match="data_format"):
        F.to_tensor(np.zeros([2, 2], "uint8"), data_format="NCHW")


# ----------------------------------------------------------------------------------------------- PIL images

def test_pil_images_follow_pillow():
    arr = np.random.RandomState(0).randint(0, 256, (9, 13, 3)).astype("uint8")
    img = Image.fromarray(arr)
    assert F.resize(img, (5, 7)).size == (7, 5)
    np.testing.assert_array_equal(np.asarray(F.resize(img, (5, 7))), np.asarray(img.resize((7, 5), Image.BILINEAR)))
    np.testing.assert_array_equal(np.asarray(F.hflip(img)), arr[:, ::-1])
    np.testing.assert_array_equal(np.asarray(F.crop(img, 1, 2, 3, 4)), arr[1:4, 2:6])
    np.testing.assert_array_equal(np.asarray(F.pad(img, (1, 2), padding_mode="reflect")),
                                  np.pad(arr, [(2, 2), (1, 1), (0, 0)], mode="reflect"))
    assert F.to_grayscale(img).mode == "L"
    t = F.to_tensor(img)
    np.testing.assert_allclose(t.numpy(), arr.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(F.adjust_hue(img, 0.0)), np.asarray(img.convert("HSV").convert("RGB")))


# ----------------------------------------------------------------------------------------------- transform classes

def test_compose_pipeline_and_repr():
    pipe = T.Compose([T.Resize((4, 4)), T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    out = pipe(np.full([8, 8, 1], 255, "uint8"))
    assert out.shape == [1, 4, 4]
    np.testing.assert_allclose(out.numpy(), 1.0)
    assert repr(pipe).startswith("Compose(\n    <") and repr(pipe).endswith("\n)")


def test_random_transforms_use_python_random():
    img = np.arange(36, dtype="uint8").reshape(6, 6, 1)
    crop = T.RandomCrop(3)
    random.seed(5)
    a = crop(img)
    random.seed(5)
    np.testing.assert_array_equal(crop(img), a)
    rng = random.Random(5)  # the row offset is drawn first, then the column, from Python's random
    i, j = rng.randint(0, 3), rng.randint(0, 3)
    assert a[0, 0, 0] == 6 * i + j
    assert T.RandomCrop(8, pad_if_needed=True)(img).shape == (8, 8, 1)
    assert T.RandomCrop(4, padding=1)(img).shape == (4, 4, 1)
    with pytest.raises(ValueError, match="smaller than the crop"):
        T.RandomCrop(8)(img)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(img), img[:, ::-1])
    np.testing.assert_array_equal(T.RandomVerticalFlip(0.0)(img), img)
    np.random.seed(0)
    random.seed(0)
    assert T.RandomResizedCrop((3, 5))(img).shape == (3, 5, 1)
    assert T.RandomRotation((10, 20))(img).shape == (6, 6, 1)
    assert T.ColorJitter(0.2, 0.2, 0.2, 0.1)(np.zeros([4, 4, 3], "uint8")).shape == (4, 4, 3)


def test_jitter_ranges_and_errors():
    assert T.BrightnessTransform(0.3).value == [0.7, 1.3]
    assert T.BrightnessTransform(0).value is None
    assert T.HueTransform(0.2).value == [-0.2, 0.2]
    assert T.SaturationTransform(2.0).value == [0, 3.0]
    with pytest.raises(ValueError, match="non negative|non-negative"):
        T.BrightnessTransform(-1)
    with pytest.raises(ValueError, match="between"):
        T.HueTransform([-0.7, 0.2])
    with pytest.raises(ValueError, match="padding"):
        T.Pad((1, 2, 3))
    with pytest.raises(NotImplementedError, match="unsupported"):
        T.Resize(3, keys=["image", "nothing"])


def test_base_transform_keys_and_transpose():
    class Scale(T.BaseTransform):
        def _apply_image(self, image):
            return image * 2

        def _apply_boxes(self, boxes):
            return boxes + 1

    img, boxes, extra = np.ones([2, 2]), np.zeros([1, 4]), "x"
    out = Scale(keys=("image", "boxes"))((img, boxes, extra))
    assert isinstance(out, tuple) and out[0][0, 0] == 2 and out[1][0, 0] == 1 and out[2] == "x"
    assert T.Transpose()(np.zeros([4, 5, 3])).shape == (3, 4, 5)
    assert T.Transpose()(np.zeros([4, 5])).shape == (1, 4, 5)
    assert T.Grayscale(3)(np.zeros([2, 2, 3], "uint8")).shape == (2, 2, 3)
    assert T.Pad(2)(np.zeros([2, 2, 3], "uint8")).shape == (6, 6, 3)
    assert T.CenterCrop(2)(np.zeros([4, 4, 3], "uint8")).shape == (2, 2, 3)


# ----------------------------------------------------------------------------------------------- datasets

def _write_mnist(d, n=3, prefix="train"):
    images = (np.arange(n * 28 * 28) % 256).astype("uint8").reshape(n, 28, 28)
    labels = np.arange(n, dtype="uint8") % 10
    ip, lp = os.path.join(d, f"{prefix}-images-idx3-ubyte.gz"), os.path.join(d, f"{prefix}-labels-idx1-ubyte.gz")
    with gzip.open(ip, "wb") as f:
        f.write((2051).to_bytes(4, "big") + n.to_bytes(4, "big") + (28).to_bytes(4, "big") * 2 + images.tobytes())
    with gzip.open(lp, "wb") as f:
        f.write((2049).to_bytes(4, "big") + n.to_bytes(4, "big") + labels.tobytes())
    return ip, lp, images, labels


def test_mnist_backends_and_loader(tmp_path):
    ip, lp, images, labels = _write_mnist(str(tmp_path))
    ds = paddle.vision.datasets.MNIST(image_path=ip, label_path=lp)
    img, label = ds[2]
    assert isinstance(img, Image.Image) and img.size == (28, 28) and img.mode == "L"
    np.testing.assert_array_equal(np.asarray(img), images[2])
    assert label.dtype == np.int64 and label.shape == (1,) and int(label[0]) == 2
    cv = paddle.vision.datasets.MNIST(image_path=ip, label_path=lp, backend="cv2")
    assert cv[1][0].dtype == np.float32 and cv[1][0].shape == (28, 28)
    ds = paddle.vision.datasets.MNIST(image_path=ip, label_path=lp,
                                      transform=T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]))
    x, y = next(iter(paddle.io.DataLoader(ds, batch_size=2)))
    assert x.shape == [2, 1, 28, 28] and y.shape == [2, 1] and y.dtype == paddle.int64
    np.testing.assert_allclose(x.numpy()[1, 0], images[1] / 127.5 - 1, atol=1e-6)
    with pytest.raises(ValueError, match="mode"):
        paddle.vision.datasets.MNIST(image_path=ip, label_path=lp, mode="valid")
    with pytest.raises(ValueError, match="backend"):
        paddle.vision.datasets.MNIST(image_path=ip, label_path=lp, backend="tf")
    with pytest.raises(ValueError, match="magic"):
        paddle.vision.datasets.MNIST(image_path=lp, label_path=lp)


def test_missing_files_name_url_and_cache_path(tmp_path, monkeypatch):
    monkeypatch.setattr(paddle.vision.datasets.folder, "DATA_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as e:
        paddle.vision.datasets.MNIST(mode="test")
    msg = str(e.value)
    assert "https://dataset.bj.bcebos.com/mnist/t10k-images-idx3-ubyte.gz" in msg
    assert os.path.join(str(tmp_path), "mnist", "t10k-images-idx3-ubyte.gz") in msg
    with pytest.raises(FileNotFoundError, match="fashion-mnist"):
        paddle.vision.datasets.FashionMNIST()
    with pytest.raises(FileNotFoundError, match="cifar-10-python.tar.gz"):
        paddle.vision.datasets.Cifar10()
    with pytest.raises(ValueError, match="downloading automatically is disabled"):
        paddle.vision.datasets.MNIST(download=False)
    os.makedirs(tmp_path / "mnist")
    _write_mnist(str(tmp_path / "mnist"), prefix="t10k")
    assert len(paddle.vision.datasets.MNIST(mode="test")) == 3  # found in the cache folder


def _write_cifar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, obj in members:
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_cifar_reads_batches_in_order(tmp_path):
    path = str(tmp_path / "cifar-10-python.tar.gz")
    b1 = {b"data": np.full([2, 3072], 10, "uint8"), b"labels": [1, 2]}
    b2 = {b"data": np.arange(3072, dtype="int64").astype("uint8")[None], b"labels": [7]}
    _write_cifar(path, [("cifar-10-batches-py/data_batch_2", b2), ("cifar-10-batches-py/data_batch_1", b1),
                        ("cifar-10-batches-py/test_batch", b1)])
    ds = paddle.vision.datasets.Cifar10(data_file=path)
    assert len(ds) == 3 and [int(ds[i][1]) for i in range(3)] == [1, 2, 7]
    img, label = ds[2]
    assert img.size == (32, 32) and label.shape == () and label.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(img)[0, 1], [1, 1024 % 256 + 1, 2048 % 256 + 1])
    assert len(paddle.vision.datasets.Cifar10(data_file=path, mode="test")) == 2
    loader = paddle.io.DataLoader(paddle.vision.datasets.Cifar10(data_file=path, transform=T.ToTensor()),
                                  batch_size=3)
    x, y = next(iter(loader))
    assert x.shape == [3, 3, 32, 32] and y.shape == [3]


def test_cifar_refuses_code_in_pickles(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    path = str(tmp_path / "cifar-100-python.tar.gz")
    _write_cifar(path, [("cifar-100-python/train", {b"data": Evil(), b"fine_labels": [0]})])
    with pytest.raises(pickle.UnpicklingError, match="refused"):
        paddle.vision.datasets.Cifar100(data_file=path)


def test_dataset_folder_and_image_folder(tmp_path):
    for cls, n in (("b_dog", 2), ("a_cat", 1)):
        os.makedirs(tmp_path / cls / "sub")
        for k in range(n):
            Image.fromarray(np.full([3, 5, 3], 40 * k, "uint8")).save(tmp_path / cls / "sub" / f"{k}.png")
    (tmp_path / "a_cat" / "notes.txt").write_text("not an image")
    ds = paddle.vision.datasets.DatasetFolder(str(tmp_path))
    assert ds.classes == ["a_cat", "b_dog"] and ds.targets == [0, 1, 1] and len(ds) == 3
    img, target = ds[2]
    assert img.size == (5, 3) and target == 1 and np.asarray(img)[0, 0, 0] == 40
    paddle.vision.set_image_backend("cv2")
    try:
        assert ds[0][0].shape == (3, 5, 3)
    finally:
        paddle.vision.set_image_backend("pil")
    imgs = paddle.vision.datasets.ImageFolder(str(tmp_path), transform=T.ToTensor())
    assert len(imgs) == 3 and imgs[0][0].shape == [3, 3, 5]
    only_dogs = paddle.vision.datasets.ImageFolder(str(tmp_path), is_valid_file=lambda p: "dog" in p)
    assert len(only_dogs) == 2
    with pytest.raises(RuntimeError, match="Found 0"):
        paddle.vision.datasets.ImageFolder(str(tmp_path), extensions=(".jpg",))
    with pytest.raises(ValueError, match="backend"):
        paddle.vision.set_image_backend("opencv")


def test_tensor_images_as_paddle_functional_tensor():
    x = paddle.to_tensor(np.random.RandomState(0).rand(3, 4, 6).astype("float32"))
    a = x.numpy()
    assert F.resize(x, (2, 3)).shape == [3, 2, 3] and F.resize(x, 2).shape == [3, 2, 3]
    np.testing.assert_array_equal(F.crop(x, 1, 2, 2, 3).numpy(), a[:, 1:3, 2:5])
    np.testing.assert_array_equal(F.center_crop(x, 2).numpy(), a[:, 1:3, 2:4])
    np.testing.assert_array_equal(F.hflip(x).numpy(), a[:, :, ::-1])
    np.testing.assert_array_equal(F.vflip(x).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(F.pad(x, (1, 2), padding_mode="reflect").numpy(),
                                  np.pad(a, [(0, 0), (2, 2), (1, 1)], mode="reflect"))
    gray = a[0] * 0.2989 + a[1] * 0.587 + a[2] * 0.114
    np.testing.assert_allclose(F.to_grayscale(x, 3).numpy(), np.broadcast_to(gray, a.shape), rtol=1e-6)
    np.testing.assert_allclose(F.adjust_brightness(x, 1.5).numpy(), np.clip(a * 1.5, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(F.adjust_contrast(x, 0.0).numpy(), np.full(a.shape, gray.mean()), rtol=1e-5)
    with pytest.raises(ValueError, match="symmetric"):
        F.pad(x, 1, padding_mode="symmetric")
    with pytest.raises(NotImplementedError, match="Tensor image"):
        F.rotate(x, 10)
    assert T.Compose([T.ToTensor(), T.Resize((2, 2)), T.RandomHorizontalFlip()])(
        np.zeros([4, 4, 3], "uint8")).shape == [3, 2, 2]


def test_random_erasing_and_erase():
    img = np.zeros([10, 12, 3], "uint8")
    np.random.seed(3)
    random.seed(3)
    out = T.RandomErasing(prob=1.0, value=(1, 2, 3))(img)
    rows, cols = np.nonzero(out[..., 0])
    assert out.dtype == np.uint8 and rows.size and img.sum() == 0  # not in place by default
    block = out[rows.min():rows.max() + 1, cols.min():cols.max() + 1]
    assert (block == [1, 2, 3]).all()  # one filled rectangle
    assert T.RandomErasing(prob=0.0)(img) is img
    t = paddle.to_tensor(np.zeros([3, 10, 12], "float32"))
    np.random.seed(3)
    out_t = T.RandomErasing(prob=1.0, value="random")(t)
    assert out_t.shape == [3, 10, 12] and float(paddle.abs(out_t).sum()) > 0 and float(t.sum()) == 0
    pil = T.RandomErasing(prob=1.0, value=9)(Image.fromarray(img))
    assert isinstance(pil, Image.Image) and (np.asarray(pil) == 9).any()
    np.testing.assert_array_equal(F.erase(np.ones([2, 2], "uint8"), 0, 0, 1, 2, 5), [[5, 5], [1, 1]])
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
