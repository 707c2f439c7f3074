"""JAX's "training a simple neural network" tutorial, ported: an MLP's parameters as a pytree initialised from
keys, a jitted SGD step with grad, accuracy as the mean of a bool Tensor (synthetic, separable data instead of
MNIST; the reduced run takes fewer steps)."""
from tutorial_data import LAYER_SIZES, STEP_SIZE, mlp_data

import paddle_fn as paddle
from paddle_fn import random


def random_layer_params(m, n, key, scale=1e-1):
    w_key, b_key = random.split(key)
    return scale * random.normal(w_key, (n, m)), scale * random.normal(b_key, (n,))


def init_network_params(sizes, key):
    keys = random.split(key, len(sizes))
    return [random_layer_params(m, n, k) for m, n, k in zip(sizes[:-1], sizes[1:], keys)]


def predict(params, x):
    activations = x
    for w, b in params[:-1]:
        activations = paddle.maximum(paddle.matmul(activations, w.T) + b, paddle.zeros([]))
    final_w, final_b = params[-1]
    logits = paddle.matmul(activations, final_w.T) + final_b
    return logits - paddle.logsumexp(logits, axis=-1, keepdim=True)


def loss(params, x, targets):
    return -paddle.mean(paddle.sum(predict(params, x) * targets, axis=-1))


def accuracy(params, x, labels):
    return paddle.mean(paddle.argmax(predict(params, x), axis=-1) == labels)


@paddle.jit
def update(params, x, y):
    grads = paddle.grad(loss)(params, x, y)
    return paddle.tree.map(lambda p, g: p - STEP_SIZE * g, params, grads)


def cells(reduced: bool = True) -> dict:
    x, labels = mlp_data()
    params = init_network_params(LAYER_SIZES, random.key(0))
    xs, ys = paddle.to_tensor(x), paddle.nn.functional.one_hot(paddle.to_tensor(labels), 3)
    out = {"initial_loss": loss(params, xs, ys)}
    for _ in range(20 if reduced else 200):
        params = update(params, xs, ys)
    out["final_loss"] = loss(params, xs, ys)
    out["accuracy"] = accuracy(params, xs, paddle.to_tensor(labels))
    out["first_bias"] = params[0][1][:4]
    return out


if __name__ == "__main__":
    from common import show
    show("mlp_training", cells(reduced=True))  # the form record_jax.py recorded
