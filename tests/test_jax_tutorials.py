"""The ports of JAX's tutorials (examples/jax_tutorials/) give JAX's numbers: each port's cells in reduced form
against what record_jax.py recorded from jax 0.10.2 (jax_numbers.json)."""
import importlib
import os
import sys

import numpy as np
import pytest

import paddle_fn as paddle

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "jax_tutorials")
sys.path.insert(0, EXAMPLES)
from common import jax_numbers  # noqa: E402

TUTORIALS = ["autodiff_cookbook", "custom_derivatives", "vmap_tutorial", "jit_tutorial", "random_tutorial",
             "control_flow", "mlp_training", "pmap_tutorial"]
# float32 agreement: the reductions and transcendental functions round a little differently from XLA's CPU code;
# the MLP accumulates that over 20 SGD steps
TOLERANCE = {"mlp_training": 1e-4}


@pytest.mark.parametrize("tutorial", TUTORIALS)
def test_port_gives_jax_numbers(tutorial):
    cells = importlib.import_module(tutorial).cells(reduced=True)
    expected = jax_numbers(tutorial)
    assert set(cells) <= set(expected), tutorial  # custom_derivatives records more cells for its own test
    rtol = TOLERANCE.get(tutorial, 2e-6)
    for name, value in cells.items():
        got = np.asarray(value.numpy() if isinstance(value, paddle.Tensor) else value, dtype=np.float64)
        want = np.asarray(expected[name], dtype=np.float64)
        assert got.shape == want.shape, (tutorial, name, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-2, err_msg=f"{tutorial}: {name}")
