"""paddle.save / paddle.load: Paddle's file format (pickle of numpy data with the name table), round trips of
state_dicts, Tensors and nested containers, and a loader that refuses to run code from a file."""
import base64
import collections
import io
import os
import pickle
import pickletools

import numpy as np
import pytest

import paddle_fn as paddle


def _roundtrip(obj, **configs):
    buffer = io.BytesIO()
    paddle.save(obj, buffer)
    buffer.seek(0)
    return paddle.load(buffer, **configs)


def test_layer_state_dict_file_roundtrip(tmp_path):
    layer = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    path = str(tmp_path / "sub" / "model.pdparams")  # the directory is created
    paddle.save(layer.state_dict(), path)
    loaded = paddle.load(path)
    assert list(loaded) == ["0.weight", "0.bias", "1.weight", "1.bias"]
    for k, v in layer.state_dict().items():
        assert isinstance(loaded[k], paddle.Tensor)
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy())
        assert loaded[k].dtype == v.dtype
    other = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    assert other.set_state_dict(loaded) == ([], [])
    x = paddle.randn([5, 3])
    np.testing.assert_allclose(other(x).numpy(), layer(x).numpy())


def test_state_dict_file_is_paddles_format():
    layer = paddle.nn.Linear(2, 3)
    buffer = io.BytesIO()
    paddle.save(layer.state_dict(), buffer)
    raw = pickle.loads(buffer.getvalue())  # what Paddle itself reads: arrays plus the name table
    assert isinstance(raw["weight"], np.ndarray)
    assert raw["StructuredToParameterName@@"] == {"weight": layer.weight.name, "bias": layer.bias.name}
    ops = {op.name for op, _, _ in pickletools.genops(buffer.getvalue())}
    assert "PROTO" in ops
    assert pickletools.genops(buffer.getvalue()).__next__()[1] == 4  # protocol 4 by default


def test_return_numpy_and_keep_name_table():
    layer = paddle.nn.Linear(2, 3)
    loaded = _roundtrip(layer.state_dict(), return_numpy=True)
    assert isinstance(loaded["weight"], np.ndarray)
    kept = _roundtrip(layer.state_dict(), keep_name_table=True)
    assert kept["StructuredToParameterName@@"]["bias"] == layer.bias.name


def test_single_tensor_and_nested_containers():
    t = paddle.to_tensor([[1.0, 2.0]], dtype="float64")
    back = _roundtrip(t)
    assert isinstance(back, paddle.Tensor) and back.dtype == paddle.float64
    np.testing.assert_array_equal(back.numpy(), t.numpy())
    obj = {"epoch": 3, "name": "run", "lr": 0.5, "flags": (True, None),
           "tensors": [paddle.ones([2], dtype="int64"), paddle.zeros([1])], "array": np.arange(3),
           "nested": collections.OrderedDict(w=paddle.full([2], 7.0))}
    back = _roundtrip(obj)
    assert back["epoch"] == 3 and back["name"] == "run" and back["lr"] == 0.5 and back["flags"] == (True, None)
    assert back["tensors"][0].dtype == paddle.int64 and back["tensors"][0].numpy().tolist() == [1, 1]
    assert isinstance(back["array"], np.ndarray) and back["array"].tolist() == [0, 1, 2]
    assert isinstance(back["nested"], collections.OrderedDict) and back["nested"]["w"].numpy().tolist() == [7.0, 7.0]
    as_numpy = _roundtrip(obj, return_numpy=True)
    assert isinstance(as_numpy["tensors"][1], np.ndarray)


def test_optimizer_state_dict_with_scheduler_roundtrip():
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=2)
    state = {"moment1": paddle.ones([2]), "LR_Scheduler": sched.state_dict()}
    back = _roundtrip(state)
    assert back["LR_Scheduler"] == sched.state_dict()
    assert back["moment1"].numpy().tolist() == [1.0, 1.0]


def test_bfloat16_is_stored_as_uint16_bits():
    t = paddle.to_tensor([1.0, -2.0]).astype("bfloat16")
    back = _roundtrip({"w": t}, return_numpy=True)
    assert back["w"].dtype == np.uint16
    assert back["w"].tolist() == [0x3F80, 0xC000]


