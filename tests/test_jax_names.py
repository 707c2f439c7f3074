"""The names a JAX port reaches for and jnp.array of traced values: each against numpy
(which jax.numpy follows for these) or JAX's documented behaviour, with Paddle's own names unchanged."""
from typing import NamedTuple

import numpy as np
import pytest

import paddle_fn as paddle


def test_vdot_tensordot_and_the_stacks_follow_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3)).astype("float32"), rng.normal(size=(2, 3)).astype("float32")
    np.testing.assert_allclose(paddle.vdot(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(), np.vdot(a, b), rtol=1e-6)
    assert paddle.vdot(paddle.to_tensor(a), paddle.to_tensor(b)).shape == []
    with pytest.raises(paddle.ShapeError, match="vdot"):
        paddle.vdot(paddle.ones([2]), paddle.ones([3]))
    # Paddle's dot keeps its meaning: row-wise products of 2-D inputs
    np.testing.assert_allclose(paddle.dot(paddle.to_tensor(a), paddle.to_tensor(b)).numpy(), (a * b).sum(1), rtol=1e-6)
    x, y = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4, 5))
    np.testing.assert_allclose(paddle.tensordot(paddle.to_tensor(x), paddle.to_tensor(y), 2).numpy(),
                               np.tensordot(x, y, 2), rtol=1e-12)
    np.testing.assert_allclose(paddle.tensordot(paddle.to_tensor(x), paddle.to_tensor(y), ([1], [0])).numpy(),
                               np.tensordot(x, y, ([1], [0])), rtol=1e-12)
    u, v = np.arange(3.0), np.arange(3.0, 6.0)
    for name in ("vstack", "hstack", "dstack"):
        got = getattr(paddle, name)([paddle.to_tensor(u), paddle.to_tensor(v)]).numpy()
        np.testing.assert_array_equal(got, getattr(np, name)([u, v]), err_msg=name)


def test_constants_array_asarray_transpose_and_bool_mean():
    assert (paddle.pi, paddle.e) == (np.pi, np.e) and paddle.inf == np.inf and np.isnan(paddle.nan)
    assert paddle.array([[1, 2]], dtype="float32").dtype == paddle.float32
    assert paddle.asarray(np.arange(3)).tolist() == [0, 1, 2]
    x = paddle.to_tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(paddle.transpose(x).numpy(), x.numpy().T)
    np.testing.assert_array_equal(x.transpose().numpy(), x.T.numpy())
    assert paddle.transpose(x, [0, 2, 1]).shape == [2, 4, 3]  # Paddle's form unchanged
    m = paddle.mean(paddle.to_tensor([True, False, True, True]))
    assert m.dtype == paddle.float32 and m.item() == 0.75
    np.testing.assert_array_equal(paddle.mean(paddle.to_tensor([[True, False], [True, True]]), axis=1).numpy(),
                                  [0.5, 1.0])


def test_block_until_ready_device_get_put_and_counts():
    y = paddle.jit(lambda v: v * 2.0)(paddle.ones([2]))
    assert y.block_until_ready() is y
    tree = {"a": y, "b": [paddle.zeros([1]), 3]}
    assert paddle.block_until_ready(tree)["a"] is y
    got = paddle.device_get(tree)
    assert isinstance(got["a"], np.ndarray) and got["a"].tolist() == [2.0, 2.0] and got["b"][1] == 3
    put = paddle.device_put({"w": np.ones(2, np.float32), "b": [paddle.zeros([1])]})
    assert isinstance(put["w"], paddle.Tensor) and put["b"][0].tolist() == [0.0]
    assert paddle.device_count() == len(paddle.devices(paddle.devices()[0].platform)) >= 1
    assert paddle.local_device_count() == paddle.device_count()


class Pair(NamedTuple):
    a: object
    b: object


def test_tree_functions():
    t = {"x": [1, 2], "y": Pair(3, None)}
    leaves, treedef = paddle.tree.flatten(t)
    assert leaves == [1, 2, 3] and paddle.tree.leaves(t) == leaves
    assert paddle.tree.unflatten(treedef, [10, 20, 30]) == {"x": [10, 20], "y": Pair(30, None)}
    assert paddle.tree.structure(t) == treedef
    assert paddle.tree.map(lambda u, v: u * v, t, t) == {"x": [1, 4], "y": Pair(9, None)}
    assert paddle.tree.reduce(lambda u, v: u + v, t, 100) == 106 and paddle.tree.all(t)
    assert paddle.tree.leaves([1, (2, 3)], is_leaf=lambda n: isinstance(n, tuple)) == [1, (2, 3)]


