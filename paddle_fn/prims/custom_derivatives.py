"""custom_jvp / custom_vjp: user-defined derivative rules, carried through every transform as primitives.

The calling conventions are JAX's: the non-differentiable arguments (``nondiff_argnums`` / ``nondiff_argnames``)
come first to the rules (``jvp(*nondiff, primals, tangents)``, ``bwd(*nondiff, residuals, g)``; ``fwd`` takes the
function's own arguments), and residuals may hold any Python object (their Tensor and array leaves travel as values,
the rest is handed back unchanged).

A call is bound one of two ways:

- concretely, outside jit and vmap when every argument has a value (eagerly, or the primal under grad/jvp). With no
  tracer and nothing for the eager tape the function just runs, so Python ``if x > 0`` works on a plain call.
  Otherwise the primitive's body is the Python function itself (`_PythonBody`): under grad only the rules run (the
  primal runs once, inside the JVP rule or ``fwd``), and evaluating the primitive runs the function on values.
- abstractly, under jit or vmap: the function is traced to a Program (``call``) whose captured constants become
  leading operands (``n_consts`` of them), treated as constants by the rules, as closed-over values are in JAX.

`custom_jvp_call` holds the JVP rule; `custom_vjp_call` holds the forward and backward functions, and under reverse
mode emits `custom_lin`, linear in the tangents, whose transpose calls the backward function.
"""
from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import Zero, instantiate, is_undefined
from paddle_fn.core.batching import BatchTrace, batch_size, bdim_at_front, vmap_flat
from paddle_fn.core.errors import TransformError, UnsupportedError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import NONLINEAR, Primitive, unsupported
from paddle_fn.core.pytree import broadcast_prefix, tree_flatten, tree_map, tree_unflatten
from paddle_fn.core.staging import eval_program, trace_to_program
from paddle_fn.core.tape import no_grad
from paddle_fn.core.trace import (
    Tensor, Tracer, current_dynamic_main, get_aval, is_concrete, live_mains, untraced_value)
from paddle_fn.prims.elementwise import stop_gradient


def _leaf(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float)):
        return Tensor(np.asarray(x, dtype=dtypes.dtype_of_scalar(x).np))
    return Tensor(np.asarray(x))


class SymbolicZero:
    """The tangent a ``defjvp(..., symbolic_zeros=True)`` rule receives for an input that is not differentiated
    (and what such a rule, or a ``symbolic_zeros`` bwd, may return for a zero result). It has the input's
    ``shape`` and ``dtype`` but no value: test for it with ``isinstance`` and skip the work it would cost.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.custom_jvp
        ... def f(x, y):
        ...     return x * y
        >>> def f_jvp(primals, tangents):
        ...     (x, y), (tx, ty) = primals, tangents
        ...     print(type(ty).__name__, ty.shape)
        ...     return f(x, y), tx * y
        >>> _ = f.defjvp(f_jvp, symbolic_zeros=True)
        >>> paddle.grad(f)(paddle.to_tensor(2.0), paddle.to_tensor(3.0)).item()
        SymbolicZero []
        3.0
    """

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    @property
    def shape(self) -> list:
        return list(self.aval.shape)

    @property
    def dtype(self):
        return self.aval.dtype

    def __repr__(self):
        return f"SymbolicZero({self.aval.str_short()})"


@dataclasses.dataclass
class CustomVJPPrimal:
    """An argument of a ``defvjp(..., symbolic_zeros=True)`` forward rule: the primal ``value`` and whether it is
    ``perturbed`` (differentiated) in this call.

    Example:
        >>> from paddle_fn.prims.custom_derivatives import CustomVJPPrimal
        >>> CustomVJPPrimal(2.0, False).perturbed
        False
    """
    value: object
    perturbed: bool


def custom_vjp_primal_tree_values(tree):
    """The values of a pytree of `CustomVJPPrimal` records (what a ``symbolic_zeros`` forward rule receives).

    Example:
        >>> from paddle_fn.prims.custom_derivatives import CustomVJPPrimal, custom_vjp_primal_tree_values
        >>> custom_vjp_primal_tree_values({"a": CustomVJPPrimal(1.0, True)})
        {'a': 1.0}
    """
    def value(leaf):
        if not isinstance(leaf, CustomVJPPrimal):
            raise TypeError(f"custom_vjp_primal_tree_values: expected CustomVJPPrimal leaves, got {type(leaf).__name__}")
        return leaf.value
    return tree_map(value, tree)


def _to_symbolic(t):
    return SymbolicZero(t.aval) if isinstance(t, Zero) else t


