"""The Paddle-level Tensor API against numpy: values, shapes and dtypes exactly, Paddle 2.3 conventions
(0-D results), methods/operators, and that the composites trace and differentiate."""
import tracemalloc

import numpy as np
import pytest
import scipy.special as sps

import paddle_fn as pf
from paddle_fn import tensor as T
from paddle_fn.core.errors import DTypeError, ShapeError


RNG = np.random.default_rng(0)
A = RNG.normal(size=(3, 4))
B = RNG.normal(size=(3, 4))
POS = RNG.uniform(0.5, 2.0, size=(3, 4))
UNIT = RNG.uniform(-0.9, 0.9, size=(3, 4))


def tt(a):
    return T.to_tensor(np.asarray(a))


def check(out, expected, dtype=None, rtol=1e-6, atol=1e-9):
    expected = np.asarray(expected)
    assert out.shape == list(expected.shape), (out.shape, expected.shape)
    assert out.dtype == (dtype or expected.dtype), (out.dtype, dtype or expected.dtype)
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------------------------- to_tensor / creation

def test_to_tensor_scalars_are_0d():
    check(T.to_tensor(2.0), np.array(2.0, np.float32))
    check(T.to_tensor(2), np.array(2, np.int64))
    check(T.to_tensor(True), np.array(True))
    assert T.to_tensor([2]).shape == [1] and T.to_tensor(2).shape == []
    assert T.to_tensor(np.float64(0.5)).dtype == "float64" and T.to_tensor(np.float64(0.5)).shape == []


def test_to_tensor_dtypes_copy_and_stop_gradient():
    assert T.to_tensor([[1.0, 2.0]]).dtype == "float32"
    assert T.to_tensor([1, 2]).dtype == "int64"
    assert T.to_tensor(np.array([1.0], np.float64)).dtype == "float64"
    assert T.to_tensor(np.array([1], np.int32)).dtype == "int32"
    assert T.to_tensor([1, 2], dtype="float64").dtype == "float64"
    src = np.array([1.0, 2.0])
    x = T.to_tensor(src, stop_gradient=False)
    src[0] = 100.0
    assert x.numpy()[0] == 1.0 and x.stop_gradient is False
    operand = np.ones(2)
    T.add(T.ones([2], dtype="float64"), operand)
    operand[0] = 5.0  # an operand the caller passed stays theirs: still writable
    held = np.ones(2)
    t = pf.Tensor(held)  # as paddle.Tensor(ndarray): a copy, leaving the caller's array writable
    held[0] = 5.0
    assert t.numpy().tolist() == [1.0, 1.0] and held.flags.writeable
    assert isinstance(T.to_tensor(x), pf.Tensor) and T.to_tensor(x, dtype="int32").dtype == "int32"
    pf.set_default_dtype("float64")
    try:
        assert T.to_tensor(1.5).dtype == "float64"
    finally:
        pf.set_default_dtype("float32")


def test_to_tensor_copies_a_numpy_array_once():
    a = np.ones(2 ** 21, np.float32)  # 8 MiB
    tracemalloc.start()
    try:
        t = T.to_tensor(a)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 2 ** 23 <= peak < 1.5 * 2 ** 23  # one copy (the caller's array stays theirs), not two
    np.testing.assert_array_equal(t.numpy(), a)


def test_to_tensor_ragged_raises():
    with pytest.raises(ValueError, match="regular ndarray"):
        T.to_tensor([[1, 2], [3]])


def test_creation_functions():
    check(T.zeros([2, 3]), np.zeros((2, 3), np.float32))
    check(T.ones([2], dtype="int32"), np.ones(2, np.int32))
    check(T.full([2, 2], 7), np.full((2, 2), 7, np.int64))
    check(T.full([2], 1.5, dtype="float64"), np.full(2, 1.5))
    check(T.full([2], T.to_tensor([3.0])), np.full(2, 3.0, np.float32))
    check(T.empty([1, 2]), np.zeros((1, 2), np.float32))
    x = tt(np.arange(6).reshape(2, 3).astype(np.int32))
    check(T.zeros_like(x), np.zeros((2, 3), np.int32))
    check(T.ones_like(x, dtype="float64"), np.ones((2, 3)))
    check(T.full_like(x, 4), np.full((2, 3), 4, np.int32))
    check(T.empty_like(x), np.zeros((2, 3), np.int32))
    check(T.arange(5), np.arange(5))
    check(T.arange(2, 9, 3), np.arange(2, 9, 3))
    check(T.arange(0, 1, 0.25), np.arange(0, 1, 0.25, dtype=np.float32))
    check(T.arange(5, 0, -2, dtype="float64"), np.arange(5, 0, -2, dtype=np.float64))
    check(T.linspace(0, 1, 5), np.linspace(0, 1, 5, dtype=np.float32))
    check(T.linspace(-2, 3, 7, dtype="float64"), np.linspace(-2, 3, 7), rtol=1e-12)
    check(T.eye(3), np.eye(3, dtype=np.float32))
    check(T.eye(2, 4, dtype="int64"), np.eye(2, 4, dtype=np.int64))
    check(T.clone(x), x.numpy())
    check(T.assign([[1, 2]]), np.array([[1, 2]]))


def test_tril_triu_diag():
    check(T.tril(tt(A)), np.tril(A))
    check(T.triu(tt(A), diagonal=1), np.triu(A, 1))
    check(T.tril(tt(A), -1), np.tril(A, -1))
    v = np.array([1.0, 2.0, 3.0])
    for k in (0, 1, -2):
        check(T.diag(tt(v), offset=k), np.diag(v, k))
        check(T.diag(tt(A), offset=k), np.diag(A, k))
    check(T.diag(tt(v), padding_value=9.0), np.diag(v) + 9.0 * (1 - np.eye(3)))


# ---------------------------------------------------------------------------------------------- elementwise math

