"""`paddle.audio.functional`: `get_window`, the windows that `paddle.signal.stft` multiplies its frames by; the mel
scale (`hz_to_mel`, `mel_to_hz`, `mel_frequencies`), `fft_frequencies`, the mel filterbank `compute_fbank_matrix`,
`power_to_db` and the DCT matrix of MFCCs `create_dct`, with Paddle's formulas (Slaney's mel scale by default, HTK's
with ``htk=True``).

Paddle's windows are scipy.signal's (the same definitions and parameters, checked against Paddle 3.3.1 for every
window, both symmetries and lengths 1 to 16), so they are computed by scipy.signal.windows and returned as
Tensors: a window is a constant, with no derivative to carry.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.trace import Tensor
from paddle_fn.nn.functional.norm import normalize
from paddle_fn.tensor.creation import arange, full, full_like, linspace, ones, zeros_like
from paddle_fn.tensor.manipulation import concat, where
from paddle_fn.tensor.math import cos, exp, log, log10, maximum, minimum

__all__ = ["get_window", "hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies", "compute_fbank_matrix",
           "power_to_db", "create_dct"]

WINDOWS = ("hamming", "hann", "gaussian", "general_gaussian", "exponential", "triang", "bohman", "blackman",
           "cosine", "tukey", "taylor", "bartlett", "kaiser", "nuttall")
_NEED_PARAMETERS = ("gaussian", "general_gaussian", "kaiser")


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window `window` of `win_length` samples: a name, or a tuple of a name and its parameters (('gaussian',
    std), ('general_gaussian', p, sig), ('exponential', center, tau), ('tukey', alpha), ('taylor', nbar, sll, norm),
    ('kaiser', beta)). `fftbins` (the default) gives the periodic window for spectral analysis, False the
    symmetric one for filter design.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.get_window('hamming', 8).numpy().round(4)
        array([0.08  , 0.2147, 0.54  , 0.8653, 1.    , 0.8653, 0.54  , 0.2147])
        >>> paddle.audio.functional.get_window(('kaiser', 5.0), 5, fftbins=False, dtype='float32').numpy()
        array([0.03671089, 0.5528518 , 1.        , 0.5528518 , 0.03671089],
              dtype=float32)
    """
    if isinstance(window, tuple):
        name, parameters = window[0], tuple(window[1:])
    elif isinstance(window, str):
        name, parameters = window, ()
        if name in _NEED_PARAMETERS:
            raise ValueError(f"paddle.audio.functional.get_window: The '{name}' window needs one or more parameters "
                             f"-- pass a tuple, e.g. ('{name}', ...)")
    else:
        raise ValueError(f"paddle.audio.functional.get_window: {type(window)} as window type is not supported "
                         "(pass a name or a tuple of a name and its parameters)")
    if name not in WINDOWS:
        raise ValueError(f"paddle.audio.functional.get_window: Unknown window type {name!r}; the windows are "
                         f"{', '.join(WINDOWS)}")
    import scipy.signal.windows  # deliberate lazy import: scipy.signal takes 0.3 s to import, paid on first use

    values = getattr(scipy.signal.windows, name)(int(win_length), *parameters, sym=not fftbins)
    return Tensor(np.asarray(values, dtype=dtypes.as_dtype(dtype).np))


# Slaney's mel scale: linear below 1 kHz (3 mels per 200 Hz), logarithmic above (27 mels per factor 6.4)
_HZ_PER_MEL, _LOG_HZ = 200.0 / 3, 1000.0
_LOG_MEL, _LOG_STEP = _LOG_HZ / _HZ_PER_MEL, math.log(6.4) / 27.0


def hz_to_mel(freq, htk=False):
    """Frequencies in Hz to mels: Slaney's scale, or HTK's ``2595 log10(1 + f / 700)`` with `htk`. A float gives
    a float, a Tensor a Tensor.

    Example:
        >>> import paddle_fn as paddle
        >>> round(paddle.audio.functional.hz_to_mel(1500.0), 4)
        20.8975
        >>> paddle.audio.functional.hz_to_mel(paddle.to_tensor([500.0, 4000.0]), htk=True).numpy().round(2)
        array([ 607.45, 2146.06], dtype=float32)
    """
    tensor = isinstance(freq, Tensor)
    if htk:
        return 2595.0 * (log10(1.0 + freq / 700.0) if tensor else math.log10(1.0 + freq / 700.0))
    mels = freq / _HZ_PER_MEL
    if tensor:
        logarithmic = _LOG_MEL + log(freq / _LOG_HZ + 1e-10) / _LOG_STEP
        return where(freq > _LOG_HZ, logarithmic, mels)
    return _LOG_MEL + math.log(freq / _LOG_HZ + 1e-10) / _LOG_STEP if freq >= _LOG_HZ else mels


