"""Paddle 3.3's nn additions: fractional max pooling, the hierarchical sigmoid, adaptive log-softmax, RNN-T and
n-pair losses, temporal_shift, flash_attn_qkvpacked, SpectralNorm, pad(pad_from_left_axis=), nll_loss's [N, 1]
labels. Expected values are paddlepaddle 3.3.1's (recorded on CPU, float32 unless said), the inputs drawn with
numpy's RandomState as in the recording scripts."""
import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn.core.errors import ConcretizationError, ShapeError

CLOSE = dict(rtol=2e-5, atol=2e-6)


def _t(v, dtype="float32", grad=False):
    return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


# ---------------------------------------------------------------------------------------- fractional pooling

def test_fractional_max_pool2d_picks_paddles_windows_and_routes_the_gradient_to_them():
    x = _t(np.random.RandomState(1).randn(1, 2, 7, 6), grad=True)
    out, mask = F.fractional_max_pool2d(x, output_size=[3, 4], random_u=0.4, return_mask=True)
    # paddle 3.3.1's mask (int32)
    want_mask = [[[[6, 8, 10, 11], [24, 14, 21, 29], [37, 38, 39, 35]],
                  [[1, 8, 4, 5], [25, 26, 15, 17], [31, 32, 40, 35]]]]
    assert mask.dtype == paddle.int32 and mask.numpy().tolist() == want_mask
    flat = x.numpy().reshape(2, -1)
    np.testing.assert_array_equal(out.numpy()[0], np.take_along_axis(flat, np.array(want_mask[0]).reshape(2, -1), 1)
                                  .reshape(2, 3, 4))
    weights = paddle.arange(24, dtype="float32").reshape([1, 2, 3, 4])
    (out * weights).sum().backward()
    grad = np.zeros((2, 42), np.float32)
    np.add.at(grad, (np.repeat([0, 1], 12), np.array(want_mask).reshape(-1)), np.arange(24, dtype=np.float32))
    np.testing.assert_array_equal(x.grad.numpy().reshape(2, -1), grad)
    # overlapping windows (kernel_size), paddle 3.3.1's values
    out = F.fractional_max_pool2d(x, output_size=[2, 4], kernel_size=[3, 2], random_u=0.7)
    np.testing.assert_allclose(out.numpy(), [[[[1.744811773300171, 1.1337693929672241, 1.4621078968048096,
                                                1.4621078968048096], [0.9008559584617615, 1.6598021984100342,
                                                                      0.7420441508293152, 0.5303554534912109]],
                                               [[1.6924545764923096, 0.9311020970344543, 0.9311020970344543,
                                                 2.100255250930786], [1.5198168754577637, 2.185575485229492,
                                                                      0.18656139075756073, 0.8279746174812317]]]])


def test_fractional_max_pool3d_matches_paddle():
    x = _t(np.random.RandomState(2).randn(1, 1, 5, 6, 7))
    out, mask = F.fractional_max_pool3d(x, output_size=[2, 3, 4], random_u=0.25, return_mask=True)
    want_mask = [[[[[43, 44, 11, 55], [14, 58, 17, 69], [35, 30, 31, 75]],
                   [[168, 170, 87, 180], [105, 100, 144, 195], [203, 156, 158, 118]]]]]
    assert mask.numpy().tolist() == want_mask
    np.testing.assert_array_equal(out.numpy().reshape(-1), x.numpy().reshape(-1)[np.array(want_mask).reshape(-1)])
    out = F.fractional_max_pool3d(x, output_size=3, kernel_size=2, random_u=0.6)
    np.testing.assert_allclose(out.numpy()[0, 0, 1], [[0.7519648671150208, 1.2178856134414673, 0.49794015288352966],
                                                      [2.5852949619293213, 3.27974534034729, 1.7925928831100464],
                                                      [0.938163697719574, 1.7418122291564941, 2.550438165664673]])


def test_fractional_max_pool_options_and_errors():
    x = paddle.ones([1, 1, 5, 5])
    assert F.fractional_max_pool2d(x, output_size=[2, None], random_u=0.5).shape == [1, 1, 2, 5]
    assert paddle.nn.FractionalMaxPool2D(2)(x).shape == [1, 1, 2, 2]  # a draw of the global RNG
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, output_size=2, random_u=1.5)
    with pytest.raises(ShapeError, match="kernel"):
        F.fractional_max_pool2d(x, output_size=5, kernel_size=2, random_u=0.5)
    with pytest.raises(ConcretizationError, match="random_u"):
        paddle.jit.to_static(lambda t: F.fractional_max_pool2d(t, output_size=2), full_graph=True)(x)
    compiled = paddle.jit.to_static(lambda t: F.fractional_max_pool2d(t, output_size=2, random_u=0.3))
    np.testing.assert_array_equal(compiled(x).numpy(), np.ones([1, 1, 2, 2], np.float32))


