"""The data and settings of the tutorial ports, in plain numpy, shared by the ports and record_jax.py (the JAX
cookbook draws its data from keys; here it is written out)."""
import numpy as np

# autodiff cookbook: logistic regression
INPUTS = np.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]], np.float32)
TARGETS = np.array([1.0, 1.0, 0.0, 1.0], np.float32)

# vmap tutorial
X = np.arange(12.0, dtype=np.float32).reshape(4, 3) / 10
W = np.array([[0.5, -0.2], [0.1, 0.4], [-0.3, 0.2]], np.float32)

# MLP training
LAYER_SIZES = [4, 16, 3]
STEP_SIZE = 0.1


def mlp_data():
    """60 points in 3 separable classes (instead of MNIST)."""
    rng = np.random.default_rng(0)
    labels = np.arange(60) % 3
    x = rng.normal(size=(60, 4)).astype(np.float32) * 0.5 + np.eye(3, 4, dtype=np.float32)[labels] * 2
    return x, labels