def _from_symbolic(t):
    return Zero(t.aval) if isinstance(t, SymbolicZero) else t


# ---------------------------------------------------------------------------------------------- the call's body

class _PythonBody:
    """The user's function on flat leaves, run on concrete values; traced (for its output avals) only if a rule asks,
    which a concrete binding never does."""

    def __init__(self, run, in_avals):
        self.run, self.in_avals = run, in_avals

    @functools.cached_property
    def out_avals(self):
        return trace_to_program(self.run, self.in_avals, transform="custom_derivative")[0].out_avals


def _run_body(call, vals):
    if isinstance(call, _PythonBody):
        with no_grad():  # the primitive is recorded on the tape as one node, not the ops inside it
            return call.run(*vals)
    return eval_program(call, [], list(vals))


def _eval_call_impl(*vals, call, **_):
    return [o.concrete_value() for o in _run_body(call, [Tensor(v) for v in vals])]


def _eval_call_eager(*vals, call, **_):
    return list(_run_body(call, vals))


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


def _unbatched_zero(t):
    return Zero(ShapedArray(t.aval.shape[1:], t.aval.dtype))


# ---------------------------------------------------------------------------------------------- custom_jvp_call

def _custom_jvp_call_jvp(primals, tangents, *, call, jvp, n_consts):
    return jvp(primals[n_consts:], tangents[n_consts:])


_custom_jvp_call_jvp.symbolic_zeros = True  # the rule sees which tangents are zero (SymbolicZero, or instantiated)


def _custom_jvp_call_batch(vals, dims, *, call, jvp, n_consts):
    vals, size = _to_front(vals, dims)
    n_out = len(call.out_vars)

    def batched_jvp(ps, ts):
        n, live = len(ps), [i for i, t in enumerate(ts) if not isinstance(t, Zero)]

        def both(*zs):
            tangents = [_unbatched_zero(t) for t in ts]
            for i, z in zip(live, zs[n:]):
                tangents[i] = z
            outs, touts = jvp(list(zs[:n]), tangents)
            return list(outs) + [instantiate(t) for t in touts]
        res = vmap_flat(both, list(ps) + [ts[i] for i in live], [0] * (n + len(live)), size, _AllAtZero())
        return res[:n_out], res[n_out:]

    outs = custom_jvp_call_p.bind(*vals, call=_batched_call(call, vals, size), jvp=batched_jvp, n_consts=n_consts)
    return outs, [0] * n_out


custom_jvp_call_p = Primitive("custom_jvp_call", shape_rule=_call_shape, impl=_eval_call_impl, jvp=_custom_jvp_call_jvp,
                              transpose=NONLINEAR, batch=_custom_jvp_call_batch, lower=_lower_call,
                              multiple_results=True, eager_call=_eval_call_eager)


# ---------------------------------------------------------------------------------------------- custom_vjp_call

def _custom_vjp_call_jvp(primals, tangents, *, call, fwd, bwd, n_consts):
    tangents = tangents[n_consts:]
    outs, residuals = fwd(primals[n_consts:], [not isinstance(t, Zero) for t in tangents])
    t_outs = custom_lin_p.bind(*residuals, *[instantiate(t) for t in tangents], num_res=len(residuals), bwd=bwd,
                               out_avals=tuple(get_aval(o) for o in outs))
    return outs, t_outs


_custom_vjp_call_jvp.symbolic_zeros = True  # fwd learns which inputs are perturbed


def _custom_vjp_call_batch(vals, dims, *, call, fwd, bwd, n_consts):
    vals, size = _to_front(vals, dims)
    n_out = len(call.out_vars)

    def batched_fwd(ps, perturbed):
        def both(*zs):
            outs, res = fwd(list(zs), perturbed)
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
                              multiple_results=True, eager_call=_eval_call_eager)


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


# ---------------------------------------------------------------------------------------------- the decorators

def _nondiff_positions(fun, argnums, argnames) -> tuple:
    positions = {int(i) for i in argnums}
    if argnames:
        params = list(inspect.signature(fun).parameters)
        for name in argnames:
            if name not in params:
                raise TypeError(f"nondiff_argnames: {fun.__name__} has no parameter {name!r} (it has {params})")
            positions.add(params.index(name))
    return tuple(sorted(positions))