def test_malicious_pickle_is_refused_without_running_it(tmp_path):
    marker = tmp_path / "pwned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"weight": Evil()}))
    with pytest.raises(pickle.UnpicklingError, match="not allowed"):
        paddle.load(str(path))
    assert not marker.exists()
    # a global hidden inside numpy's own reconstruct path is refused too
    with pytest.raises(pickle.UnpicklingError, match="builtins.eval"):
        paddle.load(io.BytesIO(b"\x80\x04cbuiltins\neval\n(S'1+1'\ntR."))


def test_save_errors():
    layer = paddle.nn.Linear(2, 2)
    with pytest.raises(ValueError, match="not support saving `paddle.nn.Layer`"):
        paddle.save(layer, io.BytesIO())
    with pytest.raises(ValueError, match="protocol=1"):
        paddle.save(layer.state_dict(), io.BytesIO(), protocol=1)
    with pytest.raises(ValueError, match="protocol=6"):
        paddle.save(layer.state_dict(), io.BytesIO(), protocol=6)
    with pytest.raises(ValueError, match="filename is empty"):
        paddle.save(layer.state_dict(), "some_dir/")
    with pytest.raises(TypeError, match="could not read back"):
        paddle.save({"f": lambda x: x}, io.BytesIO())
    with pytest.raises(ValueError, match="not supported"):
        paddle.save(layer.state_dict(), io.BytesIO(), bogus=1)
    with pytest.raises(NotImplementedError, match="use_binary_format"):
        paddle.save(layer.state_dict(), io.BytesIO(), use_binary_format=True)


def test_load_errors(tmp_path):
    with pytest.raises(ValueError, match="not exists"):
        paddle.load(str(tmp_path / "missing.pdparams"))
    with pytest.raises(ValueError, match="not supported"):
        paddle.load(io.BytesIO(), bogus=True)


def test_static_mode_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="to_static"):
        paddle.enable_static()
    assert paddle.in_dynamic_mode()


# Written by Paddle 3.3.1: paddle.save(linear.state_dict(), f) with weight = arange(6).reshape(2, 3) and zero bias,
# and paddle.save({'epoch': 2, 'hist': [paddle.to_tensor([1.5, 2.5])]}, f).
PADDLE_STATE_DICT = (
    "gASVJQEAAAAAAAB9lCiMBndlaWdodJSMFm51bXB5Ll9jb3JlLm11bHRpYXJyYXmUjAxfcmVjb25zdHJ1Y3SUk5SMBW51bXB5lIwHbmRhcnJheZ"
    "STlEsAhZRDAWKUh5RSlChLAUsCSwOGlGgFjAVkdHlwZZSTlIwCZjSUiYiHlFKUKEsDjAE8lE5OTkr/////Sv////9LAHSUYolDGAAAAAAAAIA/"
    "AAAAQAAAQEAAAIBAAACgQJR0lGKMBGJpYXOUaARoB0sAhZRoCYeUUpQoSwFLA4WUaBGJQwwAAAAAAAAAAAAAAACUdJRijBtTdHJ1Y3R1cmVkVG9Q"
    "YXJhbWV0ZXJOYW1lQECUfZQoaAGMDGxpbmVhcl8wLndfMJRoFowMbGluZWFyXzAuYl8wlHV1Lg==")
PADDLE_NESTED = (
    "gASV2QAAAAAAAAB9lCiMBWVwb2NolEsCjARoaXN0lF2UjAhidWlsdGluc5SMBXR1cGxllJOUjBJnZW5lcmF0ZWRfdGVuc29yXzGUjBZudW1weS5f"
    "Y29yZS5tdWx0aWFycmF5lIwMX3JlY29uc3RydWN0lJOUjAVudW1weZSMB25kYXJyYXmUk5RLAIWUQwFilIeUUpQoSwFLAoWUaAuMBWR0eXBllJOU"
    "jAJmNJSJiIeUUpQoSwOMATyUTk5OSv////9K/////0sAdJRiiUMIAADAPwAAIECUdJRihpSFlFKUYXUu")


def test_reads_files_written_by_paddle():
    state = paddle.load(io.BytesIO(base64.b64decode(PADDLE_STATE_DICT)))
    assert sorted(state) == ["bias", "weight"]
    assert state["weight"].numpy().tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    layer = paddle.nn.Linear(2, 3)
    assert layer.set_state_dict(state) == ([], [])
    nested = paddle.load(io.BytesIO(base64.b64decode(PADDLE_NESTED)))
    assert nested["epoch"] == 2 and nested["hist"][0].numpy().tolist() == [1.5, 2.5]
