"""paddle.audio.functional's mel scale, filterbanks, decibels and DCT: the numbers below are paddlepaddle 3.3.1's
for the same calls."""
import numpy as np
import pytest

import paddle_fn as paddle

A = paddle.audio.functional


def test_the_mel_scale_as_paddle():
    hz = np.array([0.0, 500.0, 1000.0, 1500.0, 4000.0], "float32")
    np.testing.assert_allclose(A.hz_to_mel(paddle.to_tensor(hz)).numpy(), [0.0, 7.5, 15.0, 20.8974991, 35.1637993],
                               rtol=1e-5)
    np.testing.assert_allclose(A.hz_to_mel(paddle.to_tensor(hz), htk=True).numpy(),
                               [0.0, 607.445984, 999.985474, 1290.55750, 2146.06445], rtol=1e-5)
    assert A.hz_to_mel(1500.0) == pytest.approx(20.8975, abs=1e-4) and isinstance(A.hz_to_mel(1500.0), float)
    np.testing.assert_allclose(A.mel_to_hz(paddle.to_tensor(hz / 100)).numpy(),
                               [0.0, 333.333313, 666.666626, 999.999878, 5577.79932], rtol=1e-5)
    assert A.mel_to_hz(20.5) == pytest.approx(1459.5596, abs=1e-3)
    np.testing.assert_allclose(A.mel_frequencies(4, f_max=8000.0, htk=True).numpy(),
                               [0.0, 921.455811, 3055.88403, 7999.99902], rtol=1e-5)
    np.testing.assert_array_equal(A.fft_frequencies(16000, 8).numpy(), [0, 2000, 4000, 6000, 8000])
    grad = paddle.grad(lambda f: paddle.sum(A.hz_to_mel(f)))(paddle.to_tensor([500.0, 2000.0])).numpy()
    np.testing.assert_allclose(grad, [1 / (200 / 3), 1 / (2000.0 * np.log(6.4) / 27)], rtol=1e-5)


def test_filterbanks_as_paddle():
    fbank = A.compute_fbank_matrix(16000, 512, n_mels=40).numpy()
    assert fbank.shape == (40, 257) and fbank.dtype == np.float32
    np.testing.assert_allclose(fbank[5, 10:14], [0.0, 0.0, 0.00132086384, 0.00709446706], rtol=1e-5, atol=1e-9)
    assert float(fbank.sum()) == pytest.approx(1.2793331, rel=1e-5)
    normed = A.compute_fbank_matrix(22050, 1024, n_mels=64, htk=True, norm=2.0)
    assert float(normed.sum()) == pytest.approx(204.046616, rel=1e-5)
    np.testing.assert_allclose(np.linalg.norm(normed.numpy(), axis=1), 1.0, rtol=1e-5)
    assert A.compute_fbank_matrix(16000, 512, n_mels=40, dtype="float64").dtype == paddle.float64
    with pytest.raises(ValueError, match="norm must be 'slaney' or a number"):
        A.compute_fbank_matrix(16000, 512, norm="max")


def test_power_to_db_and_dct_as_paddle():
    spect = (np.arange(1, 16, dtype="float32").reshape(3, 5) / 7.0) ** 4
    np.testing.assert_allclose(A.power_to_db(paddle.to_tensor(spect), ref_value=0.5, top_db=30.0).numpy()[0],
                               [-13.7499714, -13.7499714, -11.7087717, -6.71122169, -2.83482146], rtol=1e-5)
    np.testing.assert_allclose(A.power_to_db(paddle.to_tensor([1.0, 0.1, 1e-12])).numpy(), [0, -10, -80], atol=1e-5)
    np.testing.assert_allclose(A.create_dct(3, 5, None).numpy()[:, 2], [1.618034, -0.618034, -2.0, -0.618034, 1.618034],
                               rtol=1e-5)
    dct = A.create_dct(5, 5).numpy()
    np.testing.assert_allclose(dct.T @ dct, np.eye(5), atol=1e-6)  # orthonormal
    for bad, match in ((dict(amin=0.0), "amin must be positive"), (dict(ref_value=-1.0), "ref_value must be positive"),
                       (dict(top_db=-1.0), "top_db must be non-negative")):
        with pytest.raises(ValueError, match=match):
            A.power_to_db(paddle.ones([2]), **bad)
    with pytest.raises(ValueError, match="norm must be 'ortho' or None"):
        A.create_dct(3, 5, "l2")
