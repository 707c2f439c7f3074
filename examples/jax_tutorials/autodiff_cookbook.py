"""JAX's Autodiff Cookbook, ported: gradients, value_and_grad, higher derivatives, Jacobians, Hessian-vector
products (the cookbook's logistic regression, with the data written out instead of drawn)."""
from tutorial_data import INPUTS, TARGETS

import paddle_fn as paddle


def sigmoid(x):
    return 0.5 * (paddle.tanh(x / 2) + 1)


def predict(W, b, inputs):
    return sigmoid(paddle.matmul(inputs, W) + b)


def loss(W, b):
    inputs, targets = paddle.to_tensor(INPUTS), paddle.to_tensor(TARGETS)
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -paddle.sum(paddle.log(label_probs))


def cells(reduced: bool = True) -> dict:
    W = paddle.to_tensor([0.1, -0.2, 0.3])
    b = paddle.to_tensor(0.1)
    grad_tanh = paddle.grad(paddle.tanh)
    out = {"grad_tanh_2": grad_tanh(paddle.to_tensor(2.0)),
           "grad3_tanh_2": paddle.grad(paddle.grad(grad_tanh))(paddle.to_tensor(2.0))}
    out["loss_W_grad"] = paddle.grad(loss, argnums=0)(W, b)
    _, b_grad = paddle.grad(loss, (0, 1))(W, b)
    out["loss_b_grad"] = b_grad
    value, _ = paddle.value_and_grad(loss, (0, 1))(W, b)
    out["loss_value"] = value
    out["jacfwd_predict"] = paddle.jacfwd(predict, argnums=0)(W, b, paddle.to_tensor(INPUTS))
    out["jacrev_predict"] = paddle.jacrev(predict, argnums=0)(W, b, paddle.to_tensor(INPUTS))
    hess = paddle.jacfwd(paddle.jacrev(lambda w: loss(w, b)))(W)
    out["hessian_loss"] = hess
    v = paddle.to_tensor([1.0, 0.5, -1.0])
    hvp = paddle.jvp(paddle.grad(lambda w: loss(w, b)), (W,), (v,))[1]  # forward-over-reverse
    out["hvp"] = hvp
    return out


if __name__ == "__main__":
    from common import show
    show("autodiff_cookbook", cells(reduced=True))  # the form record_jax.py recorded
