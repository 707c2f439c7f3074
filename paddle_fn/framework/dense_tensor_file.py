"""PaddlePaddle's binary parameter file (``.pdiparams`` as Paddle's ``jit.save`` and ``save_inference_model`` write
it): the persistable tensors one after another, each serialized as Paddle's ``DenseTensor`` stream.

One tensor is: a ``uint32`` version (0), a ``uint64`` count of LoD levels with each level's ``uint64`` byte size and
offsets, a ``uint32`` tensor version (0), an ``int32`` size and that many bytes of a ``TensorDesc`` protobuf
message (field 1: the data type, a ``VarType.Type`` enum; field 2: the dims), then the raw little-endian data.

The file is data, not trusted (docs/security.md): every size is checked against the bytes that are left before
anything is sliced or allocated, the protobuf is parsed by hand with only the two fields a ``TensorDesc`` has,
and the arrays are copies of bytes the file holds, so memory stays within twice the file's size.
"""
from __future__ import annotations

import math
import struct

import numpy as np

from paddle_fn.core.dtypes import bfloat16

__all__ = ["read_dense_tensors"]

# Paddle's VarType.Type enum (paddle/fluid/framework/framework.proto) -> numpy dtype
_DTYPES = {0: np.dtype(np.bool_), 1: np.dtype(np.int16), 2: np.dtype(np.int32), 3: np.dtype(np.int64),
           4: np.dtype(np.float16), 5: np.dtype(np.float32), 6: np.dtype(np.float64), 20: np.dtype(np.uint8),
           21: np.dtype(np.int8), 22: np.dtype(bfloat16.np), 23: np.dtype(np.complex64),
           24: np.dtype(np.complex128)}
_MAX_RANK = 32
_MAX_DESC_BYTES = 1024  # a TensorDesc is a type and up to _MAX_RANK varints


class _Damaged(ValueError):
    """A malformed record; `read_dense_tensors` adds the file and the tensor's position."""


class _Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int, what: str) -> bytes:
        if n < 0 or n > len(self.data) - self.pos:
            raise _Damaged(f"{what} needs {n:,} bytes at offset {self.pos:,}, but only "
                           f"{len(self.data) - self.pos:,} are left")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str, what: str):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0]


def _varint(desc: bytes, pos: int) -> tuple[int, int]:
    value = 0
    for shift in range(0, 70, 7):
        if pos >= len(desc):
            raise _Damaged("the tensor description ends inside a number")
        byte = desc[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
    raise _Damaged("the tensor description holds a number longer than 10 bytes")


def _tensor_desc(desc: bytes) -> tuple[int | None, list[int]]:
    """(data type, dims) of a serialized ``TensorDesc``: field 1 a varint, field 2 int64s, packed or not."""
    data_type, dims, pos = None, [], 0
    while pos < len(desc):
        key, pos = _varint(desc, pos)
        field, wire = key >> 3, key & 7
        if field == 1 and wire == 0:
            data_type, pos = _varint(desc, pos)
        elif field == 2 and wire == 0:
            dim, pos = _varint(desc, pos)
            dims.append(dim)
        elif field == 2 and wire == 2:
            length, pos = _varint(desc, pos)
            if length > len(desc) - pos:
                raise _Damaged("the tensor description's dims run past its end")
            end = pos + length
            while pos < end:
                dim, pos = _varint(desc[:end], pos)
                dims.append(dim)
        else:
            raise _Damaged(f"the tensor description has a field {field} (wire type {wire}); a TensorDesc has "
                           "only the data type (1) and the dims (2)")
        if len(dims) > _MAX_RANK:
            raise _Damaged(f"the tensor description has more than {_MAX_RANK} dims")
    # int64 dims arrive as unsigned varints: a negative one is at least 2**63
    if any(d >= 1 << 63 for d in dims):
        raise _Damaged(f"the tensor has a negative dimension in {[d - (1 << 64) if d >= 1 << 63 else d for d in dims]}")
    return data_type, dims


def _one_tensor(reader: _Reader) -> np.ndarray:
    version = reader.unpack("<I", "the version")
    if version != 0:
        raise _Damaged(f"the record starts with version {version}; Paddle writes 0")
    levels = reader.unpack("<Q", "the LoD level count")
    for _ in range(levels):  # sequence offsets (LoD), which no parameter uses: checked, then skipped
        size = reader.unpack("<Q", "a LoD level's size")
        reader.take(size, "a LoD level")
    tensor_version = reader.unpack("<I", "the tensor version")
    if tensor_version != 0:
        raise _Damaged(f"the tensor version is {tensor_version}; Paddle writes 0")
    desc_size = reader.unpack("<i", "the tensor description's size")
    if not 0 < desc_size <= _MAX_DESC_BYTES:
        raise _Damaged(f"the tensor description's size is {desc_size} bytes (expected 1 to {_MAX_DESC_BYTES})")
    data_type, dims = _tensor_desc(reader.take(desc_size, "the tensor description"))
    dtype = _DTYPES.get(data_type)
    if dtype is None:
        raise _Damaged(f"the data type code {data_type} is not one of Paddle's numeric types {sorted(_DTYPES)}")
    data = reader.take(math.prod(dims) * dtype.itemsize, f"a {dtype.name} tensor of shape {dims}")
    return np.frombuffer(data, dtype=dtype.newbyteorder("<") if dtype.itemsize > 1 else dtype).reshape(dims).copy()


def read_dense_tensors(path: str, count: int, who: str) -> list[np.ndarray]:
    """The `count` tensors stored one after another in Paddle's binary parameter file `path`, in file order.

    A file holding fewer or more tensors, or a record whose sizes, type or dims do not fit the bytes left, raises a
    ValueError that names `who`, the file and the record.

    Example:
        >>> import os, tempfile
        >>> from paddle_fn.framework.dense_tensor_file import read_dense_tensors
        >>> path = os.path.join(tempfile.mkdtemp(), "model.pdiparams")
        >>> desc = bytes([0x08, 0x05, 0x10, 0x02])  # float32 (5), dims [2]
        >>> record = (b"\\0" * 4 + b"\\0" * 8 + b"\\0" * 4 + len(desc).to_bytes(4, "little") + desc
        ...           + bytes.fromhex("0000803f00000040"))
        >>> with open(path, "wb") as f:
        ...     _ = f.write(record)
        >>> read_dense_tensors(path, 1, who="example")
        [array([1., 2.], dtype=float32)]
    """
    with open(path, "rb") as f:
        reader = _Reader(f.read())
    tensors = []
    for index in range(count):
        if reader.pos == len(reader.data):
            raise ValueError(f"{who}: {path} holds {index} tensors, but the program has {count} parameters; the "
                             "parameter file does not belong to this program, or it was cut short")
        start = reader.pos
        try:
            tensors.append(_one_tensor(reader))
        except _Damaged as e:
            raise ValueError(f"{who}: {path}: tensor {index} (at offset {start:,}): {e}; the file is damaged or "
                             "is not a PaddlePaddle parameter file") from None
    if reader.pos != len(reader.data):
        raise ValueError(f"{who}: {path} has {len(reader.data) - reader.pos:,} bytes after the program's {count} "
                         "parameters; the parameter file does not belong to this program")
    return tensors
