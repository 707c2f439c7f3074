"""The dispatches IREE makes of a program: how many kernels a call launches, which, and how each is generated.

IREE splits a program into dispatches, each an entry point of an executable named after its root operation and
shapes (``main_dispatch_3_matmul_128x1024x784_f32``; a named_scope's name where the program has scopes, see
`dispatch_names`), and picks a code-generation pipeline per executable. Both are known before any code is
generated: the program is compiled up to IREE's ``executable-configurations`` phase (0.3-0.5 s for a training
step, against seconds for the whole compile), which is complete (the packing dispatches that data tiling adds on the
CPU are formed after the flow phase) and works for every target, a GPU's included, on a machine without it.
"""
from __future__ import annotations

import dataclasses
import functools
import re

from paddle_fn.runtime.compiler import _CompilerFailure, _compile_error, _run_compiler, cache_key, module_flags

PHASE = "executable-configurations"

# a dispatch in the host program: @executable::@variant::@entry point (the first one, where several variants list
# one each)
_DISPATCH = re.compile(r"stream\.cmd\.dispatch \{?@[\w$.-]+::@[\w$.-]+::@([\w$.-]+)")
# an entry point's function and the pipeline its translation_info names: #iree_cpu.pipeline<DoubleTilingExpert>
_PIPELINE = re.compile(r"func\.func @([\w$.-]+)\(\)[^\n]*?translation_info = #iree_codegen\.translation_info<"
                       r"pipeline = (?:#\w+\.pipeline<)?(\w+)")


@dataclasses.dataclass(frozen=True)
class Dispatch:
    """One dispatch of a program: its entry point's `name` and the code-generation `pipeline` IREE chose for it
    (``Mmt4dTilingExpert``, ``ConvTileAndDecomposeExpert``, ``DoubleTilingExpert``... on the CPU; ``TileAndFuse``,
    ``VectorDistribute``, ``BaseLowering``... on a GPU; "" where none is named)."""
    name: str
    pipeline: str


@dataclasses.dataclass(frozen=True, repr=False)
class Dispatches:
    """The dispatches of one program for one `target` compiled with `flags`: `dispatches` holds one `Dispatch`
    per dispatch operation of the program, in program order (an executable launched at several places appears at
    each; one in a loop body once, however often the loop runs). ``len()`` counts them, `names` lists them and
    `executables` counts the distinct ones (what IREE generates code for)."""
    target: str
    flags: tuple
    dispatches: tuple

    def __len__(self):
        return len(self.dispatches)

    def __iter__(self):
        return iter(self.dispatches)

    @property
    def names(self) -> tuple:
        return tuple(dispatch.name for dispatch in self.dispatches)

    @property
    def executables(self) -> int:
        return len(set(self.names))

    def __repr__(self):
        return f"Dispatches({self._summary()})"

    def _summary(self) -> str:
        return (f"{_counted(len(self), 'dispatch', 'es')} of {_counted(self.executables, 'executable', 's')} for "
                f"{self.target}")

    def __str__(self):
        width = max((len(name) for name in self.names), default=0)
        return "\n".join([self._summary()] + [f"  {d.name:<{width}}  {d.pipeline}" for d in self.dispatches])


def _counted(count: int, noun: str, plural: str) -> str:
    return f"{count} {noun}{'' if count == 1 else plural}"


def dispatches(text: str, *, target: str = "llvm-cpu", extra_flags=()) -> Dispatches:
    """The dispatches IREE makes of the StableHLO module `text` for `target` ('llvm-cpu', 'cuda', ...; any that
    `compile_stablehlo` takes, without its hardware), compiled with the target's flags and `extra_flags`; computed
    once per (text, target, flags). The flags that only tune the generated code (the float64 tuning spec, the tile
    size of large programs) are left out: they change neither the dispatches nor their pipelines. A compile that
    would fall back to other flags (data tiling off, after a failure in code generation) is described as asked.

    Example:
        >>> from paddle_fn import runtime
        >>> text = '''func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
        ...   %0 = stablehlo.exponential %x : tensor<64xf32>
        ...   %1 = stablehlo.multiply %0, %x : tensor<64xf32>
        ...   return %1 : tensor<64xf32>
        ... }'''
        >>> print(runtime.dispatches(text))
        1 dispatch of 1 executable for llvm-cpu
          main_dispatch_0_elementwise_64_f32  DoubleTilingExpert
    """
    return _dispatches(text, target, module_flags(text, target, extra_flags))


@functools.lru_cache(maxsize=64)
def _dispatches(text: str, target: str, flags: tuple) -> Dispatches:
    try:
        configured = _run_compiler(text, target, flags, compile_to=PHASE).decode()
    except _CompilerFailure as failure:
        key = cache_key(text, flags, target)
        raise _compile_error(text, target, flags, key, failure.diagnostics, None, 1) from None
    pipelines = dict(_PIPELINE.findall(configured))
    return Dispatches(target, flags, tuple(Dispatch(name, pipelines.get(name, ""))
                                           for name in _DISPATCH.findall(configured)))
