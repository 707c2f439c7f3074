"""Transform composition: grad/jvp/vjp/linearize/vmap/jacobians/custom rules, nested in any order."""
import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn.core.errors import ConcretizationError, EscapedTracerError, TransformError, UnsupportedError
from paddle_fn.prims import elementwise as E
from paddle_fn.prims.reduction import reduce_sum
from paddle_fn.prims.structural import broadcast_in_dim

T = pf.Tensor


def t(x, dtype="float64"):
    return T(np.asarray(x, dtype=dtype))


def total(x):
    return reduce_sum(x, axes=tuple(range(x.ndim)))


def scal(v, like):
    return broadcast_in_dim(T(np.asarray(v, like.dtype.np)), shape=tuple(like.shape), broadcast_dimensions=())


def f_sin_sum(x):
    return total(E.sin(x))


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float64", 1e-14)])
def test_grad_matches_closed_form(dtype, tol):
    x = np.array([0.3, -1.2, 2.0], dtype)
    g = pf.grad(lambda x: total(E.mul(E.sin(x), x)))(t(x, dtype))
    assert g.dtype == dtype
    np.testing.assert_allclose(g.numpy(), np.sin(x) + x * np.cos(x), rtol=tol, atol=tol)


def test_higher_order_grads():
    def f(x):
        return E.sin(total(x))
    x = t([0.7])
    d1 = pf.grad(f)
    d2 = pf.grad(lambda x: total(d1(x)))
    d3 = pf.grad(lambda x: total(d2(x)))
    d4 = pf.grad(lambda x: total(d3(x)))
    np.testing.assert_allclose(d1(x).numpy(), np.cos(0.7), rtol=1e-14)
    np.testing.assert_allclose(d2(x).numpy(), -np.sin(0.7), rtol=1e-14)
    np.testing.assert_allclose(d3(x).numpy(), -np.cos(0.7), rtol=1e-14)
    np.testing.assert_allclose(d4(x).numpy(), np.sin(0.7), rtol=1e-14)


def test_hessian_vector_product_by_jvp_of_grad():
    A = np.array([[2.0, 1.0], [1.0, 3.0]])

    def f(x):  # 0.5 x^T A x + sum(sin x)
        return 0.5 * pf.sum(x * pf.matmul(t(A), x)) + pf.sum(pf.sin(x))

    x, v = np.array([0.4, -0.3]), np.array([1.0, 2.0])
    _, hvp = pf.jvp(pf.grad(f), (t(x),), (t(v),))
    H = A + np.diag(-np.sin(x))
    np.testing.assert_allclose(hvp.numpy(), H @ v, rtol=1e-13)
    np.testing.assert_allclose(pf.hessian(f)(t(x)).numpy(), H, rtol=1e-13)


def test_pytrees_in_and_out():
    def loss(params, x):
        y = E.add(E.mul(params["w"], x), params["b"])
        return total(E.mul(y, y))
    p = {"w": t([1.0, 2.0]), "b": t([0.5, -0.5])}
    x = t([3.0, 4.0])
    g = pf.grad(loss)(p, x)
    assert set(g) == {"w", "b"}
    y = np.array([3.5, 7.5])
    np.testing.assert_allclose(g["w"].numpy(), 2 * y * np.array([3.0, 4.0]))
    np.testing.assert_allclose(g["b"].numpy(), 2 * y)
    gp, gx = pf.grad(loss, argnums=(0, 1))(p, x)
    np.testing.assert_allclose(gx.numpy(), 2 * y * np.array([1.0, 2.0]))
    out, vjp_fn = pf.vjp(lambda a, b: {"s": E.mul(a, b), "t": (E.sin(a),)}, t([1.0]), t([2.0]))
    ga, gb = vjp_fn({"s": t([1.0]), "t": (t([1.0]),)})
    np.testing.assert_allclose(ga.numpy(), [2.0 + np.cos(1.0)])
    np.testing.assert_allclose(gb.numpy(), [1.0])


def test_has_aux_and_value_and_grad():
    def f(x):
        return total(E.mul(x, x)), {"norm": total(x), "n": 3}
    (v, aux), g = pf.value_and_grad(f, has_aux=True)(t([1.0, 2.0]))
    assert float(v) == 5.0 and float(aux["norm"]) == 3.0 and int(aux["n"]) == 3
    assert not isinstance(aux["norm"], pf.core.trace.Tracer)
    g2, aux2 = pf.grad(f, has_aux=True)(t([1.0, 2.0]))
    np.testing.assert_allclose(g2.numpy(), [2.0, 4.0])


