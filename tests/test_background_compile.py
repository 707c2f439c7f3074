"""jit's background compile (transforms/background_compile.py): until a program's executable is ready its calls
evaluate the traced program op by op, with eager's results, the trace runs once, and later calls run the
executable; convolutions take that path, warm programs, while loops and ahead-of-time compiles do not; a failed
background compile leaves correct results and one warning."""
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.config import config
from paddle_fn.runtime import DeviceArray
import paddle_fn.runtime as runtime
from paddle_fn.transforms import background_compile
from paddle_fn.transforms.background_compile import wait_for_background_compiles


@pytest.fixture(autouse=True)
def background(monkeypatch, tmp_path):
    monkeypatch.setattr(config, "jit_background_compile", True)
    monkeypatch.setenv("PADDLE_FN_CACHE_DIR", str(tmp_path))  # an empty disk cache: every program compiles
    yield
    wait_for_background_compiles()


def _compiled(t) -> bool:
    return isinstance(t._device_array, DeviceArray)


def test_first_calls_run_op_by_op_and_later_calls_the_executable():
    traces = []

    def f(x, w):
        traces.append(1)
        return paddle.tanh(x @ w) * 3.0 + 1.0

    rng = np.random.default_rng(0)
    x, w = (paddle.to_tensor(rng.standard_normal(shape).astype("float32")) for shape in ((8, 16), (16, 5)))
    g = paddle.jit(f)
    first = g(x, w)
    assert not _compiled(first)  # the executable is not ready: evaluated op by op
    np.testing.assert_array_equal(first.numpy(), f(x, w).numpy())  # exactly what eager code computes
    wait_for_background_compiles()
    later = g(x, w)
    assert _compiled(later)
    # compiled and eager products round differently: absolute as well as relative, for results near 0
    np.testing.assert_allclose(later.numpy(), first.numpy(), rtol=1e-6, atol=1e-6)
    assert len(traces) == 2  # one trace for jit, one eager call above: Python runs once per signature


def test_a_warm_program_runs_compiled_on_its_first_call():
    def f(x):
        return paddle.exp(x).sum()

    x = paddle.ones([4])
    paddle.jit(f)(x)
    wait_for_background_compiles()
    assert _compiled(paddle.jit(f)(x))  # a new jit of the same program: in the disk cache, so loaded at once


def test_a_while_loop_compiles_before_its_first_call_returns():
    def f(x):
        return paddle.while_loop(lambda v: v.sum() < 100.0, lambda v: v * 2.0, x)

    assert background_compile.equations_evaluated(paddle.jit(f).lower(paddle.ones([3])).program) == float("inf")
    assert _compiled(paddle.jit(f)(paddle.ones([3])))


def test_a_long_scan_compiles_before_its_first_call_returns():
    def step(c, x):
        return c * 0.5 + x, c

    def f(xs):
        return paddle.scan(step, paddle.zeros([2]), xs)[0]

    short, long = paddle.ones([4, 2]), paddle.ones([background_compile.EQUATION_BUDGET, 2])
    assert not _compiled(paddle.jit(f)(short))
    assert _compiled(paddle.jit(f)(long))


def test_effects_and_the_tape_are_unchanged_while_compiling():
    net = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())

    @paddle.jit.to_static
    def step(x):
        loss = net(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss

    x = paddle.ones([4, 3])
    w0 = net.weight.numpy().copy()
    losses = [float(step(x)) for _ in range(3)]
    assert losses[0] > losses[1] > losses[2]  # each call updated the parameters, compiled or op by op
    assert not np.allclose(net.weight.numpy(), w0)

    # under the eager tape a jitted function is recorded and differentiated as before
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    paddle.jit(lambda v: (v * v).sum())(w).backward()
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])


def _compile_fails(*args, **kwargs):
    """runtime.load_stablehlo of a compiler that fails (and a disk cache that has nothing)."""
    if not kwargs.get("cached_only"):
        raise RuntimeError("IREE said no")
    return None


