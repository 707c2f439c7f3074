"""JAX's "Custom derivative rules for Python code" notebook (and the cookbook's implicit differentiation), ported:
log1pexp with a stable JVP, a differentiation convention, clip_gradient with Python-float residuals, the fixed
point differentiated implicitly (grad of grad too), and a norm whose gradient at 0 is 0. tests/test_custom_rules_jax.py
tests these functions further, against more of the notebook's cells that record_jax.py recorded."""
from functools import partial

import numpy as np

import paddle_fn as paddle
from paddle_fn import custom_jvp, custom_vjp, grad, jit, vjp, vmap, while_loop


def log1pexp_plain(x):
    return paddle.log(1. + paddle.exp(x))


@custom_jvp
def log1pexp(x):
    return paddle.log(1. + paddle.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot * (1 - 1 / (1 + paddle.exp(x)))


@custom_jvp
def conv_f(x):
    return x / (1 + paddle.sqrt(x))


@conv_f.defjvp
def conv_f_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return conv_f(x), ((paddle.sqrt(x) + 2) / (2 * (paddle.sqrt(x) + 1) ** 2)) * x_dot


@custom_vjp
def clip_gradient(lo, hi, x):
    return x


clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)), lambda res, g: (None, None, paddle.clip(g, res[0], res[1])))


@partial(custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return paddle.abs(x_prev - x) > 1e-6

    def body_fun(carry):
        _, x = carry
        return x, f(a, x)

    _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
    return x_star


def fixed_point_fwd(f, a, x_init):
    x_star = fixed_point(f, a, x_init)
    return x_star, (a, x_star)


def rev_iter(f, packed, u):
    a, x_star, x_star_bar = packed
    _, vjp_x = vjp(lambda x: f(a, x), x_star)
    return x_star_bar + vjp_x(u)[0]


def fixed_point_rev(f, res, x_star_bar):
    a, x_star = res
    _, vjp_a = vjp(lambda a: f(a, x_star), a)
    a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
    return a_bar, paddle.zeros_like(x_star)


fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


@custom_jvp
def safe_norm(x):
    return paddle.sqrt(paddle.sum(x ** 2))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    x, = primals
    tx, = tangents
    n = safe_norm(x)
    return n, paddle.where(n == 0, 0., paddle.vdot(x, tx) / paddle.where(n == 0, 1., n))


def cells(reduced: bool = True) -> dict:
    t = paddle.to_tensor
    with np.errstate(all="ignore"):  # exp(100) overflows in the plain version: its gradient is nan, as in JAX
        plain = grad(log1pexp_plain)(t(100.))
    return {
        "log1pexp_plain_grad_100": plain,
        "log1pexp_grad_100": grad(log1pexp)(t(100.)),
        "log1pexp_vmap_jit_grad": vmap(jit(grad(log1pexp)))(paddle.arange(3.)),
        "convention_grad_0": grad(conv_f)(t(0.)),
        "clip_sin_grads": vmap(grad(lambda x: paddle.sin(clip_gradient(-0.75, 0.75, x))))(paddle.linspace(0, 10, 11)),
        "newton_sqrt": newton_sqrt(t(2.)),
        "newton_sqrt_grad": grad(newton_sqrt)(t(2.)),
        "newton_sqrt_grad_grad": grad(grad(newton_sqrt))(t(2.)),
        "safe_norm_grads": paddle.stack([grad(safe_norm)(paddle.zeros([2])), grad(safe_norm)(t([3., 4.]))]),
    }


if __name__ == "__main__":
    from common import show
    show("custom_derivatives", cells(reduced=True))  # the form record_jax.py recorded
