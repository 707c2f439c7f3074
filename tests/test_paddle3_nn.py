"""Paddle 3's nn additions: the margin and likelihood losses, fold, lp pooling, max pooling's mask with max
unpooling, affine_grid/grid_sample, swiglu, rrelu, gumbel_softmax, the channel dropouts, the in-place activations and
their layers, ParameterDict. Expected values are paddlepaddle 3.3.1's (recorded on CPU, float32)."""
import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn import random
from paddle_fn.core.errors import ShapeError

A = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]
P = [[1.5, 2.0, 2.0], [0.0, -1.0, 1.0]]
N = [[0.0, 1.0, 3.0], [3.0, 1.0, -2.0]]
SCORES = [[0.1, 0.2, 0.4, 0.8], [0.3, -0.2, 0.5, 0.1]]


def _t(v):
    return paddle.to_tensor(v)


def test_losses_give_paddles_answers():
    a, p, n = _t(A), _t(P), _t(N)
    close = dict(rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(F.triplet_margin_loss(a, p, n, reduction="none").numpy(), [0.7038193941116333, 0],
                               **close)
    np.testing.assert_allclose(F.triplet_margin_loss(a, p, n, p=1, swap=True, margin=3).numpy(), 1.2499990463256836,
                               **close)
    cosine = lambda x, y: 1 - F.cosine_similarity(x, y)  # noqa: E731
    np.testing.assert_allclose(F.triplet_margin_with_distance_loss(a, p, n, distance_function=cosine, swap=True,
                                                                   reduction="none").numpy(), [0.9696682095527649, 0],
                               **close)
    labels = _t([1, -1])
    np.testing.assert_allclose(F.cosine_embedding_loss(a, p, labels).numpy(), 0.48290935158729553, **close)
    np.testing.assert_allclose(F.cosine_embedding_loss(a, n, labels, margin=0.5, reduction="none").numpy(),
                               [0.07033038139343262, 0.0], **close)
    np.testing.assert_allclose(F.soft_margin_loss(a, _t([[1.0, -1, 1], [-1, 1, 1]])).numpy(), 0.817173957824707,
                               **close)
    scores, classes = _t(SCORES), _t([3, 0])
    np.testing.assert_allclose(F.multi_margin_loss(scores, classes).numpy(), 0.4749999940395355, **close)
    np.testing.assert_allclose(F.multi_margin_loss(scores, classes, p=2, margin=0.7, weight=_t([1.0, 2, 3, 4]),
                                                   reduction="none").numpy(), [0.09999996423721313, 0.2749999761581421],
                               **close)
    np.testing.assert_allclose(F.multi_label_margin_loss(scores, _t([[3, 0, -1, 1], [1, 2, -1, 0]]),
                                                         reduction="none").numpy(), [0.85, 1.05], **close)
    np.testing.assert_allclose(F.multi_label_soft_margin_loss(scores, _t([[1.0, 0, 1, 0], [0, 1, 1, 1]]),
                                                              weight=_t([1.0, 2, 3, 4]), reduction="none").numpy(),
                               [2.116030693054199, 1.6126127243041992], **close)
    variance = _t([[0.5, 1, 2], [1, 0.1, 3]])
    np.testing.assert_allclose(F.gaussian_nll_loss(a, p, variance).numpy(), 0.03161337971687317, rtol=2e-5)
    np.testing.assert_allclose(F.gaussian_nll_loss(a, p, _t([[0.5], [1.0]]), reduction="sum").numpy(),
                               0.8352792263031006, **close)
    counts = _t([[1.0, 0, 3], [2, 1, 0]])
    np.testing.assert_allclose(F.poisson_nll_loss(a, counts).numpy(), 4.933088779449463, **close)
    np.testing.assert_allclose(F.poisson_nll_loss(paddle.abs(a), counts, log_input=False, full=True,
                                                  reduction="none").numpy(),
                               [[1.0, 2.0, 1.4682446718215942], [2.5381007194519043, 1.0, 2.0]], **close)
    assert paddle.nn.TripletMarginLoss(reduction="sum")(a, p, n).shape == []
    np.testing.assert_allclose(paddle.nn.MultiMarginLoss()(scores, classes).numpy(), 0.475, rtol=1e-6)


def test_loss_gradients_and_jit():
    a, p, n = (_t(np.array(v, np.float64)) for v in (A, P, N))
    g = paddle.grad(lambda x: F.triplet_margin_loss(x, p, n, reduction="sum"))(a)
    d_pos = a.numpy()[0] - p.numpy()[0] + 1e-6
    d_neg = a.numpy()[0] - n.numpy()[0] + 1e-6
    np.testing.assert_allclose(g.numpy()[0], d_pos / np.linalg.norm(d_pos) - d_neg / np.linalg.norm(d_neg),
                               rtol=1e-9)
    assert g.numpy()[1].tolist() == [0, 0, 0]  # the second triplet is inside the margin
    scores = _t(np.array(SCORES))
    for fn in (lambda s: F.multi_label_margin_loss(s, _t([[3, 0, -1, 1], [1, 2, -1, 0]])),
               lambda s: F.multi_margin_loss(s, _t([3, 0]), p=2)):
        np.testing.assert_allclose(paddle.jit(fn)(scores).numpy(), fn(scores).numpy(), rtol=1e-12)


def test_fold_pooling_and_unpooling_give_paddles_answers():
    x = _t(np.array([[[[1.0, 5, 2, 2], [3, 5, 0, 1], [7, 2, 2, 2], [0, 1, 9, 9]]]], np.float32))
    values, mask = F.max_pool2d(x, 2, return_mask=True)
    assert values.tolist() == [[[[5, 2], [7, 9]]]] and mask.tolist() == [[[[1, 2], [8, 14]]]]
    assert mask.dtype == paddle.int32
    _, mask = F.max_pool2d(x, 3, stride=1, padding=1, return_mask=True)
    assert mask.tolist() == [[[[1, 1, 1, 2], [8, 8, 1, 2], [8, 14, 14, 14], [8, 14, 14, 14]]]]
    values, mask = F.max_pool2d(x, 2, return_mask=True)
    assert F.max_unpool2d(values, mask, 2).tolist() == [[[[0, 5, 2, 0], [0, 0, 0, 0], [7, 0, 0, 0], [0, 0, 9, 0]]]]
    assert F.max_unpool2d(values, mask, 2, output_size=[5, 5]).shape == [1, 1, 5, 5]
    v1, m1 = F.max_pool1d(_t([[[1.0, 3, 2, 5, 4, 0]]]), 2, return_mask=True)
    assert m1.tolist() == [[[1, 3, 4]]] and F.max_unpool1d(v1, m1, 2).tolist() == [[[0, 3, 0, 5, 4, 0]]]
    np.testing.assert_allclose(F.lp_pool2d(x, 2, 2).numpy(), [[[[7.745966911315918, 3.0],
                                                                [7.348469257354736, 13.03840446472168]]]], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool2d(x, 3, 3, stride=1, padding=1).numpy()[0, 0, 0],
                               [6.526519298553467, 6.588532447814941, 6.439277172088623, 2.571281671524048],
                               rtol=1e-6)
    assert F.lp_pool1d(_t([[[1.0, 3, 2, 5, 4]]]), 1, 2, ceil_mode=True).tolist() == [[[4, 7, 4]]]
    assert F.fold(paddle.arange(32, dtype="float32").reshape([1, 8, 4]), [3, 3], 2).tolist() == \
        [[[[0, 5, 5], [10, 30, 20], [10, 25, 15]], [[16, 37, 21], [42, 94, 52], [26, 57, 31]]]]
    cols = paddle.to_tensor(np.random.default_rng(0).normal(size=(2, 12, 12)))
    image = paddle.to_tensor(np.random.default_rng(1).normal(size=(2, 3, 4, 5)))
    # fold is unfold's adjoint: <unfold(image), cols> == <image, fold(cols)>
    lhs = (F.unfold(image, [2, 2], strides=[2, 1], paddings=[1, 0]) * cols).sum().item()
    rhs = (image * F.fold(cols, [4, 5], [2, 2], strides=[2, 1], paddings=[1, 0])).sum().item()
    assert abs(lhs - rhs) < 1e-10 * max(1, abs(lhs))
    assert paddle.nn.Fold([4, 4], 2)(paddle.ones([1, 4, 9])).shape == [1, 1, 4, 4]
    v, mk = paddle.nn.MaxPool2D(2, return_mask=True)(x)
    assert paddle.nn.MaxUnPool2D(2)(v, mk).tolist() == F.max_unpool2d(values, mask, 2).tolist()


GRID = [[[[-1.0, -1], [1, 1], [0.3, -0.2]], [[1.2, 0.5], [-1.5, 0.9], [0, 0]]]]
# paddlepaddle 3.3.1: grid_sample(arange(12).reshape([1, 1, 3, 4]), GRID, mode, padding_mode, align_corners)
GRID_SAMPLE = {
    ("bilinear", "zeros", True): [0.0, 11.0, 5.150000095367432, 6.2999982833862305, 1.899999976158142, 5.5],
    ("bilinear", "zeros", False): [0.0, 2.75, 4.90000057220459, 0.9999990463256836, 0.0, 5.5],
    ("bilinear", "border", True): [0.0, 11.0, 5.150000095367432, 9.0, 7.599999904632568, 5.5],
    ("bilinear", "border", False): [0.0, 11.0, 4.90000057220459, 10.0, 8.0, 5.5],
    ("bilinear", "reflection", True): [0.0, 11.0, 5.150000095367432, 8.699999809265137, 8.350000381469727, 5.5],
    ("bilinear", "reflection", False): [0.0, 11.0, 4.90000057220459, 10.0, 8.5, 5.5],
    ("nearest", "zeros", True): [0.0, 11.0, 6.0, 11.0, 0.0, 6.0],
    ("nearest", "zeros", False): [0.0, 0.0, 6.0, 0.0, 0.0, 6.0],
    ("nearest", "border", False): [0.0, 11.0, 6.0, 11.0, 8.0, 6.0],
    ("nearest", "reflection", True): [0.0, 11.0, 6.0, 11.0, 9.0, 6.0],
}


@pytest.mark.parametrize("mode, padding_mode, align_corners", sorted(GRID_SAMPLE))
def test_grid_sample_gives_paddles_answers(mode, padding_mode, align_corners):
    x = paddle.arange(12, dtype="float32").reshape([1, 1, 3, 4])
    got = F.grid_sample(x, _t(GRID), mode=mode, padding_mode=padding_mode, align_corners=align_corners)
    np.testing.assert_allclose(got.numpy().reshape(-1), GRID_SAMPLE[mode, padding_mode, align_corners], rtol=2e-6,
                               atol=2e-6)


def test_affine_grid_and_sampling_gradients():
    theta = _t([[[1.0, 0.2, 0.1], [-0.3, 0.9, 0.0]]])
    np.testing.assert_allclose(F.affine_grid(theta, [1, 1, 2, 3]).numpy().reshape(-1),
                               [-1.1, -0.6, -0.1, -0.9, 0.9, -1.2, -0.7, 1.2, 0.3, 0.9, 1.3, 0.6], rtol=1e-6)
    np.testing.assert_allclose(F.affine_grid(theta, [1, 1, 2, 3], align_corners=False).numpy().reshape(-1)[:4],
                               [-0.6666666865348816, -0.2499999701976776, 0.0, -0.44999998807907104], rtol=1e-6)
    x = paddle.to_tensor(np.random.default_rng(0).normal(size=(2, 2, 4, 5)))
    th = paddle.to_tensor(np.array([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.1]], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]))

    def f(image, t):
        return (F.grid_sample(image, F.affine_grid(t, [2, 2, 3, 3], align_corners=False), align_corners=False,
                              padding_mode="border") ** 2).sum()

    g = paddle.grad(f, argnums=1)(x, th)
    bump = np.zeros((2, 2, 3))
    bump[0, 0, 1] = 1e-6
    fd = (f(x, th + paddle.to_tensor(bump)).item() - f(x, th - paddle.to_tensor(bump)).item()) / 2e-6
    assert abs(g.numpy()[0, 0, 1] - fd) < 1e-6 * max(1, abs(fd))
    np.testing.assert_allclose(paddle.jit(f)(x, th).numpy(), f(x, th).numpy(), rtol=1e-12)


