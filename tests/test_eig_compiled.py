"""paddle.linalg.eig / eigvals under jit (paddle_fn/prims/linalg_eig.py's Hessenberg-QR expansion, compiled by IREE)
and vmap, and their derivatives nested with both: eigenpairs against eager (LAPACK), the conventions (A v = w v,
unit norms, the largest entry of each eigenvector real), and gradients against jax 0.10.2's numbers.

The compiled eigenvalues may come in another order than LAPACK's (the module docstring says when), so these tests
match eigenpairs by value instead of by position, and use functions that neither the order nor the phases change."""
import os

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import linalg

# the expansions themselves: every jit program here builds its decompositions from IREE's operations
pytestmark = pytest.mark.usefixtures("without_host_kernels")

RNG = np.random.default_rng(0)
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-11, "complex128": 1e-11}


def _sample(shape, dtype, rng=RNG):
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _matched(w, reference):
    """The positions in w of each entry of `reference` (nearest first, each used once)."""
    order, free = [], list(range(len(w)))
    for r in reference:
        k = min(free, key=lambda i: abs(w[i] - r))
        free.remove(k)
        order.append(k)
    return np.array(order)


def _check_eigenpairs(a, w, v, dtype):
    """A v = w v, unit norms, largest entries real, and the eigenvalues (and, for distinct ones, the eigenvectors up
    to a phase) of LAPACK's, matched by value."""
    tol = TOL[dtype] * max(1.0, np.abs(a).max())
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * a.shape[-1])
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=TOL[dtype] * 10)
    largest = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    np.testing.assert_allclose(largest.imag, 0, atol=TOL[dtype])
    for idx in np.ndindex(*a.shape[:-2]):
        we, ve = np.linalg.eig(a[idx].astype(np.complex128))
        k = _matched(w[idx], we)
        np.testing.assert_allclose(w[idx][k], we, atol=tol * 10)
        overlap = np.abs(np.sum(np.conj(ve) * v[idx][:, k], axis=0))  # |<v_lapack, v_jit>| = 1
        np.testing.assert_allclose(overlap, 1, atol=TOL[dtype] * 100)


# each dtype is a 10-15 s compile: the suite's reduced form takes one real and one complex width
COMPILED_DTYPES = (["float32", "float64", "complex64", "complex128"] if os.environ.get("PADDLE_FN_HEAVY")
                   else ["float32", "complex128"])
BATCH = {dtype: _sample((12, 6, 6), dtype, np.random.default_rng(5)) for dtype in TOL}
EIG_AND_EIGVALS = paddle.jit(lambda x: (*linalg.eig(x), linalg.eigvals(x)))


