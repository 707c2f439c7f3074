"""JAX's control-flow tutorial, ported: cond, switch, fori_loop, while_loop and scan, under jit and grad."""
import paddle_fn as paddle


def cells(reduced: bool = True) -> dict:
    out = {}
    out["cond"] = paddle.jit(lambda x: paddle.cond(x > 0, lambda v: v * 2, lambda v: -v, x))(paddle.to_tensor(-3.0))
    out["switch"] = paddle.switch(paddle.to_tensor(1), [lambda v: v + 1, lambda v: v * 10], paddle.to_tensor(2.0))
    out["fori_loop"] = paddle.fori_loop(0, 10, lambda i, acc: acc + i, paddle.to_tensor(0))
    out["while_loop"] = paddle.jit(lambda n: paddle.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2),
                                                              (paddle.to_tensor(0), paddle.to_tensor(1.0))))(
        paddle.to_tensor(5))[1]

    def cumulative(carry, x):
        carry = carry + x
        return carry, carry

    out["scan"] = paddle.scan(cumulative, paddle.to_tensor(0.0), paddle.arange(1.0, 6.0))[1]
    out["grad_through_fori"] = paddle.grad(
        lambda x: paddle.fori_loop(0, 3, lambda i, v: paddle.sin(v), x))(paddle.to_tensor(1.0))
    return out


if __name__ == "__main__":
    from common import show
    show("control_flow", cells(reduced=True))  # the form record_jax.py recorded