UNARY = [
    ("exp", np.exp, A), ("log", np.log, POS), ("log1p", np.log1p, POS), ("log2", np.log2, POS),
    ("log10", np.log10, POS), ("expm1", np.expm1, A), ("sqrt", np.sqrt, POS), ("rsqrt", lambda v: 1 / np.sqrt(v), POS),
    ("square", np.square, A), ("reciprocal", np.reciprocal, POS), ("sin", np.sin, A), ("cos", np.cos, A),
    ("tan", np.tan, UNIT), ("asin", np.arcsin, UNIT), ("acos", np.arccos, UNIT), ("atan", np.arctan, A),
    ("sinh", np.sinh, A), ("cosh", np.cosh, A), ("tanh", np.tanh, A), ("asinh", np.arcsinh, A * 10),
    ("acosh", np.arccosh, POS + 1), ("atanh", np.arctanh, UNIT), ("sigmoid", sps.expit, A), ("erf", sps.erf, A),
    ("erfinv", sps.erfinv, UNIT), ("lgamma", sps.gammaln, POS), ("digamma", sps.digamma, POS),
    ("abs", np.abs, A), ("sign", np.sign, A), ("floor", np.floor, A * 3), ("ceil", np.ceil, A * 3),
    ("round", lambda v: np.trunc(v + np.copysign(0.5, v)), A * 3), ("trunc", np.trunc, A * 3), ("neg", np.negative, A),
]


@pytest.mark.parametrize("name, ref, data", UNARY, ids=[u[0] for u in UNARY])
def test_unary_function_and_method(name, ref, data):
    check(getattr(T, name)(tt(data)), ref(data), rtol=1e-10)
    check(getattr(tt(data), name)(), ref(data), rtol=1e-10)
    x32 = tt(data.astype(np.float32))
    assert getattr(T, name)(x32).dtype == "float32"


def test_unary_on_ints_computes_in_default_float():
    out = T.exp(T.to_tensor([0, 1]))
    check(out, np.exp(np.array([0, 1])).astype(np.float32))


BINARY = [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply), ("divide", np.divide),
          ("maximum", np.maximum), ("minimum", np.minimum), ("atan2", np.arctan2), ("pow", None)]


