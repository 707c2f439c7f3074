"""custom_jvp / custom_vjp: user-defined derivative rules, carried through every transform as primitives.

The user's function is traced to a Program (`call`); its captured constants become leading operands
(`n_consts` of them) that are treated as constants by the custom rule, as closed-over values are in JAX.
`custom_jvp_call` holds the user's JVP rule. `custom_vjp_call` holds the forward and backward functions; under
reverse mode it emits `custom_lin`, linear in the tangents, whose transpose calls the backward function.
"""
from __future__ import annotations

import functools

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, instantiate, is_undefined
from paddle_fn.core.batching import batch_size, bdim_at_front, vmap_flat
from paddle_fn.core.errors import TransformError, UnsupportedError
from paddle_fn.core.primitive import NONLINEAR, Primitive, unsupported
from paddle_fn.core.pytree import tree_flatten, tree_unflatten
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.core.trace import Tensor, get_aval


def _leaf(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float)):
        return Tensor(np.asarray(x, dtype=dtypes.dtype_of_scalar(x).np))
    return Tensor(np.asarray(x))


def _eval_call_impl(*vals, call, **_):
    return [o.concrete_value() for o in eval_program(call, [], [Tensor(v) for v in vals])]


def _call_shape(*avals, call, **_):
    return call.out_avals


def _lower_call(ctx, *args, call, **_):
    return ctx.inline(call, list(args))


class _AllAtZero:
    def resolve(self, i, ndim):
        return 0


def _batched_call(call, vals, size):
    """`call` vmapped over axis 0 of every operand, as a new Program."""
    n_out = len(call.out_vars)
    prog, consts = trace_to_program(
        lambda *xs: vmap_flat(lambda *ys: eval_program(call, [], ys), list(xs), [0] * len(xs), size, [0] * n_out),
        [get_aval(v) for v in vals], transform="vmap")
    assert not consts
    return prog


def _to_front(vals, dims):
    size = batch_size(vals, dims)
    return [bdim_at_front(v, d, size) for v, d in zip(vals, dims)], size


class _Traced:
    """The user's function traced on flat leaves, with the helpers both decorators share."""

    def __init__(self, fun, args, nondiff_argnums):
        self.nd = set(nondiff_argnums)
        self.static = {i: a for i, a in enumerate(args) if i in self.nd}
        self.nargs = len(args)
        self.dyn = tuple(a for i, a in enumerate(args) if i not in self.nd)
        leaves, self.in_tree = tree_flatten(self.dyn)
        self.vals = [_leaf(x) for x in leaves]
        self.out_tree = None

        def flat_fun(*xs):
            out_leaves, self.out_tree = tree_flatten(fun(*self.full(list(xs))))
            return [_leaf(o) for o in out_leaves]

        self.call, self.consts = trace_to_program(flat_fun, [get_aval(v) for v in self.vals],
                                                  transform="custom_derivative")

    def full(self, flat):
        it = iter(tree_unflatten(self.in_tree, list(flat)))
        return [self.static[i] if i in self.nd else next(it) for i in range(self.nargs)]

    def dyn_args(self, flat):
        return [a for i, a in enumerate(self.full(flat)) if i not in self.nd]


# ---------------------------------------------------------------------------------------------- custom_jvp_call

def _custom_jvp_call_jvp(primals, tangents, *, call, jvp, n_consts):
    return jvp(primals[n_consts:], tangents[n_consts:])


def _custom_jvp_call_batch(vals, dims, *, call, jvp, n_consts):
    vals, size = _to_front(vals, dims)
    n_out = len(call.out_vars)

    def batched_jvp(ps, ts):
        n = len(ps)

        def both(*zs):
            outs, touts = jvp(list(zs[:n]), list(zs[n:]))
            return list(outs) + [instantiate(t) for t in touts]
        res = vmap_flat(both, list(ps) + list(ts), [0] * (2 * n), size, _AllAtZero())
        return res[:n_out], res[n_out:]

    outs = custom_jvp_call_p.bind(*vals, call=_batched_call(call, vals, size), jvp=batched_jvp, n_consts=n_consts)
    return outs, [0] * n_out


