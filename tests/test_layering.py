"""The layering rule of docs/architecture.md, enforced by reading every module's imports.

Every package of paddle_fn has a layer (`LAYERS`); a module may import its own package and packages of lower
layers only, at module level or inside a function alike. The table is the one in docs/architecture.md.
"""
import ast
import importlib
import pathlib
import re
import sys

import pytest

from paddle_fn.core.packages import ROOTS as ROOTS_MAP

ROOT = pathlib.Path(__file__).resolve().parents[1]

# package -> layer; a module belongs to the longest package name that starts its own name.
LAYERS = {
    "paddle_fn.core": 0,
    "paddle_fn.lowering": 1,
    "paddle_fn.runtime": 1,
    "paddle_fn.prims": 2,
    "paddle_fn.transforms": 3,
    # ParamAttr, a plain record that paddle.base, paddle.framework and the Layers all name (Paddle keeps it there)
    "paddle_fn.base.param_attr": 3,
    # the functional library: values, random keys, programs as files, devices
    "paddle_fn.base": 4,
    "paddle_fn.random": 4,
    "paddle_fn.tree": 4,
    "paddle_fn.static": 4,
    "paddle_fn.framework": 4,
    "paddle_fn.device": 4,
    "paddle_fn.tensor": 5,
    "paddle_fn.fft": 6,
    "paddle_fn.linalg": 6,
    "paddle_fn.nn.functional": 6,
    # Paddle's stateful and imperative surface, written against the public API
    "paddle_fn.signal": 7,
    "paddle_fn.audio": 7,
    "paddle_fn.geometric": 7,
    "paddle_fn.incubate": 7,
    "paddle_fn.amp": 7,
    "paddle_fn.metric": 7,
    "paddle_fn.test_util": 7,
    "paddle_fn.distribution": 7,
    "paddle_fn.autograd": 8,
    "paddle_fn.nn_compat": 8,
    "paddle_fn.nn": 9,
    "paddle_fn.optimizer": 9,
    "paddle_fn.regularizer": 9,
    "paddle_fn.jit": 9,
    "paddle_fn.utils": 9,
    "paddle_fn.compat": 9,
    "paddle_fn.sparse": 9,
    "paddle_fn.distributed": 9,
    "paddle_fn.io": 10,
    "paddle_fn.hapi": 10,
    "paddle_fn.vision": 11,
    "paddle_fn.callbacks": 11,
    "paddle_fn": 12,  # paddle_fn/__init__.py: the public namespace
}
# Packages whose list is narrower than "every lower layer" (docs/architecture.md).
ONLY = {
    "paddle_fn.runtime": set(),  # text and arrays in, arrays out: nothing of paddle_fn
    "paddle_fn.lowering": {"paddle_fn.core"},  # never iree, never the runtime
    "paddle_fn.prims": {"paddle_fn.core", "paddle_fn.lowering"},  # the emitter helpers, never the runtime
}

# Packages written like user code: `import paddle_fn` binds the public namespace, whose names are looked up when a
# function runs. The root imports each of them after binding the names they take from it at import time
# (`test_names_taken_from_the_root_are_bound_first`).
PUBLIC_API_USERS = {"paddle_fn.incubate", "paddle_fn.amp", "paddle_fn.metric", "paddle_fn.test_util",
                    "paddle_fn.distribution", "paddle_fn.autograd",
                    "paddle_fn.nn_compat", "paddle_fn.hapi", "paddle_fn.vision", "paddle_fn.utils"}

# docs/architecture.md: nn_compat uses the public API only. These modules need an internal, and why:
STATEFUL_LAYER_INTERNALS = {
    # to_static turns Python `if`/`while` into cond/while_loop only when the value is being traced; the public API
    # has no "is this traced" question to ask
    "nn_compat/jit/static_function.py": {"paddle_fn.core.trace"},
    "nn_compat/jit/dy2static/convert_operators.py": {"paddle_fn.core.trace"},
}
# What the core may import besides the standard library and itself: it sits under everything, so it stays light.
CORE_THIRD_PARTY = {"numpy", "optree", "ml_dtypes"}
INTERNAL = ("paddle_fn.core", "paddle_fn.lowering", "paddle_fn.runtime", "paddle_fn.prims", "paddle_fn.transforms")

# Cycles between packages at import time that are allowed, and why.
ALLOWED_CYCLES = {
    # Paddle keeps the functional ops (layer 6) and the Layers (nn_compat, layer 8) in one namespace, paddle.nn, so
    # importing paddle_fn.nn.functional runs paddle_fn/nn/__init__.py, which imports the Layers. paddle_fn/nn
    # imports its functional module first, so the Layers always find it complete.
    frozenset({"paddle_fn.nn", "paddle_fn.nn_compat"}),
}

