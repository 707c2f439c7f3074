"""paddle.jit.load of a directory others could write (docs/security.md, "paddle.jit.load"): only the methods the
saved model lists are read, weights are checked against the model's metadata, and PaddlePaddle's own formats and
memory-hungry archives are refused with a clear error."""
import io
import json
import os
import shutil
import zipfile

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.framework.io import write_params_file
from paddle_fn.jit import load, save, to_static
from paddle_fn.static import InputSpec

SPEC = [InputSpec([None, 4], "float32", "x")]


class WithPredict(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)

    @to_static(input_spec=[InputSpec([None, 4])])
    def predict(self, x):
        return paddle.nn.functional.softmax(self.fc(x))


class Scaled(paddle.nn.Linear):
    """Same parameters as Linear(4, 2), another function: what an attacker would plant."""

    def forward(self, x):
        return paddle.nn.functional.linear(x, self.weight, self.bias) * 100.0


def _saved(tmp_path, name="lin"):
    paddle.seed(0)
    net = paddle.nn.Linear(4, 2)
    path = str(tmp_path / name)
    save(net, path, input_spec=SPEC)
    return net, path


def _plant(tmp_path, target):
    """Copy a saved Scaled model's files to `<target>.pdmodel` / `.pdiparams`."""
    evil = str(tmp_path / "evil" / "m")
    save(Scaled(4, 2), evil, input_spec=SPEC)
    for ext in (".pdmodel", ".pdiparams"):
        shutil.copy(evil + ext, target + ext)


def test_a_planted_forward_file_is_never_read(tmp_path):
    # before: lin.forward.pdmodel sorted after lin.pdmodel and replaced forward (the output came out 100x)
    net, path = _saved(tmp_path)
    _plant(tmp_path, path + ".forward")
    x = paddle.randn([3, 4])
    np.testing.assert_allclose(load(path)(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)


def test_a_planted_method_file_does_not_become_an_attribute(tmp_path):
    # before: every <prefix>.<name>.pdmodel became a method of the loaded layer
    _, path = _saved(tmp_path)
    _plant(tmp_path, path + ".steal")
    assert not hasattr(load(path), "steal")


def test_saved_methods_load_and_a_swapped_method_file_is_refused(tmp_path):
    paddle.seed(1)
    net = WithPredict()
    path = str(tmp_path / "net")
    save(net, path, input_spec=SPEC)
    assert json.loads((tmp_path / "net.pdmodel").read_text())["methods"] == ["predict", "forward"]
    x = paddle.randn([2, 4])
    np.testing.assert_allclose(load(path).predict(x).numpy(), net.predict(x).numpy(), rtol=1e-5, atol=1e-6)
    _plant(tmp_path, path + ".predict")  # before: read as predict, and ran the planted forward program
    with pytest.raises(ValueError, match=r"net\.predict\.pdmodel holds the program of 'forward', not of 'predict'"):
        load(path)


def test_an_old_save_without_a_method_list_loads_forward_and_warns(tmp_path):
    paddle.seed(2)
    net = WithPredict()
    path = str(tmp_path / "old")
    save(net, path, input_spec=SPEC)
    model = json.loads((tmp_path / "old.pdmodel").read_text())
    del model["methods"]  # as the previous paddle_fn wrote it
    (tmp_path / "old.pdmodel").write_text(json.dumps(model))
    with pytest.warns(UserWarning, match=r"only forward is loaded.*old\.predict\.pdmodel.*save the model again"):
        loaded = load(path)
    x = paddle.randn([2, 4])
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    assert not hasattr(loaded, "predict")  # before: predict loaded from the unlisted file, without a warning


@pytest.mark.parametrize("weight, found", [(np.zeros((2, 4), np.float32), r"shape \[2, 4\] and dtype float32"),
                                           (np.zeros((4, 2), np.float64), r"shape \[4, 2\] and dtype float64")])
def test_weights_of_the_wrong_shape_or_dtype_are_refused_at_load(tmp_path, weight, found):
    # before: loaded without a check, and failed (or computed in float64) only when called
    net, path = _saved(tmp_path)
    arrays = dict(np.load(path + ".pdiparams"))
    arrays[net.weight.name] = weight
    with open(path + ".pdiparams", "wb") as f:
        write_params_file(f, arrays)
    with pytest.raises(ValueError, match=rf"parameter '{net.weight.name}' \(weight\) in .*lin\.pdiparams has {found}, "
                                         r"but .*lin\.pdmodel expects shape \[4, 2\] and dtype float32"):
        load(path)


def test_paddle2_protobuf_programs_get_a_clear_error(tmp_path):
    # PaddlePaddle 3's <prefix>.json programs run (tests/test_jit_load_paddle.py); a PIR program renamed .pdmodel
    # is named as such
    pir = tmp_path / "p3" / "inference"
    pir.parent.mkdir()
    pir.with_suffix(".pdmodel").write_text(json.dumps({"base_code": {"magic": "pir", "trainable": True,
                                                                     "version": 1}, "program": {"regions": []}}))
    with pytest.raises(ValueError, match=r"inference\.pdmodel is PaddlePaddle 3's JSON/PIR program format under the "
                                         r"name \.pdmodel \(PaddlePaddle names it \.json: rename it\)"):
        load(str(pir))
    old = tmp_path / "p2" / "inference"
    old.parent.mkdir()
    (tmp_path / "p2" / "inference.pdmodel").write_bytes(b"\n\x8f\x01\n\x06feed\xff\xfe\x12\x03\x08\x01")
    # before: a UnicodeDecodeError from json
    with pytest.raises(ValueError, match=r"inference\.pdmodel is not JSON: PaddlePaddle's protobuf program format.*"
                                         r"paddle_fn runs the programs PaddlePaddle 3 saves as <prefix>\.json"):
        load(str(old))


def test_a_params_file_that_is_not_an_npz_archive_gets_a_clear_error(tmp_path):
    _, path = _saved(tmp_path)
    with open(path + ".pdiparams", "wb") as f:
        f.write(b"\x00\x00\x00\x00" + b"\x11" * 60)  # PaddlePaddle's own tensor stream, roughly
    # before: numpy's "Cannot load file containing pickled data when allow_pickle=False"
    with pytest.raises(ValueError, match=r"lin\.pdiparams is not a parameter file paddle\.jit\.save writes.*"
                                         r"PaddlePaddle's own \.pdiparams"):
        load(path)


def _npy(shape, dtype, data):
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": np.dtype(dtype).str, "fortran_order": False,
                                                  "shape": shape})
    return buffer.getvalue() + data


