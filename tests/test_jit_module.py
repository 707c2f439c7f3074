"""paddle.jit as Paddle's module (and still the jit transform), to_static on functions, methods and Layers with the
eager tape, and jit.save / jit.load / TranslatedLayer with dynamic dimensions."""
import json
import os

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.jit import TranslatedLayer, load, save, to_static
from paddle_fn.static import InputSpec

F = paddle.nn.functional


class MLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)
        self.fc2 = paddle.nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class RunningMean(paddle.nn.Layer):
    """A buffer updated in train mode only, and a mode-dependent output: exercises buffers and the mode key."""

    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(3, 3)
        self.register_buffer("mean", paddle.zeros([3]))

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            self.mean = self.mean * 0.5 + y.mean(axis=0) * 0.5
            return y * 2.0
        return y - self.mean


# ----------------------------------------------------------------------------------------------- the module

def test_jit_is_a_callable_module():
    import paddle_fn.jit as jit_module
    assert paddle.jit is jit_module
    f = paddle.jit(lambda x: x * 3.0)
    assert f(paddle.to_tensor([1.0])).numpy().tolist() == [3.0]
    g = paddle.jit(static_argnums=1)(lambda x, n: x * n)
    assert g(paddle.to_tensor([2.0]), 4).numpy().tolist() == [8.0]
    assert isinstance(paddle.jit(lambda x: x + 1).lower(paddle.ones([2])), paddle.jit.Lowered)
    assert callable(paddle.jit.to_static) and paddle.jit.save is save and paddle.jit.load is load


# ----------------------------------------------------------------------------------------------- to_static

def test_to_static_function_matches_eager_and_compiles_once_per_shape():
    calls = []

    @to_static
    def f(x, y):
        calls.append(1)
        return paddle.exp(x) * y

    x, y = paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([2.0, 3.0])
    np.testing.assert_allclose(f(x, y).numpy(), np.exp([0.0, 1.0]) * [2.0, 3.0], rtol=1e-6)
    f(x + 1.0, y)
    assert len(calls) == 1  # traced once for this signature
    f(paddle.ones([3]), paddle.ones([3]))
    assert len(calls) == 2


def test_to_static_python_values_are_constants():
    @to_static
    def f(x, scale=2.0, mode="mul"):
        return x * scale if mode == "mul" else x + scale

    x = paddle.to_tensor([1.0, 2.0])
    assert f(x).numpy().tolist() == [2.0, 4.0]
    assert f(x, 3.0, mode="add").numpy().tolist() == [4.0, 5.0]


def test_unconverted_tensor_control_flow_raises_concretization_error_pointing_to_cond():
    @to_static(full_graph=True)
    def f(x):
        while x.sum() > 0:  # a return inside a loop stays Python (tests/test_dy2static.py: what is converted)
            return x
        return -x

    with pytest.raises(paddle.ConcretizationError, match="paddle.cond"):
        f(paddle.ones([2]))


def test_full_graph_false_falls_back_to_eager_with_a_warning():
    @to_static(full_graph=False)
    def f(x):
        while x.sum() > 0:
            return x
        return -x

    with pytest.warns(UserWarning, match="graph break"):
        assert f(paddle.to_tensor([-1.0, -2.0])).numpy().tolist() == [1.0, 2.0]


def test_enable_to_static_off_runs_eagerly():
    seen = []

    @to_static
    def f(x):
        seen.append(type(x).__name__)
        return x + 1.0

    paddle.jit.enable_to_static(False)
    try:
        f(paddle.ones([1]))
    finally:
        paddle.jit.enable_to_static(True)
    assert seen == ["Tensor"]
    with pytest.raises(TypeError, match="bool"):
        paddle.jit.enable_to_static(1)


def test_not_to_static_and_options():
    @paddle.jit.not_to_static
    def helper(x):
        return x

    assert to_static(helper) is helper
    with pytest.raises(NotImplementedError, match="BuildStrategy"):
        to_static(lambda x: x, build_strategy=object())
    with pytest.raises(ValueError, match="IREE"):
        to_static(lambda x: x, backend="tensorrt")
    with pytest.raises(TypeError, match="unexpected"):
        to_static(lambda x: x, fullgraph=True)
    with pytest.raises(TypeError, match="modules"):
        paddle.jit.ignore_module(["os"])


def test_input_spec_is_checked():
    @to_static(input_spec=[InputSpec([None, 2], "float32", "x")])
    def f(x):
        return x * 2.0

    assert f(paddle.ones([5, 2])).shape == [5, 2]
    with pytest.raises(ValueError, match="input_spec"):
        f(paddle.ones([5, 3]))
    with pytest.raises(ValueError, match="float64"):
        f(paddle.ones([5, 2], dtype="float64"))


