"""Op-table rows for paddle_fn.prims.control_flow: the public wrappers with fixed bodies."""
import numpy as np

from paddle_fn.core.trace import Tensor
from paddle_fn.prims import control_flow as C
from paddle_fn.prims import elementwise as E
from paddle_fn.prims import reduction as R
from paddle_fn.prims import structural as St

from optable import Arg, OpRow


def _like(x, value, shape=None):
    """A constant with x's dtype (rows also run with float32 arguments in the IREE test)."""
    return Tensor(np.full(x.shape if shape is None else shape, value, dtype=x.dtype.np))


def _cond(p, x, y):
    return C.cond(p, lambda a, b: E.mul(E.exp(a), b), lambda a, b: E.sub(a, E.exp(b)), x, y)


def _cond_ref(p, x, y):
    return np.exp(x) * y if p else x - np.exp(y)


def _switch(i, x):
    return C.switch(i, [E.exp, E.neg, lambda a: E.mul(a, a)], x)


def _switch_ref(i, x):
    return [np.exp, np.negative, lambda a: a * a][int(i)](x)


def _while_counted(x, n):
    """x <- 0.5 x + sin(x), n times (n is an operand: batching it gives a per-lane trip count)."""
    _, out = C.while_loop(lambda c: E.lt(c[0], n),
                          lambda c: (E.add(c[0], _like(n, 1)), E.add(E.mul(c[1], _like(x, 0.5)), E.sin(c[1]))),
                          (_like(n, 0), x))
    return out


def _while_counted_ref(x, n):
    for _ in range(int(n)):
        x = 0.5 * x + np.sin(x)
    return x


def _while_growing(x):
    """Double x until its squared norm exceeds 50: the trip count depends on the values."""
    return C.while_loop(lambda v: E.lt(R.reduce_sum(E.mul(v, v), axes=(0,)), _like(x, 50.0, ())),
                        lambda v: E.mul(v, _like(x, 2.0)), x)


def _while_growing_ref(x):
    while np.sum(x * x) < 50:
        x = x * 2
    return x


def _scan(c, xs, w):
    def step(carry, x):
        new = E.tanh(E.add(E.mul(carry, w), x))
        return new, E.mul(carry, x)
    return C.scan(step, c, xs)


def _scan_ref(c, xs, w):
    ys = []
    for x in xs:
        ys.append(c * x)
        c = np.tanh(c * w + x)
    return c, np.stack(ys)


def _scan_reverse(c, xs):
    return C.scan(lambda carry, x: (E.add(E.mul(carry, x), E.sin(x)), E.exp(carry)), c, xs, reverse=True)


def _scan_reverse_ref(c, xs):
    ys = [None] * len(xs)
    for i in reversed(range(len(xs))):
        ys[i] = np.exp(c)
        c = c * xs[i] + np.sin(xs[i])
    return c, np.stack(ys)


def _fori(x):
    def body(i, v):
        shift = St.broadcast_in_dim(E.convert_element_type(i, new_dtype=x.dtype), shape=(2,), broadcast_dimensions=())
        return E.add(E.sin(v), shift)
    return C.fori_loop(0, 3, body, x)


def _fori_ref(x):
    for i in range(3):
        x = np.sin(x) + i
    return x


ROWS = [
    OpRow("cond", C.cond_p, _cond, (Arg((), "bool", "bool"), Arg((3,)), Arg((3,))), _cond_ref),
    OpRow("cond_switch", C.cond_p, _switch, (Arg((), "int32", "index", high=3), Arg((2, 2))), _switch_ref),
    # while_loop has no reverse mode (its transpose is unsupported): its JVP is checked in test_control_flow.py.
    OpRow("while_counted", C.while_p, _while_counted, (Arg((3,)), Arg((), "int32", "index", high=4)),
          _while_counted_ref, diff=()),
    OpRow("while_growing", C.while_p, _while_growing, (Arg((3,), domain="nonzero"),), _while_growing_ref, diff=()),
    OpRow("scan", C.scan_p, _scan, (Arg((3,)), Arg((4, 3)), Arg((3,))), _scan_ref),
    OpRow("scan_reverse", C.scan_p, _scan_reverse, (Arg((2,), domain="unit"), Arg((3, 2), domain="unit")),
          _scan_reverse_ref),
    OpRow("scan_fori_loop", C.scan_p, _fori, (Arg((2,)),), _fori_ref),
]
