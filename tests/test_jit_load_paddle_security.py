"""paddle.jit.load of a PaddlePaddle 3 program (<prefix>.json) and parameter file (<prefix>.pdiparams) that are
malformed or crafted (docs/security.md, "paddle.jit.load"): each gets a ValueError naming the file and what is
wrong, before anything is allocated from a size the file claims, never a KeyError or IndexError from inside."""
import json
import struct

import numpy as np
import pytest

import paddle_fn as paddle


def _type(shape, dtype="0.t_f32"):
    return {"#": "0.t_dtensor", "D": [{"#": dtype}, shape, "NCHW", [], 0]}


def _attr(name, tag, data):
    return {"N": name, "AT": {"#": tag, "D": data}}


def _param(name, value, shape):
    return {"#": "p", "A": [0, 1, 1, name], "DA": [], "O": {"%": value, "TT": _type(shape)}, "OA": [1, 0, 1],
            "QA": []}


def _op(name, inputs, outputs, attrs=()):
    return {"#": name, "A": list(attrs), "I": [{"%": v} for v in inputs],
            "O": [{"%": v, "TT": _type(shape)} for v, shape in outputs], "OA": []}


def _data(value, shape):
    return _op("1.data", [], [(value, shape)], [_attr("name", "0.a_str", "x"), _attr("shape", "1.a_intarray", shape),
                                                _attr("dtype", "1.a_dtype", "float32")])


def _fetch(value, col, shape):
    return _op("1.fetch", [value], [(100 + col, shape)], [_attr("name", "0.a_str", f"fetch_name_{col}"),
                                                          _attr("col", "0.a_i32", col)])


def _program(ops):
    return {"base_code": {"magic": "pir", "trainable": True, "version": 4},
            "program": {"regions": [{"#": "region_0", "blocks": [{"#": "block_0", "args": [], "ops": ops}]}]}}


def _record(array, code=5, dims=None, version=0, desc=None):
    """One tensor as PaddlePaddle's save_combine writes it (`code`: VarType.Type, 5 = float32)."""
    if desc is None:
        desc = bytes([0x08, code]) + b"".join(bytes([0x10]) + _varint(d) for d in (array.shape if dims is None
                                                                                    else dims))
    return struct.pack("<IQIi", version, 0, 0, len(desc)) + desc + array.tobytes()


def _varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        if n < 0x80:
            return out + bytes([n])
        out += bytes([n & 0x7F | 0x80])
        n >>= 7


W = np.array([1.0, 2.0, 3.0], np.float32)
ADD = [_param("w", 1, [3]), _data(2, [-1, 3]), _op("1.add", [2, 1], [(3, [-1, 3])]), _fetch(3, 0, [-1, 3])]


def _write(tmp_path, ops=ADD, params=None, text=None):
    prefix = tmp_path / "model"
    prefix.with_suffix(".json").write_text(text if text is not None else json.dumps(_program(ops)))
    prefix.with_suffix(".pdiparams").write_bytes(_record(W) if params is None else params)
    return str(prefix)


def test_a_well_formed_hand_written_program_runs(tmp_path):
    layer = paddle.jit.load(_write(tmp_path))
    assert layer(paddle.ones([2, 3])).numpy().tolist() == [[2.0, 3.0, 4.0]] * 2


@pytest.mark.parametrize("text, message", [
    ("{not json", r"model\.json: it is not JSON \(JSONDecodeError"),
    ("[" * 100000 + "]" * 100000, r"model\.json: it is not JSON \(RecursionError"),
    (json.dumps({"program": {}}), r"no 'base_code' with magic 'pir'"),
    (json.dumps({"base_code": {"magic": "pir"}, "program": {"regions": []}}), r"does not have exactly one region"),
])
def test_a_program_file_that_is_not_a_pir_program(tmp_path, text, message):
    with pytest.raises(ValueError, match=message + r".*damaged, crafted"):
        paddle.jit.load(_write(tmp_path, text=text))


