"""Paddle 3.3's top-level and paddle.linalg names its docstring examples use: paddle.Size (Tensor.shape),
round's halves to even, nonzero/where's tuples, set_grad_enabled as a call, median with NaNs, the incomplete
gamma functions, Paddle's flags, print options, put_along_axis's reductions, isin(assume_unique=True), LU of
non-square matrices, ormqr and the randomized low-rank SVD. Expected values are Paddle 3.3.1's (CPU), recorded
as literals."""
import pickle

import numpy as np
import pytest

import paddle_fn as paddle


# ---------------------------------------------------------------------------------------------- paddle.Size

def test_shape_is_a_size_that_prints_as_paddle_and_behaves_as_a_list():
    shape = paddle.ones([2, 3]).shape
    assert isinstance(shape, paddle.Size) and isinstance(shape, list)
    assert repr(shape) == str(shape) == f"{shape}" == "paddle.Size([2, 3])"
    assert repr(paddle.to_tensor(1.0).shape) == "paddle.Size([])"
    assert shape == [2, 3] and shape == (2, 3) and shape != (3, 2) and not shape != (2, 3)
    # Paddle 3.3.1: slices, sums and repeats stay Sizes; copy() is a plain list
    assert repr(shape[1:]) == "paddle.Size([3])" and shape[0] == 2
    assert repr(shape + [1]) == "paddle.Size([2, 3, 1])" and repr([1] + shape) == "paddle.Size([1, 2, 3])"
    assert repr((1,) + shape) == "paddle.Size([1, 2, 3])" and repr(shape * 2) == "paddle.Size([2, 3, 2, 3])"
    assert type(shape.copy()) is list
    assert shape.numel() == 6 and paddle.Size([]).numel() == 1
    assert paddle.Size(paddle.to_tensor([4, 5])) == [4, 5]
    assert pickle.loads(pickle.dumps(shape)) == shape
    with pytest.raises(TypeError, match="iterable of 'int'.*item 0 is 'float'"):
        paddle.Size([2.5])
    with pytest.raises(TypeError):
        hash(shape)


# ---------------------------------------------------------------------------------------------- elementwise

def test_round_halves_to_even_with_decimals_as_paddle():
    x = paddle.to_tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997])
    # Paddle 3.3.1: [-2., -2., -0., 0., 2., 2., 4., 0.]
    np.testing.assert_array_equal(paddle.round(x).numpy(), [-2., -2., -0., 0., 2., 2., 4., 0.])
    assert np.signbit(paddle.round(x).numpy()[2])
    np.testing.assert_allclose(paddle.round(paddle.to_tensor([1.25, 1.35]), decimals=1).numpy(), [1.2, 1.4],
                               rtol=1e-6)
    np.testing.assert_array_equal(paddle.round(paddle.to_tensor([125., 135.]), decimals=-1).numpy(), [120., 140.])
    ints = paddle.round(paddle.to_tensor([15, 25, 34]), decimals=-1)
    assert ints.dtype == paddle.int64 and ints.tolist() == [15, 25, 34]
    assert paddle.jit(paddle.round)(x).numpy().tolist() == paddle.round(x).numpy().tolist()


def test_integer_linspace_and_logspace_truncate_as_paddle():
    # Paddle 3.3.1
    assert paddle.linspace(0, 5, 3, dtype='int64').tolist() == [0, 2, 5]
    assert paddle.linspace(-5, 0, 3, dtype='int64').tolist() == [-5, -2, 0]
    assert paddle.linspace(0, 1, 3, dtype='int32').tolist() == [0, 0, 1]
    assert paddle.logspace(0, 1, 3, base=2., dtype='int64').tolist() == [1, 1, 2]
    assert paddle.logspace(0, 3, 4, base=10, dtype='int64').tolist() == [1, 10, 100, 1000]


