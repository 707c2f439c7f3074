"""paddle.load of crafted files, the pickles it must still read (protocols 2-5), and atomic saves.

Every crafted file is built here, with pickle's opcodes or objects whose ``__reduce__`` returns what an attacker
would write. They are all loaded in one child process, so a file that crashes the interpreter (the forged dtype,
an overflowing offset and the deep tuple did, with a SIGSEGV) fails its test instead of killing pytest; the child
records each load's outcome and how far its peak memory grew, under an address-space limit so that a regression
fails with a MemoryError instead of allocating the terabyte a file asks for.
"""
import collections
import errno
import io
import json
import os
import pickle
import pickletools
import signal
import struct
import subprocess
import sys
import time

import ml_dtypes
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.framework import io as paddle_io
from paddle_fn.static import InputSpec

TABLE = "StructuredToParameterName@@"
RECONSTRUCT = np.ndarray.__reduce__(np.zeros(0))[0]  # numpy's _reconstruct, in numpy.core or numpy._core
FROMBUFFER = np.zeros(1).__reduce_ex__(5)[0]  # numpy's _frombuffer: how protocol 5 pickles a contiguous array
MiB = 1 << 20


class Reduce:
    """Pickles as the reduce tuple it is given: the way the crafted files below are written."""

    def __init__(self, *reduce):
        self.reduce = reduce

    def __reduce__(self):
        return self.reduce


def state_dict(value):
    """A Paddle state_dict holding `value`: loading it copies each array into a Tensor."""
    return {"w": value, TABLE: {"w": "linear_0.w_0"}}


def rebuilt_array(shape, dtype, data):
    """An array as numpy pickles one (_reconstruct + __setstate__), with whatever shape, dtype and data."""
    return Reduce(RECONSTRUCT, (np.ndarray, (0,), b"b"), (1, shape, dtype, False, data))


def ndarray_call(shape, buffer, offset=0, strides=None):
    """numpy.ndarray(shape, float64, buffer, offset, strides) called by the file itself."""
    return Reduce(np.ndarray, (shape, np.dtype("f8"), buffer, offset, strides))


def forged_dtype(name, field):
    """numpy.dtype(name) given fields by its pickled state, with flags that let raw bytes fill an object field."""
    return Reduce(np.dtype, (name, False, True), (3, "|", None, ("x",), {"x": (field, 0)}, 8, 1, 0x3F & ~0x02))


