"""The eager fast paths: BLAS dot_general, the bit-mask select, the tape's direct reverse rules, gradient layout.

Each fast path must give exactly what the plain path gives (np.einsum / np.where / linearization), so the tests
compare against those references, including nan, inf and signed zeros.
"""
import ml_dtypes
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core import trace
from paddle_fn.prims import _blas
from paddle_fn.prims.elementwise import _select_impl
from paddle_fn.prims.reduction import _dot_general_impl
from paddle_fn.tensor.promotion import broadcast_shapes


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int32, np.int8,
                                   np.uint8, np.bool_])
def test_select_kernel_has_np_where_bits(dtype):
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(80, 90)) * 10).astype(dtype)
    b = (rng.normal(size=(80, 90)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[0, :3] = [np.nan, np.inf, -0.0]
        b[0, :3] = [-np.inf, -0.0, np.nan]
    p = rng.random((80, 90)) > 0.5
    scalar_b = np.broadcast_to(b[0, 1], b.shape)
    for x, y in ((a, b), (a, scalar_b), (np.asfortranarray(a), b)):
        got, want = _select_impl(p, x, y), np.where(p, x, y)
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dims, lhs_shape, rhs_shape", [
    ((((1,), (0,)), ((), ())), (5, 7), (7, 3)),          # x @ W
    ((((0,), (0,)), ((), ())), (7, 5), (7, 3)),          # x.T @ W: a transposed operand
    ((((1,), (1,)), ((), ())), (5, 7), (3, 7)),          # x @ W.T
    ((((2,), (1,)), ((0,), (0,))), (4, 5, 7), (4, 7, 3)),  # batched
    ((((1, 2), (2, 0)), ((), ())), (5, 6, 7), (7, 3, 6)),  # two contracting dims, out of order
    ((((0,), (0,)), ((), ())), (7,), (7,)),              # a dot product to a 0-d result
])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_dot_general_kernel_matches_einsum(dims, lhs_shape, rhs_shape, dtype):
    rng = np.random.default_rng(1)
    lhs = rng.integers(-4, 5, lhs_shape).astype(dtype)
    rhs = rng.integers(-4, 5, rhs_shape).astype(dtype)
    (lc, rc), (lb, rb) = dims
    lhs_labels, rhs_labels = list(range(lhs.ndim)), list(range(lhs.ndim, lhs.ndim + rhs.ndim))
    for l, r in zip(lc + lb, rc + rb):
        rhs_labels[r] = l
    free = [d for d in range(lhs.ndim) if d not in lc + lb]
    out_labels = list(lb) + free + [rhs_labels[d] for d in range(rhs.ndim) if d not in rc + rb]
    want = np.einsum(lhs, lhs_labels, rhs, rhs_labels, out_labels)
    got = _dot_general_impl(lhs, rhs, dimension_numbers=dims, preferred_element_type=None)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # small integers: exact in float32 too


def test_blas_matmul_restores_the_thread_setting():
    a = np.ones((4, 4), np.float32)
    np.testing.assert_array_equal(_blas.matmul(a, a, 64), np.full((4, 4), 4.0, np.float32))
    if _blas._set_local_threads is None:
        pytest.skip("numpy's BLAS is not OpenBLAS 0.3.27+")
    before = _blas._set_local_threads(3)
    _blas.matmul(a, a, 64)
    assert _blas._set_local_threads(before) == 3  # what matmul found is what it left


def _mlp_loss(params, x, labels):
    h = x
    for i, (w, b) in enumerate(params):
        h = paddle.matmul(h, w) + b
        if i == 0:
            h = paddle.nn.functional.relu(h)
    h = h / (h.max(axis=1, keepdim=True).detach() + 10.0)  # div by a constant, reduce_max
    return paddle.nn.functional.cross_entropy(h.tanh() * 3.0, labels)


def test_tape_gradients_equal_the_functional_gradients():
    rng = np.random.default_rng(2)
    raw = [(rng.normal(size=(6, 8)), rng.normal(size=8)), (rng.normal(size=(8, 4)), rng.normal(size=4))]
    x = paddle.to_tensor(rng.normal(size=(5, 6)).astype(np.float32))
    labels = paddle.to_tensor(rng.integers(0, 4, (5, 1)))
    params = [(paddle.to_tensor(w.astype(np.float32), stop_gradient=False),
               paddle.to_tensor(b.astype(np.float32), stop_gradient=False)) for w, b in raw]
    _mlp_loss(params, x, labels).backward()
    frozen = [(paddle.to_tensor(w.astype(np.float32)), paddle.to_tensor(b.astype(np.float32))) for w, b in raw]
    want = paddle.value_and_grad(_mlp_loss)(frozen, x, labels)[1]  # linearize + transpose, no tape
    for (w, b), (gw, gb) in zip(params, want):
        np.testing.assert_allclose(w.grad.numpy(), gw.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.grad.numpy(), gb.numpy(), rtol=1e-5, atol=1e-6)
        assert w.grad.numpy().flags.c_contiguous  # a weight gradient, not a transposed view