@pytest.mark.heavy
@pytest.mark.parametrize("dtype", COMPILED_DTYPES)
def test_jit_eigenpairs_match_lapack(dtype):
    a = BATCH[dtype]
    w, v, w_only = EIG_AND_EIGVALS(paddle.to_tensor(a))
    want = {"float32": "complex64", "float64": "complex128"}.get(dtype, dtype)
    assert w.dtype == getattr(paddle, want) and v.dtype == getattr(paddle, want)
    assert w.shape == [12, 6] and v.shape == [12, 6, 6] and w_only.shape == [12, 6]
    _check_eigenpairs(a, w.numpy(), v.numpy(), dtype)
    np.testing.assert_allclose(w_only.numpy(), w.numpy(), atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_vmap_matches_a_loop(dtype):
    a = _sample((4, 5, 5), dtype)
    w, v = paddle.vmap(linalg.eig)(paddle.to_tensor(a))
    _check_eigenpairs(a, w.numpy(), v.numpy(), dtype)
    w2 = paddle.vmap(paddle.vmap(linalg.eigvals), in_axes=1)(paddle.to_tensor(a.reshape(2, 2, 5, 5))).numpy()
    for i, j in np.ndindex(2, 2):
        np.testing.assert_allclose(w2[j, i], np.linalg.eigvals(a.reshape(2, 2, 5, 5)[i, j]), atol=TOL[dtype] * 10)


def test_compiled_order_is_lapacks_for_most_matrices():
    """The same QR iteration as zlahqr: the compiled order is LAPACK's for most random complex matrices; for real
    ones LAPACK's real iteration often deflates in another order, but each complex conjugate pair has its positive
    imaginary part first, as in LAPACK."""
    same = lambda dtype: sum(np.allclose(w, np.linalg.eigvals(m), atol=1e-8)  # noqa: E731
                             for w, m in zip(EIG_AND_EIGVALS(paddle.to_tensor(BATCH[dtype]))[2].numpy(), BATCH[dtype]))
    assert same("complex128") >= 10
    for row in EIG_AND_EIGVALS(paddle.to_tensor(BATCH["float64"]))[2].numpy():
        for k in range(5):
            if abs(row[k] - np.conj(row[k + 1])) < 1e-8 and abs(row[k].imag) > 1e-8:
                assert row[k].imag > 0


SPECIAL = [  # 4x4 matrices and their eigenvalues
    (np.zeros((4, 4)), [0, 0, 0, 0]),
    (np.diag([3.0, 1.0, 2.0, -1.0]), [3, 1, 2, -1]),
    (np.triu(np.arange(1.0, 17.0).reshape(4, 4)), [1, 6, 11, 16]),
    (np.roll(np.eye(4), 1, axis=0), [1, 1j, -1, -1j]),            # a cyclic permutation: exceptional shifts
    (np.diag([1.0, 1.0, 1.0], 1) + 2 * np.eye(4), [2, 2, 2, 2]),  # a Jordan block (defective)
    (np.full((4, 4), np.nan), [np.nan] * 4),  # never deflates: stops at the iteration limit, NaN (LAPACK's failure)
]


def test_special_matrices():
    a = np.stack([m for m, _ in SPECIAL])
    w, v = paddle.jit(linalg.eig)(paddle.to_tensor(a))
    for m, (expected, got_w, got_v) in zip(a, zip([e for _, e in SPECIAL], w.numpy(), v.numpy())):
        if np.isnan(m).any():
            assert np.isnan(got_w).all() and np.isnan(got_v).all()
            continue
        np.testing.assert_allclose(np.sort_complex(np.round(got_w, 6)), np.sort_complex(np.asarray(expected, complex)),
                                   atol=1e-5)
        assert np.all(np.isfinite(got_v))
        np.testing.assert_allclose(np.linalg.norm(got_v, axis=0), 1, atol=1e-12)
        np.testing.assert_allclose(m @ got_v, got_v * got_w, atol=1e-3)
    w, v = paddle.jit(linalg.eig)(paddle.to_tensor([[5.0]]))
    assert w.numpy().tolist() == [5.0] and v.numpy().tolist() == [[1.0]]


# jax 0.10.2 (x64): jax.grad of an order- and phase-free function of jnp.linalg.eigvals / lax.linalg.eig(...,
# compute_left_eigenvectors=False, enable_eigvec_derivs=True) at these matrices
Z = np.array([[1.00e-03 - 0.62j, 2.99e-01 + 0.49j, -2.74e-01 + 0.357j],
              [-8.91e-01 + 0.105j, -4.55e-01 - 0.93j, -9.92e-01 - 0.029j],
              [6.00e-02 + 0.695j, 1.34e+00 - 1.344j, -4.92e-01 - 0.458j]])
R = np.array([[-1.901, -1.29, -1.842, -0.235], [-1.267, 0.271, 0.157, -0.187], [-2.517, -0.539, -0.049, 0.113],
              [-1.53, -0.478, -0.979, -0.809]])
JAX_GRAD_VALUES_Z = np.array([
    [-4.140439000000004 - 1.7283350000000035j, 1.793697000000001 + 3.708600000000003j,
     0.3907900000000004 + 2.6768370000000035j],
    [3.189206000000008 - 0.11582199999999443j, -8.891970000000002 + 6.116478999999998j,
     -13.059186000000015 - 3.7298410000000066j],
    [1.424946000000006 - 0.5759980000000016j, 3.2594629999999984 + 5.156506000000002j,
     -5.717533000000008 + 5.7121500000000065j]])
JAX_GRAD_VECTORS_Z = np.array([
    [0.7921317021362806 - 0.05102904701595357j, 0.10024911312124662 - 0.00728985522234088j,
     0.17652850720619379 - 0.21286638627219037j],
    [0.06408027297106783 - 0.282456902941041j, 1.1853894619791303 + 0.3629622030982059j,
     -0.4203944854253359 + 0.36540408779560407j],
    [-0.1416677210367185 + 0.13916670945353493j, -0.20909700786622482 - 0.3133288530773222j,
     1.424021331277976 - 0.31193315608225225j]])
JAX_GRAD_VALUES_R = np.array([
    [30.732285000000054, 5.8684530000000015, 16.254519000000037, 21.648207000000042],
    [9.623604000000016, 5.1379020000000075, 9.219774000000022, 8.275635000000017],
    [10.85830500000002, 7.655223000000008, 13.330395000000022, 10.749588000000022],
    [2.009802000000004, 1.2482760000000006, 1.786002000000002, 2.9783700000000057]])
JAX_GRAD_VECTORS_R = np.array([
    [0.23037697904563098, -0.20384804770926881, 0.08612745593423998, -2.981476064855808],
    [0.03969327086237326, 0.05266848409654315, -0.18235195928617476, -3.3832076022801467],
    [-0.43725797941527783, 0.2649040632890935, 1.1075749431619428, 0.6934526720462506],
    [0.6111909942676547, 0.5741106994994665, 0.08517205380671053, 4.570434937347115]])


def _of_values(m):
    w = linalg.eigvals(m)
    return paddle.real((w ** 3).sum()) + paddle.imag((w ** 2).sum())


def _of_vectors(m):
    w, v = linalg.eig(m)
    weights = paddle.arange(1, m.shape[-1] + 1).astype("float64").reshape([-1, 1])
    return (paddle.real(w) * (paddle.abs(v) ** 4 * weights).sum(axis=0)).sum()


def _of_both(m):
    return _of_values(m) + _of_vectors(m)


def test_gradients_match_jax():
    """grad eagerly (float64 and complex128), under jit and under jit of vmap, against jax's."""
    for m, want in ((R, JAX_GRAD_VALUES_R + JAX_GRAD_VECTORS_R), (Z, JAX_GRAD_VALUES_Z + JAX_GRAD_VECTORS_Z)):
        np.testing.assert_allclose(paddle.grad(_of_both)(paddle.to_tensor(m)).numpy(), want, atol=1e-10)
    got = paddle.jit(paddle.vmap(paddle.grad(_of_values)))(paddle.to_tensor(np.stack([R, R.T]))).numpy()
    np.testing.assert_allclose(got, np.stack([JAX_GRAD_VALUES_R, JAX_GRAD_VALUES_R.T]), atol=1e-10)
    got = paddle.jit(paddle.grad(_of_both))(paddle.to_tensor(Z)).numpy()
    np.testing.assert_allclose(got, JAX_GRAD_VALUES_Z + JAX_GRAD_VECTORS_Z, atol=1e-10)


def test_jacobians_match_finite_differences():
    """jacfwd and jacrev (vmap of jvp and of vjp) of the eigenvalues' power sums against central differences."""
    def sums(m):
        w = linalg.eigvals(m)
        return paddle.stack([paddle.real((w ** 2).sum()), paddle.real((w ** 3).sum()), paddle.imag((w ** 3).sum())])

    eps = 1e-6
    fd = np.stack([(sums(paddle.to_tensor(R + eps * e)).numpy() - sums(paddle.to_tensor(R - eps * e)).numpy())
                   / (2 * eps) for e in np.eye(16).reshape(16, 4, 4)], axis=-1).reshape(3, 4, 4)
    np.testing.assert_allclose(paddle.jacfwd(sums)(paddle.to_tensor(R)).numpy(), fd, atol=1e-6)
    np.testing.assert_allclose(paddle.jacrev(sums)(paddle.to_tensor(R)).numpy(), fd, atol=1e-6)


def test_jvp_of_eigenvectors_matches_finite_differences_complex():
    """jvp of eig in complex128 against central differences of eig (whose order and phases a small step keeps)."""
    rng = np.random.default_rng(3)
    z, dz = _sample((4, 4), "complex128", rng), _sample((4, 4), "complex128", rng)
    (w, v), (dw, dv) = paddle.jvp(linalg.eig, (paddle.to_tensor(z),), (paddle.to_tensor(dz),))
    eps = 1e-6
    plus, minus = (linalg.eig(paddle.to_tensor(z + s * eps * dz)) for s in (1, -1))
    np.testing.assert_allclose(dw.numpy(), (plus[0].numpy() - minus[0].numpy()) / (2 * eps), atol=1e-6)
    np.testing.assert_allclose(dv.numpy(), (plus[1].numpy() - minus[1].numpy()) / (2 * eps), atol=1e-5)
