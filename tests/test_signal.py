"""paddle.signal.stft / istft: Paddle 3.3.1's numbers, round trips, Paddle's docstring examples (shapes), gradients,
vmap and jit, errors."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_fn as paddle

SIGNAL = np.sin(np.arange(40) * 0.3) + 0.1 * (np.arange(40) % 7)

# Column 2 of each STFT of SIGNAL, from Paddle 3.3.1 (paddle.signal.stft run from /tmp).
PADDLE_COLUMN_2 = [
    (dict(n_fft=8), (5, 21),
     [7.51008066, -2.26689953 + 1.43277239j, -1.00645102 + 0.05352108j, -0.39717864 - 0.18563793j, -0.16902228]),
    (dict(n_fft=8, hop_length=3, win_length=6, window=np.hanning(6)), (5, 14),
     [3.53649518, -2.59221404 - 1.20710064j, 0.96335037 + 1.05626544j, -0.25490307 - 0.28668427j, 0.2310383]),
    (dict(n_fft=9, hop_length=4, center=False), (5, 8),
     [-0.48933973, 0.91350559 - 3.22793573j, 1.44770523 - 0.79495526j, 0.46388243 - 0.21662766j,
      0.90916093 - 0.46083496j]),
    (dict(n_fft=8, pad_mode="constant", normalized=True), (5, 21),
     [2.65521448, -0.80147002 + 0.50656154j, -0.35583417 + 0.01892256j, -0.14042385 - 0.06563292j, -0.0597584]),
    (dict(n_fft=8, onesided=False, hop_length=5), (8, 9),
     [4.49298777, 1.06612454 - 1.66274977j, 1.1820249 - 0.56584995j, 1.1993307 - 0.22678252j, 1.20283298,
      1.1993307 + 0.22678252j, 1.1820249 + 0.56584995j, 1.06612454 + 1.66274977j]),
]


def _kwargs(kwargs):
    return {k: paddle.to_tensor(v) if k == "window" else v for k, v in kwargs.items()}


@pytest.mark.parametrize("kwargs,shape,column", PADDLE_COLUMN_2, ids=[str(i) for i in range(len(PADDLE_COLUMN_2))])
def test_stft_matches_paddle(kwargs, shape, column):
    got = paddle.signal.stft(paddle.to_tensor(SIGNAL), **_kwargs(kwargs))
    assert got.shape == list(shape) and got.dtype == "complex128"
    np.testing.assert_allclose(got.numpy()[:, 2], column, atol=1e-8)


def test_complex_stft_matches_paddle():
    z = SIGNAL + 1j * np.cos(np.arange(40))
    got = paddle.signal.stft(paddle.to_tensor(z), n_fft=8, onesided=False).numpy()
    assert got.shape == (8, 21)
    np.testing.assert_allclose(got[:, 1], [6.23318634 - 0.11166299j, 3.21005848 + 3.49821557j,
                                           -1.07640882 - 0.76448198j, -0.68295088 - 0.96708233j,
                                           -0.51053828 - 0.86021159j, 0.09722876 - 0.8341374j,
                                           1.47090054 - 1.59281813j, -2.62433637 - 1.69699585j], atol=1e-8)
    back = paddle.signal.istft(paddle.signal.stft(paddle.to_tensor(z), n_fft=8, onesided=False, hop_length=2),
                               n_fft=8, hop_length=2, onesided=False, return_complex=True)
    assert back.dtype == "complex128"
    np.testing.assert_allclose(back.numpy(), z, atol=1e-12)


@pytest.mark.parametrize("kwargs", [
    dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=12, window=np.hanning(12) + 0.1),
    dict(n_fft=15, hop_length=4, center=False), dict(n_fft=16, normalized=True, hop_length=3),
    dict(n_fft=16, onesided=False),
])
def test_istft_inverts_stft(kwargs):
    x = np.random.default_rng(0).standard_normal((2, 90))
    spectrum = paddle.signal.stft(paddle.to_tensor(x), **_kwargs(kwargs))
    kwargs = {k: v for k, v in kwargs.items() if k != "pad_mode"}
    back = paddle.signal.istft(spectrum, **_kwargs(kwargs)).numpy()
    np.testing.assert_allclose(back, x[:, :back.shape[-1]], atol=1e-12)
    assert back.shape[-1] >= 90 - kwargs["n_fft"]


def test_istft_length_and_nola():
    x = paddle.to_tensor(SIGNAL)
    back = paddle.signal.istft(paddle.signal.stft(x, n_fft=8, hop_length=2), n_fft=8, hop_length=2, length=30)
    assert back.shape == [30]
    np.testing.assert_allclose(back.numpy(), SIGNAL[:30], atol=1e-12)
    window = paddle.to_tensor(np.hanning(8))
    spectrum = paddle.signal.stft(x, n_fft=8, hop_length=8, window=window)
    with pytest.raises(ValueError, match="NOLA"):
        paddle.signal.istft(spectrum, n_fft=8, hop_length=8, window=window)


def test_paddle_docstring_examples():
    """Paddle 3.3.1's stft/istft examples print these shapes (and istft(stft(x)) == x)."""
    x = paddle.randn([8, 48000], dtype=paddle.float64)
    assert paddle.signal.stft(x, n_fft=512).shape == [8, 257, 376]
    assert paddle.signal.stft(x, n_fft=512, onesided=False).shape == [8, 512, 376]
    z = paddle.randn([8, 48000], dtype=paddle.float64) + paddle.randn([8, 48000], dtype=paddle.float64) * 1j
    assert z.dtype == paddle.complex128
    assert paddle.signal.stft(z, n_fft=512, center=False, onesided=False).shape == [8, 512, 372]
    y = paddle.signal.stft(x, n_fft=512)
    x_ = paddle.signal.istft(y, n_fft=512)
    assert x_.shape == [8, 48000]
    assert np.allclose(x.numpy(), x_.numpy())


