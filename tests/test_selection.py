"""take and index_fill: Paddle 3.3.1's answers, numpy's take modes, errors, and grad/jit/vmap."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.errors import DTypeError

X = np.arange(12).reshape(3, 4)


def test_take_gives_paddles_and_numpys_answers():
    x = paddle.to_tensor(X)
    assert paddle.take(x, paddle.to_tensor([[0, 5], [-1, 11]])).tolist() == [[0, 5], [11, 11]]  # Paddle 3.3.1
    index = np.array([13, -13, 25, 3])
    for mode in ("wrap", "clip"):
        got = paddle.take(x, paddle.to_tensor(index), mode=mode)
        np.testing.assert_array_equal(got.numpy(), np.take(X, index, mode=mode))
    assert paddle.take(x, paddle.to_tensor([13, -13, 25]), mode="clip").tolist() == [11, 0, 11]  # Paddle 3.3.1
    assert x.take(paddle.to_tensor(np.int32(7))).shape == [] and x.take(paddle.to_tensor(np.int32(7))).item() == 7


def test_index_fill_gives_paddles_answers():
    x = paddle.to_tensor(X)
    assert paddle.index_fill(x, paddle.to_tensor([0, 2]), 1, -1).tolist() == \
        [[-1, 1, -1, 3], [-1, 5, -1, 7], [-1, 9, -1, 11]]
    assert x.astype("float32").index_fill(paddle.to_tensor([1]), 0, paddle.to_tensor(2.5)).tolist() == \
        [[0.0, 1.0, 2.0, 3.0], [2.5, 2.5, 2.5, 2.5], [8.0, 9.0, 10.0, 11.0]]
    assert paddle.index_fill(x, paddle.to_tensor([-1]), 0, 7).tolist()[2] == [7, 7, 7, 7]
    want = X.copy()
    want[:, [1, 3]] = 0
    np.testing.assert_array_equal(paddle.index_fill(x, paddle.to_tensor([3, 1, 3]), -1, 0).numpy(), want)


def test_errors():
    x = paddle.to_tensor(X)
    with pytest.raises(IndexError, match=r"take: index 12 is out of range .* size 12; indices must lie in \[-12, 12\)"):
        paddle.take(x, paddle.to_tensor([12]))
    with pytest.raises(DTypeError, match="take: index must be an int32 or int64 Tensor, got float32"):
        paddle.take(x, paddle.to_tensor([1.0]))
    with pytest.raises(ValueError, match="take: mode must be 'raise', 'wrap' or 'clip', got 'nearest'"):
        paddle.take(x, paddle.to_tensor([1]), mode="nearest")
    with pytest.raises(IndexError, match=r"index_fill: index 3 is out of range for axis 0 of x \(shape \[3, 4\]\)"):
        paddle.index_fill(x, paddle.to_tensor([3]), 0, 1)
    with pytest.raises(ValueError, match="index_fill: value must be a number or a 0-D Tensor"):
        paddle.index_fill(x, paddle.to_tensor([0]), 0, paddle.to_tensor([1, 2]))


def test_grad_jit_and_vmap():
    x = paddle.to_tensor(X.astype(np.float64))
    index = paddle.to_tensor([[1, 1], [-1, 0]])
    g = paddle.grad(lambda a: paddle.take(a, index).sum())(x).numpy()
    want = np.zeros(12)
    np.add.at(want, [1, 1, 11, 0], 1)
    np.testing.assert_array_equal(g, want.reshape(3, 4))
    g = paddle.grad(lambda a: (paddle.index_fill(a, paddle.to_tensor([1]), 1, 5.0) ** 2).sum())(x).numpy()
    want = 2 * X.astype(np.float64)
    want[:, 1] = 0
    np.testing.assert_array_equal(g, want)
    for mode in ("raise", "wrap", "clip"):
        f = lambda a, i: paddle.take(a, i, mode=mode)  # noqa: E731
        i = paddle.to_tensor([-1, 5, 0] if mode == "raise" else [14, -20, 3])
        np.testing.assert_array_equal(paddle.jit(f)(x, i).numpy(), f(x, i).numpy())
    rows = paddle.vmap(lambda r: paddle.index_fill(r, paddle.to_tensor([0]), 0, -1.0))(x)
    np.testing.assert_array_equal(rows.numpy()[:, 0], [-1, -1, -1])


def test_shard_index_gives_paddles_answers():
    labels = paddle.to_tensor([[16], [1], [19], [3]])
    assert paddle.shard_index(labels, 20, 2, 1, ignore_value=-7).tolist() == [[6], [-7], [9], [-7]]  # Paddle 3.3.1
    assert paddle.to_tensor([[5], [9]]).shard_index(10, 3, 2).tolist() == [[-1], [1]]
    with pytest.raises(ValueError, match="shard_index: need nshards >= 1 and 0 <= shard_id < nshards"):
        paddle.shard_index(labels, 20, 2, 2)
    with pytest.raises(DTypeError, match="shard_index: input must be an int32 or int64 Tensor"):
        paddle.shard_index(paddle.to_tensor([[1.0]]), 20, 2, 0)
