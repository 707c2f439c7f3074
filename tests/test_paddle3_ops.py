"""Paddle 3's special functions, scatters, running extremes, NaN-skipping statistics, histograms, shifts, pdist and
renorm: Paddle 3.3.1's answers (recorded from paddlepaddle 3.3.1 on CPU), scipy's/numpy's, errors, and the
composites under grad, jit and vmap."""
import numpy as np
import pytest
import scipy.special as sp

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError, ShapeError

NAN = float("nan")


def test_bessel_functions_match_paddle_and_scipy():
    x = np.array([-30.0, -3.5, -0.1, 0.0, 0.5, 2.0, 19.9, 20.1, 50.0, 700.0])
    # Paddle 3.3.1, float64
    paddle_i0 = [781672297823.9775, 7.3782034322254795, 1.0025015629340956, 1.0, 1.0634833707413234,
                 2.279585302336067, 39513376.52006682, 48017874.1071365, 2.9325537838493355e+20,
                 1.5295933476718735e+302]
    paddle_i1e = [-0.07191633059864755, -0.18739997660304997, -0.045298446808809324, 0.0, 0.15642080318487173,
                  0.2152692892489377, 0.08771710213170608, 0.0872968518432016, 0.055993123892895395,
                  0.015070519444716846]
    np.testing.assert_allclose(paddle.i0(paddle.to_tensor(x)).numpy(), paddle_i0, rtol=1e-14)
    np.testing.assert_allclose(paddle.i1e(paddle.to_tensor(x)).numpy(), paddle_i1e, rtol=1e-14)
    for name in ("i0", "i0e", "i1", "i1e"):
        np.testing.assert_allclose(getattr(paddle, name)(paddle.to_tensor(x)).numpy(), getattr(sp, name)(x),
                                   rtol=1e-14)
        small = x[np.abs(x) < 60].astype(np.float32)
        got = getattr(paddle, name)(paddle.to_tensor(small))
        assert got.dtype == paddle.float32
        np.testing.assert_allclose(got.numpy(), getattr(sp, name)(small.astype(np.float64)), rtol=5e-7)
    assert paddle.i0(paddle.to_tensor([1, 2])).dtype == paddle.float32  # integers compute in float32, as Paddle


def test_gamma_family_matches_paddle():
    x = paddle.to_tensor([0.5, 3.0, -1.5], dtype="float64")
    np.testing.assert_allclose(paddle.gammaln(x).numpy(), [0.5723649429247001, 0.6931471805599453,
                                                           0.8600470153764809], rtol=1e-14)
    np.testing.assert_allclose(paddle.polygamma(x[:2], 2).numpy(), [-16.828796644234316, -0.15411380631918856],
                               rtol=1e-12)
    np.testing.assert_allclose(paddle.multigammaln(paddle.to_tensor([2.5, 3.0], dtype="float64"), 2).numpy(),
                               [0.8570478133976193, 1.5501949939575645], rtol=1e-14)


def test_derivatives_of_the_special_functions():
    x = paddle.to_tensor([-25.0, -3.0, 0.0, 0.7, 19.5, 21.0], dtype="float64")
    np.testing.assert_allclose(paddle.grad(lambda v: paddle.i0(v).sum())(x).numpy(), sp.i1(x.numpy()), rtol=1e-12)
    # d/dx i0e = i1e - sign(x) i0e
    want = sp.i1e(x.numpy()) - np.sign(x.numpy()) * sp.i0e(x.numpy())
    np.testing.assert_allclose(paddle.grad(lambda v: paddle.i0e(v).sum())(x).numpy(), want, rtol=1e-10, atol=1e-15)
    y = paddle.to_tensor([2.5, 4.0], dtype="float64")
    np.testing.assert_allclose(paddle.grad(lambda v: paddle.multigammaln(v, 3).sum())(y).numpy(),
                               sum(sp.digamma(y.numpy() - j / 2) for j in range(3)), rtol=1e-12)
    np.testing.assert_allclose(paddle.jit(paddle.i1)(x).numpy(), sp.i1(x.numpy()), rtol=1e-13)
    np.testing.assert_allclose(paddle.vmap(paddle.i0e)(x).numpy(), sp.i0e(x.numpy()), rtol=1e-14)