def test_nonzero_and_where_tuples_hold_1d_indices():
    x = paddle.to_tensor([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    rows, cols = paddle.nonzero(x, as_tuple=True)
    assert rows.shape == [3] and rows.tolist() == [0, 1, 2] and cols.tolist() == [0, 1, 2]
    (found,) = paddle.where(paddle.to_tensor([0.9383, 0.1983, 3.2, 1.2]) > 1)
    assert found.shape == [2] and found.dtype == paddle.int64 and found.tolist() == [2, 3]


def test_set_grad_enabled_called_as_a_function_switches_at_once():
    x = paddle.to_tensor([1.], stop_gradient=False)
    try:
        paddle.set_grad_enabled(False)
        assert (x * 2).stop_gradient and not paddle.is_grad_enabled()
        paddle.set_grad_enabled(True)
        assert not (x * 2).stop_gradient
        with paddle.set_grad_enabled(False):
            assert (x * 2).stop_gradient
        assert paddle.is_grad_enabled()
    finally:
        paddle.set_grad_enabled(True)


def test_median_of_a_slice_holding_nan_is_nan():
    x = paddle.to_tensor(np.array([[1, np.nan, 3, np.nan], [1, 2, 3, 4], [np.nan, 1, 2, 3]]))
    out = paddle.median(x, axis=-1, keepdim=True).numpy()  # Paddle 3.3.1: [[nan], [2.5], [nan]]
    assert out.shape == (3, 1) and np.isnan(out[0, 0]) and out[1, 0] == 2.5 and np.isnan(out[2, 0])


def test_nanmedian_min_over_a_list_of_axes_gives_values_only():
    x = paddle.to_tensor([[float('nan'), 2., 3.], [0., 1., 2.]])
    out = x.nanmedian((0, 1), mode='min')  # Paddle 3.3.1: a Tensor, 2.0
    assert isinstance(out, paddle.Tensor) and out.item() == 2.0
    values, indices = paddle.nanmedian(x, axis=1, mode='min')
    assert values.tolist() == [2.0, 1.0] and indices.tolist() == [1, 1]


# ---------------------------------------------------------------------------------------------- gammainc

# Paddle 3.3.1, float64
_A = [0., 0., 1., 5., 1000., 1000., 30., 0.1, 0.5, 1.5, 3.0]
_Y = [0., 1., 0., 5.5, 990., 1010., 25., 1e-5, 0.7, 2.0, 1.0]
_P = [0.0, 0.0, 0.0, 0.6424819975720745, 0.379521378538239, 0.6276789447368795, 0.18210391597745357,
      0.33239840504050333, 0.76327643, 0.73853587, 0.08030140]  # the last three printed with 8 decimals


def test_gammainc_and_gammaincc_values():
    a, y = paddle.to_tensor(_A, dtype='float64'), paddle.to_tensor(_Y, dtype='float64')
    np.testing.assert_allclose(paddle.gammainc(a, y).numpy(), _P, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(paddle.gammaincc(a, y).numpy(), 1 - np.array(_P), rtol=1e-7, atol=1e-12)
    assert np.isnan(paddle.gammainc(paddle.to_tensor([2.]), paddle.to_tensor([float('inf')])).item())
    out = paddle.gammainc(paddle.to_tensor([0.5] * 5), paddle.to_tensor([0., 1, 10, 100, 1000]))
    assert out.dtype == paddle.float32  # Paddle 3.3.1: [0., 0.84270084, 0.99999225, 1., 1.]
    np.testing.assert_allclose(out.numpy(), [0., 0.84270084, 0.99999225, 1., 1.], rtol=1e-6)
    assert paddle.tensor.math.gammainc is paddle.gammainc and paddle.Tensor.gammaincc is not None


def test_gammainc_gradient_in_y_is_the_density_and_transforms_agree():
    a = paddle.to_tensor([0.5, 1.5, 3.0], dtype='float64')
    y = paddle.to_tensor([0.7, 2.0, 1.0], dtype='float64', stop_gradient=False)
    (grad,) = paddle.grad(paddle.gammainc(a, y).sum(), [y])
    # Paddle 3.3.1: [0.33486511, 0.21596387, 0.18393972] (and the negation for gammaincc)
    np.testing.assert_allclose(grad.numpy(), [0.33486511, 0.21596387, 0.18393972], rtol=1e-7)
    (grad_q,) = paddle.grad(paddle.gammaincc(a, y).sum(), [y])
    np.testing.assert_allclose(grad_q.numpy(), -grad.numpy(), rtol=1e-10)
    # the derivative in a: central differences
    a_var = paddle.to_tensor([1.5], dtype='float64', stop_gradient=False)
    (grad_a,) = paddle.grad(paddle.gammainc(a_var, paddle.to_tensor([2.0], dtype='float64')).sum(), [a_var])
    h = 1e-6
    p = [paddle.gammainc(paddle.to_tensor([1.5 + s], dtype='float64'), paddle.to_tensor([2.0], dtype='float64'))
         .item() for s in (h, -h)]
    np.testing.assert_allclose(grad_a.item(), (p[0] - p[1]) / (2 * h), rtol=1e-6)
    np.testing.assert_allclose(paddle.jit(paddle.gammainc)(a, y).numpy(), paddle.gammainc(a, y).numpy(), rtol=1e-12)
    batched = paddle.vmap(paddle.gammaincc)(paddle.stack([a, a * 2]), paddle.stack([y, y]))
    np.testing.assert_allclose(batched.numpy()[1], paddle.gammaincc(a * 2, y).numpy(), rtol=1e-12)


def test_gammainc_rejects_negative_inputs_as_paddle():
    with pytest.raises(ValueError, match="gammainc: the input argument y must be greater than or equal to 0"):
        paddle.gammainc(paddle.to_tensor([1.]), paddle.to_tensor([-1.]))


# ---------------------------------------------------------------------------------------------- flags, printing

def test_paddle_flags_are_accepted_with_their_defaults():
    # Paddle 3.3.1's get_flags
    assert paddle.get_flags(['FLAGS_eager_delete_tensor_gb', 'FLAGS_check_nan_inf']) == {
        'FLAGS_eager_delete_tensor_gb': 0.0, 'FLAGS_check_nan_inf': False}
    assert paddle.get_flags('FLAGS_use_stride_kernel') == {'FLAGS_use_stride_kernel': True}
    try:
        paddle.base.set_flags({'FLAGS_eager_delete_tensor_gb': 1, 'FLAGS_allocator_strategy': 'naive_best_fit'})
        assert paddle.get_flags('FLAGS_eager_delete_tensor_gb') == {'FLAGS_eager_delete_tensor_gb': 1.0}
        with pytest.raises(TypeError, match="FLAGS_alignment_size is a int flag"):
            paddle.set_flags({'FLAGS_alignment_size': 'big'})
        with pytest.raises(ValueError, match="not one of Paddle 3.3's global flags"):
            paddle.set_flags({'eager_delete_tensor_gb': 2.0})
    finally:
        paddle.set_flags({'FLAGS_eager_delete_tensor_gb': 0.0, 'FLAGS_allocator_strategy': 'auto_growth'})


def test_print_options_change_tensor_printing_as_paddle():
    try:
        paddle.set_printoptions(4, 100, 3)
        text = str(paddle.arange(200, dtype='float32').reshape([10, 20]) / 7)
        # Paddle 3.3.1's text under set_printoptions(4, 100, 3)
        assert text.splitlines()[1:] == [
            "       [[0.     , 0.1429 , 0.2857 , ..., 2.4286 , 2.5714 , 2.7143 ],",
            "        [2.8571 , 3.     , 3.1429 , ..., 5.2857 , 5.4286 , 5.5714 ],",
            "        [5.7143 , 5.8571 , 6.     , ..., 8.1429 , 8.2857 , 8.4286 ],",
            "        ...,",
            "        [20.    , 20.1429, 20.2857, ..., 22.4286, 22.5714, 22.7143],",
            "        [22.8571, 23.    , 23.1429, ..., 25.2857, 25.4286, 25.5714],",
            "        [25.7143, 25.8571, 26.    , ..., 28.1429, 28.2857, 28.4286]])"]
        paddle.set_printoptions(sci_mode=True, precision=2)
        assert str(paddle.to_tensor([1+2j])).splitlines()[1] == "       [(1.00e+00+2.00e+00j)])"
        paddle.set_printoptions(precision=8, threshold=1000, sci_mode=False, linewidth=30)
        assert str(paddle.to_tensor([1, 0] * 6)).splitlines()[1:] == ["       [1, 0, 1, 0, 1, 0, 1,",
                                                                      "        0, 1, 0, 1, 0])"]
        with pytest.raises(TypeError, match="precision must be int"):
            paddle.set_printoptions(precision=2.5)
    finally:
        paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False, linewidth=80)
    # Paddle 3.3.1: (80 - 7) // 3 = 24 one-wide items per 80-column line; empty inner dimensions as nested brackets
    assert str(paddle.to_tensor([1, 0] * 40)).splitlines()[1].count(",") == 24
    assert str(paddle.ones([2, 0, 1, 2])).splitlines()[1:] == ["       [[],", "", "", "        []])"]


# ---------------------------------------------------------------------------------------------- Paddle's places

def test_names_live_where_paddle_keeps_them():
    assert paddle.tensor(1).tolist() == 1 and not paddle.tensor([1.], requires_grad=True).stop_gradient
    assert paddle.tensor.math.frexp is paddle.frexp and paddle.tensor.math.isin is paddle.isin
    assert paddle.tensor.search.argwhere(paddle.to_tensor([[0, 3], [4, 0]])).tolist() == [[0, 1], [1, 0]]
    paddle.disable_signal_handler()
    assert list(paddle.batch(lambda: iter(range(5)), batch_size=2)()) == [[0, 1], [2, 3], [4]]
    assert list(paddle.batch(lambda: iter(range(5)), batch_size=2, drop_last=True)()) == [[0, 1], [2, 3]]
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        paddle.batch(lambda: iter(()), 0)


# ---------------------------------------------------------------------------------------------- scatters, isin

def test_put_along_axis_reductions_and_broadcast_as_paddle():
    x = paddle.to_tensor([[10., 30, 20], [60, 40, 50]])
    index, values = paddle.to_tensor([[0, 0], [2, 2]]), paddle.to_tensor([[1., 2], [3, 4]])
    expected = {  # Paddle 3.3.1, (include_self=True, include_self=False)
        "assign": ([[2, 30, 20], [60, 40, 4]], [[2, 30, 20], [60, 40, 4]]),
        "add": ([[13, 30, 20], [60, 40, 57]], [[3, 30, 20], [60, 40, 7]]),
        "mul": ([[20, 30, 20], [60, 40, 600]], [[2, 30, 20], [60, 40, 12]]),
        "mean": ([[13 / 3, 30, 20], [60, 40, 19]], [[1.5, 30, 20], [60, 40, 3.5]]),
        "amin": ([[1, 30, 20], [60, 40, 3]], [[1, 30, 20], [60, 40, 3]]),
        "amax": ([[10, 30, 20], [60, 40, 50]], [[2, 30, 20], [60, 40, 4]]),
    }
    for reduce, (with_self, without_self) in expected.items():
        for include_self, want in ((True, with_self), (False, without_self)):
            got = paddle.put_along_axis(x, index, values, 1, reduce, include_self=include_self).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"{reduce} include_self={include_self}")
    one = paddle.to_tensor([[1]])
    assert paddle.put_along_axis(x, one, 5., 1).tolist() == [[10, 5, 20], [60, 5, 50]]
    assert paddle.put_along_axis(x, one, 5., 1, broadcast=False).tolist() == [[10, 5, 20], [60, 40, 50]]
    ints = paddle.to_tensor([[10, 30, 20], [60, 40, 50]])
    out = paddle.put_along_axis(ints, paddle.zeros([2, 2], 'int32'), paddle.to_tensor([[1, 2], [3, 4]]), 0, "mean",
                                True, False)
    assert out.dtype == paddle.int64 and out.tolist() == [[4, 12, 20], [60, 40, 50]]  # truncated, as Paddle
    with pytest.raises(ValueError, match="put_along_axis: reduce must be one of"):
        paddle.put_along_axis(x, index, values, 1, "max")


def test_isin_assume_unique_follows_paddles_sorting_rule():
    x = paddle.to_tensor([0., 1., 2.] * 20).reshape([20, 3])
    test = paddle.to_tensor([0., 1.] * 20)
    # Paddle 3.3.1: all True except the last element (False); with invert, the opposite
    got = paddle.isin(x, test, assume_unique=True).numpy().ravel()
    assert got[:-1].all() and not got[-1]
    inverted = paddle.isin(x, test, assume_unique=True, invert=True).numpy().ravel()
    assert not inverted[:-1].any() and inverted[-1]
    assert paddle.isin(x, test).numpy()[:, 2].sum() == 0
    # a test_x below the size threshold: Paddle compares every pair, so the answer is exact
    assert paddle.isin(paddle.to_tensor([1, 1, 2, 2, 3]), paddle.to_tensor([1, 1]),
                       assume_unique=True).tolist() == [True, True, False, False, False]


# ---------------------------------------------------------------------------------------------- linalg

def test_lu_of_non_square_matrices_as_paddle():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype='float64')
    packed, pivots, info = paddle.linalg.lu(x, get_infos=True)
    # Paddle 3.3.1
    np.testing.assert_allclose(packed.numpy(), [[5., 6.], [0.2, 0.8], [0.6, 0.5]], rtol=1e-12)
    assert pivots.dtype == paddle.int32 and pivots.tolist() == [3, 3] and info.item() == 0
    p, lower, upper = paddle.linalg.lu_unpack(packed, pivots)
    assert p.tolist() == [[0., 1., 0.], [0., 0., 1.], [1., 0., 0.]]
    np.testing.assert_allclose(lower.numpy(), [[1., 0.], [0.2, 1.], [0.6, 0.5]], rtol=1e-12)
    np.testing.assert_allclose(upper.numpy(), [[5., 6.], [0., 0.8]], rtol=1e-12)
    wide = paddle.to_tensor([[1., 4., 2.], [3., 0., 6.]], dtype='float64')
    packed, pivots = paddle.linalg.lu(wide)
    np.testing.assert_allclose(packed.numpy(), [[3., 0., 6.], [1 / 3, 4., 0.]], rtol=1e-12)
    assert pivots.tolist() == [2, 2]
    p, lower, upper = paddle.linalg.lu_unpack(packed, pivots)
    assert p.shape == [2, 2] and lower.shape == [2, 2] and upper.shape == [2, 3]
    np.testing.assert_allclose((p @ lower @ upper).numpy(), wide.numpy(), rtol=1e-12)


