"""paddle_fn.linalg: results against numpy/scipy (float32 and float64, batched), derivatives against finite
differences in float64, vmap, jit, and the documented errors and singular-matrix behaviour. The primitives'
own rules are checked by the op table (tests/optable/linalg.py)."""
import numpy as np
import pytest
import scipy.linalg

import paddle_fn as paddle
from paddle_fn import linalg

RNG = np.random.default_rng(0)


def _t(a):
    return paddle.to_tensor(a)


def _spd(*shape):
    m = RNG.normal(size=shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def _close(got, want, dtype):
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, "numpy") else got, np.float64),
                               np.asarray(want, np.float64), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------- values

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_match_numpy(dtype):
    a = RNG.normal(size=(2, 4, 4)).astype(dtype)
    spd = _spd(2, 4, 4).astype(dtype)
    b = RNG.normal(size=(2, 4, 3)).astype(dtype)
    tall = RNG.normal(size=(2, 5, 3)).astype(dtype)
    _close(linalg.solve(_t(a), _t(b)), np.linalg.solve(a, b), dtype)
    _close(linalg.solve(_t(a[0]), _t(b[0, :, 0])), np.linalg.solve(a[0], b[0, :, 0]), dtype)
    _close(linalg.inv(_t(a)), np.linalg.inv(a), dtype)
    _close(linalg.det(_t(a)), np.linalg.det(a), dtype)
    _close(linalg.slogdet(_t(a)), np.stack(np.linalg.slogdet(a)), dtype)
    _close(linalg.cholesky(_t(spd)), np.linalg.cholesky(spd), dtype)
    _close(linalg.cholesky(_t(spd), upper=True), np.swapaxes(np.linalg.cholesky(spd), -1, -2), dtype)
    factor = np.linalg.cholesky(spd)
    _close(linalg.cholesky_solve(_t(b), _t(factor)), np.linalg.solve(spd, b), dtype)
    _close(linalg.cholesky_solve(_t(b), _t(np.swapaxes(factor, -1, -2)), upper=True), np.linalg.solve(spd, b), dtype)
    for upper, trans, unit in [(True, False, False), (False, True, False), (True, True, True)]:
        want = np.stack([scipy.linalg.solve_triangular(spd[i], b[i], lower=not upper, trans=int(trans),
                                                       unit_diagonal=unit) for i in range(2)])
        _close(linalg.triangular_solve(_t(spd), _t(b), upper=upper, transpose=trans, unitriangular=unit), want, dtype)
    q, r = linalg.qr(_t(tall))
    _close(q, np.linalg.qr(tall)[0], dtype)
    _close(r, np.linalg.qr(tall)[1], dtype)
    _close(linalg.qr(_t(tall), mode="r"), np.linalg.qr(tall, mode="r"), dtype)
    qc, rc = linalg.qr(_t(tall), mode="complete")
    _close(linalg.matmul(qc, rc), tall, dtype)
    assert qc.shape == [2, 5, 5] and rc.shape == [2, 5, 3]
    u, s, vh = linalg.svd(_t(tall))
    _close(s, np.linalg.svd(tall)[1], dtype)
    _close(linalg.matmul(u * s.unsqueeze(-2), vh), tall, dtype)
    w, v = linalg.eigh(_t(spd))
    _close(w, np.linalg.eigvalsh(spd), dtype)
    _close(linalg.matmul(v * w.unsqueeze(-2), v.transpose([0, 2, 1])), spd, dtype)
    upper_only = np.triu(spd)
    _close(linalg.eigvalsh(_t(upper_only), UPLO="U"), np.linalg.eigvalsh(spd), dtype)
    _close(linalg.pinv(_t(tall)), np.linalg.pinv(tall), dtype)
    _close(linalg.pinv(_t(spd), hermitian=True), np.linalg.inv(spd), dtype)
    y = RNG.normal(size=(2, 5, 2)).astype(dtype)
    sol, res, rank, sv = linalg.lstsq(_t(tall), _t(y))
    want = [np.linalg.lstsq(tall[i], y[i], rcond=None) for i in range(2)]
    _close(sol, np.stack([w_[0] for w_ in want]), dtype)
    _close(res, np.stack([w_[1] for w_ in want]), dtype)
    assert rank.numpy().tolist() == [3, 3]
    _close(linalg.matrix_power(_t(a), 3), np.linalg.matrix_power(a, 3), dtype)
    _close(linalg.matrix_power(_t(a), -2), np.linalg.matrix_power(a.astype(np.float64), -2), dtype)
    _close(linalg.matrix_power(_t(a), 0), np.broadcast_to(np.eye(4), a.shape), dtype)
    _close(linalg.matrix_rank(_t(tall)), [3, 3], dtype)
    _close(linalg.cond(_t(a)), np.linalg.cond(a), dtype)
    _close(linalg.cond(_t(a), p="fro"), np.linalg.cond(a, "fro"), dtype)
    obs = RNG.normal(size=(3, 6)).astype(dtype)
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), RNG.uniform(0.5, 2, size=6)
    _close(linalg.cov(_t(obs)), np.cov(obs), dtype)
    _close(linalg.cov(_t(obs.T), rowvar=False, ddof=False), np.cov(obs.T, rowvar=False, ddof=0), dtype)
    _close(linalg.cov(_t(obs), fweights=_t(fw), aweights=_t(aw)), np.cov(obs, fweights=fw, aweights=aw), dtype)
    chain = [RNG.normal(size=s).astype(dtype) for s in ((3,), (3, 5), (5, 2), (2, 4))]
    _close(linalg.multi_dot([_t(c) for c in chain]), np.linalg.multi_dot(chain), dtype)