# ---------------------------------------------------------------------------------------- hierarchical losses

def _hsigmoid_inputs():
    rs = np.random.RandomState(0)
    return (_t(rs.randn(4, 3), grad=True), _t(rs.randn(5, 3), grad=True), _t(rs.randn(5, 1), grad=True),
            _t(rs.randn(6, 3)))


def test_hsigmoid_loss_default_tree_matches_paddle_with_its_gradient():
    np.testing.assert_allclose(F.hsigmoid_loss(_t([[1.0, 2.0]]), paddle.to_tensor([2]), 3,
                                               _t([[0.5, -0.5], [1.0, 0.0]])).numpy(), [[0.7873386144638062]],
                               rtol=1e-6)
    x, w, b, _ = _hsigmoid_inputs()
    out = F.hsigmoid_loss(x, paddle.to_tensor([0, 1, 4, 5]), 6, w, b)
    # the two short paths carry Paddle's log 2 per unused position
    np.testing.assert_allclose(out.numpy(), [[1.235986351966858], [0.9770054817199707], [3.9450268745422363],
                                             [1.620192289352417]], **CLOSE)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.028002649545669556, -0.28115299344062805, -0.8534390926361084],
                                                [-0.1753743588924408, 0.01203947700560093, 0.018976330757141113],
                                                [2.548011302947998, -1.5338108539581299, 0.3495236337184906],
                                                [-0.07224863767623901, 0.1750856339931488, 0.32912907004356384]],
                               **CLOSE)
    np.testing.assert_allclose(b.grad.numpy().reshape(-1), [0.9283586740493774, -0.3316650390625, 0.2616797685623169,
                                                            0.0, 0.702549159526825], **CLOSE)
    assert not w.grad.numpy()[3].any()  # node 3 is on no sample's path


def test_hsigmoid_loss_custom_tree_and_layer():
    x, _, _, w6 = _hsigmoid_inputs()
    table = paddle.to_tensor([[0, 1, -1], [0, 2, 3], [1, 4, -1], [2, -1, -1]])
    code = paddle.to_tensor([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 0]])
    out = F.hsigmoid_loss(x, paddle.to_tensor([0, 1, 4, 5]), 6, w6, path_table=table, path_code=code)
    np.testing.assert_allclose(out.numpy(), [[5.536069869995117], [9.197805404663086], [2.3182711601257324],
                                             [1.5498871803283691]], **CLOSE)
    layer = paddle.nn.HSigmoidLoss(3, 6)
    assert layer.weight.shape == [5, 3] and layer.bias.shape == [5, 1]
    assert paddle.nn.HSigmoidLoss(3, 6, is_custom=True).weight.shape == [6, 3]
    assert layer(x, paddle.to_tensor([0, 1, 4, 5])).shape == [4, 1]
    with pytest.raises(ValueError, match=r"label values must be in \[0, num_classes\)"):
        F.hsigmoid_loss(x, paddle.to_tensor([0, 1, 4, 6]), 6, w6[:5])


def test_adaptive_log_softmax_with_loss_matches_paddle():
    rs = np.random.RandomState(0)
    for shape in ((4, 3), (5, 3), (5, 1), (6, 3)):  # the hsigmoid draws come first in the recording script
        rs.randn(*shape)
    x, head = _t(rs.randn(5, 4), grad=True), _t(rs.randn(4, 4), grad=True)
    head_bias = _t(rs.randn(4))
    tails = [[_t(rs.randn(4, 2)), _t(rs.randn(2, 3))], [_t(rs.randn(4, 1)), _t(rs.randn(1, 2))]]
    out, loss = F.adaptive_log_softmax_with_loss(x, paddle.to_tensor([0, 3, 6, 1, 2]), head, tails, [2, 5, 7],
                                                 head_bias=head_bias)
    np.testing.assert_allclose(out.numpy(), [-1.3644177913665771, -5.867444038391113, -1.8504271507263184,
                                             -1.3219085931777954, -5.197218894958496], **CLOSE)
    np.testing.assert_allclose(loss.numpy(), 3.120283365249634, **CLOSE)
    loss.backward()
    np.testing.assert_allclose(head.grad.numpy()[0], [0.032674722373485565, -0.04658593609929085,
                                                      0.31813275814056396, -0.304221510887146], **CLOSE)
    np.testing.assert_allclose(x.grad.numpy()[1], [0.09606805443763733, 0.5666479468345642, 0.6369900703430176,
                                                   0.5991216897964478], **CLOSE)
    with pytest.raises(ValueError, match="label values"):
        F.adaptive_log_softmax_with_loss(x, paddle.to_tensor([0, 3, 7, 1, 2]), head, tails, [2, 5, 7])


