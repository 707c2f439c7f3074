"""x[index] against numpy (with Paddle 2.3's shape-[1] rule), under tracing, and x.at[...] updates."""
import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn import tensor as T
from paddle_fn.core.errors import ConcretizationError


X = np.arange(2 * 3 * 4, dtype=np.float64).reshape(2, 3, 4)

INDICES = [
    1, -1, (0, 2), (1, -1, 3), slice(None, None, -1), (slice(None), slice(None, None, -1)),
    (Ellipsis, 1), (Ellipsis, slice(1, 3)), (None, 0), (0, None, slice(1, None, 2)), (slice(None), None),
    (slice(-2, None), slice(5, 0, -2)), (slice(3, 1),), (0, slice(None), slice(None, None, -3)),
    (np.array([1, 0, 1]),), (slice(None), np.array([2, 0])), (np.array([0, 1]), np.array([2, 1])),
    (np.array([0, 1]), slice(None), np.array([3, -1])),  # separated advanced indices: their dims go first
    (slice(None), np.array([[0], [2]]), np.array([1, 3])),  # adjacent, broadcast index arrays
    (1, slice(None), np.array([0, 2])),  # an int counts as an advanced index next to an array
    (Ellipsis, np.array([-1])), (None, slice(None), np.array([1])),
]


def _expected(index):
    return X[index]


@pytest.mark.parametrize("index", INDICES, ids=[str(i) for i in range(len(INDICES))])
def test_getitem_matches_numpy(index):
    expected = _expected(index)
    # a constant is indexed with numpy directly; one that needs a gradient goes through the primitives and the tape
    for x in (T.to_tensor(X), T.to_tensor(X, stop_gradient=False)):
        out = x[index]
        assert out.shape == list(expected.shape) and out.dtype == "float64"
        np.testing.assert_array_equal(out.numpy(), expected)
        assert out.stop_gradient is x.stop_gradient


def test_getitem_under_jit_matches_numpy():
    basic = [i for i in INDICES if not any(isinstance(it, np.ndarray) for it in (i if type(i) is tuple else (i,)))]
    outs = pf.jit(lambda x: [x[i] for i in basic])(T.to_tensor(X))  # one program for every basic index
    for index, out in zip(basic, outs):
        np.testing.assert_array_equal(out.numpy(), _expected(index))


def test_integer_index_of_1d_tensor_is_0d():
    x = T.to_tensor([5, 6, 7])
    assert x[0].shape == []
    assert x[-1].numpy().shape == () and x[-1].item() == 7
    assert [v.shape for v in x] == [[], [], []]
    assert x[0:1].shape == [1]


def test_tensor_indices_and_lists():
    x = T.to_tensor(X)
    idx = T.to_tensor([1, 0])
    np.testing.assert_array_equal(x[idx].numpy(), X[[1, 0]])
    np.testing.assert_array_equal(x[:, [0, 2]].numpy(), X[:, [0, 2]])
    np.testing.assert_array_equal(x[T.to_tensor([1])].numpy(), X[[1]])


def test_bool_mask_eager():
    x = T.to_tensor(X)
    np.testing.assert_array_equal(x[x > 10].numpy(), X[X > 10])
    np.testing.assert_array_equal(x[np.array([True, False])].numpy(), X[np.array([True, False])])
    np.testing.assert_array_equal(x[:, np.array([True, False, True])].numpy(), X[:, np.array([True, False, True])])


def test_bool_mask_under_vmap_is_a_clear_error():
    with pytest.raises(ConcretizationError, match="boolean mask"):
        pf.vmap(lambda r: r[r > 0])(T.to_tensor(X[0]))


def test_out_of_range_errors():
    x = T.to_tensor(X)
    with pytest.raises(IndexError, match="out of bounds"):
        x[2]
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, [0, 3]]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0, 0]


def test_indexing_traces_to_slice_and_gather():
    ir = str(pf.make_ir(lambda x: x[0, ::-1] + x[:, [1, 0]][1, 0])(T.to_tensor(X)))
    assert "slice" in ir and "rev" in ir and "gather" in ir