@pytest.mark.parametrize("p, axis", [("fro", None), (1, None), (3.5, None), (np.inf, 1), (-np.inf, 0), (0, 1),
                                     (2, -1), ("fro", [0, 1]), ("nuc", [0, 1]), (1, [0, 1]), (-1, [1, 0]),
                                     (2, [1, 2]), (-2, [1, 2]), (np.inf, [0, 2]), (-np.inf, [1, 2])])
def test_norm_matches_numpy(p, axis):
    x = RNG.normal(size=(3, 4, 5))
    x[0, 0, 0] = 0.0
    if axis is None:
        want = np.linalg.norm(x.reshape(-1), None if p == "fro" else p)
    else:
        want = np.linalg.norm(x, p, axis=axis if isinstance(axis, int) else tuple(axis))
    _close(linalg.norm(_t(x), p=p, axis=axis), np.reshape(want, np.shape(want) or (1,)), np.float64)
    if axis is not None:
        kept = linalg.norm(_t(x), p=p, axis=axis, keepdim=True)
        assert kept.shape == list(np.linalg.norm(x, p, axis=axis if isinstance(axis, int) else tuple(axis),
                                                 keepdims=True).shape)


def test_lu_and_unpack():
    a = RNG.normal(size=(2, 4, 4))
    packed, pivots, infos = linalg.lu(_t(a), get_infos=True)
    for i in range(2):
        lu_, piv = scipy.linalg.lu_factor(a[i])
        _close(packed[i], lu_, np.float64)
        assert pivots.numpy()[i].tolist() == (piv + 1).tolist()
    assert infos.numpy().tolist() == [0, 0]
    p, l_, u = linalg.lu_unpack(packed, pivots)
    _close(linalg.matmul(p, linalg.matmul(l_, u)), a, np.float64)


# ---------------------------------------------------------------------------------------------- derivatives

def _check_derivatives(f, *args, rtol=1e-6, atol=1e-8):
    """grad of a random projection of f, and jvp along a random direction, against central differences."""
    args = [np.asarray(a, np.float64) for a in args]
    out = f(*map(_t, args))
    weights = [RNG.normal(size=o.shape) for o in (out if isinstance(out, (list, tuple)) else [out])]

    def scalar(*xs):
        outs = f(*xs)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        return sum(paddle.sum(o * _t(w)) for o, w in zip(outs, weights))

    grads = paddle.grad(scalar, argnums=tuple(range(len(args))))(*map(_t, args))
    directions = [RNG.normal(size=a.shape) for a in args]
    eps = 1e-6
    plus = float(scalar(*[_t(a + eps * d) for a, d in zip(args, directions)]).numpy().reshape(()))
    minus = float(scalar(*[_t(a - eps * d) for a, d in zip(args, directions)]).numpy().reshape(()))
    fd = (plus - minus) / (2 * eps)
    by_grad = sum(float(np.vdot(g.numpy(), d)) for g, d in zip(grads, directions))
    np.testing.assert_allclose(by_grad, fd, rtol=rtol, atol=atol)
    _, tangent = paddle.jvp(scalar, tuple(map(_t, args)), tuple(map(_t, directions)))
    np.testing.assert_allclose(float(tangent.numpy().reshape(())), fd, rtol=rtol, atol=atol)


