"""What the tutorial ports share: the recorded JAX numbers and printing a port's cells beside them."""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def jax_numbers(tutorial: str) -> dict:
    """The numbers record_jax.py stored for `tutorial`'s cells (JAX 0.10.2)."""
    with open(os.path.join(HERE, "jax_numbers.json")) as f:
        return json.load(f)[tutorial]


def show(tutorial: str, cells: dict) -> None:
    """Print each cell's value and JAX's."""
    expected = jax_numbers(tutorial)
    for name, value in cells.items():
        print(f"{name}: {np.round(np.asarray(value, dtype=np.float64), 5).tolist()}  (JAX: "
              f"{np.round(np.asarray(expected[name], dtype=np.float64), 5).tolist()})")