@pytest.mark.parametrize("name, ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_broadcasting(name, ref):
    x, y = (POS, B[0]) if name == "pow" else (A, B[:1])
    expected = np.power(x, y) if name == "pow" else ref(x, y)
    check(getattr(T, name)(tt(x), tt(y)), expected, rtol=1e-10)
    check(getattr(tt(x), name)(tt(y)), expected, rtol=1e-10)


def test_operators_map_to_functions():
    x, y = tt(POS), tt(B)
    check(x + y, POS + B)
    check(x - y, POS - B)
    check(x * y, POS * B)
    check(x / y, POS / B)
    check(x // y, POS // B)
    check(x % y, np.mod(POS, B))
    check(x ** 2, POS ** 2)
    check(x ** y, POS ** B, rtol=1e-10)
    check(x @ y.T, POS @ B.T, rtol=1e-10)
    check(-x, -POS)
    check(+x, POS)
    check(abs(tt(A)), np.abs(A))
    check(x == x, np.ones((3, 4), bool))
    check(x != y, POS != B)
    check(x < y, POS < B)
    check(x <= y, POS <= B)
    check(x > y, POS > B)
    check(x >= y, POS >= B)
    check(1.0 - x, 1.0 - POS)
    check(2.0 / x, 2.0 / POS)
    check(np.ones((3, 4)) @ y.T, np.ones((3, 4)) @ B.T)
    b1, b2 = T.to_tensor([True, False, True]), T.to_tensor([True, True, False])
    check(b1 & b2, np.array([True, False, False]))
    check(b1 | b2, np.array([True, True, True]))
    check(b1 ^ b2, np.array([False, True, True]))
    check(~b1, np.array([False, True, False]))
    i1 = T.to_tensor([12, 5])
    check(i1 & 10, np.array([8, 0]))
    check(i1 | 3, np.array([15, 7]))
    check(~i1, np.array([-13, -6]))
    with pytest.raises(TypeError, match="bool or integer"):
        ~x
    assert (x == "a") is False


def test_scale_clip_and_friends():
    x = tt(A)
    check(T.scale(x, scale=2.0, bias=1.0), 2 * A + 1)
    check(T.scale(x, scale=2.0, bias=1.0, bias_after_scale=False), 2 * (A + 1))
    check(T.clip(x, min=-0.5, max=0.5), np.clip(A, -0.5, 0.5))
    check(T.clip(x, max=0.1), np.minimum(A, 0.1))
    check(T.clip(T.to_tensor([1, 5, 9]), 2, 6), np.array([2, 5, 6]))
    check(x.clip(T.to_tensor([-0.2]), 0.3), np.clip(A, -0.2, 0.3))
    check(T.cast(T.to_tensor([1.7, -1.7]), "int32"), np.array([1, -1], np.int32))
    check(T.to_tensor([1.7]).astype("int64"), np.array([1]))
    check(T.increment(T.to_tensor([1.0])), np.array([2.0], np.float32))
    check(T.add_n([x, x, x]), 3 * A)
    check(T.lerp(x, tt(B), 0.25), A + 0.25 * (B - A))


# ---------------------------------------------------------------------------------------------- reductions

REDUCTIONS = [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod),
              ("amax", np.max), ("amin", np.min), ("logsumexp", lambda v, axis, keepdims: np.log(np.sum(
                  np.exp(v), axis=axis, keepdims=keepdims)))]


@pytest.mark.parametrize("name, ref", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
@pytest.mark.parametrize("axis", [None, 0, -1, [0, 1], (1,), [-2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions(name, ref, axis, keepdim):
    data = RNG.normal(size=(2, 3, 4))
    ax = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    expected = np.asarray(ref(data, axis=ax, keepdims=keepdim))
    check(getattr(T, name)(tt(data), axis=axis, keepdim=keepdim), expected, rtol=1e-10)
    check(getattr(tt(data), name)(axis=axis, keepdim=keepdim), expected, rtol=1e-10)


def test_full_reductions_are_0d():
    x = tt(A)
    for out in (x.sum(), x.mean(), x.max(), T.prod(x), T.all(x > -10), T.any(x > 10), T.logsumexp(x),
                T.argmax(x), T.argmin(x), T.numel(x), T.rank(x), T.allclose(x, x), T.equal_all(x, x),
                T.is_empty(x), T.median(x), T.var(x), T.std(x), T.nansum(x), T.dot(x[0], x[0]), x[0, 0]):
        assert out.shape == [], out
        assert float(np.asarray(out)) == float(out)
    assert x.sum(axis=[0, 1]).shape == []
    assert x.sum(keepdim=True).shape == [1, 1]
    assert x.sum(axis=[0, 1], keepdim=True).shape == [1, 1]
    assert T.dot(x, x).shape == [A.shape[0]]


def test_sum_dtypes():
    check(T.sum(T.to_tensor([[True, True], [False, True]])), np.array(3))
    check(T.sum(T.to_tensor(np.array([1, 2], np.int32))), np.array(3, np.int64))
    check(T.sum(T.to_tensor(np.array([1, 2], np.int16))), np.array(3, np.int16))
    check(T.sum(tt(A), axis=0, dtype="float32"), A.sum(0).astype(np.float32), rtol=1e-5)


def test_all_any_and_mean_of_int_is_an_error():
    b = np.array([[True, False], [True, True]])
    check(T.all(tt(b), axis=1), b.all(1))
    check(T.any(tt(b), axis=0, keepdim=True), b.any(0, keepdims=True))
    check(T.all(T.to_tensor([1, 2, 0])), np.array(False))
    with pytest.raises(DTypeError, match="floating-point"):
        T.mean(T.to_tensor([1, 2]))
    for complex_max in (lambda c: c.max(), lambda c: T.min(c, axis=0)):  # complex numbers have no maximum
        with pytest.raises(DTypeError, match="complex numbers have no order"):
            complex_max(T.to_tensor(np.array([1 + 2j, 3j], np.complex64)))


def test_logsumexp_is_stable():
    check(T.logsumexp(T.to_tensor([1000.0, 1000.0])), np.array(1000.0 + np.log(2), np.float32))
    check(T.logsumexp(T.to_tensor([-np.inf, -np.inf])), np.array(-np.inf, np.float32))


def test_cumsum_cumprod():
    data = np.arange(1, 7).reshape(2, 3)
    check(T.cumsum(tt(data)), np.cumsum(data))
    check(T.cumsum(tt(data), axis=1), np.cumsum(data, 1))
    check(T.cumsum(tt(data), axis=-2, dtype="float64"), np.cumsum(data, 0).astype(np.float64))
    check(T.cumprod(tt(data.astype(np.float64)), dim=1), np.cumprod(data, 1).astype(np.float64))


# ---------------------------------------------------------------------------------------------- manipulation

def test_reshape_zero_and_minus_one():
    x = T.ones([3, 2, 5])
    assert T.reshape(x, [0, -1]).shape == [3, 10]
    assert x.reshape([-1]).shape == [30]
    assert x.reshape([5, 0, 3]).shape == [5, 2, 3]
    check(T.reshape(tt(A), [2, 6]), A.reshape(2, 6))
    with pytest.raises(ShapeError, match="at most once"):
        x.reshape([-1, -1])
    with pytest.raises(ShapeError, match="cannot reshape"):
        x.reshape([7, 3])


def test_squeeze_unsqueeze_flatten_transpose():
    x = T.ones([1, 3, 1, 2])
    assert T.squeeze(x).shape == [3, 2]
    assert T.squeeze(x, axis=0).shape == [3, 1, 2]
    assert T.squeeze(x, axis=[0, -2]).shape == [3, 2]
    assert T.squeeze(x, axis=1).shape == [1, 3, 1, 2]  # a non-1 dim is left alone, as in Paddle
    assert T.unsqueeze(T.ones([3]), [0, 2]).shape == [1, 3, 1]
    assert T.unsqueeze(T.ones([3]), -1).shape == [3, 1]
    data = RNG.normal(size=(2, 3, 4))
    check(T.flatten(tt(data)), data.reshape(-1))
    check(T.flatten(tt(data), start_axis=1), data.reshape(2, 12))
    check(T.flatten(tt(data), 0, 1), data.reshape(6, 4))
    check(T.transpose(tt(data), [2, 0, 1]), data.transpose(2, 0, 1))
    check(tt(data).T, data.T)
    check(T.moveaxis(tt(data), 0, -1), np.moveaxis(data, 0, -1))
    check(T.t(tt(A)), A.T)


def test_concat_stack_split():
    check(T.concat([tt(A), tt(B)], axis=0), np.concatenate([A, B], 0))
    check(T.concat([tt(A), tt(B)], axis=-1), np.concatenate([A, B], 1))
    check(T.stack([tt(A), tt(B)], axis=1), np.stack([A, B], 1))
    parts = T.split(tt(A), 2, axis=1)
    assert len(parts) == 2
    check(parts[1], A[:, 2:])
    parts = T.split(tt(A), [1, -1, 1], axis=1)
    assert [p.shape for p in parts] == [[3, 1], [3, 2], [3, 1]]
    check(parts[1], A[:, 1:3])
    with pytest.raises(ShapeError, match="equal parts"):
        T.split(tt(A), 3, axis=1)
    assert [u.shape for u in T.unstack(tt(A), axis=1)] == [[3]] * 4
    check(T.unbind(tt(A))[2], A[2])
    with pytest.raises(ShapeError, match="must agree"):
        T.concat([T.ones([2, 3]), T.ones([3, 2])])


def test_tile_expand_broadcast_flip_roll():
    v = np.array([[1, 2, 3]])
    check(T.tile(tt(v), [2, 2]), np.tile(v, (2, 2)))
    check(T.tile(tt(v), [2, 1, 1]), np.tile(v, (2, 1, 1)))
    check(T.expand(tt(v), [2, -1]), np.broadcast_to(v, (2, 3)))
    check(T.expand_as(tt(v), T.ones([4, 3])), np.broadcast_to(v, (4, 3)))
    check(T.broadcast_to(tt(np.array([[1], [2]])), [2, 3]), np.broadcast_to([[1], [2]], (2, 3)))
    outs = T.broadcast_tensors([T.ones([2, 1]), T.zeros([3])])
    assert [o.shape for o in outs] == [[2, 3], [2, 3]]
    with pytest.raises(ShapeError, match="Broadcast dimension mismatch"):
        T.broadcast_to(T.ones([3]), [2, 4])
    check(T.flip(tt(A), axis=0), A[::-1])
    check(T.flip(tt(A), axis=[0, 1]), A[::-1, ::-1])
    check(T.roll(tt(A), 1), np.roll(A, 1))
    check(T.roll(tt(A), shifts=[-1, 2], axis=[0, 1]), np.roll(A, (-1, 2), (0, 1)))


def test_gather_index_select_take_along_axis_where():
    x = tt(A)
    check(T.gather(x, T.to_tensor([2, 0])), A[[2, 0]])
    check(T.gather(x, T.to_tensor([[3], [1]]), axis=1), A[:, [3, 1]])
    check(T.index_select(x, T.to_tensor([1]), axis=-1), A[:, [1]])
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    check(T.take_along_axis(x, T.to_tensor(idx), axis=1), np.take_along_axis(A, idx, 1))
    check(T.where(x > 0, x, T.zeros_like(x)), np.where(A > 0, A, 0))
    check(T.where(x > 0, 1.0, -1.0), np.where(A > 0, 1.0, -1.0).astype(np.float32))
    check(T.where(tt(A[:1] > 0), x, tt(B)), np.where(A[:1] > 0, A, B))
    rows, cols = T.where(tt(A > 0))
    check(rows, np.nonzero(A > 0)[0])  # Paddle 3.3: 1-D index Tensors
    check(T.nonzero(tt(A > 0)), np.stack(np.nonzero(A > 0), 1))
    check(T.masked_select(x, x > 0), A[A > 0])
    check(T.slice(x, axes=[0, 1], starts=[1, 0], ends=[3, -1]), A[1:3, 0:-1])
    check(T.strided_slice(x, axes=[1], starts=[3], ends=[0], strides=[-2]), A[:, 3:0:-2])


# ---------------------------------------------------------------------------------------------- linalg

@pytest.mark.parametrize("xs, ys", [((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)),
                                    ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3))])
def test_matmul_matches_numpy(xs, ys):
    x, y = RNG.normal(size=xs), RNG.normal(size=ys)
    expected = np.matmul(x, y)
    check(T.matmul(tt(x), tt(y)), expected, rtol=1e-10)


def test_matmul_transpose_flags_mm_bmm_dot():
    check(T.matmul(tt(A), tt(B), transpose_y=True), A @ B.T, rtol=1e-10)
    check(T.matmul(tt(A), tt(B), transpose_x=True), A.T @ B, rtol=1e-10)
    check(T.mm(tt(A), tt(B.T)), A @ B.T, rtol=1e-10)
    x3, y2 = RNG.normal(size=(2, 4, 3)), RNG.normal(size=(5, 4))
    check(T.matmul(tt(x3), tt(y2), transpose_x=True, transpose_y=True), np.swapaxes(x3, 1, 2) @ y2.T, rtol=1e-10)
    check(T.matmul(tt(A[0]), tt(B), transpose_y=True), A[0] @ B.T, rtol=1e-10)
    ir = str(pf.make_ir(lambda a, b: T.matmul(a, b, transpose_x=True))(tt(A), tt(B)))
    assert "transpose" not in ir and "dot_general" in ir
    x3, y3 = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 4, 5))
    check(T.bmm(tt(x3), tt(y3)), x3 @ y3, rtol=1e-10)
    check(T.dot(tt(A[0]), tt(B[0])), np.array(A[0] @ B[0]), rtol=1e-10)
    check(T.dot(tt(A), tt(B)), (A * B).sum(1), rtol=1e-10)
    check(T.trace(tt(A)), np.array(np.trace(A)), rtol=1e-10)
    check(T.trace(tt(A), offset=1), np.array(np.trace(A, 1)), rtol=1e-10)
    check(T.diagonal(tt(RNG.normal(size=(2, 3, 3)) * 0 + 1), axis1=1, axis2=2), np.ones((2, 3)))
    check(T.outer(tt(A[0]), tt(B[0])), np.outer(A[0], B[0]))
    check(T.inner(tt(A), tt(B)), np.inner(A, B), rtol=1e-10)
    with pytest.raises(ShapeError, match="contracting dimensions differ"):
        T.matmul(T.ones([3, 4]), T.ones([5, 6]))
    with pytest.raises(ShapeError, match="bmm"):
        T.bmm(T.ones([3, 4]), T.ones([4, 3]))


# ---------------------------------------------------------------------------------------------- search

def test_argmax_argmin():
    data = RNG.normal(size=(3, 4))
    check(T.argmax(tt(data)), np.array(np.argmax(data)))
    check(T.argmax(tt(data), axis=1), np.argmax(data, 1))
    check(T.argmin(tt(data), axis=0, keepdim=True), np.argmin(data, 0)[None])
    check(T.argmax(tt(data), axis=-1, dtype="int32"), np.argmax(data, 1).astype(np.int32))
    check(tt(data).argmin(), np.array(np.argmin(data)))


def test_sort_argsort_topk():
    data = np.array([[3, 1, 2, 1], [0, 5, 5, 4]])
    check(T.sort(tt(data)), np.sort(data, 1))
    check(T.sort(tt(data), axis=0, descending=True), -np.sort(-data, 0))
    check(T.argsort(tt(data)), np.argsort(data, 1, kind="stable"))
    check(T.argsort(tt(data), descending=True), np.argsort(-data, 1, kind="stable"))
    vals, idx = T.topk(tt(data), 2)
    check(vals, -np.sort(-data, 1)[:, :2])
    check(idx, np.argsort(-data, 1, kind="stable")[:, :2])
    vals, idx = T.topk(tt(data.astype(np.float64)), 1, axis=0, largest=False)
    check(vals, data.min(0, keepdims=True).astype(np.float64))


# ---------------------------------------------------------------------------------------------- logic

def test_comparison_and_logical_functions():
    x, y = tt(A), tt(B)
    for name, ref in (("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
                      ("less_equal", np.less_equal), ("greater_than", np.greater),
                      ("greater_equal", np.greater_equal)):
        check(getattr(T, name)(x, y), ref(A, B))
    p, q = A > 0, B > 0
    check(T.logical_and(tt(p), tt(q)), p & q)
    check(T.logical_or(tt(p), tt(q)), p | q)
    check(T.logical_xor(tt(p), tt(q)), p ^ q)
    check(T.logical_not(tt(p)), ~p)
    check(T.logical_and(T.to_tensor([1, 0]), T.to_tensor([2, 2])), np.array([True, False]))
    i, j = np.array([12, 7]), np.array([10, 1])
    check(T.bitwise_and(tt(i), tt(j)), i & j)
    check(T.bitwise_or(tt(i), tt(j)), i | j)
    check(T.bitwise_xor(tt(i), tt(j)), i ^ j)
    check(T.bitwise_not(tt(i)), ~i)
    with pytest.raises(DTypeError, match="bool or integer"):
        T.bitwise_and(x, y)


def test_value_tests():
    v = np.array([1.0, np.nan, np.inf, -np.inf, 0.0])
    check(T.isnan(tt(v)), np.isnan(v))
    check(T.isinf(tt(v)), np.isinf(v))
    check(T.isfinite(tt(v)), np.isfinite(v))
    check(T.isnan(T.to_tensor([1, 2])), np.array([False, False]))
    check(T.isfinite(T.to_tensor([1, 2])), np.array([True, True]))
    a, b = np.array([1.0, 2.0, np.nan]), np.array([1.0 + 1e-9, 2.1, np.nan])
    check(T.isclose(tt(a), tt(b)), np.isclose(a, b))
    check(T.isclose(tt(a), tt(b), equal_nan=True), np.isclose(a, b, equal_nan=True))
    check(T.allclose(tt(A), tt(A + 1e-9)), np.array(True))
    check(T.allclose(tt(A), tt(B)), np.array(False))
    check(T.equal_all(tt(A), tt(A)), np.array(True))
    check(T.equal_all(tt(A), tt(A[:1])), np.array(False))
    check(T.numel(tt(A)), np.array(12))
    check(T.shape(tt(A)), np.array([3, 4], np.int32))
    check(T.rank(tt(A)), np.array(2, np.int32))
    assert T.is_tensor(tt(A)) and not T.is_tensor(A)
    assert T.is_floating_point(tt(A)) and T.is_integer(T.to_tensor([1]))


# ---------------------------------------------------------------------------------------------- activations

def test_activations():
    x = tt(A * 3)
    a = A * 3
    check(T.relu(x), np.maximum(a, 0))
    check(T.relu6(x * 3), np.clip(a * 3, 0, 6))
    check(T.gelu(x), 0.5 * a * (1 + sps.erf(a / np.sqrt(2))), rtol=1e-10)
    check(T.gelu(x, approximate=True),
          0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a ** 3))), rtol=1e-10)
    check(T.silu(x), a * sps.expit(a), rtol=1e-10)
    check(T.softplus(x), np.log1p(np.exp(a)), rtol=1e-10)
    check(T.softplus(x * 30), np.where(a * 30 > 20, a * 30, np.log1p(np.exp(a * 30))), rtol=1e-10)
    check(T.leaky_relu(x, 0.1), np.where(a > 0, a, 0.1 * a))
    check(T.elu(x, 0.5), np.where(a > 0, a, 0.5 * np.expm1(a)), rtol=1e-10)
    check(T.softmax(x), sps.softmax(a, axis=-1), rtol=1e-10)
    check(T.softmax(x, axis=0), sps.softmax(a, axis=0), rtol=1e-10)
    check(T.log_softmax(x, axis=1), sps.log_softmax(a, axis=1), rtol=1e-10)
    check(T.softmax(T.to_tensor([1000.0, 1000.0])), np.array([0.5, 0.5], np.float32))


