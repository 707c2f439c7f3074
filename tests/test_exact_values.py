"""Python values keep their exact value in every dtype: every path that turns a Python number into a Tensor
equals numpy's own conversion of that number, bit for bit (property tests over values and dtypes)."""
import warnings

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


def test_tensor_with_python_scalar_eagerly_equals_the_staged_program():
    # eagerly the scalar is filled to the Tensor's shape directly, under jit it is a broadcast constant in the
    # program: the same rounding, dtype and values either way (the ops here are exact in every dtype); one program
    # for every case keeps it to one compile
    xs = [paddle.to_tensor(np.arange(4, 8)).astype(dt) for dt in ("float16", "bfloat16", "float64", "int8", "uint8")]
    ops = [op for s in (3, 0.1, True, -0.0) for op in (lambda x, s=s: x * s, lambda x, s=s: s - x,
                                                      lambda x, s=s: x > s)]

    def every_case(*xs):
        return [op(x) for x in xs for op in ops]
    assert (xs[-1] * 0.1).dtype == "float32"  # a float scalar promotes an integer Tensor to the default float
    for eager, staged in zip(every_case(*xs), paddle.jit(every_case)(*xs)):
        assert eager.dtype == staged.dtype and eager.shape == staged.shape == [4]
        np.testing.assert_array_equal(eager.numpy(), staged.numpy())
        assert np.signbit(eager.numpy()).tolist() == np.signbit(staged.numpy()).tolist()


def test_tensor_with_python_scalar_out_of_the_dtypes_range():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a float beyond the range becomes inf silently, as in Paddle
        assert np.isinf((paddle.ones([2], dtype="float16") * 1e5).numpy()).all()
        assert np.isinf((paddle.ones([2], dtype="float32") + 1e300).numpy()).all()
        assert np.isinf(paddle.full([2], -1e39, "bfloat16").numpy().astype(np.float32)).all()
    with pytest.raises(OverflowError, match="128"):
        paddle.ones([2], dtype="int8") + 128
    with pytest.raises(OverflowError):
        paddle.ones([2], dtype="uint8") * -1
    assert (paddle.ones([2], dtype="int8") + 126).numpy().tolist() == [127, 127]
