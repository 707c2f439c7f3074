"""Inputs that used to give a silently wrong answer now give the right one or raise.

Each test names the old outcome it guards against. Value checks (division by zero, singular matrices, labels)
are eager-only: under jit the values are unknown and the compiled result is returned unchecked.
"""
import warnings

import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F
from paddle_fn.core.errors import DTypeError, ShapeError


def no_warnings(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn()


# ---------------------------------------------------------------------------------------------- promotion

def test_int_tensor_times_float_tensor_is_float():  # was int32 [0 2] with a cast-to-the-left warning
    i, f = paddle.to_tensor([1, 2], "int32"), paddle.to_tensor([0.5, 1.5])
    for out in no_warnings(lambda: (i * f, f * i)):
        assert out.dtype == paddle.float32
        np.testing.assert_allclose(out.numpy(), [0.5, 3.0])


def test_int_tensor_times_python_float_is_float32_as_paddle_3():
    out = paddle.to_tensor([1, 2], "int32") * 2.5
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [2.5, 5.0])


def test_float16_with_bfloat16_is_float32():  # was float16
    out = no_warnings(lambda: paddle.ones([2], "float16") + paddle.ones([2], "bfloat16"))
    assert out.dtype == paddle.float32


def test_float32_with_float64_keeps_float64_precision():  # was float32 when float32 was on the left
    out = no_warnings(lambda: paddle.to_tensor([1.0], "float32") + paddle.to_tensor([1e-12], "float64"))
    assert out.dtype == paddle.float64 and out.numpy()[0] != 1.0


def test_comparison_of_int_and_float_compares_the_float_values():  # was [False False]: 0.5 -> 0, 1.5 -> 1
    out = no_warnings(lambda: paddle.to_tensor([1, 2], "int32") < paddle.to_tensor([1.5, 1.5]))
    np.testing.assert_array_equal(out.numpy(), [True, False])


def test_where_of_int_and_float_is_float():  # was int32 [1 1]
    out = no_warnings(lambda: paddle.where(paddle.to_tensor([True, False]), paddle.to_tensor([1, 2], "int32"),
                                           paddle.to_tensor([0.5, 1.5])))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [1.0, 1.5])


def test_concat_and_stack_of_int_and_float_are_float():  # were int32 [1 2 0 1]
    i, f = paddle.to_tensor([1, 2], "int32"), paddle.to_tensor([0.5, 1.5])
    cat = no_warnings(lambda: paddle.concat([i, f]))
    assert cat.dtype == paddle.float32
    np.testing.assert_allclose(cat.numpy(), [1, 2, 0.5, 1.5])
    stacked = no_warnings(lambda: paddle.stack([i, f]))
    assert stacked.dtype == paddle.float32
    np.testing.assert_allclose(stacked.numpy(), [[1, 2], [0.5, 1.5]])


def test_matmul_of_int_and_float_is_float():  # was int32 [[2]] with "right operand is cast to int32"
    out = no_warnings(lambda: paddle.matmul(paddle.to_tensor([[1, 2]], "int32"), paddle.to_tensor([[0.5], [1.5]])))
    assert out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy(), [[3.5]])


def test_searchsorted_of_float_values_in_an_int_sequence():  # 1.5 was truncated to 1 before the search
    out = paddle.searchsorted(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([1.5]))
    np.testing.assert_array_equal(out.numpy(), [1])


# ---------------------------------------------------------------------------------------------- raise

@pytest.mark.parametrize("op", [lambda x, y: x // y, paddle.floor_divide, lambda x, y: x % y, paddle.remainder,
                                paddle.mod])
def test_integer_division_by_zero_raises(op):  # // gave -1, % gave x
    with pytest.raises(ZeroDivisionError, match=r"integer division by zero.*int64.*index \[1\]"):
        op(paddle.to_tensor([7, 1]), paddle.to_tensor([2, 0]))
    with pytest.raises(ZeroDivisionError):
        op(paddle.to_tensor([7, 1]), 0)
    np.testing.assert_array_equal(op(paddle.to_tensor([7, -7]), 2).numpy(), np.asarray(op(np.array([7, -7]), 2)))


