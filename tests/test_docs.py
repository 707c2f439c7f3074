"""Every docs page and every public docstring example runs and prints what it shows (doctest).

Floats in the output are compared with a relative tolerance (pytest-doctestplus's FLOAT_CMP), for every example:
numpy's SIMD kernels differ in the last bit from one CPU to the next, so the last printed digit of a float may
differ from the one a page shows (0.7853982 where the page says 0.7853981). Everything else, integers included,
must match as doctest matches it (whitespace normalized, `...` allowed).
"""
import doctest
import importlib
import pathlib
import pkgutil

import pytest
from pytest_doctestplus.output_checker import FLOAT_CMP, OutputChecker

import paddle_fn

ROOT = pathlib.Path(__file__).resolve().parents[1]
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS | FLOAT_CMP


class FloatTolerantChecker(OutputChecker):
    """Floats equal when |got - want| <= atol + rtol * |want|: a few units in the last place of a float32 printed
    with 7-8 significant digits, or of a number printed with numpy's 8 decimals; never a visible difference."""
    rtol = 1e-6
    atol = 1e-8


def _run(tests):
    """Run doctests with the tolerant checker; return (number of failures, the failure report)."""
    report = []
    runner = doctest.DocTestRunner(checker=FloatTolerantChecker(), optionflags=FLAGS)
    for test in tests:
        runner.run(test, out=report.append)
    return runner.failures, "".join(report)


def _modules():
    names = ["paddle_fn"]
    for pkg in ("paddle_fn.core", "paddle_fn.prims", "paddle_fn.tensor", "paddle_fn.transforms", "paddle_fn.lowering",
                "paddle_fn.runtime",
                "paddle_fn.nn", "paddle_fn.nn.functional", "paddle_fn.autograd", "paddle_fn.static",
                "paddle_fn.framework", "paddle_fn.jit", "paddle_fn.nn_compat.jit", "paddle_fn.nn_compat.jit.dy2static",
                "paddle_fn.nn_compat.layer", "paddle_fn.nn_compat.initializer", "paddle_fn.optimizer",
                "paddle_fn.nn_compat.optimizer", "paddle_fn.hapi", "paddle_fn.metric", "paddle_fn.vision.models",
                "paddle_fn.io", "paddle_fn.vision.datasets", "paddle_fn.vision.transforms", "paddle_fn.distributed",
                "paddle_fn.amp", "paddle_fn.incubate.autograd", "paddle_fn.utils", "paddle_fn.random",
                "paddle_fn.distribution", "paddle_fn.sparse", "paddle_fn.sparse.nn", "paddle_fn.compat",
                "paddle_fn.compat.nn"):
        mod = importlib.import_module(pkg)
        names.append(pkg)
        names += [f"{pkg}.{m.name}" for m in pkgutil.iter_modules(mod.__path__)]
    for extra in ("paddle_fn.incubate", "paddle_fn.linalg", "paddle_fn.fft", "paddle_fn.signal",
                  "paddle_fn.audio.functional", "paddle_fn.geometric", "paddle_fn.base",
                  "paddle_fn.base.framework", "paddle_fn.nn_compat.parameter", "paddle_fn.nn_compat.utils",
                  "paddle_fn.base.param_attr",
                  "paddle_fn.nn_compat.unique_name", "paddle_fn.nn_compat.bridge", "paddle_fn.callbacks",
                  "paddle_fn.distributed.launch.main", "paddle_fn.distributed.launch.utils", "paddle_fn.vision",
                  "paddle_fn.vision.ops", "paddle_fn.base.data_feeder", "paddle_fn.base.dygraph"):
        try:
            importlib.import_module(extra)
            names.append(extra)
        except ModuleNotFoundError:
            pass
    return names


@pytest.fixture(autouse=True)
def _default_dtype():
    paddle_fn.set_default_dtype("float32")
    yield
    paddle_fn.set_default_dtype("float32")


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    mod = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    failures, report = _run(finder.find(mod, name))
    assert failures == 0, f"{failures} docstring example(s) in {name} failed:\n{report}"


DOCS = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_docs_page_examples_run(page):
    test = doctest.DocTestParser().get_doctest(page.read_text(encoding="utf-8"), {"__name__": "__main__"},
                                               page.name, str(page), 0)
    failures, report = _run([test])
    assert failures == 0, f"{page.name}: {failures} example(s) failed:\n{report}"


def _example(source, want):
    return doctest.DocTestParser().get_doctest(f">>> {source}\n{want}\n", {}, "example", None, 0)


@pytest.mark.parametrize("source, want", [
    ("print(0.7853982)", "0.7853981"),                                                   # the last digit
    ("import numpy as np; np.array([0.7853982, 2.0], np.float32)", "array([0.7853981, 2.       ], dtype=float32)"),
    ("print([1.0000001e-09, 0.00012346])", "[1.0000002e-09, 0.00012345]"),              # numpy's 8 decimals
    ("print('x', 3.1415927, 'and more')", "x 3.1415926 ..."),                          # with ELLIPSIS
])
def test_last_digit_float_differences_pass(source, want):
    assert _run([_example(source, want)])[0] == 0


@pytest.mark.parametrize("source, want", [
    ("print(0.79)", "0.78"),
    ("print(1.0001)", "1.0"),
    ("print([2, 3])", "[2, 4]"),                       # integers (shapes, counts) are compared exactly
    ("print(123456789)", "123456788"),
    ("print('f32[3]')", "f32[4]"),
    ("print(0.5, 'a')", "0.5 b"),                      # and the text around the numbers too
])
def test_visible_differences_fail(source, want):
    assert _run([_example(source, want)])[0] == 1
