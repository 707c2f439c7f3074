"""The eager tape: Tensor.backward, paddle.grad(outputs, inputs), stop_gradient propagation, no_grad, hooks,
detach, PyLayer, and its agreement with the functional transforms it shares the derivative rules with."""
import numpy as np
import pytest

import paddle_fn as paddle


def _t(values, dtype="float64", stop_gradient=False):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=stop_gradient)


def _mlp(w1, b1, w2, x):
    h = paddle.tanh(paddle.matmul(x, w1) + b1)
    return paddle.mean((paddle.matmul(h, w2)[:, 0] - 1.0) ** 2)


@pytest.fixture
def mlp_params():
    rng = np.random.default_rng(0)
    return [rng.normal(size=s) for s in ((3, 4), (4,), (4, 2))], rng.normal(size=(5, 3))


# ----------------------------------------------------------------------------------------------- backward

def test_backward_equals_functional_grad(mlp_params):
    (w1, b1, w2), x = mlp_params
    params = [_t(w1), _t(b1), _t(w2)]
    loss = _mlp(*params, _t(x, stop_gradient=True))
    assert loss.shape == [] and not loss.stop_gradient
    loss.backward()
    want = paddle.grad(lambda a, b, c: _mlp(a, b, c, _t(x, stop_gradient=True)), argnums=(0, 1, 2))(
        *[_t(p, stop_gradient=True) for p in (w1, b1, w2)])
    for p, g in zip(params, want):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-12)
        assert p.grad.shape == p.shape and p.grad.dtype == p.dtype


def test_backward_matches_central_differences():
    x0 = np.array([0.3, -1.2, 2.0])
    f = lambda x: paddle.sum(paddle.exp(paddle.sin(x) * x) / (1.0 + x * x))  # noqa: E731
    x = _t(x0)
    f(x).backward()
    eps = 1e-6
    fd = [(float(f(_t(x0 + eps * e, stop_gradient=True))) - float(f(_t(x0 - eps * e, stop_gradient=True)))) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-7)


def test_gradients_accumulate_until_cleared():
    x = _t([1.0, 2.0])
    (x * x).sum().backward()
    (3.0 * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 7.0])
    np.testing.assert_array_equal(x.gradient(), [5.0, 7.0])
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    x.clear_gradient(set_to_zero=False)
    assert x.grad is None and x.gradient() is None


def test_a_value_used_twice_gets_both_contributions():
    x = _t([2.0])
    y = x * 3.0
    (y * y + y).sum().backward()          # d/dx (9x^2 + 3x) = 18x + 3
    np.testing.assert_array_equal(x.grad.numpy(), [39.0])


def test_backward_with_grad_tensor_and_non_scalar_output():
    x = _t([1.0, 2.0, 3.0])
    (x * x).backward(paddle.to_tensor([1.0, 0.0, 2.0], dtype="float64"))
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 0.0, 12.0])
    y = _t([1.0, 2.0])
    (y * 5.0).backward()                  # default: ones of the output's shape
    np.testing.assert_array_equal(y.grad.numpy(), [5.0, 5.0])


def test_autograd_backward_several_outputs():
    x = _t([1.0, 2.0])
    y, z = (x * x).sum(), x * 3.0
    paddle.autograd.backward([y, z], [None, paddle.to_tensor([1.0, 2.0], dtype="float64")])
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 10.0])


def test_second_backward_needs_retain_graph():
    x = _t([1.0])
    y = paddle.exp(x) * 2.0
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0 * np.e])
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()


def test_backward_of_a_value_without_graph_is_a_clear_error():
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).sum().backward()


# ----------------------------------------------------------------------------------------------- stop_gradient

def test_stop_gradient_propagates():
    a = paddle.to_tensor([1.0, 2.0])
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    assert a.stop_gradient and not b.stop_gradient
    assert (a + a).stop_gradient
    assert not (a + b).stop_gradient
    assert not paddle.concat([a, b]).stop_gradient
    assert not b[0].stop_gradient
    assert paddle.argmax(b).stop_gradient          # integer results never need a gradient
    assert (b > 2.0).stop_gradient
    assert not b.is_leaf or b.is_leaf              # a leaf
    assert b.is_leaf and not (b * 2.0).is_leaf