def test_relu_derivative_at_zero_is_zero():
    g = pf.grad(lambda v: T.relu(v).sum())(T.to_tensor([-1.0, 0.0, 2.0]))
    check(g, np.array([0.0, 0.0, 1.0], np.float32))


# ---------------------------------------------------------------------------------------------- transforms

def test_composites_differentiate():
    x = tt(POS)

    def loss(v):
        h = T.tanh(T.matmul(v, v.T)) + T.logsumexp(v, axis=1, keepdim=True)
        return (T.softmax(h) * T.log(v[:, :3])).sum() + T.max(v) + v.mean()

    g = pf.grad(loss)(x)
    eps = 1e-6
    fd = np.zeros_like(POS)
    for idx in np.ndindex(*POS.shape):
        d = np.zeros_like(POS)
        d[idx] = eps
        fd[idx] = (loss(tt(POS + d)).item() - loss(tt(POS - d)).item()) / (2 * eps)
    check(g, fd, rtol=1e-5, atol=1e-7)


def test_composites_vmap_like_a_loop():
    data = RNG.normal(size=(5, 3, 4))

    def f(v):
        return T.concat([T.cumsum(v, axis=1), T.sort(v, axis=0)], axis=1).sum(axis=0) + T.argmax(v).astype("float64")

    out = pf.vmap(f)(tt(data))
    check(out, np.stack([f(tt(d)).numpy() for d in data]), rtol=1e-10)


