"""paddle.fft: every function against scipy.fft (pocketfft, numpy's conventions) over norms, lengths and axes;
Paddle 3.3.1's docstring examples; the primitive's transposes (JAX's pairing Re(sum(ct * y))), vmap and jit; the
llvm-cpu decompositions evaluated eagerly and compiled; errors."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.fft as sf

import paddle_fn as paddle
from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import linearize_flat
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.staging import eval_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import llvm_cpu_fft, llvm_cpu_fft_planes
from paddle_fn.lowering.staged import stage
from paddle_fn.prims import structural
from paddle_fn.prims.fft import fft as fft_prim

RNG = np.random.default_rng(0)


def _complex(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _real(shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _close(got, want, tol=1e-10):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max(initial=0.0))))


# ---------------------------------------------------------------------------------------------- against scipy.fft

C2C = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"]
R2C = ["rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"]
C2R = ["irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"]


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
@pytest.mark.parametrize("name", C2C + R2C + C2R)
def test_matches_scipy_fft(name, norm):
    x = _real((4, 6, 5)) if name in R2C else _complex((4, 6, 5))
    got = getattr(paddle.fft, name)(paddle.to_tensor(x), norm=norm)
    want = getattr(sf, name)(x, norm=norm)
    assert got.dtype == ("float64" if name in C2R else "complex128")
    _close(got.numpy(), want)


@pytest.mark.parametrize("name,kwargs", [
    ("fft", dict(n=9, axis=0)), ("fft", dict(n=3)), ("ifft", dict(n=7, axis=1)), ("rfft", dict(n=11)),
    ("irfft", dict(n=9)), ("irfft", dict(n=2, axis=0)), ("hfft", dict(n=5)), ("ihfft", dict(n=8, axis=0)),
    ("fft2", dict(s=(3, 8))), ("rfft2", dict(s=(5, 7), axes=(0, 2))), ("irfft2", dict(s=(4, 9))),
    ("hfft2", dict(s=(6, 3), axes=(2, 1))), ("fftn", dict(s=(2, 3))), ("ifftn", dict(axes=(0, 2))),
    ("rfftn", dict(axes=(2, 0))), ("irfftn", dict(s=(5, 6, 7))), ("hfftn", dict(axes=(1,))),
    ("ihfftn", dict(s=(3, 3), axes=(0, 1))),
])
def test_lengths_and_axes(name, kwargs):
    x = _real((4, 6, 5)) if name in R2C else _complex((4, 6, 5))
    _close(getattr(paddle.fft, name)(paddle.to_tensor(x), **kwargs).numpy(), getattr(sf, name)(x, **kwargs))


def test_more_than_three_axes_and_single_precision():
    x = _complex((2, 3, 4, 5, 3), np.complex64)
    got = paddle.fft.fftn(paddle.to_tensor(x))
    assert got.dtype == "complex64"
    _close(got.numpy(), sf.fftn(x), tol=1e-5)
    r = _real((2, 3, 4, 5, 6), np.float32)
    _close(paddle.fft.rfftn(paddle.to_tensor(r)).numpy(), sf.rfftn(r), tol=1e-5)
    spectrum = _complex((2, 3, 4, 5, 4))
    _close(paddle.fft.irfftn(paddle.to_tensor(spectrum), s=(2, 3, 4, 5, 7)).numpy(),
           sf.irfftn(spectrum, s=(2, 3, 4, 5, 7)))


def test_dtypes_follow_paddle():
    ints = paddle.to_tensor([1, 2, 3, 4])
    assert paddle.fft.fft(ints).dtype == "complex64"      # Paddle 3.3.1: int64 -> complex64
    assert paddle.fft.rfft(ints).dtype == "complex64"
    assert paddle.fft.ihfft(ints).dtype == "complex64"
    assert paddle.fft.irfft(paddle.to_tensor([1.0, 2.0, 3.0])).dtype == "float32"
    assert paddle.fft.fft(paddle.to_tensor([1.0, 2.0], dtype="float64")).dtype == "complex128"


def test_frequencies_and_shifts():
    _close(paddle.fft.fftfreq(7, d=0.25).numpy(), np.fft.fftfreq(7, d=0.25), tol=1e-7)
    _close(paddle.fft.rfftfreq(8, d=2.0, dtype="float64").numpy(), np.fft.rfftfreq(8, d=2.0))
    assert paddle.fft.fftfreq(4, dtype="float64").dtype == "float64"
    x = np.arange(30).reshape(5, 6)
    np.testing.assert_array_equal(paddle.fft.fftshift(paddle.to_tensor(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(paddle.fft.ifftshift(paddle.to_tensor(x), axes=1).numpy(),
                                  np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(paddle.fft.fftshift(paddle.to_tensor(x), axes=(0,)).numpy(),
                                  np.fft.fftshift(x, axes=(0,)))


# ---------------------------------------------------------------------------------------------- Paddle's examples

def test_paddle_docstring_examples():
    """The numbers Paddle 3.3.1 prints for its paddle.fft docstring examples (run from /tmp)."""
    x = np.exp(3j * np.pi * np.arange(7) / 7)
    np.testing.assert_array_equal(
        paddle.fft.fft(paddle.to_tensor(x)).numpy().round(3),
        [1 + 1.254j, 1 + 4.381j, 1 - 4.381j, 1 - 1.254j, 1 - 0.482j, 1 + 0j, 1 + 0.482j])
    np.testing.assert_array_equal(
        paddle.fft.ifft(paddle.to_tensor(x)).numpy().round(3),
        [0.143 + 0.179j, 0.143 + 0.069j, 0.143 + 0j, 0.143 - 0.069j, 0.143 - 0.179j, 0.143 - 0.626j,
         0.143 + 0.626j])
    got = paddle.fft.rfft(paddle.to_tensor([0.0, 1.0, 0.0, 0.0]))
    assert got.dtype == "complex64"
    _close(got.numpy(), [1, -1j, -1])
    got = paddle.fft.irfft(paddle.to_tensor([1, -1j, -1]))
    assert got.dtype == "float32"
    _close(got.numpy(), [0, 1, 0, 0])
    _close(paddle.fft.hfft(paddle.to_tensor([1, -1j, -1])).numpy(), [0, 0, 0, 4])
    spectrum = paddle.to_tensor([10.0, -5.0, 0.0, -1.0, 0.0, -5.0])
    _close(paddle.fft.ifft(spectrum).numpy(), [-0.16666667, 1, 2.33333349, 3.5, 2.33333349, 1], tol=1e-7)
    for ihfft in (paddle.fft.ihfft, paddle.fft.ihfftn):
        _close(ihfft(spectrum).numpy(), [-0.16666667, 1, 2.33333349, 3.5], tol=1e-7)
    arr = paddle.arange(2, dtype="float64")
    grid = paddle.meshgrid(arr, arr)[0]
    got = paddle.fft.fft2(grid)
    assert got.dtype == "complex128"
    _close(got.numpy(), [[2, 0], [-2, 0]])
    _close(paddle.fft.ifft2(grid).numpy(), [[0.5, 0], [-0.5, 0]])
    arr = paddle.arange(5, dtype="float64")
    grid = paddle.meshgrid(arr, arr)[0]
    _close(paddle.fft.rfft2(grid).numpy(),
           [[50, 0, 0], [-12.5 + 17.20477401j, 0, 0], [-12.5 + 4.0614962j, 0, 0], [-12.5 - 4.0614962j, 0, 0],
            [-12.5 - 17.20477401j, 0, 0]], tol=1e-9)
    _close(paddle.fft.ihfft2(grid).numpy(),
           [[2, 0, 0], [-0.5 - 0.68819096j, 0, 0], [-0.5 - 0.16245985j, 0, 0], [-0.5 + 0.16245985j, 0, 0],
            [-0.5 + 0.68819096j, 0, 0]], tol=1e-8)
    x = paddle.to_tensor([[3. + 3.j, 2. + 2.j, 3. + 3.j], [2. + 2.j, 2. + 2.j, 3. + 3.j]])
    _close(paddle.fft.irfft2(x).numpy(), [[2.375, -1.125, 0.375, 0.875], [0.125, 0.125, 0.125, 0.125]])
    _close(paddle.fft.hfft2(x).numpy(), [[19, 7, 3, -9], [1, 1, 1, 1]], tol=1e-6)
    arr = paddle.arange(4, dtype="float64")
    got = paddle.fft.fftn(paddle.meshgrid(arr, arr, arr)[1], axes=(1, 2)).numpy()
    _close(got, np.broadcast_to(np.array([[24, 0, 0, 0], [-8 + 8j, 0, 0, 0], [-8, 0, 0, 0], [-8 - 8j, 0, 0, 0]]),
                                (4, 4, 4)))
    third = 1 / 3
    _close(paddle.fft.ifftn(paddle.eye(3), axes=(1,)).numpy(),
           [[third, third, third], [third, -0.16666667 + 0.28867513j, -0.16666667 - 0.28867513j],
            [third, -0.16666667 - 0.28867513j, -0.16666667 + 0.28867513j]], tol=1e-7)
    ones = paddle.ones((2, 3, 4))
    got = paddle.fft.rfftn(ones).numpy()
    assert got.shape == (2, 3, 3) and got[0, 0, 0] == 24 and np.count_nonzero(got) == 1
    got = paddle.fft.rfftn(ones, axes=(2, 0)).numpy()
    assert got.shape == (2, 3, 4)
    _close(got[0, :, 0], [8, 8, 8])
    assert np.count_nonzero(got) == 3
    x = paddle.to_tensor([2. + 2.j, 2. + 2.j, 3. + 3.j]).astype(paddle.complex128)
    got = paddle.fft.irfftn(x)
    assert got.dtype == "float64"
    _close(got.numpy(), [2.25, -1.25, 0.25, 0.75])
    _close(paddle.fft.hfftn(paddle.to_tensor([(2 + 2j), (2 + 2j), (3 + 3j)])).numpy(), [9, 3, 1, -5])
    _close(paddle.fft.fftfreq(5, d=0.5).numpy(), [0, 0.40000001, 0.80000001, -0.80000001, -0.40000001], tol=1e-7)
    _close(paddle.fft.rfftfreq(5, d=0.3).numpy(), [0, 0.66666669, 1.33333337], tol=1e-7)
    _close(paddle.fft.fftshift(paddle.fft.fftfreq(5, d=0.3)).numpy(),
           [-1.33333337, -0.66666669, 0, 0.66666669, 1.33333337], tol=1e-7)


# ---------------------------------------------------------------------------------------------- the primitive

KINDS = [("FFT", (6,), (3, 6)), ("IFFT", (5,), (2, 5)), ("RFFT", (6,), (3, 6)), ("RFFT", (5,), (3, 5)),
         ("IRFFT", (6,), (3, 4)), ("IRFFT", (5,), (3, 3)), ("FFT", (3, 4), (2, 3, 4)), ("RFFT", (4, 6), (4, 6)),
         ("IRFFT", (4, 5), (2, 4, 3)), ("IFFT", (2, 3, 4), (2, 3, 4))]


def _operand(kind, shape):
    return _real(shape) if kind == "RFFT" else _complex(shape)


@pytest.mark.parametrize("kind,lengths,shape", KINDS)
def test_transpose_identity(kind, lengths, shape):
    """Re(sum(ct * J t)) == Re(sum(J^T ct * t)), JAX's pairing of complex cotangents."""
    def f(v):
        return [fft_prim(v, fft_type=kind, fft_length=lengths)]
    (y,), lin = linearize_flat(f, [Tensor(_operand(kind, shape))])
    tangent = _operand(kind, shape)
    ct = _real(y.shape) if kind == "IRFFT" else _complex(y.shape)
    (jt,) = lin(Tensor(tangent))
    _close(jt.numpy(), f(Tensor(tangent))[0].numpy())          # linear: its JVP is itself
    (back,) = lin.transpose([Tensor(ct)])
    lhs = np.real(np.sum(ct * jt.numpy()))
    rhs = np.real(np.sum(back.numpy() * tangent))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)


