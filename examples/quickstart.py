"""paddle_fn quickstart: gradients, JVPs, Hessians and the traced IR of a real function.

Run with `make demo`.
"""
import numpy as np

import paddle_fn as paddle

paddle.set_default_dtype("float64")

# A small regression loss: a one-hidden-layer tanh network on fixed data.
rng = np.random.default_rng(0)
X = paddle.to_tensor(rng.normal(size=(8, 3)))
y = paddle.to_tensor(rng.normal(size=(8, 1)))
params = {"W": paddle.to_tensor(rng.normal(size=(3, 4)) * 0.5), "b": paddle.zeros([4]),
          "v": paddle.to_tensor(rng.normal(size=(4, 1)) * 0.5)}


def loss(p, X, y):
    hidden = paddle.tanh(paddle.matmul(X, p["W"]) + p["b"])
    return paddle.mean((paddle.matmul(hidden, p["v"]) - y) ** 2)


print("loss:", float(loss(params, X, y)))

# grad: a pytree of gradients with the structure of `params`
g = paddle.grad(loss)(params, X, y)
print("grad W:\n", g["W"].numpy())

# check one entry against a central difference
eps = 1e-6
Wp = params["W"].numpy().copy(); Wp[0, 0] += eps
Wm = params["W"].numpy().copy(); Wm[0, 0] -= eps
fd = (float(loss({**params, "W": paddle.to_tensor(Wp)}, X, y)) -
      float(loss({**params, "W": paddle.to_tensor(Wm)}, X, y))) / (2 * eps)
print(f"dL/dW[0,0]: autodiff {float(g['W'][0, 0]):.10f}  finite difference {fd:.10f}")


# jvp: the directional derivative of a vector function
def f(x):
    return paddle.sin(x) * x


x = paddle.to_tensor([0.5, 1.0, 2.0])
out, tangent = paddle.jvp(f, (x,), (paddle.ones([3]),))
print("jvp of sin(x)*x along ones:", tangent.numpy())


# Hessian and a Hessian-vector product (forward over reverse)
def energy(x):
    return paddle.sum(paddle.tanh(x) ** 2) + 0.5 * paddle.sum(x ** 2)


H = paddle.hessian(energy)(x)
print("Hessian of energy:\n", H.numpy())
_, hvp = paddle.jvp(paddle.grad(energy), (x,), (paddle.to_tensor([1.0, 0.0, 0.0]),))
print("Hessian-vector product (first column):", hvp.numpy())

# per-example gradients with vmap
per_example = paddle.vmap(paddle.grad(lambda w, xi: paddle.sum(paddle.tanh(xi * w))), in_axes=(None, 0))
print("per-example gradients:\n", per_example(paddle.ones([3]), X).numpy()[:3])

# the traced program: what grad actually computes
print("IR of grad(energy):")
print(paddle.make_ir(paddle.grad(energy))(x))