def test_integer_division_by_zero_under_jit_keeps_the_compiled_value():
    out = paddle.jit(lambda x, y: x // y)(paddle.to_tensor([1]), paddle.to_tensor([0]))
    np.testing.assert_array_equal(out.numpy(), [-1])


def test_float_division_by_zero_is_still_inf():
    np.testing.assert_array_equal((paddle.to_tensor([1.0]) // paddle.to_tensor([0.0])).numpy(), [np.inf])


@pytest.mark.parametrize("op", ["max", "min", "amax", "amin", "argmax", "argmin"])
def test_extreme_of_an_empty_tensor_raises(op):  # max/min gave -inf/inf
    with pytest.raises(ShapeError, match=rf"{op}: .*\[0\]"):
        getattr(paddle, op)(paddle.zeros([0]))
    with pytest.raises(ValueError, match=r"\[2, 0\]"):
        getattr(paddle, op)(paddle.zeros([2, 0]), axis=1)


def test_max_over_a_non_empty_axis_of_an_empty_tensor_is_empty():
    assert paddle.max(paddle.zeros([2, 0]), axis=0).shape == [0]


@pytest.mark.parametrize("label", [3, -1])
def test_one_hot_out_of_range_label_raises(label):  # gave a row of zeros
    with pytest.raises(ValueError, match=rf"label {label} is out of range for num_classes=3"):
        F.one_hot(paddle.to_tensor([1, label]), 3)


def test_cholesky_of_an_indefinite_matrix_raises():  # gave nan
    with pytest.raises(np.linalg.LinAlgError, match="cholesky.*not positive definite"):
        paddle.linalg.cholesky(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(np.linalg.LinAlgError, match=r"batch index \[1\]"):
        paddle.linalg.cholesky(paddle.to_tensor([[[4.0, 0.0], [0.0, 4.0]], [[1.0, 2.0], [2.0, 1.0]]]))


@pytest.mark.parametrize("op", [lambda a: paddle.linalg.inv(a), lambda a: paddle.inverse(a),
                                lambda a: paddle.linalg.solve(a, paddle.to_tensor([[1.0], [1.0]]))])
def test_inv_and_solve_of_a_singular_matrix_raise(op):  # gave inf
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        op(paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]]))


# ---------------------------------------------------------------------------------------------- complex

@pytest.mark.parametrize("name", ["sin", "cos", "exp", "log", "sqrt", "tanh"])
def test_complex_functions_keep_the_imaginary_part(name):  # sin(3+4j) gave sin(3); exp(i*pi) gave 1.0
    np.testing.assert_allclose(getattr(paddle, name)(paddle.to_tensor(3 + 4j)).numpy(),
                               getattr(np, name)(np.complex64(3 + 4j)), rtol=1e-6)


@pytest.mark.parametrize("name", ["floor", "trunc", "relu"])
def test_real_only_ops_reject_complex_input(name):
    with pytest.raises(DTypeError, match=f"complex numbers are not supported by {name}"):
        getattr(paddle, name)(paddle.to_tensor(3 + 4j))


def test_complex_with_float_tensor_does_not_drop_the_imaginary_part():  # float + complex gave float32 4.0
    c, f = paddle.to_tensor(3 + 4j), paddle.to_tensor(1.0)
    for fn in (lambda: f + c, lambda: c + f):
        out = fn()
        assert out.dtype == paddle.complex64 and out.item() == 4 + 4j


def test_explicit_cast_of_complex_keeps_the_real_part_silently_as_paddle():
    c = paddle.to_tensor([3 + 4j])
    for out in no_warnings(lambda: (paddle.cast(c, "float32"), c.astype("float32"))):
        assert out.dtype == paddle.float32
        np.testing.assert_array_equal(out.numpy(), [3.0])


def test_ops_that_handle_complex_keep_working():
    c = paddle.to_tensor([3 + 4j, 1 - 2j])
    np.testing.assert_array_equal(paddle.sum(c).numpy(), 4 + 2j)
    np.testing.assert_array_equal((c == c).numpy(), [True, True])
    np.testing.assert_array_equal(paddle.reshape(c, [2, 1]).numpy(), [[3 + 4j], [1 - 2j]])
