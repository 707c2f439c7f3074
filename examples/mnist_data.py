"""MNIST files for the examples: the real ones when ``--data-dir`` holds them, else a tiny synthetic set.

The synthetic set is written in MNIST's own idx-ubyte.gz format, so ``paddle.vision.datasets.MNIST`` reads it
exactly as it reads the real files: the examples exercise the same code path with or without a download.
"""
import gzip
import os
import tempfile

import numpy as np

FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
         "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}


def _write_idx(path, array, magic):
    """An idx file: big-endian magic number (whose low byte is the rank), the dimension sizes, then the bytes."""
    header = magic.to_bytes(4, "big") + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + np.ascontiguousarray(array, dtype=np.uint8).tobytes())


def _synthetic(n, rng):
    """``n`` learnable 28x28 digits: class ``c`` is a bright 6x6 square at a class-specific place, over noise."""
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    images = rng.integers(0, 60, size=(n, 28, 28)).astype(np.uint8)
    for i, c in enumerate(labels):
        row, col = 2 + 8 * (c // 4), 2 + 6 * (c % 4)
        images[i, row:row + 6, col:col + 6] = 255
    return images, labels


def mnist_files(data_dir=None, n_train=600, n_test=200):
    """``{'train': (image_path, label_path), 'test': (...)}``: the files in ``data_dir`` when all four are there,
    else a synthetic MNIST written to a temporary directory (announced on stdout)."""
    if data_dir is not None:
        paths = {mode: tuple(os.path.join(data_dir, name) for name in names) for mode, names in FILES.items()}
        missing = [p for pair in paths.values() for p in pair if not os.path.exists(p)]
        if not missing:
            return paths
        print(f"MNIST files not found in {data_dir} ({', '.join(map(os.path.basename, missing))} missing)")
    out = tempfile.mkdtemp(prefix="synthetic_mnist_")
    rng = np.random.default_rng(0)
    for mode, n in (("train", n_train), ("test", n_test)):
        images, labels = _synthetic(n, rng)
        _write_idx(os.path.join(out, FILES[mode][0]), images, 2051)
        _write_idx(os.path.join(out, FILES[mode][1]), labels, 2049)
    print(f"using a synthetic MNIST ({n_train} train / {n_test} test images) written to {out}")
    return {mode: tuple(os.path.join(out, name) for name in names) for mode, names in FILES.items()}
