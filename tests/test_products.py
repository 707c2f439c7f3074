"""paddle_fn.tensor.products: results against numpy/scipy/itertools and against answers taken from real Paddle
3.3.1 where Paddle's conventions differ from numpy's (tensordot's axes forms, combinations with r=0, block_diag of
0-D/1-D blocks, cdist with p=0), derivatives against hand-computed values, jit against eager, Tensor methods and
the errors."""
import itertools

import numpy as np
import pytest
import scipy.integrate
import scipy.linalg
import scipy.spatial.distance

import paddle_fn as paddle
from paddle_fn.core.errors import ShapeError

RNG = np.random.default_rng(0)


def _t(a):
    return paddle.to_tensor(a)


@pytest.mark.parametrize("axes, np_axes", [
    (2, 2), (0, 0),
    ([[1, 2], [0, 1]], ([1, 2], [0, 1])),
    ([[1], [0]], ([1], [0])),
    ([[-2, -1], [0, 1]], ([1, 2], [0, 1])),
    ((1, 0), None),  # one list: the same axes of both
])
def test_tensordot_matches_numpy(axes, np_axes):
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(3, 4, 5))
    if np_axes is None:  # one list [1, 0] contracts dims 1 and 0 of both operands
        b = RNG.normal(size=(2, 3, 5))
        np_axes = ([1, 0], [1, 0])
    got = paddle.tensordot(_t(a), _t(b), axes=axes)
    np.testing.assert_allclose(got.numpy(), np.tensordot(a, b, axes=np_axes), rtol=1e-12)


def test_tensordot_paddle_axes_forms():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    # [[1, 2]]: one inner list is used for both operands (Paddle 3.3.1: shape [2, 2])
    assert paddle.tensordot(_t(a), _t(a), axes=[[1, 2]]).shape == [2, 2]
    # [[1, 2], [0]]: y's list is completed from x's to [0, 2]
    b = RNG.normal(size=(3, 5, 4)).astype(np.float32)
    got = paddle.tensordot(_t(a), _t(b), axes=[[1, 2], [0]])
    np.testing.assert_allclose(got.numpy(), np.tensordot(a, b, axes=([1, 2], [0, 2])), rtol=1e-5)
    # axes as a Tensor, mixed int/float operands promote (Paddle 3.3.1 answer)
    got = paddle.tensordot(_t(a), paddle.arange(24).reshape([3, 4, 2]), axes=paddle.to_tensor(2))
    assert got.dtype == paddle.float32
    assert got.tolist() == [[1012.0, 1078.0], [2596.0, 2806.0]]


def test_tensordot_errors():
    a, b = paddle.ones([2, 3, 4]), paddle.ones([3, 4, 2])
    with pytest.raises(ShapeError, match=r"tensordot: dimension 0 of x .* has size 2 but dimension 0 of y"):
        paddle.tensordot(a, b, axes=[[0], [0]])
    with pytest.raises(ShapeError, match="tensordot: axes=4"):
        paddle.tensordot(a, b, axes=4)
    with pytest.raises(ShapeError, match="named twice"):
        paddle.tensordot(a, a, axes=[[1, 1], [1, 2]])
    with pytest.raises(ShapeError, match="axis 5 is out of range"):
        paddle.tensordot(a, b, axes=[[5], [0]])


def test_mv_and_errors():
    a, v = RNG.normal(size=(3, 4)), RNG.normal(size=4)
    np.testing.assert_allclose(paddle.mv(_t(a), _t(v)).numpy(), a @ v, rtol=1e-12)
    np.testing.assert_allclose(_t(a).mv(_t(v)).numpy(), a @ v, rtol=1e-12)
    with pytest.raises(ShapeError, match=r"mv: expected a 2-D x \[M, N\] and a 1-D vec \[N\], got shapes \[2, 3\] "
                                         r"and \[4\]"):
        paddle.mv(paddle.ones([2, 3]), paddle.ones([4]))


