"""paddle_fn.checkpoint / remat and Paddle's fleet.utils.recompute: the same derivatives as the plain function under
every transform, with the forward pass recomputed in the backward one (visible in the IR), and the policies."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.distributed.fleet.utils import recompute

RNG = np.random.default_rng(0)
W = paddle.to_tensor(RNG.normal(size=(3, 3)))
X = paddle.to_tensor(RNG.normal(size=(2, 3)))


def block(x, w):
    return paddle.sum(paddle.tanh(paddle.matmul(x, w)) ** 2)


POLICIES = [None, paddle.checkpoint_policies.nothing_saveable, paddle.checkpoint_policies.dots_saveable]


@pytest.mark.parametrize("policy", POLICIES)
def test_derivatives_equal_the_plain_function_under_every_transform(policy):
    f = paddle.checkpoint(block, policy=policy)
    close = lambda a, b: np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)  # noqa: E731
    for got, want in zip(paddle.grad(f, (0, 1))(X, W), paddle.grad(block, (0, 1))(X, W)):
        close(got, want)
    for got, want in zip(paddle.jit(paddle.grad(f, (0, 1)))(X, W), paddle.grad(block, (0, 1))(X, W)):
        close(got, want)
    xs = paddle.stack([X, 2 * X])
    close(paddle.vmap(paddle.grad(f), in_axes=(0, None))(xs, W), paddle.vmap(paddle.grad(block), in_axes=(0, None))(xs, W))
    close(paddle.grad(lambda v: paddle.vmap(f, in_axes=(0, None))(v, W).sum())(xs),
          paddle.grad(lambda v: paddle.vmap(block, in_axes=(0, None))(v, W).sum())(xs))
    close(paddle.jvp(f, (X, W), (X, W))[1], paddle.jvp(block, (X, W), (X, W))[1])
    close(paddle.jit(lambda a, b: paddle.jvp(f, (a, b), (a, b))[1])(X, W), paddle.jvp(block, (X, W), (X, W))[1])
    close(paddle.hessian(lambda v: f(v, W))(X), paddle.hessian(lambda v: block(v, W))(X))
    close(paddle.grad(lambda v: paddle.grad(lambda u: f(u, W))(v).sum())(X),
          paddle.grad(lambda v: paddle.grad(lambda u: block(u, W))(v).sum())(X))


def _counts(f):
    ir = str(paddle.make_ir(paddle.value_and_grad(f, (0, 1)))(X, W))
    return ir.count("= tanh"), ir.count("dot_general"), ir.count("optimization_barrier")


def test_the_forward_pass_is_recomputed_and_dots_saveable_keeps_the_products():
    assert _counts(block) == (1, 3, 0)  # forward once; its product and the two transposed products
    assert _counts(paddle.checkpoint(block)) == (2, 4, 2)  # forward again in the backward pass, behind barriers
    assert _counts(paddle.checkpoint(block, policy=paddle.checkpoint_policies.dots_saveable)) == (2, 3, 2)
    assert _counts(paddle.checkpoint(block, prevent_cse=False))[2] == 0
    assert paddle.checkpoint(block, policy=paddle.checkpoint_policies.everything_saveable) is block
    assert paddle.remat is paddle.checkpoint


def test_decorator_forms_static_arguments_and_closures():
    @paddle.checkpoint(static_argnums=(1,))
    def power(x, n):
        out = x
        for _ in range(n - 1):  # Python control flow on the static argument
            out = out * x
        return out

    assert paddle.grad(lambda v: power(v, 3))(paddle.to_tensor(2.0)).item() == 12.0
    scale = paddle.to_tensor(3.0)
    # a closed-over Tensor is differentiated like an argument (a Layer's parameters)
    assert paddle.grad(lambda s: paddle.checkpoint(lambda v: v * s)(paddle.to_tensor(2.0)))(scale).item() == 2.0


def test_fleet_recompute_gives_layer_gradients_through_backward():
    paddle.seed(0)
    layer = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 2))
    x = paddle.to_tensor(RNG.normal(size=(5, 3)).astype("float32"), stop_gradient=False)
    layer(x).sum().backward()
    want = [p.grad.numpy().copy() for p in layer.parameters()] + [x.grad.numpy().copy()]
    layer.clear_gradients()
    x.clear_grad()
    recompute(layer, x).sum().backward()
    for got, ref in zip([p.grad.numpy() for p in layer.parameters()] + [x.grad.numpy()], want):
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-7)
    assert paddle.distributed.fleet.utils.recompute is recompute
    with pytest.raises(TypeError, match="bools"):
        recompute(layer, x, use_reentrant="yes")