def test_no_grad_context_and_decorators():
    w = _t([1.0, 2.0])
    with paddle.no_grad():
        assert not paddle.is_grad_enabled()
        assert (w * 2.0).stop_gradient
        with paddle.enable_grad():
            assert not (w * 2.0).stop_gradient
    assert paddle.is_grad_enabled()

    @paddle.no_grad()
    def f(t):
        return t * 2.0

    @paddle.no_grad
    def g(t):
        return t * 3.0

    assert f(w).stop_gradient and g(w).stop_gradient and f.__name__ == "f"
    with paddle.set_grad_enabled(False):
        assert (w + 1.0).stop_gradient


def test_detach_cuts_the_graph():
    x = _t([2.0])
    y = x * x
    z = y.detach()
    assert z.stop_gradient and z.is_leaf
    np.testing.assert_array_equal(z.numpy(), [4.0])
    (y * z).sum().backward()                         # only y's path: d/dx (x^2 * 4) = 8x
    np.testing.assert_array_equal(x.grad.numpy(), [16.0])


def test_detach_under_functional_grad_is_stop_gradient():
    g = paddle.grad(lambda x: (x * x.detach()).sum())(paddle.to_tensor([3.0]))
    np.testing.assert_array_equal(g.numpy(), [3.0])


# ----------------------------------------------------------------------------------------------- paddle.grad

def test_paddle_grad_returns_without_accumulating():
    x = _t([1.0, 2.0])
    y = (x ** 3).sum()
    (g,) = paddle.grad(y, x)
    np.testing.assert_array_equal(g.numpy(), [3.0, 12.0])
    assert x.grad is None


def test_paddle_grad_keyword_form_and_grad_outputs():
    x = _t([1.0, 2.0])
    y = x * x
    (g,) = paddle.grad(outputs=[y], inputs=[x], grad_outputs=[paddle.to_tensor([1.0, 3.0], dtype="float64")])
    np.testing.assert_array_equal(g.numpy(), [2.0, 12.0])


@pytest.mark.parametrize("order", [1, 2, 3])
def test_higher_order_with_create_graph(order):
    x0 = np.array([0.5, 1.5])
    x = _t(x0)
    g = paddle.sin(x) * x
    for _ in range(order):
        (g,) = paddle.grad(g.sum(), x, create_graph=True)
    derivs = {1: np.sin(x0) + x0 * np.cos(x0), 2: 2 * np.cos(x0) - x0 * np.sin(x0),
              3: -3 * np.sin(x0) - x0 * np.cos(x0)}
    np.testing.assert_allclose(g.numpy(), derivs[order], rtol=1e-12)
    assert not g.stop_gradient


def test_intermediate_inputs_and_unused_inputs():
    x = _t([2.0])
    h = x * x
    y = h * 3.0
    (dh, dx) = paddle.grad(y, [h, x], retain_graph=True)
    np.testing.assert_array_equal(dh.numpy(), [3.0])
    np.testing.assert_array_equal(dx.numpy(), [12.0])
    u = _t([1.0])
    with pytest.raises(ValueError, match="allow_unused=True"):
        paddle.grad(y, [x, u], retain_graph=True)
    dx, du = paddle.grad(y, [x, u], allow_unused=True)
    assert du is None


def test_no_grad_vars_stop_the_flow():
    x = _t([2.0])
    h = x * x
    y = h * x
    (dx,) = paddle.grad(y, x, no_grad_vars=[h])   # only the direct path: h = 4
    np.testing.assert_array_equal(dx.numpy(), [4.0])


