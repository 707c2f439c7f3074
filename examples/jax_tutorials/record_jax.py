"""Run the original JAX cells that the ports in this folder translate, and store their numbers in jax_numbers.json.

Run once, from /tmp with the peers' site-packages (paddle_fn never depends on JAX):
    cd /tmp && PYTHONPATH=/tmp/peers/lib/python3.11/site-packages python3 .../record_jax.py
Reduced forms (the tests') only; the numbers are JAX 0.10.2's on CPU.
"""
import json
import os
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import custom_jvp, custom_vjp, grad, jacfwd, jacrev, jit, jvp, random, value_and_grad, vjp, vmap
from jax.lax import cond, fori_loop, scan, switch, while_loop

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tutorial_data import INPUTS, LAYER_SIZES, STEP_SIZE, TARGETS, mlp_data  # noqa: E402  (plain numpy)
from tutorial_data import W as W_VMAP, X as X_VMAP  # noqa: E402


def autodiff_cookbook():
    def sigmoid(x):
        return 0.5 * (jnp.tanh(x / 2) + 1)

    def predict(W, b, inputs):
        return sigmoid(jnp.dot(inputs, W) + b)

    def loss(W, b):
        preds = predict(W, b, INPUTS)
        label_probs = preds * TARGETS + (1 - preds) * (1 - TARGETS)
        return -jnp.sum(jnp.log(label_probs))

    W, b = jnp.array([0.1, -0.2, 0.3]), jnp.float32(0.1)
    grad_tanh = grad(jnp.tanh)
    v = jnp.array([1.0, 0.5, -1.0])
    return {"grad_tanh_2": grad_tanh(2.0), "grad3_tanh_2": grad(grad(grad_tanh))(2.0),
            "loss_W_grad": grad(loss, argnums=0)(W, b), "loss_b_grad": grad(loss, (0, 1))(W, b)[1],
            "loss_value": value_and_grad(loss, (0, 1))(W, b)[0],
            "jacfwd_predict": jacfwd(predict, argnums=0)(W, b, INPUTS),
            "jacrev_predict": jacrev(predict, argnums=0)(W, b, INPUTS),
            "hessian_loss": jacfwd(jacrev(lambda w: loss(w, b)))(W),
            "hvp": jvp(grad(lambda w: loss(w, b)), (W,), (v,))[1]}


def custom_derivatives():
    """The custom-derivatives notebook's cells (also checked by tests/test_custom_rules_jax.py)."""
    out = {}

    def record(name, value):
        out[name] = value

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
    return out


def vmap_tutorial():
    def apply_matrix(v):
        return jnp.tanh(jnp.dot(v, W_VMAP))

    def loss(w, x, y):
        return jnp.sum((jnp.dot(x, w) - y) ** 2)

    targets = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    per_example = vmap(grad(loss), in_axes=(None, 0, 0))(W_VMAP, X_VMAP, targets)
    return {"manual_batch": jnp.stack([apply_matrix(v) for v in X_VMAP]), "vmapped": vmap(apply_matrix)(X_VMAP),
            "in_axes_none": vmap(jnp.dot, in_axes=(0, None))(X_VMAP, jnp.ones(3)),
            "batched_dot_axis1": vmap(jnp.vdot, in_axes=(1, 1))(X_VMAP, X_VMAP),
            "per_example_grads_sum": per_example.sum(0), "full_grad": grad(loss)(W_VMAP, X_VMAP, targets)}


def jit_tutorial():
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    x = jnp.arange(-5.0, 5.0, 0.5)
    return {"selu": selu(x), "selu_jit": jit(selu)(x), "static_argnums": jit(g, static_argnums=1)(10.0, 20),
            "jit_grad": jit(grad(lambda v: jnp.sum(selu(v))))(x)}


def random_tutorial():
    key = random.PRNGKey(42)
    out = {"key": key, "normal_1": random.normal(key), "normal_again": random.normal(key)}
    key, subkey = random.split(key)
    out.update(split=jnp.stack([key, subkey]), normal_subkey=random.normal(subkey),
               uniform_3=random.uniform(random.PRNGKey(0), (3,)), split_3=random.split(random.PRNGKey(0), 3),
               randint=random.randint(random.PRNGKey(1), (5,), 0, 10), permutation=random.permutation(random.PRNGKey(2), 6),
               fold_in=random.fold_in(random.PRNGKey(0), 7))
    return out


