"""MkDocs hooks of the documentation site (mkdocs.yml `hooks:`).

The API reference is read from the sources by griffe (mkdocstrings' Python handler), which looks packages up on
disk. paddle_fn's repository layout differs from its installed layout: the top-level folders transforms/,
lowering/, runtime/ and nn_compat/ install as paddle_fn.transforms, ... (ROOTS in paddle_fn/core/packages.py). So before the
build the sources are copied into a temporary folder in the installed layout, and griffe searches there first.
"""
from __future__ import annotations

import pathlib
import shutil
import tempfile

from mkdocs.plugins import event_priority

from paddle_fn.core.packages import ROOTS

ROOT = pathlib.Path(__file__).resolve().parents[2]
_tree: list[str] = []


def _clean():
    while _tree:
        shutil.rmtree(_tree.pop(), ignore_errors=True)


@event_priority(100)  # before mkdocstrings reads its handler options
def on_config(config):
    _clean()
    tree = tempfile.mkdtemp(prefix="paddle_fn_api_")
    _tree.append(tree)
    for name, folder in sorted(ROOTS.items()):  # parents first
        shutil.copytree(ROOT / folder, pathlib.Path(tree, *name.split(".")), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [tree]
    return config


def on_shutdown():
    _clean()
