"""Checked mode: runtime checks compiled into jit programs, reported with the user's line."""
import inspect

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.config import canonical_checks, global_checks
from paddle_fn.core.errors import CheckError, IndexCheckError
from paddle_fn.core.ir import pp_program


def _line_of(fragment, fun) -> int:
    """The line number in this file of the line of `fun`'s source holding `fragment`."""
    lines, first = inspect.getsourcelines(fun)
    return first + next(i for i, line in enumerate(lines) if fragment in line)


def take_two(x, i):
    return x[i] * 2.0


def log_plus_one(x):
    return paddle.log(x) + 1.0


@pytest.fixture
def unchecked():
    """Leaves the global settings as they were (unchecked) whatever a test sets."""
    yield
    paddle.set_flags({"FLAGS_check_nan_inf": False})
    paddle.config.update("checks", None)


def test_out_of_range_gather_raises_naming_the_op_and_the_line():
    x, i = paddle.arange(5, dtype="float32"), paddle.to_tensor([1, 7])
    with pytest.raises(IndexCheckError) as info:
        paddle.jit(take_two, checks="index")(x, i)
    message = str(info.value)
    assert "index check failed in gather" in message
    assert f"{__file__}:{_line_of('x[i]', take_two)} (in take_two)" in message
    assert "1 of the 2 start indices along axis 0" in message and "[0, 4]" in message
    assert isinstance(info.value, IndexError)  # as the eager IndexError
    np.testing.assert_array_equal(paddle.jit(take_two, checks="index")(x, paddle.to_tensor([1, 4])).numpy(), [2, 8])


def test_unchecked_default_is_unchanged_and_has_no_check_code():
    x, i = paddle.arange(5, dtype="float32"), paddle.to_tensor([1, 7])
    assert global_checks.kinds == ()
    plain = paddle.jit(take_two)
    out = plain(x, i)  # no error: the start is clamped (the documented unchecked default)
    assert out.shape == [2]
    text, checked_text = plain.lower(x, i).as_text(), paddle.jit(take_two, checks="all").lower(x, i).as_text()
    check_outputs = "tensor<i32>, tensor<i32>, tensor<i64>)"  # the checked program's extra results
    assert check_outputs in checked_text and check_outputs not in text and "is_finite" not in text


def test_log_of_negative_raises_nan_check():
    with pytest.raises(CheckError, match=r"nan check failed in log at .*test_checked_mode.py:\d+ \(in log_plus_one\): "
                                         r"log produced 1 NaN or Inf values"):
        paddle.jit(log_plus_one, checks="nan")(paddle.to_tensor([1.0, -1.0]))
    np.testing.assert_allclose(paddle.jit(log_plus_one, checks="nan")(paddle.to_tensor([1.0])).numpy(), [1.0])


def test_nan_check_skips_values_that_were_already_not_finite():
    # -inf masks (full(-inf), where with -inf) are made from non-finite constants: not this op's NaN
    def masked(x):
        return paddle.where(x > 0, x, paddle.full([2], float("-inf"))) + 1.0
    out = paddle.jit(masked, checks="nan")(paddle.to_tensor([1.0, -1.0]))
    np.testing.assert_array_equal(out.numpy(), [2.0, -np.inf])


def test_flag_and_config_switch_on_checks_and_the_cache_follows(unchecked):
    f = paddle.jit(log_plus_one)
    x = paddle.to_tensor([-1.0])
    assert np.isnan(f(x).numpy()).all()  # unchecked: compiled as before
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    assert paddle.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
    with pytest.raises(CheckError, match="in log at"):
        f(x)
    paddle.set_flags({"FLAGS_check_nan_inf": False})
    assert np.isnan(f(x).numpy()).all()  # the unchecked executable again, not the checked one
    paddle.config.update("checks", "index")
    assert np.isnan(f(x).numpy()).all()  # index checks only: the NaN passes
    paddle.config.update("checks", "nan,index")
    with pytest.raises(CheckError):
        f(x)
    assert len(f._cache) == 4  # one per check setting: none, all (the flag), index, index+nan
    # jit's own checks win over the global setting
    assert np.isnan(paddle.jit(log_plus_one, checks=())(x).numpy()).all()


def test_eager_nan_check_under_the_flag(unchecked):
    x = paddle.to_tensor([-1.0, 2.0])
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    with pytest.raises(CheckError, match=r"log produced NaN or Inf \(num_nan=1, num_inf=0 of 2\) from finite inputs, "
                                         r"at .*test_checked_mode.py"):
        paddle.log(x)
    np.testing.assert_array_equal(paddle.exp(paddle.to_tensor([-np.inf])).numpy(), [0.0])  # inf in: not flagged
    paddle.set_flags({"FLAGS_check_nan_inf": False})
    assert np.isnan(paddle.log(x).numpy()[0])


def test_vmap_and_grad_inside_a_checked_jit():
    def per_row(row, i):
        return paddle.sum(row[i] ** 2)

    f = paddle.jit(paddle.vmap(paddle.grad(per_row)), checks="all")
    x = paddle.ones([2, 3])
    good = f(x, paddle.to_tensor([[0], [2]]))
    np.testing.assert_array_equal(good.numpy(), [[2, 0, 0], [0, 0, 2]])
    with pytest.raises(IndexCheckError, match=f"in gather at {__file__}:{_line_of('row[i]', per_row)}"):
        f(x, paddle.to_tensor([[0], [3]]))