def arrays_over_one_buffer(count):
    """A state_dict of `count` arrays whose data is one 4 MiB bytes object (pickle stores it once)."""
    data = bytes(4 * MiB)
    return {**{f"w{i}": rebuilt_array((MiB // 2,), np.dtype("f8"), data) for i in range(count)}, TABLE: {}}


def self_containing_list():
    cycle = []
    cycle.append(cycle)
    return cycle


SCALAR = np.float64(0).__reduce__()[0]  # numpy's multiarray.scalar
# memo 0: a list of 10**6 Nones (1 MB of opcodes), memo 1: the tuple (that list,), memo 2: builtins.tuple
TUPLE_COPIES = (b"\x80\x02(" + b"N" * 1_000_000 + b"lq\x00\x85q\x01c__builtin__\ntuple\nq\x02](" + b"h\x02h\x01R" * 1500
                + b"e.")

# name -> (file bytes, what the refusal says); built once, loaded in one child process
CRAFTED = {
    # a dtype forged through numpy's dtype state turned 8 raw bytes into an object pointer (SIGSEGV, before)
    "forged object-field dtype": (pickle.dumps([("w", rebuilt_array(
        (1,), forged_dtype("V8", np.dtype("O")), struct.pack("<Q", 0x4141414141414141)))], protocol=4),
        "dtype 'V8'"),
    "fields given to a plain dtype": (pickle.dumps(state_dict(rebuilt_array(
        (1,), forged_dtype("f8", np.dtype("f8")), bytes(8)))), "subarray or fields"),
    "object array": (pickle.dumps([np.array([1, "a"], dtype=object)]), "dtype 'O8'"),
    "structured array": (pickle.dumps([np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")])]), "structured"),
    "string array": (pickle.dumps([np.array(["ab", "c"])]), "dtype 'U2'"),
    "datetime array": (pickle.dumps([np.zeros(2, "datetime64[s]")]), "dtype 'M8'"),
    "array of a numpy subclass": (pickle.dumps([np.ma.masked_array([1.0])]), "numpy.ma.core"),
    "dtype byte order": (pickle.dumps([Reduce(np.dtype, ("f8", False, True), (3, "?", None, None, None, -1, -1, 0))]),
                         "byte order '?'"),
    # numpy.ndarray called by the file: strides and offsets that are not the buffer's (8 GiB copied, or a
    # SIGSEGV for the overflowing offset, before)
    "zero stride, 8 GiB from 8 bytes": (pickle.dumps(state_dict(ndarray_call((1 << 30,), bytes(8), 0, (0,)))),
                                        "calls numpy.ndarray"),
    "zero stride, 1 TiB from 8 bytes": (pickle.dumps(state_dict(ndarray_call((1 << 37,), bytes(8), 0, (0,)))),
                                        "calls numpy.ndarray"),
    "negative offset": (pickle.dumps(state_dict(ndarray_call((1,), bytes(8), -8))), "calls numpy.ndarray"),
    "overflowing offset": (pickle.dumps(state_dict(ndarray_call((1,), bytes(8), (1 << 63) - 1))),
                           "calls numpy.ndarray"),
    "strides outside the buffer": (pickle.dumps(state_dict(ndarray_call((2,), bytes(16), 0, (1 << 40,)))),
                                   "calls numpy.ndarray"),
    # shapes and data that do not match
    "shape whose size overflows": (pickle.dumps(state_dict(rebuilt_array((1 << 40,) * 3, np.dtype("f8"), b""))),
                                   "overflows"),
    "shape that does not match the data": (pickle.dumps(state_dict(rebuilt_array((1000,), np.dtype("f8"), bytes(8)))),
                                           "(8,000 bytes) but gives it 8 bytes"),
    "shape beside a zero whose size overflows": (pickle.dumps(state_dict(rebuilt_array(
        (0, 1 << 62, 1 << 62), np.dtype("f8"), b""))), "overflows"),
    "negative dimension": (pickle.dumps(state_dict(rebuilt_array((-1,), np.dtype("f8"), bytes(8)))), "sizes >= 0"),
    "more data than the shape": (pickle.dumps(state_dict(rebuilt_array((2,), np.dtype("f8"), bytes(24)))),
                                 "24 bytes of data"),
    "protocol-5 shape overflow": (pickle.dumps(state_dict(Reduce(
        FROMBUFFER, (bytearray(8), np.dtype("f8"), (1 << 40, 1 << 40), "C"))), protocol=5), "overflows"),
    "protocol-5 data that does not match": (pickle.dumps(state_dict(Reduce(
        FROMBUFFER, (bytearray(8), np.dtype("f8"), (3,), "C"))), protocol=5), "(24 bytes) but gives it 8 bytes"),
    "scalar of the wrong size": (pickle.dumps([Reduce(SCALAR, (np.dtype("f8"), b"\0"))]), "1 bytes of data"),
    # one buffer made into many arrays, one list into many tuples (6 GiB and 12 GB of copies, before)
    "1,500 arrays over one 4 MiB buffer": (pickle.dumps(arrays_over_one_buffer(1500)), "allows 4x the bytes read"),
    "1,500 tuple() copies of a 1M-item list": (TUPLE_COPIES, "allows 4x"),
    "bytes(1 GiB)": (b"\x80\x02c__builtin__\nbytes\nJ\x00\x00\x00@\x85R.", "calls bytes() with arguments"),
    # lengths past the end of the file: nothing is allocated for them
    "BINBYTES8 claiming 8 GiB": (b"\x80\x04\x8e" + struct.pack("<Q", 8 << 30) + b"xx.", "truncated"),
    "BYTEARRAY8 claiming 8 GiB": (b"\x80\x05\x96" + struct.pack("<Q", 8 << 30) + b"xx.", "truncated"),
    "FRAME claiming 8 GiB": (b"\x80\x04\x95" + struct.pack("<Q", 8 << 30) + b"N.", "truncated"),
    "truncated checkpoint": (pickle.dumps(state_dict(np.ones(1000)))[:-100], "truncated"),
    # the interpreter itself: hashing a deep tuple recursed in C until the stack overflowed (SIGSEGV)
    "dict key nested 1,000,000 tuples deep": (b"\x80\x02}" + b")" + b"\x85" * 1_000_000 + b"K\x01s.", "tuples more"),
    "list that contains itself": (pickle.dumps(self_containing_list()), "contains itself"),
    "lists nested 100,000 deep": (b"\x80\x02" + b"]" * 100_000 + b"a" * 99_999 + b".", "recursion limit"),
    # names and calls outside the allow-list
    "os.system": (b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85R.", "os.system"),
    "_codecs.encode with zlib": (b"\x80\x02c_codecs\nencode\nX\x03\x00\x00\x00abcX\x04\x00\x00\x00zlib\x86R.",
                                 "encode(str, 'zlib')"),
    "BUILD on a list": (b"\x80\x02]}b.", "sets the state of a list"),
    "NEWOBJ of numpy.ndarray": (b"\x80\x02cnumpy\nndarray\nK\x01\x85\x81.", "NEWOBJ"),
    "numpy.dtype itself as a value": (b"\x80\x02]cnumpy\ndtype\na.", "function or class itself"),
}


CHILD = r"""
import json, resource, sys
import paddle_fn as paddle
# a regression fails with MemoryError instead of allocating what the file asks for
with open("/proc/self/status") as status:
    mapped = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (mapped + (2 << 30), resource.RLIM_INFINITY))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for name, path in json.loads(sys.argv[1]):
    print(json.dumps({"start": name}), flush=True)
    try:
        paddle.load(path)
        outcome = {"loaded": True}
    except Exception as e:
        outcome = {"error": type(e).__name__, "message": str(e)}
    outcome["grown_mib"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024
    print(json.dumps({"done": name, **outcome}), flush=True)
"""


@pytest.fixture(scope="module")
def crafted_outcomes(tmp_path_factory):
    """name -> what loading that crafted file did in the child (absent: the child died first)."""
    folder = tmp_path_factory.mktemp("crafted")
    files = []
    for i, (name, (data, _)) in enumerate(CRAFTED.items()):
        path = folder / f"case{i}.pdparams"
        path.write_bytes(data)
        files.append((name, str(path)))
    files.append(("one array under 1,500 keys", str(_shared_array_file(folder))))
    child = subprocess.run([sys.executable, "-c", CHILD, json.dumps(files)], capture_output=True, text=True,
                           timeout=120)
    outcomes, started = {}, None
    for line in child.stdout.splitlines():
        record = json.loads(line)
        started = record.get("start", started)
        if "done" in record:
            outcomes[record.pop("done")] = record
    return outcomes, started, child


def _shared_array_file(folder):
    """A state_dict with one 4 MiB array under 1,500 keys (pickle stores it once): 6 GiB of copies, before."""
    array = np.arange(MiB // 2, dtype=np.float64)
    path = folder / "shared.pdparams"
    path.write_bytes(pickle.dumps({**{f"w{i}": array for i in range(1500)}, TABLE: {}}))
    return path


@pytest.mark.parametrize("name", list(CRAFTED))
def test_crafted_file_is_refused_without_crashing_or_allocating(crafted_outcomes, name):
    outcomes, started, child = crafted_outcomes
    assert name in outcomes, (f"the interpreter died (exit {child.returncode}) while loading {started!r}:\n"
                              f"{child.stderr[-2000:]}")
    outcome = outcomes[name]
    assert outcome.get("error") == "UnpicklingError", outcome
    assert "paddle.load: " in outcome["message"] and CRAFTED[name][1] in outcome["message"], outcome["message"]
    assert outcome["grown_mib"] < 300, outcome


def test_one_array_under_many_keys_is_one_tensor(crafted_outcomes, tmp_path):
    outcomes, started, child = crafted_outcomes
    assert outcomes.get("one array under 1,500 keys", {}).get("loaded"), (started, child.stderr[-2000:])
    assert outcomes["one array under 1,500 keys"]["grown_mib"] < 300
    state = paddle.load(str(_shared_array_file(tmp_path)))
    assert len({id(v) for v in state.values()}) == 1 and state["w7"].numpy()[5] == 5.0


def test_refusals_name_the_file_and_the_rule(tmp_path):
    path = tmp_path / "bomb.pdparams"
    path.write_bytes(pickle.dumps(arrays_over_one_buffer(10)))
    with pytest.raises(pickle.UnpicklingError) as refusal:
        paddle.load(str(path))
    message = str(refusal.value)
    assert message.startswith(f"paddle.load: {str(path)!r} declares a float64 array of shape (524288,)")
    assert "4x the bytes read plus 4 MiB" in message and "refused the file before allocating" in message
    with pytest.raises(pickle.UnpicklingError, match="^paddle.load: the buffer declares an array of dtype 'O8'"):
        paddle.load(io.BytesIO(pickle.dumps(np.array([None]))))


# ----------------------------------------------------------------------------------------------- what loads


ALLOWED = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
           np.float16, np.float32, np.float64, np.complex64, np.complex128, ml_dtypes.bfloat16]


def _arrays():
    rng = np.random.default_rng(0)
    out = {np.dtype(t).name: (np.abs(rng.standard_normal((3, 4))) * 10).astype(t) for t in ALLOWED}
    out.update({"scalar_0d": np.array(2.5), "empty": np.zeros((0, 3), np.int64),
                "big_endian": np.arange(4, dtype=">i4"), "fortran": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
                "strided": np.arange(20.0).reshape(4, 5)[::2, 1::2], "numpy_scalar": np.float32(1.5),
                "bool_scalar": np.True_, "big": np.arange(300_000, dtype=np.float32)})
    return out


def _assert_same(got, want):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    elif isinstance(want, dict):
        assert type(got) is type(want) and list(got) == list(want)
        for k in want:
            _assert_same(got[k], want[k])
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
    else:
        assert type(got) is type(want) and got == want


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_plain_pickles_of_numpy_data_load_as_pickle_loads_them(protocol):
    obj = {"arrays": _arrays(), "nested": [1, 2.5, 3 + 4j, "text", b"", b"\x00\xff", None, True, (1, (2, 3))],
           "ordered": collections.OrderedDict(b=1, a=2), "set": {1, 2}, "frozen": frozenset({"x"})}
    data = pickle.dumps(obj, protocol=protocol)
    # pickle.loads is the reference (numpy turns a big-endian array native, except through protocol 5)
    _assert_same(paddle.load(io.BytesIO(data)), pickle.loads(data))
    _assert_same(paddle.load(io.BytesIO(data))["arrays"]["fortran"], obj["arrays"]["fortran"])


def test_data_larger_than_a_read_chunk_loads_from_a_stream():
    array = np.arange(17 * MiB, dtype=np.uint8)  # read from a buffer in 16 MiB pieces: its size is not known
    np.testing.assert_array_equal(paddle.load(io.BytesIO(pickle.dumps([array], protocol=4)))[0], array)


def test_loaded_numpy_arrays_are_writable():
    for protocol in (2, 4, 5):
        loaded = paddle.load(io.BytesIO(pickle.dumps({"a": np.zeros(100_000)}, protocol=protocol)))["a"]
        loaded[0] = 1.0


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_paddle_save_round_trips_at_every_protocol(tmp_path, protocol):
    layer = paddle.nn.Linear(3, 2)
    state = layer.state_dict()
    path = str(tmp_path / "model.pdparams")
    paddle.save(state, path, protocol=protocol)
    assert next(pickletools.genops(open(path, "rb").read()))[1] == protocol
    loaded = paddle.load(path)
    for k, v in state.items():
        assert isinstance(loaded[k], paddle.Tensor) and loaded[k].dtype == v.dtype
        np.testing.assert_array_equal(loaded[k].numpy(), v.numpy())
    tensors = {"f16": paddle.ones([2, 2], dtype="float16"), "i64": paddle.arange(5, dtype="int64"),
               "b": paddle.to_tensor([True, False]), "c64": paddle.to_tensor(np.array([1 + 2j], np.complex64)),
               "zero_d": paddle.to_tensor(3.0), "empty": paddle.zeros([0, 4])}
    obj = {"tensors": tensors, "nested": {"list": [paddle.to_tensor([1.0]), 2, "s"], "epoch": 7, "lr": 0.1}}
    paddle.save(obj, path, protocol=protocol)
    back = paddle.load(path)
    for k, t in tensors.items():
        assert isinstance(back["tensors"][k], paddle.Tensor) and back["tensors"][k].dtype == t.dtype
        np.testing.assert_array_equal(back["tensors"][k].numpy(), t.numpy())
    assert back["nested"]["list"][1:] == [2, "s"] and back["nested"]["epoch"] == 7 and back["nested"]["lr"] == 0.1
    # bfloat16 is stored as its uint16 bits, as Paddle does (paddle_fn has no uint16 Tensor: read it as numpy)
    paddle.save({"bf16": paddle.to_tensor([1.0, -2.0]).astype("bfloat16")}, path, protocol=protocol)
    assert paddle.load(path, return_numpy=True)["bf16"].tolist() == [0x3F80, 0xC000]


def test_files_paddle_writes_at_protocol_2_load():
    class PaddleTensor:  # stands for paddle.Tensor, which Paddle pickles through reduce_varbase
        def __init__(self, name, data):
            self.name, self.data = name, data

    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=2)
    pickler.dispatch_table = {PaddleTensor: lambda t: (tuple, ((t.name, t.data),))}
    pickler.dump({"epoch": 2, "hist": [PaddleTensor("generated_tensor_1", np.array([1.5, 2.5], np.float32))],
                  "state": {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.zeros(0, np.float32)}})
    assert b"c__builtin__\ntuple" in buffer.getvalue() and b"c_codecs\nencode" in buffer.getvalue()
    buffer.seek(0)
    loaded = paddle.load(buffer)
    assert loaded["epoch"] == 2 and loaded["hist"][0].name == "generated_tensor_1"
    assert loaded["hist"][0].numpy().tolist() == [1.5, 2.5] and loaded["state"]["w"].shape == (2, 3)
    assert loaded["state"]["b"].shape == (0,)


def test_protocol_2_bytes_go_through_codecs_encode_only_as_latin1():
    data = pickle.dumps({"raw": b"\x00\x80\xff", "empty": b""}, protocol=2)
    assert b"_codecs\nencode" in data and b"bytes" in data
    assert paddle.load(io.BytesIO(data)) == {"raw": b"\x00\x80\xff", "empty": b""}


def test_cifar_batches_written_by_python_2_still_load():
    # Python 2's numpy pickles names, byte orders and data as str: bytes when read with encoding='bytes'
    data = (b"\x80\x02}q\x00U\x04dataq\x01cnumpy.core.multiarray\n_reconstruct\nq\x02cnumpy\nndarray\nq\x03K\x00"
            b"\x85U\x01b\x87Rq\x04(K\x01K\x02\x85cnumpy\ndtype\nq\x05U\x02u1K\x00K\x01\x87Rq\x06(K\x03U\x01|NNNJ"
            b"\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tbK\x00U\x02\x07\x09tbs.")
    batch = paddle_io._SafeUnpickler(io.BytesIO(data), "test:", encoding="bytes").load()
    assert batch[b"data"].tolist() == [7, 9] and batch[b"data"].dtype == np.uint8


# ----------------------------------------------------------------------------------------------- atomic saves


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize("failure", ["disk full during the write", "fsync fails"])
def test_a_failed_save_leaves_the_previous_checkpoint(tmp_path, monkeypatch, failure):
    path = tmp_path / "model.pdparams"
    paddle.save({"w": paddle.ones([4])}, str(path))
    before = path.read_bytes()
    if failure == "disk full during the write":
        def dump(data, file, protocol):
            file.write(b"\x80\x04partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr(pickle, "dump", dump)
    else:
        def fsync(fd):
            raise OSError(errno.EIO, "Input/output error")
        monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        paddle.save({"w": paddle.zeros([1000])}, str(path))
    monkeypatch.undo()
    assert path.read_bytes() == before and _leftovers(tmp_path) == []
    assert paddle.load(str(path))["w"].numpy().tolist() == [1.0] * 4


def test_save_keeps_permissions_and_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real.pdparams"
    paddle.save({"w": paddle.ones([1])}, str(real))
    os.chmod(real, 0o640)
    link = tmp_path / "link.pdparams"
    link.symlink_to(real)
    paddle.save({"w": paddle.zeros([1])}, str(link))
    assert link.is_symlink() and (real.stat().st_mode & 0o777) == 0o640
    assert paddle.load(str(real))["w"].numpy().tolist() == [0.0]
    assert _leftovers(tmp_path) == []


def test_a_failed_jit_save_leaves_the_previous_model(tmp_path, monkeypatch):
    prefix = str(tmp_path / "net")
    paddle.jit.save(paddle.nn.Linear(3, 1), prefix, input_spec=[InputSpec([None, 3])])
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(before) == ["net.pdiparams", "net.pdiparams.info", "net.pdmodel"]

    def savez(file, **arrays):
        file.write(b"PK\x03\x04partial")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(np, "savez", savez)
    with pytest.raises(OSError):
        paddle.jit.save(paddle.nn.Linear(3, 1), prefix, input_spec=[InputSpec([None, 3])])
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


SAVER = r"""
import sys
import numpy as np
import paddle_fn as paddle
state = {f"w{i}": np.full(1 << 20, i, np.float32) for i in range(50)}  # 200 MB
print("saving", flush=True)
while True:
    paddle.save(state, sys.argv[1])
"""


def _save_under_way(folder, path, size):
    """Whether a save has started writing: a temporary file filling, or (an unsafe save) the file itself."""
    try:
        return path.stat().st_size != size or any(p.stat().st_size for p in folder.glob(".*.tmp"))
    except FileNotFoundError:  # a temporary file renamed between the listing and its stat: a save completed
        return True


def test_kill_9_during_a_save_leaves_a_loadable_checkpoint(tmp_path):
    path = tmp_path / "model.pdparams"
    paddle.save({"step": 0}, str(path))
    size = path.stat().st_size
    saver = subprocess.Popen([sys.executable, "-c", SAVER, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert saver.stdout.readline() == "saving\n"
        deadline = time.monotonic() + 20
        while not _save_under_way(tmp_path, path, size):
            assert time.monotonic() < deadline, "the saver never started writing"
            time.sleep(0.002)
    finally:
        saver.send_signal(signal.SIGKILL)
        saver.wait()
    loaded = paddle.load(str(path), return_numpy=True)
    assert loaded == {"step": 0} or (len(loaded) == 50 and loaded["w49"][-1] == 49)