def test_baddbmm():
    inp, x, y = RNG.normal(size=(2, 3, 5)), RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 5))
    got = paddle.baddbmm(_t(inp), _t(x), _t(y), beta=0.5, alpha=-2.0)
    np.testing.assert_allclose(got.numpy(), 0.5 * inp + -2.0 * (x @ y), rtol=1e-12)
    # a 2-D input is shared by the batch (Paddle 3.3.1: all 4.0 for ones)
    got = paddle.baddbmm(paddle.ones([2, 2]), paddle.ones([2, 2, 3]), paddle.ones([2, 3, 2]))
    assert got.tolist() == [[[4.0, 4.0], [4.0, 4.0]]] * 2
    with pytest.raises(ShapeError, match=r"baddbmm: input of shape \[2\] must be 2-D or 3-D"):
        paddle.baddbmm(paddle.ones([2]), paddle.ones([2, 2, 3]), paddle.ones([2, 3, 2]))
    with pytest.raises(ShapeError, match="bmm"):
        paddle.baddbmm(paddle.ones([2, 2]), paddle.ones([2, 3]), paddle.ones([3, 2]))


def test_block_diag():
    got = paddle.block_diag([paddle.ones([2, 2]), _t([1., 2., 3.]), _t(5.)])
    # Paddle 3.3.1's answer: a 1-D block is one row, a 0-D block is [1, 1]
    assert got.tolist() == [[1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 1.0, 2.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 5.0]]
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 1))
    np.testing.assert_array_equal(paddle.block_diag([_t(a), _t(b)]).numpy(), scipy.linalg.block_diag(a, b))
    with pytest.raises(TypeError, match=r"block_diag: all Tensors must have one dtype .*\['int32', 'float32'\]"):
        paddle.block_diag([paddle.ones([1, 2], "int32"), paddle.ones([2, 1])])
    with pytest.raises(ShapeError, match="block_diag: every input must be 0-D, 1-D or 2-D"):
        paddle.block_diag([paddle.ones([1, 2, 3])])
    with pytest.raises(TypeError, match="block_diag: inputs must be a non-empty list"):
        paddle.block_diag([])


def test_cartesian_prod():
    xs = [np.array([1, 2]), np.array([3, 4, 5]), np.array([7, 8])]
    got = paddle.cartesian_prod([_t(x) for x in xs])
    assert got.tolist() == [list(p) for p in itertools.product(*xs)]
    assert paddle.cartesian_prod([_t([1, 2])]).tolist() == [1, 2]  # one input: itself, 1-D (as Paddle)
    with pytest.raises(ShapeError, match=r"cartesian_prod: every input must be 1-D, got shapes \[\[2, 2\]\]"):
        paddle.cartesian_prod([paddle.ones([2, 2])])
    with pytest.raises(TypeError, match="cartesian_prod: x must be a non-empty list"):
        paddle.cartesian_prod(_t([1, 2]))
    with pytest.raises(TypeError, match="one dtype"):
        paddle.cartesian_prod([_t([1, 2]), _t([3., 4.])])


@pytest.mark.parametrize("r", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_matches_itertools(r, with_replacement):
    x = [10, 20, 30, 40]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    want = [list(c) for c in pick(x, r)]
    got = paddle.combinations(_t(x), r=r, with_replacement=with_replacement)
    assert got.shape == [len(want), r]
    assert got.tolist() == want


def test_combinations_edge_cases_and_errors():
    assert paddle.combinations(_t([1, 2, 3]), r=0).shape == [0]  # Paddle 3.3.1: a 1-D empty Tensor
    assert paddle.combinations(_t([1, 2, 3]), r=4).shape == [0, 4]
    assert _t([1., 2., 3.]).combinations().tolist() == [[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]]
    with pytest.raises(ShapeError, match=r"combinations: x must be 1-D, got shape \[2, 2\]"):
        paddle.combinations(paddle.ones([2, 2]))
    with pytest.raises(ValueError, match="combinations: r must be a non-negative int, got -1"):
        paddle.combinations(_t([1, 2, 3]), r=-1)


@pytest.mark.parametrize("p, metric, kw", [(2.0, "euclidean", {}), (1.0, "cityblock", {}),
                                           (3.0, "minkowski", {"p": 3.0}), (0.5, "minkowski", {"p": 0.5}),
                                           (float("inf"), "chebyshev", {})])
def test_cdist_matches_scipy(p, metric, kw):
    x, y = RNG.normal(size=(5, 3)), RNG.normal(size=(4, 3))
    got = paddle.cdist(_t(x), _t(y), p=p)
    np.testing.assert_allclose(got.numpy(), scipy.spatial.distance.cdist(x, y, metric, **kw), rtol=1e-10)


def test_cdist_batched_p0_and_errors():
    x, y = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(1, 5, 4))
    got = paddle.cdist(_t(x), _t(y))
    assert got.shape == [2, 3, 5]
    np.testing.assert_allclose(got.numpy()[1], scipy.spatial.distance.cdist(x[1], y[0]), rtol=1e-10)
    # p=0 counts differing coordinates (Paddle 3.3.1: [[2.0], [2.0]])
    assert paddle.cdist(_t([[0., 0.], [1., 1.]]), _t([[3., 4.]]), p=0).tolist() == [[2.0], [2.0]]
    assert paddle.cdist(paddle.ones([3, 2]), paddle.ones([4, 2], "float64")).dtype == paddle.float64
    with pytest.raises(ShapeError, match=r"cdist: x and y must be at least 2-D .* got shapes \[3, 2\] and \[4, 3\]"):
        paddle.cdist(paddle.ones([3, 2]), paddle.ones([4, 3]))
    with pytest.raises(TypeError, match="cdist: expected floating-point Tensors, got int32"):
        paddle.cdist(paddle.ones([3, 2], "int32"), paddle.ones([4, 2], "int32"))
    with pytest.raises(ValueError, match="cdist: p must be >= 0"):
        paddle.cdist(paddle.ones([3, 2]), paddle.ones([4, 2]), p=-1)
    with pytest.raises(ValueError, match="cdist: compute_mode must be one of"):
        paddle.cdist(paddle.ones([3, 2]), paddle.ones([4, 2]), compute_mode="fast")