# folder -> package name (the mapped top-level folders install as subpackages of paddle_fn)
FOLDERS = {folder: name for name, folder in ROOTS_MAP.items()}
PEERS = ("jax", "jaxlib", "torch", "tensorflow", "paddle")
# The tables of paddle_fn/__init__.py that name what the public namespace loads on first use (`import paddle_fn`
# pays for the core only): its names, and the Tensor methods whose functions live in those namespaces. Their entries
# are read as function-level imports of the root (`_imports`).
LAZY_ROOT_TABLES = ("_LAZY", "_LAZY_METHODS")


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    parts = FOLDERS[parts[0]].split(".") + list(parts[1:])
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package(path):
    return path.name == "__init__.py"


MODULES = {_module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


def _imports(path):
    """(imported module, line, inside a function) for every import of `path`; `from m import name` names the
    module m.name where that is a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    me = _module_name(path)
    here = me if _is_package(path) else me.rpartition(".")[0]
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = here.split(".")[:len(here.split(".")) - (child.level - 1)]
                    base = ".".join(anchor + ([child.module] if child.module else []))
                targets = {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in child.names}
                found.extend((t, child.lineno, in_function) for t in sorted(targets))
            visit(child, nested)

    visit(tree, False)
    if me == "paddle_fn":
        found.extend((module, line, True) for module, line in _lazy_root_imports(tree))
    return found


def _lazy_root_imports(tree):
    """(module, line) for each entry of the root's lazy tables: the namespaces, names and Tensor methods' functions
    that paddle_fn/__init__.py imports on first use (its module-level `__getattr__`, the deferred methods), checked
    here like the imports inside a function that they are."""
    return [(entry.value.partition(":")[0], entry.lineno) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and getattr(node.targets[0], "id", None) in LAZY_ROOT_TABLES for entry in node.value.values]


def _package_of(module):
    if module != "paddle_fn" and not module.startswith("paddle_fn."):
        return None
    return max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)


def test_every_package_has_a_layer():
    top_level = {_module_name(p) for folder in FOLDERS for p in (ROOT / folder).glob("*")
                 if p.suffix == ".py" or (p / "__init__.py").is_file()}
    missing = sorted(m for m in top_level if m.count(".") == 1 and m not in LAYERS)
    assert not missing, f"packages without a layer in LAYERS (add them, and to docs/architecture.md): {missing}"


@pytest.mark.parametrize("pkg", sorted(LAYERS))
def test_package_imports_only_lower_layers(pkg):
    bad = []
    for name, path in MODULES.items():
        if _package_of(name) != pkg:
            continue
        for mod, line, _ in _imports(path):
            target = _package_of(mod)
            where = f"{path.relative_to(ROOT)}:{line} imports {mod}"
            if target is None:
                if pkg != "paddle_fn.runtime" and mod.split(".")[0] == "iree":
                    bad.append(f"{where} (only paddle_fn.runtime may import iree)")
                continue
            if target == pkg:
                continue
            if target == "paddle_fn" and pkg in PUBLIC_API_USERS:
                continue
            if pkg in ONLY and target not in ONLY[pkg]:
                bad.append(f"{where} ({pkg} may import only {sorted(ONLY[pkg]) or 'nothing of paddle_fn'})")
            elif LAYERS[target] >= LAYERS[pkg]:
                bad.append(f"{where} ({target}, layer {LAYERS[target]}, is not below {pkg}, layer {LAYERS[pkg]})")
    assert not bad, "layering violations:\n" + "\n".join(bad)


def test_core_imports_only_the_standard_library_numpy_optree_and_ml_dtypes():
    bad = [f"{path.relative_to(ROOT)}:{line} imports {mod}" for name, path in MODULES.items()
           if _package_of(name) == "paddle_fn.core" for mod, line, _ in _imports(path)
           if (top := mod.split(".")[0]) != "paddle_fn" and top not in sys.stdlib_module_names
           and top not in CORE_THIRD_PARTY]
    assert not bad, f"the core imports only the standard library and {sorted(CORE_THIRD_PARTY)}:\n" + "\n".join(bad)


def test_stateful_layer_uses_only_the_public_api():
    bad = []
    for name, path in MODULES.items():
        if _package_of(name) != "paddle_fn.nn_compat":
            continue
        allowed = STATEFUL_LAYER_INTERNALS.get(str(path.relative_to(ROOT)), set())
        for mod, line, _ in _imports(path):
            if mod.startswith(INTERNAL) and mod not in allowed:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports the internal {mod}")
    assert not bad, "nn_compat uses the public paddle_fn API only (docs/architecture.md):\n" + "\n".join(bad)


def test_stateful_layer_updates_handles_through_the_public_api():
    # nn_compat updates a Parameter with paddle.assign(value, output=p) and asks isinstance(x, paddle_fn.Tracer),
    # as a user's Layer code would: never the Tensor internals (_rebind) or a class name
    bad = []
    for name, path in MODULES.items():
        if _package_of(name) != "paddle_fn.nn_compat":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "._rebind(" in line or re.search(r"__name__.*Tracer", line):
                bad.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not bad, "nn_compat uses Tensor internals:\n" + "\n".join(bad)


def _import_time_edges():
    """package -> {package: an example import}, for the imports that run when a module is imported: module-level
    ones, each also running the __init__ of the packages around the imported module (except paddle_fn's own,
    which every import starts with, and those around the importing module, which have started already)."""
    edges = {}
    for name, path in MODULES.items():
        pkg = _package_of(name)
        for mod, line, in_function in _imports(path):
            if in_function or _package_of(mod) is None:
                continue
            parts = mod.split(".")
            for i in range(2, len(parts) + 1):
                target = _package_of(".".join(parts[:i]))
                if target not in (pkg, "paddle_fn") and not name.startswith(target + "."):
                    edges.setdefault(pkg, {}).setdefault(target, f"{path.relative_to(ROOT)}:{line} imports {mod}")
    return edges


def _cycles(edges):
    """The strongly connected components with more than one package (Tarjan's algorithm)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return out


def test_no_import_cycle_between_packages():
    edges = _import_time_edges()
    cycles = [c for c in _cycles(edges) if c not in ALLOWED_CYCLES]
    report = [", ".join(sorted(c)) + ":\n  " + "\n  ".join(edges[a][b] for a in sorted(c) for b in edges[a] if b in c)
              for c in cycles]
    assert not cycles, "packages that import each other when imported:\n" + "\n".join(report)


def test_the_cycle_finder_finds_cycles():
    edges = {"a": {"b": ""}, "b": {"c": ""}, "c": {"a": ""}, "d": {"a": ""}}
    assert _cycles(edges) == [frozenset("abc")]
    assert _cycles({"a": {"b": ""}, "b": {}}) == []


def test_names_taken_from_the_root_are_bound_first():
    """`from paddle_fn import Tensor` at module level works only if paddle_fn/__init__.py binds Tensor before the
    statement that (directly or through other packages) first imports the importing package."""
    edges = _import_time_edges()
    bound, bound_before = set(), {}

    def first_imported_now(mods):
        todo = [_package_of(m) for m in mods if _package_of(m) not in (None, "paddle_fn")]
        while todo:
            pkg = todo.pop()
            if pkg not in bound_before:
                bound_before[pkg] = set(bound)
                todo.extend(edges.get(pkg, {}))

    root = ast.parse((ROOT / "paddle_fn" / "__init__.py").read_text())
    for node in root.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            first_imported_now([a.name for a in node.names] if isinstance(node, ast.Import) else (
                [f"{node.module}.{a.name}" for a in node.names] + [node.module]))
            for a in node.names:  # a star import binds the names its module exports
                bound.update(importlib.import_module(node.module).__all__ if a.name == "*"
                             else [(a.asname or a.name).split(".")[0]])
    first_imported_now([module for module, _ in _lazy_root_imports(root)])  # after the whole root has run
    bad = []
    for name, path in MODULES.items():
        pkg = _package_of(name)
        for node in ast.parse(path.read_text()).body:
            if pkg != "paddle_fn" and isinstance(node, ast.ImportFrom) and node.module == "paddle_fn":
                late = [a.name for a in node.names
                        if f"paddle_fn.{a.name}" not in MODULES and a.name not in bound_before[pkg]]
                if late:
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} takes {late} from paddle_fn, which binds "
                               f"them only after it starts importing {pkg}")
    assert not bad, "\n".join(bad)


