"""paddle_fn.incubate.autograd (Paddle 2.3 semantics) and paddle_fn.autograd.jacobian / hessian."""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import autograd as functional_autograd
from paddle_fn.incubate import autograd as incubate_autograd
from paddle_fn.incubate.autograd import Hessian, Jacobian


@pytest.fixture(autouse=True)
def _default_dtype():
    paddle.set_default_dtype("float32")
    yield
    paddle.set_default_dtype("float32")


def _f64(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


RNG = np.random.default_rng(0)
X3 = RNG.normal(size=(3,))
Y22 = RNG.normal(size=(2, 2))
XB = RNG.normal(size=(4, 3))


def two_in_two_out(x, y):
    return paddle.sin(x)[:2] * paddle.sum(y, axis=0), paddle.exp(y) * x[0]


def dense_jacobian(x, y):
    """The flattened, concatenated Jacobian of two_in_two_out from jacrev's blocks."""
    blocks = paddle.jacrev(two_in_two_out, argnums=(0, 1))(x, y)
    sizes_out, sizes_in = (2, 4), (3, 4)
    return np.block([[blocks[i][j].numpy().reshape(sizes_out[i], sizes_in[j]) for j in range(2)] for i in range(2)])


def batched_func(x):
    return paddle.tanh(x) * paddle.sum(x * x, axis=1, keepdim=True)


# ----------------------------------------------------------------------------------------------- Paddle's doc examples

def test_vjp_doc_example():
    def func(x):
        return paddle.matmul(x, x)
    x = paddle.ones(shape=[2, 2], dtype="float32")
    out, vjp_result = incubate_autograd.vjp(func, x)
    np.testing.assert_array_equal(out.numpy(), [[2, 2], [2, 2]])
    np.testing.assert_array_equal(vjp_result.numpy(), [[4, 4], [4, 4]])
    _, vjp_result = incubate_autograd.vjp(func, x, paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_array_equal(vjp_result.numpy(), [[2, 1], [1, 0]])


def test_jvp_doc_example():
    def func(x):
        return paddle.matmul(x, x)
    x = paddle.ones(shape=[2, 2], dtype="float32")
    _, jvp_result = incubate_autograd.jvp(func, x)
    np.testing.assert_array_equal(jvp_result.numpy(), [[4, 4], [4, 4]])
    _, jvp_result = incubate_autograd.jvp(func, x, paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_array_equal(jvp_result.numpy(), [[2, 1], [1, 0]])


def test_jacobian_doc_example():
    x = paddle.to_tensor([[1., 2.], [3., 4.]])
    J = Jacobian(lambda x, y: paddle.matmul(x, y), [x, x])
    assert J.shape == (4, 8)
    np.testing.assert_array_equal(J[:, :].numpy(), [[1, 3, 0, 0, 1, 0, 2, 0],
                                                   [2, 4, 0, 0, 0, 1, 0, 2],
                                                   [0, 0, 1, 3, 3, 0, 4, 0],
                                                   [0, 0, 2, 4, 0, 3, 0, 4]])


def test_hessian_doc_example():
    h = Hessian(lambda x: paddle.sum(x * x), paddle.rand([2, 2]))
    assert h.shape == (4, 4)
    np.testing.assert_array_equal(h[:].numpy(), 2 * np.eye(4))


# ----------------------------------------------------------------------------------------------- vjp / jvp

def test_vjp_and_jvp_on_sequences_keep_paddle_structure():
    paddle.set_default_dtype("float64")
    x, y = _f64(X3), _f64(Y22)
    out, grads = incubate_autograd.vjp(two_in_two_out, [x, y])
    assert isinstance(out, tuple) and isinstance(grads, tuple) and len(grads) == 2
    assert grads[0].shape == [3] and grads[1].shape == [2, 2]
    J = dense_jacobian(x, y)
    np.testing.assert_allclose(np.concatenate([grads[0].numpy(), grads[1].numpy().ravel()]), J.sum(0), rtol=1e-12)
    v = (_f64([1.0, -2.0]), _f64(np.arange(4.0).reshape(2, 2)))
    tangent = (_f64([0.5, 1.0, -1.0]), _f64([[1.0, 0.0], [2.0, 3.0]]))
    _, grads = incubate_autograd.vjp(two_in_two_out, [x, y], v)
    flat_v = np.concatenate([v[0].numpy(), v[1].numpy().ravel()])
    np.testing.assert_allclose(np.concatenate([grads[0].numpy(), grads[1].numpy().ravel()]), flat_v @ J, rtol=1e-12)
    _, jvps = incubate_autograd.jvp(two_in_two_out, [x, y], tangent)
    assert isinstance(jvps, tuple) and jvps[0].shape == [2] and jvps[1].shape == [2, 2]
    flat_t = np.concatenate([tangent[0].numpy(), tangent[1].numpy().ravel()])
    np.testing.assert_allclose(np.concatenate([jvps[0].numpy(), jvps[1].numpy().ravel()]), J @ flat_t, rtol=1e-12)


def test_func_out_is_returned_as_func_returned_it():
    out, _ = incubate_autograd.vjp(lambda x: [x * 2, x * 3], paddle.ones([2]))
    assert isinstance(out, list) and len(out) == 2
    out, tangent = incubate_autograd.jvp(lambda x: x * 2, [paddle.ones([2])])
    assert isinstance(out, paddle.Tensor) and isinstance(tangent, paddle.Tensor)


def test_vjp_jvp_errors():
    x = paddle.ones([2, 2])
    with pytest.raises(RuntimeError, match=r"v\[0\] has invalid shape: should be paddle.Size\(\[2, 2\]\)"):
        incubate_autograd.vjp(lambda x: x * 2, x, paddle.ones([4]))
    with pytest.raises(RuntimeError, match="invalid length"):
        incubate_autograd.vjp(lambda x: x * 2, x, [paddle.ones([2, 2])] * 2)
    with pytest.raises(RuntimeError, match="invalid shape"):
        incubate_autograd.jvp(lambda x: paddle.sum(x), x, paddle.ones([1]))
    with pytest.raises(TypeError, match="'xs' to be a Tensor"):
        incubate_autograd.vjp(lambda x: x, np.ones(2))
    with pytest.raises(TypeError, match="callable"):
        incubate_autograd.jvp(x, x)


# ----------------------------------------------------------------------------------------------- Paddle's module layout

def test_as_tensors_lives_in_incubate_autograd_utils():
    # Paddle's own tests import it from there: `from paddle.incubate.autograd.utils import as_tensors`
    from paddle_fn.incubate.autograd.utils import as_tensors
    x, y = paddle.ones([2]), paddle.zeros([3])
    assert as_tensors(x) == (x,) and as_tensors(x)[0] is x
    pair = as_tensors([x, y])
    assert isinstance(pair, tuple) and pair[0] is x and pair[1] is y
    assert as_tensors(None) is None   # neither a Tensor nor a sequence: returned as given, like Paddle


def test_results_are_base_framework_variables():
    # Paddle code type-checks Tensors with paddle.base.framework.Variable; every Tensor is one in dynamic mode
    _, grad = incubate_autograd.vjp(paddle.tanh, paddle.rand((3, 4)))
    assert isinstance(grad, paddle.base.framework.Variable)
    assert paddle.jit(lambda x: isinstance(x, paddle.base.framework.Variable) and x)(paddle.ones([1])).shape == [1]
    assert not isinstance(np.ones(2), paddle.base.framework.Variable)


def test_jvp_of_a_reduction_is_0d_as_in_paddle_3():
    # a full reduction is 0-D in Paddle 3, so its JVP is a 0-D Tensor (not a 1-element sequence to iterate)
    out, tangent = incubate_autograd.jvp(paddle.sum, paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert isinstance(tangent, paddle.Tensor) and tangent.shape == [] and out.shape == []
    assert float(tangent) == 4.0
    with pytest.raises(TypeError, match="0-d"):
        list(tangent)


def test_autograd_imports_only_public_names_of_other_packages():
    # paddle_fn.autograd shares the lazy engine with incubate.autograd through its public module, not private names
    import ast
    import pathlib
    folder = pathlib.Path(functional_autograd.__file__).parent
    private = [f"{path.name}: from {node.module} import {alias.name}"
               for path in folder.glob("*.py")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ImportFrom) and node.module and not node.module.startswith("paddle_fn.autograd")
               for alias in node.names if alias.name.startswith("_")]
    assert not private, private


# ----------------------------------------------------------------------------------------------- Jacobian

def test_jacobian_matches_jacrev_and_indexes_like_a_tensor():
    paddle.set_default_dtype("float64")
    x, y = _f64(X3), _f64(Y22)
    J = Jacobian(two_in_two_out, [x, y])
    dense = dense_jacobian(x, y)
    assert J.shape == (6, 7)
    for index in [slice(None), 1, -1, (slice(1, 5), slice(2, 6)), (-1, -2),
                  (slice(None, None, -2), slice(None, None, -3)), (slice(None), 3), (slice(4, 1, -1), 0)]:
        np.testing.assert_allclose(np.squeeze(J[index].numpy()), dense[index], rtol=1e-12, atol=1e-15)
    assert J[0].shape == [7] and J[:, 0].shape == [6] and J[0, 0].shape == [] and J[3:3].shape == [0, 7]


def test_jacobian_is_lazy_and_caches_rows():
    calls = []

    def func(x):
        calls.append(1)
        return paddle.sin(x) * 2.0

    x = paddle.to_tensor([0.1, 0.2, 0.3, 0.4, 0.5])
    J = Jacobian(func, x)
    engine = J._block._engine
    assert len(calls) == 1 and engine.blocks == []        # func runs once, at construction (as in Paddle)
    J[1]
    assert [b.shape for b in engine.blocks] == [[1, 5]]    # one row: one VJP
    J[1:4]
    assert [b.shape for b in engine.blocks] == [[1, 5], [2, 5]]   # rows 2, 3 in one vmapped VJP; row 1 cached
    full = J[:]
    assert [b.shape for b in engine.blocks] == [[1, 5], [2, 5], [2, 5]]
    J[:, 2], J[4, 1:]
    assert len(engine.blocks) == 3 and len(calls) == 1
    np.testing.assert_allclose(full.numpy(), np.diag(2 * np.cos(x.numpy())), rtol=1e-6)


def test_jacobian_full_matrix_is_one_vmapped_vjp():
    J = Jacobian(lambda x: paddle.tanh(x), paddle.to_tensor([0.1, 0.2, 0.3]))
    J[:]
    assert [b.shape for b in J._block._engine.blocks] == [[3, 3]]


def test_jacobian_index_errors():
    J = Jacobian(lambda x: x * 2, paddle.ones([3]))
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]
    with pytest.raises(IndexError, match="out of range"):
        J[3]
    with pytest.raises(IndexError, match="too many indices"):
        J[0, 0, 0]
    with pytest.raises(TypeError, match="Not supported index type"):
        J[0.5]


def test_batched_jacobian():
    paddle.set_default_dtype("float64")
    x = _f64(XB)
    J = Jacobian(batched_func, x, is_batched=True)
    assert J.shape == (4, 3, 3)
    reference = paddle.vmap(paddle.jacrev(batched_func))(paddle.unsqueeze(x, 1)).numpy().reshape(4, 3, 3)
    np.testing.assert_allclose(J[:, 1, :].numpy(), reference[:, 1, :], rtol=1e-12)
    assert [b.shape for b in J._block._engine.blocks] == [[1, 4, 3]]
    np.testing.assert_allclose(J[:].numpy(), reference, rtol=1e-12)
    np.testing.assert_allclose(J[2, :, 1:].numpy(), reference[2, :, 1:], rtol=1e-12)
    assert J[:, 1:3, 0].shape == [4, 2]
    with pytest.raises(ValueError, match="batch size"):
        Jacobian(lambda x, y: x * 2, [paddle.ones([4, 2]), paddle.ones([3, 2])], is_batched=True)


# ----------------------------------------------------------------------------------------------- Hessian

def test_hessian_matches_paddle_hessian():
    paddle.set_default_dtype("float64")
    x, y = _f64(X3), _f64(Y22)

    def scalar(x, y):
        return paddle.sum(paddle.sin(x) ** 2) * paddle.sum(y * y * x[1])
    H = Hessian(scalar, [x, y])
    assert H.shape == (7, 7)
    blocks = paddle.hessian(scalar, argnums=(0, 1))(x, y)
    sizes = (3, 4)
    dense = np.block([[blocks[i][j].numpy().reshape(sizes[i], sizes[j]) for j in range(2)] for i in range(2)])
    np.testing.assert_allclose(H[2:5].numpy(), dense[2:5], rtol=1e-10)
    np.testing.assert_allclose(H[:].numpy(), dense, rtol=1e-10)


def test_batched_hessian():
    paddle.set_default_dtype("float64")
    x = _f64(XB)

    def per_example(x):
        return paddle.sum(paddle.sin(x) * x[:, :1], axis=1, keepdim=True)
    H = Hessian(per_example, x, is_batched=True)
    assert H.shape == (4, 3, 3)
    reference = paddle.vmap(paddle.hessian(lambda row: paddle.sum(paddle.sin(row) * row[0])))(x).numpy()
    np.testing.assert_allclose(H[:].numpy(), reference, rtol=1e-10)


def test_hessian_needs_a_single_element_output():
    with pytest.raises(RuntimeError, match="single element Tensor"):
        Hessian(lambda x: x * 2, paddle.ones([3]))
    with pytest.raises(RuntimeError, match=r"\[B, 1\]"):
        Hessian(lambda x: x * 2, paddle.ones([4, 2]), is_batched=True)


# ----------------------------------------------------------------------------------------------- transforms

def test_full_jacobian_and_hessian_under_jit():
    paddle.set_default_dtype("float64")
    x, y = _f64(X3), _f64(Y22)
    jitted = paddle.jit(lambda x, y: Jacobian(two_in_two_out, [x, y])[:])
    np.testing.assert_allclose(jitted(x, y).numpy(), dense_jacobian(x, y), rtol=1e-12, atol=1e-15)
    scalar = lambda x: paddle.sum(x ** 3) * x[0]  # noqa: E731
    hess = paddle.jit(lambda x: Hessian(scalar, x)[:])(x)
    np.testing.assert_allclose(hess.numpy(), paddle.hessian(scalar)(x).numpy(), rtol=1e-12)


def test_under_vmap_and_grad():
    paddle.set_default_dtype("float64")
    f = lambda p: paddle.sum(paddle.sin(p) ** 2) * p[0]  # noqa: E731
    points = _f64(XB)
    np.testing.assert_allclose(paddle.vmap(lambda p: Hessian(f, p)[:])(points).numpy(),
                               paddle.vmap(paddle.hessian(f))(points).numpy(), rtol=1e-12)
    g = paddle.grad(lambda x: paddle.sum(Jacobian(paddle.sin, x)[:] ** 2))(_f64(X3))
    np.testing.assert_allclose(g.numpy(), -np.sin(2 * X3), rtol=1e-12)


# ----------------------------------------------------------------------------------------------- paddle_fn.autograd

def test_functional_jacobian_blocks_and_shapes():
    paddle.set_default_dtype("float64")
    x, s = _f64(X3), _f64(np.float64(0.7))
    J = functional_autograd.jacobian(lambda x, s: (paddle.sin(x) * s, paddle.sum(x * x * s)), (x, s))
    assert [[J[i][j].shape for j in range(2)] for i in range(2)] == [[(3, 3), (3,)], [(3,), ()]]
    np.testing.assert_allclose(J[0][0][:].numpy(), np.diag(np.cos(X3) * 0.7), rtol=1e-12)
    np.testing.assert_allclose(J[0][1][:].numpy(), np.sin(X3), rtol=1e-12)
    np.testing.assert_allclose(J[1][0][:].numpy(), 2 * X3 * 0.7, rtol=1e-12)
    assert J[0][0][1, 2].shape == []
    single = functional_autograd.jacobian(paddle.tanh, x)
    assert isinstance(single, type(J[0][0])) and single.shape == (3, 3)
    batched = functional_autograd.jacobian(batched_func, _f64(XB), batch_axis=0)
    assert batched.shape == (4, 3, 3) and batched[:, 0, :].shape == [4, 3]


def test_functional_hessian_blocks():
    paddle.set_default_dtype("float64")
    a, b = _f64([1.0, 2.0]), _f64([3.0])
    H = functional_autograd.hessian(lambda a, b: paddle.sum(a * a * b), (a, b))
    np.testing.assert_allclose(H[0][0][:].numpy(), 6 * np.eye(2))
    np.testing.assert_allclose(H[0][1][:].numpy(), [[2.0], [4.0]])
    np.testing.assert_allclose(H[1][0][:].numpy(), [[2.0, 4.0]])
    Hb = functional_autograd.hessian(lambda x: paddle.sum(x ** 3, axis=1), _f64(XB), batch_axis=0)
    assert Hb.shape == (4, 3, 3)
    np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6 * row) for row in XB]), rtol=1e-12)


