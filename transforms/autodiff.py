"""User-facing differentiation: jvp, linearize, vjp, grad, value_and_grad (pytrees in and out).

Reverse mode is linearize + transpose (paddle_fn.core.autodiff). Outside jit the primal computation runs
eagerly, so the differentiated function sees concrete values and may use Python control flow on them.
"""
from __future__ import annotations

import functools

import numpy as np

from paddle_fn.core import tape
from paddle_fn.core.autodiff import Zero, instantiate, is_differentiable, jvp_flat, linearize_flat
from paddle_fn.core.errors import TransformError
from paddle_fn.core.pytree import tree_flatten, tree_structure, tree_unflatten
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims.structural import broadcast_in_dim
from paddle_fn.transforms._args import (as_leaf, check_input_dtype, check_output_dtype, flatten_fun, fun_name,
                                        normalize_argnums)


def _flatten_args(tree, what):
    leaves, treedef = tree_flatten(tree)
    return [as_leaf(x, what) for x in leaves], treedef


def _positional(p_tree):
    """Arguments rebuilt from leaves of the tuple of positional arguments `p_tree` describes."""
    return lambda leaves: (tree_unflatten(p_tree, leaves), {})


def _ones_like(x):
    a = get_aval(x)
    return broadcast_in_dim(Tensor(np.ones((), a.dtype.np)), shape=a.shape, broadcast_dimensions=())


# ----------------------------------------------------------------------------------------------- jvp