def test_composites_trace_into_primitives():
    ir = str(pf.make_ir(lambda v: T.softmax(v @ v.T).mean(axis=0) + v[:, 0])(tt(A)))
    for prim in ("dot_general", "reduce_max", "exp", "reduce_sum", "div", "slice"):
        assert prim in ir


def test_methods_are_installed_on_tracers():
    seen = {}

    def f(v):
        seen["type"] = type(v).__name__
        return v.reshape([-1]).exp().sum(axis=0, keepdim=True)

    out = pf.vmap(f)(tt(RNG.normal(size=(2, 3, 4))))
    assert seen["type"] == "BatchTracer" and out.shape == [2, 1]


def test_composites_lower_to_valid_stablehlo(iree_parse):
    from paddle_fn.core.staging import trace_to_program
    from paddle_fn.core.trace import get_aval
    from paddle_fn.lowering import lower_program

    def f(v, i):
        h = T.softmax(v @ v.T, axis=-1) + T.tril(v[:, :3])
        return [T.where(h > 0.1, h, -h).sum(axis=1), v[i, ::-1], v.at[:, 1].add(1.0), T.topk(v, 2)[1],
                T.arange(4) + T.argmax(v, axis=1).sum(), v // 0.3 + v % 0.3, T.linspace(0, 1, 3)]

    args = (tt(np.float32(A)), T.to_tensor([2, 0]))
    prog, consts = trace_to_program(f, [get_aval(a) for a in args])
    assert iree_parse(lower_program(prog))


# ---------------------------------------------------------------------------------------------- Paddle 2.3 math

def test_new_elementwise_math():
    x = tt(UNIT * 0.5 + 0.5)
    p = UNIT * 0.5 + 0.5
    check(T.logit(x), np.log(p / (1 - p)), rtol=1e-10)
    check(T.logit(tt(np.array([0.0, 1.0])), eps=0.1), np.log(np.array([0.1, 0.9]) / np.array([0.9, 0.1])), rtol=1e-10)
    check(T.rad2deg(tt(A)), np.rad2deg(A), rtol=1e-10)
    check(T.deg2rad(tt(A)), np.deg2rad(A), rtol=1e-10)
    check(T.deg2rad(T.to_tensor([180])), np.array([np.pi], np.float32))  # ints compute in the default float dtype
    check(T.frac(tt(A * 3)), A * 3 - np.trunc(A * 3), rtol=1e-10)
    check(T.stanh(tt(A)), 1.7159 * np.tanh(0.67 * A), rtol=1e-10)
    nan = np.array([1.0, np.nan, np.nan, -np.inf])
    other = np.array([np.nan, 2.0, np.nan, 0.0])
    check(T.fmax(tt(nan), tt(other)), np.fmax(nan, other))
    check(T.fmin(tt(nan), tt(other)), np.fmin(nan, other))
    weird = np.array([np.nan, np.inf, -np.inf, 1.5])
    check(T.nan_to_num(tt(weird)), np.nan_to_num(weird))
    check(T.nan_to_num(tt(weird), nan=1.0, posinf=2.0, neginf=-2.0), np.array([1.0, 2.0, -2.0, 1.5]))


def test_gcd_lcm():
    a, b = np.array([12, -20, 0, 7, 0]), np.array([18, 15, 5, 0, 0])
    check(T.gcd(tt(a), tt(b)), np.gcd(a, b))
    check(T.lcm(tt(a), tt(b)), np.lcm(a, b))
    check(T.gcd(tt(a.astype(np.int32)), 4), np.gcd(a, 4).astype(np.int32))
    check(pf.vmap(lambda u: T.gcd(u, tt(b)))(tt(np.stack([a, a * 2]))), np.gcd(np.stack([a, a * 2]), b))
    with pytest.raises(DTypeError, match="integer"):
        T.gcd(tt(A), tt(B))


def test_nan_reductions_and_count_nonzero():
    data = A.copy()
    data[0, 1] = data[2, 3] = np.nan
    check(T.nansum(tt(data)), np.array(np.nansum(data)), rtol=1e-10)
    check(T.nansum(tt(data), axis=1, keepdim=True), np.nansum(data, 1, keepdims=True), rtol=1e-10)
    check(T.nanmean(tt(data), axis=0), np.nanmean(data, 0), rtol=1e-10)
    ints = np.array([[0, 1, 2], [0, 0, 3]])
    check(T.count_nonzero(tt(ints)), np.array(3))
    check(T.count_nonzero(tt(ints), axis=1), np.count_nonzero(ints, 1))


def test_logcumsumexp_diff_and_friends():
    data = RNG.normal(size=(3, 5)) * 5
    check(T.logcumsumexp(tt(data), axis=1), np.logaddexp.accumulate(data, 1), rtol=1e-10)
    check(T.logcumsumexp(tt(data)), np.logaddexp.accumulate(data.reshape(-1)), rtol=1e-10)
    check(T.logcumsumexp(tt(np.array([-1000.0, 0.0, 1000.0]))), np.array([-1000.0, 0.0, 1000.0]))
    check(T.diff(tt(data)), np.diff(data), rtol=1e-10)
    check(T.diff(tt(data), axis=0, prepend=tt(data[:1]), append=tt(data[-1:])),
          np.diff(data, axis=0, prepend=data[:1], append=data[-1:]), rtol=1e-10)
    check(T.diff(tt(data), n=2), np.diff(data, 2), rtol=1e-10)
    flags = np.array([True, True, False, True])
    check(T.diff(tt(flags)), np.array([False, True, True]))


def test_addmm_kron_cross_dist():
    m = RNG.normal(size=(3, 2))
    check(T.addmm(tt(m), tt(A), tt(B.T[:, :2]), beta=0.5, alpha=2.0), 0.5 * m + 2 * A @ B.T[:, :2], rtol=1e-10)
    x, y = RNG.normal(size=(2, 3)), RNG.normal(size=(3, 1, 2))
    check(T.kron(tt(x), tt(y)), np.kron(x, y), rtol=1e-10)
    u, v = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    check(T.cross(tt(u), tt(v)), np.cross(u, v), rtol=1e-10)
    check(T.cross(tt(u.T), tt(v.T), axis=0), np.cross(u.T, v.T, axis=0), rtol=1e-10)
    check(T.dist(tt(u), tt(v)), np.array(np.linalg.norm(u - v)), rtol=1e-10)
    check(T.dist(tt(u), tt(v), p=np.inf), np.array(np.abs(u - v).max()), rtol=1e-10)
    check(T.dist(tt(u), tt(v), p=3), np.array((np.abs(u - v) ** 3).sum() ** (1 / 3)), rtol=1e-10)


EINSUMS = [("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk", [(2, 3, 4), (2, 4, 5)]), ("ii", [(3, 3)]),
           ("ii->i", [(3, 3)]), ("iij->j", [(3, 3, 2)]), ("ij->ji", [(3, 4)]),
           ("...j,...jk->...k", [(2, 3, 4), (3, 4, 5)]),
           ("...i,...i->...", [(2, 3, 4), (1, 4)]), ("i,j", [(3,), (4,)]), ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 2)]),
           ("bij->", [(2, 3, 4)]), ("i,i", [(5,), (5,)])]