def test_to_static_layer_gradients_equal_eager_and_updates_do_not_retrace():
    paddle.seed(3)
    eager = MLP()
    static = MLP()
    static.set_state_dict(eager.state_dict())
    static = to_static(static)
    assert isinstance(static.forward, paddle.jit.StaticFunction)
    x = paddle.randn([5, 4])
    for model in (eager, static):
        loss = (model(x) ** 2).mean()
        loss.backward()
    for (name, p), (_, q) in zip(eager.named_parameters(), static.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=static.parameters())
    opt.step()
    opt.clear_grad()
    before = static(x).numpy()
    static.fc1.weight.set_value(paddle.zeros([4, 8]))
    after = static(x).numpy()
    assert not np.allclose(before, after)  # new parameter values are seen ...
    assert len(static.forward.program_cache) == 1  # ... without recompiling


def test_decorated_forward_buffers_and_train_eval_modes():
    class Net(RunningMean):
        @to_static
        def forward(self, x):
            return RunningMean.forward(self, x)

    paddle.seed(0)
    net, ref = Net(), RunningMean()
    ref.set_state_dict(net.state_dict())
    x = paddle.randn([4, 3])
    np.testing.assert_allclose(net(x).numpy(), ref(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.mean.numpy(), ref.mean.numpy(), rtol=1e-5, atol=1e-6)  # buffer written back
    assert not np.allclose(net.mean.numpy(), 0.0)
    net.eval()
    ref.eval()
    np.testing.assert_allclose(net(x).numpy(), ref(x).numpy(), rtol=1e-5, atol=1e-6)
    assert len(net.forward.program_cache) == 2  # one program per mode


def test_to_static_bound_method_and_hooks_run_once():
    net = MLP()
    calls = []
    net.register_forward_pre_hook(lambda layer, inputs: calls.append(1))
    to_static(net)
    net(paddle.ones([2, 4]))
    assert calls == [1]
    method = to_static(net.fc1.forward)
    ones = paddle.ones([2, 4])
    np.testing.assert_allclose(method(ones).numpy(), net.fc1(ones).numpy(), rtol=1e-5, atol=1e-6)
    eager_forward = net.forward.rollback()
    assert not isinstance(net.forward, paddle.jit.StaticFunction) and callable(eager_forward)


# ----------------------------------------------------------------------------------------------- save / load

def test_save_load_layer_dynamic_batch_and_files(tmp_path):
    paddle.seed(1)
    net = MLP()
    path = str(tmp_path / "out" / "mlp")
    save(net, path, input_spec=[InputSpec([None, 4], "float32")])
    assert sorted(os.listdir(tmp_path / "out")) == ["mlp.pdiparams", "mlp.pdiparams.info", "mlp.pdmodel"]
    model = json.loads((tmp_path / "out" / "mlp.pdmodel").read_text())
    assert model["inputs"] == [{"name": "x", "shape": [-1, 4], "dtype": "float32"}]
    loaded = load(path)
    assert isinstance(loaded, TranslatedLayer) and isinstance(loaded, paddle.nn.Layer)
    assert not loaded.training  # loaded for inference, as Paddle 3's TranslatedLayer
    assert [n for n, _ in loaded.named_parameters()] == [n for n, _ in net.named_parameters()]
    for batch in (1, 2, 9):
        x = paddle.randn([batch, 4])
        np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="saved with shape"):
        loaded(paddle.ones([2, 5]))
    state = paddle.load(path)
    assert sorted(state) == sorted(net.state_dict())


def test_loaded_layer_fine_tunes_like_the_original(tmp_path):
    paddle.seed(2)
    net = MLP()
    path = str(tmp_path / "mlp")
    save(net, path, input_spec=[InputSpec([None, 4])])
    loaded = load(path)
    x = paddle.randn([6, 4])
    (loaded(x) ** 2).sum().backward()
    (net(x) ** 2).sum().backward()
    np.testing.assert_allclose(loaded.fc1.weight.grad.numpy(), net.fc1.weight.grad.numpy(), rtol=1e-5, atol=1e-6)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    opt.step()
    assert not np.allclose(loaded.fc1.weight.numpy(), net.fc1.weight.numpy())
    save(loaded, path + "_tuned", input_spec=[x])  # a TranslatedLayer saves again
    np.testing.assert_allclose(load(path + "_tuned")(x).numpy(), loaded(x).numpy(), rtol=1e-5, atol=1e-6)


def test_save_load_modes_buffers_and_decorated_methods(tmp_path):
    class Net(RunningMean):
        @to_static(input_spec=[InputSpec([None, 3])])
        def forward(self, x):
            return RunningMean.forward(self, x)

        @to_static(input_spec=[InputSpec([2, 3])])
        def double(self, x):
            return self.fc(x) * 2.0

    paddle.seed(4)
    net = Net()
    x = paddle.randn([2, 3])
    net(x)  # moves the running mean
    path = str(tmp_path / "net")
    save(net, path)
    assert sorted(os.listdir(tmp_path)) == ["net.double.pdiparams", "net.double.pdmodel", "net.pdiparams",
                                            "net.pdiparams.info", "net.pdmodel"]  # Paddle's five files
    loaded = load(path)
    loaded.eval()
    net.eval()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded.double(x).numpy(), net.double(x).numpy(), rtol=1e-5, atol=1e-6)
    loaded.train()
    net.train()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(loaded.mean.numpy(), net.mean.numpy(), rtol=1e-5, atol=1e-6)