def test_activations_dropouts_and_parameter_dict():
    a, p = _t(A), _t(P)
    np.testing.assert_allclose(F.swiglu(a, p).numpy(), [[1.096587896347046, 3.5231881141662598, 5.715445041656494],
                                                        [0.0, 0.2689414322376251, 1.7615940570831299]], rtol=1e-6)
    np.testing.assert_allclose(F.swiglu(_t([[1.0, 2, 3, 4]])).numpy(), [[2.193175792694092, 7.0463762283325195]],
                               rtol=1e-6)
    np.testing.assert_allclose(F.rrelu(a, training=False).numpy(), [[1, 2, 3], [0.5, -0.2291666716337204, 2]],
                               rtol=1e-7)
    slopes = F.rrelu(-paddle.ones([1000]), key=random.key(0)).numpy()
    assert -1 / 3 <= slopes.min() and slopes.max() <= -1 / 8 and slopes.std() > 0.05
    hard = F.gumbel_softmax(paddle.to_tensor(np.zeros((4, 5))), hard=True, axis=0, key=random.key(1))
    assert hard.sum(axis=0).tolist() == [1.0] * 5
    g = paddle.grad(lambda v: (F.gumbel_softmax(v, temperature=0.5, key=random.key(2)) * paddle.arange(3.0)).sum())(
        paddle.to_tensor([[0.1, 0.2, 0.3]]))
    assert abs(g.numpy().sum()) < 1e-6  # a softmax's gradient sums to zero along its axis
    x = paddle.ones([2, 3, 4])
    kept = F.dropout1d(x, 0.5, key=random.key(3)).numpy()
    assert set(kept.reshape(-1).tolist()) <= {0.0, 2.0} and (kept == kept[:, :, :1]).all()
    dropped = F.feature_alpha_dropout(paddle.ones([2, 6, 5]), 0.5, key=random.key(4)).numpy()
    assert (dropped == dropped[:, :, :1]).all() and len(set(dropped.reshape(-1).round(5))) == 2
    y = paddle.to_tensor([-1.0, 2.0])
    assert F.relu_(y) is y and y.tolist() == [0.0, 2.0]
    params = paddle.nn.ParameterDict({"w": paddle.nn.Parameter(paddle.ones([2]))})
    params["b"] = paddle.nn.Parameter(paddle.zeros([1]))
    assert list(params) == ["w", "b"] and len(params.parameters()) == 2
    assert paddle.nn.RReLU().eval()(paddle.to_tensor([-1.0])).numpy()[0] == np.float32(-(1 / 8 + 1 / 3) / 2)


