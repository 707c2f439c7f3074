"""Sparse 3-D convolutions of a point-cloud-sized input: 20,000 occupied voxels of a 96^3 grid (a sphere's shell),
16 -> 32 channels, a 3 x 3 x 3 kernel, eagerly, in one interleaved loop.

    .venv/bin/python benchmarks/bench_sparse_conv.py [--reps N] [--voxels V] [--json PATH]

The contenders, each on the same input and weight:
- rulebook: building the rulebook alone (numpy, from the concrete coordinates) of the submanifold convolution;
- subm_conv3d forward / forward+backward: `paddle.sparse.nn.functional.subm_conv3d` (outputs at the input's sites),
  and the same followed by `backward()` of the sum of its values (gradients of the values and the weight);
- conv3d padding 1 forward / forward+backward: the regular convolution, whose output grows to every site the
  kernel reaches;
- conv3d stride 2 forward / forward+backward: the downsampling convolution;
- max_pool3d 2: `max_pool3d(x, 2)` forward.
Each repetition runs every contender once, in an order rotated by one; medians and mins are printed. `--json PATH`
writes {"machine": str, "voxels": int, "times": {contender: [median, min]}} (seconds).
"""
from __future__ import annotations

import argparse
import json

import numpy as np

import paddle_fn as pf
from paddle_fn.sparse import rulebook

from bench_jit import interleaved, machine_line, print_results


def point_cloud(voxels: int):
    rng = np.random.default_rng(0)
    points = rng.standard_normal((4 * voxels, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    occupied = np.unique(np.floor(points * 40 + 48).astype(np.int64), axis=0)[:voxels]
    coords = np.concatenate([np.zeros((len(occupied), 1), np.int64), occupied], axis=1).T
    values = pf.to_tensor(rng.standard_normal((coords.shape[1], 16)).astype(np.float32), stop_gradient=False)
    x = pf.sparse.sparse_coo_tensor(coords, values, [1, 96, 96, 96, 16], stop_gradient=False)
    weight = pf.to_tensor(0.1 * rng.standard_normal((3, 3, 3, 16, 32)).astype(np.float32), stop_gradient=False)
    return x, weight


def contenders(x, weight):
    F = pf.sparse.nn.functional
    coords = x.indices().numpy()
    geometry = rulebook.submanifold_geometry((96, 96, 96), (3, 3, 3), 1)

    def with_backward(conv):
        def run():
            conv().values().sum().backward()
            x.values().clear_grad()
            weight.clear_grad()
        return run

    convs = {"subm_conv3d": lambda: F.subm_conv3d(x, weight),
             "conv3d padding 1": lambda: F.conv3d(x, weight, padding=1),
             "conv3d stride 2": lambda: F.conv3d(x, weight, stride=2, padding=1)}
    out = {"rulebook": lambda: rulebook.build_rulebook(coords, x.shape, geometry, True)}
    for name, conv in convs.items():
        out[f"{name} forward"] = conv
        out[f"{name} forward+backward"] = with_backward(conv)
    out["max_pool3d 2 forward"] = lambda: F.max_pool3d(x, 2)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--voxels", type=int, default=20000)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    x, weight = point_cloud(args.voxels)
    print(machine_line())
    print(f"{x.nnz()} occupied voxels of {x.shape}, weight {weight.shape}")
    results = interleaved(contenders(x, weight), args.reps)
    print_results("sparse 3-D convolutions, eager", results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine_line(), "voxels": x.nnz(),
                       "times": {k: list(v) for k, v in results.items()}}, f, indent=1)


if __name__ == "__main__":
    main()
