"""`paddle.signal`: the short-time Fourier transform `stft` and its inverse `istft`, Paddle 3.3's signatures.

Framing and overlap-add are written with slices, reshapes, pads and concatenations (no gathers or scatters), so
both functions differentiate, vmap and jit like any composite: a signal cut into frames `hop_length` apart is the
signal split into segments of `hop_length` samples, frame f being segments f, f + 1, ... side by side; adding
frames back is the transpose of that. See docs/fft.md.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import get_aval
from paddle_fn.fft import fft, ifft, irfft, rfft
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import eager_value, shape_of, static_int
from paddle_fn.tensor.creation import ones
from paddle_fn.tensor.manipulation import concat, reshape, squeeze, transpose, unsqueeze
from paddle_fn.tensor.promotion import as_tensor

__all__ = ["stft", "istft"]


def _pad_last(x, low, high):
    """x zero-padded (negative: cropped) on its last axis."""
    config = ((0, 0, 0),) * (len(shape_of(x)) - 1) + ((int(low), int(high), 0),)
    return st.pad(x, 0, padding_config=config)


def _frames(x, n_fft, hop, count):
    """(batch, count, n_fft): the frames of x (batch, samples) starting every `hop` samples."""
    per = -(-n_fft // hop)                                 # segments a frame spans
    batch, samples = shape_of(x)
    x = _pad_last(x, 0, (count + per - 1) * hop - samples)
    segments = reshape(x, [batch, count + per - 1, hop])
    frames = concat([segments[:, j:j + count, :] for j in range(per)], axis=-1)
    return frames[:, :, :n_fft]


def _overlap_add(frames, hop):
    """(batch, (count - 1) * hop + n_fft): the frames (batch, count, n_fft) added back at their places."""
    batch, count, n_fft = shape_of(frames)
    per = -(-n_fft // hop)
    segments = reshape(_pad_last(frames, 0, per * hop - n_fft), [batch, count, per, hop])
    total = None
    for j in range(per):
        part = st.pad(segments[:, :, j, :], 0, padding_config=((0, 0, 0), (j, per - 1 - j, 0), (0, 0, 0)))
        total = part if total is None else total + part
    return reshape(total, [batch, (count + per - 1) * hop])[:, :(count - 1) * hop + n_fft]


def _window(op, window, win_length, n_fft, dtype):
    """The window (default: ones), checked and zero-padded to n_fft in the middle."""
    if window is None:
        window = ones([win_length], dtype=dtype)
    window = as_tensor(window)
    if shape_of(window) != (win_length,):
        raise ShapeError(f"paddle.signal.{op}: expected a 1D window tensor of size equal to win_length({win_length}), "
                         f"but got window with shape {list(shape_of(window))}")
    left = (n_fft - win_length) // 2
    return _pad_last(window, left, n_fft - win_length - left)


def _lengths(op, n_fft, hop_length, win_length):
    n_fft = static_int(op, n_fft, "n_fft")
    hop_length = n_fft // 4 if hop_length is None else static_int(op, hop_length, "hop_length")
    win_length = n_fft if win_length is None else static_int(op, win_length, "win_length")
    if hop_length <= 0:
        raise ValueError(f"paddle.signal.{op}: hop_length should be > 0, but got {hop_length}.")
    if not 0 < win_length <= n_fft:
        raise ValueError(f"paddle.signal.{op}: win_length should be in (0, n_fft({n_fft})], but got {win_length}.")
    return n_fft, hop_length, win_length


def _with_batch(op, x, rank):
    """x with a leading batch axis (added when it has `rank` axes, checked to have `rank` or `rank + 1`), and whether
    it was added."""
    got = len(shape_of(x))
    if got not in (rank, rank + 1):
        raise ShapeError(f"paddle.signal.{op}: x should be a {rank}D or {rank + 1}D tensor, but got rank of x is {got}")
    return (unsqueeze(x, 0), True) if got == rank else (x, False)


def _reflect(x, pad):
    """x (batch, samples) padded by `pad` mirrored samples at each end (the end samples not repeated)."""
    samples = shape_of(x)[-1]
    if pad >= samples:
        raise ValueError(f"paddle.signal.stft: reflect padding of {pad} needs more than {pad} samples, got {samples} "
                         "(use pad_mode='constant' or a smaller n_fft)")
    if pad == 0:
        return x
    left = x[:, 1:pad + 1][:, ::-1]
    right = x[:, samples - pad - 1:samples - 1][:, ::-1]
    return concat([left, x, right], axis=-1)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, name=None):
    """The short-time Fourier transform of signals `x` ([samples] or [batch, samples]): the FFTs of windowed frames of
    `n_fft` samples every `hop_length` (default ``n_fft // 4``), shaped [batch, frequencies, frames].

    `window` (default ones) has `win_length` samples (default `n_fft`) and is zero-padded to `n_fft` in the middle;
    `center` pads the signal by ``n_fft // 2`` at each end (`pad_mode` 'reflect' or 'constant') so that frame t is
    centred on sample ``t * hop_length``; `normalized` scales by ``1 / sqrt(n_fft)``; `onesided` (default: for a
    real signal) keeps the ``n_fft // 2 + 1`` non-negative frequencies.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sin(paddle.arange(64, dtype='float64') * 0.5)
        >>> spectrum = paddle.signal.stft(x, n_fft=16, hop_length=4)
        >>> spectrum.shape, spectrum.dtype
        (paddle.Size([9, 17]), paddle.complex128)
        >>> int(paddle.argmax(paddle.abs(spectrum[:, 8])))    # 0.5 rad/sample is bin 16 * 0.5 / (2 pi) = 1.3
        1
    """
    x, unbatched = _with_batch("stft", as_tensor(x), 1)
    n_fft, hop_length, win_length = _lengths("stft", n_fft, hop_length, win_length)
    if not 0 < n_fft <= shape_of(x)[-1]:
        raise ValueError(f"paddle.signal.stft: n_fft should be in (0, seq_length({shape_of(x)[-1]})], but got {n_fft}.")
    window = _window("stft", window, win_length, n_fft, get_aval(x).dtype if get_aval(x).dtype.kind == "f"
                     else None)
    if center:
        if pad_mode not in ("constant", "reflect"):
            raise ValueError(f"paddle.signal.stft: pad_mode should be \"reflect\" or \"constant\", but got "
                             f"\"{pad_mode}\".")
        pad = n_fft // 2
        x = _reflect(x, pad) if pad_mode == "reflect" else _pad_last(x, pad, pad)
    count = 1 + (shape_of(x)[-1] - n_fft) // hop_length
    frames = _frames(x, n_fft, hop_length, count) * window
    complex_input = get_aval(frames).dtype.kind == "c"
    if onesided is None:
        onesided = not complex_input
    if complex_input and onesided:
        raise ValueError("paddle.signal.stft: onesided should be False when input or window is a complex Tensor.")
    norm = "ortho" if normalized else "backward"
    out = rfft(frames, norm=norm) if onesided else fft(frames, norm=norm)
    out = transpose(out, [0, 2, 1])
    return squeeze(out, 0) if unbatched else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
          length=None, return_complex=False, name=None):
    """The inverse of `stft`: signals from their STFT `x` ([frequencies, frames] or [batch, frequencies, frames]) by
    inverse FFTs of the frames, windowed, overlap-added and divided by the overlap-added squared window.

    Give the `n_fft`, `hop_length`, `win_length`, `window`, `center`, `normalized` and `onesided` the STFT was
    made with; `length` trims or zero-pads the result; `return_complex` (with ``onesided=False``) keeps a complex
    signal. The overlap-added squared window must not vanish anywhere (the NOLA condition).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.sin(paddle.arange(64, dtype='float64') * 0.5)
        >>> y = paddle.signal.istft(paddle.signal.stft(x, n_fft=16, hop_length=4), n_fft=16, hop_length=4)
        >>> bool(paddle.allclose(x, y))
        True
    """
    x = as_tensor(x)
    if get_aval(x).dtype.kind != "c":
        raise TypeError(f"paddle.signal.istft: x should be a complex64 or complex128 tensor, got "
                        f"{get_aval(x).dtype.name}")
    x, unbatched = _with_batch("istft", x, 2)
    n_fft, hop_length, win_length = _lengths("istft", n_fft, hop_length, win_length)
    if hop_length > win_length:
        raise ValueError(f"paddle.signal.istft: hop_length should be in (0, win_length({win_length})], but got "
                         f"{hop_length}.")
    bins, count = shape_of(x)[-2:]
    want = n_fft // 2 + 1 if onesided else n_fft
    if bins != want:
        raise ShapeError(f"paddle.signal.istft: fft_size should be equal to {want} when onesided is {onesided}, but "
                         f"got {bins}.")
    if return_complex and onesided:
        raise ValueError("paddle.signal.istft: onesided should be False when return_complex is True.")
    part = "float32" if get_aval(x).dtype.name == "complex64" else "float64"
    window = _window("istft", window, win_length, n_fft, part)
    norm = "ortho" if normalized else "backward"
    frames = transpose(x, [0, 2, 1])
    if return_complex:
        frames = ifft(frames, norm=norm)
    else:
        frames = irfft(frames[:, :, :n_fft // 2 + 1], n=n_fft, norm=norm)
    out = _overlap_add(frames * window, hop_length)
    envelope = _overlap_add(reshape(window * window, [1, 1, n_fft]) * ones([1, count, 1], dtype=part), hop_length)
    start = n_fft // 2 if center else 0
    stop = shape_of(out)[-1] - start if length is None else start + static_int("istft", length, "length")
    out, envelope = out[:, start:stop], envelope[:, start:stop]
    known = eager_value(envelope)  # the envelope depends on the window only, known unless the window is traced
    if known is not None and known.size and np.abs(known).min() < 1e-11:
        raise ValueError("paddle.signal.istft: Abort istft because Nonzero Overlap Add (NOLA) condition failed: the "
                         "overlap-added squared window vanishes somewhere (see scipy.signal.check_NOLA); use a "
                         "smaller hop_length or another window")
    out = out / envelope
    return squeeze(out, 0) if unbatched else out