def test_adaptive_log_softmax_layer_log_prob_and_predict_agree():
    paddle.seed(0)
    asfm = paddle.nn.AdaptiveLogSoftmaxWithLoss(4, 7, [2, 5], div_value=2.0, head_bias=True)
    assert [p.shape for p in asfm.parameters()] == [[4, 4], [4], [4, 2], [2, 3], [4, 1], [1, 2]]
    x = _t(np.random.RandomState(5).randn(6, 4))
    log_prob = asfm.log_prob(x)
    np.testing.assert_allclose(np.exp(log_prob.numpy()).sum(1), np.ones(6), rtol=1e-5)
    labels = paddle.to_tensor([0, 1, 2, 4, 5, 6])
    out, _ = asfm(x, labels)
    np.testing.assert_allclose(out.numpy(), log_prob.numpy()[np.arange(6), labels.numpy()], rtol=1e-5)
    assert asfm.predict(x).dtype == paddle.float32
    with pytest.raises(ValueError, match="cutoffs"):
        paddle.nn.AdaptiveLogSoftmaxWithLoss(4, 7, [5, 2])


# ---------------------------------------------------------------------------------------- RNN-T, n-pair

ACTS = [[[[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.6, 0.1, 0.1], [0.1, 0.1, 0.2, 0.8, 0.1]],
         [[0.1, 0.6, 0.1, 0.1, 0.1], [0.1, 0.1, 0.2, 0.1, 0.1], [0.7, 0.1, 0.2, 0.1, 0.1]]]]


@pytest.mark.parametrize("fastemit, label_grads", [(0.0, [-0.713617, -0.427234, -0.286383, -0.572766]),
                                                   (0.5, [-1.070425, -0.64085, -0.429575, -0.85915])])
def test_rnnt_loss_paddle_example_with_its_fastemit_gradient(fastemit, label_grads):
    acts = _t(ACTS, "float64", grad=True)
    ints = lambda v: paddle.to_tensor(v, dtype="int32")  # noqa: E731
    loss = F.rnnt_loss(acts, ints([[1, 2]]), ints([2]), ints([2]), reduction="sum", fastemit_lambda=fastemit)
    assert loss.dtype == paddle.float64
    np.testing.assert_allclose(loss.numpy(), -2.85042443558358, rtol=1e-12)
    loss.backward()
    g = acts.grad.numpy()[0]
    np.testing.assert_allclose([g[0, 0, 1], g[0, 1, 2], g[1, 0, 1], g[1, 1, 2]], label_grads, atol=2e-6)
    np.testing.assert_allclose([g[0, 0, 0], g[0, 1, 0], g[0, 2, 0], g[1, 2, 0]],
                               [-0.286383, -0.286383, -0.427234, -1.0], atol=2e-6)


def test_rnnt_loss_with_lengths_and_reductions():
    lp = np.log(np.random.RandomState(3).dirichlet(np.ones(4), size=(2, 4, 3)))
    acts = _t(lp, grad=True)
    args = (paddle.to_tensor([[1, 2], [3, 0]], dtype="int32"), paddle.to_tensor([4, 3], dtype="int32"),
            paddle.to_tensor([2, 1], dtype="int32"))
    np.testing.assert_allclose(F.rnnt_loss(acts, *args, reduction="none").numpy(),
                               [6.068654537200928, 5.238455295562744], **CLOSE)
    loss = paddle.nn.RNNTLoss(fastemit_lambda=0.1)(acts, *args)
    np.testing.assert_allclose(loss.numpy(), 5.653554916381836, **CLOSE)
    loss.backward()
    g = acts.grad.numpy()
    np.testing.assert_allclose(g[0, 2], [[-0.041013, -0.374277, 0, 0], [-0.016251, 0, -0.383515, 0],
                                         [-0.442735, 0, 0, 0]], atol=2e-6)
    np.testing.assert_allclose(g[1, 1], [[-0.011541, 0, 0, -0.288268], [-0.488459, 0, 0, 0], [0, 0, 0, 0]], atol=2e-6)
    assert not g[1, 3].any()  # past the sequence's frames
    compiled = paddle.jit.to_static(lambda a: F.rnnt_loss(a, *args, reduction="none"))
    np.testing.assert_allclose(compiled(acts).numpy(), [6.068654537200928, 5.238455295562744], **CLOSE)
    with pytest.raises(ShapeError, match="labels must be"):
        F.rnnt_loss(acts, paddle.to_tensor([[1, 2, 3]], dtype="int32"), *args[1:])


