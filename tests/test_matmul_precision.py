"""The matmul precision setting: float32 products in compiled programs exact by default, bf16x3 near float32,
bfloat16 one demoted product; global, per jit and as a context manager; part of the compile cache key; eager and
float64 untouched; the same program cross-compiles for CUDA."""
import os
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.core.config import canonical_precision, config
from paddle_fn.prims.reduction import dot_general
from paddle_fn import runtime
from paddle_fn.runtime import compile_stablehlo

RNG = np.random.default_rng(0)
A = RNG.normal(size=(48, 64)).astype(np.float32)
B = RNG.normal(size=(64, 32)).astype(np.float32)
EXACT = A.astype(np.float64) @ B.astype(np.float64)


def _bf16(x):
    return x.astype(ml_dtypes.bfloat16).astype(np.float32)


def _relative_error(got):
    return float(np.abs(np.asarray(got, np.float64) - EXACT).max() / np.abs(EXACT).max())


def _matmul(a, b):
    return paddle.matmul(a, b)


@pytest.fixture
def ab():
    return paddle.to_tensor(A), paddle.to_tensor(B)


def test_names_and_aliases():
    assert [canonical_precision(n) for n in ("float32", "bf16x3", "bfloat16")] == ["float32", "bf16x3", "bfloat16"]
    assert [canonical_precision(n) for n in ("highest", "high", "default", "fastest")] == \
        ["float32", "bf16x3", "bfloat16", "bfloat16"]
    for bad in ("tf32", None, 3, ["float32"]):
        with pytest.raises(ValueError, match="is not one of float32, bf16x3, bfloat16"):
            canonical_precision(bad)
    with pytest.raises(ValueError, match="matmul precision 'fp8'"):
        config.update("matmul_precision", "fp8")
    assert config.matmul_precision == "float32"
    with pytest.raises(ValueError, match="'half'"):
        paddle.jit(_matmul, matmul_precision="half")


def test_default_is_exact_float32(ab):
    got = paddle.jit(_matmul)(*ab).numpy()
    np.testing.assert_allclose(got, A @ B, rtol=2e-6, atol=2e-6)
    assert _relative_error(got) < 1e-6


def test_bfloat16_is_one_product_of_rounded_operands(ab):
    got = paddle.jit(_matmul, matmul_precision="bfloat16")(*ab).numpy()
    np.testing.assert_allclose(got, _bf16(A) @ _bf16(B), rtol=1e-5, atol=1e-5)
    assert _relative_error(got) > 1e-3  # really demoted


def test_bf16x3_is_close_to_float32(ab):
    got = paddle.jit(_matmul, matmul_precision="bf16x3")(*ab).numpy()
    hi_a, hi_b = _bf16(A), _bf16(B)
    lo_a, lo_b = _bf16(A - hi_a), _bf16(B - hi_b)
    np.testing.assert_allclose(got, hi_a @ lo_b + lo_a @ hi_b + hi_a @ hi_b, rtol=1e-5, atol=1e-5)
    assert _relative_error(got) < 3e-5
    one = _relative_error(paddle.jit(_matmul, matmul_precision="bfloat16")(*ab).numpy())
    assert _relative_error(got) < one / 30


def test_global_setting_context_manager_and_per_jit_override(ab):
    f = paddle.jit(_matmul)
    exact = f(*ab).numpy()
    with paddle.default_matmul_precision("bfloat16"):
        demoted = f(*ab).numpy()  # the same function, a new compilation: precision is part of the cache key
        pinned = paddle.jit(_matmul, matmul_precision="float32")(*ab).numpy()
    np.testing.assert_array_equal(f(*ab).numpy(), exact)
    assert np.abs(demoted - exact).max() > 1e-3
    np.testing.assert_array_equal(pinned, exact)
    before = config.matmul_precision
    try:
        config.update("matmul_precision", "high")
        assert config.matmul_precision == "bf16x3"
        np.testing.assert_allclose(f(*ab).numpy(), paddle.jit(_matmul, matmul_precision="bf16x3")(*ab).numpy(),
                                   rtol=0, atol=0)
    finally:
        config.update("matmul_precision", before)


def test_eager_float64_and_integers_are_untouched(ab):
    with paddle.default_matmul_precision("bfloat16"):
        np.testing.assert_allclose(_matmul(*ab).numpy(), A @ B, rtol=2e-6, atol=2e-6)
        a64, b64 = paddle.to_tensor(A.astype(np.float64)), paddle.to_tensor(B.astype(np.float64))
        np.testing.assert_allclose(paddle.jit(_matmul)(a64, b64).numpy(), EXACT, rtol=1e-12)
        ai = paddle.to_tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
        np.testing.assert_array_equal(paddle.jit(_matmul)(ai, ai.T).numpy(), [[5, 14], [14, 50]])


def test_convolution_and_gradients_follow_the_setting():
    x = paddle.to_tensor(RNG.normal(size=(2, 3, 8, 8)).astype(np.float32))
    w = paddle.to_tensor(RNG.normal(size=(4, 3, 3, 3)).astype(np.float32))
    conv = paddle.nn.functional.conv2d
    exact = conv(x, w).numpy()
    rounded = conv(paddle.to_tensor(_bf16(x.numpy())), paddle.to_tensor(_bf16(w.numpy()))).numpy()
    demoted = paddle.jit(conv, matmul_precision="bfloat16")(x, w).numpy()
    np.testing.assert_allclose(demoted, rounded, rtol=1e-4, atol=1e-4)
    assert np.abs(demoted - exact).max() > 1e-3
    loss = lambda a, b: (paddle.matmul(a, b) ** 2).sum()  # noqa: E731
    a, b = paddle.to_tensor(A), paddle.to_tensor(B)
    g_exact = paddle.grad(loss)(a, b).numpy()
    g_x3 = paddle.jit(paddle.grad(loss), matmul_precision="bf16x3")(a, b).numpy()
    np.testing.assert_allclose(g_x3, g_exact, rtol=1e-3, atol=1e-3 * np.abs(g_exact).max())