def test_a_failed_background_compile_warns_once_and_keeps_correct_results(monkeypatch):
    monkeypatch.setattr(runtime, "load_stablehlo", _compile_fails)
    g = paddle.jit(lambda x: x * 2.0 + 1.0)
    x = paddle.to_tensor([1.0, 2.0])
    np.testing.assert_allclose(g(x).numpy(), [3.0, 5.0])
    wait_for_background_compiles()
    with pytest.warns(RuntimeWarning, match="compiling in the background failed.*IREE said no"):
        np.testing.assert_allclose(g(x).numpy(), [3.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(g(x).numpy(), [3.0, 5.0])  # once only


def test_ahead_of_time_compile_and_the_switch_wait_for_the_executable(monkeypatch):
    def f(x):
        return paddle.sin(x) * 4.0

    x = paddle.ones([5])
    assert _compiled(paddle.jit(f).lower(x).compile()(x))
    monkeypatch.setattr(config, "jit_background_compile", False)
    assert _compiled(paddle.jit(lambda v: paddle.cos(v) * 4.0)(x))


def test_a_checked_function_compiles_before_its_first_call_returns():
    def take(x, i):
        return x[i]

    x = paddle.arange(5, dtype="float32")
    assert _compiled(paddle.jit(take, checks="index")(x, paddle.to_tensor(2)))
    with pytest.raises(IndexError, match="index check failed"):
        paddle.jit(take, checks="index")(x, paddle.to_tensor(7))  # the check runs on the first call too


def test_block_until_ready_waits_for_the_compile_as_a_jax_benchmark_expects():
    f = paddle.jit(lambda a: paddle.tanh(a @ a) * 5.0)
    x = paddle.ones([6, 6])
    assert not _compiled(f(x).block_until_ready())  # this value came op by op; the wait was for the compile
    assert _compiled(f(x))
    g = paddle.jit(lambda a: paddle.cosh(a) * 5.0)
    paddle.block_until_ready({"warm-up": g(x)})
    assert _compiled(g(x))


def test_a_convolution_training_step_runs_op_by_op_while_it_compiles():
    def loss(w, x):
        return paddle.nn.functional.conv2d(x, w, padding=1, stride=2).tanh().sum()

    step = paddle.jit(paddle.value_and_grad(loss))
    w, x = paddle.randn([3, 2, 3, 3]), paddle.randn([2, 2, 7, 7])
    value, grad = step(w, x)
    assert not _compiled(value)  # forward, input and weight-gradient convolutions evaluated by their numpy impl
    eager_value, eager_grad = paddle.value_and_grad(loss)(w, x)
    np.testing.assert_array_equal(value.numpy(), eager_value.numpy())
    np.testing.assert_array_equal(grad.numpy(), eager_grad.numpy())
    wait_for_background_compiles()
    compiled_value, compiled_grad = step(w, x)
    assert _compiled(compiled_value)
    np.testing.assert_allclose(compiled_grad.numpy(), grad.numpy(), rtol=1e-5, atol=1e-5)


def test_exit_cancels_queued_compiles_and_waits_for_the_running_one():
    compiler = background_compile._Compiler()
    release, ran = threading.Event(), []
    started = threading.Event()
    running = compiler.submit(lambda: (started.set(), release.wait(), ran.append("first"))[2])
    queued = compiler.submit(lambda: ran.append("second"))
    assert started.wait(60)  # the worker has taken the first job: it is running, not queued
    threading.Timer(0.2, release.set).start()
    compiler.finish_at_exit()
    assert running.done() and ran == ["first"] and queued.cancelled() and compiler.unfinished == 0


def test_a_script_exiting_while_its_program_compiles_exits_cleanly(tmp_path):
    # the compile still running at exit is finished first: a thread left inside IREE's bindings while the
    # interpreter finalizes aborts the process ("terminate called ... FATAL: exception not rethrown")
    script = ("import time\n"
              "import paddle_fn as paddle\n"
              "x = paddle.randn([64, 64])\n"
              "for i in range(3):\n"
              "    f = paddle.jit(lambda x, i=i: paddle.tanh(x @ x) * (i + 1.0))\n"
              "    print(float(f(x).sum()))\n"
              "from paddle_fn.transforms import background_compile\n"
              "deadline = time.monotonic() + 60\n"
              "while background_compile._COMPILER._running is None and time.monotonic() < deadline:\n"
              "    time.sleep(0.005)  # until the first compile has started; the other two are queued\n")
    env = dict(os.environ, PADDLE_FN_CACHE_DIR=str(tmp_path), PADDLE_FN_BACKGROUND_COMPILE="1")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                        text=True, timeout=300)
    assert done.returncode == 0 and "FATAL" not in done.stderr, done.stderr[-2000:]
    written = [name for _, _, files in os.walk(tmp_path) for name in files if name.endswith(".vmfb")]
    assert 1 <= len(written) <= 2  # the running compile finished into the disk cache, the last queued one dropped


def _conv_net_and_step(seed):
    """A conv + BatchNorm + linear net and its SGD training step (loss, backward, step, clear_grad)."""
    paddle.seed(seed)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3, padding=1), paddle.nn.BatchNorm2D(4), paddle.nn.ReLU(),
                               paddle.nn.Flatten(), paddle.nn.Linear(4 * 6 * 6, 3))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()

    def step(x, y):
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return net, step


