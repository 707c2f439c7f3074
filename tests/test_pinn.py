"""The PINN example (examples/pinn_laplace.py), reduced: training makes progress; Hessian residual is right."""
import pathlib
import sys

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.incubate.autograd import Hessian

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
import pinn_laplace as pinn  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    paddle.set_default_dtype("float64")
    yield
    paddle.set_default_dtype("float32")


def test_training_reduces_the_loss():
    _, history = pinn.train(steps=120, n_interior=64, n_per_edge=8, log_every=40, verbose=False)
    losses = [loss for _, loss in history]
    assert losses[-1] < losses[0] / 20, losses


def test_residual_matches_finite_differences_of_the_network():
    params = pinn.init_params(seed=3)
    interior, _ = pinn.collocation_points(n_interior=16)
    h = 1e-3
    u = lambda pts: pinn.predict(params, paddle.to_tensor(pts)).numpy()  # noqa: E731
    p = interior.numpy()
    laplacian_fd = sum(u(p + d) + u(p - d) for d in ([h, 0.0], [0.0, h])) / h ** 2 - 4 * u(p) / h ** 2
    expected = -laplacian_fd - pinn.source(interior).numpy()
    np.testing.assert_allclose(pinn.residual(params, interior).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_incubate_hessian_gives_the_same_residual():
    params = pinn.init_params(seed=3)
    interior, _ = pinn.collocation_points(n_interior=16)
    H = Hessian(lambda pts: paddle.unsqueeze(pinn.predict(params, pts), 1), interior, is_batched=True)
    assert H.shape == (16, 2, 2)
    residual = -(H[:, 0, 0] + H[:, 1, 1]) - pinn.source(interior)
    np.testing.assert_allclose(residual.numpy(), pinn.residual(params, interior).numpy(), rtol=1e-12, atol=1e-12)
