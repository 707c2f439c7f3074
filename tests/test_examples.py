"""The example programs run end to end as a user runs them (subprocesses, tiny synthetic MNIST)."""
import os
import re
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(script, *args, cwd):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_mnist_highlevel_trains_on_synthetic_idx_files(tmp_path):
    out = _run("mnist_highlevel.py", "--epochs", "1", "--limit", "256", "--data-dir", str(tmp_path), cwd=tmp_path)
    assert "MNIST files not found" in out and "using a synthetic MNIST" in out
    assert "Epoch 1/1" in out and "step 8/8" in out  # 256 samples / batch 32
    eval_acc = float(re.findall(r"acc: ([0-9.]+)", out.split("Eval begin...")[1])[-1])
    assert eval_acc > 0.5, out  # the synthetic classes are separable; chance is 0.1
    assert "Eval samples: 200" in out


def test_mnist_highlevel_reads_files_from_data_dir(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        from mnist_data import mnist_files
    finally:
        sys.path.pop(0)
    files = mnist_files(None, n_train=64, n_test=32)
    data_dir = os.path.dirname(files["train"][0])
    out = _run("mnist_highlevel.py", "--epochs", "1", "--data-dir", data_dir, cwd=tmp_path)
    assert "synthetic" not in out
    assert "step 2/2" in out and "Eval samples: 32" in out


def test_lenet_loop_learns(tmp_path):
    out = _run("lenet_loop.py", "--epochs", "2", "--limit", "256", cwd=tmp_path)
    losses = [float(v) for v in re.findall(r"loss: ([0-9.]+)", out)]
    accs = [float(v) for v in re.findall(r"test accuracy: ([0-9.]+)", out)]
    assert len(accs) == 2 and losses[-1] < losses[0], out
    assert accs[-1] > 0.5, out


def test_synthetic_digits_carry_their_class():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        from mnist_data import _synthetic
    finally:
        sys.path.pop(0)
    images, labels = _synthetic(20, np.random.default_rng(1))
    assert images.shape == (20, 28, 28) and images.dtype == np.uint8 and labels.max() < 10
    c = int(labels[0])
    row, col = 2 + 8 * (c // 4), 2 + 6 * (c % 4)
    assert (images[0, row:row + 6, col:col + 6] == 255).all()


def test_vae_learns_to_denoise(tmp_path):
    out = _run("vae.py", "--steps", "150", cwd=tmp_path)
    first, last = (float(v) for v in re.search(r"first 10 steps ([0-9.]+), last 10 steps ([0-9.]+)", out).groups())
    assert last < first - 4, out  # from about 11.5 nats per image to below 6
    assert float(re.search(r"denoised pixels: ([0-9.]+)", out).group(1)) > 0.95, out


def test_spectral_heat_solves_fits_and_maps(tmp_path):
    out = _run("spectral_heat.py", "--n", "32", "--fit-steps", "8", cwd=tmp_path)
    assert float(re.search(r"exact solution: ([0-9.e+-]+)", out).group(1)) < 1e-12, out
    assert abs(float(re.search(r"recovered diffusivity: ([0-9.]+)", out).group(1)) - 0.3) < 1e-6, out
    assert "vmap batch shape paddle.Size([4, 32, 32])" in out
    assert float(re.search(r"one at a time: ([0-9.e+-]+)", out).group(1)) < 1e-12, out


def test_gcn_sparse_trains_under_jit(tmp_path):
    out = _run("gcn_sparse.py", "--nodes", "160", "--steps", "30", cwd=tmp_path)
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", out)]
    accuracy = float(re.findall(r"test accuracy: ([0-9.]+)", out)[0])
    without_edges = float(re.findall(r"test accuracy without the edges: ([0-9.]+)", out)[0])
    assert len(losses) == 6 and losses[-1] < 0.5 * losses[0], out
    assert accuracy > 0.5 and accuracy > without_edges, out  # 4 classes: chance is 0.25