def test_npair_loss_matches_paddle_with_gradients():
    anchor = _t([[0.1, 0.5, -0.3], [0.7, -0.2, 0.4], [0.3, 0.3, 0.9], [-0.5, 0.2, 0.1]], grad=True)
    positive = _t([[0.2, 0.4, -0.1], [0.6, -0.3, 0.5], [0.1, 0.2, 0.8], [-0.4, 0.1, 0.3]], grad=True)
    loss = F.npair_loss(anchor, positive, _t([0.0, 1.0, 0.0, 2.0]), l2_reg=0.01)
    np.testing.assert_allclose(loss.numpy(), 1.2042139768600464, **CLOSE)
    loss.backward()
    np.testing.assert_allclose(anchor.grad.numpy()[3], [0.11340050399303436, 0.006715191062539816,
                                                        0.018273672088980675], **CLOSE)
    np.testing.assert_allclose(positive.grad.numpy()[1], [-0.10535960644483566, 0.08582239598035812,
                                                          -0.010763704776763916], **CLOSE)
    np.testing.assert_allclose(F.npair_loss(anchor, positive, paddle.to_tensor([3, 1, 2, 0])).numpy(),
                               1.0646189451217651, **CLOSE)


# ---------------------------------------------------------------------------------------- shifts, attention, pad

def test_temporal_shift_matches_paddle():
    x = paddle.arange(48, dtype="float32").reshape([6, 8, 1, 1])
    assert F.temporal_shift(x, seg_num=3).reshape([6, 8]).numpy().astype(int).tolist() == [
        [0, 0, 10, 11, 4, 5, 6, 7], [0, 1, 18, 19, 12, 13, 14, 15], [8, 9, 0, 0, 20, 21, 22, 23],
        [0, 0, 34, 35, 28, 29, 30, 31], [24, 25, 42, 43, 36, 37, 38, 39], [32, 33, 0, 0, 44, 45, 46, 47]]
    x = paddle.arange(30, dtype="float32").reshape([6, 1, 1, 5])
    out = F.temporal_shift(x, seg_num=3, shift_ratio=0.2, data_format="NHWC")
    assert out.reshape([6, 5]).numpy().astype(int).tolist() == [
        [0, 6, 2, 3, 4], [0, 11, 7, 8, 9], [5, 0, 12, 13, 14], [0, 21, 17, 18, 19], [15, 26, 22, 23, 24],
        [20, 0, 27, 28, 29]]
    with pytest.raises(ShapeError, match="multiple of seg_num"):
        F.temporal_shift(paddle.ones([5, 4, 1, 1]), seg_num=3)


def test_flash_attn_qkvpacked_is_paddles_cpu_math_attention():
    q = _t(np.random.RandomState(4).randn(1, 3, 2, 4))
    out, weights = F.flash_attn_qkvpacked(paddle.stack([q, q * 0.5, q + 1], axis=2), causal=True)
    assert weights is None
    np.testing.assert_allclose(out.numpy()[0, 1], [[1.242669, 0.37643, 1.10521, 1.160569],
                                                   [1.081406, 0.551165, 0.05064, 1.451883]], atol=2e-6)
    np.testing.assert_allclose(out.numpy()[0, 0], q.numpy()[0, 0] + 1, rtol=1e-6)  # causal: itself only
    _, weights = F.flash_attn_qkvpacked(paddle.stack([q, q, q], axis=2), return_softmax=True, training=False)
    assert weights.shape == [1, 2, 3, 3]


def test_pad_orders_of_paddle_3_3():
    x = paddle.arange(6, dtype="float32").reshape([1, 2, 3])
    assert F.pad(x, [1, 0, 0, 1], value=-1).numpy().tolist() == [[[-1, 0, 1, 2], [-1, 3, 4, 5], [-1, -1, -1, -1]]]
    assert F.pad(x.reshape([2, 3]), [2, 1], value=5).numpy().tolist() == [[5, 5, 0, 1, 2, 5], [5, 5, 3, 4, 5, 5]]
    assert F.pad(x, [1, 1, 0, 0, 0, 1], pad_from_left_axis=True).shape == [3, 2, 4]
    assert F.pad(x, [1, 1, 0, 0, 0, 1], pad_from_left_axis=False).shape == [2, 2, 5]
    assert F.pad(x, [1, 2], mode="replicate").numpy().tolist() == [[[0, 0, 1, 2, 2, 2], [3, 3, 4, 5, 5, 5]]]
    with pytest.raises(ValueError, match="even number"):
        F.pad(x, [1, 2, 3])


def test_nll_loss_takes_labels_with_a_class_axis_of_one():
    logp = _t([[-1.3185673952102661, -0.8623766303062439, -1.170137882232666],
               [-1.1048619747161865, -1.4615229368209839, -0.8281412720680237]])
    np.testing.assert_allclose(F.nll_loss(logp, paddle.to_tensor([[0], [2]]), reduction="none").numpy(),
                               [1.3185673952102661, 0.8281412720680237], rtol=1e-6)
    x3 = _t(np.random.RandomState(0).randn(2, 3, 4))
    labels = paddle.to_tensor([[[0, 1, 2, 0]], [[1, 1, 2, 2]]])
    np.testing.assert_allclose(F.nll_loss(x3, labels).numpy(), -0.5728629231452942, rtol=1e-6)
    with pytest.raises(ShapeError, match=r"\[N, 1, \.\.\.\]"):
        F.nll_loss(logp, paddle.to_tensor([[0, 1], [2, 1]]))


