"""to_static's dynamic-to-static conversion: Python control flow on Tensors compiled as cond/while, print, the
converted code, Dropout's global RNG inside a program, gradients through converted branches."""
import logging
import warnings

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.jit import to_static
from paddle_fn.static import InputSpec


def _prims(static_function):
    return str(static_function.concrete_program)


# ----------------------------------------------------------------------------------------------- manual examples

def test_manual_a10_input_spec_and_save(tmp_path):
    class SimpleNet(paddle.nn.Layer):
        def __init__(self):
            super(SimpleNet, self).__init__()
            self.linear = paddle.nn.Linear(10, 3)

        @to_static(input_spec=[InputSpec(shape=[None, 10], name='x'), InputSpec(shape=[3], name='y')])
        def forward(self, x, y):
            out = self.linear(x)
            out = out + y
            return out

    net = SimpleNet()
    paddle.jit.save(net, str(tmp_path / "simple_net"))
    x, y = paddle.rand([2, 10]), paddle.rand([3])
    loaded = paddle.jit.load(str(tmp_path / "simple_net"))
    np.testing.assert_allclose(loaded(x, y).numpy(), net(x, y).numpy(), rtol=1e-6)


def test_manual_a19_python_bool_argument_selects_the_branch_while_tracing():
    class SimpleNet(paddle.nn.Layer):
        def __init__(self):
            super(SimpleNet, self).__init__()
            self.linear = paddle.nn.Linear(10, 3)
            self.relu = paddle.nn.ReLU()

        def forward(self, x, use_act=False):
            out = self.linear(x)
            if use_act:
                out = self.relu(out)
            return out

    net = to_static(SimpleNet(), input_spec=[InputSpec(shape=[None, 10], name='x')])
    x = paddle.randn([4, 10])
    plain = net(x).numpy()
    np.testing.assert_allclose(net(x, use_act=True).numpy(), np.maximum(plain, 0), rtol=1e-6)
    assert "cond" not in _prims(net.forward)  # a Python value: no cond, one program per value


def test_manual_a14_label_if_on_a_tensor_returning_different_structures_is_an_error():
    class LinearNet(paddle.nn.Layer):
        def __init__(self):
            super(LinearNet, self).__init__()
            self._linear = paddle.nn.Linear(4, 2)

        @paddle.jit.to_static
        def forward(self, x, label=None):
            out = self._linear(x)
            if label:
                loss = paddle.nn.functional.cross_entropy(out, label)
                avg_loss = paddle.mean(loss)
                return out, avg_loss
            else:
                return out

    net = LinearNet()
    assert net(paddle.ones([3, 4])).shape == [3, 2]  # label None: Python `if`
    with pytest.raises(TypeError, match="tuple"):  # the manual's "wrong example": branches differ in structure
        net(paddle.ones([1, 4]), paddle.to_tensor([[1]]))


# ----------------------------------------------------------------------------------------------- if / else

def test_if_else_assigning_different_variables_is_a_cond():
    @to_static
    def f(x):
        if x.mean() > 0:
            y = x * 2
            z = 1
        else:
            y = x - 1
            z = 2.5
        return y + z

    pos, neg = np.array([1.0, 2.0], np.float32), np.array([-1.0, -4.0], np.float32)
    np.testing.assert_allclose(f(paddle.to_tensor(pos)).numpy(), pos * 2 + 1)
    np.testing.assert_allclose(f(paddle.to_tensor(neg)).numpy(), neg - 1 + 2.5)
    assert "cond[" in _prims(f) and len(f.program_cache) == 1


def test_variable_defined_in_one_branch_only_raises_when_used():
    @to_static
    def f(x):
        if x.sum() > 0:
            only_here = x + 1
        return only_here

    with pytest.raises(NameError, match="'only_here'.*only one branch"):
        f(paddle.ones([2]))

    @to_static
    def g(x):  # defined in one branch and never used afterwards: fine
        if x.sum() > 0:
            unused = x + 1  # noqa: F841
        return x * 3

    np.testing.assert_allclose(g(paddle.ones([2])).numpy(), [3.0, 3.0])


