"""The package map, in one place: which top-level folders of the repository install as which packages.

`transforms/`, `lowering/`, `runtime/` and `nn_compat/` install as subpackages of paddle_fn, so the only import
name is paddle_fn. setup.py reads this file (without importing paddle_fn), the Makefile's bytecode step, the docs
site's API hook and the layering test read it, and the core uses it to tell library frames from the user's
(`library_folders`).
"""
from __future__ import annotations

import functools
import importlib.util
import os

# package name -> its folder in the repository
ROOTS = {
    "paddle_fn": "paddle_fn",
    "paddle_fn.transforms": "transforms",
    "paddle_fn.lowering": "lowering",
    "paddle_fn.runtime": "runtime",
    "paddle_fn.nn_compat": "nn_compat",
}


@functools.cache
def library_folders() -> tuple:
    """The absolute folders (with a trailing separator) the mapped packages were loaded from, wherever they are
    installed: a file under one of them is paddle_fn's own."""
    folders = []
    for name in ROOTS:
        spec = importlib.util.find_spec(name)
        folders += [os.path.join(os.path.realpath(path), "") for path in spec.submodule_search_locations]
    return tuple(folders)