# ---------------------------------------------------------------------------------------- SpectralNorm, loss module

def test_spectral_norm_forward_matches_paddle_and_its_gradient_is_the_derivative():
    x = _t(np.random.RandomState(0).randn(2, 3, 4), grad=True)
    sn = paddle.nn.SpectralNorm(x.shape, dim=1, power_iters=2)
    assert sn.weight_u.shape == [3] and sn.weight_v.shape == [8] and sn.weight_u.stop_gradient
    sn.weight_u.set_value(_t([0.3, -0.5, 0.8]))
    sn.weight_v.set_value(_t([0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8]))
    out = sn(x)
    np.testing.assert_allclose(out.numpy()[1], [[0.21109242737293243, 0.0337495394051075, 0.12311632931232452,
                                                 0.09255273640155792],
                                                [0.41441938281059265, -0.05690566077828407, 0.08683698624372482,
                                                 -0.2369043529033661],
                                                [-0.708134114742279, 0.18129709362983704, 0.23977252840995789,
                                                 -0.20585761964321136]], **CLOSE)
    np.testing.assert_allclose(sn.weight_u.numpy(), [0.3, -0.5, 0.8])  # not updated, as Paddle
    # the gradient holds u and v constant: the derivative of w / (u^T w v), float64
    w64 = np.random.RandomState(0).randn(3, 4)
    sn64 = paddle.nn.SpectralNorm([3, 4], power_iters=3, dtype="float64")
    cot = np.arange(12.0).reshape(3, 4)
    wt = paddle.to_tensor(w64, stop_gradient=False)
    (sn64(wt) * paddle.to_tensor(cot)).sum().backward()
    u, v = _power_iteration(sn64, w64)
    sigma = u @ w64 @ v
    np.testing.assert_allclose(sn64(paddle.to_tensor(w64)).numpy(), w64 / sigma, rtol=1e-10)
    want = cot / sigma - np.outer(u, v) * (cot * w64).sum() / sigma ** 2
    np.testing.assert_allclose(wt.grad.numpy(), want, rtol=1e-8)


def _power_iteration(layer, w):
    u, v = layer.weight_u.numpy(), layer.weight_v.numpy()
    for _ in range(layer._power_iters):
        v = w.T @ u
        v = v / (np.linalg.norm(v) + 1e-12)
        u = w @ v
        u = u / (np.linalg.norm(u) + 1e-12)
    return u, v


def test_every_loss_layer_is_in_paddles_loss_module():
    import paddle_fn.nn.layer.loss as loss_module
    for name in ("PoissonNLLLoss", "HSigmoidLoss", "RNNTLoss", "AdaptiveLogSoftmaxWithLoss", "CTCLoss",
                 "TripletMarginLoss", "CrossEntropyLoss"):
        assert getattr(loss_module, name) is getattr(paddle.nn, name)
    assert paddle.nn.loss is loss_module


def test_tanhshrink_float32_is_paddles_bit_for_bit_and_its_gradient_tanh_squared():
    x = _t([-9.0, -7.95, -3.3, -1.1, -0.4, -0.2, -0.0003, 0.0005, 0.1, 0.3, 0.77, 2.5, 7.9, 12.0], grad=True)
    # paddle 3.3.1 (CPU, float32): x minus Eigen's float32 tanh
    want = np.array([-8.0, -6.949999809265137, -2.3027169704437256, -0.2995009422302246, -0.020051002502441406,
                     -0.002624720335006714, 0.0, 1.1641532182693481e-10, 0.00033201277256011963,
                     0.008687406778335571, 0.12307047843933105, 1.5133857727050781, 6.90000057220459, 11.0],
                    dtype=np.float32)
    np.testing.assert_array_equal(F.tanhshrink(x).numpy(), want)
    np.testing.assert_array_equal(paddle.nn.Tanhshrink()(x).numpy(), want)
    # compiled, the compiler may fuse a multiply-add of the polynomial: within an ulp of the result
    np.testing.assert_allclose(paddle.jit.to_static(F.tanhshrink)(x).numpy(), want, rtol=2e-7, atol=1e-7)
    F.tanhshrink(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.tanh(x.numpy().astype(np.float64)) ** 2, rtol=1e-6, atol=1e-7)
    x64 = paddle.to_tensor([-0.4, 0.3], dtype="float64")
    np.testing.assert_allclose(F.tanhshrink(x64).numpy(), [-0.020051037744775124, 0.008687387548409087], rtol=1e-14)


