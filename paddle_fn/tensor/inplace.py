"""Paddle's in-place Tensor methods, functionalized.

``x.add_(y)``, ``x.scale_(2)``, ``x.zero_()``, ``x[i] = v``, ``x.set_value(v)`` compute the new value with the
ordinary (pure) op and then rebind the handle `x` to it (`Tensor._rebind`). No buffer is ever written, so a value
held elsewhere — another Tensor, a jit cache, an autodiff residual — never changes, and under grad/vmap/jit the
update is traced as the pure op it is. The one visible difference from Paddle: a jitted function that updates its
input in place does not change the caller's Tensor (the function sees a traced copy); return the new value.
"""
from __future__ import annotations

import inspect

from paddle_fn.core.errors import ShapeError
from paddle_fn.core.trace import Tensor, Tracer, get_aval
from paddle_fn.random import paddle_normal, paddle_uniform
from paddle_fn.tensor import (activation, aliases, bitshift, creation, incomplete_gamma, linalg, logic, manipulation,
                              math, pointwise, products, scatters, selection, special)

def _without_out(fn):
    """The binary `fn` without its positional `out` (an in-place op writes to x)."""
    def binary(x, y, name=None):
        return fn(x, y)
    binary.__name__ = fn.__name__
    return binary


def _without_out_unary(fn):
    """The unary `fn` without its positional `out`."""
    def unary(x, name=None):
        return fn(x)
    unary.__name__ = fn.__name__
    return unary


