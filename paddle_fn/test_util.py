"""``paddle_fn.test_util.check_grads``: JAX's gradient check, derivatives against central finite differences along
one random direction, forward (``"fwd"``: jvp), reverse (``"rev"``: vjp) and linearized (``"lin"``) modes up to
``order``. Written against the public API, as a user's test would be.
"""
from __future__ import annotations

import functools

import numpy as np

import paddle_fn

__all__ = ["check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4  # JAX's default step
# JAX's default gradient tolerances (both atol and rtol), scaled by the compared array's size as JAX does
_GRADIENT_TOLERANCE = {np.dtype("float16"): 1e-2, np.dtype("float32"): 2e-3, np.dtype("float64"): 1e-5}


def _np(x) -> np.ndarray:
    return np.asarray(x.numpy() if isinstance(x, paddle_fn.Tensor) else x)


def _like(x, value):
    """`value` (a numpy array) as the kind of value `x` is: a Tensor of x's dtype, or a numpy/Python value."""
    if isinstance(x, paddle_fn.Tensor):
        return paddle_fn.to_tensor(np.asarray(value, dtype=_np(x).dtype))
    if isinstance(x, float):
        return float(value)
    return np.asarray(value, dtype=np.asarray(x).dtype)


def _tolerance(tol, dtype):
    if tol is None:
        return _GRADIENT_TOLERANCE.get(np.dtype(dtype), 0.0)
    if isinstance(tol, dict):
        return {np.dtype(k): v for k, v in tol.items()}.get(np.dtype(dtype), _GRADIENT_TOLERANCE.get(np.dtype(dtype), 0.0))
    return tol


def _check_close(got, want, atol, rtol, what):
    def close(a, b):
        a, b = _np(a), _np(b)
        if a.shape != b.shape:
            raise AssertionError(f"check_grads {what}: shapes {a.shape} and {b.shape} differ")
        at = max(_tolerance(atol, a.dtype), _tolerance(atol, b.dtype))
        rt = max(_tolerance(rtol, a.dtype), _tolerance(rtol, b.dtype))
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(a, b, atol=at * a.size, rtol=rt * b.size, err_msg=what)
    paddle_fn.tree.map(close, got, want)


def _random_like(rng, tree):
    return paddle_fn.tree.map(lambda x: _like(x, rng.standard_normal(np.shape(_np(x)))), tree)


def _shifted(primals, tangents, step):
    return paddle_fn.tree.map(lambda p, t: _like(p, _np(p) + step * _np(t)), primals, tangents)


def _numerical_jvp(f, primals, tangents, eps):
    return paddle_fn.tree.map(lambda a, b: (_np(a) - _np(b)) * (0.5 / eps),
                              f(*_shifted(primals, tangents, eps)), f(*_shifted(primals, tangents, -eps)))


def _inner(xs, ys) -> float:
    return float(sum(np.vdot(_np(x).ravel(), _np(y).ravel()).real
                     for x, y in zip(paddle_fn.tree.leaves(xs), paddle_fn.tree.leaves(ys))))


def check_jvp(f, f_jvp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_jvp(args, tangents) -> (out, tangent_out)`` against central differences of `f` along a random
    tangent (numpy ``RandomState(0)``, as JAX); raises AssertionError naming what differs.

    Example:
        >>> import paddle_fn as paddle
        >>> from functools import partial
        >>> f = paddle.sin
        >>> paddle.test_util.check_jvp(f, partial(paddle.jvp, f), (paddle.to_tensor([0.5, 1.0], dtype='float64'),))
    """
    rng = np.random.RandomState(0)
    tangents = _random_like(rng, args)
    out, t_out = f_jvp(args, tangents)
    _check_close(out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    _check_close(t_out, _numerical_jvp(f, args, tangents, eps), atol, rtol, f"{err_msg} tangent".strip())


def check_vjp(f, f_vjp, args, atol=None, rtol=None, eps=EPS, err_msg=""):
    """Check ``f_vjp(*args) -> (out, vjp_fn)``: ``<vjp_fn(ct), t>`` must equal ``<ct, J t>`` with J t from central
    differences, for random t and ct.

    Example:
        >>> import paddle_fn as paddle
        >>> from functools import partial
        >>> f = paddle.tanh
        >>> paddle.test_util.check_vjp(f, partial(paddle.vjp, f), (paddle.to_tensor([0.5, 1.0], dtype='float64'),))
    """
    rng = np.random.RandomState(0)
    out, vjp_fn = f_vjp(*args)
    _check_close(out, f(*args), atol, rtol, f"{err_msg} primal".strip())
    tangents = _random_like(rng, args)
    t_out = _numerical_jvp(f, args, tangents, eps)
    cotangent = _random_like(rng, out)
    ct_in = vjp_fn(cotangent)
    _check_close(_inner(tangents, ct_in), _inner(t_out, cotangent), atol, rtol,
                 f"{err_msg} cotangent projection".strip())


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """Check the derivatives of `f` at `args` up to `order` against finite differences, as
    ``jax.test_util.check_grads``: ``modes`` among ``"fwd"``, ``"rev"`` and ``"lin"``; ``atol``/``rtol`` a number
    or a {dtype: tolerance} dict (defaults: float32 2e-3, float64 1e-5, scaled by the array size); ``eps`` the
    finite-difference step (1e-4). Use float64 arguments for tight checks. Raises AssertionError on a mismatch.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([0.3, 0.7], dtype='float64')
        >>> paddle.test_util.check_grads(lambda x: paddle.sin(x) * x, (x,), order=2)
        >>> paddle.test_util.check_grads(paddle.exp, (x,), order=1, modes=("rev",), eps=1e-3)
    """
    args = tuple(args)
    eps = eps or EPS
    unknown = set(modes) - {"fwd", "rev", "lin"}
    if unknown:
        raise ValueError(f"check_grads: unknown modes {sorted(unknown)}; use 'fwd', 'rev' and/or 'lin'")
    jvp_check = functools.partial(check_jvp, atol=atol, rtol=rtol, eps=eps)
    vjp_check = functools.partial(check_vjp, atol=atol, rtol=rtol, eps=eps)

    def jvp_from_linearize(fun, primals, tangents):
        out, f_lin = paddle_fn.linearize(fun, *primals)
        return out, f_lin(*tangents)

    def check(fun, fun_args, order, msg):
        if "fwd" in modes:
            what = f"JVP of {msg}" if msg else "JVP"
            jvp_check(fun, functools.partial(paddle_fn.jvp, fun), fun_args, err_msg=what)
            if order > 1:
                check(functools.partial(paddle_fn.jvp, fun), (fun_args, fun_args), order - 1, what)
        if "rev" in modes:
            what = f"VJP of {msg}" if msg else "VJP"
            vjp_check(fun, functools.partial(paddle_fn.vjp, fun), fun_args, err_msg=what)
            if order > 1:
                def pulled_back(*xs):
                    out, vjp_fn = paddle_fn.vjp(fun, *xs)
                    return vjp_fn(out)
                check(pulled_back, fun_args, order - 1, what)
        if "lin" in modes:
            what = f"LIN of {msg}" if msg else "LIN"
            jvp_check(fun, functools.partial(jvp_from_linearize, fun), fun_args, err_msg=what)
            if order > 1:
                check(functools.partial(jvp_from_linearize, fun), (fun_args, fun_args), order - 1, what)

    check(f, args, order, "")