class _Call:
    """One call of a custom-rule function: its arguments made positional, the non-differentiable ones kept as
    given, the others flattened to leaves."""

    def __init__(self, owner, kind, args, kwargs):
        self.name, self.kind = owner.__name__, kind
        if kwargs:
            try:
                bound = inspect.signature(owner.fun).bind(*args, **kwargs)
            except TypeError as e:
                raise TypeError(f"the arguments of the {kind} function {self.name} could not be bound to its "
                                f"positional parameters: {e}") from None
            bound.apply_defaults()
            if bound.kwargs:
                raise TypeError(f"{kind} function {self.name}: keyword-only parameters {sorted(bound.kwargs)} are not "
                                "supported; make them positional (and list them in nondiff_argnums if static)")
            args = bound.args
        self.args = tuple(args)
        self.nondiff = set(owner.nondiff_argnums)
        out_of_range = [i for i in owner.nondiff_argnums if i >= len(self.args)]
        if out_of_range:
            raise TypeError(f"{kind} function {self.name}: nondiff_argnums {out_of_range} out of range for a call "
                            f"with {len(self.args)} arguments")
        self.static = tuple(self.args[i] for i in owner.nondiff_argnums)
        leaves, self.in_tree = tree_flatten(tuple(a for i, a in enumerate(self.args) if i not in self.nondiff))
        self.vals = [_leaf(x) for x in leaves]
        self.out_tree = None

    def full(self, flat) -> list:
        """All arguments in their order, the differentiable ones taken from `flat`."""
        it = iter(tree_unflatten(self.in_tree, list(flat)))
        return [self.args[i] if i in self.nondiff else next(it) for i in range(len(self.args))]

    def dyn(self, flat) -> tuple:
        """The differentiable arguments (pytrees) made of `flat`."""
        return tuple(tree_unflatten(self.in_tree, list(flat)))

    def set_out_tree(self, tree, who):
        if self.out_tree is None:
            self.out_tree = tree
        elif tree != self.out_tree:
            raise TransformError(f"{who} of {self.kind} function {self.name} returned the structure {tree}, but the "
                                 f"function returns {self.out_tree}")

    def flat_fun(self, fun):
        def run(*xs):
            leaves, tree = tree_flatten(fun(*self.full(xs)))
            self.set_out_tree(tree, "the primal")
            return [_leaf(o) for o in leaves]
        return run

    def runs_plainly(self) -> bool:
        """Eagerly, with no traced argument and nothing to record for the tape: the function just runs."""
        static_leaves = tree_flatten(self.static)[0]
        return (all(untraced_value(v) is not None for v in self.vals)
                and not any(isinstance(x, Tracer) for x in static_leaves))

    def bind(self, prim, fun, **rules):
        """Bind `prim` concretely (outside jit and vmap, every argument with a value) or abstractly."""
        avals = [get_aval(v) for v in self.vals]
        concrete = (current_dynamic_main().level == 0 and not any(m.trace_type is BatchTrace for m in live_mains())
                    and all(is_concrete(v) for v in self.vals))
        if concrete:
            outs = prim.bind(*self.vals, call=_PythonBody(self.flat_fun(fun), avals), n_consts=0, **rules)
        else:
            # under jit or vmap: traced abstractly, as JAX does (the error for Python `if` names this transform)
            prog, consts = trace_to_program(self.flat_fun(fun), avals, transform=f"{self.kind}({self.name})")
            outs = prim.bind(*consts, *self.vals, call=prog, n_consts=len(consts), **rules)
        return tree_unflatten(self.out_tree, outs)


def _pair(out, who):
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TransformError(f"{who} must return a pair (a tuple of two), got {type(out).__name__}: {out!r:.80}")
    return out


