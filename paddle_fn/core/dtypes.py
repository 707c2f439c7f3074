"""dtype objects, the default float dtype, and Paddle's promotion rules.

A `DType` compares equal to its Paddle name (``'float32'``), to ``'paddle.float32'`` and to the matching
numpy dtype, so user code may pass any of the three wherever a dtype is expected.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np


class DType:
    __slots__ = ("name", "np", "kind", "bits")

    def __init__(self, name: str, np_dtype, kind: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind  # 'b' bool, 'i' signed int, 'u' unsigned int, 'f' float, 'c' complex
        self.bits = 8 if kind == "b" else self.np.itemsize * 8

    def __repr__(self):
        return f"paddle.{self.name}"

    __str__ = __repr__

    def __hash__(self):
        return hash(self.name)

    def __eq__(self, other):
        if other is self:  # dtypes are module-level singletons: the common case
            return True
        if isinstance(other, DType):
            return self.name == other.name
        if isinstance(other, str):
            return other in (self.name, f"paddle.{self.name}")
        try:
            return as_dtype(other) is self
        except (TypeError, ValueError):
            return False

    def __reduce__(self):
        return (as_dtype, (self.name,))

    @property
    def is_floating_point(self) -> bool:
        return self.kind == "f"

    @property
    def is_integer(self) -> bool:
        return self.kind in "iu"


bool_ = DType("bool", np.bool_, "b")
int8 = DType("int8", np.int8, "i")
int16 = DType("int16", np.int16, "i")
int32 = DType("int32", np.int32, "i")
int64 = DType("int64", np.int64, "i")
uint8 = DType("uint8", np.uint8, "u")
uint32 = DType("uint32", np.uint32, "u")  # internal: random bits
float16 = DType("float16", np.float16, "f")
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "f")
float32 = DType("float32", np.float32, "f")
float64 = DType("float64", np.float64, "f")
complex64 = DType("complex64", np.complex64, "c")
complex128 = DType("complex128", np.complex128, "c")

ALL_DTYPES = (bool_, int8, int16, int32, int64, uint8, uint32, float16, bfloat16, float32, float64, complex64,
              complex128)
FLOAT_DTYPES = (float16, bfloat16, float32, float64)
INT_DTYPES = (int8, int16, int32, int64, uint8, uint32)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NP = {d.np: d for d in ALL_DTYPES}
_PY_TYPES = {bool: bool_, int: int64, float: None, complex: None}  # float, complex -> the defaults


def as_dtype(x) -> DType:
    """Turn a dtype-like (DType, name, numpy dtype, Python type) into a `DType`."""
    if isinstance(x, DType):
        return x
    if isinstance(x, np.dtype):
        found = _BY_NP.get(x)
        if found is not None:
            return found
    if isinstance(x, str):
        name = x[len("paddle."):] if x.startswith("paddle.") else x
        if name in _BY_NAME:
            return _BY_NAME[name]
        if name == "bool_":
            return bool_
        raise TypeError(f"unknown dtype {x!r}; expected one of {sorted(_BY_NAME)}")
    if x in _PY_TYPES:
        return _PY_TYPES[x] or (default_complex_dtype() if x is complex else default_float_dtype())
    try:
        npd = np.dtype(x)
    except TypeError:
        raise TypeError(f"cannot interpret {x!r} as a paddle_fn dtype") from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(f"dtype {npd} is not supported by paddle_fn; supported: {sorted(_BY_NAME)}")


_default_float = [float32]


def default_float_dtype() -> DType:
    return _default_float[0]


def default_complex_dtype() -> DType:
    """Paddle's default complex dtype follows the default float dtype: complex128 for float64, else complex64."""
    return complex128 if _default_float[0] == float64 else complex64


def set_default_dtype(d) -> None:
    """Set the dtype Python floats and float creation functions default to ('float32' or 'float64').

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.set_default_dtype('float64'); paddle.to_tensor(1.0).dtype
        paddle.float64
        >>> paddle.set_default_dtype('float32')
    """
    d = as_dtype(d)
    if d.kind != "f":
        raise TypeError(f"set_default_dtype: the default dtype must be a float dtype, got {d}")
    _default_float[0] = d


def get_default_dtype() -> str:
    """Return the name of the default float dtype, e.g. ``'float32'``."""
    return _default_float[0].name


def dtype_of_scalar(x) -> DType:
    if isinstance(x, (bool, np.bool_)):
        return bool_
    if isinstance(x, (int, np.integer)):
        return int64
    if isinstance(x, (float, np.floating)):
        return default_float_dtype()
    if isinstance(x, (complex, np.complexfloating)):
        return default_complex_dtype()
    raise TypeError(f"{type(x).__name__} is not a Python scalar")


def result_dtype_with_scalar(tensor_dtype: DType, scalar) -> DType:
    """Paddle's Tensor-with-Python-scalar rule: the Tensor's dtype wins unless the scalar is of a higher kind.

    float Tensor op int/float scalar -> the Tensor's dtype; int Tensor op int scalar -> the Tensor's dtype;
    int or bool Tensor op float scalar -> the default float dtype; bool Tensor op int scalar -> int64; a real Tensor
    op a complex scalar -> complex128 for float64, else the default complex dtype.
    """
    sdt = dtype_of_scalar(scalar)
    if sdt.kind == "c" and tensor_dtype.kind != "c":
        return complex128 if tensor_dtype == float64 else sdt  # complex of the float's width, as between Tensors
    if _KIND_ORDER[sdt.kind] > _KIND_ORDER[tensor_dtype.kind]:
        return sdt
    return tensor_dtype


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # a scalar of a higher kind than the Tensor's promotes it


def result_dtype_tensors(a: DType, b: DType) -> DType:
    """The dtype two Tensors of dtypes `a` and `b` promote to (decided 2026-11-27, docs/tensor.md).

    bool < integer < floating < complex: the operand of the lower kind converts to the other's dtype (int32 with
    float16 gives float16, float64 with complex64 gives complex128). Within a kind the wider dtype wins, except
    that float16 with bfloat16 gives float32 (Paddle 3.3's table) and a signed with an unsigned integer gives a
    signed dtype that holds both (uint8 with int8 gives int16).
    """
    if a is b or a == b:
        return a
    if a.kind != b.kind and "c" in (a.kind, b.kind):
        c, r = (a, b) if a.kind == "c" else (b, a)
        return complex128 if r.kind == "f" and r.bits == 64 else c
    if _KIND_ORDER[a.kind] != _KIND_ORDER[b.kind]:
        return a if _KIND_ORDER[a.kind] > _KIND_ORDER[b.kind] else b
    if a.kind == b.kind:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.bits > b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)  # signed with unsigned
    return s if s.bits > u.bits else _SIGNED_BY_BITS[min(2 * u.bits, 64)]


_SIGNED_BY_BITS = {16: int16, 32: int32, 64: int64}


def finfo(d):
    d = as_dtype(d)
    return ml_dtypes.finfo(d.np) if d.kind == "f" else np.iinfo(d.np)
