"""paddle.geometric: segment reductions and graph message passing; the numbers are paddlepaddle 3.3.1's for the same
calls. They differentiate (as scatter reductions) and compile when the row count is known."""
import numpy as np
import pytest

import paddle_fn as paddle

G = paddle.geometric
X = np.arange(15, dtype="float32").reshape(5, 3) - 7
SRC, DST = np.array([0, 1, 2, 0, 4, 4]), np.array([1, 2, 1, 0, 4, 1])


def test_message_passing_as_paddle():
    x, src, dst = paddle.to_tensor(X), paddle.to_tensor(SRC), paddle.to_tensor(DST)
    np.testing.assert_array_equal(G.send_u_recv(x, src, dst, "max", out_size=6).numpy(),
                                  [[-7, -6, -5], [5, 6, 7], [-4, -3, -2], [0, 0, 0], [5, 6, 7], [0, 0, 0]])
    np.testing.assert_allclose(G.send_ue_recv(x, paddle.arange(6, dtype="float32"), src, dst, "mul", "mean").numpy(),
                               [[-21, -18, -15], [7.6666665, 10, 12.333333], [-4, -3, -2], [0, 0, 0], [20, 24, 28]],
                               rtol=1e-6)
    np.testing.assert_array_equal(G.send_uv(x, x, src, dst, "sub").numpy(), X[SRC] - X[DST])
    np.testing.assert_array_equal(G.segment_min(x, paddle.to_tensor([0, 0, 1, 3, 3])).numpy(),
                                  [[-7, -6, -5], [-1, 0, 1], [0, 0, 0], [2, 3, 4]])
    np.testing.assert_allclose(G.segment_mean(x, paddle.to_tensor([0, 0, 1, 3, 3])).numpy()[3], [3.5, 4.5, 5.5])


def test_message_passing_differentiates_and_compiles():
    weights = np.arange(15, dtype="float32").reshape(5, 3)
    grad = paddle.grad(lambda x: paddle.sum(G.send_u_recv(x, paddle.to_tensor(SRC), paddle.to_tensor(DST), "mean")
                                            * paddle.to_tensor(weights)))(paddle.to_tensor(X)).numpy()
    want = np.zeros_like(X)
    for s, d in zip(SRC, DST):
        want[s] += weights[d] / np.sum(DST == d)
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    layer = paddle.jit(lambda x, src, dst: G.send_u_recv(x, src, dst, "sum"))  # traced indices: x's row count
    np.testing.assert_array_equal(layer(paddle.to_tensor(X), paddle.to_tensor(SRC), paddle.to_tensor(DST)).numpy(),
                                  G.send_u_recv(paddle.to_tensor(X), paddle.to_tensor(SRC), paddle.to_tensor(DST)))


def test_clear_errors():
    x = paddle.to_tensor(X)
    with pytest.raises(ValueError, match="reduce_op must be one of sum, mean, max, min"):
        G.send_u_recv(x, paddle.to_tensor(SRC), paddle.to_tensor(DST), "prod")
    with pytest.raises(ValueError, match="message_op must be one of add, sub, mul, div"):
        G.send_uv(x, x, paddle.to_tensor(SRC), paddle.to_tensor(DST), "pow")
    with pytest.raises(paddle.core.errors.ShapeError, match="src_index must be a 1-D int32 or int64 Tensor"):
        G.send_u_recv(x, paddle.to_tensor([[0, 1]]), paddle.to_tensor(DST))
    with pytest.raises(ValueError, match="needs concrete ids"):
        paddle.jit(lambda x, ids: G.segment_sum(x, ids))(x, paddle.to_tensor([0, 0, 1, 1, 2]))
