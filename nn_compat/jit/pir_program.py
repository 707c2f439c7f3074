"""Reading the program PaddlePaddle 3's ``paddle.jit.save`` writes (``<prefix>.json``, PIR serialized as JSON) into
plain records, checked as data: no code from the file runs, and a malformed or hostile file gives a ValueError
naming the file and what is wrong, never a KeyError from inside.

The file is ``{"base_code": {"magic": "pir", "version": N, ...}, "program": {"regions": [region]}}`` with one
region of one block whose ``ops`` run in order. An op is ``{"#": name, "A": attributes, "I": [{"%": id}],
"O": [{"%": id, "TT": type}], "OA": output attributes}``; names are ``<dialect>.<op>`` with dialect ``0`` for
``builtin`` (``combine``, ``split``) and ``1`` for ``pd_op``, and ``"p"`` a parameter (``"A": [.., .., .., name]``,
``"OA": [persistable, stop_gradient, trainable]``). Value id 0 is an absent optional input. An attribute is
``{"N": name, "AT": {"#": type, "D": data}}``; a type is ``{"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, shape,
layout, lod, offset]}`` or ``{"#": "0.t_vec", "D": [types]}``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass

__all__ = ["PirOp", "PirProgram", "PirValue", "read_pir_program"]

_MAX_PROGRAM_BYTES = 1 << 30
_DIALECTS = {"0": "builtin", "1": "pd_op"}
_DTYPES = {"0.t_bool": "bool", "0.t_i8": "int8", "0.t_ui8": "uint8", "0.t_i16": "int16", "0.t_i32": "int32",
           "0.t_i64": "int64", "0.t_f16": "float16", "0.t_bf16": "bfloat16", "0.t_f32": "float32",
           "0.t_f64": "float64", "0.t_c64": "complex64", "0.t_c128": "complex128"}
_SCALARS = {"0.a_bool": bool, "0.a_i32": int, "0.a_i64": int, "0.a_f32": float, "0.a_f64": float, "0.a_str": str,
            "1.a_dtype": str}


class ProgramError(ValueError):
    """A program file paddle_fn cannot read; the message names the file."""


@dataclass(frozen=True)
class PirValue:
    """A value's type as the file declares it: a dense tensor (`dtype`, `shape` with a negative size where it is
    dynamic: -1, or another negative number for a size Paddle derives, such as batch x channels), or a vector of
    them (`items`)."""
    dtype: str | None = None
    shape: tuple | None = None
    items: tuple | None = None


@dataclass(frozen=True)
class PirOp:
    """One operation: its position among the file's ops, `name` as Paddle prints it (``pd_op.conv2d``), its
    attributes, the ids of its inputs (0: an absent optional input) and of its outputs with their types."""
    index: int
    name: str
    attrs: dict
    inputs: tuple
    outputs: tuple
    types: tuple


@dataclass(frozen=True)
class PirParameter:
    name: str
    value: int
    type: PirValue
    stop_gradient: bool
    trainable: bool


@dataclass(frozen=True)
class PirInput:
    name: str
    value: int
    type: PirValue


@dataclass
class PirProgram:
    """A program: its parameters sorted by name (the order of Paddle's parameter file), its inputs in the order of
    the ``data`` ops, the operations between them, and the values its ``fetch`` ops return, by column."""
    path: str
    parameters: list
    inputs: list
    ops: list
    outputs: list


def _fail(path, message):
    return ProgramError(f"paddle.jit.load: {path}: {message}; the file is damaged, crafted, or written by a "
                        "PaddlePaddle version whose program format paddle_fn does not read")


def op_name(tag: str) -> str:
    """Paddle's printed name of a serialized op name: ``1.conv2d`` -> ``pd_op.conv2d``, ``p`` -> ``builtin.parameter``."""
    if tag == "p":
        return "builtin.parameter"
    dialect, _, name = tag.partition(".")
    return f"{_DIALECTS[dialect]}.{name}" if dialect in _DIALECTS and name else tag


def _expect(cond, path, message):
    if not cond:
        raise _fail(path, message)


def _value_type(tt, path, where):
    if tt is None:
        return PirValue()
    _expect(isinstance(tt, dict) and isinstance(tt.get("#"), str), path, f"{where} has a malformed type {tt!r:.80}")
    tag, data = tt["#"], tt.get("D")
    if tag == "0.t_dtensor":
        _expect(isinstance(data, list) and len(data) >= 2 and isinstance(data[0], dict)
                and isinstance(data[0].get("#"), str) and isinstance(data[1], list)
                and all(type(d) is int for d in data[1]),
                path, f"{where} has a malformed dense tensor type {data!r:.80}")
        return PirValue(dtype=_DTYPES.get(data[0]["#"]), shape=tuple(data[1]))
    if tag == "0.t_vec":
        _expect(isinstance(data, list), path, f"{where} has a malformed vector type {data!r:.80}")
        return PirValue(items=tuple(_value_type(t, path, where) for t in data))
    return PirValue()  # another type (a null type, a selected-rows type): an op using it refuses


def _attribute(at, path, where):
    _expect(isinstance(at, dict) and isinstance(at.get("#"), str), path, f"{where} is malformed: {at!r:.80}")
    tag, data = at["#"], at.get("D")
    if tag in _SCALARS:
        kind = _SCALARS[tag]
        ok = isinstance(data, kind) and (kind is bool or not isinstance(data, bool)) or (
            kind is float and type(data) is int)
        _expect(ok, path, f"{where} is a {tag} holding {data!r:.80}")
        return kind(data)
    if tag == "0.a_array":
        _expect(isinstance(data, list), path, f"{where} is an array holding {data!r:.80}")
        return [_attribute(item, path, where) for item in data]
    if tag == "1.a_intarray":
        _expect(isinstance(data, list) and all(type(d) is int for d in data), path,
                f"{where} is an int array holding {data!r:.80}")
        return list(data)
    return _Opaque(tag)  # an attribute type no supported op reads (a place, ...)


@dataclass(frozen=True)
class _Opaque:
    """An attribute of a type paddle_fn does not interpret; only its type is kept for error messages."""
    tag: str


class Attributes(dict):
    """An op's attributes; one the translation needs and the file lacks is a ProgramError naming it."""

    def __init__(self, path, where):
        super().__init__()
        self.path, self.where = path, where

    def __missing__(self, name):
        raise _fail(self.path, f"{self.where} has no attribute '{name}'")


def _attributes(items, path, where):
    _expect(isinstance(items, list), path, f"{where}'s attributes are not a list")
    attrs = Attributes(path, where)
    for item in items:
        _expect(isinstance(item, dict) and isinstance(item.get("N"), str), path,
                f"{where} has a malformed attribute {item!r:.80}")
        attrs[item["N"]] = _attribute(item.get("AT"), path, f"attribute '{item['N']}' of {where}")
    return attrs


def _value_id(entry, path, where):
    _expect(isinstance(entry, dict) and type(entry.get("%")) is int and entry["%"] >= 0, path,
            f"{where} refers to a malformed value {entry!r:.80}")
    return entry["%"]


def _ops(doc, path):
    _expect(isinstance(doc, dict), path, "the top level is not a JSON object")
    base = doc.get("base_code")
    _expect(isinstance(base, dict) and base.get("magic") == "pir", path,
            "it has no 'base_code' with magic 'pir': it is not a PaddlePaddle 3 PIR program")
    program = doc.get("program")
    regions = program.get("regions") if isinstance(program, dict) else None
    _expect(isinstance(regions, list) and len(regions) == 1, path, "the program does not have exactly one region")
    blocks = regions[0].get("blocks") if isinstance(regions[0], dict) else None
    _expect(isinstance(blocks, list) and len(blocks) == 1, path, "the program's region does not have exactly one block")
    ops = blocks[0].get("ops") if isinstance(blocks[0], dict) else None
    _expect(isinstance(ops, list), path, "the program's block has no list of ops")
    for i, op in enumerate(ops):
        _expect(isinstance(op, dict) and isinstance(op.get("#"), str), path, f"op {i} is malformed: {op!r:.80}")
    return ops


def read_json(path: str):
    """The JSON document of a PIR program file, refused with a clear error if it is too big or not JSON."""
    size = os.path.getsize(path)
    if size > _MAX_PROGRAM_BYTES:
        raise _fail(path, f"it is {size:,} bytes; paddle_fn reads program files of at most {_MAX_PROGRAM_BYTES:,}")
    with open(path, "rb") as f:
        raw = f.read()
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise _fail(path, f"it is not JSON ({type(e).__name__}: {str(e)[:100]})") from None


def read_pir_program(path: str, supported) -> PirProgram:
    """The program in the PIR JSON file `path`. Every op must be in `supported` (names such as ``pd_op.conv2d``):
    the error for the others lists them all, with how often each occurs."""
    ops = _ops(read_json(path), path)
    unsupported = {}
    for op in ops:
        name = op_name(op["#"])
        if op["#"] != "p" and name not in supported and name not in ("pd_op.data", "pd_op.fetch"):
            unsupported[name] = unsupported.get(name, 0) + 1
    if unsupported:
        listed = ", ".join(f"{name} ({n}x)" if n > 1 else name for name, n in sorted(unsupported.items()))
        raise ProgramError(f"paddle.jit.load: {path} uses the operator(s) {listed}, which paddle_fn cannot "
                           "translate (docs/to_static.md lists the operators it runs); export the model without "
                           "them, or open an issue naming them")
    defined, parameters, inputs, body, fetched = {0}, [], [], [], {}
    for i, op in enumerate(ops):
        name = op_name(op["#"])
        where = f"op {i} ({name})"
        if op["#"] == "p":
            out, names, flags = op.get("O"), op.get("A"), op.get("OA")
            _expect(isinstance(out, dict) and isinstance(names, list) and names and isinstance(names[-1], str)
                    and isinstance(flags, list) and len(flags) == 3 and all(f in (0, 1) for f in flags),
                    path, f"{where} is a malformed parameter")
            value = _value_id(out, path, where)
            _expect(value not in defined, path, f"{where} defines the value %{value} again")
            _expect(flags[0] == 1, path, f"{where} ('{names[-1]}') is not persistable, so it has no stored value")
            defined.add(value)
            parameters.append(PirParameter(names[-1], value, _value_type(out.get("TT"), path, where),
                                           bool(flags[1]), bool(flags[2])))
            continue
        _expect(isinstance(op.get("I", []), list) and isinstance(op.get("O", []), list), path,
                f"{where} has malformed inputs or outputs")
        _expect("regions" not in op, path, f"{where} has nested regions, which paddle_fn does not read")
        args = tuple(_value_id(entry, path, where) for entry in op.get("I", []))
        for value in args:
            _expect(value in defined, path, f"{where} uses the value %{value} before any op defines it")
        outs, types = [], []
        for entry in op.get("O", []):
            value = _value_id(entry, path, where)
            _expect(value != 0 and value not in defined, path, f"{where} defines the value %{value} again")
            defined.add(value)
            outs.append(value)
            types.append(_value_type(entry.get("TT"), path, where))
        attrs = _attributes(op.get("A", []), path, where)
        if name == "pd_op.data":
            _expect(len(outs) == 1 and isinstance(attrs.get("name"), str) and types[0].shape is not None, path,
                    f"{where} is a malformed input")
            inputs.append(PirInput(attrs["name"], outs[0], types[0]))
        elif name == "pd_op.fetch":
            col = attrs.get("col")
            _expect(len(args) == 1 and type(col) is int and col not in fetched, path, f"{where} is a malformed output")
            fetched[col] = args[0]
        else:
            body.append(PirOp(i, name, attrs, args, tuple(outs), tuple(types)))
    _expect(sorted(fetched) == list(range(len(fetched))) and fetched, path,
            f"the program's outputs are the columns {sorted(fetched)}, expected 0 to {len(fetched) - 1}")
    names = [p.name for p in parameters]
    _expect(len(set(names)) == len(names), path, "two parameters have the same name")
    return PirProgram(path, sorted(parameters, key=lambda p: p.name), inputs, body,
                      [fetched[c] for c in range(len(fetched))])