def _state(net):
    return {k: v.numpy().copy() for k, v in net.state_dict().items()}


def test_a_to_static_training_step_runs_op_by_op_until_its_executable_is_ready():
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.normal(size=(5, 3, 6, 6)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 3, size=(5,)))
    net, step = _conv_net_and_step(7)
    twin, eager_step = _conv_net_and_step(7)  # the same weights, trained eagerly beside it
    static_step = paddle.jit.to_static(step)
    first = static_step(x, y)
    assert not _compiled(first)  # the first call returned before the compile finished
    np.testing.assert_allclose(float(first), float(eager_step(x, y)), rtol=1e-6)
    for name, value in _state(twin).items():  # the update and the BatchNorm statistics were applied, as eagerly
        np.testing.assert_allclose(_state(net)[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    wait_for_background_compiles()
    later = static_step(x, y)
    assert _compiled(later)  # the compiled program took over
    np.testing.assert_allclose(float(later), float(eager_step(x, y)), rtol=1e-5)
    for name, value in _state(twin).items():
        np.testing.assert_allclose(_state(net)[name], value, rtol=1e-4, atol=1e-6, err_msg=name)
    assert len(static_step.program_cache) == 1  # traced once: the op-by-op calls ran the traced program


def test_a_to_static_layer_is_differentiated_by_the_tape_while_it_compiles():
    rng = np.random.default_rng(1)
    x = paddle.to_tensor(rng.normal(size=(5, 3, 6, 6)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 3, size=(5,)))
    net, _ = _conv_net_and_step(3)
    twin, _ = _conv_net_and_step(3)
    static_net = paddle.jit.to_static(net)
    loss = paddle.nn.functional.cross_entropy(static_net(x), y)
    assert not _compiled(loss)
    loss.backward()
    paddle.nn.functional.cross_entropy(twin(x), y).backward()
    for (name, p), q in zip(net.named_parameters(), twin.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_a_to_static_step_whose_compile_fails_keeps_training(monkeypatch):
    monkeypatch.setattr(runtime, "load_stablehlo", _compile_fails)
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.normal(size=(5, 3, 6, 6)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 3, size=(5,)))
    _, step = _conv_net_and_step(5)
    static_step = paddle.jit.to_static(step)
    losses = [float(static_step(x, y))]
    wait_for_background_compiles()
    with pytest.warns(RuntimeWarning, match="compiling in the background failed.*IREE said no"):
        losses.append(float(static_step(x, y)))
    losses += [float(static_step(x, y)) for _ in range(3)]
    assert all(a > b for a, b in zip(losses, losses[1:]))  # every call still trained the net, op by op