# in-place name -> the out-of-place function; the elementwise ones must keep the shape, the reshaping ones change it
_ELEMENTWISE = {
    **{name: getattr(math, name) for name in (
        "add", "subtract", "multiply", "divide", "scale", "clip", "ceil", "floor", "exp", "sqrt", "rsqrt",
        "reciprocal", "round", "tanh", "abs", "sin", "cos", "sigmoid", "erfinv", "lerp", "pow", "remainder",
        "floor_divide", "maximum", "minimum", "neg", "log", "square", "sign", "trunc", "acos", "acosh", "asin",
        "asinh", "atan", "atanh", "cosh", "sinh", "tan", "cumprod", "cumsum", "digamma", "lgamma", "erf", "expm1",
        "frac", "gcd", "lcm", "log10", "log1p", "log2", "logit", "nan_to_num", "mod", "floor_mod")},
    **{name: getattr(pointwise, name) for name in ("copysign", "hypot", "ldexp", "sinc")},
    # Paddle's in-place bitwise ops take (x, y, name) / (x, name): no `out` between
    **{name: _without_out(getattr(logic, name)) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "bitwise_not": _without_out_unary(logic.bitwise_not),
    **{name: getattr(aliases, name) for name in ("div", "mul", "sub", "masked_fill", "index_add")},
    "bitwise_invert": _without_out_unary(aliases.bitwise_invert),
    **{name: getattr(manipulation, name) for name in ("scatter", "where")},
    **{name: getattr(creation, name) for name in ("tril", "triu")},
    **{name: getattr(special, name) for name in special.__all__},
    **{name: getattr(incomplete_gamma, name) for name in incomplete_gamma.__all__},
    **{name: getattr(scatters, name) for name in ("index_put", "masked_scatter", "scatter_add", "scatter_reduce",
                                                   "put_along_axis")},
    **{name: getattr(bitshift, name) for name in bitshift.__all__},
    "addmm": linalg.addmm, "baddbmm": products.baddbmm, "renorm": products.renorm, "index_fill": selection.index_fill,
    "relu": activation.relu,
}
_RESHAPING = {name: getattr(manipulation, name) for name in ("reshape", "squeeze", "unsqueeze", "flatten", "transpose")}
_RESHAPING["t"] = linalg.t
# comparisons and logical ops in place turn the Tensor into a bool one, as in Paddle 3.3
_RETYPING = {name: getattr(logic, name) for name in (
    "equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal", "logical_and", "logical_or",
    "logical_xor", "logical_not")}
_RETYPING.update(less=logic.less_than, cast=math.cast)


def _check_same(x, new, name):
    a, b = get_aval(x), get_aval(new)
    if a.shape != b.shape:
        raise ShapeError(f"{name}_: the result has shape {list(b.shape)} but the in-place Tensor has shape "
                         f"{list(a.shape)}; an in-place op cannot change the shape (use the out-of-place {name})")
    if a.dtype != b.dtype:
        new = new.astype(a.dtype)
    return new


def make_inplace(name, fn, keep_shape):
    def method(self, *args, **kwargs):
        new = fn(self, *args, **kwargs)
        if keep_shape:
            new = _check_same(self, new, name)
        self._rebind(new)
        return self
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__signature__ = inspect.signature(fn)  # it forwards every argument to fn
    method.__doc__ = (f"In-place ``{name}``: ``x.{name}_(...)`` rebinds x to ``paddle.{name}(x, ...)`` and returns x "
                      "(values are never written; see paddle_fn.tensor.inplace).")
    return method


def zero_(self):
    """Set every element to 0 (in place: rebinds x to a zero Tensor of its shape and dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([1.0, 2.0])
        >>> x.zero_().numpy()
        array([0., 0.], dtype=float32)
    """
    self._rebind(creation.zeros_like(self))
    return self


def fill_(self, value):
    """Set every element to `value` (in place).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.to_tensor([1, 2]).fill_(7).numpy()
        array([7, 7])
    """
    self._rebind(creation.full_like(self, value))
    return self


def set_value(self, value):
    """Replace the value with `value` (a Tensor, numpy array or nested list of the same shape), keeping the dtype.

    Eagerly this copies the value without gradient history, as Paddle does (``layer.weight.set_value(w * 2)`` is
    allowed on a trainable parameter).

    Example:
        >>> import paddle_fn as paddle
        >>> w = paddle.zeros([2])
        >>> w.set_value([3.0, 4.0]); w.numpy()
        array([3., 4.], dtype=float32)
    """
    new = value if isinstance(value, Tensor) else creation.to_tensor(value, dtype=get_aval(self).dtype)
    a, b = get_aval(self), get_aval(new)
    if a.shape != b.shape:
        raise ShapeError(f"set_value: the new value has shape {list(b.shape)} but the Tensor has shape "
                         f"{list(a.shape)}")
    new = new if b.dtype == a.dtype else new.astype(a.dtype)
    # eagerly a copy of the value, as in Paddle: no gradient flows through set_value and a trainable leaf
    # (a Parameter) stays a leaf; under a transform the update stays traced
    self._rebind(new if isinstance(new, Tracer) else new.detach())


def setitem(self, index, value):
    """``x[index] = value``: rebinds x to ``x.at[index].set(value)`` (so it is differentiable and traceable)."""
    self._rebind(self.at[index].set(value))


def _uniform_like(self):
    a = get_aval(self)
    return paddle_uniform(list(a.shape), dtype=a.dtype, min=0.0, max=1.0)


def uniform_(self, min=0, max=1.0, seed=0, name=None):  # noqa: A002 - Paddle's names
    """Fill with uniform random numbers in [min, max) (in place; [0, 1) by default, as Paddle 3.3), drawn from the
    global seed unless `seed` != 0."""
    a = get_aval(self)
    self._rebind(paddle_uniform(list(a.shape), dtype=a.dtype, min=min, max=max, seed=seed))
    return self


def exponential_(self, lam=1.0, name=None):
    """Fill with exponentially distributed random numbers of rate `lam` (in place), from the global seed."""
    self._rebind(-math.log1p(-_uniform_like(self)) / lam)
    return self


def normal_(self, mean=0.0, std=1.0, name=None):
    """Fill with normal random numbers of mean `mean` and standard deviation `std` (in place), from the global seed.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([1000], dtype="float64").normal_(mean=2.0, std=0.5)
        >>> bool(abs(x.mean().item() - 2.0) < 0.1 and abs(x.std().item() - 0.5) < 0.1)
        True
    """
    a = get_aval(self)
    self._rebind(paddle_normal(mean, std, list(a.shape)).astype(a.dtype))
    return self


def log_normal_(self, mean=1.0, std=2.0, name=None):
    """Fill with log-normal random numbers: ``exp`` of normal ones of mean `mean` and deviation `std` (in place).

    Example:
        >>> import paddle_fn as paddle
        >>> bool((paddle.zeros([100]).log_normal_() > 0).all())
        True
    """
    a = get_aval(self)
    self._rebind(math.exp(paddle_normal(mean, std, list(a.shape))).astype(a.dtype))
    return self


def bernoulli_(self, p=0.5, name=None):
    """Fill with 1 where a uniform draw falls below `p` (a number or a Tensor broadcast to this one), else 0.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([1000]).bernoulli_(0.25)
        >>> bool(abs(x.mean().item() - 0.25) < 0.05)
        True
    """
    a = get_aval(self)
    self._rebind(logic.less_than(_uniform_like(self), p).astype(a.dtype))
    return self


def cauchy_(self, loc=0, scale=1, name=None):
    """Fill with Cauchy random numbers of location `loc` and scale `scale`: ``loc + scale * tan(pi * (u - 1/2))``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.zeros([3]).cauchy_(loc=1.0, scale=2.0).shape
        paddle.Size([3])
    """
    self._rebind(loc + scale * math.tan(3.141592653589793 * (_uniform_like(self) - 0.5)))
    return self


def geometric_(self, probs, name=None):
    """Fill with the number of Bernoulli(`probs`) trials up to and including the first success (1, 2, ...), as
    Paddle's ``geometric_``: ``ceil(log(1 - u) / log(1 - probs))``.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.zeros([2000], dtype="float64").geometric_(0.5)
        >>> bool(x.min().item() >= 1 and abs(x.mean().item() - 2.0) < 0.2)
        True
    """
    a = get_aval(self)
    trials = math.ceil(math.log1p(-_uniform_like(self)) / math.log1p(-creation.to_tensor(probs, dtype=a.dtype)))
    self._rebind(math.maximum(trials, creation.ones_like(trials)).astype(a.dtype))
    return self


_METHODS = {**{f"{name}_": make_inplace(name, fn, keep_shape=True) for name, fn in _ELEMENTWISE.items()},
            **{f"{name}_": make_inplace(name, fn, keep_shape=False) for name, fn in {**_RESHAPING, **_RETYPING}.items()}}

# Paddle 3.3 also exports the in-place forms as functions of the Tensor they update (``paddle.abs_(x)`` is
# ``x.abs_()``): the same callables, bound here by name so the API reference finds them. (`where_` updates
# its second argument, so it stays a method.)
abs_ = _METHODS["abs_"]
acos_ = _METHODS["acos_"]
addmm_ = _METHODS["addmm_"]
atan_ = _METHODS["atan_"]
baddbmm_ = _METHODS["baddbmm_"]
bitwise_and_ = _METHODS["bitwise_and_"]
bitwise_invert_ = _METHODS["bitwise_invert_"]
bitwise_not_ = _METHODS["bitwise_not_"]
bitwise_or_ = _METHODS["bitwise_or_"]
bitwise_xor_ = _METHODS["bitwise_xor_"]
cast_ = _METHODS["cast_"]
copysign_ = _METHODS["copysign_"]
cos_ = _METHODS["cos_"]
cumprod_ = _METHODS["cumprod_"]
cumsum_ = _METHODS["cumsum_"]
digamma_ = _METHODS["digamma_"]
div_ = _METHODS["div_"]
divide_ = _METHODS["divide_"]
equal_ = _METHODS["equal_"]
erf_ = _METHODS["erf_"]
expm1_ = _METHODS["expm1_"]
flatten_ = _METHODS["flatten_"]
floor_divide_ = _METHODS["floor_divide_"]
floor_mod_ = _METHODS["floor_mod_"]
frac_ = _METHODS["frac_"]
gcd_ = _METHODS["gcd_"]
greater_equal_ = _METHODS["greater_equal_"]
greater_than_ = _METHODS["greater_than_"]
hypot_ = _METHODS["hypot_"]
index_add_ = _METHODS["index_add_"]
index_fill_ = _METHODS["index_fill_"]
lcm_ = _METHODS["lcm_"]
ldexp_ = _METHODS["ldexp_"]
less_ = _METHODS["less_"]
less_equal_ = _METHODS["less_equal_"]
less_than_ = _METHODS["less_than_"]
lgamma_ = _METHODS["lgamma_"]
log10_ = _METHODS["log10_"]
log2_ = _METHODS["log2_"]
log_ = _METHODS["log_"]
logical_and_ = _METHODS["logical_and_"]
logical_not_ = _METHODS["logical_not_"]
logical_or_ = _METHODS["logical_or_"]
logit_ = _METHODS["logit_"]
masked_fill_ = _METHODS["masked_fill_"]
mod_ = _METHODS["mod_"]
multiply_ = _METHODS["multiply_"]
nan_to_num_ = _METHODS["nan_to_num_"]
neg_ = _METHODS["neg_"]
pow_ = _METHODS["pow_"]
remainder_ = _METHODS["remainder_"]
reshape_ = _METHODS["reshape_"]
scatter_ = _METHODS["scatter_"]
sin_ = _METHODS["sin_"]
sinc_ = _METHODS["sinc_"]
sinh_ = _METHODS["sinh_"]
square_ = _METHODS["square_"]
squeeze_ = _METHODS["squeeze_"]
sub_ = _METHODS["sub_"]
subtract_ = _METHODS["subtract_"]
t_ = _METHODS["t_"]
tan_ = _METHODS["tan_"]
tanh_ = _METHODS["tanh_"]
transpose_ = _METHODS["transpose_"]
tril_ = _METHODS["tril_"]
triu_ = _METHODS["triu_"]
trunc_ = _METHODS["trunc_"]
unsqueeze_ = _METHODS["unsqueeze_"]
gammaln_ = _METHODS["gammaln_"]
i0_ = _METHODS["i0_"]
polygamma_ = _METHODS["polygamma_"]
multigammaln_ = _METHODS["multigammaln_"]
index_put_ = _METHODS["index_put_"]
masked_scatter_ = _METHODS["masked_scatter_"]
scatter_add_ = _METHODS["scatter_add_"]
renorm_ = _METHODS["renorm_"]
bitwise_left_shift_ = _METHODS["bitwise_left_shift_"]
bitwise_right_shift_ = _METHODS["bitwise_right_shift_"]
gammainc_ = _METHODS["gammainc_"]
gammaincc_ = _METHODS["gammaincc_"]
__all__ = ["abs_", "acos_", "addmm_", "atan_", "baddbmm_", "bitwise_and_", "bitwise_invert_", "bitwise_not_",
           "bitwise_or_", "bitwise_xor_", "cast_", "copysign_", "cos_", "cumprod_", "cumsum_", "digamma_", "div_",
           "divide_", "equal_", "erf_", "expm1_", "flatten_", "floor_divide_", "floor_mod_", "frac_", "gcd_",
           "greater_equal_", "greater_than_", "hypot_", "index_add_", "index_fill_", "lcm_", "ldexp_", "less_",
           "less_equal_", "less_than_", "lgamma_", "log10_", "log2_", "log_", "logical_and_", "logical_not_",
           "logical_or_", "logit_", "masked_fill_", "mod_", "multiply_", "nan_to_num_", "neg_", "pow_",
           "remainder_", "reshape_", "scatter_", "sin_", "sinc_", "sinh_", "square_", "squeeze_", "sub_",
           "subtract_", "t_", "tan_", "tanh_", "transpose_", "tril_", "triu_", "trunc_", "unsqueeze_", "gammaln_",
           "i0_", "polygamma_", "multigammaln_", "index_put_", "masked_scatter_", "scatter_add_", "renorm_",
           "bitwise_left_shift_", "bitwise_right_shift_", "gammainc_", "gammaincc_"]


def install():
    """Attach the in-place methods to Tensor (called by paddle_fn at import)."""
    for name, method in _METHODS.items():
        setattr(Tensor, name, method)
    for fn in (zero_, fill_, set_value, uniform_, exponential_, normal_, log_normal_, bernoulli_, cauchy_, geometric_):
        setattr(Tensor, fn.__name__, fn)
    Tensor.__setitem__ = setitem