def test_sync_batch_norm_is_batch_norm_in_one_process_and_converts_models():
    x = _t(np.random.RandomState(7).randn(4, 3, 2, 5))
    sync, plain = paddle.nn.SyncBatchNorm(3), paddle.nn.BatchNorm2D(3)
    np.testing.assert_allclose(sync(x).numpy(), plain(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync._mean.numpy(), plain._mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(sync._variance.numpy(), plain._variance.numpy(), rtol=1e-6)
    channels_last = paddle.nn.SyncBatchNorm(5, data_format="NHWC")
    np.testing.assert_allclose(channels_last(x).numpy(), paddle.nn.BatchNorm2D(5, data_format="NHWC")(x).numpy(),
                               rtol=1e-6)
    assert paddle.nn.SyncBatchNorm(3)(paddle.ones([2, 3])).shape == [2, 3]
    assert paddle.nn.SyncBatchNorm(3, data_format="NCDHW")(paddle.ones([2, 3, 1, 2, 2])).shape == [2, 3, 1, 2, 2]
    model = paddle.nn.Sequential(paddle.nn.Conv2D(3, 5, 3), paddle.nn.BatchNorm2D(5))
    bn = model[1]
    converted = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert type(converted[1]) is paddle.nn.SyncBatchNorm
    assert converted[1].weight is bn.weight and converted[1]._mean is bn._mean
    # paddle 3.3.1's repr of the converted model
    assert repr(converted) == ("Sequential(\n  (0): Conv2D(3, 5, kernel_size=[3, 3], data_format=NCHW)\n"
                               "  (1): SyncBatchNorm(num_features=5, momentum=0.9, epsilon=1e-05)\n)")
    with pytest.raises(ValueError, match="data_format"):
        paddle.nn.SyncBatchNorm(3, data_format="CHW")


def test_paddle_3_3_keyword_arguments_of_layers_and_losses():
    # values: paddle 3.3.1
    x, zeros = _t([0.5, 3.0, -0.2]), paddle.zeros([3])
    np.testing.assert_allclose(F.smooth_l1_loss(x, zeros, reduction="none", delta=2.0, is_huber=False).numpy(),
                               [0.0625, 2.0, 0.010000000707805157], rtol=1e-6)
    np.testing.assert_allclose(F.smooth_l1_loss(x, zeros, delta=2.0, is_huber=False).numpy(), 0.690833330154419,
                               rtol=1e-6)
    np.testing.assert_allclose(paddle.nn.SmoothL1Loss(reduction="sum", delta=0.5, is_huber=False)(x, zeros).numpy(),
                               3.0399999618530273, rtol=1e-6)
    np.testing.assert_array_equal(F.thresholded_relu(_t([0.5, 2.0, 1.0]), 1.0, -3.0).numpy(), [-3.0, 2.0, -3.0])
    conv = paddle.nn.Conv1D(2, 3, 2, bias=False, dtype="float64", device="cpu")
    assert conv.bias is None and conv.weight.dtype == paddle.float64
    assert conv(paddle.ones([1, 2, 4], dtype="float64")).shape == [1, 3, 3]
    assert paddle.nn.Conv3D(1, 2, 1, bias=False).bias is None
    assert paddle.nn.LayerNorm(4, elementwise_affine=False).weight is None
    norm = paddle.nn.LayerNorm(4, bias=False, dtype="float64")
    assert norm.bias is None and norm.weight.dtype == paddle.float64
    group = paddle.nn.GroupNorm(2, 4, affine=False)
    assert group.weight is None and group.bias is None
    np.testing.assert_allclose(group(_t([[[1.0], [3.0], [0.0], [4.0]]])).numpy().ravel(),
                               [-0.999995, 0.999995, -0.9999994, 0.9999994], rtol=1e-5)


def test_embedding_max_norm_and_scale_grad_by_freq_match_paddle():
    table = [[3.0, 4.0], [0.3, 0.4], [1.0, -2.0], [6.0, 8.0]]
    ids = paddle.to_tensor([[0, 1], [2, 0]])
    cot = paddle.arange(8, dtype="float32").reshape([2, 2, 2])
    w = _t(table, grad=True)
    out = F.embedding(ids, w, max_norm=2.0)
    # paddle 3.3.1: the looked-up rows over the norm rescaled, the weight updated in place, the gradient unscaled
    np.testing.assert_allclose(out.numpy()[1], [[0.8944271802902222, -1.7888543605804443], [1.2, 1.6]], rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), [[1.2, 1.6], [0.3, 0.4], [0.8944271802902222, -1.7888543605804443],
                                           [6.0, 8.0]], rtol=1e-6)
    (out * cot).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[6, 8], [2, 3], [4, 5], [0, 0]])
    w = _t(table, grad=True)
    out = F.embedding(ids, w, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, padding_idx=1)
    np.testing.assert_allclose(out.numpy()[0], [[0.4285714626312256, 0.5714285969734192], [0, 0]], rtol=1e-6)
    (out * cot).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[3, 4], [0, 0], [4, 5], [0, 0]])
    # under a transform the weight is not updated (values are immutable there); the gradient is the same
    grad = paddle.grad(lambda v: (F.embedding(ids, v, max_norm=2.0) * cot).sum())(_t(table))
    np.testing.assert_array_equal(grad.numpy(), [[6, 8], [2, 3], [4, 5], [0, 0]])
    layer = paddle.nn.Embedding(4, 2, max_norm=2.0, scale_grad_by_freq=True)
    layer.weight.set_value(_t(table))
    np.testing.assert_allclose(layer(ids).numpy()[0, 0], [1.2, 1.6], rtol=1e-6)


