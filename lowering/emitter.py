"""The StableHLO text emitter primitives' lowering rules write through.

A rule is called as ``rule(ctx, *operand_names, **params)`` with `ctx.avals_in` / `ctx.avals_out` set to the
equation's types; it emits lines with `ctx.op(...)` / `ctx.line(...)` and returns the result name(s).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.ir import Literal, Program, ShapedArray

# IREE's backend names: "llvm-cpu", "cuda", "rocm", "vulkan-spirv", "metal-spirv"
DEFAULT_TARGET = "llvm-cpu"
# IREE's GPU backends that share its LLVMGPU code generation, on which the GPU forms were probed: cuda (sm_80) and
# rocm (gfx942), cross-compiled; vulkan-spirv and metal-spirv generate code otherwise and get no GPU form
GPU_TARGETS = ("cuda", "rocm")


@dataclass(frozen=True)
class Target:
    """What a program is lowered for: an IREE backend and, on llvm-cpu, the CPU the code is compiled for (an LLVM
    CPU name, or "host") with that CPU's feature names (avx2, avx512f, ...), by which an override may choose its
    form. A target that names no CPU gets the forms that are chosen without one. `host_kernels`: the program runs
    on one CPU device of this process, so it may call host kernels (lowering/host_calls.py). Part of every text's
    cache key."""
    backend: str = DEFAULT_TARGET
    cpu: Optional[str] = None
    cpu_features: frozenset = frozenset()
    host_kernels: bool = False

    @staticmethod
    def of(target) -> "Target":
        """`target` itself, or the target of the backend it names (no CPU)."""
        return target if isinstance(target, Target) else Target(target)

_ELEMENT = {"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "ui8",
            "uint32": "ui32", "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
            "complex64": "complex<f32>", "complex128": "complex<f64>"}
_HEX_BITS = {"float16": (np.uint16, 4), "bfloat16": (np.uint16, 4), "float32": (np.uint32, 8),
             "float64": (np.uint64, 16)}


def element_type(dtype) -> str:
    return _ELEMENT[dtype.name]


def tensor_type(aval: ShapedArray) -> str:
    dims = "".join(f"{d}x" for d in aval.shape)
    return f"tensor<{dims}{element_type(aval.dtype)}>"


def compare_type(dtype) -> str:
    """The comparison type stablehlo.compare takes for elements of `dtype` (complex: EQ and NE only)."""
    return _COMPARE_TYPES[dtype.kind]


_COMPARE_TYPES = {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED", "u": "UNSIGNED", "b": "UNSIGNED"}
# the parts of a complex dtype (stablehlo.real / stablehlo.imag)
COMPLEX_PART = {"complex64": dtypes.float32, "complex128": dtypes.float64}


def _scalar_text(v, dtype) -> str:
    if dtype.name == "bool":
        return "true" if bool(v) else "false"
    if dtype.kind in "iu":
        return str(int(v))
    if dtype.kind == "c":
        v, part = complex(v), COMPLEX_PART[dtype.name]
        return f"({_scalar_text(v.real, part)}, {_scalar_text(v.imag, part)})"
    f = float(v)
    if np.isfinite(f):
        text = repr(float(np.asarray(v, dtype=dtype.np).astype(np.float64)))
        mantissa, e, exponent = text.partition("e")
        return text if "." in mantissa else f"{mantissa}.0{e}{exponent}"  # MLIR floats need a '.
    utype, width = _HEX_BITS[dtype.name]
    bits = np.asarray(v, dtype=dtype.np).view(utype).item()
    return f"0x{bits:0{width}X}"


def i64_array(values) -> str:
    """A StableHLO `array<i64: ...>` attribute."""
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>" if len(values) else "array<i64>"


def splat(value) -> bool:
    """Whether every element of the (non-empty) array `value` is one number (NaNs only when there is one)."""
    flat = np.asarray(value).reshape(-1)
    return flat.size == 1 or bool(np.all(flat == flat[0]))


def constant_text(value, aval: ShapedArray) -> str:
    """The `dense<...>` attribute for a value of type `aval` (splat when all elements are equal)."""
    a = np.broadcast_to(np.asarray(value, dtype=aval.dtype.np), aval.shape)
    flat = a.reshape(-1)
    if flat.size == 0:
        return "dense<>"
    if splat(flat):
        return f"dense<{_scalar_text(flat[0], aval.dtype)}>"

    def nest(x):
        if x.ndim == 0:
            return _scalar_text(x, aval.dtype)
        return "[" + ", ".join(nest(y) for y in x) + "]"
    return f"dense<{nest(a)}>"


_SIGNED_OF_WIDTH = {1: dtypes.int8, 2: dtypes.int16, 4: dtypes.int32, 8: dtypes.int64}


def signed_int_of_width(dtype):
    """The signed integer dtype as wide as `dtype` (bit patterns of floats, the signed view of unsigned ints)."""
    return _SIGNED_OF_WIDTH[dtype.np.itemsize]


def on_signed_view(rule):
    """A lowering `rule` applied to unsigned operands through the signed type of the same width (bitcast in and
    out). IREE 3.13 fails to compile reverse and the reduce_window of cumulative sums and products on ui8/ui32
    elements; for rules whose result bits do not depend on signedness (data movement, wrapping add and multiply)
    the signed view gives the same bits."""
    def lower(ctx, *operands, **params):
        avals_in, avals_out = ctx.avals_in, ctx.avals_out
        if not any(a.dtype.kind == "u" for a in avals_in):
            return rule(ctx, *operands, **params)

        def signed(aval):
            return aval.update(dtype=signed_int_of_width(aval.dtype)) if aval.dtype.kind == "u" else aval

        def bitcast(name, src, dst):
            return name if src == dst else ctx.op("stablehlo.bitcast_convert", [name], dst, in_avals=[src])
        operands = [bitcast(x, a, signed(a)) for x, a in zip(operands, avals_in)]
        outs = ctx.apply(rule, operands, [signed(a) for a in avals_in], [signed(a) for a in avals_out], **params)
        if isinstance(outs, str):
            return bitcast(outs, signed(avals_out[0]), avals_out[0])
        return [bitcast(o, signed(a), a) for o, a in zip(outs, avals_out)]
    return lower


class Produced(NamedTuple):
    """How an SSA value was computed: the primitive, operand names, parameters and operand types of its equation."""
    primitive: str
    operands: tuple
    params: dict
    avals_in: tuple


class FuncLowering:
    """Emits the body of one func.func; shared by nested regions so SSA names stay unique."""

    def __init__(self, matmul_precision: str = "float32", *, target=DEFAULT_TARGET, overrides=None):
        self.lines: list[str] = []
        self._n = 0
        self.indent = 4
        self.avals_in: list[ShapedArray] = []
        self.avals_out: list[ShapedArray] = []
        # how float32 products are emitted (lowering/precision.py); part of the program's compile-cache key
        self.matmul_precision = matmul_precision
        # the Target (or backend name) the text is for, and `overrides(primitive, backend)`, the rule lowering a
        # primitive there (lowering/targets.py's lowering_rule); None: every primitive's own, generic rule
        self.target = Target.of(target)
        self._overrides = overrides
        # SSA name -> the Produced record of the equation that produced it (None: an argument or a constant), for
        # overrides whose best form depends on how IREE will see an operand
        self._producers: dict[str, Produced] = {}
        # SSA names of the constants whose every element is one scalar (a splat), for overrides that take such a
        # factor out of an operation
        self._splats: set[str] = set()
        # module-level declarations the body needs (the external functions of host calls)
        self.declarations: list[str] = []

    def fresh(self) -> str:
        self._n += 1
        return f"%{self._n - 1}"

    def line(self, text: str) -> None:
        self.lines.append(" " * self.indent + text)

    def op(self, opname: str, operands, out_aval: ShapedArray | None = None, attrs: str = "",
           in_avals=None, sep: str = " ") -> str:
        """Emit ``%r = opname %a, %b attrs : (in types) -> out type`` and return %r."""
        out_aval = out_aval or self.avals_out[0]
        in_avals = in_avals if in_avals is not None else self.avals_in
        res = self.fresh()
        args = ", ".join(operands)
        sig = f"({', '.join(tensor_type(a) for a in in_avals)}) -> {tensor_type(out_aval)}"
        self.line(f"{res} = {opname} {args}{(sep + attrs) if attrs else ''} : {sig}")
        return res

    def generic_op(self, opname: str, operands, out_aval: ShapedArray | None = None, attrs: str = "",
                   in_avals=None) -> str:
        """Emit the generic form ``%r = "opname"(%a, %b) {attrs} : (in types) -> out type``."""
        out_aval = out_aval or self.avals_out[0]
        in_avals = in_avals if in_avals is not None else self.avals_in
        res = self.fresh()
        sig = f"({', '.join(tensor_type(a) for a in in_avals)}) -> {tensor_type(out_aval)}"
        self.line(f'{res} = "{opname}"({", ".join(operands)}){(" {" + attrs + "}") if attrs else ""} : {sig}')
        return res

    def constant(self, value, aval: ShapedArray) -> str:
        name = self._constant(value, aval)
        if aval.size and splat(value):
            self._splats.add(name)
        return name

    def is_splat(self, name: str) -> bool:
        """Whether the SSA value `name` is a constant whose every element is one scalar."""
        return name in self._splats

    def _constant(self, value, aval: ShapedArray) -> str:
        if aval.dtype.kind == "c":
            # complex(real part, imaginary part): IREE 3.13 crashes packing complex128 constants into its resources
            part = aval.update(dtype=COMPLEX_PART[aval.dtype.name])
            value = np.asarray(value, dtype=aval.dtype.np)
            re, im = self.constant(value.real, part), self.constant(value.imag, part)
            res = self.fresh()
            self.line(f"{res} = stablehlo.complex {re}, {im} : ({tensor_type(part)}, {tensor_type(part)}) -> "
                      f"{tensor_type(aval)}")
            return res
        res = self.fresh()
        self.line(f"{res} = stablehlo.constant {constant_text(value, aval)} : {tensor_type(aval)}")
        return res

    def scalar_region(self, opname: str, dtype) -> str:
        """A reducer region `{ ^bb0(%a, %b): %r = opname %a, %b; return %r }` over 0-d tensors of `dtype`."""
        t = tensor_type(ShapedArray((), dtype))
        a, b, r = self.fresh(), self.fresh(), self.fresh()
        return (f"{{\n{' ' * (self.indent + 2)}^bb0({a}: {t}, {b}: {t}):\n"
                f"{' ' * (self.indent + 4)}{r} = {opname} {a}, {b} : {t}\n"
                f"{' ' * (self.indent + 4)}stablehlo.return {r} : {t}\n{' ' * self.indent}}}")

    def region(self, prog: Program) -> str:
        """Lower `prog` as a region whose block arguments are its inputs (returned with stablehlo.return)."""
        saved_lines, saved_indent = self.lines, self.indent
        self.lines, self.indent = [], saved_indent + 4
        names = [self.fresh() for _ in prog.in_vars]
        head = ", ".join(f"{n}: {tensor_type(v.aval)}" for n, v in zip(names, prog.in_vars))
        outs = self.inline(prog, names)
        types = ", ".join(tensor_type(v.aval) for v in prog.out_vars)
        self.line(f"stablehlo.return {', '.join(outs)} : {types}")
        body = "\n".join(self.lines)
        self.lines, self.indent = saved_lines, saved_indent
        return f"{{\n{' ' * (saved_indent + 2)}^bb0({head}):\n{body}\n{' ' * saved_indent}}}"

    def inline(self, prog: Program, args) -> list[str]:
        """Emit `prog`'s equations with its inputs bound to the SSA names `args`; return its output names."""
        env = dict(zip(prog.in_vars, args))

        def read(v):
            if isinstance(v, Literal):
                return self.constant(v.val, v.aval)
            return env[v]

        for eqn in prog.eqns:
            if eqn.outputs and all(v.aval.size == 0 for v in eqn.outputs):
                # only empty results (a decomposition of a 0 x 0 matrix): nothing to compute, and rules that slice
                # or reduce along the empty axes (argmax's positions) need not handle them
                env.update((v, self.constant(np.zeros(v.aval.shape, v.aval.dtype.np), v.aval)) for v in eqn.outputs)
                continue
            ins = [read(v) for v in eqn.inputs]
            first_line = len(self.lines)
            outs = self.apply(self.rule(eqn.prim), ins, [v.aval for v in eqn.inputs], [v.aval for v in eqn.outputs],
                              **eqn.params)
            if eqn.scope:
                self._locate(first_line, eqn.scope)
            if isinstance(outs, str):
                outs = [outs]
            for v, o in zip(eqn.outputs, outs):
                env[v] = o
                self._producers.setdefault(o, Produced(eqn.prim.name, tuple(ins), eqn.params,
                                                       tuple(v.aval for v in eqn.inputs)))
        return [read(v) for v in prog.out_vars]

    def _locate(self, first_line: int, scope: str) -> None:
        """Give the operations emitted from `first_line` on the location `scope` (a named_scope): MLIR keeps it
        through IREE's pipeline, in its diagnostics and dumps. An operation ends on a line that is not a block
        header and opens no region."""
        loc = ' loc("' + scope.replace("\\", "/").replace('"', "'") + '")'
        for i in range(first_line, len(self.lines)):
            line = self.lines[i].rstrip()
            if line.endswith(("{", "(", ":")) or line.lstrip().startswith("^") or not line.strip():
                continue
            self.lines[i] = line + loc

    def apply(self, rule, operands, avals_in, avals_out, /, **params):
        """`rule(self, *operands, **params)` with `avals_in` / `avals_out` as the types it lowers between (an
        override applies a rule to other operands than its equation's); returns the rule's result name(s)."""
        saved = self.avals_in, self.avals_out
        self.avals_in, self.avals_out = list(avals_in), list(avals_out)
        try:
            return rule(self, *operands, **params)
        finally:
            self.avals_in, self.avals_out = saved

    def rule(self, prim):
        """The rule lowering `prim` for this context's target."""
        return prim.lower if self._overrides is None else self._overrides(prim, self.target.backend)

    def producer(self, name: str) -> Optional[Produced]:
        """How the SSA value `name` was computed (a `Produced`: primitive name, operand names, parameters, operand
        types), or None for a function or region argument or a constant."""
        return self._producers.get(name)