# The function-level imports of project modules that are there on purpose, each with its reason (no import
# cycle hidden in a function body). A new one needs an entry here, or a move of the shared piece down.
DELIBERATE_LAZY_IMPORTS = {
    # convert_call runs inside converted user code: dy2static's translator and the Layer class import the
    # operator conversions at module level, so these two can only be looked up when a call is converted
    ("paddle_fn.nn_compat.jit.dy2static.convert_operators", "paddle_fn.nn_compat.jit.dy2static.program_translator"),
    ("paddle_fn.nn_compat.jit.dy2static.convert_operators", "paddle_fn.nn_compat.layer.layers"),
}


def test_no_function_level_import_of_project_modules_but_the_deliberate_ones():
    """The root's lazy table is accepted as a whole: the root is the top layer, so it hides no cycle, and loading
    Paddle's larger namespaces on first use is what keeps `import paddle_fn` cheap."""
    found = set()
    for name, path in MODULES.items():
        for target, line, in_function in _imports(path):
            if in_function and _package_of(target) is not None:
                found.add((name, target, line))
    lazy_root = {("paddle_fn", module) for module, _ in
                 _lazy_root_imports(ast.parse((ROOT / "paddle_fn" / "__init__.py").read_text()))}
    assert lazy_root, f"paddle_fn/__init__.py has none of the tables {LAZY_ROOT_TABLES}: update LAZY_ROOT_TABLES"
    unexpected = sorted(f"{name}:{line} imports {target}" for name, target, line in found
                        if (name, target) not in DELIBERATE_LAZY_IMPORTS | lazy_root)
    assert not unexpected, ("imports inside functions (import at the top, or move the shared piece to a lower "
                            "module; see docs/contributing.md):\n" + "\n".join(unexpected))
    stale = DELIBERATE_LAZY_IMPORTS - {(name, target) for name, target, _ in found}
    assert not stale, f"entries of DELIBERATE_LAZY_IMPORTS no longer needed: {sorted(stale)}"


