"""custom_jvp / custom_vjp ported from JAX's custom-derivatives notebook and autodiff cookbook, cell by cell, with
JAX's numbers (recorded from jax 0.10.2 by examples/jax_tutorials/record_jax.py into jax_numbers.json; the
notebook's functions themselves are ported in examples/jax_tutorials/custom_derivatives.py)."""
import os
import sys
from functools import partial

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import custom_jvp, custom_vjp, grad, jit, vmap

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "jax_tutorials")
sys.path.insert(0, EXAMPLES)
from common import jax_numbers  # noqa: E402
from custom_derivatives import (  # noqa: E402  (the notebook's functions, ported in the example)
    clip_gradient, conv_f, log1pexp, log1pexp_plain, newton_sqrt, safe_norm)

JAX = jax_numbers("custom_derivatives")



def close(name, got):
    got = np.asarray(paddle.tree_map(lambda t: t.numpy(), got) if not isinstance(got, (list, tuple)) else
                     [np.asarray(g) for g in got], dtype=np.float32)
    np.testing.assert_allclose(got, np.asarray(JAX[name], dtype=np.float32), rtol=2e-6, atol=1e-7, err_msg=name)


def t(x):
    return paddle.to_tensor(x, dtype="float32")


# ----------------------------------------------------------------------------------------------- log1pexp

def test_log1pexp():
    with np.errstate(all="ignore"):  # exp(100) overflows: the plain gradient is nan, as in JAX
        close("log1pexp_plain_grad_100", grad(log1pexp_plain)(t(100.)))
    close("log1pexp_grad_100", grad(log1pexp)(t(100.)))
    close("log1pexp_jit_grad_3", jit(grad(log1pexp))(t(3.)))
    close("log1pexp_vmap_jit_grad", vmap(jit(grad(log1pexp)))(paddle.arange(3.)))


def test_differentiation_convention():
    close("convention_grad_0", grad(conv_f)(t(0.)))


# ----------------------------------------------------------------------------------------------- clip_gradient

def test_clip_gradient_keeps_python_residuals():
    ts = paddle.linspace(0, 10, 11)
    close("clip_sin_grads", vmap(grad(lambda x: paddle.sin(clip_gradient(-0.75, 0.75, x))))(ts))
    close("clip_sin_grads", paddle.stack([grad(lambda x: paddle.sin(clip_gradient(-0.75, 0.75, x)))(x) for x in ts]))


# ----------------------------------------------------------------------------------------------- Python control flow

@custom_jvp
def branchy(x):
    if x > 0:
        return paddle.sin(x)
    return paddle.cos(x)


@branchy.defjvp
def branchy_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = branchy(x)
    return ans, (2 * x_dot if x > 0 else 3 * x_dot)


def test_python_control_flow_runs_on_concrete_values():
    close("branchy_value_1", branchy(1.))
    close("branchy_value_1", branchy(t(1.)))
    close("branchy_grads", [grad(branchy)(t(1.)), grad(branchy)(t(-1.))])


def test_traced_control_flow_error_does_not_mention_compiling():
    with pytest.raises(paddle.ConcretizationError) as e:
        vmap(branchy)(t([1., -1.]))
    assert "compiled" not in str(e.value) and "static_argnums" not in str(e.value)


# ----------------------------------------------------------------------------------------------- defjvps, custom_vjp

@custom_jvp
def sin_mul(x, y):
    return paddle.sin(x) * y


sin_mul.defjvps(lambda x_dot, ans, x, y: paddle.cos(x) * x_dot * y, lambda y_dot, ans, x, y: paddle.sin(x) * y_dot)


@custom_vjp
def sin_mul_vjp(x, y):
    return paddle.sin(x) * y


sin_mul_vjp.defvjp(lambda x, y: (paddle.sin(x) * y, (paddle.cos(x), paddle.sin(x), y)),
                   lambda res, g: (res[0] * g * res[2], res[1] * g))


def test_defjvps_and_custom_vjp():
    close("defjvps_grads", grad(sin_mul, (0, 1))(t(2.), t(3.)))
    close("custom_vjp_grads", grad(sin_mul_vjp, (0, 1))(t(2.), t(3.)))
    close("custom_vjp_grads", jit(grad(sin_mul_vjp, (0, 1)))(t(2.), t(3.)))


def test_defjvps_none_is_a_zero_tangent():
    @custom_jvp
    def f(x, y):
        return x * y

    f.defjvps(None, lambda ty, ans, x, y: x * ty)
    gx, gy = grad(f, (0, 1))(t(2.), t(5.))
    assert (gx.item(), gy.item()) == (0.0, 2.0)
    with pytest.raises(TypeError, match="nondiff_argnums"):
        custom_jvp(lambda g, x: g(x), nondiff_argnums=(0,)).defjvps(None)


# ----------------------------------------------------------------------------------------------- nondiff_argnums

