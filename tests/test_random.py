"""paddle_fn.random and the threefry2x32 primitive: known answers, determinism, statistics, dtypes, vmap, jit."""
import numpy as np
import pytest

import paddle_fn
from paddle_fn import random
from paddle_fn.core import dtypes
from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor
from paddle_fn.prims.random_bits import threefry2x32

# Random123's known-answer vectors for threefry2x32_20: (key, counter) -> output
KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
    ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0)),
]


def _kat_operands():
    cols = [np.array([row[i][j] for row in KAT], np.uint32) for i in (0, 1) for j in (0, 1)]
    want = [np.array([row[2][j] for row in KAT], np.uint32) for j in (0, 1)]
    return cols, want


def _np(x):
    return np.asarray(x.numpy())


def _rows(keys):
    """The keys of a uint32[n, 2] Tensor, one Tensor each."""
    return [Tensor(k) for k in _np(keys)]


def test_threefry_known_answers():
    cols, want = _kat_operands()
    y1, y2 = threefry2x32(*map(Tensor, cols))
    np.testing.assert_array_equal(_np(y1), want[0])
    np.testing.assert_array_equal(_np(y2), want[1])


def test_threefry_rejects_mixed_shapes_and_dtypes():
    u = Tensor(np.zeros(3, np.uint32))
    with pytest.raises(ShapeError, match="threefry2x32.*broadcast"):
        threefry2x32(Tensor(np.zeros((), np.uint32)), u, u, u)
    with pytest.raises(DTypeError, match="threefry2x32.*uint32"):
        threefry2x32(Tensor(np.zeros(3, np.int32)), u, u, u)


# ----------------------------------------------------------------------------------------------- keys

def test_key_layout_and_traced_seeds():
    np.testing.assert_array_equal(_np(random.key(42)), [0, 42])
    np.testing.assert_array_equal(_np(random.PRNGKey(2 ** 32 + 5)), [1, 5])
    np.testing.assert_array_equal(_np(random.key(-1)), [0xFFFFFFFF, 0xFFFFFFFF])
    for dt in (np.int32, np.int64, np.uint8):
        np.testing.assert_array_equal(_np(random.key(Tensor(np.array(7, dt)))), _np(random.key(7)))
    np.testing.assert_array_equal(_np(random.key(Tensor(np.array(-3, np.int32)))), _np(random.key(-3)))
    with pytest.raises(ValueError, match="64 bits"):
        random.key(2 ** 64)


def test_split_and_fold_in():
    k = random.key(0)
    keys = _np(random.split(k, 4))
    assert keys.shape == (4, 2) and keys.dtype == np.uint32
    assert len({tuple(r) for r in keys.tolist()}) == 4
    np.testing.assert_array_equal(_np(random.split(k)), keys[:2])
    for i in range(4):
        np.testing.assert_array_equal(_np(random.fold_in(k, i)), keys[i])
    np.testing.assert_array_equal(_np(random.fold_in(k, Tensor(np.array(3, np.int64)))), keys[3])
    assert not np.array_equal(_np(random.fold_in(k, 1)), _np(random.fold_in(random.key(1), 1)))
    assert random.split(k, 0).shape == [0, 2]


def test_key_argument_is_checked():
    with pytest.raises(DTypeError, match="uniform: key must be a uint32\\[2\\]"):
        random.uniform(Tensor(np.zeros(2, np.float32)), (3,))
    with pytest.raises(DTypeError, match="normal: key"):
        random.normal(random.split(random.key(0), 3), (3,))


# ----------------------------------------------------------------------------------------------- draws

def test_determinism_and_independence():
    k1, k2 = _rows(random.split(random.key(123)))
    a, b = _np(random.uniform(k1, (100,))), _np(random.uniform(k1, (100,)))
    np.testing.assert_array_equal(a, b)
    c = _np(random.uniform(k2, (100,)))
    assert not np.any(a == c)
    assert abs(np.corrcoef(a, c)[0, 1]) < 0.3
    # an element depends only on the key and its flat index
    np.testing.assert_array_equal(_np(random.random_bits(k1, (2, 3))).ravel(), _np(random.random_bits(k1, (6,))))


