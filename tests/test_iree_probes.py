"""The probes behind the overrides that hold for every IREE target (lowering/targets.py's EVERY_TARGET rows), and
behind the llvm-cpu FFT row and the llvm-cpu rows of the decompositions, whose generic forms IREE accepts but
fails on.

Each probe compiles a primitive's generic lowering where IREE 3.13 rejects it, and asserts that it still fails: when
an IREE upgrade makes one of these tests fail, the override it names may be deleted (measure its speed first). The
same programs are then run with the override against the eager result, and a generic form IREE does accept is run
too, so the generic rule in the primitive's block is checked as well as its override.
"""
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.lowering import iree_linalg, targets
from paddle_fn.prims import linalg as la
from paddle_fn.prims import reduction as red
from paddle_fn.prims import slicing as sl
from paddle_fn.runtime import CompileError, compiler

X = paddle.to_tensor(np.array([[3.0, 1.0, 2.0, 1.0], [0.5, -1.0, 0.5, 9.0]], np.float32))
ROWS = paddle.to_tensor(np.array([[1], [0]], np.int32))
ROW_DNUMS = sl.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                       scatter_dims_to_operand_dims=(0,))


def _generic(monkeypatch, *names, target=targets.EVERY_TARGET):
    """Lower the primitives `names` by their own rules in this test (their rows for `target` removed)."""
    for name in names:
        monkeypatch.delitem(targets.OVERRIDES, (name, target))


def _assert_eager_equal(f, *args):
    got, want = paddle.jit(f)(*args), f(*args)
    for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want if isinstance(want, (list, tuple)) else [want]):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


SORTS_IREE_REJECTS = {
    "one buffer twice": lambda x: red.sort(x, x, dimension=1),
    "an iota payload": lambda x: paddle.argsort(x, axis=1, stable=True),
}


@pytest.mark.parametrize("target", ["llvm-cpu", "cuda"])
@pytest.mark.parametrize("case", sorted(SORTS_IREE_REJECTS))
def test_generic_sort_still_needs_the_override(case, target, monkeypatch):
    f = SORTS_IREE_REJECTS[case]
    _assert_eager_equal(f, X)
    _generic(monkeypatch, "sort")
    if target != "llvm-cpu":
        _generic(monkeypatch, "sort", target=target)  # the GPU row builds on the form for every target
    with pytest.raises(CompileError, match="workgroup distribut|failed to bufferize"):
        paddle.jit(f).lower(X).cross_compile(target)


def test_generic_sort_of_a_key_and_a_payload_compiles_and_agrees():
    f = lambda x, y: red.sort(x, y, dimension=1, num_keys=1)  # noqa: E731
    y = paddle.to_tensor(np.arange(8, dtype=np.int32).reshape(2, 4))
    with pytest.MonkeyPatch.context() as monkeypatch:
        _generic(monkeypatch, "sort")
        assert '"stablehlo.sort"(%arg0, %arg1)' in paddle.jit(f).lower(X, y).as_text()
        # X has no ties within a row but for 1.0 and 0.5, which both sorts keep in order (IREE's CPU sort happens
        # to be stable on these 4 elements; the override's position key makes that certain)
        _assert_eager_equal(f, X, y)
    _assert_eager_equal(f, X, y)


@pytest.mark.parametrize("target", ["llvm-cpu", "cuda"])
def test_generic_scatter_still_needs_the_override(target, monkeypatch):
    # updates [2, 3] write a partial window (3 of the 4 columns) of each indexed row
    def f(x):
        return sl.scatter_add(x, ROWS, paddle.ones([2, 3]), dimension_numbers=ROW_DNUMS)
    _assert_eager_equal(f, X)
    _generic(monkeypatch, "scatter", "scatter_add")
    with pytest.raises(CompileError, match="shape of update value"):
        paddle.jit(f).lower(X).cross_compile(target)


def test_generic_scatter_in_the_simple_form_and_with_batching_axes_compiles_and_agrees(monkeypatch):
    _generic(monkeypatch, "scatter", "scatter_add")
    _assert_eager_equal(lambda x: sl.scatter(x, ROWS, paddle.ones([2, 4]) * 7.0, dimension_numbers=ROW_DNUMS), X)
    # under vmap the row of each example is an operand batching axis paired with the indices' batch axis
    batched = paddle.vmap(lambda row, i: row.at[i].add(5.0))
    text = paddle.jit(batched).lower(X, paddle.to_tensor([3, 0])).as_text()
    assert "input_batching_dims = [0]" in text
    _assert_eager_equal(batched, X, paddle.to_tensor([3, 0]))


FFTS_IREE_REJECTS = {  # (function, operand): IREE 3.13 compiles stablehlo.fft on llvm-cpu only for one axis of a
    # power-of-two length in single precision
    "length 12": (paddle.fft.fft, np.ones((2, 12), np.complex64)),
    "two axes at once": (paddle.fft.fft2, np.ones((4, 8), np.complex64)),
    "complex128": (paddle.fft.fft, np.ones(16, np.complex128)),
}