def test_derivatives_match_finite_differences():
    a = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    spd = _spd(2, 3, 3)
    b = RNG.normal(size=(2, 3, 2))
    tall = RNG.normal(size=(4, 3))
    _check_derivatives(linalg.det, a)
    _check_derivatives(linalg.slogdet, a)
    _check_derivatives(linalg.inv, a)
    _check_derivatives(linalg.solve, a, b)
    _check_derivatives(lambda x, y: linalg.triangular_solve(x, y, upper=False, transpose=True), a, b)
    _check_derivatives(lambda x: linalg.cholesky(x, upper=True), spd)
    _check_derivatives(lambda y, f: linalg.cholesky_solve(y, f), b, np.linalg.cholesky(spd))
    _check_derivatives(lambda x: linalg.qr(x), tall)
    # eigh reads one triangle but is differentiated as the symmetric part (as Paddle and JAX): symmetric directions
    _check_derivatives(lambda x: linalg.eigvalsh((x + x.transpose([0, 2, 1])) / 2), spd)
    _check_derivatives(lambda x: linalg.eigh((x + x.transpose([0, 2, 1])) / 2, UPLO="U"), spd)
    _check_derivatives(lambda x: linalg.svd(x)[1], tall)
    _check_derivatives(lambda x: linalg.svd(x.T)[::2], tall)
    _check_derivatives(linalg.pinv, tall)
    _check_derivatives(lambda x, y: linalg.lstsq(x, y)[0], tall, RNG.normal(size=(4, 2)))
    _check_derivatives(lambda x: linalg.matrix_power(x, -2), a)
    _check_derivatives(lambda x: linalg.norm(x, "nuc", axis=[-2, -1]), tall)
    _check_derivatives(lambda x: linalg.norm(x, 2, axis=[0, 1]), tall)
    _check_derivatives(linalg.cond, tall)
    _check_derivatives(lambda x: linalg.lu_unpack(*linalg.lu(x))[1:], a)
    _check_derivatives(linalg.cov, RNG.normal(size=(3, 5)))
    _check_derivatives(lambda x: linalg.multi_dot([x, x.T, x]), tall)


def test_eigh_gradient_is_symmetric_as_paddles():
    h = np.array([[2.0, 1.0, 0.0], [1.0, -1.0, 0.3], [0.0, 0.3, 0.5]])
    x = paddle.to_tensor(h, stop_gradient=False)
    (linalg.eigh(x)[0] * paddle.to_tensor([1.0, 2.0, 3.0], dtype="float64")).sum().backward()
    # Paddle 3.3.1: the same program's x.grad
    want = np.array([[2.83170408, 0.54767867, 0.00298615], [0.54767867, 1.18956391, 0.15982438],
                     [0.00298615, 0.15982438, 1.97873201]])
    np.testing.assert_allclose(x.grad.numpy(), want, atol=1e-8)


def test_second_order_through_the_decompositions():
    a = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    _check_derivatives(lambda x: paddle.grad(lambda y: paddle.sum(linalg.slogdet(y)[1]))(x), a, rtol=1e-5)


def test_vmap_matches_a_loop():
    a = RNG.normal(size=(3, 4, 4))
    got = paddle.vmap(lambda x: linalg.solve(x, x[:, :1]), in_axes=1)(_t(np.moveaxis(a, 0, 1)))
    _close(got, np.stack([np.linalg.solve(m, m[:, :1]) for m in a]), np.float64)
    got = paddle.vmap(paddle.grad(lambda x: paddle.sum(linalg.eigvalsh(x) ** 2)))(_t(_spd(3, 3, 3)))
    assert got.shape == [3, 3, 3]


