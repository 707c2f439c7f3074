"""``paddle.save`` / ``paddle.load``: state_dicts, Tensors and nested containers, in Paddle's file format, loaded
without ever running code from the file.

The format is Paddle's: a pickle (protocol 2-5) of the object with every Tensor replaced by numpy data. In a
state_dict (a dict whose values are Tensors, or dicts without Tensors such as ``LR_Scheduler``) a Tensor becomes
its array and the dict gets a ``StructuredToParameterName@@`` entry mapping keys to Tensor names; anywhere else a
Tensor becomes the tuple ``(name, array)``. So files written here load in Paddle, and Paddle's load here.

A checkpoint file is not trusted (docs/security.md). Loading uses an unpickler that resolves only the names in
`_SAFE_GLOBALS` (a file naming any other global, the way a malicious pickle runs code, is refused with
``pickle.UnpicklingError`` before anything is built), builds arrays only of plain numeric dtypes from data of
exactly their size, and refuses a file that asks for more memory than a small multiple of its size. Saving writes
a temporary file and renames it onto the target, so an interrupted save leaves the previous file as it was.
``paddle.load`` of a ``paddle.jit.save`` path prefix reads the ``.pdiparams`` parameter file, an ``.npz`` archive
read with ``allow_pickle=False``.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import json
import math
import os
import pickle
import reprlib
import secrets
import stat
import struct
import sys
import zipfile

import numpy as np

from paddle_fn.core.dtypes import bfloat16
from paddle_fn.core.trace import Tensor, Tracer, adopt

__all__ = ["load", "save"]

_NAME_TABLE = "StructuredToParameterName@@"


# ----------------------------------------------------------------------------------------------- writing files

@contextlib.contextmanager
def atomic_write(path: str, mode: str = "wb", encoding: str | None = None):
    """Open `path` for writing so that it is only ever replaced by a complete file: the data goes to a temporary
    file beside it, which is flushed, fsynced and renamed onto `path` when the block ends. If the block raises (a
    full disk, an object that cannot be pickled) the temporary file is removed and `path` is left as it was; a
    process killed mid-write leaves `path` intact and a ``.<name>.<random>.tmp`` file beside it.

    As with ``open(path, 'w')``, a symlink at `path` is written through (its target is replaced) and an existing
    file keeps its permission bits; a new one gets the default permissions (0o666 less the umask).
    """
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with open(descriptor, mode, encoding=encoding) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temporary)
        raise
    # the rename is atomic at once; syncing the folder makes it survive a power loss too. Where a folder cannot
    # be opened or synced (Windows, some network file systems) there is nothing more to do.
    with contextlib.suppress(OSError):
        folder_descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(folder_descriptor)
        finally:
            os.close(folder_descriptor)


# ----------------------------------------------------------------------------------------------- save

def _array(t: Tensor, where: str) -> np.ndarray:
    if isinstance(t, Tracer):
        raise TypeError(f"paddle.save: {where} is a traced Tensor (you are inside paddle.jit / grad / vmap); save "
                        "after the transform, with concrete values")
    a = np.asarray(t.numpy())
    if t.dtype == bfloat16:  # as Paddle: bfloat16 data is stored as its uint16 bit pattern
        a = a.view(np.uint16)
    return a


def _is_state_dict(obj) -> bool:
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains_tensor(v) for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _contains_tensor(obj) -> bool:
    if isinstance(obj, Tensor):
        return True
    if isinstance(obj, (list, tuple)):
        return any(_contains_tensor(v) for v in obj)
    if isinstance(obj, dict):
        return any(_contains_tensor(v) for v in obj.values())
    return False


_PLAIN = (type(None), bool, int, float, complex, str, bytes, np.ndarray, np.generic)


def _check_savable(obj, where):
    if hasattr(obj, "state_dict") and hasattr(obj, "forward"):
        raise ValueError("paddle do not support saving `paddle.nn.Layer` object. Save its state_dict() instead: "
                         "paddle.save(layer.state_dict(), path)")
    if not isinstance(obj, (Tensor, list, tuple, dict) + _PLAIN):
        raise TypeError(f"paddle.save: {where} is a {type(obj).__name__}, which paddle.load could not read back "
                        "(it loads only Tensors, numpy arrays, numbers, strings and lists/tuples/dicts of them, so "
                        "that loading never runs code); save its state_dict() or its Tensors instead")
    if isinstance(obj, np.ndarray) and obj.dtype.hasobject:
        raise TypeError(f"paddle.save: {where} is a numpy array of Python objects, which paddle.load could not "
                        "read back; convert it to a numeric array or a list")


def _encode(obj, where="the object"):
    """Tensors -> (name, array) anywhere in nested lists, tuples and dicts (Paddle's `reduce_varbase`)."""
    _check_savable(obj, where)
    if isinstance(obj, Tensor):
        return (obj.name, _array(obj, where))
    if isinstance(obj, dict):
        return type(obj)((k, _encode(v, f"{where}[{k!r}]")) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_encode(v, f"{where}[{i}]") for i, v in enumerate(obj))
    return obj


def _encode_state_dict(obj):
    out = type(obj)() if isinstance(obj, collections.OrderedDict) else {}
    names = {}
    for key, value in obj.items():
        if isinstance(value, Tensor):
            out[key] = _array(value, f"state_dict[{key!r}]")
            names[key] = value.name
        else:
            out[key] = _encode(value, f"state_dict[{key!r}]")
    out[_NAME_TABLE] = names
    return out


def _check_file_name(path):
    dirname, filename = os.path.split(path)
    if filename == "":
        raise ValueError("The input path MUST be format of dirname/filename [dirname\\filename in Windows system], "
                         "but received filename is empty string.")
    if dirname and not os.path.exists(dirname):
        os.makedirs(dirname, exist_ok=True)


def save(obj, path, protocol=4, **configs):
    """Save a state_dict, a Tensor or a nested list/tuple/dict of Tensors, numbers and strings to `path`
    (``paddle.save``). The suffix is not added for you: Paddle uses ``.pdparams`` for a Layer's state_dict and
    ``.pdopt`` for an optimizer's.

    The file is written to a temporary file beside `path` and renamed onto it once complete, so a save that fails
    (a full disk, a killed process) leaves the previous file at `path` as it was.

    Args:
        obj (object): ``layer.state_dict()``, ``optimizer.state_dict()``, a Tensor, or nested containers of them.
            A Layer or optimizer itself cannot be saved (save its state_dict).
        path (str|BytesIO): the file name (its directory is created), or a writable binary buffer.
        protocol (int, optional): the pickle protocol, 2, 3, 4 or 5 (Paddle writes 2-4). Default: 4.
        **configs: ``use_binary_format=False`` (True, Paddle's static-graph LoDTensor format, is not supported).

    Example:
        >>> import os, tempfile
        >>> import paddle_fn as paddle
        >>> layer = paddle.nn.Linear(2, 3)
        >>> path = os.path.join(tempfile.mkdtemp(), "linear.pdparams")
        >>> paddle.save(layer.state_dict(), path)
        >>> state = paddle.load(path)
        >>> sorted(state), bool((state["weight"] == layer.weight).all())
        (['bias', 'weight'], True)
    """
    if not isinstance(protocol, int) or isinstance(protocol, bool) or not 1 < protocol < 6:
        raise ValueError(f"Expected 1<'protocol'<6, but received protocol={protocol}")
    unknown = sorted(set(configs) - {"use_binary_format"})
    if unknown:
        raise ValueError(f"The additional config ({', '.join(unknown)}) of `paddle.save` is not supported.")
    if configs.get("use_binary_format", False):
        raise NotImplementedError("paddle.save(use_binary_format=True): Paddle's static-graph LoDTensor binary "
                                  "format is not supported; save without it (the pickle format Paddle also reads)")
    _check_savable(obj, "the object")
    data = _encode_state_dict(obj) if _is_state_dict(obj) else _encode(obj)
    if isinstance(path, str):
        _check_file_name(path)
        with atomic_write(path) as f:
            pickle.dump(data, f, protocol=protocol)
    elif hasattr(path, "write"):
        pickle.dump(data, path, protocol=protocol)
    else:
        raise TypeError(f"paddle.save: path must be a file name (str) or a writable binary buffer, got "
                        f"{type(path).__name__}")


# ----------------------------------------------------------------------------------------------- the unpickler

# What a file may ask to be built, against the bytes read from it so far: every array's data is in the file, so a
# real checkpoint needs about 1x (2x at protocol 2, whose bytes are decoded from text first); more means shared or
# repeated data turned into copies (a crafted file), refused before they are made.
_MEMORY_FACTOR = 4
_MEMORY_SLACK = 4 << 20
# Hashing a tuple recurses in C without a depth check: a dict key or set element nested ~10^5-10^6 tuples deep
# overflows the C stack and kills the interpreter (a 1 MB pickle does it). No checkpoint nests tuples this deep.
_MAX_TUPLE_DEPTH = 100
_MAX_DIMS = 64  # numpy's NPY_MAXDIMS
# Reads of a stream whose size is unknown go in pieces of this size, so a length field claiming terabytes costs
# no more memory than the data that actually arrives.
_CHUNK = 16 << 20

# The dtypes an array may have, by the name numpy pickles them under ('f4', 'i8', 'b1', ...): data only, no
# Python objects, strings, fields or subarrays.
_DTYPES = {np.dtype(t).str[1:]: np.dtype(t)
           for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                     np.float16, np.float32, np.float64, np.complex64, np.complex128)}