def test_max_reverse_rule_shares_ties():
    x = paddle.to_tensor([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]], stop_gradient=False)
    (x.max(axis=1).sum() + x.min()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 0.5, 0.5], [1.0, 0.0, 1.0]])


def test_cleared_gradient_accumulates_as_zero_plus_gradient():
    w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
    (w * 3.0).sum().backward()
    w.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    (w * paddle.to_tensor([-0.0, 5.0])).sum().backward()
    g = w.grad.numpy()
    np.testing.assert_array_equal(g, [0.0, 5.0])
    assert not np.signbit(g[0])  # 0 + (-0) is +0, as Paddle's accumulation into zeros gives
    (w * 1.0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 6.0])


def test_broadcast_shapes_takes_lists_and_tuples():
    assert broadcast_shapes("add", [2, 1], (3,)) == (2, 3)
    with pytest.raises(Exception, match="Broadcast dimension mismatch"):
        broadcast_shapes("add", (2,), [3])


def test_eager_binary_op_results_are_read_only_and_keep_the_operands_aval():
    # Sharing is a speed-up that both bounded caches provide together; after a long process has cycled the avals
    # cache, the shape-rule memo may hand out an older equal aval (correct, one comparison slower). Start both fresh
    # so the sharing itself is what is checked, whichever tests ran before in this worker.
    trace._shaped_array.cache_clear()
    trace._OUT_AVALS.clear()
    x, y = paddle.to_tensor(np.arange(8, dtype=np.float32)), paddle.ones([8])
    z = x + y
    np.testing.assert_array_equal(z.numpy(), np.arange(8, dtype=np.float32) + 1)
    assert not z.numpy().flags.writeable
    assert z.aval == x.aval == y.aval
    assert z.aval is x.aval  # shared, so the next op's same-(shape, dtype) check is one identity test
    assert z.stop_gradient


def test_eager_op_records_on_the_tape_only_when_a_gradient_is_needed():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    c = paddle.to_tensor([3.0, 4.0])
    assert (c + c).stop_gradient
    with paddle.no_grad():
        assert (w + c).stop_gradient
    (c + w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])


def test_eager_op_on_a_handle_rebound_to_a_traced_value_is_traced():
    # the handle still holds its old concrete array; the op must see the traced value it forwards to
    buf = paddle.to_tensor([1.0, 1.0])

    def f(x):
        buf._rebind(x * 2.0)
        return (buf + paddle.to_tensor([0.5, 0.5])).sum()

    np.testing.assert_allclose(paddle.grad(f)(paddle.to_tensor([1.0, 2.0])).numpy(), [2.0, 2.0])


def test_eager_shape_rules_are_memoized_for_record_params(monkeypatch):
    # gather's dimension numbers are a frozen dataclass: plain data, so the memo keys on them like on tuples
    from paddle_fn.prims import slicing
    calls = []
    check = slicing._check_indexing  # what gather's shape rule (and nothing else on this path) runs
    monkeypatch.setattr(slicing, "_check_indexing", lambda *a, **p: calls.append(1) or check(*a, **p))
    trace._OUT_AVALS.clear()
    x, i = paddle.to_tensor(np.arange(12.0).reshape(3, 4)), paddle.to_tensor([[1], [0], [3]])
    for _ in range(3):
        np.testing.assert_array_equal(paddle.take_along_axis(x, i, axis=1).numpy(), [[1.0], [4.0], [11.0]])
    assert len(calls) == 1
    with pytest.raises(Exception, match="gather"):  # a rule that raises is asked again, so the error stays
        slicing.gather(x, i, dimension_numbers=slicing.GatherDimensionNumbers((0,), (1,), (1,)), slice_sizes=(3, 2))


def test_eager_broadcast_results_are_read_only_copies_when_small_and_views_when_large():
    small = paddle.broadcast_to(paddle.to_tensor([1.0, 2.0]), [3, 2]).numpy()
    assert small.flags.owndata and not small.flags.writeable
    np.testing.assert_array_equal(small, [[1.0, 2.0]] * 3)
    large = paddle.broadcast_to(paddle.to_tensor(np.arange(100.0)), [100, 100]).numpy()
    assert not large.flags.owndata and not large.flags.writeable and large.strides[0] == 0
    np.testing.assert_array_equal(large[57], np.arange(100.0))