def test_uniform_statistics():
    x = _np(random.uniform(random.key(0), (10000,), "float64"))
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.015 and abs(x.var() - 1 / 12) < 0.004
    y = _np(random.uniform(random.key(1), [10000], "float32", min=-2.0, max=3.0))
    assert y.min() >= -2.0 and y.max() < 3.0
    assert abs(y.mean() - 0.5) < 0.075 and abs(y.var() - 25 / 12) < 0.1


def test_uniform_tensor_bounds_broadcast():
    lo = Tensor(np.array([0.0, 10.0, 100.0]))
    hi = Tensor(np.array([[1.0, 11.0, 101.0]]))
    x = _np(random.uniform(random.key(0), (500, 3), "float64", min=lo, max=hi))
    assert np.all(x >= [0, 10, 100]) and np.all(x < [1, 11, 101])
    with pytest.raises(ShapeError, match="uniform: min has shape \\[4\\]"):
        random.uniform(random.key(0), (2, 3), min=Tensor(np.zeros(4)))


def test_normal_statistics():
    for dt in ("float32", "float64"):
        x = _np(random.normal(random.key(3), (10000,), dt))
        assert np.all(np.isfinite(x))
        assert abs(x.mean()) < 0.05 and abs(x.std() - 1.0) < 0.03
    t = _np(random.truncated_normal(random.key(4), -0.5, float("inf"), (2000,), "float64"))
    assert t.min() >= -0.5 and np.all(np.isfinite(t))


def test_bernoulli_rate():
    b = _np(random.bernoulli(random.key(5), 0.25, (10000,)))
    assert b.dtype == np.bool_ and abs(b.mean() - 0.25) < 0.02
    p = Tensor(np.array([0.0, 1.0, 0.5]))
    bp = _np(random.bernoulli(random.key(6), p))
    assert bp.shape == (3,) and not bp[0] and bp[1]


def test_randint_range():
    x = _np(random.randint(random.key(7), (10000,), -3, 4))
    assert x.dtype == np.int32 and set(x.tolist()) == set(range(-3, 4))  # JAX's default dtype
    assert abs(np.bincount(x + 3).min() - 10000 / 7) < 200
    big = _np(random.randint(random.key(8), (1000,), 0, 2 ** 40, dtype="int64"))
    assert big.max() >= 2 ** 39
    np.testing.assert_array_equal(_np(random.randint(random.key(9), (5,), 3, 3)), np.full(5, 3))
    u8 = _np(random.randint(random.key(9), (2000,), -10, 1000, dtype="uint8"))
    assert u8.dtype == np.uint8 and u8.min() == 0 and u8.max() == 255
    with pytest.raises(DTypeError, match="randint: dtype must be an integer"):
        random.randint(random.key(0), (2,), 0, 5, dtype="float32")


def test_permutation():
    p = _np(random.permutation(random.key(10), 20))
    assert p.dtype == np.int32 and sorted(p.tolist()) == list(range(20)) and not np.array_equal(p, np.arange(20))
    x = np.arange(12.0).reshape(3, 4)
    px = _np(random.permutation(random.key(11), Tensor(x), axis=1))
    order = px[0].astype(int)
    np.testing.assert_array_equal(px, x[:, order])
    assert sorted(order.tolist()) == [0, 1, 2, 3]
    with pytest.raises(ShapeError, match="permutation: x is 0-d"):
        random.permutation(random.key(0), Tensor(np.array(3)))


def test_dtypes():
    k = random.key(0)
    for dt in ("float16", "bfloat16", "float32", "float64"):
        u, n = random.uniform(k, (1000,), dt), random.normal(k, (1000,), dt)
        assert u.dtype == dt and n.dtype == dt
        uv = _np(u).astype(np.float64)
        assert uv.min() >= 0 and uv.max() < 1 and np.all(np.isfinite(_np(n).astype(np.float64)))
    assert random.uniform(k, (2,)).dtype == dtypes.default_float_dtype()
    paddle_fn.set_default_dtype("float64")
    try:
        assert random.normal(k, (2,)).dtype == "float64" and random.bernoulli(k, 0.5, (2,)).dtype == "bool"
    finally:
        paddle_fn.set_default_dtype("float32")
    with pytest.raises(DTypeError, match="uniform: dtype must be a float"):
        random.uniform(k, (2,), "int32")


# ----------------------------------------------------------------------------------------------- transforms

