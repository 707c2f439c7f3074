"""Op-table rows for paddle_fn.prims.linalg_eig (the eigen-decomposition of general matrices). The rows apply
functions of the results that neither the order of the eigenvalues nor the eigenvectors' phases change, since the
compiled order may differ from LAPACK's: the power sums of the eigenvalues, and V diag(w) V^H."""
import os

import numpy as np

from paddle_fn.prims import base as B
from paddle_fn.prims import elementwise as E
from paddle_fn.prims import linalg_eig as LE
from paddle_fn.prims import structural as St
from paddle_fn.prims.matrices import adjoint, each_row, matmul

from optable import Arg, OpRow


def _power_sums(w):
    """[sum w, sum w^2, sum w^3] over the last axis."""
    nd = len(w.shape)
    powers = [w, E.mul(w, w), E.mul(E.mul(w, w), w)]
    return St.concatenate(*[B.reshape(B.reduce_sum(p, axes=(nd - 1,)), new_sizes=w.shape[:-1] + (1,))
                            for p in powers], dimension=nd - 1)


def _power_sums_np(w):
    return np.stack([np.sum(w ** k, axis=-1) for k in (1, 2, 3)], axis=-1)


def _weighted_projectors(w, v):
    """V diag(w) V^H = sum_j w_j v_j v_j^H."""
    return matmul(E.mul(v, each_row(w, v.shape[-2])), adjoint(v))


def _eigvals(a):
    return _power_sums(LE.eig(a, vectors=False)[0])


def _eig(a):
    w, v = LE.eig(a, vectors=True)
    return _power_sums(w), _weighted_projectors(w, v)


def _eigvals_ref(a):
    return _power_sums_np(np.linalg.eigvals(a))


def _eig_ref(a):
    w, v = np.linalg.eig(a)
    return _power_sums_np(w), np.einsum("...aj,...j,...bj->...ab", v, w, v.conj())


def _complex_normal(shape):
    return lambda rng: rng.normal(size=shape) + 1j * rng.normal(size=shape)


F32 = dict(rtol=2e-5, atol=2e-5, diff=())
# each lowered row is a 5-10 s IREE compile: the suite's reduced form lowers one row per dtype kind (float64,
# float32, complex128; tests/test_eig_compiled.py compiles eig under jit too), PADDLE_FN_HEAVY=1 every row
HEAVY = bool(os.environ.get("PADDLE_FN_HEAVY"))
F32_TOO = ("float32",) if HEAVY else ()
C64 = ("complex64",) if HEAVY else ()

ROWS = [
    OpRow("eig_values", LE.eig_p, _eigvals, (Arg((4, 4)),), _eigvals_ref, lower=HEAVY, lower_dtypes=F32_TOO),
    OpRow("eig", LE.eig_p, _eig, (Arg((3, 3)),), _eig_ref, lower_dtypes=F32_TOO),
    OpRow("eig_batched", LE.eig_p, _eig, (Arg((2, 3, 3)),), _eig_ref, lower=HEAVY),
    OpRow("eig_f32", LE.eig_p, _eig, (Arg((4, 4), "float32"),), _eig_ref, **F32),
    OpRow("eig_complex", LE.eig_p, _eig, (Arg((3, 3), "complex128", _complex_normal((3, 3))),), _eig_ref,
          lower_dtypes=C64),
    OpRow("eig_values_complex_batched", LE.eig_p, _eigvals,
          (Arg((2, 4, 4), "complex128", _complex_normal((2, 4, 4))),), _eigvals_ref, lower=HEAVY),
]
