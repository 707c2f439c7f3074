"""Every docs page and every public docstring example runs and prints what it shows (doctest)."""
import doctest
import importlib
import pathlib
import pkgutil

import pytest

import paddle_fn

ROOT = pathlib.Path(__file__).resolve().parents[1]
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules():
    names = ["paddle_fn"]
    for pkg in ("paddle_fn.core", "paddle_fn.prims", "paddle_fn.tensor", "paddle_fn.transforms", "paddle_fn.lowering",
                "paddle_fn.nn"):
        mod = importlib.import_module(pkg)
        names.append(pkg)
        names += [f"{pkg}.{m.name}" for m in pkgutil.iter_modules(mod.__path__)]
    for extra in ("paddle_fn.random", "paddle_fn.incubate", "paddle_fn.incubate.autograd", "paddle_fn.autograd", "paddle_fn.linalg"):
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
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(mod, name):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) in {name} failed (run with -s to see)"


DOCS = sorted((ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("page", DOCS, ids=[p.name for p in DOCS])
def test_docs_page_examples_run(page):
    failures, _ = doctest.testfile(str(page), module_relative=False, optionflags=FLAGS, verbose=False)
    assert failures == 0, f"{page.name}: {failures} example(s) failed"