def test_grad_of_checked_jit_checks_the_backward_program():
    f = paddle.jit(lambda x: paddle.sum(paddle.sqrt(x)), checks="nan")
    np.testing.assert_allclose(paddle.grad(f)(paddle.to_tensor([4.0])).numpy(), [0.25])
    with pytest.raises(CheckError, match="div produced 1 NaN or Inf"):  # d sqrt at 0 is inf
        paddle.grad(f)(paddle.to_tensor([0.0, 1.0]))


def test_inner_jit_checks_apply_inside_an_unchecked_jit():
    inner = paddle.jit(log_plus_one, checks="nan")
    outer = paddle.jit(lambda x: inner(x) * 2.0)
    with pytest.raises(CheckError, match="in log at"):
        outer(paddle.to_tensor([-1.0]))


def test_dynamic_slice_integer_division_and_linalg_checks():
    from paddle_fn.prims.slicing import dynamic_slice

    def window(x, i):
        return dynamic_slice(x, i, slice_sizes=(2,))
    f = paddle.jit(window, checks="index")
    np.testing.assert_array_equal(f(paddle.arange(4), paddle.to_tensor(2)).numpy(), [2, 3])
    with pytest.raises(IndexCheckError, match=r"dynamic_slice: start index 3 along axis 0 .* must lie in \[0, 2\]"):
        f(paddle.arange(4), paddle.to_tensor(3))
    with pytest.raises(CheckError, match="div check failed in div .* 1 of the 2 divisors"):
        paddle.jit(lambda a, b: paddle.floor_divide(a, b), checks="div")(paddle.to_tensor([1, 2]),
                                                                          paddle.to_tensor([1, 0]))
    with pytest.raises(CheckError, match="linalg check failed in cholesky .* not positive definite"):
        paddle.jit(paddle.linalg.cholesky, checks="linalg")(paddle.to_tensor([[1.0, 2.0], [2.0, 1.0]]))


def test_check_kinds_are_validated():
    assert canonical_checks("nan, index") == ("index", "nan")
    with pytest.raises(ValueError, match="unknown runtime check 'bounds'"):
        paddle.jit(take_two, checks="bounds")
    with pytest.raises(ValueError, match="unknown runtime check"):
        paddle.config.update("checks", ["nan", "overflow"])


def test_equations_keep_the_user_line_through_transforms():
    def f(x):
        return paddle.sin(x) * 2.0
    line = _line_of("paddle.sin", f)
    for traced in (paddle.make_ir(f)(paddle.ones([3])),
                   paddle.make_ir(paddle.grad(lambda x: paddle.sum(f(x))))(paddle.ones([3])),
                   paddle.make_ir(paddle.vmap(paddle.jit(f)))(paddle.ones([2, 3]))):
        assert f"test_checked_mode.py:{line} (in f)" in traced.pretty_print(source_info=True)
    jitted = paddle.jit(f).lower(paddle.ones([3])).program  # the program jit compiles, and its sub-programs
    assert f"test_checked_mode.py:{line} (in f)" in pp_program(jitted, source=True)
    assert "test_checked_mode.py" not in str(paddle.make_ir(f)(paddle.ones([3])))  # printed only when asked


def test_checks_inside_loops_and_branches():
    x = paddle.to_tensor([1.0, 2.0, 3.0])

    def summed(idx):
        def body(i, acc):
            return acc + x[idx[i]]
        return paddle.fori_loop(0, 3, body, paddle.zeros([]))

    def logs(values):
        def step(carry, v):
            return carry + paddle.log(v), v
        return paddle.scan(step, paddle.zeros([]), values)[0]

    def branch(v, p):
        return paddle.cond(p > 0, lambda: paddle.log(v), lambda: v * 2.0)

    assert paddle.jit(summed, checks="index")(paddle.to_tensor([0, 1, 2])).item() == 6.0
    with pytest.raises(IndexCheckError, match=f"in gather at {__file__}:{_line_of('x[idx[i]]', summed)} "
                                              r"\(in body\)"):
        paddle.jit(summed, checks="index")(paddle.to_tensor([0, 5, 2]))
    np.testing.assert_allclose(paddle.jit(logs, checks="nan")(paddle.to_tensor([1.0, 2.0])).item(), np.log(2.0))
    with pytest.raises(CheckError, match=f"in log at {__file__}:{_line_of('paddle.log(v)', logs)} \\(in step\\)"):
        paddle.jit(logs, checks="nan")(paddle.to_tensor([1.0, -2.0]))
    minus_one = paddle.to_tensor([-1.0])
    np.testing.assert_array_equal(paddle.jit(branch, checks="nan")(minus_one, paddle.to_tensor(-1.0)).numpy(), [-2])
    with pytest.raises(CheckError, match="nan check failed in log"):  # the branch taken is checked
        paddle.jit(branch, checks="nan")(minus_one, paddle.to_tensor(1.0))


def test_one_hot_labels_are_checked_under_jit_and_raise_under_eager_vmap():
    one_hot = paddle.nn.functional.one_hot
    labels = paddle.to_tensor([0, 5])
    np.testing.assert_array_equal(paddle.jit(lambda i: one_hot(i, 3))(labels).numpy()[1], [0, 0, 0])  # unchecked
    with pytest.raises(IndexCheckError, match=r"one_hot: 1 of the 2 labels \(\[2\] int64\) are out of range for "
                                              r"num_classes=3"):
        paddle.jit(lambda i: one_hot(i, 3), checks="index")(labels)
    with pytest.raises(IndexCheckError, match="out of range for num_classes=3"):  # concrete values: raised at once
        paddle.vmap(lambda i: one_hot(i, 3))(labels)