SRC = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]
INDEX = [[0, 1, 0, 1], [2, 2, 0, 1]]
# Paddle 3.3.1: scatter_reduce(ones([3, 4]), 0, INDEX, SRC, reduce, include_self=...)
SCATTER_REDUCE = {
    ("sum", True): [[2, 1, 11, 1], [1, 3, 1, 13], [6, 7, 1, 1]],
    ("sum", False): [[1, 1, 10, 1], [1, 2, 1, 12], [5, 6, 1, 1]],
    ("prod", True): [[1, 1, 21, 1], [1, 2, 1, 32], [5, 6, 1, 1]],
    ("mean", True): [[1, 1, 11 / 3, 1], [1, 1.5, 1, 13 / 3], [3, 3.5, 1, 1]],
    ("mean", False): [[1, 1, 5, 1], [1, 2, 1, 6], [5, 6, 1, 1]],
    ("amin", True): [[1] * 4] * 3,
    ("amin", False): [[1, 1, 3, 1], [1, 2, 1, 4], [5, 6, 1, 1]],
    ("amax", False): [[1, 1, 7, 1], [1, 2, 1, 8], [5, 6, 1, 1]],
}


@pytest.mark.parametrize("reduce, include_self", sorted(SCATTER_REDUCE))
def test_scatter_reduce_gives_paddles_answers(reduce, include_self):
    got = paddle.scatter_reduce(paddle.ones([3, 4]), 0, paddle.to_tensor(INDEX), paddle.to_tensor(SRC), reduce,
                                include_self=include_self)
    np.testing.assert_allclose(got.numpy(), SCATTER_REDUCE[reduce, include_self], rtol=1e-6)


