"""The layering rule of DESIGN.md, enforced by reading every module's imports."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# package -> the paddle_fn packages it may import (besides itself)
ALLOWED = {
    "paddle_fn.core": set(),
    "paddle_fn.lowering": {"paddle_fn.core"},
    "paddle_fn.runtime": set(),
    "paddle_fn.prims": {"paddle_fn.core", "paddle_fn.lowering"},
    "paddle_fn.transforms": {"paddle_fn.core", "paddle_fn.prims", "paddle_fn.lowering", "paddle_fn.runtime"},
}
SOURCES = {"paddle_fn.core": "paddle_fn/core", "paddle_fn.lowering": "lowering", "paddle_fn.runtime": "runtime",
           "paddle_fn.prims": "paddle_fn/prims", "paddle_fn.transforms": "transforms"}
PEERS = ("jax", "jaxlib", "torch", "tensorflow", "paddle")


def _imports(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, node.lineno


def _package_of(module):
    for pkg in sorted(SOURCES, key=len, reverse=True):
        if module == pkg or module.startswith(pkg + "."):
            return pkg
    if module == "paddle_fn" or module.startswith("paddle_fn."):
        return module.split(".")[0] + "." + module.split(".")[1] if "." in module else "paddle_fn"
    return None


@pytest.mark.parametrize("pkg", sorted(SOURCES))
def test_package_imports_only_lower_layers(pkg):
    bad = []
    for path in sorted((ROOT / SOURCES[pkg]).rglob("*.py")):
        for mod, line in _imports(path):
            target = _package_of(mod)
            if target is None:
                if pkg != "paddle_fn.runtime" and mod.split(".")[0] == "iree":
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} (only paddle_fn.runtime may import iree)")
                if mod.split(".")[0] in PEERS:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports the peer framework {mod}")
                continue
            if target != pkg and target not in ALLOWED[pkg]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod} ({target} is not below {pkg})")
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_library_never_imports_a_peer_framework():
    bad = []
    for path in sorted((ROOT / "paddle_fn").rglob("*.py")):
        for mod, line in _imports(path):
            if mod.split(".")[0] in PEERS:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod}")
    assert not bad, bad


def test_mapped_packages_refuse_top_level_import():
    import importlib
    import sys
    for name in ("lowering", "transforms", "runtime", "nn_compat"):
        sys.path.insert(0, str(ROOT))
        try:
            with pytest.raises(ImportError, match=f"paddle_fn.{name}"):
                sys.modules.pop(name, None)
                importlib.import_module(name)
        finally:
            sys.path.remove(str(ROOT))
            sys.modules.pop(name, None)