def test_jacobian_and_hessian_reject_bad_arguments():
    x = paddle.ones([3])
    # the tape form needs xs that record a graph; as in Paddle, that is found when a row is evaluated
    with pytest.raises(ValueError, match="stop_gradient=True"):
        functional_autograd.jacobian(x * 2, x)[:]
    with pytest.raises(ValueError, match="stop_gradient=True"):
        functional_autograd.hessian(paddle.sum(x), x)[0]
    with pytest.raises(IndexError, match="Ellipsis"):   # an indexing error comes before it
        functional_autograd.hessian(paddle.sum(x * x), x)[..., 1]
    xg = paddle.ones([3])
    xg.stop_gradient = False
    with pytest.raises(ValueError, match="single Tensor"):
        functional_autograd.hessian(xg * 2.0, xg)
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        functional_autograd.jacobian(paddle.sin, x, batch_axis=1)
    with pytest.raises(ValueError, match="0-D or 1-D"):
        functional_autograd.jacobian(paddle.sin, paddle.ones([2, 2]))
    with pytest.raises(ValueError, match="single Tensor"):
        functional_autograd.hessian(paddle.sin, x)
    with pytest.raises(IndexError, match="0-D"):   # a batched ys without axis 0: Paddle's ys[0] fails the same way
        functional_autograd.hessian(paddle.sum(xg * xg), xg, batch_axis=0)
