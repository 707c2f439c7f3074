"""The documentation site (mkdocs.yml) builds in strict mode without the network, and its API reference has an
entry for every public name. `make docs` builds the same site into site/."""
import importlib
import importlib.util
import inspect
import os
import pathlib
import pkgutil
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

if importlib.util.find_spec("mkdocs") is None:  # make test installs the docs extra; CI must never skip this
    if os.environ.get("CI"):
        raise ImportError("mkdocs is not installed: install paddle_fn with the docs extra (make install)")
    pytest.skip("mkdocs is not installed (pip install -e '.[docs]')", allow_module_level=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def _page(site, name):
    return (site / name / "index.html").read_text(encoding="utf-8")


def test_every_docs_page_is_built(site):
    assert (site / "index.html").is_file()
    for page in sorted((ROOT / "docs").rglob("*.md")):
        relative = page.relative_to(ROOT / "docs").with_suffix("")
        if relative.name != "index":
            assert (site / relative / "index.html").is_file(), f"docs/{relative}.md was not built"


def test_pages_load_nothing_from_the_network(site):
    external = re.compile(r"<(?:link|script|img|iframe)\b[^>]*\b(?:href|src)=\"(?:https?:)?//", re.IGNORECASE)
    for html in site.rglob("*.html"):
        found = external.findall(html.read_text(encoding="utf-8"))
        assert not found, f"{html.relative_to(site)} loads resources from the network: {found}"


def _public_names(module):
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or inspect.ismodule(value):
            continue
        if module.__name__ == "paddle_fn" or getattr(value, "__module__", None) == module.__name__:
            names.append(name)  # the top level re-exports; elsewhere, what the module defines
    return names


API_PAGES = {
    "paddle_fn": "api/paddle_fn",
    "paddle_fn.nn.functional": "api/nn_functional",
    "paddle_fn.linalg": "api/linalg",
    "paddle_fn.fft": "api/fft",
    "paddle_fn.signal": "api/signal",
    "paddle_fn.audio.functional": "api/signal",
    "paddle_fn.random": "api/random",
    "paddle_fn.distribution": "api/distribution",
    "paddle_fn.sparse": "api/sparse",
    "paddle_fn.sparse.nn": "api/sparse",
    "paddle_fn.sparse.nn.functional": "api/sparse",
    "paddle_fn.geometric": "api/sparse",
    "paddle_fn.autograd": "api/autograd",
    "paddle_fn.incubate.autograd": "api/incubate_autograd",
    "paddle_fn.optimizer": "api/optimizer",
    "paddle_fn.optimizer.lr": "api/optimizer",
    "paddle_fn.jit": "api/jit",
    "paddle_fn.static": "api/jit",
    "paddle_fn.static.input": "api/jit",
    "paddle_fn.framework.io": "api/jit",
    "paddle_fn.nn": "api/nn",
    "paddle_fn.nn_compat.utils": "api/nn",
    "paddle_fn.io": "api/data",
    "paddle_fn.vision.datasets": "api/data",
    "paddle_fn.vision.transforms": "api/data",
    "paddle_fn.vision.transforms.functional": "api/data",
    "paddle_fn.hapi": "api/hapi",
    "paddle_fn.metric": "api/hapi",
    "paddle_fn.vision.models": "api/hapi",
    "paddle_fn.vision.ops": "api/hapi",
    "paddle_fn.distributed": "api/distributed",
    "paddle_fn.distributed.fleet": "api/distributed",
    "paddle_fn.amp": "api/amp",
    "paddle_fn.utils": "api/utils",
    "paddle_fn.utils.download": "api/utils",
    "paddle_fn.utils.unique_name": "api/utils",
    "paddle_fn.utils.paddle_alias": "api/utils",
}


def _transforms_modules():
    import paddle_fn.transforms
    return [f"paddle_fn.transforms.{m.name}" for m in pkgutil.iter_modules(paddle_fn.transforms.__path__)
            if not m.name.startswith("_")]


@pytest.mark.parametrize("module_name", sorted(API_PAGES) + _transforms_modules())
def test_api_reference_has_every_public_name(site, module_name):
    page = _page(site, API_PAGES.get(module_name, "api/transforms"))
    if module_name not in API_PAGES:
        assert f'id="{module_name}"' in page, (f"{module_name} is not in the API reference: add "
                                               f"'::: {module_name}' to docs/api/transforms.md")
    module = importlib.import_module(module_name)
    missing = [name for name in _public_names(module) if f'id="{module_name}.{name}"' not in page]
    assert not missing, f"public names of {module_name} missing from the API reference: {missing}"


def test_api_reference_renders_examples_as_code(site):
    page = _page(site, "api/paddle_fn")
    assert '<span class="gp">&gt;&gt;&gt; </span>' in page  # a `>>>` prompt inside highlighted code
    assert "&gt;&gt;&gt; import paddle_fn" not in re.sub(r"<pre>.*?</pre>", "", page, flags=re.DOTALL)