def test_lu_of_a_tall_matrix_gradient_jit_and_vmap():
    x = paddle.to_tensor([[0., 1.], [2., 3.], [-4., 5.], [1., 1.]], dtype='float64', stop_gradient=False)
    packed, pivots = paddle.linalg.lu(x)
    # Paddle 3.3.1
    np.testing.assert_allclose(packed.numpy(), [[-4., 5.], [-0.5, 5.5], [0., 2 / 11], [-0.25, 0.4090909090909091]],
                               rtol=1e-12, atol=1e-15)
    assert pivots.tolist() == [3, 2]
    weights = paddle.to_tensor([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], dtype='float64')
    (grad,) = paddle.grad((packed * weights).sum(), [x])
    np.testing.assert_allclose(grad.numpy(), [[0.11363636363636354, 1.0909090909090908],
                                              [3.258264462809917, 3.206611570247934],
                                              [2.6461776859504136, 3.966942148760331],
                                              [0.06818181818181834, 1.4545454545454546]], rtol=1e-10)
    first = paddle.jit(lambda a: paddle.linalg.lu(a)[0])
    np.testing.assert_allclose(first(x).numpy(), packed.numpy(), rtol=1e-12)
    batched = paddle.vmap(lambda a: paddle.linalg.lu(a)[0])(paddle.stack([x, x * 2]))
    np.testing.assert_allclose(batched.numpy()[1], paddle.linalg.lu(x * 2)[0].numpy(), rtol=1e-12)


