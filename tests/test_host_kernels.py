"""Host kernels (lowering/host_calls.py, runtime/host_kernels.py, transforms/host_kernels.py): a jit program on the
CPU calls pocketfft and LAPACK for large FFTs and the decompositions, giving the eager results exactly, through
grad, vmap and loops, from a fresh compile and from the disk cache; small problems, programs lowered without them
and other targets keep IREE code; a program naming another kernel, or a kernel failing, is a clear error that does
not poison later calls."""
import subprocess
import sys
import types

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import linalg
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.primitive import get_primitive
from paddle_fn.lowering import host_calls
from paddle_fn.prims.control_flow import fori_loop
from paddle_fn.runtime import default_device, load_stablehlo
from paddle_fn.transforms import host_kernels as transforms_host_kernels
from paddle_fn.transforms.host_kernels import run_kernel

RNG = np.random.default_rng(0)
A = RNG.standard_normal((40, 40)).astype("float32")
SIGNAL = (RNG.standard_normal((4, 1 << 16)) + 1j * RNG.standard_normal((4, 1 << 16))).astype("complex64")


def _calls(fun, *args):
    return paddle.jit(fun).lower(*args).as_text().count(f"func.call @{host_calls.MODULE}.")


def _same(got, want):
    for g, w in zip(got if isinstance(got, (tuple, list)) else [got], want if isinstance(want, (tuple, list))
                    else [want]):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("name, fun, operand", [
    ("fft", paddle.fft.fft, SIGNAL),
    ("rfft2", paddle.fft.rfft2, RNG.standard_normal((512, 512)).astype("float32")),
    ("irfft", lambda x: paddle.fft.irfft(x, n=1 << 17), SIGNAL),
    ("complex128 ifftn", paddle.fft.ifftn, SIGNAL[:, :1 << 14].astype("complex128").reshape(4, 128, 128)),
    ("sort", lambda x: paddle.sort(x, axis=-1), SIGNAL.real),  # 65,536 per line: IREE's own sort fails to compile
    ("argsort of ties", lambda x: paddle.argsort(x, stable=True), np.round(SIGNAL.real[:, :4096])),
    ("topk", lambda x: paddle.topk(x, 5)[1], A),
    ("eig", linalg.eig, A),
    ("eigvals", linalg.eigvals, (A + 1j * A.T).astype("complex64")),
    ("eigh", linalg.eigh, A + A.T),
    ("svd", lambda x: linalg.svd(x, full_matrices=False), A[:, :20].astype("float64")),
    ("qr", linalg.qr, A),
    ("lu", linalg.lu, A),
    ("cholesky", linalg.cholesky, A @ A.T + 40 * np.eye(40, dtype="float32")),
    ("triangular_solve", lambda x: linalg.triangular_solve(x, x[:, :3] + 1, upper=False),
     np.tril(A) + 8 * np.eye(40, dtype="float32")),
])
def test_jit_calls_the_library_and_gives_the_eager_result(name, fun, operand):
    x = paddle.to_tensor(operand)
    assert _calls(fun, x) == 1
    _same(paddle.jit(fun)(x), fun(x))


def test_small_problems_and_programs_without_host_kernels_keep_iree_code():
    small = paddle.to_tensor(A[:8, :8] @ A[:8, :8].T + 8 * np.eye(8, dtype="float32"))
    assert _calls(linalg.cholesky, small) == 0  # 512 multiply-adds: the call would cost more than the work
    assert _calls(paddle.fft.fft, paddle.to_tensor(SIGNAL[:, :256])) == 0
    assert _calls(paddle.sort, paddle.to_tensor(A[:4, :8])) == 0
    # many small factorizations run faster vectorized in IREE than one library call per matrix
    assert _calls(paddle.vmap(linalg.lu), paddle.to_tensor(np.stack([A[:16, :16]] * 100))) == 0
    saved, paddle.config.jit_host_kernels = paddle.config.jit_host_kernels, False
    try:
        assert _calls(linalg.eigh, paddle.to_tensor(A + A.T)) == 0
        w = paddle.jit(linalg.eigvalsh)(paddle.to_tensor(A + A.T))  # the Jacobi expansion
    finally:
        paddle.config.jit_host_kernels = saved
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(A + A.T), rtol=1e-5, atol=1e-4)
    text = paddle.jit(linalg.eigh).lower(paddle.to_tensor(A + A.T)).as_text(target="cuda")
    assert host_calls.MODULE not in text