def test_vmap_over_keys_matches_loop():
    keys = random.split(random.key(42), 4)
    per_lane = _rows(keys)
    draws = {
        "uniform": lambda k: random.uniform(k, (3,), "float64", min=-1.0, max=2.0),
        "normal": lambda k: random.normal(k, (2, 2)),
        "randint": lambda k: random.randint(k, (5,), 0, 100),
        "permutation": lambda k: random.permutation(k, 6),
        "split": lambda k: random.split(k, 3),
        "fold_in": lambda k: random.fold_in(k, 9),
    }
    for name, draw in draws.items():
        batched = _np(paddle_fn.vmap(draw)(keys))
        for i, k in enumerate(per_lane):
            np.testing.assert_array_equal(batched[i], _np(draw(k)), err_msg=name)
    data = Tensor(np.arange(3, dtype=np.int64))
    folded = _np(paddle_fn.vmap(lambda d: random.fold_in(random.key(0), d))(data))
    for i in range(3):
        np.testing.assert_array_equal(folded[i], _np(random.fold_in(random.key(0), i)))


# ----------------------------------------------------------------------------------------------- Paddle style

def test_global_seed_reproducibility():
    random.seed(1)
    a, a2 = _np(random.rand([2, 3])), _np(random.rand([2, 3]))
    random.seed(1)
    b = _np(random.rand((2, 3)))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, a2)
    # the global key is split like split(): the first draw after seed(1) uses split(key(1))[1]
    second_key = _rows(random.split(random.key(1)))[1]
    np.testing.assert_array_equal(a, _np(random.uniform(second_key, (2, 3))))


def test_paddle_style_functions():
    random.seed(0)
    n = random.randn([3, 4], "float64")
    assert n.shape == [3, 4] and n.dtype == "float64"
    assert random.standard_normal([Tensor(np.array(2)), 2]).shape == [2, 2]
    r = _np(random.PADDLE_API["randint"](5, shape=[1000]))
    assert r.dtype == np.int64 and r.min() == 0 and r.max() == 4
    r2 = _np(random.PADDLE_API["randint"](-2, 2, [500], "int32"))
    assert r2.dtype == np.int32 and set(r2.tolist()) == {-2, -1, 0, 1}
    with pytest.raises(ValueError, match="low must be less than high"):
        random.PADDLE_API["randint"](3, 3)
    u1 = _np(random.PADDLE_API["uniform"]([100], seed=3))
    np.testing.assert_array_equal(u1, _np(random.PADDLE_API["uniform"]([100], seed=3)))
    assert u1.min() >= -1 and u1.max() < 1 and u1.dtype == np.float32
    mean = Tensor(np.array([0.0, 100.0]))
    nm = _np(random.PADDLE_API["normal"](mean, 0.01))
    assert nm.shape == (2,) and abs(nm[1] - 100) < 1
    assert random.PADDLE_API["normal"](0.0, 1.0, [2, 3]).shape == [2, 3]
    perm = _np(random.randperm(8, "int32"))
    assert perm.dtype == np.int32 and sorted(perm.tolist()) == list(range(8))
    assert random.PADDLE_API["seed"](3) is None


# ----------------------------------------------------------------------------------------------- lowering, end to end

@pytest.mark.heavy
def test_lowering_matches_impl_through_iree():
    """One small IREE compile: the KAT vectors through threefry2x32's lowering, and uniform/randint bits."""
    import iree.compiler as ic
    import iree.runtime as rt

    from paddle_fn.core.staging import trace_to_program
    from paddle_fn.core.trace import get_aval
    from paddle_fn.lowering import lower_program

    cols, want = _kat_operands()
    key = _np(random.key(2024))

    def fun(k1, k2, x1, x2, key):
        return [*threefry2x32(k1, k2, x1, x2), random.uniform(key, (2, 3)), random.randint(key, (4,), -5, 5)]

    args = [*cols, key]
    prog, consts = trace_to_program(fun, [get_aval(Tensor(a)) for a in args])
    vmfb = ic.compile_str(lower_program(prog), target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"])
    module = rt.load_vm_flatbuffer(vmfb, driver="local-sync")
    got = [np.asarray(o) for o in module.main(*[_np(c) for c in consts], *args)]
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    eager = fun(*map(Tensor, args))
    for g, e in zip(got[2:], eager[2:]):
        np.testing.assert_array_equal(g, _np(e))
