"""JAX's automatic vectorization tutorial, ported: a hand-batched function against vmap, in_axes, per-example
gradients."""
from tutorial_data import W, X

import paddle_fn as paddle


def apply_matrix(v):
    return paddle.tanh(paddle.matmul(v, paddle.to_tensor(W)))


def cells(reduced: bool = True) -> dict:
    batch = paddle.to_tensor(X)
    manual = paddle.stack([apply_matrix(v) for v in batch])
    vmapped = paddle.vmap(apply_matrix)(batch)
    out = {"manual_batch": manual, "vmapped": vmapped}
    out["in_axes_none"] = paddle.vmap(lambda v, w: paddle.dot(v, w), in_axes=(0, None))(batch, paddle.ones([3]))
    out["batched_dot_axis1"] = paddle.vmap(paddle.vdot, in_axes=(1, 1))(batch, batch)

    def loss(w, x, y):
        return paddle.sum((paddle.matmul(x, w) - y) ** 2)

    targets = paddle.to_tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    per_example = paddle.vmap(paddle.grad(loss), in_axes=(None, 0, 0))(paddle.to_tensor(W), batch, targets)
    out["per_example_grads_sum"] = paddle.sum(per_example, axis=0)
    out["full_grad"] = paddle.grad(loss)(paddle.to_tensor(W), batch, targets)
    return out


if __name__ == "__main__":
    from common import show
    show("vmap_tutorial", cells(reduced=True))  # the form record_jax.py recorded