def test_early_return_and_logical_operators_and_conditional_expression():
    @to_static
    def f(x):
        if x.sum() > 0 and not x.max() > 10 or x.min() < -5:
            return x * 2
        y = x - 1
        return y if y.sum() > -3 else -y

    for v in ([1.0, 2.0], [1.0, 20.0], [-6.0, 0.0], [-1.0, 0.5], [-2.0, -2.0]):
        a = np.array(v, np.float32)
        if (a.sum() > 0 and not a.max() > 10) or a.min() < -5:
            want = a * 2
        else:
            want = a - 1 if (a - 1).sum() > -3 else -(a - 1)
        np.testing.assert_allclose(f(paddle.to_tensor(a)).numpy(), want, err_msg=str(v))
    program = _prims(f)
    assert program.count("cond[") >= 2 and " and " in program and " not " in program
    assert len(f.program_cache) == 1


def test_concrete_tensor_conditions_run_as_python():
    @to_static
    def f(x):
        flag = paddle.to_tensor(True)  # a constant while tracing: Python `if`, no cond
        if flag:
            x = x + 1
        return x

    np.testing.assert_allclose(f(paddle.zeros([2])).numpy(), [1.0, 1.0])
    assert "cond" not in _prims(f)


# ----------------------------------------------------------------------------------------------- loops

def test_nested_if_inside_while_with_a_tensor_bound():
    @to_static
    def f(x, n):
        i = 0
        s = paddle.zeros_like(x)
        while i < n:
            if i % 2 == 0:
                s = s + x
            else:
                s = s - 1
            i += 1
        return s

    x = paddle.to_tensor([1.0, 3.0])
    for n in (5, 4, 0):
        want = sum((np.array([1.0, 3.0]) if i % 2 == 0 else -np.ones(2)) for i in range(n)) + np.zeros(2)
        np.testing.assert_allclose(f(x, paddle.to_tensor(n)).numpy(), want)
    assert "while[" in _prims(f) and "cond[" in _prims(f) and len(f.program_cache) == 1


def test_for_range_over_a_tensor_bound_with_break_and_continue():
    @to_static
    def f(n):
        total = paddle.zeros([1])
        for i in range(n):
            if i == 2:
                continue
            if i > 5:
                break
            total = total + i.astype("float32")
        return total

    def ref(n):
        total = 0
        for i in range(n):
            if i == 2:
                continue
            if i > 5:
                break
            total += i
        return total

    for n in (10, 4, 1):
        assert f(paddle.to_tensor(n)).numpy().tolist() == [ref(n)]
    assert "while[" in _prims(f)


def test_for_over_python_values_and_tensor_rows_is_unrolled():
    @to_static
    def f(x):
        acc = paddle.zeros([3])
        for row in x:  # a Tensor's first axis (static length)
            acc = acc + row
        for scale in [1.0, 2.0]:
            acc = acc * scale
        return acc

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(f(paddle.to_tensor(x)).numpy(), x.sum(0) * 2)
    assert "while" not in _prims(f)


def test_while_temporary_used_after_the_loop_is_an_error():
    @to_static
    def f(x):
        while x.sum() < 10:
            step = x + 1
            x = step
        return step

    with pytest.raises(NameError, match="'step'.*loop"):
        f(paddle.ones([2]))


def test_unconverted_patterns_keep_the_concretization_hint():
    @to_static(full_graph=True)
    def f(x):
        for _ in range(3):
            if x.sum() > 0:
                return x  # a return inside a loop is not converted
        return -x

    with pytest.raises(paddle.ConcretizationError, match="return` inside a loop"):
        f(paddle.ones([2]))


# ----------------------------------------------------------------------------------------------- calls

def _helper_with_if(x):
    if x.sum() > 0:
        x = x * 10
    return x


@paddle.jit.not_to_static
def _not_converted(x):
    if x.sum() > 0:
        x = x * 10
    return x


def test_user_functions_are_converted_recursively_unless_not_to_static():
    @to_static
    def f(x):
        return _helper_with_if(x) + 1

    np.testing.assert_allclose(f(paddle.ones([2])).numpy(), [11.0, 11.0])
    np.testing.assert_allclose(f(-paddle.ones([2])).numpy(), [0.0, 0.0])

    @to_static(full_graph=True)
    def g(x):
        return _not_converted(x)

    with pytest.raises(paddle.ConcretizationError):
        g(paddle.ones([2]))


# ----------------------------------------------------------------------------------------------- print / code

