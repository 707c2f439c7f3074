"""`paddle.fft`: discrete Fourier transforms, Paddle 3.3's namespace (numpy's conventions).

Every transform is the `fft` primitive (`paddle_fn.prims.fft`) over the requested axes, moved to the end and
back, with the input padded with zeros or cropped to the requested lengths (`n`, `s`) and the result scaled for
`norm`: ``'backward'`` (the default) leaves the forward transforms unscaled and divides the inverse ones by the
number of points, ``'forward'`` does the opposite, ``'ortho'`` divides both by its square root. Any length works,
the transforms are differentiable (the transpose of an FFT is an FFT), and they work under vmap and jit. Each takes
Paddle 3.3's keyword `out` (a Tensor made to hold the result). See docs/fft.md.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import structural as st
from paddle_fn.prims.complex_parts import conj
from paddle_fn.prims.fft import fft as _fft_prim
from paddle_fn.tensor._util import normalize_axis, shape_of, static_int, write_out
from paddle_fn.tensor.manipulation import roll
from paddle_fn.tensor.promotion import as_tensor, cast

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_MOST_AXES = 3  # the primitive transforms up to three trailing axes at once
_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}


# ---------------------------------------------------------------------------------------------- helpers

def _check_norm(op, norm):
    if norm not in _NORMS:
        raise ValueError(f"paddle.fft.{op}: Unexpected norm: {norm!r}. Norm should be forward, backward or ortho")


def _real_input(op, x):
    """x as a float32/float64 Tensor (integers and bool in the default float dtype; float16 in float32)."""
    x = as_tensor(x)
    kind, name = get_aval(x).dtype.kind, get_aval(x).dtype.name
    if kind == "c":
        raise TypeError(f"paddle.fft.{op}: expected a real input, got {name} of shape {list(shape_of(x))}; "
                        "paddle.fft.fft/fftn transform complex input")
    if name not in _COMPLEX_OF:
        x = cast(x, dtypes.default_float_dtype() if kind != "f" else dtypes.float32)
    return x


def _complex_input(op, x):
    """x as a complex64/complex128 Tensor (a real one gets a zero imaginary part, of its own width)."""
    x = as_tensor(x)
    if get_aval(x).dtype.kind == "c":
        return x
    x = _real_input(op, x)
    return cast(x, _COMPLEX_OF[get_aval(x).dtype.name])


def _axes_and_lengths(op, x, s, axes):
    """The normalized axes (in the caller's order) and the requested length of each (None: keep the size)."""
    rank = len(shape_of(x))
    if axes is None:
        axes = tuple(range(rank - len(s), rank)) if s is not None else tuple(range(rank))
    axes = tuple(_axis(op, a, rank) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"paddle.fft.{op}: axes {list(axes)} name an axis twice")
    if s is None:
        return axes, (None,) * len(axes)
    s = tuple(static_int(op, n, "s") for n in s)
    if len(s) != len(axes):
        raise ValueError(f"paddle.fft.{op}: Length of s ({len(s)}) and length of axes ({len(axes)}) does not match.")
    for n in s:
        _check_length(op, n)
    return axes, s


def _axis(op, axis, rank):
    axis = static_int(op, axis, "axis")
    if not -rank <= axis < rank:
        raise ValueError(f"paddle.fft.{op}: Invalid FFT axis ({axis}), it should be in range [-{rank}, {rank}) for a "
                         f"tensor of rank {rank}")
    return axis % rank


def _check_length(op, n):
    if n < 1:
        raise ValueError(f"paddle.fft.{op}: Invalid FFT argument n({n}), it should be positive.")


def _resize(x, axis, n):
    """x padded with zeros, or cropped, to `n` elements along `axis`."""
    size = shape_of(x)[axis]
    if n == size:
        return x
    config = tuple((0, n - size if a == axis else 0, 0) for a in range(len(shape_of(x))))
    return st.pad(x, 0, padding_config=config)


def _transform(x, fft_type, axes, lengths):
    """The primitive of kind `fft_type` over `axes` with signal lengths `lengths`, three axes at a time; RFFT's and
    IRFFT's half axis is the last of `axes`, the others get complex FFTs (after RFFT, before IRFFT)."""
    split = max(len(axes) - _MOST_AXES, 0)
    last = tuple(axes[split:]), tuple(lengths[split:])
    others = [(tuple(axes[lo:min(lo + _MOST_AXES, split)]), tuple(lengths[lo:min(lo + _MOST_AXES, split)]))
              for lo in range(0, split, _MOST_AXES)]
    plain = "IFFT" if fft_type in ("IFFT", "IRFFT") else "FFT"
    if fft_type == "IRFFT":
        for group in others:
            x = _over(x, plain, *group)
    x = _over(x, fft_type, *last)
    if fft_type != "IRFFT":
        for group in others:
            x = _over(x, plain, *group)
    return x


def _over(x, fft_type, axes, lengths):
    """One application of the primitive over `axes` (moved to the end and back)."""
    rank = len(shape_of(x))
    if axes == tuple(range(rank - len(axes), rank)):
        return _fft_prim(x, fft_type=fft_type, fft_length=lengths)
    perm = tuple(a for a in range(rank) if a not in axes) + axes
    y = _fft_prim(st.transpose(x, permutation=perm), fft_type=fft_type, fft_length=lengths)
    return st.transpose(y, permutation=tuple(int(i) for i in np.argsort(perm)))


def _scale(y, points, norm, *, inverse, divided):
    """y scaled for `norm`: an `inverse` transform divides by the number of `points` under 'backward', a forward
    one under 'forward', both by its square root under 'ortho'; `divided` says the primitive already did."""
    exponent = {"backward": -1.0 if inverse else 0.0, "ortho": -0.5, "forward": 0.0 if inverse else -1.0}[norm]
    factor = points ** (exponent + (1.0 if divided else 0.0))
    return y if factor == 1.0 else y * factor


def _signal(op, x, s, axes):
    """The axes, their signal lengths, and x resized to them."""
    axes, lengths = _axes_and_lengths(op, x, s, axes)
    lengths = tuple(shape_of(x)[a] if n is None else n for a, n in zip(axes, lengths))
    for a, n in zip(axes, lengths):
        _check_length(op, n)
        x = _resize(x, a, n)
    return x, axes, lengths


def _c2c(op, x, s, axes, norm, *, inverse):
    """fftn or ifftn. A real input is transformed as Paddle does it, by RFFT and the conjugate-symmetric rest of
    the spectrum (half the work, and the spectrum is exactly Hermitian: the same last digits as Paddle)."""
    _check_norm(op, norm)
    x = as_tensor(x)
    if get_aval(x).dtype.kind == "c":
        x, axes, lengths = _signal(op, x, s, axes)
        y = _transform(x, "IFFT" if inverse else "FFT", axes, lengths)
        return _scale(y, math.prod(lengths), norm, inverse=inverse, divided=inverse)
    x, axes, lengths = _signal(op, _real_input(op, x), s, axes)
    if not axes:
        return _complex_input(op, x)
    y = _whole_spectrum(_transform(x, "RFFT", axes, lengths), axes, lengths[-1])
    return _scale(conj(y) if inverse else y, math.prod(lengths), norm, inverse=inverse, divided=False)


def _whole_spectrum(half, axes, n):
    """The full spectrum of a real signal from its RFFT `half` (n // 2 + 1 bins on the last of `axes`): bin k >=
    n // 2 + 1 is the conjugate of bin n - k with the indices along the other axes negated."""
    last, bins = axes[-1], shape_of(half)[axes[-1]]
    rest = n - bins
    if rest == 0:
        return half
    config = tuple((0, 0, 0) if a != last else (-1, rest + 1 - bins, 0) for a in range(len(shape_of(half))))
    mirror = st.rev(st.pad(half, 0, padding_config=config), dimensions=(last,))     # bins n - k, k = bins..n-1
    for a in axes[:-1]:                                                              # index -j along the others
        mirror = roll(st.rev(mirror, dimensions=(a,)), 1, a)
    return st.concatenate(half, conj(mirror), dimension=last)


def _r2c(op, x, s, axes, norm, *, hermitian):
    """rfftn (and, conjugated, ihfftn, which is an inverse transform) of a real input."""
    _check_norm(op, norm)
    x, axes, lengths = _signal(op, _real_input(op, x), s, axes)
    y = _scale(_transform(x, "RFFT", axes, lengths), math.prod(lengths), norm, inverse=hermitian, divided=False)
    return conj(y) if hermitian else y


def _c2r(op, x, s, axes, norm, *, hermitian):
    """irfftn (and, of the conjugate, hfftn, which is a forward transform) to a real output; the last axis's length
    defaults to 2 * (bins - 1)."""
    _check_norm(op, norm)
    x = _complex_input(op, x)
    axes, lengths = _axes_and_lengths(op, x, s, axes)
    if not axes:
        raise ValueError(f"paddle.fft.{op}: needs at least one axis to transform")
    lengths = tuple(shape_of(x)[a] if n is None else n for a, n in zip(axes[:-1], lengths[:-1])) + (
        2 * (shape_of(x)[axes[-1]] - 1) if lengths[-1] is None else lengths[-1],)
    for a, n in zip(axes, lengths):
        _check_length(op, n)
    for a, n in zip(axes, lengths[:-1] + (lengths[-1] // 2 + 1,)):
        x = _resize(x, a, n)
    if hermitian:
        x = conj(x)
    y = _transform(x, "IRFFT", axes, lengths)
    return _scale(y, math.prod(lengths), norm, inverse=not hermitian, divided=True)


def _one_axis(n, axis):
    return None if n is None else (n,), (axis,)


def _two_axes(op, s, axes):
    axes = tuple(axes)
    if len(axes) != 2 or (s is not None and len(s) != 2):
        raise ValueError(f"paddle.fft.{op}: expects two axes (and two lengths in s), got axes={list(axes)}, s={s}")
    return s, axes


# ---------------------------------------------------------------------------------------------- 1-D

def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The 1-D discrete Fourier transform along `axis`, zero-padded or cropped to `n` points.

    A real input gets a zero imaginary part (float32 gives complex64, float64 complex128).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.fft(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    """
    return write_out(_c2c("fft", x, *_one_axis(n, axis), norm, inverse=False), out)


def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of `fft` along `axis` (divided by `n` under the default norm).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.ifft(paddle.to_tensor([10.0, -2.0, -2.0, -2.0])).numpy()
        array([1.+0.j, 3.+0.j, 3.+0.j, 3.+0.j], dtype=complex64)
    """
    return write_out(_c2c("ifft", x, *_one_axis(n, axis), norm, inverse=True), out)


def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The FFT of a real signal along `axis`: its `n // 2 + 1` non-negative frequencies.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.rfft(paddle.to_tensor([0.0, 1.0, 0.0, 0.0])).numpy()
        array([ 1.+0.j,  0.-1.j, -1.+0.j], dtype=complex64)
    """
    return write_out(_r2c("rfft", x, *_one_axis(n, axis), norm, hermitian=False), out)


def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of `rfft`: a real signal of `n` points (default ``2 * (bins - 1)``) from its non-negative
    frequencies along `axis`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.irfft(paddle.to_tensor([1, -1j, -1])).numpy()
        array([0., 1., 0., 0.], dtype=float32)
    """
    return write_out(_c2r("irfft", x, *_one_axis(n, axis), norm, hermitian=False), out)


def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The FFT of a signal with Hermitian symmetry given by its first half along `axis`: a real spectrum of `n`
    points (default ``2 * (len - 1)``); ``hfft(x, n) == irfft(conj(x), n) * n``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.hfft(paddle.to_tensor([1, -1j, -1])).numpy()
        array([0., 0., 0., 4.], dtype=float32)
    """
    return write_out(_c2r("hfft", x, *_one_axis(n, axis), norm, hermitian=True), out)


def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of `hfft`: the first half of the Hermitian signal whose FFT is the real `x`;
    ``ihfft(x) == conj(rfft(x)) / n``.

    Example:
        >>> import paddle_fn as paddle
        >>> half = paddle.fft.ihfft(paddle.to_tensor([10.0, -5.0, 0.0, -1.0, 0.0, -5.0]))
        >>> half.shape, half.numpy().real.round(4)
        (paddle.Size([4]), array([-0.1667,  1.    ,  2.3333,  3.5   ], dtype=float32))
    """
    return write_out(_r2c("ihfft", x, *_one_axis(n, axis), norm, hermitian=True), out)


# ---------------------------------------------------------------------------------------------- 2-D

def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The 2-D FFT over `axes`, each zero-padded or cropped to the lengths in `s`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.fft2(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return write_out(_c2c("fft2", x, *_two_axes("fft2", s, axes), norm, inverse=False), out)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The inverse of `fft2`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.ifft2(paddle.to_tensor([[10.0, -2.0], [-4.0, 0.0]])).numpy()
        array([[1.+0.j, 2.+0.j],
               [3.+0.j, 4.+0.j]], dtype=complex64)
    """
    return write_out(_c2c("ifft2", x, *_two_axes("ifft2", s, axes), norm, inverse=True), out)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The 2-D FFT of a real input, keeping the non-negative frequencies of the last of `axes`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.rfft2(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([[10.+0.j, -2.+0.j],
               [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return write_out(_r2c("rfft2", x, *_two_axes("rfft2", s, axes), norm, hermitian=False), out)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The inverse of `rfft2`: a real output whose last transformed axis has ``s[-1]`` points (default
    ``2 * (bins - 1)``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.irfft2(paddle.to_tensor([[10.0, -2.0], [-4.0, 0.0]]), s=[2, 2]).numpy()
        array([[1., 2.],
               [3., 4.]], dtype=float32)
    """
    return write_out(_c2r("irfft2", x, *_two_axes("irfft2", s, axes), norm, hermitian=False), out)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The 2-D FFT of a signal with Hermitian symmetry given by its first half along the last of `axes`: a real
    output.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[3.+3.j, 2.+2.j, 3.+3.j], [2.+2.j, 2.+2.j, 3.+3.j]])
        >>> paddle.fft.hfft2(x).numpy()
        array([[19.,  7.,  3., -9.],
               [ 1.,  1.,  1.,  1.]], dtype=float32)
    """
    return write_out(_c2r("hfft2", x, *_two_axes("hfft2", s, axes), norm, hermitian=True), out)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
    """The inverse of `hfft2`: the first half of a Hermitian signal from a real input.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.ihfft2(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([[ 2.5-0.j, -0.5-0.j],
               [-1. -0.j,  0. -0.j]], dtype=complex64)
    """
    return write_out(_r2c("ihfft2", x, *_two_axes("ihfft2", s, axes), norm, hermitian=True), out)


# ---------------------------------------------------------------------------------------------- n-D

def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The n-D FFT over `axes` (default: the last ``len(s)`` axes, or all), each zero-padded or cropped to `s`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.fftn(paddle.ones([2, 2, 2])).numpy()[0]
        array([[8.+0.j, 0.+0.j],
               [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return write_out(_c2c("fftn", x, s, axes, norm, inverse=False), out)


def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of `fftn`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.ifftn(paddle.eye(3), axes=(1,)).numpy().round(4)[1]
        array([ 0.3333+0.j    , -0.1667+0.2887j, -0.1667-0.2887j], dtype=complex64)
    """
    return write_out(_c2c("ifftn", x, s, axes, norm, inverse=True), out)


def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The n-D FFT of a real input, keeping the non-negative frequencies of the last of `axes`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.rfftn(paddle.ones([2, 3, 4])).shape
        paddle.Size([2, 3, 3])
    """
    return write_out(_r2c("rfftn", x, s, axes, norm, hermitian=False), out)


def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of `rfftn`: a real output whose last transformed axis has ``s[-1]`` points (default
    ``2 * (bins - 1)``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.irfftn(paddle.to_tensor([2.+2.j, 2.+2.j, 3.+3.j], dtype='complex128')).numpy()
        array([ 2.25, -1.25,  0.25,  0.75])
    """
    return write_out(_c2r("irfftn", x, s, axes, norm, hermitian=False), out)


def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The n-D FFT of a signal with Hermitian symmetry given by its first half along the last of `axes`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.hfftn(paddle.to_tensor([(2+2j), (2+2j), (3+3j)])).numpy()
        array([ 9.,  3.,  1., -5.], dtype=float32)
    """
    return write_out(_c2r("hfftn", x, s, axes, norm, hermitian=True), out)


def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of `hfftn`: the first half of a Hermitian signal from a real input.

    Example:
        >>> import paddle_fn as paddle
        >>> half = paddle.fft.ihfftn(paddle.to_tensor([10.0, -5.0, 0.0, -1.0, 0.0, -5.0]))
        >>> half.shape, half.numpy().real.round(4)
        (paddle.Size([4]), array([-0.1667,  1.    ,  2.3333,  3.5   ], dtype=float32))
    """
    return write_out(_r2c("ihfftn", x, s, axes, norm, hermitian=True), out)


# ---------------------------------------------------------------------------------------------- helpers

def _frequencies(op, n, d, dtype, values, out, requires_grad):
    n = static_int(op, n, "n")
    _check_length(op, n)
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.as_dtype(dtype)
    freqs = write_out(Tensor(np.asarray(values(n) / (n * float(d)), dtype=dtype.np)), out)
    freqs.stop_gradient = not requires_grad
    return freqs


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of an `n`-point FFT with sample spacing `d`: ``[0, 1, ..., -1] / (n * d)``. `out`,
    `device` and `requires_grad` as in Paddle 3.3 (`device` is accepted for its signature: results are made where
    every eager Tensor is).

    Example:
        >>> import paddle_fn as paddle
        >>> print(paddle.fft.fftfreq(5, d=0.5))
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.        ,  0.40000001,  0.80000001, -0.80000001, -0.40000001])
    """
    return _frequencies("fftfreq", n, d, dtype,
                        lambda n: np.concatenate([np.arange((n - 1) // 2 + 1), -np.arange(n // 2, 0, -1)]),
                        out, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of `rfft`'s bins for `n` points with sample spacing `d`: ``[0, ..., n // 2] / (n * d)``
    (`out`, `device`, `requires_grad` as `fftfreq`).

    Example:
        >>> import paddle_fn as paddle
        >>> print(paddle.fft.rfftfreq(5, d=0.3))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.66666669, 1.33333337])
    """
    return _frequencies("rfftfreq", n, d, dtype, lambda n: np.arange(n // 2 + 1), out, requires_grad)


def _shift(op, x, axes, sign):
    x = as_tensor(x)
    rank = len(shape_of(x))
    axes = tuple(range(rank)) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    axes = tuple(normalize_axis(op, a, rank) for a in axes)
    if not axes:
        return x
    return roll(x, [sign * (shape_of(x)[a] // 2) for a in axes], list(axes))


def fftshift(x, axes=None, name=None):
    """`x` rolled so that the zero frequency sits in the middle of each of `axes` (default: all).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.fftshift(paddle.fft.fftfreq(5, d=0.3)).numpy()
        array([-1.3333334, -0.6666667,  0.       ,  0.6666667,  1.3333334], dtype=float32)
    """
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of `fftshift`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.fft.ifftshift(paddle.fft.fftshift(paddle.arange(5))).numpy()
        array([0, 1, 2, 3, 4])
    """
    return _shift("ifftshift", x, axes, -1)