def test_ormqr_multiplies_by_householder_q_as_paddle():
    x = paddle.to_tensor([[2.0, 0.5], [0.3, 1.5], [-0.4, 0.2]], dtype='float64')
    tau = paddle.to_tensor([1.3, 0.6], dtype='float64')
    square = paddle.to_tensor([[1., 2.], [3., 4.]], dtype='float64')
    # Paddle 3.3.1
    np.testing.assert_allclose(paddle.linalg.ormqr(x, tau, square).numpy(),
                               [[-0.9552, -1.4736], [0.61344, 0.55792], [0.42208, 0.90944]], rtol=1e-12)
    tall = paddle.to_tensor([[1., 4.], [2., 5.], [3., 6.]], dtype='float64')
    np.testing.assert_allclose(paddle.linalg.ormqr(x, tau, tall, transpose=True).numpy(),
                               [[0.48, -0.03], [0.35264, 0.60296]], rtol=1e-12)
    q = paddle.linalg.householder_product(x, tau)
    np.testing.assert_allclose(paddle.linalg.ormqr(x, tau, tall.T, left=False).numpy(), (tall.T @ q).numpy())
    with pytest.raises(paddle.ShapeError, match="ormqr"):
        paddle.linalg.ormqr(x, tau, tall)


def test_svd_lowrank_and_pca_lowrank_recover_low_rank_matrices():
    rng = np.random.RandomState(0)
    low = rng.randn(3, 8, 2) @ rng.randn(3, 2, 5)  # rank 2
    x = paddle.to_tensor(low)
    u, s, v = paddle.linalg.svd_lowrank(x, q=2)
    assert u.shape == [3, 8, 2] and s.shape == [3, 2] and v.shape == [3, 5, 2]
    np.testing.assert_allclose((u * s.unsqueeze(-2) @ v.transpose([0, 2, 1])).numpy(), low, atol=1e-10)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(low, compute_uv=False)[:, :2], rtol=1e-10)
    u, s, v = paddle.linalg.svd_lowrank(x.transpose([0, 2, 1]), q=2)  # the wide branch
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(low, compute_uv=False)[:, :2], rtol=1e-10)
    centered = low - low.mean(axis=-2, keepdims=True)
    _, s, _ = paddle.linalg.pca_lowrank(x, q=2)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centered, compute_uv=False)[:, :2], rtol=1e-8)
    _, s, _ = x.svd_lowrank(q=2, M=paddle.to_tensor(low.mean(axis=-2, keepdims=True)))
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centered, compute_uv=False)[:, :2], rtol=1e-8)
    with pytest.raises(ValueError, match="q\\(=9\\) must be non-negative integer"):
        paddle.linalg.svd_lowrank(x, q=9)