def mel_to_hz(mel, htk=False):
    """Mels to frequencies in Hz, the inverse of `hz_to_mel`.

    Example:
        >>> import paddle_fn as paddle
        >>> round(paddle.audio.functional.mel_to_hz(paddle.audio.functional.hz_to_mel(1500.0)), 6)
        1500.0
    """
    tensor = isinstance(mel, Tensor)
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    freqs = mel * _HZ_PER_MEL
    if tensor:
        return where(mel > _LOG_MEL, _LOG_HZ * exp(_LOG_STEP * (mel - _LOG_MEL)), freqs)
    return _LOG_HZ * math.exp(_LOG_STEP * (mel - _LOG_MEL)) if mel >= _LOG_MEL else freqs


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """`n_mels` frequencies in Hz evenly spaced on the mel scale from `f_min` to `f_max`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.mel_frequencies(4, f_max=8000.0).numpy().round(1)
        array([   0. , 1005.6, 2836.4, 8000. ], dtype=float32)
    """
    mels = linspace(hz_to_mel(f_min, htk=htk), hz_to_mel(f_max, htk=htk), n_mels, dtype=dtype)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The frequencies in Hz of the ``n_fft // 2 + 1`` bins of a real FFT of `n_fft` samples at rate `sr`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.fft_frequencies(16000, 8).numpy()
        array([   0., 2000., 4000., 6000., 8000.], dtype=float32)
    """
    return linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney", dtype="float32"):
    """The mel filterbank [n_mels, n_fft // 2 + 1]: triangles between consecutive mel frequencies over the FFT
    bins, scaled to equal area (``norm='slaney'``) or each row normalized by the `norm`-norm (a number).

    Example:
        >>> import paddle_fn as paddle
        >>> fbank = paddle.audio.functional.compute_fbank_matrix(16000, 512, n_mels=40)
        >>> fbank.shape, round(float(fbank.sum()), 4)
        (paddle.Size([40, 257]), 1.2793)
    """
    f_max = float(sr) / 2 if f_max is None else f_max
    bins = fft_frequencies(sr=sr, n_fft=n_fft, dtype=dtype)
    edges = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dtype)
    widths = edges[1:] - edges[:-1]
    ramps = edges.unsqueeze(1) - bins.unsqueeze(0)
    rising, falling = -ramps[:n_mels] / widths[:n_mels].unsqueeze(1), ramps[2:] / widths[1:].unsqueeze(1)
    weights = maximum(zeros_like(rising), minimum(rising, falling))
    if norm == "slaney":
        return weights * (2.0 / (edges[2:n_mels + 2] - edges[:n_mels])).unsqueeze(1)
    if isinstance(norm, (int, float)) and not isinstance(norm, bool):
        return normalize(weights, p=norm, axis=-1)
    raise ValueError(f"compute_fbank_matrix: norm must be 'slaney' or a number, got {norm!r}")


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """A power spectrogram in decibels: ``10 log10(max(spect, amin) / ref_value)``, floored at `top_db` below its
    peak (None: not floored).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.power_to_db(paddle.to_tensor([1.0, 0.1, 1e-12])).numpy()
        array([  0., -10., -80.], dtype=float32)
    """
    if amin <= 0:
        raise ValueError(f"power_to_db: amin must be positive, got {amin}")
    if ref_value <= 0:
        raise ValueError(f"power_to_db: ref_value must be positive, got {ref_value}")
    if top_db is not None and top_db < 0:
        raise ValueError(f"power_to_db: top_db must be non-negative, got {top_db}")
    db = 10.0 * log10(maximum(full_like(spect, amin), spect)) - 10.0 * math.log10(
        max(ref_value, amin))
    return db if top_db is None else maximum(db, full_like(db, 0.0) + (db.max() - top_db))


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II matrix [n_mels, n_mfcc] that turns `n_mels` log-mel energies into `n_mfcc` cepstral coefficients:
    orthonormal with ``norm='ortho'``, unnormalized (twice the cosines) with None.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.audio.functional.create_dct(2, 4).numpy().round(4)
        array([[ 0.5   ,  0.6533],
               [ 0.5   ,  0.2706],
               [ 0.5   , -0.2706],
               [ 0.5   , -0.6533]], dtype=float32)
    """
    if norm not in ("ortho", None):
        raise ValueError(f"create_dct: norm must be 'ortho' or None, got {norm!r}")
    n = arange(n_mels, dtype=dtype)
    k = arange(n_mfcc, dtype=dtype).unsqueeze(1)
    dct = cos(math.pi / float(n_mels) * (n + 0.5) * k)
    if norm is None:
        return (dct * 2.0).T
    first = concat([full([1, 1], 1.0 / math.sqrt(2.0), dtype=dtype),
                           ones([n_mfcc - 1, 1], dtype=dtype)])
    return (dct * first * math.sqrt(2.0 / float(n_mels))).T