# ---------------------------------------------------------------------------------------------- jit

def test_jit_matches_eager():
    """Every decomposition's lowering once (the float64 / float32 split keeps the compile short; each lowering
    was also checked in the other dtype when it was written)."""
    def f(a, spd, tall, a32, spd32, tall32):
        u, s, vh = linalg.svd(tall32)
        w, v = linalg.eigh(spd)
        packed, pivots = linalg.lu(a32)
        return [linalg.solve(a, tall[:, :4, :]), *linalg.qr(tall), w, v, linalg.cholesky(spd32), u, s, vh, packed,
                pivots]

    args = [RNG.normal(size=(2, 4, 4)) + 2 * np.eye(4), _spd(2, 4, 4), RNG.normal(size=(2, 5, 3))]
    args += [x.astype(np.float32) for x in args]
    eager = f(*map(_t, args))
    compiled = paddle.jit(f)(*map(_t, args))
    for e, c in zip(eager, compiled):
        tol = 2e-4 if e.dtype == paddle.float32 else 1e-10
        np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------- errors, singular input

def test_errors_name_the_function():
    with pytest.raises(paddle.ShapeError, match="paddle.linalg.det: expected square"):
        linalg.det(paddle.ones([2, 3]))
    with pytest.raises(paddle.ShapeError, match="paddle.linalg.inv: expected a matrix"):
        linalg.inv(paddle.ones([3]))
    with pytest.raises(paddle.ShapeError, match="paddle.linalg.solve: the right-hand side must have 2 rows"):
        linalg.solve(paddle.ones([2, 2]), paddle.ones([3, 1]))
    with pytest.raises(paddle.ShapeError, match=r"eig: expected square matrices \[..., n, n\], got \[2, 3\]"):
        paddle.jit(linalg.eig)(paddle.ones([2, 3]))
    with pytest.raises(paddle.UnsupportedError, match="full_matrices=True"):
        linalg.svd(paddle.ones([2, 2]), full_matrices=True)
    with pytest.raises(paddle.UnsupportedError, match="pivot=False"):
        linalg.lu(paddle.ones([2, 2]), pivot=False)
    with pytest.raises(paddle.UnsupportedError, match="qr: the derivative is defined for tall or square"):
        paddle.grad(lambda x: paddle.sum(linalg.qr(x)[1]))(paddle.ones([2, 3]))
    with pytest.raises(paddle.DTypeError, match="cholesky: expected float32 or float64"):
        from paddle_fn.prims import linalg as la
        la.cholesky(paddle.ones([2, 2], dtype="float16"))


def test_singular_and_indefinite_inputs():
    singular = _t(np.array([[1.0, 2.0], [2.0, 4.0]]))
    assert linalg.det(singular).shape == [] and linalg.det(singular).item() == 0.0
    assert linalg.lu(singular, get_infos=True)[2].numpy().tolist() == 2
    indefinite = _t(np.array([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):  # eagerly, as Paddle
        linalg.inv(singular)
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        linalg.cholesky(indefinite)
    # under jit the values are unknown when the program is built: the compiled answers come back unchecked
    assert not np.isfinite(paddle.jit(linalg.inv)(singular).numpy()).all()
    assert np.isnan(paddle.jit(linalg.cholesky)(indefinite).numpy()).any()
    assert linalg.matrix_rank(singular).numpy().tolist() == 1


def test_eig_of_a_general_matrix_is_complex_and_eager():
    a = np.array([[1.0, 2.0, 0.0], [-2.0, 1.0, 0.5], [0.0, 0.3, 3.0]])
    w, v = linalg.eig(paddle.to_tensor(a))
    assert w.dtype == "complex128" and v.dtype == "complex128" and w.shape == [3] and v.shape == [3, 3]
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy(), atol=1e-12)
    np.testing.assert_allclose(np.sort_complex(linalg.eigvals(paddle.to_tensor(a.astype(np.float32))).numpy()),
                               np.sort_complex(np.linalg.eigvals(a)), rtol=1e-5)
    batch = linalg.eigvals(paddle.to_tensor(np.stack([a, 2 * a])))
    assert batch.shape == [2, 3] and batch.dtype == "complex128"