def test_errors():
    with pytest.raises(ShapeError, match="fold: expected"):
        F.fold(paddle.ones([1, 8, 9]), [4, 4], 2, strides=1, paddings=[1, 0])
    with pytest.raises(ValueError, match="grid_sample: padding_mode must be"):
        F.grid_sample(paddle.ones([1, 1, 2, 2]), paddle.zeros([1, 1, 1, 2]), padding_mode="wrap")
    with pytest.raises(ShapeError, match="swiglu: with y None"):
        F.swiglu(paddle.ones([3]))
    with pytest.raises(ValueError, match="multi_margin_loss: p must be 1 or 2"):
        F.multi_margin_loss(paddle.ones([1, 2]), paddle.to_tensor([0]), p=3)
    with pytest.raises(ValueError, match="max_unpool2d: data_format must be 'NCHW'"):
        F.max_unpool2d(paddle.ones([1, 1, 1, 1]), paddle.zeros([1, 1, 1, 1], dtype="int32"), 2, data_format="NHWC")


def test_adaptive_max_mask_gelu_strings_and_inplace_silu():
    x = _t(np.array([[[[1.0, 5, 2, 2], [3, 5, 0, 1], [7, 2, 2, 2], [0, 1, 9, 9]]]], np.float32))
    values, mask = F.adaptive_max_pool2d(x, 2, return_mask=True)  # Paddle 3.3.1's answer
    assert values.tolist() == [[[[5, 2], [7, 9]]]] and mask.tolist() == [[[[1, 2], [8, 14]]]]
    assert F.adaptive_max_pool1d(_t([[[1.0, 3, 2, 5, 4]]]), 2, return_mask=True)[1].tolist() == [[[1, 3]]]
    v = _t([-1.0, 0.5])
    np.testing.assert_allclose(F.gelu(v, "none").numpy(), [-0.15865526, 0.34573123], rtol=1e-6)  # Paddle 3.3.1
    np.testing.assert_allclose(paddle.nn.GELU("tanh")(v).numpy(), [-0.15880796, 0.34571400], rtol=1e-6)
    with pytest.raises(ValueError, match="gelu: approximate must be a bool, 'none' or 'tanh'"):
        F.gelu(v, "exact")
    y = _t([1.0, 2.0])
    assert F.silu(y, True) is y
    np.testing.assert_allclose(y.numpy(), [0.7310586, 1.7615941], rtol=1e-6)
    z = _t([1.0])
    paddle.nn.SiLU(inplace=True)(z)
    np.testing.assert_allclose(z.numpy(), [0.7310586], rtol=1e-6)
