"""tensor_split, h/v/dsplit, the stacks, atleast_nd, unflatten and narrow: against numpy (and the answers
Paddle 3.3.1 gives where numpy has no counterpart), under grad, jit and vmap, and their errors."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import ShapeError

X = np.arange(24.0).reshape(2, 3, 4)


def _np(ts):
    return [t.numpy() for t in ts]


@pytest.mark.parametrize("n, axis", [(1, 0), (3, -1), (4, 2), (5, 1), (2, 0)])
def test_tensor_split_into_sections_is_numpys_array_split(n, axis):
    for got, want in zip(_np(paddle.tensor_split(paddle.to_tensor(X), n, axis=axis)),
                         np.array_split(X, n, axis=axis), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("points", [[1, 3], [-1], [3, 1], [0, 0, 10], [-10, 2], []])
def test_tensor_split_at_indices_is_numpys(points):
    for got, want in zip(_np(paddle.tensor_split(paddle.to_tensor(X), points, axis=2)),
                         np.array_split(X, points, axis=2), strict=True):
        np.testing.assert_array_equal(got, want)


def test_tensor_split_gives_paddles_answers():
    x = paddle.arange(10)
    assert [t.tolist() for t in paddle.tensor_split(x, 3)] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert [t.tolist() for t in paddle.tensor_split(x, [7, 2])] == [[0, 1, 2, 3, 4, 5, 6], [], [2, 3, 4, 5, 6, 7, 8, 9]]
    assert [t.shape for t in x.reshape([2, 5]).tensor_split(paddle.to_tensor(2), axis=paddle.to_tensor(1))] == \
        [[2, 3], [2, 2]]


@pytest.mark.parametrize("fn, np_fn, shape", [
    (paddle.hsplit, np.hsplit, (6,)), (paddle.hsplit, np.hsplit, (2, 6)), (paddle.vsplit, np.vsplit, (4, 3)),
    (paddle.dsplit, np.dsplit, (1, 2, 6))])
def test_hsplit_vsplit_dsplit_are_numpys(fn, np_fn, shape):
    a = np.arange(float(np.prod(shape))).reshape(shape)
    for arg in (2, [1, 4]):
        for got, want in zip(_np(fn(paddle.to_tensor(a), arg)), np_fn(a, arg), strict=True):
            np.testing.assert_array_equal(got, want)
    assert [t.shape for t in paddle.hsplit(paddle.ones([2, 5]), 3)] == [[2, 2], [2, 2], [2, 1]]  # uneven, as Paddle


@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (1, 3)], [(), ()], [(2, 3, 4), (2, 3, 4)]])
def test_stacks_are_numpys(shapes):
    arrays = [np.arange(float(np.prod(s))).reshape(s) + 10 * i for i, s in enumerate(shapes)]
    tensors = [paddle.to_tensor(a) for a in arrays]
    for fn, np_fn in ((paddle.vstack, np.vstack), (paddle.row_stack, np.vstack), (paddle.dstack, np.dstack),
                      (paddle.column_stack, np.column_stack), (paddle.hstack, np.hstack)):
        try:
            want = np_fn(arrays)
        except ValueError:  # shapes numpy cannot stack this way: a ShapeError (a ValueError) here too
            with pytest.raises(ShapeError, match="concat: shapes"):
                fn(tensors)
            continue
        np.testing.assert_array_equal(fn(tensors).numpy(), want)
    np.testing.assert_array_equal(paddle.hstack([paddle.ones([2, 3]), paddle.zeros([2, 1])]).numpy(),
                                  np.hstack([np.ones((2, 3)), np.zeros((2, 1))]))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
def test_atleast_nd_are_numpys(shape):
    a = np.ones(shape)
    for fn, np_fn in ((paddle.atleast_1d, np.atleast_1d), (paddle.atleast_2d, np.atleast_2d),
                      (paddle.atleast_3d, np.atleast_3d)):
        assert tuple(fn(paddle.to_tensor(a)).shape) == np_fn(a).shape
    many = paddle.atleast_2d(paddle.to_tensor(a), 5.0)
    assert isinstance(many, list) and [tuple(t.shape) for t in many] == [np.atleast_2d(a).shape, (1, 1)]


def test_unflatten_and_narrow():
    x = paddle.to_tensor(X)
    assert paddle.unflatten(x, -1, [2, -1]).shape == [2, 3, 2, 2]
    assert x.unflatten(1, (3, 1)).shape == [2, 3, 1, 4]
    np.testing.assert_array_equal(paddle.narrow(x, 2, 1, 2).numpy(), X[:, :, 1:3])
    np.testing.assert_array_equal(x.narrow(-1, -3, 2).numpy(), X[:, :, 1:3])
    np.testing.assert_array_equal(paddle.narrow(x, 0, paddle.to_tensor(1), 1).numpy(), X[1:2])


def test_they_differentiate_jit_and_vmap():
    x = paddle.to_tensor(X)

    def f(t):
        a, b, _ = paddle.tensor_split(t, [1, 3], axis=-1)
        stacked = paddle.vstack([paddle.narrow(b, 1, 0, 2), paddle.unflatten(b, -1, [2, 1])[..., 0][:, 1:]])
        return (paddle.hstack([stacked, stacked]) ** 2).sum() + (a * 3).sum()
    grad = paddle.grad(f)(x).numpy()
    want = np.zeros_like(X)
    want[:, :, 0] = 3
    want[:, :, 1:3] = 4 * X[:, :, 1:3]
    want[:, 1, 1:3] = 8 * X[:, 1, 1:3]  # row 1 is in both halves of the stack
    np.testing.assert_allclose(grad, want)
    np.testing.assert_allclose(paddle.jit(f)(x).numpy(), f(x).numpy())
    batched = paddle.vmap(lambda t: paddle.column_stack([t, t * 2]))(paddle.to_tensor(np.arange(6.0).reshape(2, 3)))
    np.testing.assert_array_equal(batched.numpy(), [np.column_stack([r, 2 * r]) for r in np.arange(6.0).reshape(2, 3)])


def test_bad_input_is_a_clear_error():
    with pytest.raises(ShapeError, match="tensor_split: num_or_indices is 0"):
        paddle.tensor_split(paddle.ones([3]), 0)
    with pytest.raises(ShapeError, match="tensor_split: x is 0-D"):
        paddle.tensor_split(paddle.to_tensor(1.0), 2)
    with pytest.raises(ShapeError, match="vsplit: x has 1 dimension.*at least 2"):
        paddle.vsplit(paddle.ones([3]), 2)
    with pytest.raises(ShapeError, match="dsplit: x has 2 dimension.*at least 3"):
        paddle.dsplit(paddle.ones([3, 2]), 2)
    with pytest.raises(ShapeError, match=r"narrow: start \(8\) \+ length \(5\) exceeds dimension 0"):
        paddle.narrow(paddle.arange(10), 0, 8, 5)
    with pytest.raises(ShapeError, match="unflatten: shape \\[4, 2\\] holds 8 elements, but dimension 1"):
        paddle.unflatten(paddle.ones([2, 6]), 1, [4, 2])
    with pytest.raises(ShapeError, match="may hold -1 once"):
        paddle.unflatten(paddle.ones([2, 6]), 1, [-1, -1])
    with pytest.raises(TypeError, match="vstack: x must be a non-empty list or tuple of Tensors, got Tensor"):
        paddle.vstack(paddle.ones([2, 3]))
    with pytest.raises(TypeError, match="atleast_1d\\(\\) needs at least one input"):
        paddle.atleast_1d()