def test_check_grads_accepts_right_and_catches_wrong_derivatives():
    x = paddle.to_tensor([0.3, -0.7, 1.1], dtype="float64")
    paddle.test_util.check_grads(lambda v: paddle.tanh(v) * v, (x,), order=2, modes=("fwd", "rev", "lin"))
    paddle.test_util.check_grads(lambda v, w: (v * w).sum(), (x, x), order=1, eps=1e-3)

    @paddle.custom_jvp
    def wrong(v):
        return paddle.sin(v)

    wrong.defjvp(lambda p, t: (wrong(*p), 1.1 * paddle.cos(p[0]) * t[0]))
    for mode in ("fwd", "rev", "lin"):
        with pytest.raises(AssertionError):
            paddle.test_util.check_grads(wrong, (x,), order=1, modes=(mode,))
    with pytest.raises(ValueError, match="modes"):
        paddle.test_util.check_grads(paddle.sin, (x,), order=1, modes=("backward",))


def test_to_tensor_and_array_of_traced_values_stack():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    want = np.stack([x.numpy(), 2 * x.numpy(), np.ones(3)], axis=1)
    np.testing.assert_array_equal(paddle.vmap(lambda v: paddle.to_tensor([v, v * 2, 1.0]))(x).numpy(), want)
    np.testing.assert_array_equal(paddle.vmap(lambda v: paddle.array([v, v * 2, 1.0]))(x).numpy(), want)
    np.testing.assert_array_equal(paddle.vmap(lambda v: paddle.asarray([v, v * 2, 1.0]))(x).numpy(), want)
    got = paddle.jit(lambda v: paddle.to_tensor([[v[0], v[1]], [v[2], 0.0]]))(x)
    np.testing.assert_array_equal(got.numpy(), [[1.0, 2.0], [3.0, 0.0]])
    assert paddle.jit(lambda v: paddle.to_tensor([v[0], 1], dtype="float64"))(x).dtype == paddle.float64
    np.testing.assert_array_equal(paddle.grad(lambda v: paddle.to_tensor([v[0] * 2, v[1]]).sum())(x).numpy(),
                                  [2.0, 1.0, 0.0])
    pm = paddle.pmap(lambda v: paddle.to_tensor([v, -v]))(paddle.to_tensor([[1.0, 2.0]]))
    np.testing.assert_array_equal(np.asarray(pm.numpy()), [[[1.0, 2.0], [-1.0, -2.0]]])
    with pytest.raises(ValueError, match="ragged"):
        paddle.jit(lambda v: paddle.to_tensor([v, v[:2]]))(x)


def test_grad_names_unknown_keywords_and_accepts_allow_int():
    f = lambda x, n: (x * n.astype("float32")).sum()  # noqa: E731
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'") as e:
        paddle.grad(f, bogus=True)
    assert "tape" not in str(e.value)
    gx, gn = paddle.grad(f, argnums=(0, 1), allow_int=True)(paddle.ones([2]), paddle.to_tensor([2, 3]))
    assert gx.tolist() == [2.0, 3.0] and gn.tolist() == [0, 0] and gn.dtype == paddle.int64
    with pytest.raises(paddle.TransformError, match="allow_int=True"):
        paddle.grad(f, argnums=1)(paddle.ones([2]), paddle.to_tensor([2, 3]))
    (v, _), g = paddle.value_and_grad(lambda x, n: ((x * 2).sum(), n), has_aux=True, allow_int=True)(
        paddle.ones([2]), paddle.to_tensor(1))
    assert v.item() == 4.0 and g.tolist() == [2.0, 2.0]


def test_traced_value_errors_name_the_transform_and_its_own_static_knob():
    def branchy(x):
        return x if x.sum() > 0 else -x

    with pytest.raises(paddle.ConcretizationError) as e:
        paddle.jit(branchy)(paddle.ones([2]))
    assert "compiled" in str(e.value) and "jit's static_argnums" in str(e.value)
    with pytest.raises(paddle.ConcretizationError) as e:
        paddle.pmap(branchy)(paddle.ones([1, 2]))
    assert "static_broadcasted_argnums" in str(e.value) and "jit's static_argnums" not in str(e.value)
    for transform in (paddle.vmap(branchy), paddle.vmap(paddle.grad(lambda x: branchy(x).sum()))):
        with pytest.raises(paddle.ConcretizationError) as e:
            transform(paddle.ones([3, 2]))
        assert "compiled" not in str(e.value) and "static_argnums" not in str(e.value)


def test_named_scope_names_the_ir_and_the_stablehlo():
    def f(x):
        with paddle.named_scope("block"):
            y = paddle.sin(x) * 2.0
            with paddle.named_scope("inner"):
                y = paddle.cumsum(y)
        return y + 1.0

    x = paddle.to_tensor([3.0, -1.0, 2.0])
    ir = str(paddle.make_ir(f)(x)).splitlines()
    assert [line.split("# ")[-1] for line in ir if "= sin" in line or "= cumsum" in line] == ["block", "block/inner"]
    assert not any("#" in line for line in ir if "= add" in line)  # outside the scope: no name
    text = paddle.jit(f).lower(x).as_text()
    assert 'loc("block")' in text and 'loc("block/inner")' in text
    np.testing.assert_allclose(paddle.jit(f)(x).numpy(), f(x).numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="non-empty string"):
        with paddle.named_scope(""):
            pass
