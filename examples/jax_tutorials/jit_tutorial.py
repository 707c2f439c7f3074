"""JAX's just-in-time compilation tutorial, ported: selu compiled and not, static arguments, jit of grad."""
import time

import paddle_fn as paddle


def selu(x, alpha=1.67, lmbda=1.05):
    return lmbda * paddle.where(x > 0, x, alpha * paddle.exp(x) - alpha)


def cells(reduced: bool = True) -> dict:
    x = paddle.arange(-5.0, 5.0, 0.5)
    selu_jit = paddle.jit(selu)
    out = {"selu": selu(x), "selu_jit": selu_jit(x).block_until_ready()}
    if not reduced:  # the tutorial's timing, with block_until_ready as in JAX (dispatch is synchronous here)
        big = paddle.ones([1_000_000])
        selu_jit(big).block_until_ready()
        start = time.perf_counter()
        selu_jit(big).block_until_ready()
        print(f"selu_jit on 1e6 elements: {1e3 * (time.perf_counter() - start):.2f} ms")

    def g(x, n):  # Python control flow on a static argument
        i = 0
        while i < n:
            i += 1
        return x + i

    out["static_argnums"] = paddle.jit(g, static_argnums=1)(paddle.to_tensor(10.0), 20)
    out["jit_grad"] = paddle.jit(paddle.grad(lambda v: paddle.sum(selu(v))))(x)
    return out


if __name__ == "__main__":
    from common import show
    show("jit_tutorial", cells(reduced=False))