@pytest.mark.parametrize("n", [None, 0, 1, 4])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander_matches_numpy(n, increasing):
    x = np.array([2, -3, 0, 5])
    got = paddle.vander(_t(x), n=n, increasing=increasing)
    want = np.vander(x, N=n, increasing=increasing)
    assert got.dtype == paddle.int64 and got.shape == list(want.shape)
    np.testing.assert_array_equal(got.numpy(), want)
    xf = RNG.normal(size=3)
    np.testing.assert_allclose(_t(xf).vander(n, increasing).numpy(), np.vander(xf, N=n, increasing=increasing))


def test_vander_errors():
    with pytest.raises(ShapeError, match=r"vander: x must be 1-D, got shape \[2, 2\]"):
        paddle.vander(paddle.ones([2, 2]))
    with pytest.raises(ValueError, match="vander: n must be non-negative, got -1"):
        paddle.vander(_t([1, 2]), n=-1)


@pytest.mark.parametrize("row, col, offset", [(3, 3, 0), (4, 3, -1), (3, 4, 1), (3, 4, -5), (0, 3, 0), (2, 5, 7)])
def test_triangle_indices_match_numpy(row, col, offset):
    np.testing.assert_array_equal(paddle.tril_indices(row, col, offset).numpy(),
                                  np.stack(np.tril_indices(row, offset, col)).reshape(2, -1))
    got = paddle.triu_indices(row, col, offset, dtype="int32")
    assert got.dtype == paddle.int32
    np.testing.assert_array_equal(got.numpy(), np.stack(np.triu_indices(row, offset, col)).reshape(2, -1))


