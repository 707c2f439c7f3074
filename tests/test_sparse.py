"""paddle.sparse: formats and conversions, the operations against paddle 3.3.1's results (recorded as literals,
from paddle 3.3.1 on the CPU unless a comment says otherwise), and grad / vmap / jit through sparse Tensors."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import ConcretizationError, ShapeError
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.prims.sparse import ell_form, segment_form, sparse_dense_dot

S = paddle.sparse
X = np.array([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], np.float32)
Y = np.array([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], np.float32)


def _coo(a, sparse_dim=None):
    a = np.asarray(a)
    return paddle.to_tensor(a).to_sparse_coo(a.ndim if sparse_dim is None else sparse_dim)


def _csr(a):
    return paddle.to_tensor(np.asarray(a)).to_sparse_csr()


def _pattern(x):
    if x.is_sparse_coo():
        return x.indices().numpy().tolist(), x.values().numpy().tolist()
    return x.crows().numpy().tolist(), x.cols().numpy().tolist(), x.values().numpy().tolist()


# ------------------------------------------------------------------------------------------------ formats

def test_attributes_as_paddle_reports_them():
    coo, csr = _coo(X), _csr(X)
    assert coo.shape == [3, 4] and coo.dtype == paddle.float32 and coo.nnz() == 5
    assert (coo.is_sparse(), coo.is_sparse_coo(), coo.is_sparse_csr()) == (True, True, False)
    assert (coo.sparse_dim(), coo.dense_dim(), coo.is_coalesced(), coo.stop_gradient) == (2, 0, True, True)
    assert (csr.is_sparse(), csr.is_sparse_csr(), csr.crows().dtype, csr.cols().dtype) == (
        True, True, paddle.int64, paddle.int64)
    dense = paddle.to_tensor(X)
    assert (dense.is_sparse(), dense.is_sparse_coo(), dense.is_sparse_csr()) == (False, False, False)
    assert _pattern(coo) == ([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]], [-1., 2., -3., 4., 5.])
    assert _pattern(csr) == ([0, 2, 3, 5], [1, 3, 2, 0, 1], [-1., 2., -3., 4., 5.])
    assert _pattern(coo.to_sparse_csr()) == _pattern(csr)
    assert _pattern(csr.to_sparse_coo()) == _pattern(coo)
    np.testing.assert_array_equal(csr.to_dense().numpy(), X)


def test_hybrid_coo_and_batched_csr():
    hybrid = _coo(X, 1)
    assert hybrid.indices().numpy().tolist() == [[0, 1, 2]] and hybrid.values().shape == [3, 4]
    batch = np.arange(12.).reshape(2, 2, 3) % 3  # paddle 3.3.1: crows [0, 2, 4, 0, 2, 4]
    csr = _csr(batch)
    assert _pattern(csr) == ([0, 2, 4, 0, 2, 4], [1, 2, 1, 2, 1, 2, 1, 2], [1., 2., 1., 2., 1., 2., 1., 2.])
    np.testing.assert_array_equal(csr.to_dense().numpy(), batch)
    np.testing.assert_array_equal(csr.to_sparse_coo().to_dense().numpy(), batch)
    isnan = np.array([[[0., 0], [1., 2.]], [[0., 0], [3., np.nan]]])
    assert _pattern(S.isnan(_csr(isnan))) == ([0, 0, 2, 0, 0, 2], [0, 1, 0, 1], [False, False, False, True])


def test_creation_infers_the_shape_and_keeps_repeats_until_coalesce():
    x = S.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], [1., 2., 3.])
    assert x.shape == [2, 3] and x.nnz() == 3 and not x.is_coalesced()
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 0, 2], [4, 0, 0]])
    assert _pattern(S.coalesce(x)) == ([[0, 1], [2, 0]], [2., 4.])
    assert S.sparse_coo_tensor([[1, 0]], [[1., 2.], [3., 4.]], [3, 2]).values().shape == [2, 2]
    assert S.sparse_coo_tensor([[1, 0]], [1, 2], [3]).dtype == paddle.int64


def test_bad_input_is_named():
    with pytest.raises(ShapeError, match="sparse_coo_tensor"):
        S.sparse_coo_tensor([[0, 1]], [1., 2., 3.], [3])
    with pytest.raises(ShapeError, match="lie in"):
        S.sparse_coo_tensor([[0, 5]], [1., 2.], [3])
    with pytest.raises(ShapeError, match="crows"):
        S.sparse_csr_tensor([0, 2, 1], [0, 1], [1., 2.], [2, 2])
    with pytest.raises(TypeError, match="sparse Tensor"):
        S.sin(paddle.to_tensor(X))
    with pytest.raises(TypeError, match="integers"):
        S.sparse_coo_tensor([[0.5]], [1.], [2])
    with pytest.raises(ShapeError, match="equal shapes"):
        S.add(_coo(X), _coo(X[:2]))


def test_print_matches_paddle_layout():
    assert repr(S.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1., 2., 3.], [3, 3])) == (
        "Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,\n"
        "       indices=[[0, 1, 2],\n"
        "                [1, 2, 0]],\n"
        "       values=[1., 2., 3.])")


# ------------------------------------------------------------------------------------------------ operations

def test_binary_ops_take_the_union_and_divide_stores_everything():
    for make in (_coo, _csr):
        x, y = make(X), make(Y)
        union = [[0, 0, 1, 1, 2, 2, 2, 2], [1, 3, 1, 2, 0, 1, 2, 3]]
        out = {op: getattr(S, op)(x, y).to_sparse_coo() for op in ("add", "subtract", "multiply", "divide")}
        assert _pattern(out["add"]) == (union, [-1., 0., 2., -6., 6., 8., 4., 8.])
        assert _pattern(out["subtract"]) == (union, [-1., 4., -2., 0., 2., 2., -4., -8.])
        assert _pattern(out["multiply"]) == (union, [-0., -4., 0., 9., 8., 15., 0., 0.])
        assert out["divide"].nnz() == 12
        with np.errstate(divide="ignore", invalid="ignore"):
            np.testing.assert_array_equal(out["divide"].to_dense().numpy(), X / Y)
    assert _pattern(S.multiply(_coo(X), 2.0)) == ([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]], [-2., 4., -6., 8., 10.])
    assert _pattern(_coo(X) * _coo(Y)) == _pattern(out["multiply"])
    np.testing.assert_array_equal((_coo(X) + paddle.to_tensor(Y)).numpy(), X + Y)  # dense operand: dense result
    assert _pattern(S.multiply(_coo(X), paddle.to_tensor(Y))) == ([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]],
                                                                  [-0., -4., 9., 8., 15.])
    assert _pattern(S.mask_as(paddle.to_tensor(Y), _coo(X))) == ([[0, 0, 1, 2, 2], [1, 3, 2, 0, 1]],
                                                                 [0., -2., -3., 2., 3.])


def test_sum_transpose_reshape_slice_as_paddle():
    coo, csr = _coo(X), _csr(X)
    assert S.sum(coo).values().numpy() == 7 and S.sum(coo).shape == [1]
    assert _pattern(S.sum(coo, axis=0)) == ([[0, 1, 2, 3]], [4., 4., -3., 2.])
    assert _pattern(S.sum(coo, axis=1, keepdim=True)) == ([[0, 1, 2], [0, 0, 0]], [1., -3., 9.])
    assert S.sum(coo, dtype="float64").dtype == paddle.float64
    assert _pattern(S.sum(csr)) == ([0, 1], [0], [7.]) and S.sum(csr).shape == [1, 1]
    assert _pattern(S.sum(csr, axis=-1, keepdim=True)) == ([0, 1, 2, 3], [0, 0, 0], [1., -3., 9.])
    hybrid = _coo([[-2., 0.], [1., 2.]], 1)
    assert _pattern(S.sum(hybrid, axis=0)) == ([[0]], [[-1., 2.]]) and S.sum(hybrid, axis=0).shape == [1, 2]
    assert _pattern(S.transpose(coo, [1, 0])) == ([[1, 3, 2, 0, 1], [0, 0, 1, 2, 2]], [-1., 2., -3., 4., 5.])
    assert _pattern(S.transpose(csr, [1, 0])) == ([0, 1, 3, 4, 5], [2, 0, 2, 1, 0], [4., -1., 5., -3., 2.])
    assert _pattern(S.reshape(coo, [4, 3])) == ([[0, 1, 2, 2, 3], [1, 0, 0, 2, 0]], [-1., 2., -3., 4., 5.])
    assert _pattern(S.reshape(csr, [4, 3])) == ([0, 1, 2, 4, 5], [1, 0, 0, 2, 0], [-1., 2., -3., 4., 5.])
    assert _pattern(S.reshape(csr, [2, 6])) == ([0, 2, 5], [1, 3, 0, 2, 3], [-1., 2., -3., 4., 5.])
    assert _pattern(S.slice(coo, [1], [1], [4])) == ([[0, 0, 1, 2], [0, 2, 1, 0]], [-1., 2., -3., 5.])
    assert _pattern(S.slice(csr, [0, 1], [0, 1], [2, 3])) == ([0, 1, 2], [0, 1], [-1., -3.])
    sliced = S.slice(_csr([[4, 0, 7, 0], [0, 0, 5, 0], [-4, 2, 0, 0]]), [0, 1], [1, 0], [3, -2])
    assert _pattern(sliced) == ([0, 0, 2], [0, 1], [-4, 2])


def test_activations_softmax_and_batch_norm_as_paddle():
    coo = _coo(X)
    assert _pattern(S.nn.functional.softmax(_csr(X)))[2] == pytest.approx(
        [0.04742587, 0.95257413, 1., 0.26894143, 0.73105860], rel=1e-6)
    assert _pattern(S.nn.functional.leaky_relu(coo, 0.5))[1] == [-0.5, 2., -1.5, 4., 5.]
    assert _pattern(S.nn.functional.relu(_csr(X)))[2] == [0., 2., 0., 4., 5.]
    assert _pattern(S.pow(coo, 2))[1] == [1., 4., 9., 16., 25.]
    x = paddle.to_tensor([[[[0.3, 0.4], [0.3, 0.07]], [[0.83, 0.37], [0.18, 0.93]]]]).to_sparse_coo(3)
    out = S.nn.BatchNorm(2)(x)  # paddle 3.3.1 (training mode: batch statistics)
    np.testing.assert_allclose(out.values().numpy(), [[-0.40730858, -0.13725483], [-0.40730858, -1.20299852],
                                                      [1.69877398, -0.23414063], [-0.88415748, 1.57439411]],
                               rtol=1e-5)


def test_products():
    rng = np.random.default_rng(0)
    a = (rng.random((6, 5)) < 0.4) * rng.standard_normal((6, 5)).astype(np.float32)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    for x in (_coo(a), _csr(a)):
        np.testing.assert_allclose(S.matmul(x, paddle.to_tensor(b)).numpy(), a @ b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose((x @ paddle.to_tensor(b)).numpy(), a @ b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(S.mv(x, paddle.to_tensor(b[:, 0])).numpy(), a @ b[:, 0], rtol=1e-5, atol=1e-6)
        product = S.matmul(x, type(x).to_sparse_csr(_csr(a.T)) if x.is_sparse_csr() else _coo(a.T))
        assert product.is_sparse_coo() == x.is_sparse_coo()
        np.testing.assert_allclose(product.to_dense().numpy(), a @ a.T, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(S.addmm(paddle.ones([6, 3]), x, paddle.to_tensor(b), 3.0, 2.0).numpy(),
                                   3 + 2 * a @ b, rtol=1e-5, atol=1e-5)
    mask = _csr(a != 0)
    masked = S.masked_matmul(paddle.to_tensor(a), paddle.to_tensor(a.T @ a[:, :5]), mask.astype("float32"))
    full = a @ (a.T @ a[:, :5])
    np.testing.assert_allclose(masked.to_dense().numpy(), np.where(a != 0, full, 0), rtol=1e-5, atol=1e-5)
    batch = rng.standard_normal((2, 4, 3)).astype(np.float32) * (rng.random((2, 4, 3)) < 0.5)
    dense = rng.standard_normal((2, 3, 2)).astype(np.float32)
    np.testing.assert_allclose(S.matmul(_csr(batch), paddle.to_tensor(dense)).numpy(), batch @ dense, rtol=1e-5,
                               atol=1e-6)


# ------------------------------------------------------------------------------------------------ transforms

def _matrix():
    rng = np.random.default_rng(1)
    a = ((rng.random((7, 6)) < 0.4) * rng.standard_normal((7, 6))).astype(np.float32)
    return a, rng.standard_normal((6, 3)).astype(np.float32)


def test_sparse_tensors_are_pytrees():
    coo, csr = _coo(X), _csr(X)
    leaves, tree = tree_flatten(coo)
    assert len(leaves) == 2 and tree_unflatten(tree, leaves).shape == [3, 4]
    assert len(tree_flatten(csr)[0]) == 3
    out = paddle.jit(lambda x: S.sin(x))(csr)
    assert out.is_sparse_csr() and out.row_bound == csr.row_bound
    np.testing.assert_allclose(out.values().numpy(), np.sin(csr.values().numpy()), rtol=1e-6)


@pytest.mark.parametrize("known_bound", [True, False])
def test_grad_of_a_product_reaches_the_values_and_the_dense_operand(known_bound):
    a, b = _matrix()
    coo = _coo(a)
    bound = coo.row_bound if known_bound else None

    def loss(values, dense):
        x = S.SparseCooTensor(coo.indices(), values, coo.shape, bound)
        return (S.matmul(x, dense) ** 2).sum()

    gv, gb = paddle.grad(loss, argnums=(0, 1))(coo.values(), paddle.to_tensor(b))
    r, c = coo.indices().numpy()
    ct = 2 * a @ b
    np.testing.assert_allclose(gv.numpy(), (ct[r] * b[c]).sum(1), rtol=1e-5)
    np.testing.assert_allclose(gb.numpy(), a.T @ ct, rtol=1e-5, atol=1e-5)
    jitted = paddle.jit(paddle.grad(loss, argnums=(0, 1)))(coo.values(), paddle.to_tensor(b))
    np.testing.assert_allclose(jitted[0].numpy(), gv.numpy(), rtol=1e-5)
    np.testing.assert_allclose(jitted[1].numpy(), gb.numpy(), rtol=1e-5, atol=1e-5)


def test_backward_paddle_style():
    a, b = _matrix()
    coo = _coo(a)
    values = paddle.to_tensor(coo.values().numpy(), stop_gradient=False)
    x = S.sparse_coo_tensor(coo.indices(), values, coo.shape, stop_gradient=False)
    S.matmul(x, paddle.to_tensor(b)).sum().backward()
    r, c = coo.indices().numpy()
    np.testing.assert_allclose(values.grad.numpy(), b.sum(1)[c], rtol=1e-5)
    assert x.grad.is_sparse_coo()


def test_vmap_over_values_over_dense_and_over_whole_sparse_tensors():
    a, b = _matrix()
    csr = _csr(a)
    rng = np.random.default_rng(2)
    many_values = paddle.to_tensor(rng.standard_normal((4, csr.nnz())).astype(np.float32))
    out = paddle.vmap(lambda v: S.matmul(csr._with_values(v), paddle.to_tensor(b)))(many_values)
    for i in range(4):
        np.testing.assert_allclose(out[i].numpy(), S.matmul(csr._with_values(many_values[i]),
                                                             paddle.to_tensor(b)).numpy(), rtol=1e-5, atol=1e-6)
    many_b = rng.standard_normal((3, 6, 3)).astype(np.float32)
    np.testing.assert_allclose(paddle.vmap(lambda d: csr @ d)(paddle.to_tensor(many_b)).numpy(), a @ many_b,
                               rtol=1e-5, atol=1e-5)
    stacked = S.SparseCooTensor(paddle.stack([_coo(a).indices()] * 2), paddle.stack([_coo(a).values()] * 2),
                                [7, 6])
    dense = paddle.vmap(lambda x: x.to_dense())(stacked)
    np.testing.assert_array_equal(dense.numpy(), np.stack([a, a]))


def test_jit_agrees_with_eager_and_keeps_static_patterns():
    a, b = _matrix()
    coo, csr = _coo(a), _csr(a)
    for x in (coo, csr):
        np.testing.assert_allclose(paddle.jit(S.matmul)(x, paddle.to_tensor(b)).numpy(), a @ b, rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_array_equal(paddle.jit(lambda x: x.to_dense())(x).numpy(), a)
        np.testing.assert_allclose(paddle.jit(lambda x: S.nn.functional.softmax(x).values())(x).numpy(),
                                   S.nn.functional.softmax(x).values().numpy(), rtol=1e-6)
    # traced union: both operands' entries side by side, the same dense value
    np.testing.assert_array_equal(paddle.jit(lambda x, y: S.add(x, y).to_dense())(coo, coo).numpy(), 2 * a)
    np.testing.assert_array_equal(paddle.jit(lambda x: x.to_sparse_csr().crows())(coo).numpy(),
                                  csr.crows().numpy())
    np.testing.assert_array_equal(paddle.jit(lambda x: x.to_sparse_coo().indices())(csr).numpy(),
                                  coo.indices().numpy())
    with pytest.raises(ConcretizationError, match="to_sparse_coo"):
        paddle.jit(lambda d: d.to_sparse_coo(2).values())(paddle.to_tensor(a))


def test_the_lowering_forms_agree_with_scipy_eagerly():
    a, b = _matrix()
    coo = _coo(a)
    rows, cols, dense = coo.indices()[0], coo.indices()[1], paddle.to_tensor(b)
    want = S.matmul(coo, dense).numpy()  # scipy's kernel
    np.testing.assert_allclose(want, a @ b, rtol=1e-5, atol=1e-6)
    segment = segment_form(rows, cols, coo.values(), dense, num_rows=7)
    ell = ell_form(rows, cols, coo.values(), dense, num_rows=7, row_bound=coo.row_bound)
    np.testing.assert_allclose(segment.numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ell.numpy(), want, rtol=1e-5, atol=1e-6)
    assert coo.row_bound == int((a != 0).sum(1).max())


# paddle 3.3.1 on the CPU, for the inputs of _seeded_inputs(): each case's result as paddle printed it (values
# rounded to 6 decimals)
PADDLE_RESULTS = {
    'tanh_csr3': {'fmt': 'csr', 'shape': [2, 3, 4], 'crows': [0, 1, 2, 5, 0, 2, 5, 5], 'cols': [3, 2, 0, 1, 2, 0, 2, 0, 2, 3], 'values': [0.82104, 0.318521, 0.920149, -0.830579, 0.336376, 0.887494, -0.353992, 0.932861, 0.635149, 0.814414]},
    'rad2deg_coo3': {'fmt': 'coo', 'shape': [2, 3, 4], 'indices': [[0, 0, 0, 0, 0, 1, 1, 1, 1, 1], [0, 1, 2, 2, 2, 0, 0, 1, 1, 1], [3, 2, 0, 1, 2, 0, 2, 0, 2, 3]], 'values': [66.463104, 18.907608, 91.100296, -68.181984, 20.053522, 80.787048, -21.199438, 96.256905, 42.971836, 65.317192]},
    'add_hybrid': {'fmt': 'coo', 'shape': [3, 4, 2], 'indices': [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 3, 0, 2, 3, 0, 1, 2, 3]], 'values': [[-6.12, -0.0], [3.21, -3.9], [-2.94, -2.4], [6.15, -0.6], [0.0, 0.48], [0.0, 2.22], [4.11, -0.0], [-0.57, -2.43], [4.5, 1.98]]},
    'multiply_hybrid': {'fmt': 'coo', 'shape': [3, 4, 2], 'indices': [[0, 1, 2]], 'values': [[[4.1616, 0.0], [0.0, 0.0], [0.0, 0.0], [1.1449, 1.69]], [[0.9604, 0.64], [0.0, 0.0], [4.2025, 0.04], [0.0, 0.0256]], [[0.0, 0.5476], [1.8769, 0.0], [0.0361, 0.6561], [2.25, 0.4356]]]},
    'reshape_coo_hybrid': {'fmt': 'coo', 'shape': [2, 6, 2], 'indices': [[0, 0, 0, 1, 1, 1, 1, 1, 1], [0, 3, 4, 0, 1, 2, 3, 4, 5]], 'values': [[-2.04, -0.0], [1.07, -1.3], [-0.98, -0.8], [2.05, -0.2], [0.0, 0.16], [0.0, 0.74], [1.37, -0.0], [-0.19, -0.81], [1.5, 0.66]]},
    'sum_hybrid_dense_axis': {'fmt': 'coo', 'shape': [3, 4, 1], 'indices': [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 3, 0, 2, 3, 0, 1, 2, 3]], 'values': [[-2.04], [-0.23], [-1.78], [1.85], [0.16], [0.74], [1.37], [-1.0], [2.16]]},
    'mask_as_hybrid': {'fmt': 'coo', 'shape': [3, 4, 2], 'indices': [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 3, 0, 2, 3, 0, 1, 2, 3]], 'values': [[-1.04, 1.0], [2.07, -0.3], [0.02, 0.2], [3.05, 0.8], [1.0, 1.16], [1.0, 1.74], [2.37, 1.0], [0.81, 0.19], [2.5, 1.66]]},
    'csr_from_lists': {'fmt': 'coo', 'shape': [3, 3], 'indices': [[0, 2, 2], [2, 0, 1]], 'values': [1.0, 2.0, 3.0]},
    'leaky_layer': {'fmt': 'csr', 'shape': [2, 3, 4], 'crows': [0, 1, 2, 5, 0, 2, 5, 5], 'cols': [3, 2, 0, 1, 2, 0, 2, 0, 2, 3], 'values': [1.16, 0.33, 1.59, -0.357, 0.35, 1.41, -0.111, 1.68, 0.75, 1.14]},
    'square_hybrid': {'fmt': 'coo', 'shape': [3, 4, 2], 'indices': [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 3, 0, 2, 3, 0, 1, 2, 3]], 'values': [[4.1616, 0.0], [1.1449, 1.69], [0.9604, 0.64], [4.2025, 0.04], [0.0, 0.0256], [0.0, 0.5476], [1.8769, 0.0], [0.0361, 0.6561], [2.25, 0.4356]]},
}


def _seeded_inputs():
    rng = np.random.default_rng(3)
    a = ((rng.random((4, 5)) < 0.5) * np.round(rng.standard_normal((4, 5)), 2)).astype("float32")
    c3 = ((rng.random((2, 3, 4)) < 0.5) * np.round(rng.standard_normal((2, 3, 4)), 2)).astype("float32")
    h = ((rng.random((3, 4, 2)) < 0.5) * np.round(rng.standard_normal((3, 4, 2)), 2)).astype("float32")
    return a, c3, h


def _paddle_cases():
    _, c3, h = _seeded_inputs()
    return {
        "tanh_csr3": lambda: S.tanh(_csr(c3)),
        "rad2deg_coo3": lambda: S.rad2deg(_coo(c3)),
        "add_hybrid": lambda: S.add(_coo(h, 2), _coo(h * 2, 2)),
        "multiply_hybrid": lambda: S.multiply(_coo(h, 1), _coo(h, 1)),
        "reshape_coo_hybrid": lambda: S.reshape(_coo(h, 2), [2, 6, 2]),
        "sum_hybrid_dense_axis": lambda: S.sum(_coo(h, 2), axis=2, keepdim=True),
        "mask_as_hybrid": lambda: S.mask_as(paddle.to_tensor(h + 1), _coo(h, 2)),
        "csr_from_lists": lambda: S.sparse_csr_tensor([0, 1, 1, 3], [2, 0, 1], [1., 2., 3.], [3, 3]).to_sparse_coo(2),
        "leaky_layer": lambda: S.nn.LeakyReLU(0.3)(_csr(c3)),
        "square_hybrid": lambda: S.square(_coo(h, 2)),
    }


@pytest.mark.parametrize("name", sorted(PADDLE_RESULTS))
def test_batched_and_hybrid_results_match_paddle(name):
    want = PADDLE_RESULTS[name]
    got = _paddle_cases()[name]()
    assert got.shape == want["shape"] and got.is_sparse_coo() == (want["fmt"] == "coo")
    if want["fmt"] == "coo":
        assert got.indices().numpy().tolist() == want["indices"]
    else:
        assert (got.crows().numpy().tolist(), got.cols().numpy().tolist()) == (want["crows"], want["cols"])
    np.testing.assert_allclose(got.values().numpy(), want["values"], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------ pca_lowrank
# (Paddle 3.3's runs on CUDA only: checked against numpy's SVD, which it equals when q = min(m, n))

@pytest.mark.parametrize("shape, center, fmt", [((7, 4), True, "coo"), ((4, 7), True, "csr"), ((6, 5), False, "coo")])
def test_pca_lowrank_is_the_svd_of_the_centred_matrix(shape, center, fmt):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape) * (rng.random(shape) < 0.5)
    x = _coo(a) if fmt == "coo" else _csr(a)
    q = min(shape)
    u, s, v = S.pca_lowrank(x, q=q, center=center)
    assert (u.shape, s.shape, v.shape) == ([shape[0], q], [q], [shape[1], q])
    target = a - a.mean(axis=0) if center else a
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(target, compute_uv=False), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(u.numpy() @ np.diag(s.numpy()) @ v.numpy().T, target, atol=1e-10)
    np.testing.assert_allclose(u.numpy().T @ u.numpy(), np.eye(q), atol=1e-10)


def test_pca_lowrank_finds_a_low_rank_structure_from_the_global_seed():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((40, 2)) @ rng.standard_normal((2, 30))  # rank 2, then centred: rank <= 2
    x = _coo(a.astype(np.float32))
    paddle.seed(7)
    u, s, v = S.pca_lowrank(x)  # q = min(6, m, n)
    assert s.shape == [6] and s.dtype == paddle.float32
    centred = a - a.mean(axis=0)
    np.testing.assert_allclose(s.numpy()[:2], np.linalg.svd(centred, compute_uv=False)[:2], rtol=1e-4)
    assert float(s.numpy()[2]) < 1e-3 * float(s.numpy()[0])
    paddle.seed(7)
    np.testing.assert_array_equal(S.pca_lowrank(x)[1].numpy(), s.numpy())
    with pytest.raises(ValueError, match="q .=31. must be"):
        S.pca_lowrank(x, q=31)


def test_the_cpu_lowering_scans_an_ellpack_table_where_rows_are_bounded():
    a, b = _matrix()
    coo = _coo(a)
    rows, cols, dense = coo.indices()[0], coo.indices()[1], paddle.to_tensor(b)

    def product(row_bound):
        return paddle.jit(lambda r, c, v, d: sparse_dense_dot(r, c, v, d, num_rows=7, row_bound=row_bound)).lower(
            rows, cols, coo.values(), dense)

    rows_scattered = "update_window_dims = [1]"  # the generic form adds whole dense rows into the result
    bounded, unbounded = product(coo.row_bound), product(None)
    assert rows_scattered not in bounded.as_text()  # (the table is built by scattering entry indices)
    assert rows_scattered in unbounded.as_text()
    assert rows_scattered in bounded.as_text("cuda")  # the generic form elsewhere
    np.testing.assert_allclose(bounded.compile()(rows, cols, coo.values(), dense).numpy(), a @ b, rtol=1e-5,
                               atol=1e-6)