def test_gradient_vmap_and_jit():
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((3, 64)))
    window = paddle.to_tensor(np.hanning(16))

    def power(v):
        s = paddle.signal.stft(v, n_fft=16, hop_length=4, window=window)
        return paddle.sum(paddle.real(s) ** 2 + paddle.imag(s) ** 2)
    grad = paddle.grad(power)(x).numpy()
    eps, t = 1e-6, np.random.default_rng(2).standard_normal((3, 64))
    fd = (power(x + eps * paddle.to_tensor(t)).numpy() - power(x - eps * paddle.to_tensor(t)).numpy()) / (2 * eps)
    np.testing.assert_allclose(np.sum(grad * t), fd, rtol=1e-6)
    np.testing.assert_allclose(paddle.jit(paddle.grad(power))(x).numpy(), grad, rtol=1e-10)
    one = paddle.vmap(lambda v: paddle.signal.stft(v, n_fft=16, hop_length=4))(x)
    np.testing.assert_allclose(one.numpy(), paddle.signal.stft(x, n_fft=16, hop_length=4).numpy(), atol=1e-12)
    roundtrip = paddle.jit(lambda v: paddle.signal.istft(paddle.signal.stft(v, n_fft=16), n_fft=16))(x)
    np.testing.assert_allclose(roundtrip.numpy(), x.numpy(), atol=1e-10)


def test_errors():
    x = paddle.to_tensor(SIGNAL)
    with pytest.raises(ValueError, match=r"n_fft should be in \(0, seq_length\(40\)\]"):
        paddle.signal.stft(x, n_fft=64)
    with pytest.raises(ValueError, match="pad_mode"):
        paddle.signal.stft(x, n_fft=8, pad_mode="circular")
    with pytest.raises(ValueError, match="onesided should be False"):
        paddle.signal.stft(paddle.to_tensor(SIGNAL + 1j), n_fft=8, onesided=True)
    with pytest.raises(ValueError, match=r"win_length should be in \(0, n_fft\(8\)\]"):
        paddle.signal.stft(x, n_fft=8, win_length=9)
    with pytest.raises(TypeError, match="complex64 or complex128"):
        paddle.signal.istft(paddle.ones([5, 3]), n_fft=8)
    with pytest.raises(Exception, match="fft_size should be equal to 5"):
        paddle.signal.istft(paddle.signal.stft(x, n_fft=8, onesided=False), n_fft=8)


def test_get_window_matches_paddle():
    """Paddle 3.3.1's windows are scipy.signal's; these values are Paddle's own (get_window run from /tmp)."""
    np.testing.assert_allclose(paddle.audio.functional.get_window("hamming", 8).numpy(),
                               [0.08, 0.21473088, 0.54, 0.86526912, 1.0, 0.86526912, 0.54, 0.21473088], atol=1e-8)
    kaiser = paddle.audio.functional.get_window(("kaiser", 5.0), 9, fftbins=False)
    assert kaiser.dtype == "float64"
    np.testing.assert_allclose(kaiser.numpy(), [0.03671089, 0.23054433, 0.55285177, 0.86801716, 1.0, 0.86801716,
                                                0.55285177, 0.23054433, 0.03671089], atol=1e-8)
    assert paddle.audio.functional.get_window("hann", 8, dtype="float32").dtype == "float32"
    for window in ("triang", "bohman", "blackman", "cosine", "tukey", "taylor", "bartlett", "nuttall",
                   ("gaussian", 7), ("general_gaussian", 1.5, 3.0), ("exponential", None, 2.0), ("tukey", 0.3)):
        assert paddle.audio.functional.get_window(window, 16).shape == [16]
    with pytest.raises(ValueError, match="needs one or more parameters"):
        paddle.audio.functional.get_window("gaussian", 8)
    with pytest.raises(ValueError, match="Unknown window type"):
        paddle.audio.functional.get_window("foo", 8)