def test_python_control_flow_on_values_inside_grad():
    def f(x):
        if float(total(x)) > 0:
            return total(E.sin(x))
        return total(E.cos(x))
    np.testing.assert_allclose(pf.grad(f)(t([0.5])).numpy(), [np.cos(0.5)])
    np.testing.assert_allclose(pf.grad(f)(t([-0.5])).numpy(), [np.sin(0.5)])

    def sqrt_newton(a):  # data-dependent while loop on concrete values
        x = a
        while float(E.abs(E.sub(E.mul(x, x), a)).numpy().max()) > 1e-12:
            x = E.mul(scal(0.5, x), E.add(x, E.div(a, x)))
        return total(x)
    np.testing.assert_allclose(pf.grad(sqrt_newton)(t([4.0])).numpy(), [0.25], rtol=1e-10)


def test_stop_gradient():
    g = pf.grad(lambda x: total(E.mul(x, pf.stop_gradient(x))))(t([3.0]))
    np.testing.assert_allclose(g.numpy(), [3.0])


def test_linearize_matches_jvp():
    y, f_jvp = pf.linearize(lambda x: E.exp(E.sin(x)), t([0.3, 0.9]))
    _, want = pf.jvp(lambda x: E.exp(E.sin(x)), (t([0.3, 0.9]),), (t([1.0, -2.0]),))
    np.testing.assert_allclose(f_jvp(t([1.0, -2.0])).numpy(), want.numpy(), rtol=1e-14)


# ------------------------------------------------------------------------------------------ errors

def test_grad_of_non_scalar_output_is_an_error():
    with pytest.raises(TransformError, match=r"shape \[3\].*scalar output.*vjp"):
        pf.grad(E.sin)(t([1.0, 2.0, 3.0]))


def test_grad_accepts_shape_one_output():
    g = pf.grad(E.sin)(t([0.0]))
    np.testing.assert_allclose(g.numpy(), [1.0])


def test_grad_of_integer_input_is_an_error():
    with pytest.raises(TransformError, match="int64.*astype"):
        pf.grad(lambda x: total(x))(T(np.array([1, 2])))


def test_jvp_tree_mismatch_and_bad_tangents():
    with pytest.raises(TransformError, match="pytree structures"):
        pf.jvp(lambda a, b: E.add(a, b), (t([1.0]), t([1.0])), (t([1.0]),))
    with pytest.raises(TransformError, match=r"shape \[2\].*\[1\]"):
        pf.jvp(E.sin, (t([1.0]),), (t([1.0, 2.0]),))
    with pytest.raises(TransformError, match="float32.*float64"):
        pf.jvp(E.sin, (t([1.0]),), (t([1.0], "float32"),))
    with pytest.raises(TransformError, match="tuples"):
        pf.jvp(E.sin, t([1.0]), t([1.0]))


def test_vjp_cotangent_checks():
    _, f = pf.vjp(E.sin, t([1.0, 2.0]))
    with pytest.raises(TransformError, match="shape"):
        f(t([1.0]))


def test_traced_value_to_python_bool_under_staging():
    def f(x):
        if E.gt(total(x), t(0.0)):
            return x
        return E.neg(x)
    with pytest.raises(ConcretizationError, match="cond"):
        pf.make_ir(lambda x: f(x))(t([1.0]))
    with pytest.raises(ConcretizationError, match="vmap"):
        pf.vmap(lambda x: E.sin(x) if float(x) > 0 else x)(t([1.0, -1.0]))


def test_escaped_tracer_is_detected():
    leaked = []

    def f(x):
        leaked.append(x)
        return total(E.sin(x))
    pf.grad(f)(t([1.0]))
    with pytest.raises(EscapedTracerError, match="escaped"):
        E.sin(leaked[0])


def test_escaped_tracer_error_points_at_the_users_line_through_to_static_and_layers():
    """The transform's entry is reported at the user's call, not inside paddle_fn's own packages (nn_compat's
    to_static and Layers included, wherever they are installed); a user file in a folder named like one of them
    is the user's."""
    from paddle_fn.core.packages import library_folders
    from paddle_fn.core.trace import _library_frame
    leaked = []
    layer = pf.nn.Linear(2, 2)

    def step(x):
        out = layer(x)
        leaked.append(out)
        return out.sum()
    pf.jit.to_static(step)(pf.ones([1, 2]))  # the line the error must name
    with pytest.raises(EscapedTracerError) as caught:
        E.sin(leaked[0])
    assert "test_transforms.py" in str(caught.value) and "nn_compat" not in str(caught.value)
    assert any(folder.rstrip("/\\").endswith("nn_compat") for folder in library_folders())
    assert _library_frame(pf.nn.Linear.forward.__code__.co_filename)
    assert not _library_frame("/home/someone/project/runtime/train.py")