def test_print_of_a_tensor_prints_its_value_after_each_call(capsys):
    @to_static
    def f(x):
        s = x.sum()
        print("sum is", s)
        return s * 2

    capsys.readouterr()
    f(paddle.to_tensor([1.0, 2.0]))
    f(paddle.to_tensor([5.0, 5.0]))
    out = capsys.readouterr().out
    assert out.count("sum is Tensor(shape=[], dtype=float32") == 2
    assert "3." in out.split("sum is")[1] and "10." in out.split("sum is")[2]


def test_code_set_code_level_and_set_verbosity(capsys):
    def source_fn(x):
        if x.sum() > 0:
            x = x + 1
        return x

    f = to_static(source_fn)
    assert "_jst.convert_ifelse(" in f.code and "def __jst_fn_true_" in f.code
    paddle.jit.set_code_level(100, also_to_stdout=True)
    paddle.jit.set_verbosity(1, also_to_stdout=True)
    try:
        def other(x):
            while x.sum() < 4:
                x = x + 1
            return x
        capsys.readouterr()
        to_static(other)(paddle.ones([1]))
    finally:
        paddle.jit.set_code_level(0)
        paddle.jit.set_verbosity(0)
    out = capsys.readouterr()
    assert "converting function" in out.out and "converted code of" in out.out
    assert "_jst.convert_while_loop(" in out.out and "_jst.convert_while_loop(" in out.err


def test_conversion_steps_go_to_the_paddle_fn_jit_logger(caplog):
    def logged(x):
        return x * 2.0
    with caplog.at_level(logging.DEBUG, logger="paddle_fn.jit"):
        to_static(logged)(paddle.ones([1]))
    assert any("converting function" in r.getMessage() and r.name == "paddle_fn.jit" for r in caplog.records)


# ----------------------------------------------------------------------------------------------- dropout / grads

class _DropNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(8, 8)
        self.drop = paddle.nn.Dropout(0.5)

    def forward(self, x):
        h = self.drop(self.fc(x))
        if h.sum() > 0:
            h = h * 2.0
        else:
            h = h - 1.0
        return h.mean()


def test_dropout_trains_under_to_static_with_fresh_reproducible_masks():
    paddle.seed(3)
    net = to_static(_DropNet())
    x = paddle.ones([64, 8])
    with paddle.no_grad():  # one forward program for the mask checks
        paddle.seed(7)
        first = [net(x).numpy() for _ in range(3)]
        paddle.seed(7)
        again = [net(x).numpy() for _ in range(3)]
    assert first == again and len({float(v) for v in first}) == 3  # fresh per call, reproducible
    loss = net(x)
    loss.backward()
    assert float(abs(net.fc.weight.grad).sum()) > 0


def test_dropout_mask_statistics_under_to_static():
    @to_static
    def drop(x):
        return paddle.nn.functional.dropout(x, 0.3)

    x = paddle.ones([20000])
    a, b = drop(x).numpy(), drop(x).numpy()
    assert abs((a == 0).mean() - 0.3) < 0.02 and not np.array_equal(a, b)
    np.testing.assert_allclose(a[a != 0], 1 / 0.7, rtol=1e-6)


def test_gradients_through_a_converted_if_match_eager():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        def forward(self, x):
            h = self.fc(x)
            if h.mean() > 0:
                out = (h * h).sum()
            else:
                out = (h * 3.0).sum()
            return out

    paddle.seed(0)
    net = Net()
    xs = (paddle.ones([4, 3]), -paddle.ones([4, 3]))  # one takes each branch
    eager = []
    for x in xs:
        net.clear_gradients()
        net(x).backward()
        eager.append([p.grad.numpy() for p in net.parameters()])
    static = to_static(net)
    for x, want in zip(xs, eager):
        net.clear_gradients()
        static(x).backward()
        for g, e in zip([p.grad.numpy() for p in net.parameters()], want):
            np.testing.assert_allclose(g, e, rtol=1e-5)
    assert "cond[" in _prims(static.forward) and len(static.forward.program_cache) == 1


def test_early_return_of_a_tuple_and_sublayer_forward_converted():
    @to_static
    def f(x):
        if x.sum() > 0:
            return x * 2, x.sum()
        return x - 1, x.mean()

    a, s = f(paddle.to_tensor([1.0, 2.0]))
    assert a.numpy().tolist() == [2.0, 4.0] and float(s) == 3.0
    a, s = f(paddle.to_tensor([-1.0, -2.0]))
    assert a.numpy().tolist() == [-2.0, -3.0] and float(s) == -1.5

    class Inner(paddle.nn.Layer):
        def forward(self, x):
            if x.sum() > 0:
                x = x * 10
            return x

    class Outer(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x) + 1

    outer = to_static(Outer())
    assert outer(paddle.ones([2])).numpy().tolist() == [11.0, 11.0]
    assert outer(-paddle.ones([2])).numpy().tolist() == [0.0, 0.0]
    assert "forward" not in outer.inner.__dict__


