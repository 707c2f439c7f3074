"""Op-table rows for paddle_fn.prims.linalg: well-conditioned inputs (SPD matrices with a shifted spectrum,
diagonally dominant triangles, matrices with distinct eigenvalues / singular values), so finite differences
are meaningful. eigh and svd references fix the sign gauge the primitives document."""
import numpy as np
import scipy.linalg

from paddle_fn.prims import linalg as LA

from optable import Arg, OpRow


def _spd(shape):
    def draw(rng):
        m = rng.normal(size=shape)
        return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])
    return draw


def _triangular_ok(shape):
    """Normal entries with the diagonal pushed away from zero (both triangles), so either solve is stable."""
    def draw(rng):
        return rng.normal(size=shape) + 4 * np.eye(shape[-1])
    return draw


def _symmetric(shape):
    def draw(rng):
        m = rng.normal(size=shape)
        return (m + np.swapaxes(m, -1, -2)) / 2
    return draw


def _signs(u):
    biggest = np.argmax(np.abs(u), axis=-2)
    picked = np.take_along_axis(u, biggest[..., None, :], axis=-2)[..., 0, :]
    return np.where(picked < 0, -1.0, 1.0)


def _eigh_ref(a):
    w, v = np.linalg.eigh((a + np.swapaxes(a, -1, -2)) / 2)
    return w, v * _signs(v)[..., None, :]


def _svd_ref(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    signs = _signs(u)
    return u * signs[..., None, :], s, vh * signs[..., :, None]


def _solve_triangular_ref(lower, trans, unit):
    def ref(a, b):
        out = np.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], b.dtype)
        for idx in np.ndindex(*out.shape[:-2]):
            out[idx] = scipy.linalg.solve_triangular(a[idx], b[idx], lower=lower, trans=trans, unit_diagonal=unit)
        return out
    return ref


def _lu_ref(a):
    lu, piv = scipy.linalg.lu_factor(a)
    perm = np.arange(a.shape[-1])
    for k, p in enumerate(piv):
        perm[[k, p]] = perm[[p, k]]
    return lu, piv.astype(np.int32), perm.astype(np.int32)


def _qr_ref(mode):
    return lambda a: list(np.linalg.qr(a, mode=mode))


F32 = dict(rtol=2e-5, atol=2e-5, diff=())

ROWS = [
    OpRow("cholesky", LA.cholesky_p, LA.cholesky, (Arg((4, 4), domain=_spd((4, 4))),), np.linalg.cholesky),
    OpRow("cholesky_batched", LA.cholesky_p, LA.cholesky, (Arg((2, 3, 3), domain=_spd((2, 3, 3))),),
          np.linalg.cholesky),
    OpRow("cholesky_f32", LA.cholesky_p, LA.cholesky, (Arg((4, 4), "float32", _spd((4, 4))),), np.linalg.cholesky,
          **F32),

    OpRow("triangular_solve_lower", LA.triangular_solve_p, lambda a, b: LA.triangular_solve(a, b, lower=True),
          (Arg((4, 4), domain=_triangular_ok((4, 4))), Arg((4, 2))), _solve_triangular_ref(True, 0, False)),
    OpRow("triangular_solve_upper_transposed", LA.triangular_solve_p,
          lambda a, b: LA.triangular_solve(a, b, lower=False, transpose_a=True),
          (Arg((4, 4), domain=_triangular_ok((4, 4))), Arg((4, 3))), _solve_triangular_ref(False, 1, False)),
    OpRow("triangular_solve_unit_batched", LA.triangular_solve_p,
          lambda a, b: LA.triangular_solve(a, b, lower=True, transpose_a=True, unit_diagonal=True),
          (Arg((2, 3, 3), domain=_triangular_ok((2, 3, 3))), Arg((2, 3, 2))), _solve_triangular_ref(True, 1, True)),
    OpRow("triangular_solve_f32", LA.triangular_solve_p, lambda a, b: LA.triangular_solve(a, b, lower=False),
          (Arg((4, 4), "float32", _triangular_ok((4, 4))), Arg((4, 2), "float32")),
          _solve_triangular_ref(False, 0, False), **F32),

    OpRow("lu", LA.lu_p, LA.lu, (Arg((4, 4)),), _lu_ref),
    OpRow("lu_f32", LA.lu_p, LA.lu, (Arg((4, 4), "float32"),), _lu_ref, **F32),

    OpRow("qr_tall", LA.qr_p, LA.qr, (Arg((5, 3)),), _qr_ref("reduced")),
    OpRow("qr_square_batched", LA.qr_p, LA.qr, (Arg((2, 3, 3)),), _qr_ref("reduced")),
    OpRow("qr_complete", LA.qr_p, lambda a: LA.qr(a, full_matrices=True), (Arg((4, 2)),), _qr_ref("complete"),
          diff=()),
    OpRow("qr_wide_f32", LA.qr_p, LA.qr, (Arg((2, 4), "float32"),), _qr_ref("reduced"), **F32),

    OpRow("eigh", LA.eigh_p, LA.eigh, (Arg((4, 4), domain=_symmetric((4, 4))),), _eigh_ref),
    OpRow("eigh_batched", LA.eigh_p, LA.eigh, (Arg((2, 3, 3), domain=_symmetric((2, 3, 3))),), _eigh_ref),
    OpRow("eigh_f32", LA.eigh_p, LA.eigh, (Arg((3, 3), "float32", _symmetric((3, 3))),), _eigh_ref, **F32),

    OpRow("svd_tall", LA.svd_p, LA.svd, (Arg((4, 3)),), _svd_ref),
    OpRow("svd_wide_batched", LA.svd_p, LA.svd, (Arg((2, 2, 4)),), _svd_ref),
    OpRow("svd_square", LA.svd_p, LA.svd, (Arg((3, 3)),), _svd_ref),
    OpRow("svd_f32", LA.svd_p, LA.svd, (Arg((3, 4), "float32"),), _svd_ref, **F32),
]
