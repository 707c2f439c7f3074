"""`paddle_fn.utils.install_paddle_alias`: ``import paddle`` code copied from Paddle's own tree runs on paddle_fn,
with one module object under both names and relative imports inside the ``paddle.*`` tree resolved there."""
import importlib
import importlib.util
import sys
import textwrap
import types

import numpy as np
import pytest

import paddle_fn
from paddle_fn.utils.paddle_alias import install_paddle_alias, uninstall_paddle_alias

# A model file written as Paddle writes its vision models: absolute `paddle` imports, Paddle's module paths for
# ParamAttr, a relative import of a sibling package of the paddle.vision tree.
PADDLE_STYLE_MODEL = '''
import paddle
from paddle import nn
from paddle.base.param_attr import ParamAttr
from paddle.framework import ParamAttr as FrameworkParamAttr
from paddle.nn.initializer import Uniform

from ..ops import ConvNormActivation


class TinyNet(nn.Layer):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = ConvNormActivation(3, 8, kernel_size=3, stride=2)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(8, num_classes, weight_attr=ParamAttr(initializer=Uniform(-0.1, 0.1)),
                            bias_attr=FrameworkParamAttr(learning_rate=2.0))

    def forward(self, x):
        return self.fc(paddle.flatten(self.pool(self.features(x)), 1))
'''


@pytest.fixture
def alias():
    install_paddle_alias()
    yield
    uninstall_paddle_alias()


def _load_as(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def test_paddle_names_are_paddle_fn_modules(alias):
    import paddle
    import paddle.nn.functional as F
    from paddle.base.param_attr import ParamAttr
    assert paddle is paddle_fn and F is paddle_fn.nn.functional and ParamAttr is paddle_fn.ParamAttr
    # each module keeps its own spec: paddle_fn's frame checks and find_spec read the folders it came from
    assert importlib.util.find_spec("paddle_fn").submodule_search_locations
    assert paddle_fn.nn.functional.__spec__.name == "paddle_fn.nn.functional"
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("paddle.no_such_module")


def test_a_file_of_paddles_tree_imports_and_trains_unchanged(alias, tmp_path):
    path = tmp_path / "tiny_net.py"
    path.write_text(textwrap.dedent(PADDLE_STYLE_MODEL))
    module = _load_as("paddle.vision.models.tiny_net", path)
    import paddle
    paddle.seed(0)
    model = module.TinyNet()
    assert model.fc.bias.optimize_attr == {"learning_rate": 2.0}
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((4, 3, 8, 8)).astype("float32"))
    y = paddle.to_tensor(np.array([[1], [2], [3], [4]]))
    losses = []
    for _ in range(3):
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[2] < losses[0]


def test_uninstall_forgets_the_alias_and_a_real_paddle_is_refused():
    install_paddle_alias()
    install_paddle_alias()  # idempotent
    import paddle  # noqa: F401
    uninstall_paddle_alias()
    assert "paddle" not in sys.modules
    sys.modules["paddle"] = types.ModuleType("paddle")  # as if the real Paddle were imported
    try:
        with pytest.raises(RuntimeError, match="real Paddle is already imported"):
            install_paddle_alias()
    finally:
        del sys.modules["paddle"]
