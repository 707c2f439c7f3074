"""`import paddle_fn` loads the core only; Paddle's other namespaces load on first use.

These tests check the structure that keeps the import cheap, in fresh interpreters; the time itself is measured by
benchmarks/bench_import.py, never by a test.
"""
import inspect
import json
import pickle
import subprocess
import sys

import pytest

import paddle_fn

# Loaded by `import paddle_fn` before the namespaces became lazy, and not needed to make or compute with a Tensor.
DEFERRED = ["paddle_fn.vision", "paddle_fn.io", "paddle_fn.distributed", "paddle_fn.hapi", "paddle_fn.callbacks",
            "paddle_fn.nn", "paddle_fn.nn_compat", "paddle_fn.optimizer", "paddle_fn.jit", "paddle_fn.amp",
            "paddle_fn.static", "paddle_fn.linalg", "paddle_fn.metric", "paddle_fn.transforms", "paddle_fn.runtime",
            "iree.runtime", "PIL", "tarfile", "socket", "multiprocessing", "scipy", "logging"]


def _fresh(code):
    """Run `code` in a new interpreter and return what it printed as JSON."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def test_import_loads_none_of_the_deferred_modules():
    loaded = _fresh("import json, sys; import paddle_fn; paddle_fn.to_tensor([1.0, 2.0]).sum() + 1; "
                    f"print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))")
    assert loaded == []


def test_dir_lists_the_lazy_names_without_loading_them():
    listed, loaded = _fresh("import json, sys; import paddle_fn; names = dir(paddle_fn); "
                            "print(json.dumps([names, [m for m in ('paddle_fn.vision', 'paddle_fn.hapi') "
                            "if m in sys.modules]]))")
    assert {"vision", "io", "distributed", "Model", "summary", "DataParallel", "nn", "jit", "grad", "vmap",
            "set_device", "to_tensor"} <= set(listed)
    assert loaded == []


@pytest.mark.parametrize("name", sorted(paddle_fn._LAZY))
def test_each_lazy_name_resolves_to_its_target(name):
    module, _, attribute = paddle_fn._LAZY[name].partition(":")
    expected = sys.modules[module] if module in sys.modules else __import__(module, fromlist=["_"])
    if attribute:  # a function, never the module of the same name (paddle_fn.transforms.vmap)
        expected = getattr(expected, attribute)
        assert not inspect.ismodule(expected)
    assert getattr(paddle_fn, name) is expected


def test_paddle_spellings_work_from_a_fresh_import():
    code = """
import json
import paddle_fn as paddle
from paddle_fn.vision.transforms import ToTensor
import paddle_fn.vision
model = paddle.vision.models.resnet18(num_classes=3)
checks = {
    "resnet18": isinstance(model, paddle.nn.Layer),
    "DataLoader": paddle.io.DataLoader.__name__ == "DataLoader",
    "Model": paddle.Model is paddle.hapi.Model,
    "summary": paddle.summary is paddle.hapi.summary,
    "DataParallel": paddle.DataParallel is paddle.distributed.DataParallel,
    "launch": paddle.distributed.launch.__name__ == "paddle_fn.distributed.launch",
    "ToTensor": ToTensor is paddle.vision.transforms.ToTensor,
    "jit call": float(paddle.jit(lambda x: x * 2)(paddle.to_tensor(3.0))) == 6.0,
    "grad": float(paddle.grad(lambda x: x * x)(paddle.to_tensor(3.0))) == 6.0,
    "jit module": callable(paddle.jit.to_static),
    "inverse": paddle.inverse is paddle.linalg.inv,
}
print(json.dumps(checks))
"""
    checks = _fresh(code)
    assert checks == {name: True for name in checks}


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        paddle_fn.no_such_name  # noqa: B018
    assert not hasattr(paddle_fn, "no_such_name")


def test_lazily_loaded_objects_pickle_by_reference():
    assert pickle.loads(pickle.dumps(paddle_fn.Model)) is paddle_fn.Model
    assert pickle.loads(pickle.dumps(paddle_fn.summary)) is paddle_fn.summary


def test_star_import_binds_the_deferred_names_too():
    bound = _fresh("import json; from paddle_fn import *; "
                   "print(json.dumps([callable(grad), callable(vmap), Model.__name__, to_tensor([1.0]).dtype.name, "
                   "'nn' in dir(), sorted(n for n in dir() if n.startswith('_') and not n.startswith('__'))]))")
    assert bound == [True, True, "Model", "float32", False, []]  # as in Paddle: no namespaces, nothing private