def test_derivatives_vmap_and_loops_through_host_kernels():
    a = paddle.to_tensor(A.astype("float64"))

    def loss(x):
        w = linalg.eigvals(x)
        return paddle.real(w * paddle.conj(w)).sum() + paddle.fft.fft(x.astype("complex128")).abs().sum()

    # the kernels agree exactly; the arithmetic around them is IREE's
    np.testing.assert_allclose(paddle.jit(paddle.grad(loss))(a).numpy(), paddle.grad(loss)(a).numpy(), rtol=1e-10)
    batch = paddle.to_tensor(np.stack([A + A.T, A @ A.T]))
    assert _calls(paddle.vmap(linalg.eigvalsh), batch) == 1
    _same(paddle.jit(paddle.vmap(linalg.eigvalsh))(batch), paddle.vmap(linalg.eigvalsh)(batch))
    step = lambda i, m: m + linalg.eigvalsh(m)[-1] * 1e-3  # noqa: E731 - a host call in a loop body
    sym = paddle.to_tensor(A + A.T)
    _same(paddle.jit(lambda m: fori_loop(0, 3, step, m))(sym), fori_loop(0, 3, step, sym))


def test_programs_from_the_disk_cache_find_the_kernels(tmp_path):
    script = ("import numpy as np, paddle_fn as paddle\n"
              "x = np.random.default_rng(1).standard_normal((32, 32)).astype('float32')\n"
              "w = paddle.jit(paddle.linalg.eigvals)(paddle.to_tensor(x)).numpy()\n"
              "assert np.array_equal(w, paddle.linalg.eigvals(paddle.to_tensor(x)).numpy())\n")
    env = {"PADDLE_FN_CACHE_DIR": str(tmp_path), "PADDLE_FN_LOG_COMPILES": "1", "PADDLE_FN_BACKGROUND_COMPILE": "0",
           "PATH": "/usr/bin:/bin"}
    logs = []
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        logs.append(run.stderr)
    assert "compiled in" in logs[0] and "loaded from the disk cache" in logs[1]


# A program whose host call names a primitive that is not a host kernel, as a tampered cache could hold
FOREIGN_CALL = """module @paddle_fn {{
  func.func private @{module}.call_2_1_0_{spec}(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {{
    %1 = func.call @{module}.call_2_1_0_{spec}(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>)
    return %1 : tensor<4xf32>
  }}
}}
"""


def test_only_host_kernels_run_and_a_failing_call_poisons_nothing():
    text = FOREIGN_CALL.format(module=host_calls.MODULE, spec=host_calls.encode_spec("add", {}))
    exe, _ = load_stablehlo(text, default_device())
    with pytest.raises(RuntimeError, match="host kernel 'add', which is not one of"):
        exe(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="not one of"):
        run_kernel(host_calls.encode_spec("add", {}), [np.ones(4), np.ones(4)])
    x = paddle.to_tensor(A + A.T)
    _same(paddle.jit(linalg.eigh)(x), linalg.eigh(x))  # the runtime keeps serving kernels


def test_a_kernel_result_of_another_shape_is_refused(monkeypatch):
    eigh = get_primitive("eigh")
    wrong = types.SimpleNamespace(name="eigh", impl=lambda a: [np.zeros(3, np.float32), np.zeros((3, 3), np.float32)],
                                  multiple_results=True, shape_rule=eigh.shape_rule)
    monkeypatch.setattr(transforms_host_kernels, "_kernel", lambda spec: (wrong, {}))
    with pytest.raises(ShapeError, match=r"host kernel eigh: its implementation gave float32\[3\] where the program "
                                         r"expects float32\[40\]"):
        run_kernel(host_calls.encode_spec("eigh", {}), [A + A.T])


def test_specs_round_trip():
    params = {"fft_type": "RFFT", "fft_length": (64, 128), "flag": True, "none": None}
    assert host_calls.decode_spec(host_calls.encode_spec("fft", params)) == ("fft", params)


def test_empty_matrices_give_empty_results_eagerly_and_compiled():
    empty = paddle.zeros([0, 0])
    for f in (linalg.eigh, linalg.svd, linalg.qr, linalg.eig):
        for got in (f(empty), paddle.jit(f)(empty)):
            assert all(r.size == 0 for r in got)
    assert float(paddle.jit(linalg.det)(empty)) == float(linalg.det(empty)) == 1.0
    no_rows = paddle.zeros([0, 96], dtype="complex64")  # the transforms of no rows: an empty constant, compiled
    assert paddle.jit(paddle.fft.fft)(no_rows).shape == paddle.fft.fft(no_rows).shape == [0, 96]