def test_while_accumulator_starting_from_a_python_number_and_closures_super():
    @to_static
    def f(x, n):
        s = 0
        i = 0
        while i < n:
            s = s + x
            i += 1
        return s

    np.testing.assert_allclose(f(paddle.to_tensor([1.5, 2.0]), paddle.to_tensor(3)).numpy(), [4.5, 6.0])

    class A(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.k = 3

        def forward(self, x):
            k = self.k

            def helper(y):
                if y.sum() > k:
                    y = y * k
                return y
            return helper(x)

    class B(A):
        def forward(self, x):
            return super().forward(x) + 1

    b = to_static(B())
    assert b(paddle.ones([4])).numpy().tolist() == [4.0] * 4
    assert b(paddle.ones([2])).numpy().tolist() == [2.0] * 2


def test_print_inside_a_traced_branch_warns_and_prints_once_while_tracing(capsys):
    @to_static
    def f(x):
        out = paddle.zeros([2])
        for i, row in enumerate(x):
            out = out + row * i
        if x.sum() > 0:
            print("inside", x.sum())
            out = out * 2
        return out

    capsys.readouterr()
    with pytest.warns(UserWarning, match="inside a converted"):
        assert f(paddle.ones([3, 2])).numpy().tolist() == [6.0, 6.0]
    assert capsys.readouterr().out.count("inside") == 1


_CALLS = 0


def test_blocks_assigning_globals_stay_python():
    def count_positive(x):
        global _CALLS
        if x > 0:
            _CALLS += 1
        return x

    f = to_static(count_positive, full_graph=True)
    assert "convert_ifelse" not in f.code
    with pytest.raises(paddle.ConcretizationError, match="global"):  # the hint names the pattern
        f(paddle.to_tensor(1.0))
    before = _CALLS
    f.rollback()(paddle.to_tensor(1.0))  # eagerly the global is updated as written
    assert _CALLS == before + 1


def test_global_draws_under_to_static_equal_eager_after_the_same_seed():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(8, 8)
            self.d1 = paddle.nn.Dropout(0.5)
            self.d2 = paddle.nn.Dropout(0.3)

        def forward(self, x):
            h = self.d2(self.d1(self.fc(x)))
            if h.sum() > 0:  # a draw in a traced branch takes a key of its own stream
                h = paddle.nn.functional.dropout(h, 0.2) * 2
            return h

    paddle.seed(0)
    net = Net()
    x = paddle.ones([4, 8])
    with paddle.no_grad():
        paddle.seed(5)
        eager = [net(x).numpy() for _ in range(2)] + [paddle.rand([2]).numpy()]
        static = to_static(net)
        paddle.seed(5)
        compiled = [static(x).numpy() for _ in range(2)] + [paddle.rand([2]).numpy()]
    assert float(eager[0].sum()) < 0  # the branch is not taken: eager draws twice per call, as the program
    for a, b in zip(eager, compiled):
        np.testing.assert_allclose(a, b, rtol=1e-6)


_TRACED_CALLS = 0


def test_a_python_side_effect_runs_while_tracing_and_warns_once():
    """`count += 1` in a to_static function runs once per traced signature (Paddle's dygraph: once per call):
    tracing that rebinds a global or a closure variable warns once; Tensors updated in place do not warn."""
    @paddle.jit.to_static
    def counted(x):
        global _TRACED_CALLS
        _TRACED_CALLS += 1
        return x * 2

    def make_counter():
        seen = 0

        @paddle.jit.to_static
        def step(x):
            nonlocal seen
            seen += 1
            return x + 1
        return step

    @paddle.jit.to_static
    def pure(x):
        return paddle.tanh(x)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            counted(paddle.ones([2]))
        make_counter()(paddle.ones([2]))
        pure(paddle.ones([2]))
    messages = [str(w.message) for w in caught if "tracing changed" in str(w.message)]
    assert _TRACED_CALLS == 1 and len(messages) == 2
    assert "global '_TRACED_CALLS'" in messages[0] and "closure variable 'seen'" in messages[1]
