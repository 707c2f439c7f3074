"""Complex numbers taken apart and put together: real, imag, conj, angle, complex, polar, as_complex, as_real and
is_complex, as Paddle 3.3 has them (paddle.tensor.attribute, .math, .creation and .manipulation).

Derivatives follow the primitives' conventions (prims/complex_parts.py): JAX's under the functional transforms,
Paddle's on the eager tape; docs/complex.md compares them.
"""
from __future__ import annotations

import math

from paddle_fn.core.errors import DTypeError, ShapeError
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import structural as st
from paddle_fn.tensor._util import accepts_out, write_out
from paddle_fn.tensor.promotion import as_tensor, binary_operands, float_operand

__all__ = ["real", "imag", "conj", "angle", "complex", "polar", "as_complex", "as_real", "is_complex"]


def is_complex(x) -> bool:
    """Whether `x` is a Tensor of a complex dtype (complex64 or complex128).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.is_complex(paddle.to_tensor([1+2j])), paddle.is_complex(paddle.to_tensor([1.0]))
        (True, False)
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"is_complex: expected a Tensor, got {type(x).__name__}")
    return x.dtype.kind == "c"


def real(x, name=None):
    """The real part of each element (float32 for complex64, float64 for complex128); a real Tensor is its own
    real part. Tensors also have it as a method, ``x.real()``, as in Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> z = paddle.to_tensor([1+2j, 3-4j])
        >>> paddle.real(z).numpy(), z.imag().numpy()
        (array([1., 3.], dtype=float32), array([ 2., -4.], dtype=float32))
    """
    x = as_tensor(x)
    return cx.real(x) if x.dtype.kind == "c" else x


def imag(x, name=None):
    """The imaginary part of each element (float32 for complex64, float64 for complex128); zeros for a real
    Tensor. Tensors also have it as a method, ``x.imag()``.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.imag(paddle.to_tensor([1+2j, 3-4j])).numpy()
        array([ 2., -4.], dtype=float32)
    """
    x = as_tensor(x)
    return cx.imag(x) if x.dtype.kind == "c" else st.full_like(x, 0)


def conj(x, name=None):
    """The complex conjugate of each element; a real Tensor is returned unchanged.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.conj(paddle.to_tensor([1+2j, 3-4j])).numpy()
        array([1.-2.j, 3.+4.j], dtype=complex64)
    """
    x = as_tensor(x)
    return cx.conj(x) if x.dtype.kind == "c" else x


def angle(x, name=None):
    """The argument of each element, in (-pi, pi]: atan2(imag, real); 0 or pi for real numbers (integers compute
    in the default float dtype).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.angle(paddle.to_tensor([1+1j, -1+0j])).numpy()
        array([0.7853982, 3.1415927], dtype=float32)
        >>> paddle.angle(paddle.to_tensor([1.5, -2.0])).numpy()
        array([0.       , 3.1415927], dtype=float32)
    """
    x = as_tensor(x)
    if x.dtype.kind == "c":
        return ew.atan2(cx.imag(x), cx.real(x))
    x = float_operand("angle", x)
    zero = st.full_like(x, 0)
    return ew.select(ew.lt(x, zero), st.full_like(x, math.pi), zero)


def complex(real, imag, name=None, *, out=None):  # noqa: A001 - Paddle's name
    """The complex Tensor real + imag j from two float Tensors of one dtype (float32 gives complex64, float64
    complex128); they broadcast against each other. `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.complex(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor(0.5)).numpy()
        array([1.+0.5j, 2.+0.5j], dtype=complex64)
    """
    re, im = as_tensor(real), as_tensor(imag)
    if re.dtype != im.dtype or re.dtype not in cx.COMPLEX_OF:
        raise DTypeError(f"complex: real and imag must both be float32 or both float64 Tensors, got {re.dtype.name} "
                         f"and {im.dtype.name}; cast them with .astype('float32')")
    return write_out(cx.complex_(*binary_operands("complex", re, im)), out)


@accepts_out
def polar(abs, angle, name=None):  # noqa: A002 - Paddle's parameter names
    """The complex Tensor abs * (cos(angle) + sin(angle) j) from magnitudes and arguments of one float dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.polar(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.5, 1.0])).numpy()
        array([0.87758255+0.47942555j, 1.0806046 +1.6829419j ], dtype=complex64)
    """
    r, theta = as_tensor(abs), as_tensor(angle)
    if r.dtype != theta.dtype or r.dtype not in cx.COMPLEX_OF:
        raise DTypeError(f"polar: abs and angle must both be float32 or both float64 Tensors, got {r.dtype.name} "
                         f"and {theta.dtype.name}; cast them with .astype('float32')")
    r, theta = binary_operands("polar", r, theta)
    return cx.complex_(ew.mul(r, ew.cos(theta)), ew.mul(r, ew.sin(theta)))


def as_complex(x, name=None):
    """A float Tensor whose last axis has size 2 (real, imaginary) as a complex Tensor without that axis.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.as_complex(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy()
        array([1.+2.j, 3.+4.j], dtype=complex64)
    """
    x = as_tensor(x)
    a = get_aval(x)
    if a.dtype not in cx.COMPLEX_OF:
        raise DTypeError(f"as_complex: expected a float32 or float64 Tensor, got {a.dtype.name}; cast it with "
                         ".astype('float32')")
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ShapeError(f"as_complex: the last axis must have size 2 (real, imaginary), got shape {list(a.shape)}")
    lead = a.shape[:-1]

    def part(i):
        piece = st.slice(x, start_indices=(0,) * (a.ndim - 1) + (i,), limit_indices=lead + (i + 1,))
        return st.reshape(piece, new_sizes=lead)
    return cx.complex_(part(0), part(1))


def as_real(x, name=None):
    """A complex Tensor as a float Tensor with a new last axis of size 2 holding (real, imaginary).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.as_real(paddle.to_tensor([1+2j, 3-4j])).numpy()
        array([[ 1.,  2.],
               [ 3., -4.]], dtype=float32)
    """
    x = as_tensor(x)
    a = get_aval(x)
    if a.dtype.kind != "c":
        raise DTypeError(f"as_real: expected a complex Tensor, got {a.dtype.name} (shape {list(a.shape)})")
    parts = [st.reshape(p, new_sizes=a.shape + (1,)) for p in (cx.real(x), cx.imag(x))]
    return st.concatenate(*parts, dimension=a.ndim)
