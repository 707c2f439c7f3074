"""The traced IR: abstract values, variables, equations and programs, with a type-checker and a printer.

A `Program` is closed over nothing: constants a trace captured are ordinary leading inputs, and the trace
returns their values alongside (see `StagingTrace.build`). Programs held in control-flow params are therefore
plain data that can be hashed, printed, lowered and transformed without a side channel.
"""
from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from paddle_fn.core.dtypes import DType, as_dtype

_SHORT = {"bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "uint32": "u32", "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
          "complex64": "c64", "complex128": "c128"}


class ShapedArray:
    """The abstract value of a Tensor: a shape (tuple of ints) and a dtype."""
    __slots__ = ("shape", "dtype", "_hash")

    def __init__(self, shape, dtype):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = as_dtype(dtype)
        self._hash = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __eq__(self, other):
        return isinstance(other, ShapedArray) and self.shape == other.shape and self.dtype == other.dtype

    def __hash__(self):
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype))
        return h

    def str_short(self) -> str:
        return f"{_SHORT[self.dtype.name]}[{','.join(map(str, self.shape))}]"

    def __repr__(self):
        return f"ShapedArray({self.str_short()})"

    def update(self, shape=None, dtype=None) -> "ShapedArray":
        return ShapedArray(self.shape if shape is None else shape, self.dtype if dtype is None else dtype)


def short_dtype(d: DType) -> str:
    return _SHORT[d.name]


class Var:
    """A program variable; identity is by object, the printed name is assigned by the printer."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"Var({self.aval.str_short()})"


class Literal:
    """An inline scalar constant in a program."""
    __slots__ = ("val", "aval")

    def __init__(self, val, aval: ShapedArray):
        self.val = np.asarray(val, dtype=aval.dtype.np)
        self.aval = aval

    def __repr__(self):
        return f"Literal({self.val.item()!r})" if self.val.ndim == 0 else f"Literal({self.aval.str_short()})"


@dataclass(frozen=True)
class Eqn:
    """One primitive application. `source` is the `SourceLine` of the user code that staged it (None when unknown);
    program transforms keep it, so an error found in a compiled program names the user's line."""
    prim: Any
    inputs: tuple
    params: dict
    outputs: tuple
    source: Any = field(default=None, compare=False)
    scope: str = field(default="", compare=False)  # the named_scope(s) it was traced in, "outer/inner": printed,
    # and the StableHLO locations

    def with_inputs(self, inputs) -> "Eqn":
        """The same equation reading `inputs`."""
        return replace(self, inputs=tuple(inputs))


class SourceLine:
    """Where user code staged an equation: its function's code object and the offset of the instruction. The line
    number is found only when shown (reading a frame's line costs more than staging the equation)."""
    __slots__ = ("code", "offset")

    def __init__(self, code, offset: int):
        self.code, self.offset = code, offset

    def location(self) -> tuple:
        """(filename, line, function)."""
        line = next((n for start, end, n in self.code.co_lines() if start <= self.offset < end and n is not None),
                    self.code.co_firstlineno)
        return self.code.co_filename, line, self.code.co_name

    def __repr__(self):
        return f"SourceLine({format_source(self)})"


def format_source(source, full_path: bool = True) -> str:
    """A `SourceLine` or a (filename, line, function) as ``file:line (in function)``; the file's base name when not
    `full_path`."""
    if source is None:
        return "an unknown line"
    filename, line, function = source.location() if isinstance(source, SourceLine) else source
    return f"{filename if full_path else os.path.basename(filename)}:{line} (in {function})"


@dataclass(frozen=True, eq=False)
class Program:
    """A typed, first-order program: `in_vars` -> `eqns` -> `out_vars` (Vars or Literals)."""
    in_vars: tuple
    eqns: tuple
    out_vars: tuple

    @property
    def in_avals(self):
        return [v.aval for v in self.in_vars]

    @property
    def out_avals(self):
        return [v.aval for v in self.out_vars]

    def __str__(self):
        return pp_program(self)

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


# ----------------------------------------------------------------------------------------------- printing

def _name_gen():
    for n in itertools.count():
        s = ""
        n0 = n
        while True:
            s = chr(ord("a") + n0 % 26) + s
            n0 = n0 // 26 - 1
            if n0 < 0:
                break
        yield s