def test_parseval_gradient():
    """sum |fft(x)|^2 = n sum x^2, so its gradient is 2 n x (and the same through rfft's doubled bins)."""
    x = paddle.to_tensor(_real((3, 8)))

    def energy(v):
        y = paddle.fft.fft(v)
        return paddle.sum(paddle.real(y) ** 2 + paddle.imag(y) ** 2)
    _close(paddle.grad(energy)(x).numpy(), 16 * x.numpy())
    _close(paddle.grad(lambda v: paddle.sum(paddle.fft.irfft(paddle.fft.rfft(v)) * v))(x).numpy(), 2 * x.numpy())


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fft2", "rfft2", "ihfft", "hfft"])
def test_vmap_matches_loop(name):
    x = _real((3, 4, 6)) if name in R2C else _complex((3, 4, 6))
    f = getattr(paddle.fft, name)
    for axis in (0, 1, 2):
        got = paddle.vmap(f, in_axes=axis)(paddle.to_tensor(x)).numpy()
        want = np.stack([f(paddle.to_tensor(np.take(x, i, axis=axis))).numpy() for i in range(x.shape[axis])])
        _close(got, want)


# ---------------------------------------------------------------------------------------------- compiled

@pytest.mark.parametrize("kind,lengths,batch", [
    ("FFT", (1,), (2,)), ("FFT", (12,), (2,)), ("FFT", (64,), (3,)), ("FFT", (67,), (2,)), ("FFT", (1000,), (2,)),
    ("FFT", (256,), (1,)), ("IFFT", (131,), (2,)), ("RFFT", (10,), (3,)), ("RFFT", (128,), (2,)),
    ("RFFT", (4096,), (1,)), ("IRFFT", (9,), (3,)), ("IRFFT", (8,), (3,)), ("IRFFT", (137,), (2,)),
    ("FFT", (8, 6), (2,)), ("RFFT", (3, 4, 5), (2,)), ("IRFFT", (4, 6), (1,)),
])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_llvm_cpu_decomposition_matches_impl(kind, lengths, batch, precision):
    """The staged forms of lowering/llvm_cpu_fft.py, evaluated eagerly, against pocketfft."""
    dtype = np.complex64 if precision == "single" else np.complex128
    shape = batch + lengths[:-1] + ((lengths[-1] // 2 + 1,) if kind == "IRFFT" else lengths[-1:])
    x = _real(shape, np.float32 if precision == "single" else np.float64) if kind == "RFFT" else _complex(shape, dtype)
    prog, consts = stage(lambda v: [llvm_cpu_fft.decompose(v, kind, lengths)], [get_aval(Tensor(x))])
    (got,) = eval_program(prog, list(consts), [Tensor(x)])
    want = fft_prim(Tensor(x), fft_type=kind, fft_length=lengths)
    assert get_aval(got) == get_aval(want)
    _close(got.numpy(), want.numpy(), tol=2e-6 if precision == "single" else 1e-12)


@pytest.mark.parametrize("kind,lengths,batch", [
    ("FFT", (1,), (2,)), ("FFT", (7,), (3,)), ("FFT", (64,), (2,)), ("FFT", (96,), (2,)), ("FFT", (128,), (1,)),
    ("FFT", (2048,), (2,)), ("FFT", (65,), (2,)), ("FFT", (4096,), (1,)), ("IFFT", (3 * 64,), (2,)),
    ("IFFT", (100,), (3,)), ("RFFT", (2,), (2,)), ("RFFT", (96,), (2,)), ("RFFT", (2048,), (1,)),
    ("RFFT", (65,), (2,)), ("IRFFT", (1,), (2,)), ("IRFFT", (9,), (3,)), ("IRFFT", (96,), (2,)),
    ("IRFFT", (65,), (2,)), ("IRFFT", (512,), (1,)), ("FFT", (12, 80), (2,)), ("IFFT", (3, 5, 7), (1,)),
    ("RFFT", (40, 96), (2,)), ("IRFFT", (96, 40), (1,)), ("FFT", (6, 8), (0,)),
])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_llvm_cpu_planes_form_matches_impl(kind, lengths, batch, precision):
    """The products on real planes of lowering/llvm_cpu_fft_planes.py, evaluated eagerly, against pocketfft:
    lengths 2^k, 3 * 2^k, products of two odd factors, 1, under and over one product's 64 points, no batch."""
    dtype = np.complex64 if precision == "single" else np.complex128
    shape = batch + lengths[:-1] + ((lengths[-1] // 2 + 1,) if kind == "IRFFT" else lengths[-1:])
    x = _real(shape, np.float32 if precision == "single" else np.float64) if kind == "RFFT" else _complex(shape, dtype)
    assert llvm_cpu_fft_planes.handles(lengths)
    prog, consts = stage(lambda v: [llvm_cpu_fft_planes.transform(v, kind, lengths)], [get_aval(Tensor(x))])
    (got,) = eval_program(prog, list(consts), [Tensor(x)])
    want = fft_prim(Tensor(x), fft_type=kind, fft_length=lengths)
    assert get_aval(got) == get_aval(want)
    _close(got.numpy(), want.numpy(), tol=2e-6 if precision == "single" else 1e-12)


def test_llvm_cpu_forms_are_chosen_by_kind_length_and_size():
    small, large = ShapedArray((512, 512), dtypes.float32), ShapedArray((2048, 2048), dtypes.float32)
    assert llvm_cpu_fft.in_planes(small, "RFFT", (512, 512)) and llvm_cpu_fft.in_planes(small, "FFT", (512,))
    assert not llvm_cpu_fft.in_planes(large, "RFFT", (2048, 2048))      # the packed rows beat planes there
    assert not llvm_cpu_fft.in_planes(small, "RFFT", (512,))
    assert not llvm_cpu_fft.in_planes(small, "FFT", (4099,))            # a prime over 64 points: Bluestein's
    assert not llvm_cpu_fft_planes.handles((67,)) and llvm_cpu_fft_planes.handles((4096, 1, 63))


@pytest.mark.parametrize("name,shape,dtype", [
    ("fft2", (48, 96), "complex64"), ("ifftn", (2, 3, 80), "complex128"), ("rfft2", (96, 40), "float32"),
    ("irfft2", (16, 9), "complex64"), ("fft", (3, 96), "complex64"), ("rfftn", (2, 12, 10), "float64"),
])
def test_jit_matches_eager_through_planes(name, shape, dtype):
    x = paddle.to_tensor(_real(shape, dtype) if dtype.startswith("float") else _complex(shape, dtype))
    f = getattr(paddle.fft, name)
    assert "dot_general" in paddle.jit(f).lower(x).as_text()
    got, want = paddle.jit(f)(x), f(x)
    assert got.dtype == want.dtype
    _close(got.numpy(), want.numpy(), tol=2e-6 if dtype in ("float32", "complex64") else 1e-12)


@pytest.mark.parametrize("name,shape,dtype", [
    ("fft", (2, 16), "complex64"), ("fft", (1, 1024), "complex64"), ("fft", (3, 100), "complex64"),
    ("ifft", (2, 67), "complex128"), ("rfft", (2, 12), "float32"), ("rfft", (1, 512), "float32"),
    ("irfft", (3, 9), "complex64"), ("rfft2", (16, 32), "float32"), ("irfft2", (6, 5), "complex128"),
    ("fftn", (3, 4, 5), "complex128"), ("hfft", (7,), "complex64"),
])
def test_jit_matches_eager(name, shape, dtype):
    x = paddle.to_tensor(_real(shape, dtype) if dtype.startswith("float") else _complex(shape, dtype))
    f = getattr(paddle.fft, name)
    got, want = paddle.jit(f)(x), f(x)
    assert got.dtype == want.dtype
    _close(got.numpy(), want.numpy(), tol=2e-6 if dtype in ("float32", "complex64") else 1e-12)


def test_grad_under_jit():
    x = paddle.to_tensor(_real((2, 10)))

    def loss(v):
        return paddle.sum(paddle.fft.irfft(paddle.fft.rfft(v) * paddle.fft.rfft(v), n=10))
    _close(paddle.jit(paddle.grad(loss))(x).numpy(), paddle.grad(loss)(x).numpy())


# ---------------------------------------------------------------------------------------------- errors

def test_errors_name_the_function_and_the_fix():
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"paddle.fft.fft: Unexpected norm: 'bad'"):
        paddle.fft.fft(x, norm="bad")
    with pytest.raises(ValueError, match=r"Invalid FFT argument n\(0\)"):
        paddle.fft.fft(x, n=0)
    with pytest.raises(ValueError, match=r"Invalid FFT axis \(3\)"):
        paddle.fft.fft(x, axis=3)
    with pytest.raises(ValueError, match=r"Length of s \(1\) and length of axes \(2\)"):
        paddle.fft.fftn(paddle.ones([2, 2]), s=[2], axes=[0, 1])
    with pytest.raises(ValueError, match="name an axis twice"):
        paddle.fft.fft2(paddle.ones([2, 2]), axes=[0, 0])
    with pytest.raises(TypeError, match="expected a real input"):
        paddle.fft.rfft(paddle.to_tensor([1 + 1j]))
    with pytest.raises(ValueError, match=r"Invalid FFT argument n\(0\)"):
        paddle.fft.irfft(paddle.to_tensor([1 + 1j]))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_jit_pads_complex_signals(dtype):
    """fft(x, n) zero-pads complex x: IREE crashes on a complex pad, which lowering/llvm_cpu_pad.py does by parts."""
    x = paddle.to_tensor(_complex((2, 6), dtype))
    want = paddle.fft.fft(x, n=8)
    got = paddle.jit(lambda v: paddle.fft.fft(v, n=8))(x)
    _close(got.numpy(), want.numpy(), tol=2e-6 if dtype == "complex64" else 1e-12)
    value = paddle.to_tensor(np.asarray(1 - 2j, dtype))
    config = ((1, 0, 1), (0, 2, 0))
    padded = paddle.jit(lambda v, p: structural.pad(v, p, padding_config=config))(x, value)
    _close(padded.numpy(), structural.pad(x, value, padding_config=config).numpy())


def _jax_style_losses():
    arange = lambda n: paddle.arange(n, dtype="float64")  # noqa: E731
    return {
        "rfft_abs": lambda v: paddle.sum(paddle.abs(paddle.fft.rfft(v))),
        "irfft_sq": lambda v: paddle.sum(paddle.fft.irfft(v, 10) ** 2),
        "fft_real": lambda v: paddle.sum(paddle.real(paddle.fft.fft(v)) * arange(6)),
        "ifft_imag": lambda v: paddle.sum(paddle.imag(paddle.fft.ifft(v, norm="ortho")) ** 2),
        "hfft": lambda v: paddle.sum(paddle.fft.hfft(v) * arange(10)),
        "ihfft": lambda v: paddle.sum(paddle.abs(paddle.fft.ihfft(v)) ** 2),
        "fft2": lambda v: paddle.sum(paddle.abs(paddle.fft.fft2(v.reshape([2, 3])))),
        "rfftn_fwd": lambda v: paddle.sum(paddle.real(paddle.fft.rfftn(v.reshape([2, 3]), norm="forward")) ** 3),
    }


# jax.grad of the same losses (JAX 0.10.2, x64, run from /tmp): real inputs x, complex inputs z.
JAX_GRADS = {
    "rfft_abs": [-1.3660254, 1.0, 0.3660254, 1.6339746, 1.0, 3.3660254],
    "irfft_sq": [-0.2, -0.216 - 0.21612092j, -0.032 + 0.16645873j, 0.152 + 0.395997j, 0.336 + 0.26145745j, 0.26],
    "fft_real": [15, -3 + 5.19615242j, -3 + 1.73205081j, -3, -3 - 1.73205081j, -3 - 5.19615242j],
    "ifft_imag": [-2j, -1.84 - 0.82396449j, -0.92 + 1.06979046j, 1.97998499j, 0.92 + 1.06979046j,
                  1.84 - 0.82396449j],
    "hfft": [45, -10 + 30.77683537j, -10 + 13.7638192j, -10 + 7.26542528j, -10 + 3.24919696j, -5],
    "ihfft": [-0.18, -0.02666667, -0.02666667, 0.12666667, 0.12666667, 0.28],
    "fft2": [-1.61951239 - 1.85166884j, 0.11488797 - 0.71933551j, 1.83421544 + 1.78785049j,
             0.09544982 + 2.09046167j, 1.82985017 + 1.22704286j, 3.54917764 - 1.01356562j],
    "rfftn_fwd": [0.27575, 0.236075, 0.236075, -0.20035, -0.240025, -0.240025],
}
REAL_X = np.linspace(-1, 1.3, 6)
COMPLEX_Z = REAL_X + 1j * np.cos(np.arange(6))


@pytest.mark.parametrize("name", list(JAX_GRADS))
def test_gradients_match_jax(name):
    arg = REAL_X if name in ("rfft_abs", "ihfft", "rfftn_fwd") else COMPLEX_Z
    got = paddle.grad(_jax_style_losses()[name])(paddle.to_tensor(arg)).numpy()
    np.testing.assert_allclose(got, JAX_GRADS[name], atol=1e-8)


def test_eager_tape_matches_paddle():
    """Tensor.backward gives Paddle 3.3.1's gradients (the conjugates of JAX's for complex inputs)."""
    def backward(loss, arg):
        t = paddle.to_tensor(arg, stop_gradient=False)
        loss(t).backward()
        return t.grad.numpy()
    losses = _jax_style_losses()
    np.testing.assert_allclose(
        backward(lambda t: paddle.sum(paddle.abs(paddle.fft.fft(t))), COMPLEX_Z),
        [-2.89274522 + 1.22399015j, 0.80150236 + 0.9900867j, 1.65881222 - 0.27788344j, 1.36868265 - 1.46278298j,
         1.14323578 - 1.49779406j, 3.72458086 - 0.49640142j], atol=1e-8)
    np.testing.assert_allclose(backward(losses["irfft_sq"], COMPLEX_Z), np.conj(JAX_GRADS["irfft_sq"]), atol=1e-8)
    np.testing.assert_allclose(backward(losses["rfft_abs"], REAL_X), JAX_GRADS["rfft_abs"], atol=1e-8)
    np.testing.assert_allclose(backward(losses["hfft"], COMPLEX_Z), np.conj(JAX_GRADS["hfft"]), atol=1e-8)


def test_out_keyword_as_paddle():
    x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    out = paddle.zeros([1])
    got = paddle.fft.fft(x, out=out)
    assert got is out and out.numpy().tolist() == [10 + 0j, -2 + 2j, -2 + 0j, -2 - 2j]
    out2 = paddle.zeros([1])
    paddle.fft.irfft2(paddle.fft.rfft2(paddle.ones([2, 4])), out=out2)
    np.testing.assert_allclose(out2.numpy(), np.ones((2, 4)), atol=1e-6)
    freqs = paddle.fft.fftfreq(4, out=paddle.zeros([1]), requires_grad=True, device="cpu")
    assert freqs.numpy().tolist() == [0.0, 0.25, -0.5, -0.25] and not freqs.stop_gradient
    assert paddle.fft.rfftfreq(4, out=out).numpy().tolist() == [0.0, 0.25, 0.5] and out.shape == [3]