# ------------------------------------------------------------------------------------------ vmap

def test_vmap_axes_and_composition():
    x = np.random.default_rng(0).normal(size=(4, 3))
    out = pf.vmap(lambda r: total(E.mul(r, r)))(t(x))
    np.testing.assert_allclose(out.numpy(), (x * x).sum(1))
    out = pf.vmap(lambda c: total(c), in_axes=1)(t(x))
    np.testing.assert_allclose(out.numpy(), x.sum(0))
    out = pf.vmap(lambda a, b: E.mul(a, b), in_axes=(0, None))(t(x), t(x[0]))
    np.testing.assert_allclose(out.numpy(), x * x[0])
    out = pf.vmap(E.sin, out_axes=1)(t(x))
    np.testing.assert_allclose(out.numpy(), np.sin(x).T)
    out = pf.vmap(pf.vmap(E.sin))(t(x))
    np.testing.assert_allclose(out.numpy(), np.sin(x))
    pe = pf.vmap(pf.grad(lambda w, xi: total(E.mul(E.sin(w), xi))), in_axes=(None, 0))(t(x[0]), t(x))
    np.testing.assert_allclose(pe.numpy(), np.cos(x[0]) * x)
    g = pf.grad(lambda w: total(pf.vmap(lambda xi: total(E.mul(w, xi)))(t(x))))(t(x[0]))
    np.testing.assert_allclose(g.numpy(), x.sum(0))
    _, tan = pf.jvp(pf.vmap(E.sin), (t(x),), (t(np.ones_like(x)),))
    np.testing.assert_allclose(tan.numpy(), np.cos(x))
    tan2 = pf.vmap(lambda a: pf.jvp(E.sin, (a,), (a,))[1])(t(x))
    np.testing.assert_allclose(tan2.numpy(), np.cos(x) * x)


def test_vmap_dict_in_axes_and_kwargs():
    p = {"a": t(np.ones((2, 3))), "b": t(np.arange(3.0))}
    out = pf.vmap(lambda p: E.add(p["a"], p["b"]), in_axes=({"a": 0, "b": None},))(p)
    np.testing.assert_allclose(out.numpy(), np.ones((2, 3)) + np.arange(3.0))
    out = pf.vmap(lambda x, *, y: E.mul(x, y))(t([1.0, 2.0]), y=t([3.0, 4.0]))
    np.testing.assert_allclose(out.numpy(), [3.0, 8.0])


def test_vmap_errors():
    with pytest.raises(TransformError, match="different sizes"):
        pf.vmap(E.add)(t(np.ones(3)), t(np.ones(4)))
    with pytest.raises(TransformError, match="in_axes has 3 entries"):
        pf.vmap(E.add, in_axes=(0, 0, 0))(t(np.ones(3)), t(np.ones(3)))
    with pytest.raises(TransformError, match="out of range"):
        pf.vmap(E.sin, in_axes=2)(t(np.ones((3, 2))))
    with pytest.raises(TransformError, match="out_axes is None"):
        pf.vmap(E.sin, out_axes=None)(t(np.ones(3)))
    with pytest.raises(TransformError, match="axis_size"):
        pf.vmap(E.sin, in_axes=None)(t(np.ones(3)))


def test_vmap_program_does_not_grow_with_batch():
    f = pf.vmap(lambda r: total(E.mul(E.sin(r), r)))
    small = pf.make_ir(f)(t(np.ones((2, 5))))
    big = pf.make_ir(f)(t(np.ones((512, 5))))
    assert len(small.eqns) == len(big.eqns) <= 3 * len(pf.make_ir(lambda r: total(E.mul(E.sin(r), r)))(t(np.ones(5))).eqns)


# ------------------------------------------------------------------------------------------ jacobians