def test_scatters_give_paddles_answers():
    x = paddle.zeros([3, 4])
    rows, cols, vals = paddle.to_tensor([0, 2, 0]), paddle.to_tensor([1, 3, 1]), paddle.to_tensor([1.0, 2.0, 3.0])
    assert paddle.index_put(x, (rows, cols), vals).tolist() == [[0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]
    assert paddle.index_put(x, (rows, cols), vals, accumulate=True).tolist() == \
        [[0, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]
    mask = paddle.to_tensor([[True, False, False, True], [False] * 4, [True] * 4])
    assert paddle.index_put(x, (mask,), paddle.to_tensor(7.0)).tolist() == [[7, 0, 0, 7], [0] * 4, [7] * 4]
    m = paddle.to_tensor([[True, False, True, False]] * 3)
    assert paddle.masked_scatter(x, m, paddle.arange(20).astype("float32")).tolist() == \
        [[0, 0, 1, 0], [2, 0, 3, 0], [4, 0, 5, 0]]
    assert paddle.select_scatter(x, paddle.ones([4]), 0, 1).tolist() == [[0] * 4, [1] * 4, [0] * 4]
    assert paddle.slice_scatter(x, paddle.ones([3, 2]), [1], [0], [4], [2]).tolist() == [[1, 0, 1, 0]] * 3
    assert paddle.slice_scatter(x, paddle.ones([3, 1]), [1], [0], [4], [2]).tolist() == [[1, 0, 1, 0]] * 3
    assert paddle.diagonal_scatter(x, paddle.ones([3]), 1).tolist() == [[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    assert paddle.scatter_add(paddle.ones([3, 4]), 1, paddle.to_tensor([[0, 0]]),
                              paddle.to_tensor([[5.0, 6.0]])).tolist()[0] == [12, 1, 1, 1]


def test_scatters_under_grad_jit_and_vmap():
    src = paddle.to_tensor(np.array(SRC) * 0.5 + 0.25)
    index = paddle.to_tensor(INDEX)

    def f(x, s):
        return (paddle.scatter_reduce(x, 0, index, s, "prod") * paddle.scatter_reduce(x, 0, index, s, "amax")).sum()

    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4) / 7 + 0.5)
    gx, gs = paddle.grad(f, argnums=(0, 1))(x, src)
    eps = 1e-6
    for arr, g, argnum in ((x, gx, 0), (src, gs, 1)):
        for pos in [(0, 2), (1, 3), (2, 1)] if argnum == 0 else [(0, 2), (1, 2), (1, 0)]:
            bump = np.zeros(arr.shape)
            bump[pos] = eps
            args = [x, src]
            up, down = list(args), list(args)
            up[argnum], down[argnum] = arr + paddle.to_tensor(bump), arr - paddle.to_tensor(bump)
            fd = (f(*up).item() - f(*down).item()) / (2 * eps)
            assert abs(g.numpy()[pos] - fd) < 1e-6 * max(1, abs(fd))
    np.testing.assert_allclose(paddle.jit(f)(x, src).numpy(), f(x, src).numpy(), rtol=1e-12)
    batch = paddle.stack([x, x * 2])
    np.testing.assert_allclose(paddle.vmap(f, in_axes=(0, None))(batch, src).numpy(),
                               [f(x, src).item(), f(x * 2, src).item()], rtol=1e-12)
    masked = paddle.jit(lambda v, m: paddle.masked_scatter(v, m, paddle.arange(20).astype("float32")))
    m = paddle.to_tensor([[True, False, True, False]] * 3)
    assert masked(paddle.zeros([3, 4]), m).tolist() == [[0, 0, 1, 0], [2, 0, 3, 0], [4, 0, 5, 0]]


def test_running_extremes_give_paddles_answers_and_gradient():
    x = paddle.to_tensor([[1.0, 3.0, 2.0], [0.0, 5.0, 4.0]])
    values, indices = paddle.cummax(x, axis=1)
    assert values.tolist() == [[1, 3, 3], [0, 5, 5]] and indices.tolist() == [[0, 1, 1], [0, 1, 1]]
    assert indices.dtype == paddle.int64
    values, indices = paddle.cummin(x)  # axis None: the flattened input
    assert values.tolist() == [1, 1, 1, 0, 0, 0] and indices.tolist() == [0, 0, 0, 3, 3, 3]
    assert paddle.cummax(paddle.to_tensor([1.0, 1.0, 0.0, 1.0]))[1].tolist() == [0, 1, 1, 3]  # ties: the last
    # Paddle 3.3.1's gradient of cummax(x, axis=1)[0].sum()
    assert paddle.grad(lambda v: paddle.cummax(v, axis=1)[0].sum())(x).tolist() == [[1, 2, 0], [1, 2, 0]]
    assert paddle.cummin(x, axis=0, dtype="int32")[1].dtype == paddle.int32
    jitted = paddle.jit(lambda v: paddle.cummax(v, axis=1))(x)
    assert jitted[0].tolist() == [[1, 3, 3], [0, 5, 5]] and jitted[1].tolist() == [[0, 1, 1], [0, 1, 1]]


def test_nan_statistics_give_paddles_answers():
    x = paddle.to_tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, NAN, 7.0]])
    np.testing.assert_array_equal(paddle.nanmedian(x, axis=1).numpy(), [2.0, NAN, 4.0])
    assert paddle.nanmedian(x).item() == 2.5 and paddle.nanmedian(x, axis=[0, 1]).item() == 2.5
    values, indices = paddle.nanmedian(x, axis=0, mode="min")
    assert values.tolist() == [1, 1, 3, 2] and indices.tolist() == [0, 2, 0, 0]
    assert paddle.nanmedian(x, axis=1, mode="min")[1].tolist() == [3, -1, 0]
    assert paddle.nanmedian(paddle.to_tensor([1, 5, 2])).dtype == paddle.int64
    np.testing.assert_allclose(paddle.nanquantile(x, 0.3, axis=1).numpy(), [1.6, NAN, 2.8], rtol=1e-6)
    assert paddle.nanquantile(x, [0.25, 0.5]).tolist() == [1.25, 2.5]
    np.testing.assert_array_equal(paddle.nanquantile(x, 0.3, axis=1, interpolation="lower").numpy(), [1, NAN, 1])
    assert paddle.nanquantile(paddle.to_tensor([0.0, 1, 2, 3, 4, 5]), [0.5, 0.3],
                              interpolation="nearest").tolist() == [2.0, 2.0]
    # Paddle 3.3.1: the gradient of an even count's median splits between the two middle values
    g = paddle.grad(lambda v: paddle.nanmedian(v))(paddle.to_tensor([1.0, NAN, 3.0, 2.0, 5.0]))
    assert g.tolist() == [0, 0, 0.5, 0.5, 0]
    np.testing.assert_array_equal(paddle.jit(lambda v: paddle.nanmedian(v, axis=1))(x).numpy(), [2.0, NAN, 4.0])