def test_interpolate_antialias_and_recompute_scale_factor_match_paddle():
    x = _t(np.arange(126, dtype=np.float32).reshape(1, 2, 9, 7) % 11)
    # paddle 3.3.1
    np.testing.assert_allclose(F.interpolate(x, size=[4, 3], mode="bilinear", antialias=True).numpy()[0, 0],
                               [[4.457142353057861, 5.213446140289307, 4.028571605682373],
                                [4.754354953765869, 4.8895263671875, 4.70905876159668],
                                [5.222995758056641, 4.98278284072876, 4.909407615661621],
                                [4.699999809265137, 5.243697643280029, 5.573470115661621]], rtol=1e-5)
    np.testing.assert_allclose(F.interpolate(x, scale_factor=0.45, mode="bilinear",
                                             recompute_scale_factor=True).numpy()[0, 0, 0],
                               [5.041666507720947, 7.375, 2.8333330154418945], rtol=1e-5)
    np.testing.assert_allclose(F.interpolate(x, scale_factor=0.45, mode="bilinear").numpy()[0, 0, 0],
                               [4.888889312744141, 7.111111640930176, 2.6111114025115967], rtol=1e-5)
    assert F.interpolate(x, scale_factor=[1.7, 0.6], recompute_scale_factor=True).shape == [1, 2, 15, 4]
    small = _t(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4) % 5)
    np.testing.assert_allclose(F.interpolate(small, size=[5, 7], mode="bilinear", antialias=True).numpy()[0, 0, 1],
                               [1.6, 1.24286, 0.67143, 1.1, 1.67143, 2.24286, 2.6], atol=1e-5)
    line = paddle.arange(6, dtype="float32").reshape([1, 1, 6])  # data_format None: channels first by rank
    np.testing.assert_allclose(F.interpolate(line, size=[4], mode="linear").numpy(), [[[0.25, 1.75, 3.25, 4.75]]])
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(x, size=[4, 3], mode="nearest", antialias=True)
    with pytest.raises(ValueError, match="recompute_scale_factor"):
        F.interpolate(x, size=[4, 3], recompute_scale_factor=True)


def test_dropout_inplace_and_normalize_and_softmax_out():
    x = paddle.ones([4])
    assert F.dropout(x, 0.5, training=False, inplace=True, mode="downscale_in_infer") is x
    np.testing.assert_array_equal(x.numpy(), [0.5] * 4)
    y = _t([[3.0, 4.0]])
    assert F.normalize(y, out=y) is y
    np.testing.assert_allclose(y.numpy(), [[0.6, 0.8]], rtol=1e-6)
    held = paddle.zeros([2])
    assert F.softmax(_t([0.0, 0.0]), out=held) is held
    np.testing.assert_array_equal(held.numpy(), [0.5, 0.5])