custom_jvp_call_p = Primitive("custom_jvp_call", shape_rule=_call_shape, impl=_eval_call_impl, jvp=_custom_jvp_call_jvp,
                              transpose=NONLINEAR, batch=_custom_jvp_call_batch, lower=_lower_call,
                              multiple_results=True)


class custom_jvp:
    """Give a function a custom JVP rule, used by every transform (grad too, via linearize + transpose).

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.custom_jvp
        ... def log1pexp(x):
        ...     return paddle.log(1.0 + paddle.exp(x))
        >>> @log1pexp.defjvp
        ... def log1pexp_jvp(primals, tangents):
        ...     (x,), (t,) = primals, tangents
        ...     return log1pexp(x), t * paddle.sigmoid(x)
        >>> paddle.grad(lambda x: log1pexp(x).sum())(paddle.to_tensor([100.0])).numpy()
        array([1.], dtype=float32)
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp_rule = None
        self.nondiff_argnums = tuple(nondiff_argnums)

    def defjvp(self, jvp):
        """Register ``jvp(primals, tangents) -> (primal_out, tangent_out)``; primals/tangents are tuples."""
        self.jvp_rule = jvp
        return jvp

    def __call__(self, *args):
        if self.jvp_rule is None:
            raise TransformError(f"custom_jvp function {self.__name__} has no JVP rule; define one with "
                                 f"@{self.__name__}.defjvp")
        tr = _Traced(self.fun, args, self.nondiff_argnums)
        rule, name = self.jvp_rule, self.__name__

        def flat_jvp(primals, tangents):
            p_out, t_out = rule(tuple(tr.full(primals)), tuple(tr.dyn_args(tangents)))
            p_leaves, p_tree = tree_flatten(p_out)
            t_leaves, t_tree = tree_flatten(t_out)
            if p_tree != tr.out_tree or t_tree != tr.out_tree:
                raise TransformError(f"custom_jvp rule of {name} returned primal/tangent structures {p_tree} / "
                                     f"{t_tree}, but the function returns {tr.out_tree}")
            p_leaves, t_leaves = [_leaf(p) for p in p_leaves], [_leaf(t) for t in t_leaves]
            for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
                if get_aval(p).shape != get_aval(t).shape:
                    raise TransformError(f"custom_jvp rule of {name}: tangent output {i} has shape "
                                         f"{list(get_aval(t).shape)}, its primal {list(get_aval(p).shape)}")
            return p_leaves, t_leaves

        outs = custom_jvp_call_p.bind(*tr.consts, *tr.vals, call=tr.call, jvp=flat_jvp, n_consts=len(tr.consts))
        return tree_unflatten(tr.out_tree, outs)


# ---------------------------------------------------------------------------------------------- custom_vjp_call

def _custom_vjp_call_jvp(primals, tangents, *, call, fwd, bwd, n_consts):
    outs, residuals = fwd(primals[n_consts:])
    t_outs = custom_lin_p.bind(*residuals, *tangents[n_consts:], num_res=len(residuals), bwd=bwd,
                               out_avals=tuple(get_aval(o) for o in outs))
    return outs, t_outs


def _custom_vjp_call_batch(vals, dims, *, call, fwd, bwd, n_consts):
    vals, size = _to_front(vals, dims)
    n_out = len(call.out_vars)

    def batched_fwd(ps):
        def both(*zs):
            outs, res = fwd(list(zs))
            return list(outs) + list(res)
        res = vmap_flat(both, list(ps), [0] * len(ps), size, _AllAtZero())
        return res[:n_out], res[n_out:]

    def batched_bwd(res, cts):
        n_res = len(res)
        return vmap_flat(lambda *zs: bwd(list(zs[:n_res]), list(zs[n_res:])), list(res) + list(cts),
                         [0] * (n_res + len(cts)), size, _AllAtZero())

    outs = custom_vjp_call_p.bind(*vals, call=_batched_call(call, vals, size), fwd=batched_fwd, bwd=batched_bwd,
                                  n_consts=n_consts)
    return outs, [0] * n_out


custom_vjp_call_p = Primitive("custom_vjp_call", shape_rule=_call_shape, impl=_eval_call_impl, jvp=_custom_vjp_call_jvp,
                              transpose=NONLINEAR, batch=_custom_vjp_call_batch, lower=_lower_call,
                              multiple_results=True)


# ---------------------------------------------------------------------------------------------- custom_lin

def _custom_lin_shape(*avals, num_res, bwd, out_avals):
    return list(out_avals)


_FWD_MODE = ("forward-mode differentiation (jvp, jacfwd, hessian's outer jacfwd) of a custom_vjp function is not "
             "supported: it defines only a backward rule. Use custom_jvp, or jacrev instead of jacfwd")


def _custom_lin_impl(*vals, **params):
    raise UnsupportedError(_FWD_MODE)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals):
    res = args[:num_res]
    if any(is_undefined(r) for r in res):
        raise UnsupportedError("custom_lin: the residuals of a custom_vjp function cannot be linear")
    return [None] * num_res + list(bwd(list(res), [instantiate(c) for c in cts]))


def _custom_lin_lower(ctx, *args, **params):
    raise UnsupportedError(_FWD_MODE)


custom_lin_p = Primitive("custom_lin", shape_rule=_custom_lin_shape, impl=_custom_lin_impl, jvp=unsupported(_FWD_MODE),
                         transpose=_custom_lin_transpose, batch=unsupported(_FWD_MODE), lower=_custom_lin_lower,
                         multiple_results=True)


class custom_vjp:
    """Give a function a custom reverse-mode rule with ``f.defvjp(fwd, bwd)``.

    ``fwd(*args) -> (output, residuals)``; ``bwd(residuals, cotangent) -> tuple`` with one cotangent (or None)
    per argument.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.custom_vjp
        ... def clip_gradient(x):
        ...     return x
        >>> clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (paddle.clip(g, -1.0, 1.0),))
        >>> paddle.grad(lambda x: (3.0 * clip_gradient(x)).sum())(paddle.to_tensor([2.0])).numpy()
        array([1.], dtype=float32)
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd = self.bwd = None
        self.nondiff_argnums = tuple(nondiff_argnums)

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args):
        if self.fwd is None:
            raise TransformError(f"custom_vjp function {self.__name__} has no rule; call "
                                 f"{self.__name__}.defvjp(fwd, bwd)")
        tr = _Traced(self.fun, args, self.nondiff_argnums)
        fwd_user, bwd_user, name = self.fwd, self.bwd, self.__name__
        store = {}

        def flat_fwd(primals):
            out, res = fwd_user(*tr.full(primals))
            out_leaves, out_tree = tree_flatten(out)
            if out_tree != tr.out_tree:
                raise TransformError(f"custom_vjp fwd of {name} returned structure {out_tree}, but the function "
                                     f"returns {tr.out_tree}")
            res_leaves, store["res_tree"] = tree_flatten(res)
            return [_leaf(o) for o in out_leaves], [_leaf(r) for r in res_leaves]

        def flat_bwd(res, cts):
            in_cts = bwd_user(tree_unflatten(store["res_tree"], list(res)), tree_unflatten(tr.out_tree, list(cts)))
            if not isinstance(in_cts, tuple) or len(in_cts) != len(tr.dyn):
                raise TransformError(f"custom_vjp bwd of {name} must return a tuple with one cotangent (or None) per "
                                     f"differentiable argument ({len(tr.dyn)}), got {in_cts!r:.80}")
            flat = []
            for arg, c in zip(tr.dyn, in_cts):
                a_leaves, a_tree = tree_flatten(arg)
                if c is None:
                    flat.extend(instantiate(Zero(get_aval(_leaf(x)))) for x in a_leaves)
                    continue
                c_leaves, c_tree = tree_flatten(c)
                if c_tree != a_tree:
                    raise TransformError(f"custom_vjp bwd of {name}: a cotangent has structure {c_tree}, its "
                                         f"argument {a_tree}")
                flat.extend(_leaf(x) for x in c_leaves)
            return flat

        outs = custom_vjp_call_p.bind(*tr.consts, *tr.vals, call=tr.call, fwd=flat_fwd, bwd=flat_bwd,
                                      n_consts=len(tr.consts))
        return tree_unflatten(tr.out_tree, outs)
