"""The parallel Jacobi eigh and svd expansions (prims/matrices.py's jacobi_sweeps, the chess-tournament ordering):
the ordering meets every pair once per sweep and returns every index to its place, and the compiled eigh and svd
give the eager (LAPACK) results for even, odd, tall, wide, batched and unbatched matrices, real and complex."""
import os

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.trace import Tensor
from paddle_fn.prims import linalg as la
from paddle_fn.prims.matrices import next_round, padded_to_even

# the expansions themselves: every jit program here builds its decompositions from IREE's operations
pytestmark = pytest.mark.usefixtures("without_host_kernels")


@pytest.mark.parametrize("n", [2, 4, 6, 8, 16, 30])
def test_chess_ordering_meets_every_pair_once_per_sweep(n):
    labels = Tensor(np.arange(n, dtype=np.float32).reshape(n, 1))
    met = []
    for _ in range(n - 1):
        column = labels.numpy()[:, 0].astype(int)
        met += [frozenset((column[k], column[n // 2 + k])) for k in range(n // 2)]
        labels = next_round(labels, 0)
    assert len(set(met)) == len(met) == n * (n - 1) // 2
    np.testing.assert_array_equal(labels.numpy()[:, 0], np.arange(n))


def test_odd_sizes_get_a_zero_line():
    x = Tensor(np.ones((3, 3), np.float32))
    np.testing.assert_array_equal(padded_to_even(x, (0, 1)).numpy(), np.pad(np.ones((3, 3)), ((0, 1), (0, 1))))
    assert padded_to_even(Tensor(np.ones((1, 1), np.float32)), (0, 1)).numpy().shape == (1, 1)


RNG = np.random.default_rng(3)
SHAPES = {"square_even": (8, 8), "square_odd": (7, 7), "tall_odd": (9, 5), "wide": (4, 10), "batched": (2, 5, 5),
          "batched_wide": (2, 3, 6), "one": (1, 1)}
TOL = {"float32": 5e-5, "float64": 1e-11, "complex64": 5e-5, "complex128": 1e-11}


def _sample(shape, dtype):
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def _gauge_free(u, s, vh, w, v):
    """Values that do not depend on the vectors' signs or phases: s, u diag(s) vh, w and v diag(w) v^H."""
    out = {"s": s, "usvh": (u * s[..., None, :]) @ vh}
    if w is not None:
        out.update(w=w, vwvh=(v * w[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)))
    return out


# each dtype is a 15-30 s compile of a cold cache: the suite's reduced form takes one real and one complex width
@pytest.mark.heavy
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"] if os.environ.get("PADDLE_FN_HEAVY")
                         else ["float32", "complex128"])
def test_compiled_jacobi_matches_eager(dtype):
    cases = {name: paddle.to_tensor(_sample(shape, dtype)) for name, shape in SHAPES.items()}

    def decompose(xs):
        out = {}
        for name, x in xs.items():
            u, s, vh = la.svd(x)
            square = x.shape[-1] == x.shape[-2]
            w, v = la.eigh(x) if square else (None, None)
            out[name] = (u, s, vh, w, v)
        return out

    compiled, eager = paddle.jit(decompose)(cases), decompose(cases)
    for name in cases:
        got = _gauge_free(*[None if t is None else t.numpy() for t in compiled[name]])
        want = _gauge_free(*[None if t is None else t.numpy() for t in eager[name]])
        for key in want:
            scale = max(1.0, np.abs(want[key]).max())
            assert np.abs(got[key] - want[key]).max() <= TOL[dtype] * scale, (name, key)
        if dtype.startswith("float"):  # real vectors: the same sign gauge eagerly and compiled
            for got_t, want_t in zip(compiled[name], eager[name]):
                if got_t is not None:
                    np.testing.assert_allclose(got_t.numpy(), want_t.numpy(), atol=TOL[dtype] * 20)


def test_compiled_eigh_converges_on_a_larger_matrix():
    """64 x 64 float32: the residual levels off near sqrt(n) eps, and the sweeps stop there with accurate pairs."""
    a = _sample((64, 64), "float32")
    h = (a + a.T) / 2
    w, v = paddle.jit(la.eigh)(paddle.to_tensor(h))
    w, v = w.numpy().astype(np.float64), v.numpy().astype(np.float64)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h.astype(np.float64)), atol=2e-5)  # numpy float32: 4e-7
    assert np.abs(h @ v - v * w).max() < 1e-4 * np.abs(w).max()
    assert np.abs(v.T @ v - np.eye(64)).max() < 1e-5