def jvp(func, primals, tangents):
    """Forward-mode derivative: return ``(func(*primals), J(primals) @ tangents)``.

    Args:
        func: a function of Tensors (pytrees allowed) returning a pytree of Tensors.
        primals: a tuple/list of the positional arguments.
        tangents: a tuple/list with the same structure, shapes and dtypes as `primals`.

    Example:
        >>> import paddle_fn as paddle
        >>> y, dy = paddle.jvp(paddle.sin, (paddle.to_tensor(0.0),), (paddle.to_tensor(1.0),))
        >>> float(dy)
        1.0
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TransformError(f"jvp({fun_name(func)}): primals and tangents must be tuples (or lists) of positional "
                             f"arguments, e.g. jvp(f, (x,), (v,)); got {type(primals).__name__} and "
                             f"{type(tangents).__name__}")
    p_flat, p_tree = _flatten_args(tuple(primals), "jvp primals")
    t_flat, t_tree = _flatten_args(tuple(tangents), "jvp tangents")
    if p_tree != t_tree:
        raise TransformError(f"jvp({fun_name(func)}): primals and tangents have different pytree structures:\n"
                             f"  primals:  {p_tree}\n  tangents: {t_tree}\ngive one tangent per primal leaf, with the "
                             "same nesting")
    for i, (p, t) in enumerate(zip(p_flat, t_flat)):
        pa, ta = get_aval(p), get_aval(t)
        if pa.shape != ta.shape:
            raise TransformError(f"jvp({fun_name(func)}): tangent {i} has shape {list(ta.shape)} but its primal has "
                                 f"shape {list(pa.shape)}; tangents must match their primals' shapes")
        if is_differentiable(pa) and ta.dtype != pa.dtype:
            raise TransformError(f"jvp({fun_name(func)}): tangent {i} has dtype {ta.dtype.name} but its primal has "
                                 f"dtype {pa.dtype.name}; cast the tangent with .astype('{pa.dtype.name}')")
    t_flat = [t if is_differentiable(get_aval(p)) else Zero(get_aval(p)) for p, t in zip(p_flat, t_flat)]
    flat_fun, out = flatten_fun(func, _positional(p_tree), what=f"jvp({fun_name(func)})")
    p_out, t_out = jvp_flat(flat_fun, p_flat, t_flat)
    return tree_unflatten(out.tree, p_out), tree_unflatten(out.tree, t_out)


def linearize(func, *primals):
    """Return ``(func(*primals), f_jvp)`` where ``f_jvp(*tangents)`` evaluates the staged linear map.

    Example:
        >>> import paddle_fn as paddle
        >>> y, f_jvp = paddle.linearize(paddle.exp, paddle.to_tensor(0.0))
        >>> float(f_jvp(paddle.to_tensor(2.0)))
        2.0
    """
    p_flat, p_tree = _flatten_args(tuple(primals), "linearize primals")
    flat_fun, out = flatten_fun(func, _positional(p_tree), what=f"linearize({fun_name(func)})")
    p_out, lin = linearize_flat(flat_fun, p_flat, transform="linearize")

    def f_jvp(*tangents):
        t_flat, t_tree = _flatten_args(tuple(tangents), "linearize tangents")
        if t_tree != p_tree:
            raise TransformError(f"linearize({fun_name(func)}): tangents have structure {t_tree}, expected {p_tree}")
        return tree_unflatten(out.tree, lin(*t_flat))

    return tree_unflatten(out.tree, p_out), f_jvp


# ----------------------------------------------------------------------------------------------- vjp

def _vjp_flat(func, p_flat, p_tree, has_aux, transform):
    flat_fun, out = flatten_fun(func, _positional(p_tree), what=f"{transform}({fun_name(func)})", has_aux=has_aux)
    outs, lin = linearize_flat(flat_fun, p_flat, transform=transform)
    aux = tree_unflatten(out.aux_tree, outs[out.n_out:]) if has_aux else None
    return outs[:out.n_out], out.tree, lin, aux


def vjp(func, *primals, has_aux=False):
    """Reverse-mode derivative: return ``(func(*primals), vjp_fn)`` (and aux), ``vjp_fn(ct)`` giving one
    cotangent per primal.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0])
        >>> y, vjp_fn = paddle.vjp(lambda x: x * x, x)
        >>> vjp_fn(paddle.ones([2]))[0].numpy()
        array([2., 4.], dtype=float32)
    """
    p_flat, p_tree = _flatten_args(tuple(primals), "vjp primals")
    outs, out_tree, lin, aux = _vjp_flat(func, p_flat, p_tree, has_aux, "vjp")
    n = len(outs)
    out_avals = [get_aval(o) for o in outs]

    def vjp_fn(ct):
        ct_flat, ct_tree = _flatten_args(ct, "vjp cotangent")
        if ct_tree != out_tree:
            raise TransformError(f"vjp({fun_name(func)}): the cotangent has structure {ct_tree} but the function's "
                                 f"output has structure {out_tree}; pass one cotangent per output leaf")
        for i, (c, a) in enumerate(zip(ct_flat, out_avals)):
            ca = get_aval(c)
            if ca.shape != a.shape:
                raise TransformError(f"vjp({fun_name(func)}): cotangent {i} has shape {list(ca.shape)} but the "
                                     f"output has shape {list(a.shape)}")
            if is_differentiable(a) and ca.dtype != a.dtype:
                raise TransformError(f"vjp({fun_name(func)}): cotangent {i} has dtype {ca.dtype.name} but the "
                                     f"output has dtype {a.dtype.name}; cast it with .astype('{a.dtype.name}')")
        cts = list(ct_flat) + [Zero(a) for a in lin.out_avals[n:]]
        in_cts = lin.transpose(cts)
        return tuple(tree_unflatten(p_tree, [instantiate(c) for c in in_cts]))

    out = tree_unflatten(out_tree, outs)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


# ----------------------------------------------------------------------------------------------- grad

def _check_callable(func, transform):
    if callable(func):
        return
    if isinstance(func, (Tensor, list, tuple)):
        raise TransformError(
            f"paddle_fn.{transform} takes the function to differentiate, e.g. {transform}(loss)(params); it was given "
            f"a {type(func).__name__}. For gradients of Tensors already computed, use the eager tape: "
            "paddle.grad(outputs, inputs) or loss.backward()")
    raise TransformError(f"paddle_fn.{transform}: expected a function, got {type(func).__name__}")


def value_and_grad(func, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """Return a function computing ``(func(*args), grad)`` (``((value, aux), grad)`` with has_aux).

    The output must be a real scalar: shape [] or a one-element Tensor of shape [1], which Paddle also accepts.
    Complex inputs follow JAX: a real function of complex z gets the conjugate of its steepest-ascent direction
    (``grad(lambda z: abs(z) ** 2)(3+4j)`` is ``6-8j``); ``holomorphic=True`` takes a complex function of complex
    inputs and gives f'(z). Differentiated inputs must be floating point or complex unless ``allow_int=True`` (as
    JAX): an integer input then gets a zero gradient of its own dtype and shape (JAX's float0 has no counterpart
    here).

    Example:
        >>> import paddle_fn as paddle
        >>> v, g = paddle.value_and_grad(lambda x: (x ** 2).sum())(paddle.to_tensor([1.0, 2.0]))
        >>> g.numpy()
        array([2., 4.], dtype=float32)
    """
    _check_callable(func, "value_and_grad")

    @functools.wraps(func)
    def value_and_grad_f(*args, **kwargs):
        single, nums = normalize_argnums(argnums, len(args), "grad")
        diff = tuple(args[i] for i in nums)
        p_flat, p_tree = _flatten_args(diff, "grad")
        for i, p in enumerate(p_flat):
            if allow_int and get_aval(p).dtype.kind in "iub":
                continue
            check_input_dtype(f"grad({fun_name(func)})", i, get_aval(p), "c" if holomorphic else "fc",
                              takes_allow_int=True)

        def f_of_diff(*d):
            full = list(args)
            for i, v in zip(nums, d):
                full[i] = v
            return func(*full, **kwargs)

        outs, out_tree, lin, aux = _vjp_flat(f_of_diff, p_flat, tree_structure(diff), has_aux, "grad")
        if len(outs) != 1:
            raise TransformError(f"grad({fun_name(func)}): must return a single scalar Tensor, got a {out_tree} with "
                                 f"{len(outs)} leaves; use vjp or jacrev for several outputs")
        out = outs[0]
        a = get_aval(out)
        check_output_dtype(f"grad({fun_name(func)})", a, "c" if holomorphic else "f")
        if a.size != 1:
            raise TransformError(f"grad({fun_name(func)}): returned shape {list(a.shape)}; grad needs a scalar output "
                                 "(shape [] or [1]). Reduce it (e.g. .sum() or .mean()), or use vjp / jacrev for "
                                 "non-scalar outputs")
        cts = [_ones_like(out)] + [Zero(x) for x in lin.out_avals[1:]]
        grads = [instantiate(c) for c in lin.transpose(cts)]
        g = tree_unflatten(p_tree, grads)
        g = g[0] if single else tuple(g)
        return ((out, aux) if has_aux else out), g

    return value_and_grad_f


def grad(*args, **kwargs):
    """Gradients, in JAX's functional form or in Paddle's tape form, told apart by the first argument.

    ``grad(func, argnums=0, has_aux=False, holomorphic=False, allow_int=False)`` (a function first) returns a function computing the gradient of
    scalar-valued `func` with respect to argument(s) `argnums`, as ``jax.grad``: it composes with every transform.

    ``grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False,
    no_grad_vars=None)`` (Tensors first) is Paddle's ``paddle.grad``: the gradients of `outputs`, already computed
    eagerly from `inputs` with ``stop_gradient=False``, through the eager tape; ``create_graph=True`` records the
    gradient computation too, for higher derivatives (see `paddle_fn.autograd`).

    Example:
        >>> import paddle_fn as paddle
        >>> df = paddle.grad(lambda x: paddle.sin(x).sum())
        >>> df(paddle.to_tensor([0.0])).numpy()
        array([1.], dtype=float32)
        >>> x = paddle.to_tensor([0.0], stop_gradient=False)
        >>> paddle.grad(paddle.sin(x).sum(), x)[0].numpy()
        array([1.], dtype=float32)
    """
    first = args[0] if args else kwargs.get("outputs")
    if "outputs" in kwargs or isinstance(first, Tensor) or (
            isinstance(first, (list, tuple)) and first and all(isinstance(t, Tensor) for t in first)):
        return tape.grad(*args, **kwargs)
    unknown = sorted(set(kwargs) - set(_FUNCTIONAL_GRAD_PARAMETERS))
    if unknown:
        raise TypeError(f"grad(func, {', '.join(f'{k}={v!r}' for k, v in _FUNCTIONAL_GRAD_PARAMETERS.items() if k != 'func')}) "
                        f"got an unexpected keyword argument {', '.join(map(repr, unknown))}")
    if len(args) > len(_FUNCTIONAL_GRAD_PARAMETERS):
        raise TypeError(f"grad(func, argnums, has_aux, holomorphic, allow_int) takes at most "
                        f"{len(_FUNCTIONAL_GRAD_PARAMETERS)} positional arguments, got {len(args)}. Paddle's tape form "
                        "takes Tensors first: paddle.grad(outputs, inputs, grad_outputs=None, retain_graph=None, "
                        "create_graph=False, allow_unused=False, no_grad_vars=None)")
    return _functional_grad(*args, **kwargs)


# JAX's grad parameters (the function form) in JAX's order, with their defaults, for the errors above
_FUNCTIONAL_GRAD_PARAMETERS = {"func": None, "argnums": 0, "has_aux": False, "holomorphic": False, "allow_int": False}


def _functional_grad(func, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    _check_callable(func, "grad")
    vg = value_and_grad(func, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(func)
    def grad_f(*args, **kwargs):
        (out, g) = vg(*args, **kwargs)
        return (g, out[1]) if has_aux else g

    return grad_f

