"""``paddle.base.data_feeder``: the dtype names and argument checks Paddle's operator code calls.

Paddle runs `check_type`, `check_dtype`, `check_variable_and_dtype` and `check_shape` when it builds a static
program (and under ``to_static``), and skips them in dynamic mode for speed. paddle_fn has one mode, in which a
Tensor is Paddle's ``Variable`` and ``Value`` at once, so the checks always run and accept a Tensor (or a traced
value) wherever those are expected: valid Paddle calls pass, wrong types and dtypes get Paddle's TypeError.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor

__all__ = ["check_dtype", "check_shape", "check_type", "check_variable_and_dtype", "convert_dtype",
           "convert_float_to_uint16", "convert_uint16_to_float"]

_NAMES = ("bool", "float16", "uint16", "uint32", "uint64", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "complex64", "complex128")


def convert_dtype(dtype) -> str:
    """The name Paddle's operator checks use for a dtype (a paddle dtype, numpy dtype or type, or a name);
    bfloat16 is ``'uint16'``, as Paddle stores it.

    Example:
        >>> import numpy as np
        >>> import paddle_fn as paddle
        >>> from paddle_fn.base.data_feeder import convert_dtype
        >>> convert_dtype(paddle.float32), convert_dtype(np.int64), convert_dtype("bfloat16")
        ('float32', 'int64', 'uint16')
    """
    if isinstance(dtype, str) and dtype in _NAMES:
        return dtype
    try:
        name = dtypes.as_dtype(dtype).name
    except TypeError:
        name = None
    if name == "bfloat16":
        return "uint16"
    if name in _NAMES:
        return name
    raise TypeError(f"dtype must be any of [bool, float16, uint16, float32, float64, int8, int16, int32, int64, "
                    f"uint8, complex64, complex128, bfloat16], but received {dtype}")


def _with_tensor(expected_type):
    """`expected_type` as a tuple that also admits Tensors where Paddle's Variable or Value is expected."""
    expected = expected_type if isinstance(expected_type, tuple) else (expected_type,)
    names = {getattr(t, "__name__", "") for t in expected}
    return expected + (Tensor,) if names & {"Variable", "Value", "Tensor"} else expected


def check_type(input, input_name, expected_type, op_name, extra_message=""):  # noqa: A002 - Paddle's names
    """Raise TypeError unless `input` is an instance of `expected_type` (a Tensor counts as Paddle's Variable).

    Example:
        >>> from paddle_fn.base.data_feeder import check_type
        >>> check_type([1, 2], "shape", (list, tuple), "reshape")
        >>> check_type(3, "shape", (list, tuple), "reshape")
        Traceback (most recent call last):
        ...
        TypeError: The type of 'shape' in reshape must be (<class 'list'>, <class 'tuple'>), but received <class 'int'>.
    """
    if not isinstance(input, _with_tensor(expected_type)):
        raise TypeError(f"The type of '{input_name}' in {op_name} must be {expected_type}, but received "
                        f"{type(input)}." + (f" {extra_message}" if extra_message else ""))


def check_dtype(input_dtype, input_name, expected_dtype, op_name, extra_message=""):
    """Raise TypeError unless `input_dtype`'s name (`convert_dtype`) is one of `expected_dtype`.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.base.data_feeder import check_dtype
        >>> check_dtype(paddle.float32, "x", ["float32", "float64"], "relu")
    """
    name = convert_dtype(input_dtype)
    if name not in expected_dtype:
        raise TypeError(f"The data type of '{input_name}' in {op_name} must be {expected_dtype}, but received "
                        f"{name}." + (f" {extra_message}" if extra_message else ""))


def check_variable_and_dtype(input, input_name, expected_dtype, op_name, extra_message=""):  # noqa: A002
    """`check_type` for a Tensor, then `check_dtype` of its dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.base.data_feeder import check_variable_and_dtype
        >>> check_variable_and_dtype(paddle.ones([2], "int32"), "x", ["float32"], "softmax")
        Traceback (most recent call last):
        ...
        TypeError: The data type of 'x' in softmax must be ['float32'], but received int32.
    """
    check_type(input, input_name, Tensor, op_name, extra_message)
    check_dtype(input.dtype, input_name, expected_dtype, op_name, extra_message)


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Tensor), expected_element_type=(int, Tensor),
                expected_tensor_dtype=("int32", "int64")):
    """Check a shape argument: a list/tuple of ints or integer Tensors, or an integer Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.base.data_feeder import check_shape
        >>> check_shape([2, paddle.to_tensor(3)], "full")
        >>> check_shape([2, 3.5], "full")
        Traceback (most recent call last):
        ...
        TypeError: The type of 'element of shape' in full must be (<class 'int'>, <class 'paddle_fn.core.trace.Tensor'>), but received <class 'float'>.
    """
    check_type(shape, "shape", expected_shape_type, op_name)
    if isinstance(shape, Tensor):
        if expected_tensor_dtype is not None:
            check_dtype(shape.dtype, "shape", expected_tensor_dtype, op_name)
        return
    for item in shape if expected_element_type is not None else ():
        check_type(item, "element of shape", expected_element_type, op_name)
        if expected_tensor_dtype is not None and isinstance(item, Tensor):
            check_dtype(item.dtype, "element of shape", expected_tensor_dtype, op_name,
                        f"If element of shape is Tensor, its data type should be {', '.join(expected_tensor_dtype)}")


def convert_float_to_uint16(data, data_format="NCHW"):
    """float32 values as the uint16 bit patterns of their bfloat16 rounding (how Paddle stores bfloat16); with
    ``data_format='NHWC'`` a 4-D array is transposed from NCHW first, as Paddle's does.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.base.data_feeder import convert_float_to_uint16, convert_uint16_to_float
        >>> bits = convert_float_to_uint16(np.array([1.0, 0.1], np.float32))
        >>> bits, convert_uint16_to_float(bits)
        (array([16256, 15821], dtype=uint16), array([1.        , 0.10009766], dtype=float32))
    """
    data = np.asarray(data, np.float32)
    if data_format == "NHWC" and data.ndim == 4:
        data = np.transpose(data, (0, 2, 3, 1))
    return data.astype(ml_dtypes.bfloat16).view(np.uint16)


def convert_uint16_to_float(data):
    """uint16 bfloat16 bit patterns back to float32 values (the inverse of `convert_float_to_uint16`)."""
    return np.asarray(data, np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)
