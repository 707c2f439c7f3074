"""LBFGS (Paddle 3.3): three steps on a Rosenbrock-like problem land where paddlepaddle 3.3.1 lands (float64, with
and without the strong-Wolfe line search, the same number of closure calls), and a quadratic is solved."""
import numpy as np
import pytest

import paddle_fn as paddle

# paddlepaddle 3.3.1, float64: the parameters, the last loss and the number of closure calls after 3 steps
PADDLE = {
    None: ([-0.9896783737231294, 0.9773373281710601, 0.5940980148125566], 4.542615331802928, 24),
    "strong_wolfe": ([0.4014754179150434, 0.16708725307016148, 0.12557057990688292], 0.3668891754786754, 30),
}


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_three_steps_land_where_paddle_lands(line_search_fn):
    w = paddle.create_parameter([3], "float64", default_initializer=paddle.nn.initializer.Assign(
        np.array([-1.2, 1.0, 0.5])))
    opt = paddle.optimizer.LBFGS(learning_rate=1 if line_search_fn else 0.1, max_iter=8, history_size=4,
                                 line_search_fn=line_search_fn, parameters=[w])
    losses = []

    def closure():
        opt.clear_grad()
        loss = (100 * (w[1] - w[0] ** 2) ** 2 + (1 - w[0]) ** 2 + (w[2] - w[1]) ** 2 * 3).sum()
        loss.backward()
        losses.append(float(loss))
        return loss

    for _ in range(3):
        opt.step(closure)
    want_w, want_loss, want_calls = PADDLE[line_search_fn]
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-12)
    assert abs(losses[-1] - want_loss) < 1e-12 and len(losses) == want_calls


def test_solves_a_quadratic_and_checks_its_arguments():
    a = paddle.to_tensor([[3.0, 1.0], [1.0, 2.0]], dtype="float64")
    b = paddle.to_tensor([1.0, -1.0], dtype="float64")
    x = paddle.nn.Parameter(paddle.zeros([2], dtype="float64"))
    opt = paddle.optimizer.LBFGS(parameters=[x], line_search_fn="strong_wolfe")

    def closure():
        opt.clear_grad()
        loss = 0.5 * (x * (a @ x)).sum() - (b * x).sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a.numpy(), b.numpy()), rtol=1e-6)  # tolerance_grad
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe'"):
        paddle.optimizer.LBFGS(parameters=[x], line_search_fn="armijo")