@pytest.mark.parametrize("eq, shapes", EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum_matches_numpy(eq, shapes):
    ops = [RNG.normal(size=s) for s in shapes]
    expected = np.asarray(np.einsum(eq, *ops))
    check(T.einsum(eq, *map(tt, ops)), expected, rtol=1e-10)


def test_einsum_errors_and_transforms():
    with pytest.raises(ShapeError, match="sizes"):
        T.einsum("ij,jk", T.ones([2, 3]), T.ones([4, 5]))
    with pytest.raises(ShapeError, match="operand"):
        T.einsum("ij,jk", T.ones([2, 3]))
    a, b = tt(A), tt(B)
    g = pf.grad(lambda u: T.einsum("ij,kj->ik", u, b).sum())(a)
    check(g, np.broadcast_to(B.sum(0), A.shape), rtol=1e-10)
    out = pf.vmap(lambda u: T.einsum("i,i", u, u))(a)
    check(out, (A * A).sum(1), rtol=1e-10)
    ir = str(pf.make_ir(lambda u, v: T.einsum("ij,kj->ik", u, v))(a, b))
    assert "dot_general" in ir and "transpose" not in ir


# ---------------------------------------------------------------------------------------------- statistics

@pytest.mark.parametrize("axis, keepdim", [(None, False), (1, False), (0, True), ([0, 1], False)])
def test_var_std(axis, keepdim):
    ax = tuple(axis) if isinstance(axis, list) else axis
    for unbiased in (True, False):
        expected = np.var(A, axis=ax, ddof=int(unbiased), keepdims=keepdim)
        expected = expected
        check(T.var(tt(A), axis, unbiased, keepdim), expected, rtol=1e-10)
        check(T.std(tt(A), axis, unbiased, keepdim), np.sqrt(expected), rtol=1e-10)
    with pytest.raises(DTypeError, match="floating-point"):
        T.var(T.to_tensor([1, 2]))


def test_median_quantile():
    data = RNG.normal(size=(3, 4))
    check(T.median(tt(data)), np.array(np.median(data)), rtol=1e-10)
    check(T.median(tt(data), axis=1), np.median(data, 1), rtol=1e-10)
    check(T.median(tt(data[:, :3]), axis=1, keepdim=True), np.median(data[:, :3], 1, keepdims=True), rtol=1e-10)
    check(T.median(T.to_tensor([3, 1, 2, 8])), np.array(2.5, np.float32))  # ints give float32
    check(T.quantile(tt(data), 0.3), np.array(np.quantile(data, 0.3)), rtol=1e-10)
    check(T.quantile(tt(data), [0.1, 0.5], axis=0), np.quantile(data, [0.1, 0.5], axis=0), rtol=1e-10)
    check(T.quantile(tt(data), 0.75, axis=1, keepdim=True), np.quantile(data, 0.75, axis=1, keepdims=True),
          rtol=1e-10)
    g = pf.grad(lambda v: T.median(v).sum())(tt(np.array([3.0, 1.0, 2.0, 5.0])))
    check(g, np.array([0.5, 0.0, 0.5, 0.0]))


def test_histogram_is_traceable_and_bincount_is_eager():
    data = RNG.normal(size=50)
    check(T.histogram(tt(data), bins=7), np.histogram(data, 7)[0].astype(np.int64))
    check(T.histogram(tt(data), bins=4, min=-1, max=1), np.histogram(data, 4, range=(-1, 1))[0].astype(np.int64))
    check(pf.jit(lambda v: T.histogram(v, bins=5))(tt(data.astype(np.float32))),
          np.histogram(data.astype(np.float32), 5)[0].astype(np.int64))
    ints = np.array([1, 1, 4, 0])
    check(T.bincount(tt(ints)), np.bincount(ints))
    check(T.bincount(tt(ints), weights=tt(np.array([0.5, 1.0, 2.0, 1.0])), minlength=7),
          np.bincount(ints, [0.5, 1.0, 2.0, 1.0], minlength=7))
    with pytest.raises(pf.ConcretizationError, match="one_hot"):
        pf.jit(T.bincount)(tt(ints))


# ---------------------------------------------------------------------------------------------- search

def test_kthvalue_mode():
    data = RNG.normal(size=(3, 5))
    vals, idx = T.kthvalue(tt(data), 2)
    check(vals, np.sort(data, 1)[:, 1])
    check(idx, np.argsort(data, 1, kind="stable")[:, 1])
    vals, idx = T.kthvalue(tt(data), 3, axis=0, keepdim=True)
    check(vals, np.sort(data, 0)[2:3])
    # Paddle's mode: the smallest most frequent value, and the position of its last occurrence
    x = np.array([[1, 2, 2, 3, 3], [5, 4, 4, 5, 0]])
    vals, idx = T.mode(tt(x))
    check(vals, np.array([2, 4]))
    check(idx, np.array([2, 2]))
    vals, idx = T.mode(tt(x), axis=0, keepdim=True)
    check(vals, np.array([[1, 2, 2, 3, 0]]))


def test_searchsorted_bucketize():
    seq = np.array([1, 3, 3, 5, 7])
    vals = np.array([[0, 3, 6], [7, 8, 3]])
    check(T.searchsorted(tt(seq), tt(vals)), np.searchsorted(seq, vals))
    check(T.searchsorted(tt(seq), tt(vals), right=True, out_int32=True),
          np.searchsorted(seq, vals, side="right").astype(np.int32))
    seqs = np.sort(RNG.normal(size=(2, 6)), 1)
    v = RNG.normal(size=(2, 3))
    check(T.searchsorted(tt(seqs), tt(v)), np.stack([np.searchsorted(seqs[i], v[i]) for i in range(2)]))
    check(T.bucketize(tt(vals), tt(seq)), np.searchsorted(seq, vals))
    check(pf.vmap(lambda u: T.bucketize(u, tt(seq)))(tt(vals)), np.searchsorted(seq, vals))
    for length in (0, 1, 2, 7, 8):  # every bit pattern of the binary search's steps
        short = np.sort(RNG.integers(0, 5, length)).astype(np.float32)
        for side in ("left", "right"):
            check(T.searchsorted(tt(short), tt(vals.astype(np.float32)), side=side),
                  np.searchsorted(short, vals, side=side))


def test_searchsorted_in_a_long_sequence_is_a_binary_search():
    # comparing each of 4,096 values with each of 2^20 elements would take 32 GiB
    seq = np.sort(RNG.normal(size=1 << 20)).astype(np.float32)
    vals = RNG.normal(size=4096).astype(np.float32)
    check(T.searchsorted(tt(seq), tt(vals)), np.searchsorted(seq, vals))
    check(pf.jit(T.searchsorted)(tt(seq), tt(vals)), np.searchsorted(seq, vals))


# ---------------------------------------------------------------------------------------------- manipulation

def test_repeat_interleave_rot90_crop_meshgrid_diag_embed():
    x = np.arange(6).reshape(2, 3)
    check(T.repeat_interleave(tt(x), 2), np.repeat(x, 2))
    check(T.repeat_interleave(tt(x), 3, axis=1), np.repeat(x, 3, 1))
    check(T.repeat_interleave(tt(x), T.to_tensor([1, 0, 2]), axis=1), np.repeat(x, [1, 0, 2], 1))
    with pytest.raises(pf.ConcretizationError, match="pass an int"):
        pf.jit(lambda r: T.repeat_interleave(tt(x), r, axis=1))(T.to_tensor([1, 0, 2]))
    for k in (-1, 0, 1, 2, 3, 5):
        check(T.rot90(tt(x), k), np.rot90(x, k))
    y = RNG.normal(size=(2, 3, 4))
    check(T.rot90(tt(y), 1, [2, 0]), np.rot90(y, 1, (2, 0)))
    check(T.crop(tt(y), shape=[1, -1, 2], offsets=[1, 1, 2]), y[1:2, 1:, 2:4])
    check(T.crop(tt(y)), y)
    with pytest.raises(ShapeError, match="does not fit"):
        T.crop(tt(y), shape=[3, 1, 1])
    a, b = T.meshgrid(T.to_tensor([1, 2]), T.to_tensor([3, 4, 5]))
    na, nb = np.meshgrid([1, 2], [3, 4, 5], indexing="ij")
    check(a, na)
    check(b, nb)
    assert [t.shape for t in T.meshgrid([T.ones([2]), T.ones([3]), T.ones([4])])] == [[2, 3, 4]] * 3
    v = RNG.normal(size=(2, 3))
    check(T.diag_embed(tt(v)), np.stack([np.diag(r) for r in v]))
    check(T.diag_embed(tt(v), offset=-1, dim1=0, dim2=2),
          np.moveaxis(np.stack([np.diag(r, -1) for r in v]), (1, 2), (0, 2)))


def test_unique_is_eager_only():
    x = np.array([[2, 3], [3, 1], [5, 3]])
    values, index, inverse, counts = T.unique(tt(x), return_index=True, return_inverse=True, return_counts=True)
    ev, ei, einv, ec = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    check(values, ev)
    check(index, ei)
    check(inverse, einv.reshape(-1))
    check(counts, ec)
    check(T.unique(tt(x), axis=0), np.unique(x, axis=0))
    for transform in (pf.jit, pf.vmap):
        with pytest.raises(pf.ConcretizationError, match="cannot be traced"):
            transform(T.unique)(tt(x))
    with pytest.raises(pf.ConcretizationError, match="where"):
        pf.vmap(T.nonzero)(tt(x))
    with pytest.raises(pf.ConcretizationError, match="where"):
        pf.jit(lambda v: T.masked_select(v, v > 2))(tt(x))


def test_new_functions_under_grad_vmap_jit():
    data = RNG.normal(size=(4, 3, 5))

    def f(v):
        return [T.logcumsumexp(v, axis=1), T.kron(v[:2, :2], v[0, :1]), T.std(v, axis=0), T.quantile(v, 0.4, axis=1),
                T.cross(v[:3], v[:3] * 2 + 1, axis=0), T.put_along_axis(v, T.to_tensor([[1], [0], [2]]), 0.0, 1),
                T.scatter(v, T.to_tensor([1, 1]), v[:2] * 3), T.einsum("ij,kj->ik", v, v), T.nansum(v, axis=1),
                T.repeat_interleave(v, 2, axis=0), T.rot90(v), T.diff(v), T.fmax(v, 0.1), T.addmm(v[:, :3], v, v.T)]

    for i in range(3):
        g = pf.grad(lambda v: builtins_sum(o.sum() for o in f(v) if o.dtype == "float64"))(tt(data[i]))
        assert g.shape == [3, 5] and np.isfinite(g.numpy()).all()
    outs = pf.vmap(f)(tt(data[:, :3]))
    for k, out in enumerate(outs):
        for b in range(4):
            np.testing.assert_allclose(out.numpy()[b], f(tt(data[b, :3]))[k].numpy(), rtol=1e-12)
    jitted = pf.jit(f)(tt(data[0, :3].astype(np.float32)))
    for a, b in zip(jitted, f(tt(data[0, :3].astype(np.float32)))):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def builtins_sum(items):
    total = 0
    for it in items:
        total = total + it
    return total


@pytest.mark.parametrize("values, dtype, text", [
    # paddle 3.3.1's prints of the same values (its to_string: left-aligned columns, a space for the sign)
    ([[np.nan, -np.inf, np.nan, -1.0], [np.nan, 0.0, 1.0, np.nan], [2.0, 5 / 3, 0.0, 0.0]], "float32",
     "[[ nan      , -inf.     ,  nan      , -1.       ],\n        [ nan      ,  0.       ,  1.       ,  nan      ],\n"
     "        [ 2.       , 1.66666663,  0.       ,  0.       ]]"),
    ([np.nan, np.inf], "float32", "[nan , inf.]"),
    ([False, False, True], "bool", "[False, False, True ]"),
    ([0, 4, 8, 12], "int64", "[0 , 4 , 8 , 12]"),
    ([-2.0, 0.0, 1.0], "float32", "[-2.,  0.,  1.]"),
])
def test_tensor_prints_its_values_in_paddles_layout(values, dtype, text):
    printed = repr(pf.to_tensor(np.array(values), dtype=dtype))
    assert printed.split("\n", 1)[1].strip() == text + ")"
