"""dtype promotion (docs/tensor.md, decided 2026-11-27) and broadcasting in the Tensor API."""
import warnings

import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn import tensor as T
from paddle_fn.core.errors import ShapeError



def t(v, dtype):
    return T.to_tensor(np.asarray(v, dtype=dtype))


@pytest.mark.parametrize("tensor_dtype, scalar, expected", [
    ("float32", 1, "float32"), ("float32", 1.5, "float32"), ("float64", 2, "float64"),
    ("int32", 1, "int32"), ("int32", 1.5, "float32"), ("int64", 2, "int64"),
    ("bool", 1, "int64"), ("bool", 1.5, "float32"), ("float16", 2.0, "float16"),
])
def test_tensor_with_python_scalar(tensor_dtype, scalar, expected):
    x = t([1, 0], tensor_dtype)
    for out in (x + scalar, scalar + x, x * scalar, scalar * x, x - scalar, scalar - x):
        assert out.dtype == expected
    np.testing.assert_allclose((x + scalar).numpy().astype(np.float64), np.asarray([1, 0], np.float64) + scalar,
                               rtol=1e-3)


def test_int_tensor_with_float_scalar_follows_the_default_dtype():
    pf.set_default_dtype("float64")
    try:
        assert (t([1, 2], "int32") * 0.5).dtype == "float64"
    finally:
        pf.set_default_dtype("float32")


def test_int_tensor_with_float_tensor_gives_the_float_dtype_in_either_order_without_a_warning():
    a, b = t([1.5, 2.5], "float32"), t([1, 2], "int32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ab, ba = a + b, b + a
    for out in (ab, ba):
        assert out.dtype == "float32"
        np.testing.assert_allclose(out.numpy(), [2.5, 4.5])  # Paddle 2.3's cast to the left gave int32 [2, 4]


@pytest.mark.parametrize("left, right, expected", [
    ("float16", "bfloat16", "float32"), ("float16", "float32", "float32"), ("bfloat16", "float64", "float64"),
    ("int32", "float16", "float16"), ("int64", "float32", "float32"), ("bool", "float32", "float32"),
    ("int32", "int64", "int64"), ("uint8", "int8", "int16"), ("uint8", "int32", "int32"), ("bool", "int32", "int32"),
    ("float64", "complex64", "complex128"), ("int64", "complex64", "complex64"),
])
def test_tensor_with_tensor_promotion_table(left, right, expected):
    from paddle_fn.core import dtypes
    a, b = dtypes.as_dtype(left), dtypes.as_dtype(right)
    assert dtypes.result_dtype_tensors(a, b) == expected and dtypes.result_dtype_tensors(b, a) == expected
    if "complex" not in expected:
        assert (t([1, 0], left) + t([1, 1], right)).dtype == expected


def test_same_dtype_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = t([1, 2], "int64") + t([3, 4], "int64")
    assert out.dtype == "int64"


def test_numpy_operand_is_a_tensor_operand():
    x = t([1.0, 2.0], "float32")
    out = np.array([1.0, 2.0], np.float32) + x
    assert isinstance(out, pf.Tensor) and out.dtype == "float32"
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0])


def test_true_division_of_integers_gives_default_float():
    out = t([327], "int64") / t([80], "int64")
    assert out.dtype == "float32" and out.shape == [1]
    np.testing.assert_allclose(out.numpy(), [4.0875], rtol=1e-6)
    assert (t([3], "int32") / 2).dtype == "float32"
    assert (7 / t([2], "int64")).numpy()[0] == pytest.approx(3.5)


def test_floor_division_and_python_mod_semantics():
    a = np.array([7, -7, 7, -7, 6], np.int64)
    b = np.array([2, 2, -2, -2, 3], np.int64)
    np.testing.assert_array_equal((t(a, "int64") // t(b, "int64")).numpy(), a // b)
    np.testing.assert_array_equal((t(a, "int64") % t(b, "int64")).numpy(), a % b)
    af, bf = a.astype(np.float64) + 0.5, b.astype(np.float64)
    np.testing.assert_allclose((t(af, "float64") // t(bf, "float64")).numpy(), af // bf)
    np.testing.assert_allclose((t(af, "float64") % t(bf, "float64")).numpy(), np.mod(af, bf))
    assert T.remainder is T.mod and T.floor_mod is T.mod
    np.testing.assert_array_equal((-7 % t([3], "int64")).numpy(), [2])


@pytest.mark.parametrize("xs, ys", [((2, 3, 1, 5), (3, 4, 1)), ((2, 1, 4), (3, 1)), ((3,), (2, 1)), ((), (2,))])
def test_broadcasting_follows_numpy(xs, ys):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=xs), rng.normal(size=ys)
    out = T.to_tensor(a) + T.to_tensor(b)
    assert out.shape == list(np.broadcast_shapes(xs, ys))
    np.testing.assert_allclose(out.numpy(), a + b)


def test_broadcast_mismatch_names_both_shapes():
    with pytest.raises(ShapeError, match=r"Broadcast dimension mismatch.*\[2, 3, 4\].*\[2, 3, 6\]"):
        T.ones([2, 3, 4]) + T.ones([2, 3, 6])


def test_comparisons_promote_and_return_bool():
    out = t([1, 2, 3], "int32") < 2.5
    assert out.dtype == "bool"
    np.testing.assert_array_equal(out.numpy(), [True, True, False])


def test_pow_with_int_exponent_keeps_dtype():
    x = t([2, 3], "int32")
    assert (x ** 2).dtype == "int32"
    np.testing.assert_array_equal((x ** 2).numpy(), [4, 9])
    assert (x ** 0.5).dtype == "float32"
    np.testing.assert_allclose((2 ** t([1.0, 3.0], "float32")).numpy(), [2.0, 8.0])
    np.testing.assert_array_equal((t([2, 3], "int64") ** t([3, 2], "int64")).numpy(), [8, 9])


def test_new_binary_functions_promote_like_add():
    i32 = t([4, 6], "int32")
    assert T.gcd(i32, 4).dtype == "int32" and T.lcm(i32, t([3, 4], "int32")).dtype == "int32"
    assert T.fmax(i32, 1.5).dtype == "float32"  # an int Tensor with a float scalar: the default float dtype
    assert T.fmin(t([1.0], "float16"), 2.0).dtype == "float16"
    assert T.fmax(t([1.0], "float32"), t([1.0], "float64")).dtype == "float64"
    assert T.rad2deg(i32).dtype == "float32" and T.logit(t([0.5], "float64")).dtype == "float64"
    assert T.kron(t([[1]], "int64"), t([[2, 3]], "int64")).dtype == "int64"
    assert T.nansum(t([1, 2], "int32")).dtype == "int64"  # sum's rule: int32 accumulates in int64
    assert T.count_nonzero(t([1.5, 0.0], "float32")).dtype == "int64"
    assert T.median(t([1, 2], "int32")).dtype == "float32" and T.median(t([1.0], "float64")).dtype == "float64"
    with pytest.raises(ShapeError, match="Broadcast dimension mismatch"):
        T.fmax(T.ones([2, 3]), T.ones([4]))
