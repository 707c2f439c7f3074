"""`iree.runtime`, imported when one of its names is first used rather than with paddle_fn.

Importing the bindings loads IREE's native runtime library (~15-25 ms and its memory), which a program that never
compiles or runs anything (eager numpy work, tracing, printing a program) should not pay at `import paddle_fn`.
`importlib.util.LazyLoader` defers executing the module until its first attribute access; module-level code of
this package therefore must not touch `rt`'s attributes (tables of IREE enums are built on first use).
"""
from __future__ import annotations

import importlib.util
import sys


def _lazy_module(name: str):
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


rt = _lazy_module("iree.runtime")