def test_paddle_grad_vs_functional_hessian_vector_product():
    rng = np.random.default_rng(1)
    x0, v0 = rng.normal(size=4), rng.normal(size=4)
    f = lambda t: paddle.sum(paddle.exp(t) * paddle.cumsum(t, axis=0))  # noqa: E731
    x = _t(x0)
    (g,) = paddle.grad(f(x), x, create_graph=True)
    (hv,) = paddle.grad(g, x, grad_outputs=_t(v0, stop_gradient=True))
    want = paddle.hessian(f)(_t(x0, stop_gradient=True)).numpy() @ v0
    np.testing.assert_allclose(hv.numpy(), want, rtol=1e-12)


def test_functional_grad_still_rejects_nothing_else():
    with pytest.raises(TypeError, match="tape form"):
        paddle.grad(lambda x: x, 0, False, False, False, 3)  # JAX's five, then one more


# ----------------------------------------------------------------------------------------------- hooks, in-place

def test_hooks_on_leaves_and_intermediates():
    x = _t([1.0, 2.0])
    seen = []
    handle = x.register_hook(lambda g: g * 10.0)
    y = x * x
    y.register_hook(lambda g: seen.append(g.numpy()))
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    assert handle.remove() and not handle.remove()
    x.clear_grad()
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="stop_gradient=True"):
        paddle.to_tensor([1.0]).register_hook(lambda g: g)


def test_inplace_on_a_leaf_that_needs_grad_is_an_error():
    w = _t([1.0, 2.0])
    with pytest.raises(ValueError, match="no_grad"):
        w.add_(paddle.to_tensor([1.0], dtype="float64"))
    with paddle.no_grad():
        w.add_(paddle.to_tensor([1.0], dtype="float64"))      # how optimizers update parameters
    np.testing.assert_array_equal(w.numpy(), [2.0, 3.0])
    assert w.is_leaf and not w.stop_gradient


def test_modifying_a_saved_leaf_before_backward_is_detected():
    w = _t([1.0, 2.0])
    y = (w * w).sum()
    with paddle.no_grad():
        w.set_value(np.array([5.0, 5.0]))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_inplace_on_intermediate_results_is_differentiated():
    x = _t([1.0, 2.0, 3.0])
    y = x * 2.0
    y[0] = 10.0                                       # the first element no longer depends on x
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 2.0, 2.0])


# ----------------------------------------------------------------------------------------------- transforms

def test_jit_function_on_tape_tensors_is_differentiated():
    f = paddle.jit(lambda a, b: paddle.sum(paddle.tanh(a * b)))
    a, b = _t([0.1, 0.2]), _t([1.0, -1.0], stop_gradient=True)
    y = f(a, b)
    assert not y.stop_gradient
    y.backward()
    np.testing.assert_allclose(a.grad.numpy(), (1 - np.tanh([0.1, -0.2]) ** 2) * [1.0, -1.0], rtol=1e-12)


def test_functional_transforms_accept_tape_tensors():
    x = _t([1.0, 2.0])
    np.testing.assert_array_equal(paddle.grad(lambda t: (t * t).sum())(x).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(paddle.vmap(lambda t: t * 2.0)(x).numpy(), [2.0, 4.0])
    assert x.grad is None


def test_closure_over_a_leaf_inside_control_flow():
    w = _t([0.5, -0.5])
    c = paddle.to_tensor(np.ones(2))
    out = paddle.fori_loop(0, 3, lambda i, h: h * w + 1.0, c)
    out.sum().backward()
    f = lambda ww: paddle.sum(paddle.fori_loop(0, 3, lambda i, h: h * ww + 1.0, c))  # noqa: E731
    np.testing.assert_allclose(w.grad.numpy(), paddle.grad(f)(_t([0.5, -0.5], stop_gradient=True)).numpy())


# ----------------------------------------------------------------------------------------------- PyLayer

class _Cube(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensor()
        return dy * 3.0 * ctx.scale * x ** 2


def test_pylayer_eager_and_double_backward():
    x = _t([1.0, 2.0])
    y = _Cube.apply(x, 2.0)
    assert not y.stop_gradient
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 24.0])
    (g,) = paddle.grad(_Cube.apply(x, 1.0).sum(), x, create_graph=True)
    (g2,) = paddle.grad(g.sum(), x)
    np.testing.assert_array_equal(g2.numpy(), [6.0, 12.0])