def test_class_center_sample_keeps_the_positives_first_as_paddle():
    paddle.seed(3)
    remapped, centers = F.class_center_sample(paddle.to_tensor([1, 5, 5, 9]), 10, 6)
    # paddle 3.3.1: remapped [0, 1, 1, 2], centers [1, 5, 9, <3 random others>]
    assert remapped.numpy().tolist() == [0, 1, 1, 2] and remapped.dtype == paddle.int64
    assert centers.numpy()[:3].tolist() == [1, 5, 9] and centers.shape == [6]
    assert len(set(centers.numpy().tolist())) == 6 and set(centers.numpy()[3:]).isdisjoint({1, 5, 9})
    remapped, centers = F.class_center_sample(paddle.to_tensor([1, 5, 5, 9]), 10, 2)
    assert centers.numpy().tolist() == [1, 5, 9]
    remapped, centers = F.class_center_sample(paddle.to_tensor([3, 0]), 4, 4)
    assert remapped.numpy().tolist() == [1, 0] and sorted(centers.numpy().tolist()) == [0, 1, 2, 3]
    assert centers.numpy()[:2].tolist() == [0, 3]
    with pytest.raises(ValueError, match="num_classes"):
        F.class_center_sample(paddle.to_tensor([3, 10]), 10, 4)
    with pytest.raises(ConcretizationError, match="eagerly"):
        paddle.jit.to_static(lambda t: F.class_center_sample(t, 10, 4)[1], full_graph=True)(paddle.to_tensor([1, 2]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_family_clips_at_minus_64_as_paddles_kernels(dtype):
    x = paddle.to_tensor(np.array([[0.0, -100.0, -50.0], [3.0, 2.0, -70.0]], dtype), stop_gradient=False)
    # paddle 3.3.1 (CPU): x - max(x) clipped at -64, the gradients those of the unclipped functions
    np.testing.assert_allclose(F.softmax(x).numpy(), [[1.0, 1.6038109389511792e-28, 1.9287498933537385e-22],
                                                      [0.7310585975646973, 0.2689414322376251,
                                                       1.1724797889768354e-28]], rtol=2e-7)
    np.testing.assert_allclose(F.log_softmax(x).numpy(), [[0.0, -64.0, -50.0], [-0.31326165795326233,
                                                                                -1.31326162815094,
                                                                                -64.31326293945312]], rtol=2e-7)
    np.testing.assert_allclose(F.softmax(x, axis=0).numpy()[:, 1], [1.6038109389511792e-28, 1.0], rtol=2e-7)
    loss = F.cross_entropy(x, paddle.to_tensor([1, 2]), reduction="none")
    np.testing.assert_allclose(loss.numpy(), [64.0, 64.31326293945312], rtol=2e-7)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, -1.0, 1.9287498933537385e-22],
                                                [0.7310585975646973, 0.2689414322376251, -1.0]], rtol=2e-7)
    np.testing.assert_allclose(F.cross_entropy(_t([[0.0, 100.0]]), paddle.to_tensor([0])).numpy(), 64.0)


# Paddle 3.3.1 (CPU), float64 BatchNorm1D(3, momentum=0.9) / BatchNorm2D(3, momentum=0.9) in training, called on
# X1 then 2 * X1 (X2, 2 * X2): running mean and variance after each call, as float.hex (the float32 momentum)
_BN_X1 = [[2.07719066328018, 1.3036854101260942, 3.6212679513298465],
          [2.014700351459119, 0.09299188051666696, 2.7847851647284543],
          [5.612000135390412, 4.541242889387727, -0.41120570742097784],
          [-2.096264413138157, -0.1698233876120565, 1.8239779380417307]]
_BN_X2 = [[[[-4.9500615492776685, -0.7375833278650914], [-2.79182189450613, -1.7645347094069033]],
           [[-1.3885179657146198, -0.9326003127383091], [0.5232610727482656, 1.7850267388853551]],
           [[-0.5570693258880686, 2.432926941099372], [-1.6303893469732271, 0.40302014018603943]]],
          [[[1.5069403633036171, -0.11197540447825086], [-1.7869984987076168, -2.1434507525168387]],
           [[-1.2154516513346783, 0.14039024694009883], [-2.3192363670774716, -0.7183511497434261]],
           [[-0.6184500198289554, 0.7816911693716153], [0.1293182450126818, 0.41074541807984283]]]]
_BN_PADDLE = {
    "1d": [(["0x1.8582b57d2719ep-3", "0x1.27539dc606b22p-3", "0x1.9052ee98b84c1p-3"],
            ["0x1.a51443c193d44p+0", "0x1.404533a052198p+0", "0x1.2084db5c44c66p+0"]),
           (["0x1.1a6529d3c8e0ap-1", "0x1.ac393e241295fp-2", "0x1.223c2006b085bp-1"],
            ["0x1.1d6c066fd3106p+2", "0x1.43dcbf08bb4dcp+1", "0x1.ec249a6a4f0e0p+0"])],
    "2d": [(["-0x1.4727a86e49b69p-3", "-0x1.a672fe1e91a71p-5", "0x1.14d8e9cfb65d4p-6"],
            ["0x1.385b89a77b29bp+0", "0x1.0b457be2c5202p+0", "0x1.0666e2d170f44p+0"]),
           (["-0x1.da5fe72b495a4p-2", "-0x1.324691abeae62p-3", "0x1.916db935d03eep-5"],
            ["0x1.3079de9bdb710p+1", "0x1.8407ad05dd522p+0", "0x1.6c2b58994d1efp+0"])],
}


@pytest.mark.parametrize("kind", ["1d", "2d"])
def test_float64_batch_norm_running_statistics_use_paddles_float32_momentum(kind):
    layer = (paddle.nn.BatchNorm1D if kind == "1d" else paddle.nn.BatchNorm2D)(3, momentum=0.9)
    layer.to(dtype="float64")
    x = np.array(_BN_X1 if kind == "1d" else _BN_X2)
    layer.train()
    for step, (want_mean, want_var) in enumerate(_BN_PADDLE[kind]):
        layer(paddle.to_tensor(x * (step + 1)))
        assert layer._mean.dtype == paddle.float64
        assert [float(v).hex() for v in layer._mean.numpy()] == want_mean  # bit for bit
        assert [float(v).hex() for v in layer._variance.numpy()] == want_var
