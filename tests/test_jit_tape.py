"""A jitted function (or a `to_static` Layer) called eagerly while the tape records: the call runs the program's
known part, which returns the residuals its reverse needs, and records one node whose reverse runs the transposed
linear part (transforms/jit.py, `_Traced.run_on_tape`), so that backward() does not run the forward again. The
gradients are eager's, op by op while the programs compile and compiled after, through a backward with
create_graph too; an output that is an input keeps the input's own gradient history."""
import importlib
import weakref

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.config import config
from paddle_fn.transforms.background_compile import wait_for_background_compiles

jit_module = importlib.import_module("paddle_fn.transforms.jit")  # the package binds the name `jit` to the function


@pytest.fixture
def programs_run(monkeypatch):
    """The names of the compiled programs each call ran, in order."""
    names = []
    run = jit_module._run

    def counted(exe, sites, tensors, out_avals, name):
        names.append(name)
        return run(exe, sites, tensors, out_avals, name)

    monkeypatch.setattr(jit_module, "_run", counted)
    return names


def _net(seed):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(6, 8), paddle.nn.Tanh(), paddle.nn.Linear(8, 3))


def _data():
    rng = np.random.default_rng(0)
    return (paddle.to_tensor(rng.standard_normal((5, 6)).astype("float32")),
            paddle.to_tensor(rng.integers(0, 3, (5,))))


def _grads(net):
    grads = {name: p.grad.numpy().copy() for name, p in net.named_parameters()}
    net.clear_gradients()
    return grads


def test_a_to_static_layer_step_runs_the_forward_once_and_gives_eager_gradients(programs_run):
    x, y = _data()
    net, twin = _net(0), _net(0)
    static_net = paddle.jit.to_static(net)
    for _ in range(3):
        del programs_run[:]
        loss = paddle.nn.functional.cross_entropy(static_net(x), y)
        loss.backward()
        # one program for the forward (with the residuals), one for the reverse: the forward is not run again
        assert len(programs_run) == 2 and programs_run[1].startswith("transpose("), programs_run
        paddle.nn.functional.cross_entropy(twin(x), y).backward()
        expected = _grads(twin)
        for name, grad in _grads(net).items():
            np.testing.assert_allclose(grad, expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_the_gradients_are_eager_ones_while_the_programs_compile(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "jit_background_compile", True)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))  # an empty disk cache: both programs compile
    x, y = _data()
    net, twin = _net(1), _net(1)
    static_net = paddle.jit.to_static(net)
    try:
        for _ in range(3):  # op by op first, compiled once the executables are ready
            paddle.nn.functional.cross_entropy(static_net(x), y).backward()
            paddle.nn.functional.cross_entropy(twin(x), y).backward()
            expected = _grads(twin)
            for name, grad in _grads(net).items():
                np.testing.assert_allclose(grad, expected[name], rtol=1e-5, atol=1e-6, err_msg=name)
            assert x.stop_gradient and x._grad_node is None  # the input is not an output of the recorded node
    finally:
        wait_for_background_compiles()


def test_an_output_that_is_an_input_leaves_the_input_alone_op_by_op(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "jit_background_compile", True)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))
    f = paddle.jit(lambda x, w: (x, x * w))
    x = paddle.to_tensor([1.0, 2.0])
    w = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    try:
        for _ in range(2):
            same, product = f(x, w)
            assert same is not x and x.stop_gradient and x._grad_node is None
            product.sum().backward()
            np.testing.assert_array_equal(w.grad.numpy(), [1.0, 2.0])
            w.clear_grad()
    finally:
        wait_for_background_compiles()


def test_outputs_without_a_cotangent_and_integer_outputs():
    f = paddle.jit(lambda v: (paddle.sin(v), paddle.cos(v), paddle.argmax(v)))
    v = paddle.to_tensor([0.5, 1.5, -0.5], stop_gradient=False)
    sin, cos, index = f(v)
    assert not sin.stop_gradient and not cos.stop_gradient and index.stop_gradient
    assert int(index) == 1
    (sin * 2.0).sum().backward()  # cos receives nothing: its cotangent is zeros
    np.testing.assert_allclose(v.grad.numpy(), 2.0 * np.cos([0.5, 1.5, -0.5]), rtol=1e-6)


def test_a_backward_with_create_graph_differentiates_through_the_residuals():
    f = paddle.jit(lambda v: (v ** 3).sum())
    v = paddle.to_tensor([1.0, -2.0, 0.5], stop_gradient=False)
    (dv,) = paddle.grad(f(v), v, create_graph=True)
    np.testing.assert_allclose(dv.numpy(), 3.0 * v.numpy() ** 2, rtol=1e-6)
    dv.sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), 6.0 * v.numpy(), rtol=1e-6)


def test_backward_frees_the_residuals():
    f = paddle.jit(lambda v: paddle.tanh(v) * v)
    v = paddle.to_tensor([0.5, -1.0], stop_gradient=False)
    out = f(v)
    node = out._grad_node[0]
    residuals = [cell.cell_contents for cell in node.vjp.__closure__
                 if isinstance(cell.cell_contents, list) and cell.cell_contents
                 and isinstance(cell.cell_contents[0], paddle.Tensor)]
    assert residuals  # the reverse holds the forward's residuals until backward
    refs = [weakref.ref(r) for r in residuals[0]]
    del residuals
    out.sum().backward()
    assert node.vjp is None and all(ref() is None for ref in refs)  # freed with the graph, as eager nodes' inputs


def test_hooks_and_retain_graph_see_the_recorded_node():
    f = paddle.jit(lambda v: v * v)
    v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    out = f(v)
    seen = []
    out.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10.0)
    out.sum().backward(retain_graph=True)
    out.sum().backward()  # the residuals are still held: a second backward through the same node
    np.testing.assert_array_equal(seen[0], [1.0, 1.0])
    np.testing.assert_allclose(v.grad.numpy(), 2 * 10.0 * 2.0 * v.numpy(), rtol=1e-6)
