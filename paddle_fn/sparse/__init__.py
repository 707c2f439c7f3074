"""`paddle.sparse`: COO and CSR sparse Tensors and the operations on them (docs/sparse.md).

Sparse Tensors are pytrees of dense index and value Tensors with a static shape (`paddle_fn.sparse.tensor`), and
every operation is written with the dense Tensor API, so `grad`, `vmap` and `jit` apply to them unchanged.
"""
from paddle_fn.sparse import nn  # noqa: F401
from paddle_fn.sparse.binary import add, divide, is_same_shape, mask_as, multiply, subtract
from paddle_fn.sparse.manipulation import reshape, slice, sum, transpose  # noqa: A004
from paddle_fn.sparse.pca import pca_lowrank
from paddle_fn.sparse.products import addmm, masked_matmul, matmul, mv
from paddle_fn.sparse.tensor import (
    SparseCooTensor, SparseCsrTensor, SparseTensor, coalesce, sparse_coo_tensor, sparse_csr_tensor)
from paddle_fn.sparse.unary import (  # noqa: A004
    abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, isnan, log1p, neg, pow, rad2deg, sin, sinh, sqrt, square,
    tan, tanh)

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh",
           "sqrt", "square", "log1p", "abs", "pow", "pca_lowrank", "cast", "neg", "deg2rad", "rad2deg", "expm1", "mv",
           "matmul", "mask_as", "masked_matmul", "addmm", "add", "subtract", "transpose", "sum", "multiply", "divide",
           "coalesce", "is_same_shape", "reshape", "isnan", "slice", "SparseCooTensor", "SparseCsrTensor"]


def _install_methods():
    """Paddle's methods and operators of sparse Tensors: the functions above, with the Tensor first."""
    for name in ("sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt", "square", "log1p", "abs",
                 "pow", "neg", "deg2rad", "rad2deg", "expm1", "isnan", "cast", "transpose", "sum", "reshape",
                 "add", "subtract", "multiply", "divide", "matmul", "mv"):
        setattr(SparseTensor, name, globals()[name])
    SparseTensor.__add__ = add
    SparseTensor.__radd__ = lambda x, y: add(y, x)
    SparseTensor.__sub__ = subtract
    SparseTensor.__rsub__ = lambda x, y: subtract(y, x)
    SparseTensor.__mul__ = SparseTensor.__rmul__ = multiply
    SparseTensor.__truediv__ = divide
    SparseTensor.__matmul__ = matmul


_install_methods()