@pytest.mark.parametrize("case", sorted(FFTS_IREE_REJECTS))
def test_generic_fft_still_needs_the_llvm_cpu_override(case, monkeypatch):
    f, x = FFTS_IREE_REJECTS[case]
    x = paddle.to_tensor(x + 1j * np.arange(x.size).reshape(x.shape))
    np.testing.assert_allclose(paddle.jit(f)(x).numpy(), f(x).numpy(), rtol=2e-6, atol=1e-4)
    _generic(monkeypatch, "fft", target="llvm-cpu")
    with pytest.raises(CompileError, match="stablehlo.fft|arith.mulf"):
        paddle.jit(f).lower(x).compile()


def test_generic_fft_of_one_power_of_two_axis_compiles_and_agrees(monkeypatch):
    x = paddle.to_tensor((np.arange(16) + 1j * np.arange(16)[::-1]).astype(np.complex64))
    _generic(monkeypatch, "fft", target="llvm-cpu")
    assert "stablehlo.fft" in paddle.jit(paddle.fft.fft).lower(x).as_text()
    np.testing.assert_allclose(paddle.jit(paddle.fft.fft)(x).numpy(), paddle.fft.fft(x).numpy(), rtol=2e-6, atol=1e-4)


SPD = paddle.to_tensor(np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32))
RHS = paddle.to_tensor(np.array([[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]], np.float32))
EXPANDED_IREE_REJECTS = {
    "cholesky": lambda a, b: la.cholesky(a),
    "triangular_solve": lambda a, b: la.triangular_solve(a, b, lower=True, transpose_a=True),
}


@pytest.mark.parametrize("target", ["llvm-cpu", "cuda"])
@pytest.mark.parametrize("name", sorted(EXPANDED_IREE_REJECTS))
def test_generic_decompositions_still_need_their_expansion(name, target, monkeypatch):
    f = EXPANDED_IREE_REJECTS[name]
    np.testing.assert_allclose(paddle.jit(f)(SPD, RHS).numpy(), f(SPD, RHS).numpy(), rtol=1e-5, atol=1e-6)
    _generic(monkeypatch, name)
    lowered = paddle.jit(f).lower(SPD, RHS)
    assert f'"stablehlo.{name}"' in lowered.as_text(target)
    with pytest.raises(CompileError, match="failed to legalize operation 'stablehlo." + name):
        lowered.cross_compile(target)


# one matrix each (every output computed: fewer outputs give another program), and what IREE 3.13 does with the
# unbatched program on llvm-cpu
_RNG = np.random.default_rng(0)
UNBATCHED_IREE_FAILS = {
    "17x17 svd": (la.svd, _RNG.standard_normal((17, 17)).astype(np.float32), IndexError, "indirect buffer"),
    "16x16 lu": (la.lu, _RNG.standard_normal((16, 16)).astype(np.float32), CompileError, "could not compile"),
}


@pytest.mark.parametrize("case", sorted(UNBATCHED_IREE_FAILS))
def test_unbatched_decompositions_still_fail_on_the_cpu(case, monkeypatch):
    f, value, error, message = UNBATCHED_IREE_FAILS[case]
    x = paddle.to_tensor(value)
    for got, want in zip(paddle.jit(f)(x), f(x)):  # singular vectors (real: sign-fixed), singular values, LU factors
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    for name in iree_linalg.DECOMPOSITIONS:
        monkeypatch.delitem(targets.OVERRIDES, (name, "llvm-cpu"))
    with pytest.raises(error, match=message):
        [y.numpy() for y in paddle.jit(f)(x)]


def _one_hot_product(labels, w):
    return (labels[:, None] == paddle.arange(10)[None, :]).astype(w.dtype) @ w


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products_of_converted_bools_still_fail_with_data_tiling(dtype, monkeypatch):
    labels, w = paddle.to_tensor(np.arange(32) % 10), paddle.randn([10, 16], dtype=dtype)
    lowered = paddle.jit(_one_hot_product).lower(labels, w)
    assert not lowered.cross_compile("llvm-cpu").retried_without_data_tiling
    np.testing.assert_array_equal(lowered.compile()(labels, w).numpy(), w.numpy()[np.arange(32) % 10])
    _generic(monkeypatch, "convert_element_type", target="llvm-cpu")
    artifact = paddle.jit(_one_hot_product).lower(labels, w).cross_compile("llvm-cpu")
    if dtype == "float64":  # a module of float64 products compiles without data tiling (runtime.compiler.module_flags)
        assert compiler.DATA_TILING_FLAG not in artifact.flags and not artifact.retried_without_data_tiling
    else:
        assert artifact.retried_without_data_tiling