def test_save_function_and_errors(tmp_path):
    path = str(tmp_path / "func" / "model")
    save(lambda x: paddle.tanh(x) * 2.0, path, input_spec=[InputSpec([None, 6], "float32", "x")])
    x = paddle.rand([3, 6])
    np.testing.assert_allclose(load(path)(x).numpy(), np.tanh(x.numpy()) * 2.0, rtol=1e-5, atol=1e-6)
    converted = to_static(lambda x: x * 3.0)
    converted(paddle.ones([2, 2]))
    save(converted, str(tmp_path / "called"))  # the shapes of the last call, its batch dimension dynamic
    assert load(str(tmp_path / "called"))(paddle.ones([2, 2])).numpy().tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert load(str(tmp_path / "called"))(paddle.ones([5, 2])).shape == [5, 2]  # as Paddle's saved programs
    fixed = to_static(lambda x: paddle.reshape(x, [2, 4]) * 2.0)  # bakes its batch size in: saved with it
    fixed(paddle.ones([2, 4]))
    save(fixed, str(tmp_path / "fixed"))
    assert load(str(tmp_path / "fixed"))(paddle.ones([2, 4])).shape == [2, 4]
    with pytest.raises(ValueError, match="input_spec"):
        save(MLP(), str(tmp_path / "nospec"))
    with pytest.raises(ValueError, match="file_prefix is empty"):
        save(MLP(), str(tmp_path) + "/", input_spec=[InputSpec([1, 4])])
    with pytest.raises(NotImplementedError, match="output_spec"):
        save(MLP(), str(tmp_path / "o"), input_spec=[InputSpec([1, 4])], output_spec=[1])
    with pytest.raises(ValueError, match="does not exist"):
        load(str(tmp_path / "missing"))


def test_reshape_with_dynamic_batch_is_affine_and_products_are_refused(tmp_path):
    path = str(tmp_path / "flat")
    save(lambda x: x.reshape([-1]), path, input_spec=[InputSpec([None, 3])])
    loaded = load(path)
    assert loaded(paddle.ones([4, 3])).shape == [12]
    with pytest.raises(ValueError, match="not affine"):
        save(lambda x: x.reshape([-1]), str(tmp_path / "bad"), input_spec=[InputSpec([None, None])])


def test_loading_never_runs_code_from_the_file(tmp_path):
    path = str(tmp_path / "m")
    save(lambda x: x + 1.0, path, input_spec=[InputSpec([2])])
    model = json.loads((tmp_path / "m.pdmodel").read_text())
    model["programs"]["eval"]["template"]["program"]["eqns"][0][0] = "os.system"
    (tmp_path / "m.pdmodel").write_text(json.dumps(model))
    with pytest.raises(ValueError, match="os.system"):
        load(path)(paddle.ones([2]))


def test_captured_constants_are_saved_but_are_not_state(tmp_path):
    table = paddle.to_tensor([1.0, 10.0, 100.0])

    class Scale(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x) * table  # a Tensor that is neither a parameter nor a buffer

    net = Scale()
    path = str(tmp_path / "scale")
    save(net, path, input_spec=[InputSpec([None, 3])])
    x = paddle.randn([2, 3])
    np.testing.assert_allclose(load(path)(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    assert sorted(paddle.load(path)) == ["fc.bias", "fc.weight"]


def test_a_model_whose_train_mode_cannot_trace_saves_in_eval_mode(tmp_path):
    class WithDropout(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 3)

        def forward(self, x):
            return F.dropout(self.fc(x), 0.5, training=self.training)  # the global RNG: eager only

    net = WithDropout()
    net.eval()
    path = str(tmp_path / "drop")
    save(net, path, input_spec=[InputSpec([None, 3])])
    loaded = load(path)
    x = paddle.randn([2, 3])
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    loaded.train()
    with pytest.raises(RuntimeError, match="no train-mode program"):
        loaded(x)
    net.train()
    with pytest.raises(paddle.ConcretizationError, match="dropout"):
        save(net, str(tmp_path / "drop_train"), input_spec=[InputSpec([None, 3])])


def test_to_static_batchnorm_trains_several_steps_like_eager():
    def make():
        paddle.seed(7)
        return paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.BatchNorm1D(4), paddle.nn.ReLU(),
                                    paddle.nn.Linear(4, 1))

    eager, static = make(), to_static(make())
    x = paddle.randn([8, 3])
    for model in (eager, static):
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        for _ in range(3):  # buffers written back by a step must not tie the next step's graph to it
            loss = (model(x) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
    for (name, a), (_, b) in zip(eager.state_dict().items(), static.state_dict().items()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    assert len(static.forward.program_cache) == 1