@pytest.mark.parametrize("ops, message", [
    (ADD[:2] + [_op("1.add", [2, 99], [(3, [-1, 3])]), _fetch(3, 0, [-1, 3])],
     r"op 2 \(pd_op\.add\) uses the value %99 before any op defines it"),
    (ADD[:2] + [_op("1.add", [2, 1], [(1, [-1, 3])]), _fetch(1, 0, [-1, 3])],
     r"op 2 \(pd_op\.add\) defines the value %1 again"),
    (ADD[:2] + [_op("1.relu", [2, 1], [(3, [-1, 3])]), _fetch(3, 0, [-1, 3])],
     r"op 2 \(pd_op\.relu\) has 2 inputs, expected 1"),
    (ADD[:2] + [_op("1.softmax", [2], [(3, [-1, 3])], [_attr("axis", "0.a_i32", "last")]), _fetch(3, 0, [-1, 3])],
     r"attribute 'axis' of op 2 \(pd_op\.softmax\) is a 0\.a_i32 holding 'last'"),
    (ADD[:2] + [_op("1.add", [2, 1], [(3, [-1, 3])]), {**_fetch(3, 0, [-1, 3]), "I": [{"%": "3"}]}],
     r"op 3 \(pd_op\.fetch\) refers to a malformed value"),
    (ADD[:3] + [_fetch(3, 1, [-1, 3])], r"the program's outputs are the columns \[1\], expected 0 to 0"),
    ([{**_param("w", 1, [3]), "OA": [0, 0, 1]}] + ADD[1:], r"op 0 \(builtin\.parameter\) \('w'\) is not persistable"),
    ([{"#": 5}], r"op 0 is malformed"),
    ([{**_param("w", 1, [3]), "O": {"%": 1, "TT": {"#": "0.t_dtensor", "D": [{"#": {"#": 1}}, [3], "NCHW"]}}}]
     + ADD[1:], r"op 0 \(builtin\.parameter\) has a malformed dense tensor type"),
    ([{**_param("w", 1, [3]), "O": {"%": 1, "TT": {"#": "0.t_dtensor", "D": [{"#": "0.t_f32"}, ["3"]]}}}] + ADD[1:],
     r"op 0 \(builtin\.parameter\) has a malformed dense tensor type"),
])
def test_a_malformed_program_is_refused_naming_the_op(tmp_path, ops, message):
    with pytest.raises(ValueError, match=r"model\.json: " + message):
        paddle.jit.load(_write(tmp_path, ops))


def test_unknown_operators_are_all_named_with_their_counts(tmp_path):
    ops = ADD[:2] + [_op("1.fancy", [2], [(3, [-1, 3])]), _op("1.fancy", [3], [(4, [-1, 3])]),
                     _op("7.other", [4], [(5, [-1, 3])]), _fetch(5, 0, [-1, 3])]
    with pytest.raises(ValueError, match=r"model\.json uses the operator\(s\) 7\.other, pd_op\.fancy \(2x\), which "
                                         r"paddle_fn cannot translate"):
        paddle.jit.load(_write(tmp_path, ops))


def test_an_output_the_translation_does_not_compute_is_refused_when_used(tmp_path):
    ops = ADD[:2] + [_op("1.full", [], [(3, [1])], [_attr("shape", "1.a_intarray", [1]),
                                                     _attr("value", "0.a_f64", 0.5),
                                                     _attr("dtype", "1.a_dtype", "float32")]),
                     _op("1.dropout", [2, 0, 3], [(4, [-1, 3]), (5, [-1, 3])], [_attr("is_test", "0.a_bool", True)]),
                     _fetch(5, 0, [-1, 3])]
    layer = paddle.jit.load(_write(tmp_path, ops))
    with pytest.raises(ValueError, match=r"the program's output uses output 1 of pd_op\.dropout, which paddle_fn "
                                         r"does not compute"):
        layer(paddle.ones([2, 3]))


def test_an_op_missing_an_attribute_or_with_a_wrong_one_is_named(tmp_path):
    ops = ADD[:2] + [_op("1.transpose", [2], [(3, [3, -1])]), _fetch(3, 0, [3, -1])]
    layer = paddle.jit.load(_write(tmp_path, ops))
    with pytest.raises(ValueError, match=r"model\.json: op 2 \(pd_op\.transpose\) has no attribute 'perm'"):
        layer(paddle.ones([2, 3]))
    ops[2] = _op("1.transpose", [2], [(3, [3, -1])], [_attr("perm", "0.a_array", [{"#": "0.a_i32", "D": 5}])])
    layer = paddle.jit.load(_write(tmp_path, ops))
    with pytest.raises(ValueError, match=r"model\.json: op 2 \(pd_op\.transpose\) failed: "):
        layer(paddle.ones([2, 3]))


def test_a_program_whose_declared_shapes_disagree_with_its_ops_is_refused(tmp_path):
    ops = ADD[:2] + [_op("1.add", [2, 1], [(3, [-1, 4])]), _fetch(3, 0, [-1, 4])]
    layer = paddle.jit.load(_write(tmp_path, ops))
    with pytest.raises(ValueError, match=r"op 2 \(pd_op\.add\): output 0 has shape \[2, 3\] and dtype float32, "
                                         r"where the program declares shape \[-1, 4\]"):
        layer(paddle.ones([2, 3]))


