"""`paddle.sparse`'s elementwise functions: each applies the dense function to the stored values and keeps the
pattern (Paddle's functions all map 0 to 0, so the zeros that are not stored stay zeros)."""
from __future__ import annotations

import paddle_fn.tensor as T
from paddle_fn.core import dtypes
from paddle_fn.sparse.tensor import SparseTensor

__all__ = ["sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "abs", "pow",
           "cast", "neg", "deg2rad", "rad2deg", "expm1", "isnan"]


def check_sparse(op: str, x) -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"paddle.sparse.{op}: expects a sparse Tensor (SparseCooTensor or SparseCsrTensor), got "
                        f"{type(x).__name__}; convert a dense one with x.to_sparse_coo(sparse_dim) or "
                        "x.to_sparse_csr()")
    return x


def map_values(op: str, fn, x, *args, **kwargs) -> SparseTensor:
    """`x` with `fn(values, *args, **kwargs)` as its values (same pattern)."""
    x = check_sparse(op, x)
    return x._with_values(fn(x.values(), *args, **kwargs))


def _float_values(v):
    """Paddle's sparse functions compute integer inputs in the default float type (deg2rad of int64 is float32)."""
    return v if v.dtype.kind in "fc" else T.cast(v, dtypes.get_default_dtype())


def _unary(name, dense, doc_values):
    def fn(x, name=None):
        return map_values(fn.__name__, dense, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"`paddle.{name}` of the stored values of sparse `x` (COO or CSR); the pattern is kept.\n\n"
                  "    Example:\n"
                  "        >>> import paddle_fn as paddle\n"
                  "        >>> x = paddle.to_tensor([-2., 0., 1.]).to_sparse_coo(1)\n"
                  f"        >>> paddle.sparse.{name}(x).values().numpy()\n"
                  f"        {doc_values}\n")
    return fn


# the values for the stored -2. and 1., as paddle_fn's float32 functions give them
sin = _unary("sin", T.sin, "array([-0.9092974,  0.841471 ], dtype=float32)")
tan = _unary("tan", T.tan, "array([2.18504  , 1.5574077], dtype=float32)")
asin = _unary("asin", T.asin, "array([      nan, 1.5707964], dtype=float32)")
atan = _unary("atan", T.atan, "array([-1.1071488,  0.7853982], dtype=float32)")
sinh = _unary("sinh", T.sinh, "array([-3.6268604,  1.1752012], dtype=float32)")
tanh = _unary("tanh", T.tanh, "array([-0.9640276,  0.7615942], dtype=float32)")
asinh = _unary("asinh", T.asinh, "array([-1.4436355 ,  0.88137364], dtype=float32)")
atanh = _unary("atanh", T.atanh, "array([nan, inf], dtype=float32)")
sqrt = _unary("sqrt", T.sqrt, "array([nan,  1.], dtype=float32)")
square = _unary("square", T.square, "array([4., 1.], dtype=float32)")
log1p = _unary("log1p", T.log1p, "array([       nan, 0.69314718], dtype=float32)")
abs = _unary("abs", T.abs, "array([2., 1.], dtype=float32)")  # noqa: A001 - Paddle's name
neg = _unary("neg", T.neg, "array([ 2., -1.], dtype=float32)")
expm1 = _unary("expm1", T.expm1, "array([-0.86466473,  1.7182817 ], dtype=float32)")
deg2rad = _unary("deg2rad", lambda v: T.deg2rad(_float_values(v)), "array([-0.03490659,  0.01745329], dtype=float32)")
rad2deg = _unary("rad2deg", lambda v: T.rad2deg(_float_values(v)), "array([-114.59156,   57.29578], dtype=float32)")


def isnan(x, name=None):
    """Whether each stored value of sparse `x` is NaN (a bool sparse Tensor of the same pattern).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[0., float('nan')], [1., 0.]]).to_sparse_coo(2)
        >>> paddle.sparse.isnan(x).values().numpy()
        array([ True, False])
    """
    return map_values("isnan", T.isnan, x)


def pow(x, factor, name=None):  # noqa: A001 - Paddle's name
    """The stored values of sparse `x` raised to the power `factor` (a number).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2., 0., 3.]).to_sparse_coo(1)
        >>> paddle.sparse.pow(x, 2).values().numpy()
        array([4., 9.], dtype=float32)
    """
    return map_values("pow", T.pow, x, factor)


def cast(x, index_dtype=None, value_dtype=None, name=None):
    """Sparse `x` with its indices (COO `indices`, CSR `crows`/`cols`) cast to `index_dtype` and its values to
    `value_dtype` (None keeps each).

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([-2, 0, 1]).to_sparse_coo(1)
        >>> out = paddle.sparse.cast(x, 'int32', 'float64')
        >>> out.indices().dtype, out.values().numpy()
        (paddle.int32, array([-2.,  1.]))
    """
    x = check_sparse("cast", x)
    values = x.values() if value_dtype is None else T.cast(x.values(), value_dtype)
    out = x._with_values(values)
    if index_dtype is not None:
        out = out._with_index_dtype(dtypes.as_dtype(index_dtype))
    return out
