"""Argument handling shared by the transforms: leaf conversion, argnums, pytree checks, and `flatten_fun`, the one
wrapper turning a function of pytrees into the function of flat leaves the core's machinery traces."""
from __future__ import annotations

import inspect

import numpy as np
import optree

from paddle_fn.core import dtypes
from paddle_fn.core.errors import TransformError
from paddle_fn.core.pytree import NAMESPACE, tree_flatten
from paddle_fn.core.trace import Tensor


def as_leaf(x, what: str):
    """Turn a pytree leaf into a Tensor (Python scalars keep 0-d shape; floats take the default float dtype)."""
    if isinstance(x, Tensor):
        return x.resolve()
    if isinstance(x, (bool, int, float, np.bool_, np.number)) and not isinstance(x, np.ndarray):
        return Tensor(np.asarray(x, dtype=dtypes.dtype_of_scalar(x).np))
    if isinstance(x, np.ndarray):
        dtypes.as_dtype(x.dtype)
        return Tensor(x)
    if isinstance(x, (list, tuple)):
        raise TransformError(f"{what}: got a {type(x).__name__} where a Tensor leaf was expected")
    raise TransformError(f"{what}: {type(x).__name__} is not a valid argument; pass Tensors, numpy arrays or Python "
                         "scalars (in any pytree of tuples, lists and dicts)")


def normalize_argnums(argnums, nargs: int, transform: str):
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)
    if not nums:
        raise TransformError(f"{transform}: argnums is empty; give at least one argument position to differentiate")
    out = []
    for a in nums:
        if not isinstance(a, int):
            raise TransformError(f"{transform}: argnums must be ints, got {a!r}")
        if not -nargs <= a < nargs:
            raise TransformError(f"{transform}: argnums {a} is out of range: the function was called with {nargs} "
                                 "positional argument(s)")
        out.append(a % nargs)
    return single, tuple(out)


_KIND_WORDS = {"f": "a real floating-point", "c": "a complex", "fc": "a floating-point or complex"}


def _holomorphic_hint(allowed: str) -> str:
    if allowed == "c":
        return "holomorphic=True differentiates complex functions of complex inputs"
    return ("for a holomorphic function of complex numbers pass holomorphic=True; for a non-holomorphic one with "
            "complex outputs use vjp (or jvp) directly")


def check_input_dtype(what: str, i: int, aval, allowed: str, *, takes_allow_int: bool = False) -> None:
    """A differentiated input of a kind in `allowed` ('f', 'c' or 'fc'), else JAX's error, naming the fix (and
    ``allow_int=True`` where the transform takes it)."""
    kind = aval.dtype.kind
    if kind in allowed:
        return
    start = f"{what}: differentiated input {i} ({aval.str_short()}) has dtype {aval.dtype.name}"
    if kind not in "fc":
        fixes = ("Cast it with .astype('float32'), leave it out of argnums, or pass allow_int=True for a zero "
                 "gradient" if takes_allow_int else "Cast it with .astype('float32') or leave it out of argnums")
        raise TransformError(f"{start}; {what.split('(')[0]} needs floating-point inputs. {fixes}")
    raise TransformError(f"{start}; it needs {_KIND_WORDS[allowed]} dtype ({_holomorphic_hint(allowed)})")


def check_output_dtype(what: str, aval, allowed: str) -> None:
    """A differentiated output of a kind in `allowed` ('f' or 'c'), else JAX's error, naming the fix."""
    if aval.dtype.kind not in allowed:
        raise TransformError(f"{what}: the output has dtype {aval.dtype.name}; it needs {_KIND_WORDS[allowed]} "
                             f"output ({_holomorphic_hint(allowed)})")


def fun_name(f) -> str:
    return getattr(f, "__name__", type(f).__name__)


def leaf_names(fun, args, kwargs):
    """Readable names for the leaves of (args, kwargs): the parameter name plus the path inside it."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    # positional parameters up to the first *args can name arguments; later ones are args[i]
    named = []
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            break
        named.append(p.name)
    paths, _, _ = optree.tree_flatten_with_path((tuple(args), kwargs), none_is_leaf=False, namespace=NAMESPACE)
    names = []
    for path in paths:
        (where, key), rest = path[:2], path[2:]
        if where == 0:
            base = named[key] if key < len(named) else f"args[{key}]"
        else:
            base = str(key)
        names.append(base + "".join(f"[{p!r}]" for p in rest))
    return names


def merge_static_args(dyn_args, dyn_kwargs, statics, static_pos, n_args):
    """(args, kwargs) of a call: the dynamic arguments with the static values put back, `statics` holding
    (position or keyword, value) pairs and `static_pos` the static positions among `n_args`."""
    it, static_map = iter(dyn_args), dict(statics)
    args = [static_map[i] if i in static_pos else next(it) for i in range(n_args)]
    kwargs = dict(dyn_kwargs)
    kwargs.update({k: v for k, v in statics if isinstance(k, str)})
    return args, kwargs


def split_aux(out, has_aux: bool, what: str):
    """(output, aux) of a function's result: the pair it returns with `has_aux`, else (result, None)."""
    if not has_aux:
        return out, None
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TransformError(f"{what}: has_aux=True requires the function to return a pair (output, aux), got "
                             f"{type(out).__name__}")
    return out[0], out[1]


class FlatOutput:
    """What the function behind a `flatten_fun` returned on its last call: its output's tree structure, leaf
    count and value (the value for matching out_axes against its structure), and its aux's tree structure."""
    __slots__ = ("tree", "n_out", "value", "aux_tree")


def flatten_fun(func, unflatten_args, *, what: str, has_aux: bool = False):
    """(flat_fun, out): flat_fun(*leaves) calls ``func(*args, **kwargs)`` with ``(args, kwargs) =
    unflatten_args(leaves)`` and returns its output's leaves, then its aux's with `has_aux`, as Tensors; `out`, a
    FlatOutput, says what the last call returned. `what` names the transform and the function in errors, as
    ``jit(f)``."""
    out = FlatOutput()

    def flat_fun(*leaves):
        args, kwargs = unflatten_args(list(leaves))
        value, aux = split_aux(func(*args, **kwargs), has_aux, what)
        out_leaves, out.tree = tree_flatten(value)
        aux_leaves, out.aux_tree = tree_flatten(aux)
        out.n_out, out.value = len(out_leaves), value
        return [as_leaf(o, f"{what} output") for o in out_leaves] + [as_leaf(a, f"{what} aux") for a in aux_leaves]
    return flat_fun, out