def test_jacobians_match_closed_forms():
    A = np.random.default_rng(1).normal(size=(3, 2))

    def f(x):
        return pf.tanh(pf.matmul(t(A), x))
    x = np.array([0.2, -0.4])
    want = (1 - np.tanh(A @ x) ** 2)[:, None] * A
    np.testing.assert_allclose(pf.jacfwd(f)(t(x)).numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(pf.jacrev(f)(t(x)).numpy(), want, rtol=1e-13)
    np.testing.assert_allclose(pf.jacobian(f)(t(x)).numpy(), want, rtol=1e-13)


def test_jacobian_pytree_structure():
    def f(p):
        return {"u": E.mul(p["a"], p["b"]), "v": total(p["a"])}
    p = {"a": t([1.0, 2.0]), "b": t([3.0, 4.0])}
    for jac in (pf.jacfwd, pf.jacrev):
        J = jac(f)(p)
        assert set(J) == {"u", "v"} and set(J["u"]) == {"a", "b"}
        np.testing.assert_allclose(J["u"]["a"].numpy(), np.diag([3.0, 4.0]))
        np.testing.assert_allclose(J["u"]["b"].numpy(), np.diag([1.0, 2.0]))
        np.testing.assert_allclose(J["v"]["a"].numpy(), [1.0, 1.0])
        assert J["v"]["b"].shape == [2]


# ------------------------------------------------------------------------------------------ custom rules

def test_custom_jvp_is_used_by_grad_vmap_and_nested():
    @pf.custom_jvp
    def f(x):
        return E.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (tx,) = primals, tangents
        return f(x), E.mul(scal(2.0, x), tx)  # deliberately not cos, to see the rule is used

    x = t([0.1, 0.2])
    np.testing.assert_allclose(pf.grad(lambda x: total(f(x)))(x).numpy(), [2.0, 2.0])
    np.testing.assert_allclose(pf.vmap(pf.grad(lambda x: total(f(x))))(t([[0.1], [0.3]])).numpy(), [[2.0], [2.0]])
    np.testing.assert_allclose(pf.jvp(f, (x,), (t([1.0, 1.0]),))[1].numpy(), [2.0, 2.0])
    np.testing.assert_allclose(f(x).numpy(), np.sin([0.1, 0.2]))


def test_custom_vjp_is_used_by_grad_and_vmap():
    @pf.custom_vjp
    def g(x):
        return E.sin(x)

    g.defvjp(lambda x: (E.sin(x), (x,)), lambda res, ct: (E.mul(ct, scal(3.0, res[0])),))
    x = t([0.5, 1.5])
    np.testing.assert_allclose(pf.grad(lambda x: total(g(x)))(x).numpy(), [3.0, 3.0])
    np.testing.assert_allclose(pf.vmap(pf.grad(lambda x: total(g(x))))(t([[0.5], [1.0]])).numpy(), [[3.0], [3.0]])
    np.testing.assert_allclose(pf.grad(lambda x: total(pf.vmap(g)(x)))(t([[0.5], [1.0]])).numpy(), [[3.0], [3.0]])
    with pytest.raises(UnsupportedError, match="forward-mode"):
        pf.jvp(g, (x,), (x,))


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-6), ("float64", 1e-13)])
def test_hessian_of_pytree_function_in_both_precisions(dtype, tol):
    import paddle_fn as paddle
    rng = np.random.default_rng(4)
    A = rng.normal(size=(3, 3)).astype(dtype)
    p = {"x": paddle.to_tensor(rng.normal(size=3).astype(dtype)), "s": paddle.to_tensor(np.array([0.7], dtype))}

    def f(p):
        return paddle.sum(paddle.tanh(paddle.matmul(paddle.to_tensor(A), p["x"])) ** 2) * p["s"]

    H = paddle.hessian(f)(p)
    x, s = p["x"].numpy().astype(np.float64), float(p["s"].numpy()[0])
    t = np.tanh(A.astype(np.float64) @ x)
    w = 2 * (1 - t * t) * (1 - 3 * t * t)
    Hxx = s * (A.T * w) @ A
    Hxs = (A.T @ (2 * t * (1 - t * t)))
    assert H["x"]["x"].dtype == dtype and H["x"]["x"].shape == [3, 3] and H["x"]["s"].shape == [3, 1]
    np.testing.assert_allclose(H["x"]["x"].numpy(), Hxx, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(H["x"]["s"].numpy()[:, 0], Hxs, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(H["s"]["s"].numpy(), [[0.0]], atol=tol)


def test_vmap_negative_axes():
    import paddle_fn as paddle
    x = np.arange(12.0).reshape(3, 4)
    out = paddle.vmap(lambda c: c * 2.0, in_axes=-1, out_axes=-1)(paddle.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), x * 2.0)
    out = paddle.vmap(lambda r: paddle.sum(r), in_axes=-2)(paddle.to_tensor(x))
    assert out.shape == [3]
    np.testing.assert_allclose(out.numpy(), x.sum(1))
    out = paddle.vmap(lambda r: r + 1.0, axis_name="batch")(paddle.to_tensor(x))
    np.testing.assert_allclose(out.numpy(), x + 1.0)