def test_mmap_storage_reads_slices_as_paddle(tmp_path):
    path = str(tmp_path / "weights.bin")
    np.arange(10, dtype=np.float32).tofile(path)
    storage = paddle.MmapStorage(path, 40)
    # Paddle 3.3.1: start is a byte offset, stop - start the element count
    assert storage.get_slice(paddle.float32, 8, 12).tolist() == [2.0, 3.0, 4.0, 5.0]
    assert storage.get_slice(paddle.int32, 0, 2).tolist() == [0, 1065353216]
    assert storage.get_slice(paddle.float32).tolist() == list(map(float, range(10)))
    assert storage.get_slice().dtype == paddle.uint8 and storage.get_slice().shape == [40]
    with pytest.raises(ValueError, match="need bytes up to 48, but 40 bytes are mapped"):
        storage.get_slice(paddle.float32, 0, 12)
    with pytest.raises(paddle.UnsupportedError, match="step=2"):
        storage.get_slice(paddle.float32, 0, 4, 2)


def test_lazy_guard_defers_initialization_to_initialize():
    paddle.seed(7)
    with paddle.LazyGuard():
        lazy = paddle.nn.Linear(3, 2, bias_attr=paddle.nn.initializer.Constant(0.5))
    assert lazy.weight.shape == [3, 2] and not lazy.weight.numpy().any()  # a placeholder until initialize()
    for param in lazy.parameters():
        param.initialize()
    paddle.seed(7)
    eager = paddle.nn.Linear(3, 2, bias_attr=paddle.nn.initializer.Constant(0.5))
    np.testing.assert_array_equal(lazy.weight.numpy(), eager.weight.numpy())  # the same draw, made later
    assert lazy.bias.tolist() == [0.5, 0.5] and not lazy.weight.stop_gradient
    with pytest.raises(RuntimeError, match="only a parameter created under paddle.LazyGuard"):
        lazy.weight.initialize()
    with pytest.raises(RuntimeError, match="LazyGuard"):
        eager.weight.initialize()