def test_traced_integer_index_under_vmap():
    x = T.to_tensor(X[0])                        # [3, 4]
    idx = T.to_tensor(np.array([[0, 3], [2, -1], [1, 1]]))  # one index vector per row
    out = pf.vmap(lambda row, i: row[i])(x, idx)
    np.testing.assert_array_equal(out.numpy(), np.take_along_axis(X[0], np.array([[0, 3], [2, 3], [1, 1]]), 1))


def test_grad_through_indexing():
    x = T.to_tensor(np.arange(6, dtype=np.float64).reshape(2, 3))
    g = pf.grad(lambda v: (v[:, [0, 0, 2]] * 2.0).sum() + v[1, ::-1].sum())(x)
    np.testing.assert_allclose(g.numpy(), [[4.0, 0.0, 2.0], [5.0, 1.0, 3.0]])


def test_grad_through_a_bool_mask_on_concrete_values():
    x = T.to_tensor([-1.0, 2.0, 3.0])
    g = pf.grad(lambda v: (v[v > 0] ** 2).sum())(x)
    np.testing.assert_allclose(g.numpy(), [0.0, 4.0, 6.0])


@pytest.mark.parametrize("index", [1, (0, slice(1, 3)), (slice(None), [0, 2]), (Ellipsis, -1),
                                   (np.array([1, 0]), 0, slice(None, None, -1))])
def test_at_set_add_multiply_get(index):
    x = T.to_tensor(X)
    sel = X[index]
    upd = np.arange(sel.size, dtype=np.float64).reshape(sel.shape) + 100
    for how, fn in (("set", lambda a, u: u), ("add", lambda a, u: a + u), ("multiply", lambda a, u: a * u)):
        expected = X.copy()
        expected[index] = fn(X[index], upd)
        out = getattr(x.at[index], how)(T.to_tensor(upd))
        assert out.shape == list(X.shape) and out.dtype == "float64"
        np.testing.assert_array_equal(out.numpy(), expected)
    np.testing.assert_array_equal(x.at[index].get().numpy(), _expected(index))
    np.testing.assert_array_equal(x.numpy(), X)  # functional: x is unchanged


def test_at_broadcasts_scalar_and_accumulates_repeated_indices():
    x = T.zeros([4], dtype="int64")
    np.testing.assert_array_equal(x.at[[0, 0, 2]].add(1).numpy(), [2, 0, 1, 0])
    np.testing.assert_array_equal(x.at[1:].set(7).numpy(), [0, 7, 7, 7])


def test_at_is_differentiable():
    x = T.to_tensor([1.0, 2.0, 3.0], dtype="float64")
    g = pf.grad(lambda v: (v.at[1].set(v[0] * 5.0) ** 2).sum())(x)
    # out = [v0, 5 v0, v2]: d/dv0 = 2 v0 + 50 v0, d/dv1 = 0, d/dv2 = 2 v2
    np.testing.assert_allclose(g.numpy(), [52.0, 0.0, 6.0])


def test_setitem_updates_eager_tensor_in_place():
    x = T.to_tensor([1.0, 2.0, 3.0])
    x[1] = 9.0
    x[T.to_tensor([0, 2])] = T.to_tensor([-1.0, -3.0])
    np.testing.assert_array_equal(x.numpy(), [-1.0, 9.0, -3.0])


def test_setitem_on_a_traced_value_is_functional():
    def f(v):
        v[0] = 1.0  # rebinds v to v.at[0].set(1.0) (paddle_fn.tensor.inplace)
        return v
    np.testing.assert_array_equal(pf.vmap(f)(T.zeros([2, 3])).numpy(), [[1, 0, 0], [1, 0, 0]])


# ---------------------------------------------------------------------------------------------- gather/scatter family