def test_pylayer_under_functional_grad_and_jit():
    f = paddle.jit(paddle.grad(lambda t: _Cube.apply(t, 1.0).sum()))
    np.testing.assert_array_equal(f(paddle.to_tensor([3.0])).numpy(), [27.0])


def test_pylayer_backward_is_what_is_used():
    class Clip(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, dy):
            return paddle.clip(dy, -1.0, 1.0)

    x = _t([1.0])
    (Clip.apply(x) * 5.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0])


def test_pylayer_several_outputs_and_non_differentiable():
    class Split(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            idx = paddle.argmax(x)
            ctx.mark_non_differentiable(idx)
            return x * y, x + y, idx

        @staticmethod
        def backward(ctx, d_prod, d_sum, d_idx):
            return d_prod + d_sum, None

    x, y = _t([1.0, 2.0]), _t([3.0, 4.0])
    prod, total, idx = Split.apply(x, y)
    assert idx.stop_gradient
    (prod.sum() + total.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])
    assert y.grad is None


def test_pylayer_wrong_number_of_gradients():
    class Bad(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, dz):
            return dz

    x = _t([1.0])
    with pytest.raises(ValueError, match="one gradient"):
        Bad.apply(x, _t([2.0])).sum().backward()
    with pytest.raises(TypeError, match="apply"):
        Bad()


# ----------------------------------------------------------------------------------------------- autograd.jacobian

def test_tape_jacobian_and_hessian_equal_functional_forms():
    rng = np.random.default_rng(2)
    x0 = rng.normal(size=3)
    x = _t(x0)
    f = lambda t: paddle.sin(t) * paddle.sum(t * t)  # noqa: E731
    J = paddle.autograd.jacobian(f(x), x)
    np.testing.assert_allclose(J[:].numpy(), paddle.jacrev(f)(_t(x0, stop_gradient=True)).numpy(), rtol=1e-12)
    s = lambda t: paddle.sum(paddle.exp(t) * t)  # noqa: E731
    H = paddle.autograd.hessian(s(x), x)
    np.testing.assert_allclose(H[:].numpy(), paddle.hessian(s)(_t(x0, stop_gradient=True)).numpy(), rtol=1e-12)
    Jb = paddle.autograd.jacobian(x.reshape([1, 3]) * 2.0, x.reshape([1, 3]), batch_axis=0)
    assert tuple(Jb.shape) == (1, 3, 3)


def test_tape_jacobian_blocks_act_as_their_value():
    # Paddle's paddle.autograd Jacobian forwards Tensor attributes and operators to its evaluated whole
    x = _t([1.0, 2.0, 3.0])
    H = paddle.autograd.hessian(paddle.sum(x * x * x), x)
    expected = np.diag([6.0, 12.0, 18.0])
    np.testing.assert_allclose(H.numpy(), expected, rtol=1e-6)
    assert H.dtype == paddle.float64 and H.flatten().shape == [9]
    np.testing.assert_allclose((H + 1.0).numpy(), expected + 1.0, rtol=1e-6)
    np.testing.assert_allclose((2.0 * H).numpy(), 2.0 * expected, rtol=1e-6)
    np.testing.assert_allclose((H @ H).numpy(), expected @ expected, rtol=1e-6)
    np.testing.assert_allclose((H % 5.0).numpy(), expected % 5.0, rtol=1e-6)
    np.testing.assert_array_equal((H > H).numpy(), np.zeros((3, 3), bool))
    np.testing.assert_array_equal((H == H).numpy(), np.ones((3, 3), bool))
    with pytest.raises(AttributeError, match="_nothing"):
        H._nothing