def test_enable_compat_proxies_torch_until_disabled():
    import sys
    paddle.enable_compat()
    try:
        import torch
        import torch.nn.functional as F
        assert torch.sin is paddle.sin and torch.nn.Linear is paddle.nn.Linear
        x = paddle.to_tensor([[2.0, 3.0, 4.0, 5.0]])
        # Paddle 3.3.1 (float64, printed with 8 decimals)
        out = F.softmax(x, -1, dtype='float64')
        assert out.dtype == paddle.float64
        np.testing.assert_allclose(out.numpy(), [[0.03205860, 0.08714432, 0.23688282, 0.64391426]], rtol=2e-7)
        assert paddle.compat.nn.functional.softmax(paddle.ones([2, 2])).tolist() == [[0.5, 0.5], [0.5, 0.5]]
        with pytest.raises(paddle.UnsupportedError, match="scope= and blocked_modules="):
            paddle.enable_compat(scope={"triton"})
    finally:
        paddle.disable_compat()
    assert not any(name == "torch" or name.startswith("torch.") for name in sys.modules)
    with pytest.raises(ModuleNotFoundError):
        import torch  # noqa: F401


def test_as_strided_gathers_by_element_strides_and_byte_offset():
    x = paddle.arange(24, dtype='float32').reshape([2, 3, 4])
    # Paddle 3.3.1 (a contiguous x)
    assert paddle.as_strided(x, [2, 2], [1, 5]).tolist() == [[0.0, 5.0], [1.0, 6.0]]
    assert paddle.as_strided(paddle.arange(12, dtype='float32'), [3, 2], [4, 1], offset=4).tolist() == [
        [1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    assert x.as_strided([8, 3], [3, 1]).shape == [8, 3]
    y = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
    (grad,) = paddle.grad(paddle.as_strided(y, [2, 2], [1, 1]).sum(), [y])
    assert grad.tolist() == [1.0, 2.0, 1.0]
    with pytest.raises(paddle.ShapeError, match="outside x's 24 elements"):
        paddle.as_strided(x, [5, 5], [5, 1])
    with pytest.raises(paddle.ShapeError, match="multiple of the element size"):
        paddle.as_strided(x, [2], [1], offset=2)
