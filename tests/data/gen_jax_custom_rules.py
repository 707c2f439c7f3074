"""Record JAX's numbers for the custom-derivative ports (tests/test_custom_rules_jax.py).

Run from /tmp with the peers' site-packages (JAX is never a dependency of paddle_fn):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 \
        /work/wt/jaxport/tests/data/gen_jax_custom_rules.py > .../tests/data/jax_custom_rules.json
The cells are those of JAX's autodiff cookbook and "Custom derivative rules" notebook (jax 0.10.2).
"""
import json
from functools import partial

import jax
import jax.numpy as jnp
from jax import custom_jvp, custom_vjp, grad, jit, vjp, vmap
from jax.lax import while_loop

out = {"jax_version": jax.__version__}


def record(name, value):
    out[name] = jnp.asarray(value, dtype=jnp.float32).tolist()


# --- log1pexp, numerically stable through a custom JVP
def log1pexp_plain(x):
    return jnp.log(1. + jnp.exp(x))


@custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot * (1 - 1 / (1 + jnp.exp(x)))


record("log1pexp_plain_grad_100", grad(log1pexp_plain)(100.))
record("log1pexp_grad_100", grad(log1pexp)(100.))
record("log1pexp_jit_grad_3", jit(grad(log1pexp))(3.))
record("log1pexp_vmap_jit_grad", vmap(jit(grad(log1pexp)))(jnp.arange(3.)))


# --- a differentiation convention: f(x) = x / (1 + sqrt(x)) at 0
@custom_jvp
def conv_f(x):
    return x / (1 + jnp.sqrt(x))


@conv_f.defjvp
def conv_f_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return conv_f(x), ((jnp.sqrt(x) + 2) / (2 * (jnp.sqrt(x) + 1) ** 2)) * x_dot


record("convention_grad_0", grad(conv_f)(0.))


# --- clip_gradient with Python-float bounds as residuals
@custom_vjp
def clip_gradient(lo, hi, x):
    return x


clip_gradient.defvjp(lambda lo, hi, x: (x, (lo, hi)), lambda res, g: (None, None, jnp.clip(g, res[0], res[1])))
t = jnp.linspace(0, 10, 11)
record("clip_sin_grads", vmap(grad(lambda x: jnp.sin(clip_gradient(-0.75, 0.75, x))))(t))


# --- Python control flow inside the function and the rule
@custom_jvp
def branchy(x):
    if x > 0:
        return jnp.sin(x)
    return jnp.cos(x)


@branchy.defjvp
def branchy_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = branchy(x)
    return ans, (2 * x_dot if x > 0 else 3 * x_dot)


record("branchy_value_1", branchy(1.))
record("branchy_grads", [grad(branchy)(1.), grad(branchy)(-1.)])


# --- defjvps
@custom_jvp
def sin_mul(x, y):
    return jnp.sin(x) * y


sin_mul.defjvps(lambda x_dot, ans, x, y: jnp.cos(x) * x_dot * y, lambda y_dot, ans, x, y: jnp.sin(x) * y_dot)
record("defjvps_grads", grad(sin_mul, (0, 1))(2., 3.))


# --- custom_vjp of the same function
@custom_vjp
def sin_mul_vjp(x, y):
    return jnp.sin(x) * y


sin_mul_vjp.defvjp(lambda x, y: (jnp.sin(x) * y, (jnp.cos(x), jnp.sin(x), y)),
                   lambda res, g: (res[0] * g * res[2], res[1] * g))
record("custom_vjp_grads", grad(sin_mul_vjp, (0, 1))(2., 3.))


# --- nondiff_argnums: a function argument comes first to the rules
@partial(custom_jvp, nondiff_argnums=(0,))
def app(f, x):
    return f(x)


@app.defjvp
def app_jvp(f, primals, tangents):
    x, = primals
    x_dot, = tangents
    return f(x), 2. * x_dot


record("app_jvp_value", app(lambda x: x ** 3, 3.))
record("app_jvp_grad", grad(app, 1)(lambda x: x ** 3, 3.))


@partial(custom_vjp, nondiff_argnums=(0,))
def app2(f, x):
    return f(x)


app2.defvjp(lambda f, x: (f(x), x), lambda f, x, g: (5 * g,))
record("app_vjp_grad", grad(app2, 1)(lambda x: x ** 2, 4.))


# --- implicit differentiation of a fixed point (cookbook / notebook)
@partial(custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
    def cond_fun(carry):
        x_prev, x = carry
        return jnp.abs(x_prev - x) > 1e-6

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
    return a_bar, jnp.zeros_like(x_star)


fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)


def newton_sqrt(a):
    return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


record("newton_sqrt", newton_sqrt(2.))
record("newton_sqrt_grad", grad(newton_sqrt)(2.))
record("newton_sqrt_grad_grad", grad(grad(newton_sqrt))(2.))
record("newton_sqrt_jit_grad", jit(grad(newton_sqrt))(2.))


# --- a norm whose gradient at 0 is 0
@custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x ** 2))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    x, = primals
    t, = tangents
    n = safe_norm(x)
    return n, jnp.where(n == 0, 0., jnp.vdot(x, t) / jnp.where(n == 0, 1., n))


record("safe_norm_grads", [grad(safe_norm)(jnp.zeros(2)), grad(safe_norm)(jnp.array([3., 4.]))])

# --- how often the primal and the rules run under grad
calls = {"fun": 0, "fwd": 0, "bwd": 0}


@custom_vjp
def counted(x):
    calls["fun"] += 1
    return jnp.sin(x)


def counted_fwd(x):
    calls["fwd"] += 1
    return jnp.sin(x), jnp.cos(x)


def counted_bwd(c, g):
    calls["bwd"] += 1
    return (c * g,)


counted.defvjp(counted_fwd, counted_bwd)
grad(counted)(1.)
out["custom_vjp_calls_under_grad"] = dict(calls)
calls.update(fun=0, fwd=0, bwd=0)
counted(1.)
out["custom_vjp_calls_plain"] = dict(calls)

print(json.dumps(out, indent=1))