def _pp_param(v, indent, source):
    if isinstance(v, Program):
        body = pp_program(v, indent + 4, source=source)
        return "\n" + body
    if isinstance(v, np.ndarray):
        if v.size <= 8:
            return np.array2string(v, separator=",").replace("\n", "")
        return f"<array {v.dtype}{list(v.shape)}>"
    if isinstance(v, DType):
        return v.name
    if callable(v) and not isinstance(v, type):
        return getattr(v, "__name__", type(v).__name__)
    if isinstance(v, tuple) and v and all(isinstance(p, Program) for p in v):
        return "(" + ",".join("\n" + pp_program(p, indent + 4, source=source) for p in v) + ")"
    return repr(v)


def pp_program(prog: Program, indent: int = 0, const_count: int = 0, source: bool = False) -> str:
    """The program as text; with `source`, each equation ends with ``# file:line (in function)`` of the user code
    that staged it."""
    names: dict = {}
    gen = _name_gen()

    def name(v):
        if isinstance(v, Literal):
            return repr(v.val.item()) if v.val.ndim == 0 else f"<{v.aval.str_short()} const>"
        if v not in names:
            names[v] = next(gen)
        return names[v]

    def decl(v):
        return f"{name(v)}:{v.aval.str_short()}"

    pad = " " * indent
    ins = [decl(v) for v in prog.in_vars]
    if const_count:
        head = f"{pad}{{ lambda {' '.join(ins[:const_count])} ; {' '.join(ins[const_count:])}. let"
    else:
        head = f"{pad}{{ lambda ; {' '.join(ins)}. let"
    lines = [head]
    for eqn in prog.eqns:
        lhs = " ".join(decl(v) for v in eqn.outputs)
        params = " ".join(f"{k}={_pp_param(v, indent + 4, source)}" for k, v in sorted(eqn.params.items()))
        rhs = eqn.prim.name + (f"[{params}]" if params else "") + " " + " ".join(name(v) for v in eqn.inputs)
        notes = ([eqn.scope] if eqn.scope else []) + (
            [format_source(eqn.source, full_path=False)] if source and eqn.source is not None else [])
        lines.append(f"{pad}    {lhs} = {rhs.rstrip()}" + (f"  # {'; '.join(notes)}" if notes else ""))
    outs = ", ".join(name(v) for v in prog.out_vars)
    lines.append(f"{pad}  in ({outs}) }}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------- type check

class IRTypeError(TypeError):
    pass


def typecheck_program(prog: Program) -> None:
    """Check that every equation's declared output types match its primitive's shape rule."""
    env = set(prog.in_vars)
    for eqn in prog.eqns:
        for v in eqn.inputs:
            if isinstance(v, Var) and v not in env:
                raise IRTypeError(f"{eqn.prim.name}: input variable {v} used before it is defined")
        expected = eqn.prim.abstract_eval_list([v.aval for v in eqn.inputs], eqn.params)
        got = [v.aval for v in eqn.outputs]
        if expected != got:
            raise IRTypeError(f"{eqn.prim.name}: outputs are typed {got} but the shape rule gives {expected}")
        for p in eqn.params.values():
            if isinstance(p, Program):
                typecheck_program(p)
        env.update(eqn.outputs)
    for v in prog.out_vars:
        if isinstance(v, Var) and v not in env:
            raise IRTypeError(f"output variable {v} is never defined")


# ----------------------------------------------------------------------------------------------- cost

def sub_program_params(eqn: Eqn) -> dict:
    """The params of an equation that hold Programs (a control-flow body, branches, a jitted function), each as
    a tuple of its Programs in order: name -> (Program, ...)."""
    found = {}
    for key, p in eqn.params.items():
        if isinstance(p, Program):
            found[key] = (p,)
        elif isinstance(p, tuple) and any(isinstance(q, Program) for q in p):
            found[key] = tuple(q for q in p if isinstance(q, Program))
    return found


def sub_programs(eqn: Eqn) -> list:
    """The Programs an equation holds in its params, in params order."""
    return [p for progs in sub_program_params(eqn).values() for p in progs]


def work_estimate(prog: Program) -> float:
    """A rough count of the element operations `prog` performs: a primitive's own `cost` where it gives one (a
    matrix product counts its multiply-adds), a loop its body times its trip count (once when unknown), anything
    else the larger of its inputs and outputs. Enough to tell a tiny program from one worth spreading over cores."""
    total = 0.0
    for eqn in prog.eqns:
        out = sum(v.aval.size for v in eqn.outputs)
        subs = sub_programs(eqn)
        if eqn.prim.cost is not None:
            total += eqn.prim.cost([v.aval for v in eqn.inputs], [v.aval for v in eqn.outputs], **eqn.params)
        elif subs:
            total += eqn.params.get("length", 1) * sum(work_estimate(p) for p in subs)
        else:
            total += max(out, sum(v.aval.size for v in eqn.inputs))
    return total
