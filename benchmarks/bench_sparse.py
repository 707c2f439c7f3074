"""Sparse @ dense: a 1%-dense 4096 x 4096 float32 matrix times a dense 4096 x 256 one, paddle.sparse eager and
jitted against scipy.sparse and the dense product (numpy, paddle_fn eager and jitted), in one interleaved loop.

    .venv/bin/python benchmarks/bench_sparse.py [--reps N] [--size M] [--density D] [--json PATH]

The contenders (all produce the same product, checked to rtol 1e-4 first):
- scipy csr @ dense: scipy.sparse's CSR kernel (the reference a sparse library should reach);
- numpy dense @ dense, paddle_fn dense eager / jit: the dense product of the same matrix;
- paddle.sparse CSR eager / jit: `paddle.sparse.matmul(csr, y)`, the primitive `sparse_dense_dot`
  (paddle_fn/prims/sparse.py): scipy's kernel eagerly; compiled, with the CSR Tensor built from concrete indices
  (its row bound known), the ELLPACK scan;
- paddle.sparse jit, segment sum: the primitive's compiled form without a row bound (indices built inside the
  traced function): a gather times the values, summed into the rows by a scatter-add.
Each repetition runs every contender once, in an order rotated by one; the median and min are printed with the
speed-up over the jitted dense product. `--json PATH` writes {"machine": str, "nnz": int,
"times": {contender: [median, min]}} (seconds).
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import scipy.sparse

import paddle_fn as pf
from paddle_fn.prims.sparse import sparse_dense_dot

from bench_jit import interleaved, machine_line, print_results


def contenders(size: int, density: float, n: int):
    rng = np.random.default_rng(0)
    a = scipy.sparse.random(size, size, density=density, format="csr", dtype=np.float32, random_state=rng)
    b = rng.standard_normal((size, n)).astype(np.float32)
    a_dense = a.toarray()
    csr = pf.sparse.sparse_csr_tensor(a.indptr.astype(np.int64), a.indices.astype(np.int64), a.data, [size, size])
    coo = csr.to_sparse_coo()
    rows, cols = coo.indices()[0], coo.indices()[1]
    y = pf.to_tensor(b)
    dense_x = pf.to_tensor(a_dense)
    sparse_jit = pf.jit(pf.sparse.matmul)
    dense_jit = pf.jit(pf.matmul)
    segment_jit = pf.jit(lambda rows, cols, values, y: sparse_dense_dot(rows, cols, values, y, num_rows=size))
    runs = {
        "scipy csr @ dense": lambda: a @ b,
        "numpy dense @ dense": lambda: a_dense @ b,
        "paddle_fn dense eager": lambda: pf.matmul(dense_x, y).numpy(),
        "paddle_fn dense jit": lambda: dense_jit(dense_x, y).numpy(),
        "paddle.sparse CSR eager": lambda: pf.sparse.matmul(csr, y).numpy(),
        "paddle.sparse CSR jit (ELL scan)": lambda: sparse_jit(csr, y).numpy(),
        "paddle.sparse jit, segment sum": lambda: segment_jit(rows, cols, coo.values(), y).numpy(),
    }
    want = a @ b
    for name, run in runs.items():
        np.testing.assert_allclose(run(), want, rtol=1e-4, atol=1e-4, err_msg=name)
    return runs, a.nnz


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--density", type=float, default=0.01)
    parser.add_argument("--cols", type=int, default=256)
    parser.add_argument("--json")
    args = parser.parse_args()
    print(machine_line())
    runs, nnz = contenders(args.size, args.density, args.cols)
    print(f"{args.size} x {args.size} at density {args.density} ({nnz} entries) @ {args.size} x {args.cols}, float32")
    results = interleaved(runs, args.reps, warmup=1)
    print_results("sparse @ dense", results, reference="paddle_fn dense jit")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine_line(), "nnz": nnz, "times": results}, f, indent=1)


if __name__ == "__main__":
    main()
