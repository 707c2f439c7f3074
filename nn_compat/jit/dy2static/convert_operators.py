"""The runtime helpers that converted code calls (Paddle's ``paddle.jit.dy2static.convert_operators``, reached
from converted source as ``_jst.*``).

Each helper decides at run time: a Python value or a Tensor with a value (eager, or a constant while compiling)
runs the Python statement as written; a traced Tensor (an input of the program being compiled) becomes a
control-flow primitive: ``if`` → `paddle_fn.cond`, ``while`` → `paddle_fn.while_loop`, ``and``/``or``/``not`` →
logical ops. So converted code behaves exactly like the original wherever the original could run.

The variables a converted ``if``/``while`` writes are passed to and returned from the branch/body functions as
a tuple (``names`` holds their source names, for messages). A variable that has no value yet is an
`UndefinedVar`. Outputs of a traced ``if`` are reconciled before the `cond` is built, from one shape-only trace
of both branches: Python numbers that differ between branches become Tensors, values equal in both stay Python,
a user variable assigned in one branch only becomes an `UndefinedVar` that raises when it is used afterwards (the
converter's own return/break flags are filled with zeros instead, as Paddle does).
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import logging
import types
import warnings

import numpy as np

import paddle_fn
from paddle_fn.core.trace import Tensor, find_top_trace, get_aval, is_concrete

__all__ = ["UndefinedVar", "convert_call", "convert_ifelse", "convert_ifelse_expr", "convert_iter", "convert_len",
           "convert_logical_and", "convert_logical_not", "convert_logical_or", "convert_print", "convert_range",
           "convert_while_loop", "iter_has_next", "iter_next", "is_traced"]

_log = logging.getLogger("paddle_fn.jit")
_probe_depth = [0]  # > 0 while a branch or loop body runs only to learn its outputs' shapes: print stays quiet
_INTERNAL = "__jst_"  # prefix of the variables the converter makes (return values, flags, loop counters)


class UndefinedVar:
    """A variable that has no value at this point of a converted function: created in only one branch of an
    ``if`` on a Tensor, or inside a loop on a Tensor. Using it raises a NameError that says why.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> y = _jst.UndefinedVar('y', 'it is assigned in only one branch')
        >>> y + 1
        Traceback (most recent call last):
        ...
        NameError: to_static: local variable 'y' has no value here: it is assigned in only one branch
    """

    def __init__(self, name, reason=None):
        self.name = name
        self.reason = reason

    def raise_error(self, *args, **kwargs):
        """Raise the NameError saying why the variable has no value (what every use of it does)."""
        why = self.reason or "it is used before it is assigned"
        raise NameError(f"to_static: local variable {self.name!r} has no value here: {why}")

    __call__ = __bool__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = raise_error
    __truediv__ = __rtruediv__ = __getitem__ = __iter__ = __len__ = __lt__ = __gt__ = __le__ = __ge__ = raise_error
    __matmul__ = __rmatmul__ = __neg__ = __pow__ = __floordiv__ = __mod__ = __index__ = __float__ = raise_error

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)  # copy/pickle/inspect probe dunders; those are not uses of the variable
        self.raise_error()

    def __repr__(self):
        return f"UndefinedVar({self.name!r})"


def is_traced(x) -> bool:
    """True if `x` is a Tensor whose value is not known while compiling (it needs a control-flow primitive).

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.is_traced(paddle.ones([2])), _jst.is_traced(3)
        (False, False)
        >>> paddle.jit(lambda x: paddle.to_tensor(_jst.is_traced(x)))(paddle.ones([2])).item()
        True
    """
    return isinstance(x, Tensor) and not is_concrete(x)


def _truth(pred, what):
    if isinstance(pred, Tensor):
        if int(np.prod(pred.shape)) != 1:
            raise ValueError(f"to_static: the condition of {what} is a Tensor of shape {list(pred.shape)}; it "
                             "must have exactly one element (reduce it with .all() / .any())")
        return bool(pred.numpy().reshape(()))
    return bool(pred)


def _scalar_pred(pred, what):
    if int(np.prod(pred.shape)) != 1:
        raise ValueError(f"to_static: the condition of {what} is a Tensor of shape {list(pred.shape)}; it must "
                         "have exactly one element (reduce it with .all() / .any())")
    return paddle_fn.reshape(pred, []).astype("bool")


# ----------------------------------------------------------------------------------------------- if / else

@contextlib.contextmanager
def _traced_block():
    """Around the tracing of a cond branch or loop body: global random draws there take keys from a separate
    stream (`paddle_fn.random.traced_global_key`)."""
    draws = paddle_fn.random.traced_draws()
    if draws is not None:
        draws.blocks += 1
    try:
        yield
    finally:
        if draws is not None:
            draws.blocks -= 1

@contextlib.contextmanager
def _probing():
    # the probed block runs again for real: its prints and its global random draws count only then
    draws = paddle_fn.random.traced_draws()
    count = draws.count if draws is not None else 0
    _probe_depth[0] += 1
    try:
        yield
    finally:
        _probe_depth[0] -= 1
        if draws is not None:
            draws.count = count


def _kind(v):
    if isinstance(v, UndefinedVar):
        return ("undef",)
    if isinstance(v, Tensor):
        a = get_aval(v)
        return ("tensor", a.shape, a.dtype)
    if isinstance(v, (bool, int, float, np.number)) or v is None:
        return ("py", v)
    return ("other", v)


def _as_tensor(v, dtype=None):
    if isinstance(v, Tensor):
        return v
    return paddle_fn.to_tensor(v) if dtype is None else paddle_fn.to_tensor(v, dtype=dtype)


def _common_dtype(t, f):
    """The dtype a cond output gets when a branch gives a Python number: the other branch's Tensor dtype, or
    float32 / int64 / bool for two numbers."""
    for k in (t, f):
        if k[0] == "tensor":
            return k[2].name
    values = (t[1], f[1])
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "bool"
    if any(isinstance(v, (float, np.floating)) for v in values):
        return "float32"
    return "int64"


def _reconcile(names, true_kinds, false_kinds):
    """Per output: 'keep' (both equal Python values), 'undef' (an UndefinedVar after the if), 'pad_true' /
    'pad_false' (that branch fills zeros like the other), or 'tensor' (a cond output)."""
    plan = []
    for name, t, f in zip(names, true_kinds, false_kinds):
        if t[0] == "undef" or f[0] == "undef":
            if t[0] == f[0] or not name.startswith(_INTERNAL):
                plan.append("undef")
            else:
                plan.append("pad_true" if t[0] == "undef" else "pad_false")
        elif t[0] == f[0] == "py" and t[1] == f[1] and type(t[1]) is type(f[1]):
            plan.append("keep")
        elif "other" in (t[0], f[0]):
            if t == f or (t[0] == f[0] == "other" and t[1] is f[1]):
                plan.append("keep")
                continue
            raise TypeError(f"to_static: in an `if` on a Tensor, variable {name!r} is a "
                            f"{type((t if t[0] == 'other' else f)[1]).__name__} in one branch; both branches of a "
                            "traced `if` must give it a Tensor or number (or the same object)")
        else:
            plan.append("tensor")
    return plan


def _flatten_outputs(outs, names, like=None):
    """The leaves of a branch's outputs (a tuple or list value, such as an early ``return a, b``, counts leaf by
    leaf), each leaf's variable name, and each output's structure (None for a single value). With `like` (the
    other branch's structures), an undefined internal value facing a tuple stands for a tuple of undefined."""
    leaves, labels, trees = [], [], []
    for i, (name, v) in enumerate(zip(names, outs)):
        if like is not None and like[i] is not None and isinstance(v, UndefinedVar) and name.startswith(_INTERNAL):
            trees.append(like[i])
            leaves += [v] * like[i].num_leaves
            labels += [name] * like[i].num_leaves
        elif isinstance(v, (tuple, list)):
            items, tree = paddle_fn.tree_flatten(v)
            trees.append(tree)
            leaves += items
            labels += [name] * len(items)
        else:
            trees.append(None)
            leaves.append(v)
            labels.append(name)
    return leaves, labels, trees


def _unflatten_outputs(leaves, trees):
    it = iter(leaves)
    return tuple(next(it) if tree is None else paddle_fn.tree_unflatten(tree, [next(it) for _ in
                                                                             range(tree.num_leaves)])
                 for tree in trees)


def convert_ifelse(pred, true_fn, false_fn, args, names):
    """``if pred:`` with branches ``true_fn(*args)`` / ``false_fn(*args)``, each returning the new values of the
    variables `names`. A traced `pred` builds a `paddle_fn.cond`.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> def f(x):
        ...     return _jst.convert_ifelse(x.sum() > 0, lambda y: (x * 2,), lambda y: (x - 1,), (None,), ('y',))[0]
        >>> paddle.jit(f)(paddle.to_tensor([1.0, -3.0])).numpy()
        array([ 0., -4.], dtype=float32)
    """
    if not is_traced(pred):
        return tuple(true_fn(*args) if _truth(pred, "`if`") else false_fn(*args))
    pred = _scalar_pred(pred, "`if`")
    seen = {}

    def probe(fn, which):
        def run():
            with _probing():
                seen[which] = fn(*args)
            return ()
        return run
    # one shape-only trace of both branches tells which outputs are Tensors, numbers or undefined
    paddle_fn.cond(pred, probe(true_fn, True), probe(false_fn, False))
    like = [_flatten_outputs([t], [""])[2][0] or _flatten_outputs([f], [""])[2][0]
            for t, f in zip(seen[True], seen[False])]
    true_leaves, labels, trees = _flatten_outputs(seen[True], names, like)
    false_leaves, _, false_trees = _flatten_outputs(seen[False], names, like)
    true_kinds, false_kinds = [_kind(v) for v in true_leaves], [_kind(v) for v in false_leaves]
    for name, t, f in zip(names, trees, false_trees):
        if t != f:
            what = lambda tree: "a single value" if tree is None else f"a tuple/list {tree}"  # noqa: E731
            raise TypeError(f"to_static: in an `if` on a Tensor, variable {name!r} is {what(t)} in the true branch "
                            f"but {what(f)} in the false branch; both branches must give it the same structure")
    plan = _reconcile(labels, true_kinds, false_kinds)
    dtypes = [_common_dtype(t, f) if how == "tensor" else None for how, t, f in zip(plan, true_kinds, false_kinds)]
    _log.debug("to_static: `if` on a Tensor over %s becomes paddle.cond (%s)", list(names), plan)

    def branch(fn, which, other_kinds):
        def run():
            vals = []
            with _traced_block():
                outs = fn(*args)
            for v, how, k, dtype in zip(_flatten_outputs(outs, names, like)[0], plan, other_kinds, dtypes):
                if how == "tensor":
                    vals.append(_as_tensor(v, dtype))
                elif how == ("pad_true" if which else "pad_false"):
                    vals.append(paddle_fn.zeros(list(k[1]), k[2]))
                elif how in ("pad_true", "pad_false"):
                    vals.append(v)
            return tuple(vals)
        return run
    outs = iter(paddle_fn.cond(pred, branch(true_fn, True, false_kinds), branch(false_fn, False, true_kinds)))
    result = []
    for name, how, k in zip(labels, plan, true_kinds):
        if how == "keep":
            result.append(k[1])
        elif how == "undef":
            result.append(UndefinedVar(name, "it is assigned in only one branch of an `if` on a Tensor (or in "
                                             "neither); assign it in both branches, or before the `if`"))
        else:
            result.append(next(outs))
    return _unflatten_outputs(result, trees)


def convert_ifelse_expr(pred, true_fn, false_fn):
    """``a if pred else b``: `paddle_fn.cond` of the two lambdas when `pred` is traced.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> f = paddle.jit(lambda x: _jst.convert_ifelse_expr(x > 0, lambda: x, lambda: -x))
        >>> f(paddle.to_tensor(-2.0)).item()
        2.0
    """
    (out,) = convert_ifelse(pred, lambda: (true_fn(),), lambda: (false_fn(),), (), ("__jst_expr",))
    if isinstance(out, UndefinedVar):
        raise TypeError("to_static: the branches of `a if cond else b` on a Tensor must both give Tensors or numbers")
    return out


# ----------------------------------------------------------------------------------------------- loops

def convert_while_loop(cond_fn, body_fn, args, names):
    """``while cond_fn(*args): args = body_fn(*args)``: a Python loop while the condition is a Python value or
    concrete; from the first traced condition on, a `paddle_fn.while_loop` over the variables the body writes.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> def f(n):
        ...     return _jst.convert_while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0), ('i', 's'))[1]
        >>> paddle.jit(f)(paddle.to_tensor(5)).item()  # a while_loop: n is traced
        10
        >>> f(5)  # Python values: a Python loop
        10
    """
    args = tuple(args)
    while True:
        pred = cond_fn(*args)
        if is_traced(pred):
            return _traced_while(pred, cond_fn, body_fn, args, names)
        if not _truth(pred, "`while`"):
            return args
        args = tuple(body_fn(*args))


def _traced_while(pred, cond_fn, body_fn, args, names):
    # variables without a value at the loop's entry are temporaries of the body: not carried, undefined after
    carried = [i for i, a in enumerate(args) if not isinstance(a, UndefinedVar)]
    for i in carried:
        if not isinstance(args[i], (Tensor, bool, int, float, np.number)):
            raise TypeError(f"to_static: a `while` loop on a Tensor carries variable {names[i]!r}, a "
                            f"{type(args[i]).__name__}; loop variables must be Tensors or numbers")
    _log.debug("to_static: `while` on a Tensor becomes paddle.while_loop over %s", [names[i] for i in carried])

    def full(carry):
        values = list(args)
        for i, v in zip(carried, carry):
            values[i] = v
        return values

    # a Python number starts the loop as a Tensor of the shape and dtype the body gives it (``s = 0; s = s + x``
    # is x's): one shape-only trace of one step, inside a cond on the loop's first condition, tells
    seen = {}

    def probe():
        with _probing():
            seen["outs"] = body_fn(*args)
        return ()
    paddle_fn.cond(_scalar_pred(pred, "`while`"), probe, lambda: ())
    init = []
    for i in carried:
        v, out = args[i], seen["outs"][i]
        if isinstance(out, UndefinedVar):
            raise NameError(f"to_static: loop variable {names[i]!r} has no value at the end of the `while` body")
        if isinstance(v, Tensor):
            if isinstance(out, Tensor) and (out.dtype != v.dtype or out.shape != v.shape):
                raise TypeError(f"to_static: a `while` loop on a Tensor changes {names[i]!r} from shape {v.shape} "
                                f"{v.dtype} to shape {out.shape} {out.dtype}; loop variables keep their shape and "
                                "dtype (cast with .astype(), start from a value of the final shape)")
        elif isinstance(out, Tensor):
            v = paddle_fn.full(out.shape, v, out.dtype)
        init.append(_as_tensor(v))

    def body(carry):
        with _traced_block():
            outs = body_fn(*full(carry))
        return tuple(_as_tensor(outs[i], c.dtype) for i, c in zip(carried, carry))
    out = dict(zip(carried, paddle_fn.while_loop(lambda c: _scalar_pred(cond_fn(*full(c)), "`while`"), body,
                                                 tuple(init))))
    return tuple(out[i] if i in out else UndefinedVar(n, "it is created inside a `while`/`for` loop on a Tensor; "
                                                          "assign it before the loop to use it afterwards")
                 for i, n in enumerate(names))


class _TensorRange:
    """``range(start, stop, step)`` with a traced bound: iterated by a converted ``for`` as a while loop."""

    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def has_next(self, i):
        value = self.start + i * self.step
        if isinstance(self.step, int):
            return value < self.stop if self.step > 0 else value > self.stop
        return paddle_fn.where(self.step > 0, value < self.stop, value > self.stop)

    def get(self, i):
        # always a Tensor: the loop index is one inside the compiled loop, so also in its first (probing) step
        return _as_tensor(self.start + i * self.step, "int64")


def convert_range(*args):
    """``range(...)``: a Python range when every bound is a Python int or concrete; otherwise an object a
    converted ``for`` loops over with a `paddle_fn.while_loop`.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_range(paddle.to_tensor(3))
        range(0, 3)
    """
    if not any(is_traced(a) for a in args):
        return range(*(int(a) if isinstance(a, Tensor) else a for a in args))
    if not 1 <= len(args) <= 3:
        raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
    for a in args:
        if isinstance(a, Tensor) and (a.shape not in ([], [1]) or get_aval(a).dtype.kind not in "iu"):
            raise TypeError(f"to_static: range() bounds must be integer scalars, got a Tensor of shape "
                            f"{list(a.shape)} and dtype {get_aval(a).dtype.name}")
    args = [paddle_fn.reshape(a, []).astype("int64") if isinstance(a, Tensor) else a for a in args]
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    if isinstance(step, int) and step == 0:
        raise ValueError("range() arg 3 must not be zero")
    return _TensorRange(start, stop, step)


def convert_iter(iterable):
    """What a converted ``for`` loops over: a Tensor (its first axis), a traced `range`, or any Python iterable
    (materialised as a list, so the loop runs as Python and is unrolled while compiling).

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_iter({'a': 1})
        ['a']
    """
    if isinstance(iterable, (_TensorRange, Tensor)):
        if isinstance(iterable, Tensor) and not iterable.shape:
            raise TypeError("to_static: iterating over a 0-D Tensor; it has no first axis")
        return iterable
    return iterable if isinstance(iterable, (list, tuple, range)) else list(iterable)


def iter_has_next(it, i):
    """Whether element `i` exists: a traced bool for a traced range, a Python bool otherwise.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.iter_has_next([4, 5], 1), _jst.iter_has_next(paddle.ones([2, 3]), 2)
        (True, False)
    """
    if isinstance(it, _TensorRange):
        return it.has_next(i)
    if isinstance(it, Tensor):
        return i < it.shape[0]
    return i < len(it)


def iter_next(it, i):
    """Element `i` of what `convert_iter` returned.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.iter_next(paddle.to_tensor([[1, 2], [3, 4]]), 1).numpy()
        array([3, 4])
    """
    if isinstance(it, _TensorRange):
        return it.get(i)
    return it[i]


# ----------------------------------------------------------------------------------------------- operators

def convert_logical_and(x_fn, y_fn):
    """``x and y``: Python's short-circuit unless `x` is traced, then ``paddle.logical_and(x, y)``.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_logical_and(lambda: 0, lambda: 1 / 0)  # short-circuits as Python
        0
        >>> paddle.jit(lambda x: _jst.convert_logical_and(lambda: x > 0, lambda: x < 2))(paddle.to_tensor(1.0)).item()
        True
    """
    x = x_fn()
    if is_traced(x):
        y = y_fn()
        return paddle_fn.logical_and(_scalar_pred(x, "`and`") if x.shape else x.astype("bool"),
                                     _as_tensor(y).astype("bool"))
    if isinstance(x, Tensor) and not _truth(x, "`and`"):
        return x
    if not isinstance(x, Tensor) and not x:
        return x
    return y_fn()


def convert_logical_or(x_fn, y_fn):
    """``x or y``: Python's short-circuit unless `x` is traced, then ``paddle.logical_or(x, y)``.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_logical_or(lambda: 'a', lambda: 1 / 0)
        'a'
        >>> paddle.jit(lambda x: _jst.convert_logical_or(lambda: x > 0, lambda: x < -2))(paddle.to_tensor(-1.0)).item()
        False
    """
    x = x_fn()
    if is_traced(x):
        y = y_fn()
        return paddle_fn.logical_or(x.astype("bool"), _as_tensor(y).astype("bool"))
    if (_truth(x, "`or`") if isinstance(x, Tensor) else x):
        return x
    return y_fn()


def convert_logical_not(x):
    """``not x``: ``paddle.logical_not(x)`` for a traced `x`, Python's ``not`` otherwise.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_logical_not([]), paddle.jit(_jst.convert_logical_not)(paddle.to_tensor(True)).item()
        (True, False)
    """
    if is_traced(x):
        return paddle_fn.logical_not(x.astype("bool"))
    return not (_truth(x, "`not`") if isinstance(x, Tensor) else x)


def convert_len(x):
    """``len(x)``: the size of a Tensor's first axis (static), Python's len otherwise.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_len(paddle.ones([4, 2])), _jst.convert_len('abc')
        (4, 3)
    """
    if isinstance(x, Tensor):
        if not x.shape:
            raise TypeError("len() of a 0-D Tensor")
        return x.shape[0]
    return len(x)


# ----------------------------------------------------------------------------------------------- print

class PrintCollector:
    """Collects what converted ``print`` calls inside a program being compiled need at run time: the traced
    Tensors become extra outputs of the program, and after each call their values are printed with the Python
    parts of the message, in program order (Paddle's ``paddle.static.Print``).

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> collector = _jst.PrintCollector(level=0)
        >>> _jst.PrintCollector.emit([(["x =", _jst._Slot(0)], " ", "\\n", None)], [paddle.to_tensor(1.5)])
        x = Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               1.50000000)
    """

    def __init__(self, level):
        self.level = level  # the trace level of the program's own body: prints inside cond/while are deeper
        self.entries = []  # (args with Tensors replaced by their slot numbers, sep, end, file)
        self.tensors = []

    def add(self, args, sep, end, file):
        parts = []
        for a in args:
            if is_traced(a):
                parts.append(_Slot(len(self.tensors)))
                self.tensors.append(a)
            else:
                parts.append(a)
        self.entries.append((parts, sep, end, file))

    @staticmethod
    def emit(entries, values):
        for parts, sep, end, file in entries:
            builtins.print(*[values[p.index] if isinstance(p, _Slot) else p for p in parts], sep=sep, end=end,
                           file=file)


class _Slot:
    def __init__(self, index):
        self.index = index


_collectors: list = []


@contextlib.contextmanager
def collect_prints(level):
    """Inside, print() of Tensors traced at trace level `level` (the program's own body) is collected into the
    `PrintCollector` this yields instead of printed.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> def f(x):
        ...     with _jst.collect_prints(paddle.core.trace.current_dynamic_main().level) as c:
        ...         _jst.convert_print("x:", x)
        ...     return c.tensors[0] * 1.0
        >>> paddle.jit(f)(paddle.to_tensor(2.0)).item()
        2.0
    """
    collector = PrintCollector(level)
    _collectors.append(collector)
    try:
        yield collector
    finally:
        _collectors.pop()


def convert_print(*args, sep=" ", end="\n", file=None, flush=False):
    """``print(...)``: prints at once unless an argument is a traced Tensor; then the Tensor is made an output of
    the compiled program and the whole line is printed after each call of it, with the Tensor's value.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_print("eager", paddle.to_tensor(2))
        eager Tensor(shape=[], dtype=int64, place=Place(cpu), stop_gradient=True,
               2)
    """
    if _probe_depth[0]:
        return  # the block runs again for real right after
    if not any(is_traced(a) for a in args):
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    collector = _collectors[-1] if _collectors else None
    level = find_top_trace([a for a in args if isinstance(a, Tensor)]).main.level
    if collector is None or level != collector.level:
        warnings.warn("to_static: print() of a Tensor inside a converted `if`/`while` on a Tensor (or outside "
                      "to_static) prints its traced description once, while compiling; print it before or after "
                      "the control flow to see values on every call", stacklevel=2)
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        return
    collector.add(args, sep, end, file)


# ----------------------------------------------------------------------------------------------- calls

def convert_call(func):
    """The function a converted call site calls: user functions are converted (recursively, cached by code
    object), `print`/`len`/`range` are replaced, everything else is called as is.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_operators as _jst
        >>> import paddle_fn as paddle
        >>> _jst.convert_call(len) is _jst.convert_len, _jst.convert_call(paddle.sin) is paddle.sin
        (True, True)
    """
    if func is builtins.print:
        return convert_print
    if func is builtins.len:
        return convert_len
    if func is builtins.range:
        return convert_range
    from paddle_fn.nn_compat.jit.dy2static.program_translator import convert_function
    from paddle_fn.nn_compat.layer.layers import Layer
    if isinstance(func, Layer):
        forward = type(func).forward
        if "forward" in func.__dict__ or not isinstance(forward, types.FunctionType):
            return func  # a to_static forward (converted when it runs) or not a plain function
        converted = convert_function(forward)
        return func if converted is forward else functools.partial(_call_layer_converted, func, converted)
    return convert_function(func)


def _call_layer_converted(layer, forward, *args, **kwargs):
    """Call `layer` (its hooks included) with its forward replaced by the converted `forward` for this call."""
    object.__setattr__(layer, "forward", types.MethodType(forward, layer))
    try:
        return layer(*args, **kwargs)
    finally:
        del layer.__dict__["forward"]