def test_tape_hessian_of_an_unused_input_is_zero():
    x, y = _t([[1.0, 2.0], [3.0, 4.0]]), _t([[5.0], [6.0]])
    H = paddle.autograd.hessian(paddle.sum(x * x, axis=1, keepdim=True), (x, y), batch_axis=0)
    np.testing.assert_allclose(H[0][0][:].numpy(), np.broadcast_to(2.0 * np.eye(2), (2, 2, 2)))
    for block in (H[0][1], H[1][0], H[1][1]):   # y is not used: its rows and columns are zero, not an error
        assert not block[:].numpy().any()
    assert H[1][1][:].shape == [2, 1, 1]


def test_reshape_to_the_same_shape_is_a_new_tensor_on_the_tape():
    # as in Paddle, writing into a trainable leaf's reshape is allowed: the reshape is not the leaf
    x = _t([1.0, 2.0])
    flat = paddle.reshape(x, [-1])
    assert flat is not x and not flat.is_leaf and not flat.stop_gradient
    flat[0] = 5.0
    (flat * x).sum().backward()
    # sum(flat * x) = 5*x0 + x1*x1: flat[0] no longer depends on x0, so only x's own factor counts there
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 4.0])
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0])


def test_tensor_name():
    t = paddle.to_tensor([1.0])
    assert t.name.startswith("generated_tensor_")
    assert t.name == t.name
    t.name = "weights"
    assert t.name == "weights"


def test_set_value_copies_without_history():
    w = _t([1.0, 2.0])
    w.set_value(w * 3.0)                               # allowed on a trainable leaf, as in Paddle
    assert w.is_leaf and not w.stop_gradient
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [6.0, 12.0])


def test_autograd_state_is_one_slot_that_most_tensors_leave_empty():
    assert not {"_grad_node", "_grad", "_grad_hooks", "_leaf"} & set(paddle.Tensor.__slots__)
    x = paddle.to_tensor([1.0, 2.0])
    assert (x * 2.0)._autograd is None  # nothing recorded: no state at all
    w = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    y = (w * x).sum()
    assert y._autograd is not None and y._autograd.node is not None and w._autograd is None
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0])
    assert w._autograd.grad is w.grad and w.is_leaf and not y.is_leaf


def test_assign_with_output_rebinds_it_as_paddle_does():
    # Paddle 3.3.1: output takes x's shape, dtype and gradient history and is returned
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    out = paddle.zeros([2, 2], dtype="int64")
    kept = out.snapshot()
    assert paddle.assign(x * 2.0, output=out) is out
    assert out.shape == [3] and out.dtype == paddle.float32 and not out.stop_gradient
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])
    assert kept.shape == [2, 2]  # the old value is untouched: values are never written
    with pytest.raises(TypeError, match="output must be a Tensor"):
        paddle.assign(x, output=np.zeros(3))


@pytest.mark.parametrize("op", ["round", "floor", "ceil", "sign", "trunc"])
def test_a_leaf_reached_only_through_zero_gradients_gets_zeros(op):
    # Paddle 3.3.1: x.grad and paddle.grad are zeros (not None) behind an op whose gradient is zero
    x = _t([1.2, -0.7])
    getattr(paddle, op)(x * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
    (g,) = paddle.grad(getattr(paddle, op)(x * 2.0).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.0])
    assert g.stop_gradient


def test_a_held_grad_shows_later_accumulation_and_clear_grad():
    # Paddle 3.3.1: .grad is updated in place by backward() and zeroed in place by clear_grad()
    x = _t([1.0, 2.0])
    (x * 2.0).sum().backward()
    held = x.grad
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(held.numpy(), [5.0, 5.0])
    assert held is x.grad
    x.clear_grad()
    np.testing.assert_array_equal(held.numpy(), [0.0, 0.0])
    seed = paddle.to_tensor([1.0, 1.0], dtype="float64")
    leaf = _t([1.0, 2.0])
    leaf.backward(seed)
    leaf.backward(seed)
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0])  # the seed is never written through
    np.testing.assert_array_equal(leaf.grad.numpy(), [2.0, 2.0])