_DTYPE_RULE = ("paddle_fn loads only arrays of bool, int8-int64, uint8-uint64, float16, bfloat16, float32, float64, "
               "complex64 and complex128 (not object, string or structured dtypes); the file is corrupt or crafted, "
               "or holds such an array (save it as a list or a numeric array instead)")


class _Refused(pickle.UnpicklingError):
    """Why the file is refused, phrased to follow its name (`_SafeUnpickler.load` puts the name in front)."""


class _Reference:
    """A class a file may only name as an argument: numpy.ndarray (to numpy's ``_reconstruct``) and
    ml_dtypes.bfloat16 (to ``numpy.dtype``). Calling it is refused: ``numpy.ndarray(shape, dtype, buffer, offset,
    strides)`` can view a few bytes as an array of any size (a zero stride) or memory outside them."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        raise _Refused(f"calls {self.name}(...) directly, which numpy's pickles never do (they name it only as an "
                       "argument); a direct call could view a few bytes as an array of any size or read memory "
                       "outside them")


_NDARRAY, _BFLOAT16 = _Reference("numpy.ndarray"), _Reference("ml_dtypes.bfloat16")


class _Pending:
    """A numpy dtype or array the file declared, completed by pickle's BUILD (``__setstate__`` in numpy's own
    pickles); `_SafeUnpickler.load` puts its value in its place. numpy's setstate is never called on a dtype:
    it would let the file give a plain dtype object fields and turn raw bytes into pointers."""

    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        self.kind = kind
        self.value = value


def _pending_value(x):
    if type(x) is not _Pending:
        if callable(x):  # a name from _SAFE_GLOBALS itself, never data
            raise _Refused("holds a function or class itself as a value (a global the file names but never calls); "
                           "a checkpoint holds only data")
        return NotImplemented
    if x.value is None:
        raise _Refused("declares an array but never gives its data (numpy's _reconstruct without __setstate__)")
    return x.value


def _text(x):
    """Names and flags in a pickle written by Python 2 are bytes when read with encoding='bytes' (CIFAR)."""
    return x.decode("latin1") if isinstance(x, bytes) else x


class _Reader:
    """The file as the unpickler reads it: it counts the bytes read (the memory bound is a multiple of them) and
    never allocates for more bytes than the file holds, whatever a length field in it claims (``read(n)`` of a
    file object allocates n bytes before reading)."""

    def __init__(self, file, size):
        self._file = file
        self._left = size  # bytes left in the file, where it is known
        self.count = 0

    def read(self, n):
        if self._left is not None and n > self._left:
            raise self._truncated(n - self._left)
        data = self._file.read(n) if self._left is not None or n <= _CHUNK else self._read_chunks(n)
        if len(data) < n:
            raise self._truncated(n - len(data))
        self._advance(len(data))
        return data

    def readline(self):
        line = self._file.readline()
        self._advance(len(line))
        return line

    def _read_chunks(self, n):
        chunks = []
        while n > 0 and (chunk := self._file.read(min(n, _CHUNK))):
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _advance(self, n):
        self.count += n
        if self._left is not None:
            self._left -= n

    @staticmethod
    def _truncated(missing):
        return _Refused(f"is truncated: it ends {missing:,} byte(s) before the end of the data it declares (an "
                        "interrupted copy or save, or a crafted length)")


# (module, name) -> what the file gets for it: a _SafeUnpickler method (by name), a Python type (called through
# `_SafeUnpickler._construct`, which counts what it builds) or a _Reference. numpy pickles an array as
# _reconstruct(ndarray, (0,), b'b') + __setstate__((1, shape, dtype, is_fortran, data)), at protocol 5 as
# _frombuffer(data, dtype, shape, order), a scalar as scalar(dtype, data), and a dtype as
# dtype(name, align, copy) + __setstate__; numpy 1 names the modules numpy.core, numpy 2 numpy._core. Protocol 2
# stores bytes as _codecs.encode(text, 'latin1') (b'' as bytes()) and names Python 3's builtins __builtin__;
# protocols 2-3 pickle sets and Paddle pickles a Tensor outside a state_dict through a call of the type.
_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict, ("_codecs", "encode"): "_latin1_bytes",
    ("numpy", "dtype"): "_dtype", ("numpy", "ndarray"): _NDARRAY, ("ml_dtypes", "bfloat16"): _BFLOAT16,
}
for _module in ("builtins", "__builtin__"):
    _SAFE_GLOBALS.update({(_module, kind.__name__): kind for kind in (tuple, set, frozenset, complex)})
    _SAFE_GLOBALS[(_module, "bytes")] = "_empty_bytes"
for _module in ("numpy.core", "numpy._core"):
    _SAFE_GLOBALS.update({(f"{_module}.multiarray", "_reconstruct"): "_reconstruct",
                          (f"{_module}.multiarray", "scalar"): "_scalar",
                          (f"{_module}.numeric", "_frombuffer"): "_frombuffer"})


class _SafeUnpickler(pickle._Unpickler):
    """An unpickler that builds only numpy arrays of plain numeric dtypes, their dtypes and scalars, and Python
    containers, numbers and strings; refuses anything else, and a file that asks for more memory than
    `_MEMORY_FACTOR` times its size, with ``pickle.UnpicklingError`` naming `source`.

    It is pickle's pure-Python unpickler, whose opcodes can be replaced (the C one's cannot): BUILD completes only
    the dtypes and arrays `_Pending` stands for, tuples are checked for depth as they are made, and BYTEARRAY8
    reads before it allocates.
    """

    # the end of the refusal of a global the file names
    refusal_hint = ("paddle_fn loads only Tensors/numpy arrays, numbers, strings and lists/tuples/dicts, and never "
                    "runs code from a file. If you wrote this file, save state_dicts (layer.state_dict(), "
                    "optimizer.state_dict()) or Tensors instead of arbitrary objects")

    def __init__(self, file, source, size=None, encoding="ASCII"):
        """`source` begins every error (``"paddle.load: 'model.pdparams'"``); `size` is the bytes left in
        `file` where known (a file on disk), so a claimed length is checked before anything is read."""
        self._reader = _Reader(file, size)
        super().__init__(self._reader, encoding=encoding)
        self._source = source
        self._charged = 0
        self._tuple_depths = {}  # id -> (depth, tuple) of tuples holding tuples; holding it keeps the id its own

    def load(self):
        try:
            return _rebuild(super().load(), _pending_value)
        except _Refused as refusal:
            raise pickle.UnpicklingError(f"{self._source} {refusal}") from None
        except RecursionError:
            raise pickle.UnpicklingError(f"{self._source} nests lists/dicts deeper than Python's recursion limit, "
                                         "which paddle.save never writes") from None
        except Exception as error:  # anything a malformed stream makes pickle raise: the file is at fault
            raise pickle.UnpicklingError(f"{self._source} is not a pickle paddle.load can read "
                                         f"({type(error).__name__}: {error})") from error
        finally:
            # the memo holds every value read (the file's data) and the methods find_class gave, which refer back
            # to the unpickler: without this, the data stays alive until the cycle collector runs
            self.memo.clear()
            self._tuple_depths.clear()

    def find_class(self, module, name):
        target = _SAFE_GLOBALS.get((module, name))
        if target is None:
            raise _Refused(f"references {module}.{name}, which is not allowed: {self.refusal_hint}")
        if isinstance(target, str):
            return getattr(self, target)
        if isinstance(target, type):
            return functools.partial(self._construct, target)
        return target

    def _charge(self, nbytes, what):
        self._charged += nbytes
        bound = _MEMORY_FACTOR * self._reader.count + _MEMORY_SLACK
        if self._charged > bound:
            raise _Refused(f"declares {what} ({nbytes:,} bytes), which makes {self._charged:,} bytes of arrays "
                           f"and copies from the {self._reader.count:,} bytes read so far; a checkpoint stores "
                           f"its data, so paddle.load allows {_MEMORY_FACTOR}x the bytes read plus "
                           f"{_MEMORY_SLACK >> 20} MiB ({bound:,} bytes) and refused the file before allocating "
                           "(it is corrupt or crafted)")

    def _track_tuple(self, value):
        depth = 1 + max((self._tuple_depths.get(id(item), (1,))[0] for item in value if type(item) is tuple),
                        default=0)
        if depth > _MAX_TUPLE_DEPTH:
            raise _Refused(f"nests tuples more than {_MAX_TUPLE_DEPTH} deep; hashing such a tuple (as a dict key or "
                           "set element) overflows the C stack and kills the interpreter")
        if depth > 1:
            self._tuple_depths[id(value)] = (depth, value)

    # ---- what the names in _SAFE_GLOBALS resolve to

    def _construct(self, kind, *args):
        value = kind(*args)
        self._charge(sys.getsizeof(value), f"a {kind.__name__} made by a call")
        if kind is tuple:
            self._track_tuple(value)
        return value

    def _empty_bytes(self, *args):
        if args:  # bytes(n) would allocate n bytes
            raise _Refused(f"calls bytes() with arguments {reprlib.repr(args)}; a pickle calls it only as bytes(), "
                           "for b'' at protocol 2")
        return b""

    def _latin1_bytes(self, text, encoding):
        if type(text) is not str or encoding != "latin1":
            raise _Refused(f"calls _codecs.encode({type(text).__name__}, {reprlib.repr(encoding)}); a pickle calls "
                           "it only as encode(str, 'latin1'), for bytes at protocol 2")
        self._charge(len(text), "bytes (protocol 2)")
        return text.encode("latin1")

    def _dtype(self, name, align=False, copy=True):  # numpy's signature; neither flag changes a plain dtype
        key = _text(name)
        dtype = np.dtype(bfloat16.np) if name is _BFLOAT16 else _DTYPES.get(key) if type(key) is str else None
        if dtype is None:
            raise _Refused(f"declares an array of dtype {reprlib.repr(name)}; {_DTYPE_RULE}")
        return _Pending("dtype", dtype)

    def _reconstruct(self, cls, shape, typecode):  # numpy passes (0,), b'b': the empty array BUILD fills
        if cls is not _NDARRAY:
            raise _Refused(f"asks numpy's _reconstruct for {reprlib.repr(cls)}; only numpy.ndarray itself is loaded")
        return _Pending("array", None)

    def _frombuffer(self, data, dtype, shape, order):
        shape, dtype = self._checked(shape, dtype, data)
        if order not in ("C", "F"):
            raise _Refused(f"gives an array the memory order {reprlib.repr(order)}; numpy writes 'C' or 'F'")
        return np.frombuffer(data, dtype).reshape(shape, order=order)

    def _scalar(self, dtype, data):
        _, dtype = self._checked((), dtype, data)
        return np.frombuffer(data, dtype)[0]

    # ---- BUILD: the state numpy's pickles give a dtype or an array

    def _load_build(self):
        state = self.stack.pop()
        pending = self.stack[-1]
        if type(pending) is not _Pending:
            raise _Refused(f"sets the state of a {type(pending).__name__} (pickle's BUILD); paddle.load sets only "
                           "numpy dtypes' and arrays' states")
        if pending.kind == "dtype":
            pending.value = self._dtype_state(pending.value, state)
        elif pending.value is None:
            pending.value = self._array_state(state)
        else:
            raise _Refused("sets an array's state twice")

    def _dtype_state(self, dtype, state):
        """`dtype` in the byte order of numpy's dtype state (version, byteorder, subarray, names, fields, elsize,
        alignment, flags[, metadata]); nothing else is taken from the state."""
        if not (type(state) is tuple and len(state) in (8, 9) and state[0] in (3, 4)):
            raise _Refused(f"gives numpy.dtype the state {reprlib.repr(state)}, which numpy does not write")
        if state[2:5] != (None, None, None):
            raise _Refused(f"gives a {dtype} dtype a subarray or fields (a structured dtype); {_DTYPE_RULE}")
        order = _text(state[1])
        if order not in ("<", ">", "=", "|"):
            raise _Refused(f"gives a {dtype} dtype the byte order {reprlib.repr(order)}; numpy writes <, >, = or |")
        return dtype.newbyteorder(order) if order in ("<", ">") else dtype

    def _array_state(self, state):
        if not (type(state) is tuple and len(state) == 5 and state[0] == 1 and isinstance(state[3], int)):
            raise _Refused(f"gives an array the state {reprlib.repr(state)}, which numpy does not write")
        _, shape, dtype, is_fortran, data = state
        shape, dtype = self._checked(shape, dtype, data)
        array = np.empty(0, np.uint8)
        # numpy's own setstate, given a plain dtype and data of exactly the size: it keeps large data in place
        array.__setstate__((1, shape, dtype, bool(is_fortran), data))
        return array

    def _checked(self, shape, dtype, data):
        """(shape, numpy dtype) of an array the file declares, once `data` is known to be exactly its bytes and
        they are charged to the memory bound."""
        if type(dtype) is not _Pending or dtype.kind != "dtype":
            raise _Refused(f"gives an array the dtype {reprlib.repr(dtype)}, which is not a numpy.dtype")
        dtype = dtype.value
        if not (type(shape) is tuple and len(shape) <= _MAX_DIMS and all(type(d) is int and d >= 0 for d in shape)):
            raise _Refused(f"declares a {dtype} array of shape {reprlib.repr(shape)}; a shape is a tuple of at most "
                           f"{_MAX_DIMS} sizes >= 0")
        # numpy computes sizes and strides in intp, so even an empty array (a 0 among the sizes) must fit
        if math.prod(max(d, 1) for d in shape) * dtype.itemsize > np.iinfo(np.intp).max:
            raise _Refused(f"declares a {dtype} array of shape {shape}, whose size overflows numpy's index type")
        if not isinstance(data, (bytes, bytearray)):
            raise _Refused(f"gives a {dtype} array of shape {shape} a {type(data).__name__} as its data, not bytes "
                           "(numpy writes object arrays that way; paddle_fn loads only numeric arrays)")
        nbytes = math.prod(shape) * dtype.itemsize
        if len(data) != nbytes:
            raise _Refused(f"declares a {dtype} array of shape {shape} ({nbytes:,} bytes) but gives it "
                           f"{len(data):,} bytes of data")
        self._charge(nbytes, f"a {dtype} array of shape {shape}")
        return shape, dtype

    def _load_bytearray8(self):
        (size,) = struct.unpack("<Q", self.read(8))
        self.append(bytearray(self.read(size)))  # pickle's own allocates `size` zero bytes before reading any

    def _load_instance(self):
        raise _Refused("creates an instance of a class (pickle's NEWOBJ, INST or OBJ), which numpy's and Paddle's "
                       "pickles never do; paddle.load builds only numpy arrays, numbers, strings and containers")


def _tracking_tuples(load_op):
    def load(self):
        load_op(self)
        self._track_tuple(self.stack[-1])
    return load


_SafeUnpickler.dispatch = dict(pickle._Unpickler.dispatch)
for _op in (pickle.TUPLE, pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3):
    _SafeUnpickler.dispatch[_op[0]] = _tracking_tuples(pickle._Unpickler.dispatch[_op[0]])
_SafeUnpickler.dispatch[pickle.BUILD[0]] = _SafeUnpickler._load_build
_SafeUnpickler.dispatch[pickle.BYTEARRAY8[0]] = _SafeUnpickler._load_bytearray8
for _op in (pickle.NEWOBJ, pickle.NEWOBJ_EX, pickle.INST, pickle.OBJ):
    _SafeUnpickler.dispatch[_op[0]] = _SafeUnpickler._load_instance

_CONTAINERS = (tuple, list, dict, collections.OrderedDict, set, frozenset)


def _rebuild(obj, leaf):
    """`obj` with ``leaf(x)`` in place of each value x in it (keys included) for which that is not NotImplemented;
    the containers around them are rebuilt. A value held in several places is converted once and stays one
    object; a container that contains itself (paddle.save never writes one) is refused."""
    return _rebuilt(obj, leaf, {}, set())


def _rebuilt(x, leaf, done, open_containers):
    if id(x) in done:
        return done[id(x)]
    new = leaf(x)
    if new is NotImplemented:
        kind = type(x)
        if kind not in _CONTAINERS:
            new = x
        elif id(x) in open_containers:
            raise _Refused(f"holds a {kind.__name__} that contains itself, which paddle.save never writes")
        else:
            open_containers.add(id(x))
            if isinstance(x, dict):
                new = kind((_rebuilt(k, leaf, done, open_containers), _rebuilt(v, leaf, done, open_containers))
                           for k, v in x.items())
            else:
                new = kind(_rebuilt(v, leaf, done, open_containers) for v in x)
            open_containers.discard(id(x))
    done[id(x)] = new
    return new


# ----------------------------------------------------------------------------------------------- load

def _to_tensor(a: np.ndarray, name=None) -> Tensor:
    t = adopt(np.array(a))
    if name is not None:
        t.name = name
    return t


class _ParamsRefused(ValueError):
    """A parameter file refused with a complete message (not wrapped as an unreadable archive)."""


def _check_params_file(path, who):
    """Refuse a ``.pdiparams`` archive whose arrays would take more memory than the memory rule of paddle.load
    allows (docs/security.md), before numpy allocates them: numpy sizes each array from its header, and a crafted
    header can ask for terabytes."""
    if not os.path.exists(path):
        raise ValueError(f"{who}: {path} does not exist; the weights are saved beside the .pdmodel file by "
                         "paddle.jit.save: save the model again")
    size = os.path.getsize(path)
    bound = _MEMORY_FACTOR * size + _MEMORY_SLACK
    total = 0
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                with archive.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    if version == (1, 0):
                        shape, _, dtype = np.lib.format.read_array_header_1_0(member)
                    elif version == (2, 0):
                        shape, _, dtype = np.lib.format.read_array_header_2_0(member)
                    else:
                        raise ValueError(f"an .npy format version {version} that paddle.jit.save does not write")
                    header = member.tell()
                nbytes = math.prod(shape) * dtype.itemsize
                # numpy allocates the whole array before reading a compressed or zipped member: its declared size
                # must be there (jit.save stores members uncompressed, so a real file holds every byte)
                if nbytes > info.file_size - header:
                    raise _ParamsRefused(f"{who}: {path}: member {info.filename!r} declares a {dtype} array of "
                                   f"shape {shape} ({nbytes:,} bytes) but holds {max(info.file_size - header, 0):,}; "
                                   "the file is damaged or crafted: save the model again")
                total += nbytes
                if total > bound:
                    raise _ParamsRefused(f"{who}: {path}: its arrays ask for {total:,} bytes; a saved model "
                                   f"stores its data uncompressed, so paddle_fn allows {_MEMORY_FACTOR}x the file's "
                                   f"{size:,} bytes plus {_MEMORY_SLACK >> 20} MiB and refused it before allocating "
                                   "(it is damaged or crafted): save the model again")
    except _ParamsRefused:
        raise
    except (zipfile.BadZipFile, ValueError, EOFError, OSError) as e:
        raise ValueError(f"{who}: {path} is not a parameter file paddle.jit.save writes (an .npz archive "
                         f"of numeric arrays): {e}; it is damaged or crafted, or PaddlePaddle's own .pdiparams "
                         "format, which paddle_fn reads only beside PaddlePaddle 3's <prefix>.json program "
                         "(paddle.jit.load): save the model again with paddle_fn") from None


def read_params_file(path: str, who: str = "paddle.load") -> dict:
    """The arrays of a ``.pdiparams`` file written by ``paddle.jit.save`` (an ``.npz`` archive, read without
    pickle), by parameter name, after `_check_params_file` (`who` names the caller in its errors)."""
    _check_params_file(path, who)
    with np.load(path, allow_pickle=False) as archive:
        return {k: archive[k] for k in archive.files}


def write_params_file(file, arrays: dict) -> None:
    """Write `arrays` (name -> numpy array) to the binary file `file` as a ``.pdiparams`` file (an ``.npz``
    archive, no pickle)."""
    np.savez(file, **arrays)


def _load_jit_params(prefix, configs, return_numpy):
    params_file = prefix + (configs.get("params_filename") or ".pdiparams")
    # the constants a saved program captured are stored beside the weights (as "@const.N"); they are not state
    arrays = {k: v for k, v in read_params_file(params_file).items() if not k.startswith("@const.")}
    info_path = params_file + ".info"
    if os.path.exists(info_path):  # structured names (fc.weight) where jit.save recorded them, as Paddle does
        with open(info_path, encoding="utf-8") as f:
            info = json.load(f)
        arrays = {info.get(k, {}).get("structured_name", k): v for k, v in arrays.items()}
    return arrays if return_numpy else {k: _to_tensor(v, k) for k, v in arrays.items()}


def load(path, **configs):
    """Load what `save` wrote (``paddle.load``): a state_dict comes back as a dict of Tensors (numpy arrays with
    ``return_numpy=True``), a saved Tensor as a Tensor, other values as they were. Given the path prefix of a
    ``paddle.jit.save`` output, it returns that model's parameters by structured name.

    Nothing in the file is executed and a crafted file cannot crash the interpreter or exhaust memory: only numpy
    arrays of numeric dtypes and Python containers can be loaded, and a file that references anything else, is
    truncated, or asks for more memory than a few times its size raises ``pickle.UnpicklingError``
    (docs/security.md lists the rules).

    Args:
        path (str|BytesIO): the file name, a readable binary buffer, or a ``paddle.jit.save`` path prefix.
        **configs: ``return_numpy`` (bool, default False), ``keep_name_table`` (keep the
            ``StructuredToParameterName@@`` entry of a state_dict, default False), ``params_filename`` (the
            parameter file's suffix for a jit.save prefix, default '.pdiparams'), ``model_filename`` (accepted for
            a jit.save prefix).

    Example:
        >>> import io
        >>> import paddle_fn as paddle
        >>> buffer = io.BytesIO()
        >>> paddle.save({"step": 3, "w": [paddle.to_tensor([1.0, 2.0])]}, buffer)
        >>> _ = buffer.seek(0)
        >>> paddle.load(buffer)["w"][0].numpy()
        array([1., 2.], dtype=float32)
    """
    unknown = sorted(set(configs) - {"return_numpy", "keep_name_table", "params_filename", "model_filename"})
    if unknown:
        raise ValueError(f"The additional config ({', '.join(unknown)}) of `paddle.load` is not supported.")
    return_numpy = bool(configs.get("return_numpy", False))
    if isinstance(path, str):
        if not os.path.exists(path):
            if os.path.exists(path + (configs.get("params_filename") or ".pdiparams")):
                return _load_jit_params(path, configs, return_numpy)
            raise ValueError(f"The ``path`` ({path}) to load model not exists.")
        if os.path.isdir(path):
            raise ValueError(f"paddle.load: {path} is a directory; give the file name (or the path prefix given to "
                             "paddle.jit.save)")
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            size = info.st_size if stat.S_ISREG(info.st_mode) else None  # a pipe's size is unknown
            data = _SafeUnpickler(f, f"paddle.load: {path!r}", size).load()
    elif hasattr(path, "read"):
        data = _SafeUnpickler(path, "paddle.load: the buffer").load()
    else:
        raise TypeError(f"paddle.load: path must be a file name (str) or a readable binary buffer, got "
                        f"{type(path).__name__}")
    tensors = {}  # id(array) -> its Tensor: an array the file holds in several places is copied once

    def tensor(array, name=None):
        if id(array) not in tensors:
            tensors[id(array)] = _to_tensor(array, name)
        return tensors[id(array)]

    if isinstance(data, dict) and _NAME_TABLE in data:
        state = type(data)(data)
        table = state.pop(_NAME_TABLE)
        if not return_numpy:  # the state_dict's own arrays become Tensors; what its other values hold stays as saved
            state = type(state)((k, tensor(v) if isinstance(v, np.ndarray) else v) for k, v in state.items())
        if configs.get("keep_name_table", False):
            state[_NAME_TABLE] = table
        return state

    def saved_tensor(x):  # paddle.save stores a Tensor outside a state_dict as (name, array)
        if type(x) is tuple and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], np.ndarray):
            return x[1] if return_numpy else tensor(x[1], x[0])
        return NotImplemented
    return _rebuild(data, saved_tensor)