def _on_cpu(lowered, target, *args):
    """The results of `lowered`'s text for `target` (its forms), compiled for and run on the CPU."""
    exe = runtime.load_executable(compile_stablehlo(lowered.as_text(target), use_disk_cache=False))
    return [out.to_numpy() for out in exe(*[np.asarray(a) for a in args])]


def test_the_rewrite_is_in_the_compiled_program_and_cross_compiles_for_cuda(ab):
    lowered = paddle.jit(_matmul, matmul_precision="bf16x3").lower(*ab)
    assert lowered.as_text().count("stablehlo.dot_general") == 3 and "bf16" in lowered.as_text()
    assert "bf16" not in paddle.jit(_matmul).lower(*ab).as_text()
    # for the GPUs the three products are one, over the parts side by side along the summed axis
    text = lowered.as_text("cuda")
    assert text.count("stablehlo.dot_general") == 1 and "(tensor<48x192xbf16>, tensor<192x32xbf16>)" in text
    artifact = compile_stablehlo(text, target="cuda", use_disk_cache=False)
    assert artifact.target == "cuda" and len(artifact.vmfb) > 0
    got, = _on_cpu(lowered, "cuda", A, B)
    np.testing.assert_allclose(got, _bf16x3_terms(np.matmul, A, B), rtol=1e-5, atol=1e-5)
    assert _relative_error(got) < 3e-5


def test_jit_functions_called_inside_inherit_the_outer_setting_unless_they_have_their_own(ab):
    inner = paddle.jit(_matmul)
    pinned = paddle.jit(_matmul, matmul_precision="float32")
    outer = paddle.jit(lambda a, b: (inner(a, b), pinned(a, b)), matmul_precision="bfloat16")
    inherited, own = (t.numpy() for t in outer(*ab))
    np.testing.assert_allclose(inherited, _bf16(A) @ _bf16(B), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(own, A @ B, rtol=2e-6, atol=2e-6)


def _bf16x3_terms(product, x, y):
    """hi_x * lo_y + lo_x * hi_y + hi_x * hi_y for the float32 arrays x, y under `product` (float64 numpy)."""
    hi_x, hi_y = _bf16(x), _bf16(y)
    lo_x, lo_y = _bf16(x - hi_x), _bf16(y - hi_y)
    return sum(product(*(t.astype(np.float64) for t in pair)) for pair in ((hi_x, lo_y), (lo_x, hi_y), (hi_x, hi_y)))


@pytest.mark.parametrize("groups", [1, 2])
def test_bf16x3_convolutions_for_the_gpus_are_one_convolution_unless_grouped(groups):
    x = RNG.normal(size=(2, 4, 8, 8)).astype(np.float32)
    w = RNG.normal(size=(6, 4 // groups, 3, 3)).astype(np.float32)
    conv = paddle.jit(lambda a, b: paddle.nn.functional.conv2d(a, b, groups=groups), matmul_precision="bf16x3")
    lowered = conv.lower(paddle.to_tensor(x), paddle.to_tensor(w))
    assert lowered.as_text().count("stablehlo.convolution") == 3
    text = lowered.as_text("cuda")
    assert text.count("stablehlo.convolution") == (1 if groups == 1 else 3)
    if groups == 1:  # the input's 4 features and the kernel's, three times over (the kernel's layout is the lowering's)
        line = next(line for line in text.splitlines() if "stablehlo.convolution" in line)
        assert re.search(r": \(tensor<2x12x8x8xbf16>, tensor<(3x3x12x6|6x12x3x3)xbf16>\)", line), line
    exact = paddle.nn.functional.conv2d(paddle.to_tensor(x.astype(np.float64)),
                                        paddle.to_tensor(w.astype(np.float64)), groups=groups).numpy()
    terms = _bf16x3_terms(lambda a, b: paddle.nn.functional.conv2d(paddle.to_tensor(a), paddle.to_tensor(b),
                                                                   groups=groups).numpy(), x, w)
    for got in (conv(paddle.to_tensor(x), paddle.to_tensor(w)).numpy(), _on_cpu(lowered, "cuda", x, w)[0]):
        np.testing.assert_allclose(got, terms, rtol=1e-5, atol=1e-5)
        assert np.abs(got - exact).max() < 3e-5 * np.abs(exact).max()


def test_bf16x3_products_without_a_summed_axis_stay_three_products():
    x, y = RNG.normal(size=(5,)).astype(np.float32), RNG.normal(size=(7,)).astype(np.float32)
    outer = paddle.jit(lambda a, b: dot_general(a, b, dimension_numbers=(((), ()), ((), ()))),
                       matmul_precision="bf16x3")
    text = outer.lower(paddle.to_tensor(x), paddle.to_tensor(y)).as_text("cuda")
    assert text.count("stablehlo.dot_general") == 3
    np.testing.assert_allclose(outer(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(),
                               _bf16x3_terms(np.outer, x, y), rtol=1e-6, atol=1e-6)


def test_the_gpu_check_can_keep_three_products_for_the_gpus():
    program = ("import numpy as np, paddle_fn as paddle\n"
               "a = paddle.ones([4, 8])\n"
               "text = paddle.jit(paddle.matmul, matmul_precision='bf16x3').lower(a, a.T).as_text('cuda')\n"
               "print(text.count('stablehlo.dot_general'))")
    counts = [subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PADDLE_FN_BF16X3_AS_THREE_PRODUCTS": value}).stdout.strip()
              for value in ("1", "0")]
    assert counts == ["3", "1"]
