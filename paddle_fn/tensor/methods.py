"""Install the Tensor API on the `Tensor` class: Python operators, `.T`, `.at`, `.astype()` and a method for
every function whose first argument is a Tensor (``x.sum(axis=0)`` is ``paddle.sum(x, axis=0)``).

Tracers subclass Tensor, so the same methods work on traced values. `install(...)` is idempotent.
"""
from __future__ import annotations

import numbers

import numpy as np

from paddle_fn.core import hooks, tape
from paddle_fn.core.trace import Tensor
from paddle_fn.tensor import (activation, aliases, bitshift, complex_numbers, creation, cumulative, histograms,
                              incomplete_gamma, indexing, inplace, linalg, logic, lowrank, manipulation, math,
                              matrix_functions, nan_stats, pointwise, products, scatters, search, selection, special,
                              stacking, stat, tensor_only)

_METHOD_SOURCES = {
    bitshift: bitshift.__all__,
    cumulative: cumulative.__all__,
    histograms: histograms.__all__,
    incomplete_gamma: incomplete_gamma.__all__,
    lowrank: lowrank.__all__,
    matrix_functions: ["cholesky_inverse", "householder_product", "ormqr"],
    nan_stats: nan_stats.__all__,
    scatters: scatters.__all__,
    special: special.__all__,
    aliases: ["clamp", "div", "mul", "sub", "true_divide", "eq", "ne", "lt", "le", "gt", "ge", "greater", "less",
              "negative", "swapaxes", "swapdims", "permute", "ravel", "matrix_transpose", "reverse", "take_along_dim",
              "msort", "view", "view_as", "as_strided", "masked_fill", "index_add", "reduce_as", "bitwise_invert"],
    math: ["add", "subtract", "multiply", "divide", "floor_divide", "mod", "remainder", "floor_mod", "pow",
           "maximum", "minimum", "scale", "neg", "exp", "log", "log1p", "log2", "log10", "expm1", "sqrt", "rsqrt",
           "square", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
           "asinh", "acosh", "atanh", "sigmoid", "erf", "erfinv", "lgamma", "digamma", "abs", "sign", "floor", "ceil",
           "round", "trunc", "sum", "mean", "max", "min", "amax", "amin", "prod", "all", "any", "logsumexp",
           "cumsum", "cumprod", "clip", "cast", "increment", "lerp", "logit", "rad2deg", "deg2rad", "frac", "fmax",
           "fmin", "nan_to_num", "gcd", "lcm", "nansum", "nanmean", "count_nonzero", "logcumsumexp", "stanh"],
    manipulation: ["reshape", "squeeze", "unsqueeze", "flatten", "transpose", "moveaxis", "diff", "split", "chunk",
                   "unstack", "unbind", "tile", "expand", "expand_as", "broadcast_to", "flip", "roll", "gather",
                   "index_select", "take_along_axis", "where", "nonzero", "strided_slice", "gather_nd", "scatter",
                   "scatter_nd_add", "index_sample", "repeat_interleave", "rot90", "crop", "unique",
                   "unique_consecutive", "slice"],
    linalg: ["matmul", "mm", "bmm", "dot", "t", "diagonal", "trace", "outer", "inner", "addmm", "kron", "cross",
             "dist"],
    products: ["tensordot", "mv", "baddbmm", "block_diag", "combinations", "cdist", "vander", "trapezoid",
               "cumulative_trapezoid", "renorm"],
    search: ["argmax", "argmin", "sort", "argsort", "topk", "kthvalue", "mode", "masked_select", "bucketize", "argwhere"],
    stat: ["var", "std", "median", "quantile", "histogram", "bincount"],
    pointwise: ["logaddexp", "hypot", "heaviside", "sinc", "sgn", "isin", "signbit", "copysign", "frexp", "ldexp",
                "nextafter", "isposinf", "isneginf", "isreal"],
    selection: ["take", "index_fill", "shard_index"],
    stacking: ["unfold", "tensor_split", "hsplit", "vsplit", "dsplit", "unflatten", "narrow", "atleast_1d", "atleast_2d",
               "atleast_3d"],
    logic: ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal", "logical_and",
            "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
            "isnan", "isinf", "isfinite", "isclose", "allclose", "equal_all", "is_floating_point", "is_integer",
            "is_empty", "rank"],
    creation: ["clone", "tril", "triu", "diag", "diagflat", "diag_embed", "zeros_like", "ones_like", "full_like", "empty_like"],
    activation: ["relu", "relu6", "gelu", "silu", "softplus", "leaky_relu", "elu", "softmax", "log_softmax"],
    complex_numbers: ["real", "imag", "conj", "angle", "as_complex", "as_real", "is_complex"],
}


_OPERAND_TYPES = (Tensor, np.ndarray, np.generic, numbers.Number)


def _binary(fn):
    """A binary operator; other operand types get NotImplemented, so Python tries theirs (and `==` with an
    unrelated object is False instead of an error)."""
    def method(self, other):
        return fn(self, other) if isinstance(other, _OPERAND_TYPES) else NotImplemented
    return method