def test_gather_nd_and_scatter_nd():
    idx = np.array([[1, 2], [0, -1], [1, 0]])
    np.testing.assert_array_equal(T.gather_nd(T.to_tensor(X), T.to_tensor(idx)).numpy(), X[idx[:, 0], idx[:, 1]])
    np.testing.assert_array_equal(T.gather_nd(T.to_tensor(X), T.to_tensor(np.array([[[1]], [[0]]]))).numpy(),
                                  X[[[1], [0]]])
    updates = np.ones((3, 4))
    expected = X.copy()
    np.add.at(expected, (idx[:, 0], idx[:, 1]), updates)
    np.testing.assert_array_equal(T.scatter_nd_add(T.to_tensor(X), T.to_tensor(idx), T.to_tensor(updates)).numpy(),
                                  expected)
    expected = np.zeros((3, 2))
    np.add.at(expected, [0, 2, 0], [[1, 2], [3, 4], [5, 6]])
    out = T.scatter_nd(T.to_tensor([[0], [2], [0]]), T.to_tensor(np.array([[1, 2], [3, 4], [5, 6]], np.float64)),
                       [3, 2])
    np.testing.assert_array_equal(out.numpy(), expected)
    with pytest.raises(pf.ShapeError, match="updates"):
        T.scatter_nd_add(T.to_tensor(X), T.to_tensor(idx), T.ones([3]))


def test_scatter_overwrite_semantics_match_paddle():
    x = T.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    index = T.to_tensor([2, 1, 0, 1])
    updates = T.to_tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    # overwrite=True: the last update to a row wins; overwrite=False: hit rows are zeroed, then updates add up
    np.testing.assert_array_equal(T.scatter(x, index, updates).numpy(), [[3, 3], [4, 4], [1, 1]])
    np.testing.assert_array_equal(T.scatter(x, index, updates, overwrite=False).numpy(), [[3, 3], [6, 6], [1, 1]])
    gx, gu = pf.grad(lambda a, u: (T.scatter(a, index, u) * T.to_tensor([[1.0], [2.0], [3.0]])).sum(),
                     argnums=(0, 1))(x, updates)
    np.testing.assert_array_equal(gx.numpy(), np.zeros((3, 2)))
    np.testing.assert_array_equal(gu.numpy(), [[3, 3], [0, 0], [1, 1], [2, 2]])
    out = pf.jit(lambda a, u: T.scatter(a, index, u))(x, updates)
    np.testing.assert_array_equal(out.numpy(), [[3, 3], [4, 4], [1, 1]])


def test_index_sample_take_and_put_along_axis():
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[3, 0], [1, 1], [2, 3]])
    np.testing.assert_array_equal(T.index_sample(T.to_tensor(x), T.to_tensor(idx)).numpy(),
                                  np.take_along_axis(x, idx, 1))
    rows = np.broadcast_to(np.arange(3)[:, None], idx.shape)
    for reduce in ("assign", "add", "multiply"):
        expected = x.copy()
        if reduce == "add":  # repeated indices accumulate, as a scatter-add
            np.add.at(expected, (rows, idx), 5.0)
        elif reduce == "multiply":  # and multiply once per update, as Paddle 3.3 ([1, 1] in row 1: twice)
            np.multiply.at(expected, (rows, idx), 5.0)
        else:
            np.put_along_axis(expected, idx, 5.0, 1)
        out = T.put_along_axis(T.to_tensor(x), T.to_tensor(idx), 5.0, 1, reduce=reduce)
        np.testing.assert_array_equal(out.numpy(), expected)
    col = np.array([[0, 2, 1, 0]])
    expected = x.copy()
    np.put_along_axis(expected, col, -1.0, 0)
    np.testing.assert_array_equal(T.put_along_axis(T.to_tensor(x), T.to_tensor(col), -1.0, 0).numpy(), expected)
    batched = pf.vmap(lambda r, i: T.index_sample(r[None], i[None]))(T.to_tensor(x), T.to_tensor(idx))
    np.testing.assert_array_equal(batched.numpy()[:, 0], np.take_along_axis(x, idx, 1))