def test_library_never_imports_a_peer_framework():
    bad = []
    for path in MODULES.values():
        for mod, line, _ in _imports(path):
            if mod.split(".")[0] in PEERS:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {mod}")
    assert not bad, bad


def test_mapped_packages_refuse_top_level_import():
    for name in ("lowering", "transforms", "runtime", "nn_compat"):
        sys.path.insert(0, str(ROOT))
        try:
            with pytest.raises(ImportError, match=f"paddle_fn.{name}"):
                sys.modules.pop(name, None)
                importlib.import_module(name)
        finally:
            sys.path.remove(str(ROOT))
            sys.modules.pop(name, None)


def test_architecture_page_shows_the_same_layers():
    """docs/architecture.md's table lists every package of `LAYERS` at its layer, so the page stays true."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    documented = {}
    for layer, packages in re.findall(r"^\| (\d+) \| (.+?) \|", page, flags=re.M):
        for name in re.findall(r"`(paddle_fn[\w./]*)`", packages):
            documented[name.replace("/__init__.py", "")] = int(layer)
    assert documented == LAYERS, "the layer table of docs/architecture.md differs from LAYERS: update one of them"


MAX_MODULE_LINES = 1000


def test_modules_stay_small():
    """A module holds one concern: about 1,000 lines at most (split a family or a layer before it grows past)."""
    too_long = {name: n for name, path in MODULES.items()
                if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not too_long, f"modules over {MAX_MODULE_LINES} lines: {too_long}"


def test_architecture_module_map_names_every_module():
    """docs/architecture.md's module map has one row for each package of `LAYERS`, at its layer, and each row names
    every module of its package (a module of a nested package with a row of its own, such as nn/functional/, is that
    row's; a row that lists a family by example, a module name followed by "...", names some), and no module that is
    gone. A single-module package (paddle_fn/fft.py) names its file."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    section = page[page.index("### Module map"):]
    section = section[:section.index("\n\n", section.index("| package |"))]
    rows = re.findall(r"^\| `(paddle_fn[\w.]*)` \| (\d+) \| (.+) \|$", section, flags=re.M)
    listed = [package for package, _, _ in rows]
    assert sorted(listed) == sorted(LAYERS), (
        f"the module map's rows differ from LAYERS: no row for {sorted(set(LAYERS) - set(listed))}, a row but no "
        f"layer for {sorted(set(listed) - set(LAYERS))} (or a package listed twice)")
    wrong = [f"{package}: the map says layer {layer}, LAYERS {LAYERS[package]}" for package, layer, _ in rows
             if int(layer) != LAYERS[package]]
    for package, _, row in rows:
        path = MODULES[package]
        if _is_package(path):
            folder = path.parent
            modules = {p.relative_to(folder).as_posix() for p in folder.rglob("*.py")
                       if not _is_package(p) and _package_of(_module_name(p)) == package}
        else:
            folder, modules = path.parent, {path.name}
        named = set(re.findall(r"`([\w/]+\.py)`", row)) - {"__init__.py"}
        folders = set(re.findall(r"`(\w+)/`", row))
        unnamed = {m for m in modules if m not in named and m.split("/")[0] not in folders
                   and (m.rpartition("/")[2] not in named)}
        gone = {n for n in named if not any(m == n or m.endswith("/" + n) for m in modules)}
        if unnamed and not re.search(r"\.py`, \.\.\.", row) or gone:
            wrong.append(f"{package}: not named {sorted(unnamed)}, named but absent {sorted(gone)}")
    assert not wrong, "docs/architecture.md's module map differs from the code:\n" + "\n".join(wrong)


def test_no_comment_or_page_cites_a_project_issue_number():
    """The code and the docs say why in their own words: an issue number means nothing to a reader of the code."""
    cited = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if path.suffix not in (".py", ".md") or parts[0].startswith(".") or parts[0].endswith(".egg-info"):
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bissues? #?\d+", line, flags=re.I):
                cited.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not cited, "issue numbers cited (say what the issue asked instead):\n" + "\n".join(cited)