def test_params_archives_are_held_to_the_memory_rule(tmp_path):
    _, path = _saved(tmp_path)
    original = dict(np.load(path + ".pdiparams"))

    def write_with(extra, compression):
        with zipfile.ZipFile(path + ".pdiparams", "w", compression=compression) as archive:
            for key, value in original.items():
                buffer = io.BytesIO()
                np.save(buffer, value)
                archive.writestr(key + ".npy", buffer.getvalue())
            archive.writestr("big.npy", extra)

    # a header asking for 2 GiB over 8 bytes of data: before, numpy allocated it, then hit the end of the data
    write_with(_npy((1 << 28,), np.float64, bytes(8)), zipfile.ZIP_STORED)
    with pytest.raises(ValueError, match=r"'big\.npy' declares a float64 array of shape \(268435456,\) "
                                         r"\(2,147,483,648 bytes\) but holds 8;"):
        load(path)
    # 64 MiB of zeros deflated to a few KiB: real, but far beyond 4x the file (before: loaded without a word)
    write_with(_npy((8 << 20,), np.float64, bytes(64 << 20)), zipfile.ZIP_DEFLATED)
    assert os.path.getsize(path + ".pdiparams") < 1 << 20
    with pytest.raises(ValueError, match=r"its arrays ask for 67,108,... bytes; .* paddle_fn allows 4x the file's"):
        load(path)
    # paddle.load of the same prefix reads the same archive through the same check
    with pytest.raises(ValueError, match=r"paddle\.load: .*its arrays ask for"):
        paddle.load(path)