@partial(custom_jvp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)


@app.defjvp
def app_jvp(f, primals, tangents):
    x, = primals
    x_dot, = tangents
    return f(x), 2. * x_dot


@partial(custom_vjp, nondiff_argnums=(0,))
def app2(f, x):
    return f(x)


app2.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))


def test_nondiff_args_come_first_to_the_rules():
    close("app_jvp_value", app(lambda x: x ** 3, t(3.)))
    close("app_jvp_grad", grad(app, 1)(lambda x: x ** 3, t(3.)))
    close("app_vjp_grad", grad(app2, 1)(lambda x: x ** 2, t(4.)))
    close("app_vjp_grad", vmap(lambda x: grad(app2, 1)(lambda x: x ** 2, x))(t([4.]))[0])


def test_nondiff_argnames_and_keywords():
    @partial(custom_vjp, nondiff_argnames=("scale",))
    def scaled(x, scale):
        return x * scale

    scaled.defvjp(lambda x, scale: (x * scale, None), lambda scale, res, g: (g * scale * 10,))
    assert scaled.nondiff_argnums == (1,)
    assert grad(lambda x: scaled(x, scale=2.0))(t(1.)).item() == 20.0


def test_traced_nondiff_arg_of_custom_vjp_is_refused():
    with pytest.raises(paddle.TransformError, match="nondiff_argnums"):
        grad(lambda s: app2(s, t(1.)))(t(1.))


# ----------------------------------------------------------------------------------------------- fixed_point

def test_implicit_differentiation_of_a_fixed_point():
    close("newton_sqrt", newton_sqrt(t(2.)))
    close("newton_sqrt_grad", grad(newton_sqrt)(t(2.)))
    close("newton_sqrt_grad_grad", grad(grad(newton_sqrt))(t(2.)))
    close("newton_sqrt_jit_grad", jit(grad(newton_sqrt))(t(2.)))


# ----------------------------------------------------------------------------------------------- safe norm

def test_safe_norm():
    close("safe_norm_grads", [grad(safe_norm)(paddle.zeros([2])), grad(safe_norm)(t([3., 4.]))])


# ----------------------------------------------------------------------------------------------- how often things run

def test_primal_runs_once_per_differentiated_call_as_in_jax():
    calls = {"fun": 0, "fwd": 0, "bwd": 0}

    @custom_vjp
    def counted(x):
        calls["fun"] += 1
        return paddle.sin(x)

    def counted_fwd(x):
        calls["fwd"] += 1
        return paddle.sin(x), paddle.cos(x)

    def counted_bwd(c, g):
        calls["bwd"] += 1
        return (c * g,)

    counted.defvjp(counted_fwd, counted_bwd)
    grad(counted)(t(1.))
    assert calls == JAX["custom_vjp_calls_under_grad"]
    calls.update(fun=0, fwd=0, bwd=0)
    counted(t(1.))
    assert calls == JAX["custom_vjp_calls_plain"]


def test_symbolic_zeros():
    seen = {}

    @custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen["ty"] = type(ty).__name__
        return f(x, y), tx * y

    f.defjvp(f_jvp, symbolic_zeros=True)
    assert grad(f)(t(2.), t(3.)).item() == 3.0 and seen["ty"] == "SymbolicZero"

    @custom_vjp
    def g(x, y):
        return x * y

    def g_fwd(x, y):
        seen["perturbed"] = (x.perturbed, y.perturbed)
        return x.value * y.value, (x.value, y.value)

    g.defvjp(g_fwd, lambda res, ct: (ct * res[1], None), symbolic_zeros=True)
    assert grad(g)(t(2.), t(3.)).item() == 3.0 and seen["perturbed"] == (True, False)


def test_optimize_remat_reruns_fwd_in_bwd():
    runs = []

    @custom_vjp
    def f(x):
        return paddle.sin(x)

    def f_fwd(x):
        runs.append(1)
        return paddle.sin(x), {"cos": paddle.cos(x), "note": "any Python object"}

    f.defvjp(f_fwd, lambda res, g: (res["cos"] * g,), optimize_remat=True)
    assert abs(grad(f)(t(0.5)).item() - np.cos(0.5)) < 1e-6 and len(runs) == 2
    with pytest.raises(NotImplementedError):
        f.defvjp(f_fwd, lambda res, g: (g,), symbolic_zeros=True, optimize_remat=True)


def test_rule_mistakes_are_named():
    @custom_vjp
    def f(x):
        return x

    f.defvjp(lambda x: (x, None), lambda res, g: g)
    with pytest.raises(paddle.TransformError, match="bwd rule of custom_vjp function f must return a tuple"):
        grad(f)(t(1.))
    f.defvjp(lambda x: x, lambda res, g: (g,))
    with pytest.raises(paddle.TransformError, match="fwd rule of custom_vjp function f must return a pair"):
        grad(f)(t(1.))
