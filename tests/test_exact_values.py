"""Python values keep their exact value in every dtype: every path that turns a Python number into a Tensor
equals numpy's own conversion of that number, bit for bit (property tests over values and dtypes)."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paddle_fn as paddle

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8"]


def _numpy_array(value, dtype):
    with np.errstate(over="ignore"):  # numpy's conversion, overflowing to inf as the library does
        return np.array([value], dtype=_np(dtype))


def _np(dtype):
    return ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)


def _same(tensor, expected):
    got = tensor.numpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    # compare bit patterns, so -0.0 vs 0.0 and NaN payloads count too
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes(), (got, expected)


def _value_and_dtype():
    floats = st.tuples(st.floats(allow_nan=False, width=64), st.sampled_from(FLOAT_DTYPES))
    ints = st.sampled_from(INT_DTYPES).flatmap(
        lambda d: st.tuples(st.integers(int(np.iinfo(d).min), int(np.iinfo(d).max)), st.just(d)))
    return st.one_of(floats, ints)


@given(_value_and_dtype())
def test_creation_paths_equal_numpy_conversion(case):
    value, dtype = case
    expected = _numpy_array(value, dtype)
    _same(paddle.to_tensor([value], dtype=dtype), expected)
    _same(paddle.to_tensor(value, dtype=dtype), expected.reshape(()))
    _same(paddle.full([1], value, dtype=dtype), expected)
    _same(paddle.full_like(paddle.zeros([1], dtype=dtype), value), expected)
    _same(paddle.assign(expected), expected)


@given(_value_and_dtype())
def test_updates_equal_numpy_conversion(case):
    value, dtype = case
    expected = _numpy_array(value, dtype)
    x = paddle.zeros([1], dtype=dtype)
    x[0] = value
    _same(x, expected)
    y = paddle.ones([1], dtype=dtype)
    y.set_value([value])
    _same(y, expected)
    _same(paddle.zeros([1], dtype=dtype).at[0].set(value), expected)


@given(st.floats(allow_nan=False, width=64), st.sampled_from(FLOAT_DTYPES))
def test_scalar_operands_and_astype_round_once(value, dtype):
    expected = _numpy_array(value, dtype)
    # 0 + v is exact in every float dtype once v is in it; -0.0 + 0.0 is +0.0 in IEEE arithmetic
    _same(paddle.zeros([1], dtype=dtype) + value, expected + np.zeros(1, _np(dtype)))
    with np.errstate(over="ignore"):
        _same(paddle.to_tensor([value], dtype="float64").astype(dtype), np.array([value]).astype(_np(dtype)))


def test_python_floats_are_not_rounded_through_float32():
    assert paddle.to_tensor([1.1], dtype="float64").item() == 1.1
    assert (paddle.to_tensor([1.1, 2.2, 3.3], dtype="float64").sum().item()
            == np.array([1.1, 2.2, 3.3]).sum())
    assert paddle.full([2], 0.1, dtype="float64").numpy().tolist() == [0.1, 0.1]
    x = paddle.zeros([2], dtype="float64")
    x[1] = 0.1
    assert x.numpy().tolist() == [0.0, 0.1]
    assert (paddle.ones([1], dtype="float64") * 0.1).item() == 0.1
    assert paddle.clip(paddle.zeros([1], dtype="float64"), min=0.1).item() == 0.1


def test_default_dtypes_of_python_values():
    assert paddle.to_tensor(1.5).dtype == "float32" and paddle.to_tensor([1, 2]).dtype == "int64"
    assert paddle.to_tensor([True]).dtype == "bool"
    assert paddle.to_tensor([1 + 1j]).dtype == "complex64"
    assert paddle.to_tensor(np.array([1.5])).dtype == "float64"  # numpy arrays keep their dtype
    paddle.set_default_dtype("float64")
    try:
        assert paddle.to_tensor(1.1).item() == 1.1
        assert paddle.to_tensor([1 + 1j]).dtype == "complex128"
    finally:
        paddle.set_default_dtype("float32")


def test_out_of_range_ints_are_an_error_not_a_wraparound():
    with pytest.raises(OverflowError, match="300"):
        paddle.to_tensor([300], dtype="int8")
    with pytest.raises(OverflowError):
        paddle.to_tensor(2 ** 64, dtype="int64")


def test_jit_keeps_float64_constants_exact():
    f = paddle.jit(lambda x: x + 0.1)
    assert f(paddle.zeros([2], dtype="float64")).numpy().tolist() == [0.1, 0.1]
    g = paddle.jit(lambda x: x * (1 / 3))
    assert g(paddle.ones([1], dtype="float64")).item() == 1 / 3