def test_triangle_indices_defaults_and_errors():
    assert paddle.triu_indices(3).tolist() == [[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]  # col defaults to row
    assert paddle.tril_indices(4, 3, -1).tolist() == [[1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 2]]
    with pytest.raises(ValueError, match="tril_indices: row and col must be non-negative, got row=-1"):
        paddle.tril_indices(-1, 3)
    with pytest.raises(TypeError, match="triu_indices: dtype must be 'int32' or 'int64', got float32"):
        paddle.triu_indices(3, 3, dtype="float32")


_trapz = getattr(np, "trapezoid", None) or np.trapz  # numpy 2 renamed trapz


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_trapezoid_matches_numpy_and_scipy(axis):
    y = RNG.normal(size=(4, 5, 3))
    n = y.shape[axis]
    x1 = np.sort(RNG.normal(size=n))
    xfull = np.sort(RNG.normal(size=y.shape), axis=axis)
    cases = [({}, {}), ({"dx": 0.3}, {"dx": 0.3}), ({"x": _t(x1)}, {"x": x1}), ({"x": _t(xfull)}, {"x": xfull})]
    for kw, np_kw in cases:
        got = paddle.trapezoid(_t(y), axis=axis, **kw)
        np.testing.assert_allclose(got.numpy(), _trapz(y, axis=axis, **np_kw), rtol=1e-10, atol=1e-12)
        got = paddle.cumulative_trapezoid(_t(y), axis=axis, **kw)
        np.testing.assert_allclose(got.numpy(), scipy.integrate.cumulative_trapezoid(y, axis=axis, **np_kw),
                                   rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_t(y).trapezoid(axis=axis).numpy(), _trapz(y, axis=axis), rtol=1e-10)


def test_trapezoid_paddle_answers_and_errors():
    y = _t([1., 2., 4.])
    assert paddle.trapezoid(y, x=_t([0., 1., 3.])).tolist() == 7.5
    assert paddle.cumulative_trapezoid(y, x=_t([0., 1., 3.])).tolist() == [1.5, 7.5]
    assert paddle.trapezoid(_t([1.])).tolist() == 0.0  # one sample: no area (Paddle 3.3.1)
    assert paddle.cumulative_trapezoid(_t([1.])).shape == [0]
    with pytest.raises(ValueError, match="trapezoid: pass x or dx, not both"):
        paddle.trapezoid(y, x=_t([0., 1., 3.]), dx=1.0)
    with pytest.raises(TypeError, match="cumulative_trapezoid: y must be a floating-point Tensor, got int64"):
        paddle.cumulative_trapezoid(_t([1, 2, 4]))
    with pytest.raises(ShapeError, match="trapezoid: y must be at least 1-D"):
        paddle.trapezoid(_t(1.))
    # Paddle 3.3.1 broadcasts a too-short x and returns 2.0 here; a wrong integral, so refuse
    with pytest.raises(ShapeError, match="trapezoid: 1-D x has length 2 but y .* has 3 samples along axis 1"):
        paddle.trapezoid(paddle.ones([2, 3]), x=_t([0., 1.]))


def test_gradients_by_hand():
    # d/dx sum(vander(x, 3)) = d/dx sum(x^2 + x + 1) = 2x + 1
    x = _t(np.array([0.0, 1.5, -2.0]))
    np.testing.assert_allclose(paddle.grad(lambda v: paddle.sum(paddle.vander(v, 3)))(x).numpy(),
                               [1.0, 4.0, -3.0], rtol=1e-12)
    # d/dy trapezoid(y, dx) = dx * [1/2, 1, ..., 1, 1/2]
    g = paddle.grad(lambda v: paddle.trapezoid(v, dx=0.5))(_t(RNG.normal(size=4)))
    np.testing.assert_allclose(g.numpy(), [0.25, 0.5, 0.5, 0.25], rtol=1e-12)
    # d/dx cdist(x, y)[i, j] = (x_i - y_j) / |x_i - y_j|, summed over j
    a, b = RNG.normal(size=(3, 2)), RNG.normal(size=(4, 2))
    g = paddle.grad(lambda v: paddle.sum(paddle.cdist(v, _t(b))))(_t(a))
    diff = a[:, None, :] - b[None, :, :]
    np.testing.assert_allclose(g.numpy(), (diff / np.linalg.norm(diff, axis=-1, keepdims=True)).sum(1), rtol=1e-10)
    # d/dy sum(tensordot(x, y)) = sum of x over its free dims, broadcast over y's free dims
    a, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(3, 4, 5))
    g = paddle.grad(lambda v: paddle.sum(paddle.tensordot(_t(a), v)))(_t(b))
    np.testing.assert_allclose(g.numpy(), np.broadcast_to(a.sum(0)[:, :, None], b.shape), rtol=1e-12)


def test_jit_equals_eager():
    a, b = _t(RNG.normal(size=(2, 3, 4))), _t(RNG.normal(size=(3, 4, 5)))
    y = _t(RNG.normal(size=(3, 6)))

    def f(u, v, w):
        return (paddle.tensordot(u, v, axes=[[1, 2], [0, 1]]), paddle.cdist(u, u, p=3.0),
                paddle.cumulative_trapezoid(w, dx=0.5, axis=1), paddle.combinations(w[0], r=3),
                paddle.block_diag([u[0], w]), paddle.vander(w[1], 4))

    for got, want in zip(paddle.jit(f)(a, b, y), f(a, b, y)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_empty_results_under_jit():
    x = _t([1., 2., 3.])
    for f, shape in [(lambda v: paddle.vander(v, 0), [3, 0]), (lambda v: paddle.combinations(v, 0), [0]),
                     (lambda v: paddle.combinations(v, 4), [0, 4])]:
        assert paddle.jit(f)(x).shape == f(x).shape == shape
        assert paddle.jit(f)(x).dtype == paddle.float32
