"""A physics-informed neural network for the 2-D Poisson problem on the unit square, in float64.

    -Δu = 2π² sin(πx) sin(πy)  in (0, 1)²,     u = 0  on the boundary,
    exact solution u = sin(πx) sin(πy).

The network u(x, y) is a small tanh MLP. The PDE residual needs the Laplacian of the network with respect to
its *inputs*: ``paddle.hessian`` of the per-point network gives the 2x2 Hessian, ``vmap`` maps it over the
collocation points, and the whole training step (loss, its gradient with respect to the parameters, which is
a third derivative of the network, and an Adam update written inline) is one ``paddle.jit`` executable.

Run: python examples/pinn_laplace.py  (about 10-20 s on two cores, most of it the first compile).
"""
import math
import time

import numpy as np

import paddle_fn as paddle

PI = math.pi


def init_params(sizes=(2, 16, 16, 1), seed=0):
    """Glorot-normal weights and zero biases, as a list of {"w", "b"} dicts (a pytree)."""
    rng = np.random.default_rng(seed)
    return [{"w": paddle.to_tensor(rng.normal(size=(m, n)) * math.sqrt(2.0 / (m + n))), "b": paddle.zeros([n])}
            for m, n in zip(sizes[:-1], sizes[1:])]


def network(params, point):
    """u at one point [2] -> shape [1]."""
    h = point
    for layer in params[:-1]:
        h = paddle.tanh(paddle.matmul(h, layer["w"]) + layer["b"])
    return paddle.matmul(h, params[-1]["w"]) + params[-1]["b"]


def source(points):
    """f = 2π² sin(πx) sin(πy) at points [n, 2] -> [n]."""
    return 2 * PI ** 2 * paddle.sin(PI * points[:, 0]) * paddle.sin(PI * points[:, 1])


def exact(points):
    return paddle.sin(PI * points[:, 0]) * paddle.sin(PI * points[:, 1])


def laplacian(params, point):
    """Δu at one point: the trace of the Hessian of the network with respect to its input."""
    return paddle.trace(paddle.hessian(lambda p: network(params, p))(point))


def residual(params, points):
    """-Δu - f at every collocation point [n, 2] -> [n]."""
    return paddle.reshape(-paddle.vmap(lambda p: laplacian(params, p))(points), [-1]) - source(points)


def predict(params, points):
    return paddle.reshape(paddle.vmap(lambda p: network(params, p))(points), [-1])


def loss_fn(params, interior, boundary, boundary_weight=10.0):
    pde = paddle.mean(residual(params, interior) ** 2)
    bc = paddle.mean(predict(params, boundary) ** 2)
    return pde + boundary_weight * bc


def collocation_points(n_interior=256, n_per_edge=32, seed=1):
    """Random interior points and evenly spaced points on the four edges, as float64 Tensors."""
    rng = np.random.default_rng(seed)
    interior = rng.uniform(size=(n_interior, 2))
    t = np.linspace(0.0, 1.0, n_per_edge, endpoint=False)
    edges = [np.stack([t, np.zeros_like(t)], 1), np.stack([np.ones_like(t), t], 1),
             np.stack([1.0 - t, np.ones_like(t)], 1), np.stack([np.zeros_like(t), 1.0 - t], 1)]
    return paddle.to_tensor(interior), paddle.to_tensor(np.concatenate(edges))


def make_train_step(lr=1e-2, beta1=0.9, beta2=0.999, eps=1e-8):
    """One jitted Adam step over the params pytree: (params, m, v, t, interior, boundary) -> (..., loss)."""
    def step(params, m, v, t, interior, boundary):
        loss, grads = paddle.value_and_grad(loss_fn)(params, interior, boundary)
        t = t + 1.0
        m = paddle.tree_map(lambda m_, g: beta1 * m_ + (1 - beta1) * g, m, grads)
        v = paddle.tree_map(lambda v_, g: beta2 * v_ + (1 - beta2) * g * g, v, grads)
        scale = lr * paddle.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        params = paddle.tree_map(lambda p, m_, v_: p - scale * m_ / (paddle.sqrt(v_) + eps), params, m, v)
        return params, m, v, t, loss
    return paddle.jit(step)


def train(steps=2000, lr=1e-2, n_interior=256, n_per_edge=32, log_every=250, seed=0, verbose=True):
    """Train from scratch; return (params, list of (step, loss))."""
    params = init_params(seed=seed)
    interior, boundary = collocation_points(n_interior, n_per_edge)
    m = paddle.tree_map(paddle.zeros_like, params)
    v = paddle.tree_map(paddle.zeros_like, params)
    t = paddle.zeros([1])
    step = make_train_step(lr)
    history = []
    for i in range(steps):
        params, m, v, t, loss = step(params, m, v, t, interior, boundary)
        if i % log_every == 0 or i == steps - 1:
            history.append((i, float(loss)))
            if verbose:
                rms = float(paddle.sqrt(paddle.mean(residual(params, interior) ** 2)))
                print(f"step {i:5d}  loss {float(loss):.3e}  rms PDE residual {rms:.3e}")
    return params, history


def errors(params, n=41):
    """Max and relative L2 error against the exact solution on an n x n grid."""
    g = np.linspace(0.0, 1.0, n)
    grid = paddle.to_tensor(np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2))
    diff = (predict(params, grid) - exact(grid)).numpy()
    ref = exact(grid).numpy()
    return float(np.abs(diff).max()), float(np.linalg.norm(diff) / np.linalg.norm(ref))


def main():
    paddle.set_default_dtype("float64")
    start = time.perf_counter()
    params, _ = train()
    max_err, rel_l2 = errors(params)
    print(f"max error {max_err:.2e}   relative L2 error {rel_l2:.2e}   ({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
