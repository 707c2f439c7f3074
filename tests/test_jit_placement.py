"""Where a jitted call runs (transforms/jit.py, `JitFunction._placement`), as in JAX: on jit's `device` when given;
else on the device its committed arguments were put on (``device_put(x, device)``, or results of such calls), whatever
the default device is; else on the default device. Results of a committed call are committed there, compiled or
op by op; arguments committed to two devices are an error naming them. The virtual CPU devices of conftest's
`cpus` fixture stand for a CPU and a GPU."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.config import config
from paddle_fn.transforms.background_compile import wait_for_background_compiles


@pytest.fixture
def default_device():
    """Restores the default device a test sets."""
    before = config.default_device
    yield
    config.update("default_device", before)


def _where(t):
    return t.device_array.device, t.device_array.committed


def test_a_committed_argument_decides_the_device_whatever_the_default(cpus, default_device):
    paddle.set_device("cpu:1")  # the default, as a GPU would be after set_device("gpu:0")
    x = paddle.device_put(paddle.to_tensor([1.0, 2.0]), cpus[2])
    double = paddle.jit(lambda v, w: v * 2 + w)
    y = double(x, paddle.to_tensor([0.5, 0.5]))  # the host argument follows the committed one
    assert _where(y) == (cpus[2], True)
    np.testing.assert_array_equal(y.numpy(), [2.5, 4.5])
    z = double(y, y)  # a committed result keeps the next call there
    assert _where(z) == (cpus[2], True)
    np.testing.assert_array_equal(z.numpy(), [7.5, 13.5])


def test_uncommitted_arguments_run_on_the_default_device(cpus, default_device):
    paddle.set_device("cpu:1")
    x = paddle.device_put(paddle.to_tensor([1.0, 2.0]))  # no device named: the default, uncommitted
    assert _where(x) == (cpus[1], False)
    y = paddle.jit(lambda v: v + 1)(x)
    assert _where(y) == (cpus[1], False)
    paddle.set_device("cpu:0")
    assert _where(paddle.jit(lambda v: v + 1)(y)) == (cpus[0], False)  # follows the default as it moves


def test_arguments_committed_to_two_devices_are_an_error(cpus):
    def add(first, second):
        return first + second

    a = paddle.device_put(paddle.ones([3]), cpus[1])
    b = paddle.device_put(paddle.ones([3]), cpus[2])
    with pytest.raises(paddle.TransformError, match=r"jit\(add\): its arguments are committed to different devices: "
                       r"first \(f32\[3\]\) to .*id=1.* and second \(f32\[3\]\) to .*id=2.*paddle.device_put"):
        paddle.jit(add)(a, b)


def test_jits_device_wins_and_commits_its_results(cpus):
    x = paddle.device_put(paddle.ones([2]), cpus[2])
    y = paddle.jit(lambda v: v * 3, device=cpus[1])(x)
    assert _where(y) == (cpus[1], True)
    np.testing.assert_array_equal(y.numpy(), [3.0, 3.0])


def test_one_function_called_on_two_devices_keeps_a_program_for_each(cpus):
    f = paddle.jit(lambda v: paddle.sin(v) * 2)
    outs = [f(paddle.device_put(paddle.to_tensor([0.5, 1.0]), d)) for d in (cpus[1], cpus[2], cpus[1])]
    assert [_where(o) for o in outs] == [(cpus[1], True), (cpus[2], True), (cpus[1], True)]
    for o in outs:
        np.testing.assert_allclose(o.numpy(), 2 * np.sin([0.5, 1.0]), rtol=1e-6)
    assert len(f._cache) == 2


def test_results_computed_op_by_op_while_compiling_are_committed_too(cpus, monkeypatch, tmp_path):
    monkeypatch.setattr(config, "jit_background_compile", True)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))  # an empty disk cache: the program compiles
    f = paddle.jit(lambda v: paddle.tanh(v @ v.T) + 1.0)
    x = paddle.device_put(paddle.to_tensor(np.eye(3, dtype="float32")), cpus[2])
    try:
        first = f(x)
        assert _where(first) == (cpus[2], True)
        wait_for_background_compiles()
        assert _where(f(first)) == (cpus[2], True)
    finally:
        wait_for_background_compiles()


def test_a_to_static_layer_on_committed_inputs_trains_there(cpus):
    paddle.seed(0)
    net = paddle.nn.Linear(3, 2)
    twin = paddle.nn.Linear(3, 2)
    twin.set_state_dict(net.state_dict())
    x = paddle.device_put(paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3)), cpus[2])
    out = paddle.jit.to_static(net)(x)
    assert _where(out) == (cpus[2], True)
    out.sum().backward()
    twin(paddle.to_tensor(x.numpy())).sum().backward()
    np.testing.assert_allclose(net.weight.grad.numpy(), twin.weight.grad.numpy(), rtol=1e-6)


class _FakeGpuArray:
    """What a CUDA device's result looks like to a Tensor: a buffer on a device of platform 'cuda'."""

    def __init__(self, values, device_id):
        self._values, self.shape, self.dtype = values, values.shape, values.dtype
        self.device = type("CudaDevice", (), {"platform": "cuda", "id": device_id})()
        self.committed = True

    def to_numpy(self):
        return self._values


def test_a_tensor_reports_the_device_it_lives_on(cpus):
    on_gpu = paddle.Tensor.from_device_array(_FakeGpuArray(np.ones(2, np.float32), 1))
    assert on_gpu.place == "Place(gpu:1)" and on_gpu.device == "gpu:1" and on_gpu.device.index == 1
    assert "place=Place(gpu:1)" in repr(on_gpu)
    on_cpu = paddle.device_put(paddle.ones([2]), cpus[2])  # Paddle has one CPU place
    assert on_cpu.place == "Place(cpu)" and on_cpu.device == "cpu"
    assert paddle.ones([2]).place == "Place(cpu)"