def test_histograms_shifts_pdist_and_renorm_give_paddles_answers():
    assert paddle.histogram_bin_edges(paddle.to_tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == \
        [0.0, 0.75, 1.5, 2.25, 3.0]
    assert paddle.histogram_bin_edges(paddle.to_tensor([1.0, 2.0, 1.0]), bins=4).tolist() == \
        [1.0, 1.25, 1.5, 1.75, 2.0]
    hist, edges = paddle.histogramdd(paddle.to_tensor([[0.0, 1], [1, 0], [2, 0], [2, 2]]), bins=[3, 3])
    assert hist.tolist() == [[0, 1, 0], [1, 0, 0], [1, 0, 1]]
    np.testing.assert_allclose(edges[1].numpy(), [0, 2 / 3, 4 / 3, 2], rtol=1e-6)
    hist, edges = paddle.histogramdd(paddle.to_tensor([[0.0, 0], [1, 1], [2, 2]]), bins=2, ranges=[0, 1, 0, 1],
                                     weights=paddle.to_tensor([2.0, 3, 4]), density=True)
    np.testing.assert_allclose(hist.numpy(), [[1.6, 0], [0, 2.4]], rtol=1e-6)
    points = np.random.default_rng(0).normal(size=(50, 3))
    want, _ = np.histogramdd(points, bins=4)
    got = paddle.jit(lambda p: paddle.histogramdd(p, bins=4)[0])(paddle.to_tensor(points))
    np.testing.assert_array_equal(got.numpy(), want)
    assert paddle.bitwise_left_shift(paddle.to_tensor([1, -8], dtype="int32"),
                                     paddle.to_tensor([2, 1], dtype="int32")).tolist() == [4, -16]
    x8, one = paddle.to_tensor([-8, 8], dtype="int32"), paddle.to_tensor([1, 1], dtype="int32")
    assert paddle.bitwise_right_shift(x8, one).tolist() == [-4, 4]
    assert paddle.bitwise_right_shift(x8, one, is_arithmetic=False).tolist() == [2147483644, 4]
    assert paddle.bitwise_right_shift(paddle.to_tensor([200], dtype="uint8"), paddle.to_tensor([1], dtype="uint8"),
                                      is_arithmetic=False).tolist() == [100]
    pts = paddle.to_tensor([[0.0, 0], [3, 4], [1, 1]])
    np.testing.assert_allclose(paddle.pdist(pts).numpy(), [5.0, 1.4142135381698608, 3.605551242828369], rtol=1e-6)
    assert paddle.pdist(pts, p=1).tolist() == [7, 2, 5] and paddle.pdist(pts, p=float("inf")).tolist() == [4, 1, 3]
    np.testing.assert_allclose(paddle.renorm(paddle.to_tensor([[1.0, 2], [3, 4]]), 2, 0, 3).numpy(),
                               [[1.0, 2.0], [1.8000000715255737, 2.4000000953674316]], rtol=1e-7)
    np.testing.assert_allclose(paddle.renorm(paddle.to_tensor([[1.0, 2], [3, 4]]), 1, 1, 4).numpy(),
                               [[1.0, 1.3333333730697632], [3.0, 2.6666667461395264]], rtol=1e-6)
    g = paddle.grad(lambda p: paddle.pdist(p).sum())(pts)  # finite: the zero self-distances are never formed
    assert np.isfinite(g.numpy()).all()


def test_methods_and_inplace_forms():
    x = paddle.to_tensor([[1.0, 3.0, 2.0]])
    assert x.cummax(axis=1)[0].tolist() == [[1, 3, 3]] and x.i0().shape == [1, 3]
    y = paddle.to_tensor([0.5, 3.0])
    paddle.gammaln_(y)
    np.testing.assert_allclose(y.numpy(), [0.5723649, 0.6931472], rtol=1e-6)
    z = paddle.zeros([2, 2])
    z.index_put_((paddle.to_tensor([1]), paddle.to_tensor([0])), paddle.to_tensor([5.0]))
    assert z.tolist() == [[0, 0], [5, 0]]


def test_errors():
    with pytest.raises(ValueError, match="scatter_reduce: reduce must be one of"):
        paddle.scatter_reduce(paddle.ones([2]), 0, paddle.to_tensor([0]), paddle.ones([1]), "max")
    with pytest.raises(ShapeError, match="scatter_reduce: index .* must have the rank of input"):
        paddle.scatter_reduce(paddle.ones([2, 2]), 0, paddle.to_tensor([0]), paddle.ones([1]), "sum")
    with pytest.raises(DTypeError, match="scatter_reduce: index must be an integer Tensor"):
        paddle.scatter_reduce(paddle.ones([2]), 0, paddle.to_tensor([0.0]), paddle.ones([1]), "sum")
    with pytest.raises(ShapeError, match="masked_scatter: mask has 3 True positions but value has only 2"):
        paddle.masked_scatter(paddle.zeros([3]), paddle.to_tensor([True] * 3), paddle.ones([2]))
    with pytest.raises(ShapeError, match=r"select_scatter: values must have shape \[3\]"):
        paddle.select_scatter(paddle.zeros([2, 3]), paddle.ones([2]), 0, 0)
    with pytest.raises(ValueError, match="nanmedian: mode must be 'avg' or 'min'"):
        paddle.nanmedian(paddle.ones([2]), mode="max")
    with pytest.raises(ValueError, match=r"nanquantile: q must lie in \[0, 1\]"):
        paddle.nanquantile(paddle.ones([2]), 1.5)
    with pytest.raises(DTypeError, match="bitwise_left_shift: expected integer Tensors, got float32"):
        paddle.bitwise_left_shift(paddle.ones([1]), paddle.ones([1]))
    with pytest.raises(ValueError, match="polygamma: the order n must be a non-negative int"):
        paddle.polygamma(paddle.ones([1]), -1)
    with pytest.raises(DTypeError, match="cummax: dtype must be int32 or int64"):
        paddle.cummax(paddle.ones([2]), dtype="float32")


def test_quantile_takes_paddle3s_axes_interpolation_and_nans():
    y = paddle.arange(0, 8, dtype="float32").reshape([4, 2])
    assert paddle.quantile(y, q=0.5, axis=[0, 1]).item() == 3.5  # Paddle 3.3.1's answers
    assert paddle.quantile(y, q=0.5, axis=1).tolist() == [0.5, 2.5, 4.5, 6.5]
    np.testing.assert_allclose(paddle.quantile(y, q=[0.3, 0.5], axis=0).numpy(), [[1.8, 2.8], [3.0, 4.0]], rtol=1e-6)
    y[0, 0] = NAN
    np.testing.assert_allclose(paddle.quantile(y, q=0.8, axis=1, keepdim=True).numpy(), [[NAN], [2.8], [4.8], [6.8]],
                               rtol=1e-6)
    assert paddle.quantile(paddle.to_tensor([0.0, 1.0, 2.0, 3.0]), 0.5, interpolation="higher").item() == 2.0


def test_median_min_mode_and_the_tie_rule():
    x = paddle.to_tensor([[1.0, 5, 2, 8], [3, 3, 9, 0]])
    values, indices = paddle.median(x, axis=1, mode="min")  # Paddle 3.3.1: the last position on ties
    assert values.tolist() == [2.0, 3.0] and indices.tolist() == [2, 1]
    assert paddle.median(paddle.to_tensor([3.0, 1, 3, 3]), axis=0, mode="min")[1].item() == 3
    values, indices = paddle.median(paddle.to_tensor([[3.0, 3, 9, NAN]]), axis=1, mode="min")
    assert np.isnan(values.item()) and indices.tolist() == [3]
    assert paddle.median(paddle.to_tensor([[1, 5, 2, 8]]), axis=1, mode="min")[0].dtype == paddle.int64
    assert paddle.median(x, mode="min").item() == 3.0
    assert paddle.nanmedian(paddle.to_tensor([[3.0, 3, 9, 0], [3, 1, 3, 3]]), axis=1, mode="min")[1].tolist() == [1, 3]
    with pytest.raises(ValueError, match="median: mode must be 'avg' or 'min'"):
        paddle.median(x, mode="max")


def test_out_dtype_and_device_keywords_of_paddle_3_3():
    out = paddle.zeros([5], dtype="int64")
    held = out.snapshot()
    assert paddle.linspace(0, 1, 5, out=out) is out
    np.testing.assert_allclose(out.numpy(), [0.0, 0.25, 0.5, 0.75, 1.0])
    assert held.dtype == paddle.int64  # values are never written: the old value is intact
    assert not paddle.linspace(0, 1, 3, requires_grad=True, device="cpu").stop_gradient
    assert paddle.mean(paddle.to_tensor([1, 2, 4]), dtype="float64").item() == 7 / 3
    m = paddle.zeros([])
    assert paddle.mean(paddle.to_tensor([1.0, 3.0]), out=m) is m and m.item() == 2.0
    s = paddle.zeros([2, 2])
    assert paddle.msort(paddle.to_tensor([[3, 1], [1, 2]]), out=s) is s and s.tolist() == [[1, 1], [3, 2]]
    with pytest.raises(TypeError, match="out must be a Tensor"):
        paddle.mean(paddle.to_tensor([1.0]), out=np.zeros(()))
