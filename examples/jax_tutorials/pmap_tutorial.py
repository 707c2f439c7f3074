"""JAX's parallel-programming tutorial, ported: pmap over the local devices (one CPU device here: the code is the
same for more), collectives by axis name, the same collectives under vmap, and data-parallel gradient averaging
with pmean over a pytree of gradients."""
import paddle_fn as paddle


def cells(reduced: bool = True) -> dict:
    n = paddle.local_device_count()
    x = paddle.arange(1.0, 2.0 * n + 1).reshape([n, 2])
    out = {"pmap_square": paddle.pmap(lambda v: v ** 2)(x)}
    out["pmap_psum"] = paddle.pmap(lambda v: v / paddle.psum(v, "i"), axis_name="i")(x)
    batch = paddle.arange(8.0).reshape([4, 2])
    out["vmap_normalize"] = paddle.vmap(lambda v: v / paddle.psum(v, "i"), axis_name="i")(batch)
    out["vmap_all_gather"] = paddle.vmap(lambda v: paddle.all_gather(v, "i"), axis_name="i")(batch)[0]

    def loss(params, xb, yb):
        return paddle.mean((xb * params["w"] + params["b"] - yb) ** 2)

    def step(params, xb, yb):
        grads = paddle.grad(loss)(params, xb, yb)
        grads = paddle.pmean(grads, "batch")  # the data-parallel step: average a dict of gradients
        return paddle.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    params = {"w": paddle.to_tensor(0.0), "b": paddle.to_tensor(0.0)}
    xb = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    yb = 2 * xb + 1
    for _ in range(3 if reduced else 30):
        params = paddle.vmap(step, in_axes=(None, 0, 0), axis_name="batch")(params, xb, yb)
        params = paddle.tree.map(lambda p: p[0], params)  # every lane holds the same averaged parameters
    out["data_parallel_params"] = paddle.stack([params["w"], params["b"]])
    return out


if __name__ == "__main__":
    from common import show
    show("pmap_tutorial", cells(reduced=True))  # the form record_jax.py recorded