def control_flow():
    def cumulative(carry, x):
        carry = carry + x
        return carry, carry

    return {"cond": jit(lambda x: cond(x > 0, lambda v: v * 2, lambda v: -v, x))(-3.0),
            "switch": switch(1, [lambda v: v + 1, lambda v: v * 10], 2.0),
            "fori_loop": fori_loop(0, 10, lambda i, acc: acc + i, 0),
            "while_loop": jit(lambda n: while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2), (0, 1.0)))(5)[1],
            "scan": scan(cumulative, 0.0, jnp.arange(1.0, 6.0))[1],
            "grad_through_fori": grad(lambda x: fori_loop(0, 3, lambda i, v: jnp.sin(v), x))(1.0)}


def mlp_training():
    def random_layer_params(m, n, key, scale=1e-1):
        w_key, b_key = random.split(key)
        return scale * random.normal(w_key, (n, m)), scale * random.normal(b_key, (n,))

    def predict(params, x):
        activations = x
        for w, b in params[:-1]:
            activations = jnp.maximum(jnp.dot(activations, w.T) + b, 0)
        logits = jnp.dot(activations, params[-1][0].T) + params[-1][1]
        return logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)

    def loss(params, x, targets):
        return -jnp.mean(jnp.sum(predict(params, x) * targets, axis=-1))

    @jit
    def update(params, x, y):
        grads = grad(loss)(params, x, y)
        return jax.tree.map(lambda p, g: p - STEP_SIZE * g, params, grads)

    x, labels = mlp_data()
    keys = random.split(random.PRNGKey(0), len(LAYER_SIZES))
    params = [random_layer_params(m, n, k) for m, n, k in zip(LAYER_SIZES[:-1], LAYER_SIZES[1:], keys)]
    ys = jax.nn.one_hot(labels, 3)
    out = {"initial_loss": loss(params, x, ys)}
    for _ in range(20):
        params = update(params, x, ys)
    out.update(final_loss=loss(params, x, ys), accuracy=jnp.mean(jnp.argmax(predict(params, x), -1) == labels),
               first_bias=params[0][1][:4])
    return out


def pmap_tutorial():
    n = jax.local_device_count()
    x = jnp.arange(1.0, 2.0 * n + 1).reshape(n, 2)
    batch = jnp.arange(8.0).reshape(4, 2)

    def loss(params, xb, yb):
        return jnp.mean((xb * params["w"] + params["b"] - yb) ** 2)

    def step(params, xb, yb):
        grads = jax.lax.pmean(grad(loss)(params, xb, yb), "batch")
        return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)

    params = {"w": jnp.float32(0.0), "b": jnp.float32(0.0)}
    xb = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(3):
        params = jax.tree.map(lambda p: p[0], vmap(step, in_axes=(None, 0, 0), axis_name="batch")(params, xb, 2 * xb + 1))
    return {"pmap_square": jax.pmap(lambda v: v ** 2)(x),
            "pmap_psum": jax.pmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(x),
            "vmap_normalize": vmap(lambda v: v / jax.lax.psum(v, "i"), axis_name="i")(batch),
            "vmap_all_gather": vmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")(batch)[0],
            "data_parallel_params": jnp.stack([params["w"], params["b"]])}


TUTORIALS = [autodiff_cookbook, custom_derivatives, vmap_tutorial, jit_tutorial, random_tutorial, control_flow,
             mlp_training, pmap_tutorial]

if __name__ == "__main__":
    numbers = {"jax_version": jax.__version__}
    for tutorial in TUTORIALS:
        numbers[tutorial.__name__] = {name: v if isinstance(v, dict) else np.asarray(v).tolist()
                                      for name, v in tutorial().items()}
    with open(os.path.join(HERE, "jax_numbers.json"), "w") as f:
        json.dump(numbers, f, indent=1)
    print("recorded", [t.__name__ for t in TUTORIALS])
