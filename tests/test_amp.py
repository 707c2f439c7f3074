"""paddle.amp: CPU behaviour as Paddle 3.3.1 (warn, no effect) and the scaler/casting rules when enabled."""
import importlib

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.amp.state import maybe_cast

ac_mod = importlib.import_module("paddle_fn.amp.casting")
gs_mod = importlib.import_module("paddle_fn.amp.grad_scaler")


@pytest.fixture
def gpu(monkeypatch):
    monkeypatch.setattr(ac_mod, "_on_accelerator", lambda: True)
    monkeypatch.setattr(gs_mod, "_on_accelerator", lambda: True)


def test_cpu_warns_and_runs_float32():
    x = paddle.ones([2, 2])
    with pytest.warns(UserWarning, match="makes no effect"):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            assert paddle.matmul(x, x).dtype == paddle.float32
    with pytest.warns(UserWarning, match="no effect"):
        s = paddle.amp.GradScaler(init_loss_scaling=1024)
    assert not s.is_enable() and s.get_init_loss_scaling() == 1.0 and s.state_dict() == {}


def test_maybe_cast_lists(gpu):
    x = paddle.ones([2])
    assert maybe_cast("matmul", x)[0].dtype == x.dtype
    with paddle.amp.auto_cast(custom_white_list=["relu"], custom_black_list=["matmul"]):
        assert maybe_cast("relu", x)[0].dtype == paddle.float16
        assert maybe_cast("matmul", x)[0].dtype == paddle.float32
        assert maybe_cast("conv2d", x)[0].dtype == paddle.float16
        assert maybe_cast("add", x)[0].dtype == paddle.float32
    with paddle.amp.auto_cast(level="O2", dtype="bfloat16"):
        assert maybe_cast("add", x)[0].dtype == paddle.bfloat16
        assert maybe_cast("softmax", x.astype("bfloat16"))[0].dtype == paddle.float32
    with pytest.raises(ValueError, match="overlap"):
        paddle.amp.auto_cast(custom_white_list=["a"], custom_black_list=["a"])


def test_scaler_rules(gpu):
    w = paddle.nn.Parameter(paddle.to_tensor([1.0, 2.0]))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[w])
    s = paddle.amp.GradScaler(init_loss_scaling=8.0, incr_every_n_steps=2)
    loss = s.scale((w * w).sum())
    loss.backward()
    s.minimize(opt, loss)
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)   # same as the unscaled step
    opt.clear_grad()
    w.grad = paddle.to_tensor([np.inf, 1.0])
    s.step(opt)
    s.update()
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)   # skipped
    assert s.state_dict()["scale"][0] == 4.0
    for _ in range(2):
        w.grad = paddle.to_tensor([0.0, 0.0])
        s.step(opt)
        s.update()
    assert s.state_dict()["scale"][0] == 8.0
    s2 = paddle.amp.GradScaler()
    s2.load_state_dict(s.state_dict())
    assert s2.state_dict()["scale"][0] == 8.0


def test_decorate():
    m = paddle.nn.Linear(2, 2)
    assert paddle.amp.decorate(m) is m
    with pytest.raises(NotImplementedError):
        paddle.amp.decorate(m, level="O2")


def test_autocast_state_queries(gpu):
    amp = paddle.amp
    assert not amp.is_autocast_enabled() and amp.get_autocast_dtype() == "float16"
    with amp.auto_cast(dtype="bfloat16"):
        assert amp.is_autocast_enabled() and amp.get_autocast_dtype("gpu") == "bfloat16"
        assert amp.get_autocast_cpu_dtype() == amp.get_autocast_gpu_dtype() == "bfloat16"
        with amp.auto_cast(enable=False):
            assert not amp.is_autocast_enabled()
    assert not amp.is_autocast_enabled()


def test_autocast_is_off_on_the_cpu_as_in_paddle():
    with pytest.warns(UserWarning, match="makes no effect"):
        with paddle.amp.auto_cast(dtype="bfloat16"):
            assert not paddle.amp.is_autocast_enabled() and paddle.amp.get_autocast_dtype() == "float16"