def _reflected(fn):
    def method(self, other):
        return fn(other, self) if isinstance(other, _OPERAND_TYPES) else NotImplemented
    return method


def _require_int_or_bool(op, fn):
    def method(self, *args):
        if self.dtype.kind not in "biu":
            raise TypeError(f"unsupported operand dtype for {op}: {self.dtype.name} (bitwise operators need a bool "
                            "or integer Tensor)")
        return fn(self, *args)
    return method


def _bitwise(op_bool, op_int):
    """`&`, `|`, `^` and `~` mean logical ops on bool Tensors and bitwise ops on integer Tensors."""
    def method(self, *args):
        return (op_bool if self.dtype.kind == "b" else op_int)(self, *args)
    return method


def _operators():
    m, lg = math, logic
    ops = {
        "__add__": _binary(m.add), "__radd__": _reflected(m.add),
        "__sub__": _binary(m.subtract), "__rsub__": _reflected(m.subtract),
        "__mul__": _binary(m.multiply), "__rmul__": _reflected(m.multiply),
        "__truediv__": _binary(m.divide), "__rtruediv__": _reflected(m.divide),
        "__floordiv__": _binary(m.floor_divide), "__rfloordiv__": _reflected(m.floor_divide),
        "__mod__": _binary(m.mod), "__rmod__": _reflected(m.mod),
        "__pow__": _binary(m.pow), "__rpow__": _reflected(m.pow),
        "__matmul__": _binary(linalg.matmul), "__rmatmul__": _reflected(linalg.matmul),
        "__eq__": _binary(lg.equal), "__ne__": _binary(lg.not_equal), "__lt__": _binary(lg.less_than),
        "__le__": _binary(lg.less_equal), "__gt__": _binary(lg.greater_than), "__ge__": _binary(lg.greater_equal),
        "__neg__": m.neg, "__pos__": lambda self: self, "__abs__": m.abs,
        "__invert__": _require_int_or_bool("~", _bitwise(lg.logical_not, lg.bitwise_not)),
        "__and__": _binary(_require_int_or_bool("&", _bitwise(lg.logical_and, lg.bitwise_and))),
        "__or__": _binary(_require_int_or_bool("|", _bitwise(lg.logical_or, lg.bitwise_or))),
        "__xor__": _binary(_require_int_or_bool("^", _bitwise(lg.logical_xor, lg.bitwise_xor))),
        "__getitem__": indexing.getitem,
    }
    for name in ("and", "or", "xor"):  # commutative
        ops[f"__r{name}__"] = ops[f"__{name}__"]
    return ops


def _astype(self, dtype):
    """Return a copy converted to `dtype` (same as ``paddle.cast(x, dtype)``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([1.5]).astype('int32').numpy()
        array([1], dtype=int32)
    """
    return math.cast(self, dtype)


def _transposed(self):
    """All dimensions reversed (``x.T``)."""
    n = self.ndim
    return manipulation.transpose(self, list(range(n - 1, -1, -1))) if n > 1 else self


def _block_until_ready(self):
    """This Tensor, once its value is computed (``jax.Array.block_until_ready``). Eager ops and jitted calls return
    after computing (IREE runs a program synchronously); what it waits for is the compiles jit runs in the
    background, so that the calls after it run executables (see docs/jit.md on timing).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.jit(paddle.cos)(paddle.zeros([2])).block_until_ready().tolist()
        [1.0, 1.0]
    """
    wait = hooks.OPS.get("wait_for_background_compiles")
    if wait is not None:
        wait()
    return self


def _deferred_method(name, target, load):
    """The method `name` calling the function `target` ("module:attribute") of a namespace above this layer, which
    `load` imports on the method's first call."""
    module, _, attribute = target.partition(":")

    def method(self, *args, **kwargs):
        return load(target)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{module.replace('paddle_fn', 'paddle')}.{attribute}(x, ...)`` as a method of x."
    method.deferred_target = target  # what it forwards to, for signature checks (tests/test_paddle_signatures.py)
    return method


def install(deferred: dict, load):
    """Attach operators and methods to `Tensor` (and so to every Tracer). `deferred` names the methods whose
    functions live in namespaces that load on first use (method name -> "module:attribute"); `load(target)` imports
    one (the root's loader: this layer may not import those namespaces)."""
    for name, target in deferred.items():
        setattr(Tensor, name, _deferred_method(name, target, load))
    for module, names in _METHOD_SOURCES.items():
        for name in names:
            setattr(Tensor, name, getattr(module, name))
    for name, fn in _operators().items():
        setattr(Tensor, name, fn)
    Tensor.astype = _astype
    Tensor.block_until_ready = _block_until_ready
    Tensor.T = property(_transposed)
    Tensor.at = property(indexing.at)
    inplace.install()
    tensor_only.install()
    tape.install()
