"""Argument handling shared by the transforms: leaf conversion, argnums, pytree checks."""
from __future__ import annotations

import inspect

import numpy as np
import optree

from paddle_fn.core import dtypes
from paddle_fn.core.errors import TransformError
from paddle_fn.core.pytree import NAMESPACE
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
