"""Property tests (hypothesis; the deterministic 'ci' profile is loaded in conftest.py)."""
import numpy as np
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import paddle_fn as pf
from paddle_fn.prims import elementwise as E
from paddle_fn.prims.reduction import reduce_sum

T = pf.Tensor
UNARY = [("sin", E.sin, None), ("tanh", E.tanh, None), ("exp", E.exp, None), ("logistic", E.logistic, None),
         ("log", E.log, "pos"), ("sqrt", E.sqrt, "pos"), ("atan", E.atan, None), ("erf", E.erf, None)]
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


def _values(draw, shape, positive):
    lo, hi = (0.2, 3.0) if positive else (-3.0, 3.0)
    return draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi)))


def _total(x):
    return reduce_sum(x, axes=tuple(range(x.ndim)))


@st.composite
def unary_case(draw):
    name, fn, dom = draw(st.sampled_from(UNARY))
    shape = draw(shapes)
    return name, fn, _values(draw, shape, dom == "pos"), _values(draw, shape, False)


@given(unary_case())
def test_unary_jvp_matches_central_differences(case):
    name, fn, x, v = case
    _, tan = pf.jvp(fn, (T(x),), (T(v),))
    eps = 1e-6
    fd = (fn(T(x + eps * v)).numpy() - fn(T(x - eps * v)).numpy()) / (2 * eps)
    np.testing.assert_allclose(tan.numpy(), fd, rtol=1e-5, atol=1e-6, err_msg=name)


@given(unary_case())
def test_grad_of_sum_equals_jvp_with_ones(case):
    name, fn, x, _ = case
    g = pf.grad(lambda x: _total(fn(x)))(T(x))
    _, tan = pf.jvp(fn, (T(x),), (T(np.ones_like(x)),))
    np.testing.assert_allclose(g.numpy(), tan.numpy(), rtol=1e-12, atol=1e-12, err_msg=name)


@given(unary_case(), st.integers(1, 5))
def test_vmap_of_composition_matches_loop(case, batch):
    name, fn, x, _ = case
    xs = np.stack([x + 0.01 * i for i in range(batch)])

    def f(a):
        return E.mul(fn(a), a)
    out = pf.vmap(f)(T(xs)).numpy()
    for i in range(batch):
        np.testing.assert_allclose(out[i], f(T(xs[i])).numpy(), rtol=1e-13, err_msg=name)


@given(st.data())
def test_grad_of_grad_matches_second_derivative(data):
    x = data.draw(hnp.arrays(np.float64, (3,), elements=st.floats(-2.0, 2.0)))
    d2 = pf.grad(lambda x: _total(pf.grad(lambda y: _total(E.mul(E.sin(y), y)))(x)))(T(x))
    np.testing.assert_allclose(d2.numpy(), 2 * np.cos(x) - x * np.sin(x), rtol=1e-12, atol=1e-12)