@pytest.mark.parametrize("params, message", [
    (b"", r"holds 0 tensors, but the program has 1 parameters"),
    (_record(W)[:-1], r"tensor 0 \(at offset 0\): a float32 tensor of shape \[3\] needs 12 bytes at offset 24, "
                      r"but only 11 are left"),
    (_record(W) + b"\0", r"has 1 bytes after the program's 1 parameters"),
    (_record(W, version=7), r"tensor 0 .*starts with version 7; Paddle writes 0"),
    (_record(W, code=99), r"the data type code 99 is not one of Paddle's numeric types"),
    (_record(W, dims=[-3]), r"the tensor has a negative dimension in \[-3\]"),
    (_record(W, desc=b"\x08\x05\x18\x01"), r"a field 3 \(wire type 0\)"),
    (_record(W, desc=b"\x08\x05\x10\xff\xff"), r"the tensor description ends inside a number"),
    (_record(np.zeros(0, np.float32), dims=[1 << 40, 1 << 20]),
     r"a float32 tensor of shape \[1099511627776, 1048576\] needs 4,611,686,018,427,387,904 bytes"),
    (struct.pack("<IQIi", 0, 0, 0, 1 << 30), r"the tensor description's size is 1073741824 bytes"),
    (struct.pack("<IQQ", 0, 1, 1 << 62), r"a LoD level needs 4,611,686,018,427,387,904 bytes"),
    (_record(np.zeros(4, np.float32)), r"the parameter 'w' in .*model\.pdiparams has shape \[4\] and dtype float32, "
                                       r"where the program declares shape \[3\]"),
    (_record(W.astype(np.float64), code=6), r"has shape \[3\] and dtype float64, where the program declares shape "
                                            r"\[3\] \(negative: any size\) and dtype float32"),
])
def test_a_malformed_parameter_file_is_refused_before_allocating(tmp_path, params, message):
    with pytest.raises(ValueError, match=message) as refused:
        paddle.jit.load(_write(tmp_path, params=params))
    assert "model.pdiparams" in str(refused.value)


def test_a_missing_parameter_file_is_named(tmp_path):
    prefix = _write(tmp_path)
    (tmp_path / "model.pdiparams").unlink()
    with pytest.raises(ValueError, match=r"model\.pdiparams does not exist; PaddlePaddle writes the parameters"):
        paddle.jit.load(prefix)


def _mutated(doc, rng):
    """`doc` with one value somewhere replaced, by a value of another kind, or removed."""
    spots = []

    def walk(node):
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            spots.append((node, key))
            walk(value)
    walk(doc)
    node, key = spots[rng.randrange(len(spots))]
    replacement = rng.choice([None, "x", -7, [1, 2], {"#": "0.a_i32", "D": 3}, "remove"])
    if replacement == "remove":
        del node[key]
    else:
        node[key] = replacement
    return doc


def test_randomly_damaged_files_give_only_clear_errors(tmp_path):
    """Damage a real export (PaddlePaddle 3.3.1's TransformerEncoder) at random places, its program and its
    parameter file: loading and running either works or raises a ValueError / TypeError that starts with the
    loader's name, never an exception from inside."""
    import os
    import random
    data = os.path.join(os.path.dirname(__file__), "data", "pir_models")
    with open(os.path.join(data, "tiny_encoder.json")) as f:
        text = f.read()
    with open(os.path.join(data, "tiny_encoder.pdiparams"), "rb") as f:
        params = f.read()
    x = paddle.to_tensor(np.load(os.path.join(data, "tiny_encoder.npz"))["in0"])
    rng = random.Random(0)
    prefix = tmp_path / "model"
    for trial in range(120):
        doc, data_bytes = json.loads(text), bytearray(params)
        if trial % 2:
            doc = _mutated(doc, rng)
        else:
            for _ in range(3):
                data_bytes[rng.randrange(len(data_bytes))] = rng.randrange(256)
            data_bytes = data_bytes[:rng.randrange(len(data_bytes) + 1)]
        prefix.with_suffix(".json").write_text(json.dumps(doc))
        prefix.with_suffix(".pdiparams").write_bytes(bytes(data_bytes))
        try:
            paddle.jit.load(str(prefix))(x)
        except (ValueError, TypeError) as e:
            assert str(e).startswith(("paddle.jit.load: ", "PirTranslatedLayer: ")), (trial, e)
