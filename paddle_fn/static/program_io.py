"""Programs as data files: the IR of a traced function written as JSON and read back without running code, with
dynamic (``None``) dimensions kept symbolic. This is what ``paddle.jit.save`` stores and ``paddle.jit.load`` runs.

The IR is shape-specialised, so a dynamic dimension is found by tracing: the function is traced with every
dynamic dimension at a base size, then once more per symbol at another size. The traces must have the same
structure; every integer that differs (a reshape size, a broadcast shape, a slice limit, a variable's shape) is
fitted as ``c + sum(a_k * s_k)`` of the symbols, and a last trace at fresh sizes must match the fit exactly, or
saving fails and says what depends on the dynamic size in another way. Loading substitutes the sizes of the
actual inputs and type-checks the program; each set of sizes compiles once.

Reading a file builds only programs of registered primitives with parameters of known types (ints, floats,
strings, tuples, dtypes, sub-programs, the dimension-number records of gather/scatter/conv): nothing in the file
can name a Python object to construct or code to run.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from paddle_fn.core.config import global_checks, matmul_precision_now
from paddle_fn.core.dtypes import DType, as_dtype
from paddle_fn.core.ir import Eqn, Literal, Program, ShapedArray, Var, typecheck_program
from paddle_fn.core.primitive import all_primitives
from paddle_fn.core.staging import trace_to_program
from paddle_fn.prims.conv import ConvDimensionNumbers
from paddle_fn.prims.slicing import GatherDimensionNumbers, ScatterDimensionNumbers
from paddle_fn.transforms.devices import resolve_device
from paddle_fn.transforms.jit import jit_call_p

__all__ = ["ExportedProgram", "export"]

FORMAT = "paddle_fn.program/1"
_RECORDS = {cls.__name__: cls for cls in (ConvDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers)}
# Base, per-symbol and check sizes of the dynamic dimensions: distinct, and not 1 (which broadcasting treats apart).
_BASE, _VARIED, _CHECK = 3, 5, 7


class ExportError(ValueError):
    """A function that cannot be saved as a program (a parameter of an unknown type, a shape that depends on a
    dynamic dimension in a way that is not affine)."""


# ----------------------------------------------------------------------------------------------- to JSON

def _encode_param(value, where):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return {"float": repr(float(value))}
    if isinstance(value, tuple):
        return {"tuple": [_encode_param(v, where) for v in value]}
    if isinstance(value, DType):
        return {"dtype": value.name}
    if isinstance(value, Program):
        return {"program": _encode_program(value)}
    if type(value).__name__ in _RECORDS and dataclasses.is_dataclass(value):
        return {"record": type(value).__name__,
                "fields": {f.name: _encode_param(getattr(value, f.name), where)
                           for f in dataclasses.fields(value)}}
    if where[1] == "device":
        return {"device": None}  # the device a jit_call inside ran on: the loading machine's default
    raise ExportError(f"paddle.jit.save: primitive '{where[0]}' has parameter {where[1]}={value!r} of type "
                      f"{type(value).__name__}, which cannot be stored in a program file (a custom_jvp/custom_vjp "
                      "rule is Python code); save a function without it")


def _encode_program(prog: Program) -> dict:
    ids = {}
    avals = []

    def var(v):
        if v not in ids:
            ids[v] = len(avals)
            avals.append([list(v.aval.shape), v.aval.dtype.name])
        return ids[v]

    def ref(v):
        if isinstance(v, Literal):
            return {"literal": _encode_param(v.val.item(), ("literal", "value")), "dtype": v.aval.dtype.name}
        return var(v)

    ins = [var(v) for v in prog.in_vars]
    eqns = []
    for e in prog.eqns:
        inputs = [ref(v) for v in e.inputs]
        params = {k: _encode_param(v, (e.prim.name, k)) for k, v in sorted(e.params.items())}
        eqns.append([e.prim.name, inputs, params, [var(v) for v in e.outputs]])
    outs = [ref(v) for v in prog.out_vars]
    return {"vars": avals, "in": ins, "eqns": eqns, "out": outs}


# ----------------------------------------------------------------------------------------------- from JSON

def _decode_param(obj):
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if not isinstance(obj, dict) or len(obj) not in (1, 2):
        raise ValueError(f"malformed program file: unexpected parameter value {obj!r}")
    if "float" in obj:
        return float(obj["float"])
    if "tuple" in obj:
        return tuple(_decode_param(v) for v in obj["tuple"])
    if "dtype" in obj:
        return as_dtype(obj["dtype"])
    if "program" in obj:
        return _decode_program(obj["program"])
    if "record" in obj:
        cls = _RECORDS.get(obj["record"])
        if cls is None:
            raise ValueError(f"malformed program file: unknown record type {obj['record']!r}")
        return cls(**{k: _decode_param(v) for k, v in obj["fields"].items()})
    if "device" in obj:
        return resolve_device(None)
    raise ValueError(f"malformed program file: unexpected parameter value {obj!r}")


def _decode_program(obj) -> Program:
    prims = all_primitives()
    avals = [ShapedArray(tuple(int(d) for d in shape), as_dtype(dtype)) for shape, dtype in obj["vars"]]
    made = {}

    def var(i):
        if i not in made:
            made[i] = Var(avals[i])
        return made[i]

    def ref(r):
        if isinstance(r, dict):
            dtype = as_dtype(r["dtype"])
            return Literal(_decode_param(r["literal"]), ShapedArray((), dtype))
        return var(r)

    eqns = []
    for name, inputs, params, outputs in obj["eqns"]:
        prim = prims.get(name)
        if prim is None:
            raise ValueError(f"paddle.jit.load: the program uses the primitive '{name}', which this paddle_fn "
                             "does not have (saved by another version?)")
        eqns.append(Eqn(prim, tuple(ref(r) for r in inputs), {k: _decode_param(v) for k, v in params.items()},
                        tuple(var(i) for i in outputs)))
    return Program(tuple(var(i) for i in obj["in"]), tuple(eqns), tuple(ref(r) for r in obj["out"]))


# ----------------------------------------------------------------------------------------------- symbolic sizes

def _fit(base, varied, symbols, path):
    """The template of `base` whose ints that change with a symbol are {"affine": [c, {sym: a}]}."""
    if isinstance(base, dict) and set(base) == {"float"} and all(isinstance(v, dict) and set(v) == {"float"}
                                                                 for v in varied):
        # a float literal counting elements (the divisor of a mean over a dynamic axis) is affine too
        b, vs = float(base["float"]), [float(v["float"]) for v in varied]
        if all(v == b for v in vs):
            return base
        if not (b.is_integer() and all(v.is_integer() for v in vs)):
            raise ExportError(f"paddle.jit.save: the constant {b} ({path}) changes with the dynamic dimensions in a "
                              "way that cannot be saved; give those inputs fixed sizes in input_spec")
        fitted = _fit(int(b), [int(v) for v in vs], symbols, path)
        return {"affine_float": fitted["affine"]}
    if isinstance(base, bool) or not isinstance(base, (int, list, dict)):
        if any(v != base for v in varied):
            raise ExportError(f"paddle.jit.save: {path} changes with the dynamic dimensions in a way that cannot be "
                              "saved; give those inputs fixed sizes in input_spec")
        return base
    if isinstance(base, int):
        coefs = {s: (v - base) // (_VARIED - _BASE) for s, v in zip(symbols, varied) if v != base}
        if any((v - base) % (_VARIED - _BASE) for v in varied):
            raise ExportError(f"paddle.jit.save: {path} is not an affine function of the dynamic dimensions")
        return {"affine": [base - _BASE * sum(coefs.values()), coefs]} if coefs else base
    if isinstance(base, list):
        if any(not isinstance(v, list) or len(v) != len(base) for v in varied):
            raise ExportError(f"paddle.jit.save: the traced program's structure ({path}) changes with the dynamic "
                              "dimensions (Python code branching on a shape?); give fixed sizes in input_spec")
        return [_fit(b, [v[i] for v in varied], symbols, f"{path}[{i}]") for i, b in enumerate(base)]
    if any(not isinstance(v, dict) or set(v) != set(base) for v in varied):
        raise ExportError(f"paddle.jit.save: the traced program's structure ({path}) changes with the dynamic "
                          "dimensions; give fixed sizes in input_spec")
    return {k: _fit(b, [v[k] for v in varied], symbols, f"{path}.{k}") for k, b in base.items()}


def _instantiate(template, sizes):
    if isinstance(template, list):
        return [_instantiate(t, sizes) for t in template]
    if isinstance(template, dict):
        if set(template) == {"affine"}:
            c, coefs = template["affine"]
            return int(c) + sum(int(a) * sizes[s] for s, a in coefs.items())
        if set(template) == {"affine_float"}:
            return {"float": repr(float(_instantiate({"affine": template["affine_float"]}, sizes)))}
        return {k: _instantiate(v, sizes) for k, v in template.items()}
    return template


def _trace(flat_fun, in_shapes, dtypes, sizes, name):
    avals = [ShapedArray(tuple(sizes[d] if isinstance(d, str) else d for d in shape), dtype)
             for shape, dtype in zip(in_shapes, dtypes)]
    prog, consts = trace_to_program(flat_fun, avals, transform=f"paddle.jit.save({name})")
    return {"program": _encode_program(prog),
            "consts": [[list(c.shape), c.dtype.name] for c in consts]}, consts


def export(flat_fun, in_shapes, dtypes, name="forward"):
    """Trace `flat_fun` (flat Tensors in, a flat list out) for inputs of `in_shapes` (ints, or symbol names for
    dynamic dimensions) and `dtypes`. Returns ``(document, consts)``: the JSON-able program template and the
    Tensors it captured (stored with the parameters)."""
    symbols = sorted({d for shape in in_shapes for d in shape if isinstance(d, str)})
    base_sizes = {s: _BASE for s in symbols}
    base, consts = _trace(flat_fun, in_shapes, dtypes, base_sizes, name)
    if not symbols:
        return {"format": FORMAT, "symbols": [], "template": base}, consts
    varied = [_trace(flat_fun, in_shapes, dtypes, {**base_sizes, s: _VARIED}, name)[0] for s in symbols]
    template = _fit(base, varied, symbols, "program")
    if template["consts"] != base["consts"]:
        raise ExportError(f"paddle.jit.save({name}): a constant the function creates from Python has a size that "
                          "depends on a dynamic dimension; compute it from the input Tensors instead")
    check_sizes = {s: _CHECK + 2 * i for i, s in enumerate(symbols)}
    check = _trace(flat_fun, in_shapes, dtypes, check_sizes, name)[0]
    if _instantiate(template, check_sizes) != check:
        raise ExportError(f"paddle.jit.save({name}): the program depends on the dynamic dimensions {symbols} in a way "
                          "that is not affine (for example a reshape that multiplies two of them); give fixed sizes "
                          "in input_spec")
    return {"format": FORMAT, "symbols": symbols, "template": template}, consts


class ExportedProgram:
    """A program read from a `export` document: `call` runs it (compiled once per set of dynamic sizes) as one
    ``jit_call`` primitive, so the eager tape and the transforms differentiate it."""

    def __init__(self, document, name="forward"):
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"paddle.jit.load: not a paddle_fn program (expected format {FORMAT!r})")
        self.symbols = list(document["symbols"])
        self.template = document["template"]
        self.name = name
        self._programs = {}

    def specialise(self, sizes: dict):
        """The program (and its constants' shapes) for the given sizes of the dynamic dimensions."""
        key = tuple(sizes[s] for s in self.symbols)
        found = self._programs.get(key)
        if found is None:
            doc = _instantiate(self.template, sizes)
            prog = _decode_program(doc["program"])
            typecheck_program(prog)
            found = self._programs[key] = prog
        return found

    def call(self, sizes, inputs):
        prog = self.specialise(sizes)
        return jit_call_p.bind(*inputs, program=prog, name=self.name, device=resolve_device(None),
                               precision=matmul_precision_now(), checks=global_checks.kinds)