class custom_jvp:
    """Give a function a custom JVP rule, used by every transform (grad too, via linearize + transpose).

    As in JAX: ``nondiff_argnums`` / ``nondiff_argnames`` name arguments that are not differentiated (functions,
    flags; their Tensors are treated as constants) and that come first to the rule,
    ``jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)`` with ``primals``/``tangents`` tuples of
    the other arguments. Called outside jit and vmap, the function runs on concrete values.

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

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.jvp = None
        self.symbolic_zeros = False
        self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)

    def defjvp(self, jvp, symbolic_zeros=False):
        """Register ``jvp(*nondiff_args, primals, tangents) -> (primal_out, tangent_out)``. With
        ``symbolic_zeros=True`` the tangent of an input that is not differentiated is a `SymbolicZero`.
        Returns ``jvp``, so it works as a decorator.

        Example:
            >>> import paddle_fn as paddle
            >>> f = paddle.custom_jvp(lambda x: paddle.sin(x))
            >>> _ = f.defjvp(lambda p, t: (f(*p), 2.0 * t[0]))
            >>> paddle.grad(f)(paddle.to_tensor(0.3)).item()
            2.0
        """
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps):
        """Define the JVP one argument at a time: ``jvps[i](t_i, primal_out, *primals)`` is input i's contribution
        to the output tangent; ``None`` means the output does not depend on that input.

        Example:
            >>> import paddle_fn as paddle
            >>> @paddle.custom_jvp
            ... def f(x, y):
            ...     return paddle.sin(x) * y
            >>> f.defjvps(lambda tx, ans, x, y: paddle.cos(x) * tx * y, None)
            >>> [g.item() for g in paddle.grad(f, argnums=(0, 1))(paddle.to_tensor(0.0), paddle.to_tensor(2.0))]
            [2.0, 0.0]
        """
        if self.nondiff_argnums:
            raise TypeError("custom_jvp.defjvps cannot be used with nondiff_argnums; use defjvp")

        def jvp(primals, tangents):
            out = self(*primals)
            terms = [rule(t, out, *primals) for t, rule in zip(tangents, jvps) if rule is not None]
            if not terms:
                return out, tree_map(lambda o: _leaf(o) * 0, out)
            return out, functools.reduce(lambda a, b: tree_map(lambda u, v: u + v, a, b), terms)

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise TransformError(f"custom_jvp function {self.__name__} has no JVP rule; define one with "
                                 f"@{self.__name__}.defjvp")
        call = _Call(self, "custom_jvp", args, kwargs)
        if call.runs_plainly():
            return self.fun(*call.args)
        # non-differentiable arguments are constants of the rule (JAX stops their gradients too)
        call.args = tuple(tree_map(lambda x: stop_gradient(x) if isinstance(x, Tracer) else x, a)
                          if i in call.nondiff else a for i, a in enumerate(call.args))
        call.static = tuple(call.args[i] for i in self.nondiff_argnums)
        rule, symbolic, who = self.jvp, self.symbolic_zeros, f"the JVP rule of custom_jvp function {self.__name__}"

        def flat_jvp(primals, tangents):
            tangents = [_to_symbolic(t) if symbolic else instantiate(t) for t in tangents]
            p_out, t_out = _pair(rule(*call.static, call.dyn(primals), call.dyn(tangents)), who)
            p_leaves, p_tree = tree_flatten(p_out)
            call.set_out_tree(p_tree, "the JVP rule's primal output")
            t_leaves, t_tree = tree_flatten(t_out)
            if t_tree != p_tree:
                raise TransformError(f"{who} returned a tangent of structure {t_tree} for a primal output of "
                                     f"structure {p_tree}")
            p_leaves = [_leaf(p) for p in p_leaves]
            t_leaves = [_from_symbolic(t) if isinstance(t, SymbolicZero) else _leaf(t) for t in t_leaves]
            for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
                if not isinstance(t, Zero) and get_aval(p).shape != get_aval(t).shape:
                    raise TransformError(f"{who}: tangent output {i} has shape {list(get_aval(t).shape)}, its primal "
                                         f"{list(get_aval(p).shape)}; they must match")
            return p_leaves, t_leaves

        return call.bind(custom_jvp_call_p, self.fun, jvp=flat_jvp)


_RESIDUAL_VALUE_TYPES = (Tensor, np.ndarray, np.generic)


class custom_vjp:
    """Give a function a custom reverse-mode rule with ``f.defvjp(fwd, bwd)``.

    As in JAX: ``fwd`` takes the function's arguments and returns ``(output, residuals)``, where residuals are any
    pytree (Tensors, arrays and other Python objects); ``bwd(*nondiff_args, residuals, g)`` returns a tuple with one
    cotangent (or None for zero) per differentiable argument. ``nondiff_argnums`` / ``nondiff_argnames`` name the
    arguments that are not differentiated (functions, flags; they must not be traced values). Called outside jit
    and vmap, the function runs on concrete values; under grad only ``fwd`` runs (once) and then ``bwd``.

    Example:
        >>> import paddle_fn as paddle
        >>> @paddle.custom_vjp
        ... def clip_gradient(x):
        ...     return x
        >>> clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (paddle.clip(g, -1.0, 1.0),))
        >>> paddle.grad(lambda x: (3.0 * clip_gradient(x)).sum())(paddle.to_tensor([2.0])).numpy()
        array([1.], dtype=float32)
    """

    def __init__(self, fun, nondiff_argnums=(), nondiff_argnames=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd = self.bwd = None
        self.symbolic_zeros = self.optimize_remat = False
        self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        """Register the forward and backward rules. ``symbolic_zeros=True``: ``fwd`` receives `CustomVJPPrimal`
        records (value and whether it is perturbed) and ``bwd`` may return `SymbolicZero` or None.
        ``optimize_remat=True``: keep only the inputs for the backward pass and run ``fwd`` again there to get the
        residuals (less memory between the passes, one more forward computation).

        Example:
            >>> import paddle_fn as paddle
            >>> f = paddle.custom_vjp(lambda x: x * x)
            >>> f.defvjp(lambda x: (x * x, x), lambda x, g: (2.0 * x * g,), optimize_remat=True)
            >>> paddle.grad(f)(paddle.to_tensor(3.0)).item()
            6.0
        """
        if symbolic_zeros and optimize_remat:
            raise NotImplementedError("custom_vjp.defvjp: optimize_remat does not support symbolic_zeros (as in JAX)")
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros, self.optimize_remat = symbolic_zeros, optimize_remat

    def __call__(self, *args, **kwargs):
        if self.fwd is None:
            raise TransformError(f"custom_vjp function {self.__name__} has no rule; call "
                                 f"{self.__name__}.defvjp(fwd, bwd)")
        call = _Call(self, "custom_vjp", args, kwargs)
        for i in self.nondiff_argnums:
            if any(isinstance(x, Tracer) for x in tree_flatten(call.args[i])[0]):
                raise TransformError(
                    f"custom_vjp function {self.__name__}: argument {i} is listed in nondiff_argnums but holds a "
                    "traced value. Non-differentiable arguments are for values that are never traced (functions, "
                    "flags); pass Tensors as ordinary arguments and return None as their cotangent from bwd")
        if call.runs_plainly():
            return self.fun(*call.args)
        fwd_user, bwd_user, name = self.fwd, self.bwd, self.__name__
        symbolic, remat = self.symbolic_zeros, self.optimize_remat
        store = {}

        def user_fwd(primals, perturbed):
            if symbolic:
                primals = [CustomVJPPrimal(p, d) for p, d in zip(primals, perturbed)]
            out, res = _pair(fwd_user(*call.full(primals)), f"the fwd rule of custom_vjp function {name}")
            out_leaves, out_tree = tree_flatten(out)
            call.set_out_tree(out_tree, "the fwd rule's primal output")
            return [_leaf(o) for o in out_leaves], res

        def flat_fwd(primals, perturbed):
            outs, res = user_fwd(primals, perturbed)
            if remat:  # keep the inputs only; bwd runs fwd again for the residuals
                store["perturbed"] = perturbed
                return outs, list(primals)
            leaves, store["res_tree"] = tree_flatten(res)
            store["static"] = list(leaves)
            store["value_at"] = [i for i, x in enumerate(leaves) if isinstance(x, _RESIDUAL_VALUE_TYPES)]
            return outs, [_leaf(leaves[i]) for i in store["value_at"]]

        def residuals(values):
            if remat:
                return user_fwd(values, store["perturbed"])[1]
            leaves = list(store["static"])
            for i, v in zip(store["value_at"], values):
                leaves[i] = v
            return tree_unflatten(store["res_tree"], leaves)

        def flat_bwd(res, cts):
            in_cts = bwd_user(*call.static, residuals(res), tree_unflatten(call.out_tree, list(cts)))
            dyn = call.dyn(call.vals)
            if not isinstance(in_cts, (tuple, list)) or len(in_cts) != len(dyn):
                raise TransformError(f"the bwd rule of custom_vjp function {name} must return a tuple with one "
                                     f"cotangent (or None) per differentiable argument ({len(dyn)}), got "
                                     f"{in_cts!r:.80}")
            flat = []
            for k, (arg, c) in enumerate(zip(dyn, in_cts)):
                try:
                    c_leaves = broadcast_prefix(c, arg, is_leaf=lambda x: isinstance(x, SymbolicZero))
                except ValueError:
                    raise TransformError(f"the bwd rule of custom_vjp function {name}: cotangent {k} has structure "
                                         f"{tree_flatten(c)[1]}, its argument {tree_flatten(arg)[1]}") from None
                for a, ct in zip(tree_flatten(arg)[0], c_leaves):
                    if ct is None or isinstance(ct, SymbolicZero):
                        flat.append(instantiate(Zero(get_aval(a))))
                        continue
                    ct = _leaf(ct)
                    if get_aval(ct).shape != get_aval(a).shape:
                        raise TransformError(f"the bwd rule of custom_vjp function {name}: cotangent {k} has shape "
                                             f"{list(get_aval(ct).shape)}, its argument {list(get_aval(a).shape)}")
                    flat.append(ct)
            return flat

        return call.bind(custom_vjp_call_p, self.fun, fwd=flat_fwd, bwd=flat_bwd)
