"""The eigen-decomposition of general square matrices (``paddle.linalg.eig`` / ``eigvals``): LAPACK's geev through
numpy, eagerly, with JAX's derivatives (a custom JVP: grad, jvp, vjp, jacfwd/jacrev).

Derivatives follow ``jax.lax.linalg.eig`` (jax 0.10.2; for eigenvectors its ``enable_eigvec_derivs=True``):
nondegenerate perturbation theory, ``dw = diag(V^-1 dA V)`` and ``dV = V (F * V^-1 dA V) + V diag(c)`` with
``F[i, j] = 1 / (w_j - w_i)`` off the diagonal, where c keeps LAPACK's normalisation (each eigenvector of unit norm,
its largest-magnitude entry real). Repeated eigenvalues make the eigenvector derivatives infinite, as in JAX.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.autodiff import JVPTrace
from paddle_fn.core.errors import ShapeError, UnsupportedError
from paddle_fn.core.trace import Tensor, Tracer, get_aval
from paddle_fn.prims import complex_parts as cx
from paddle_fn.prims import elementwise as ew
from paddle_fn.prims import linalg as la
from paddle_fn.prims import reduction as red
from paddle_fn.prims import structural as st
from paddle_fn.prims.base import reduce_sum
from paddle_fn.prims.custom_derivatives import custom_jvp


def _check(op, x):
    if isinstance(x, Tracer) and not _differentiating(x):
        raise UnsupportedError(
            f"paddle.linalg.{op}: the eigen-decomposition of a general matrix runs eagerly only (LAPACK's geev; "
            "it has no compiled form), so it cannot run under vmap or jit; grad and jvp work. Call it on a "
            "concrete Tensor, or use paddle.linalg.eigh / eigvalsh for symmetric (Hermitian) matrices")
    a = get_aval(x)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(f"paddle.linalg.{op}: expected square matrices [..., n, n], got shape {list(a.shape)}")


def _differentiating(x) -> bool:
    """Whether x is traced by grad/jvp only, over a concrete value (the custom JVP then runs on values)."""
    while isinstance(x, Tracer):
        if x._trace.main.trace_type is not JVPTrace:
            return False
        x = x.primal
    return True


def _complex_dtype(a):
    return dtypes.complex128 if a.dtype in (dtypes.float64, dtypes.complex128) else dtypes.complex64


def _geev(x):
    """[w, v] of the concrete Tensor x, from numpy (a real matrix in the real dtype of the result's width)."""
    a = get_aval(x)
    ctype = _complex_dtype(a)
    work = ctype.np if a.dtype.kind == "c" else (np.float64 if ctype == dtypes.complex128 else np.float32)
    w, v = np.linalg.eig(np.asarray(x.concrete_value()).astype(work))
    return Tensor(w.astype(ctype.np)), Tensor(v.astype(ctype.np))


_eig = custom_jvp(lambda x: _geev(x))
_eigvals = custom_jvp(lambda x: _geev(x)[0])


def _v_inverse_da_v(a, da, v):
    """V^-1 dA V, with dA in V's complex dtype."""
    da = ew.convert_element_type(da, new_dtype=get_aval(v).dtype) if get_aval(da).dtype.kind != "c" else da
    packed, _, perm = la.lu(v)
    return la.matmul(la.lu_solve(packed, perm, da), v)


@_eigvals.defjvp
def _eigvals_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = _eig(a)
    return w, la.diagonal(_v_inverse_da_v(a, da, v))


@_eig.defjvp
def _eig_jvp(primals, tangents):
    (a,), (da,) = primals, tangents
    w, v = _eig(a)
    p = _v_inverse_da_v(a, da, v)
    shape = get_aval(v).shape
    nd = len(shape)
    eye = la.eye_like(v)
    w_cols = st.broadcast_in_dim(w, shape=shape, broadcast_dimensions=tuple(range(nd - 2)) + (nd - 1,))
    w_rows = st.broadcast_in_dim(w, shape=shape, broadcast_dimensions=tuple(range(nd - 1)))
    gaps = ew.sub(ew.div(st.full_like(v, 1), ew.add(eye, ew.sub(w_cols, w_rows))), eye)  # 1 / (w_j - w_i)
    u = la.matmul(v, ew.mul(gaps, p))
    # dv_j = u_j + c_j v_j: Re(v_j^H dv_j) = 0 keeps the unit norm, Im(dv[k_j, j]) = 0 the largest entry real
    # (k_j its row, where |v| is largest in column j)
    largest = red.argmax(ew.abs(v), axis=nd - 2, index_dtype=dtypes.int32)
    rows = st.iota(dtype=dtypes.int32, shape=shape, dimension=nd - 2)
    at_largest = ew.convert_element_type(
        ew.eq(rows, st.broadcast_in_dim(largest, shape=shape, broadcast_dimensions=tuple(range(nd - 2)) + (nd - 1,))),
        new_dtype=get_aval(v).dtype)
    column_sum = lambda m: reduce_sum(m, axes=(nd - 2,))  # noqa: E731
    c = cx.complex_(ew.neg(cx.real(column_sum(ew.mul(cx.conj(v), u)))),
                    ew.neg(ew.div(cx.imag(column_sum(ew.mul(at_largest, u))), cx.real(column_sum(ew.mul(at_largest, v))))))
    c_rows = st.broadcast_in_dim(c, shape=shape, broadcast_dimensions=tuple(range(nd - 2)) + (nd - 1,))
    return (w, v), (la.diagonal(p), ew.add(u, ew.mul(v, c_rows)))


def general_eig(op, x, *, vectors):
    """paddle.linalg.eig (`vectors`: [w, v]) or eigvals (w) of the Tensor x."""
    _check(op, x)
    return _eig(x) if vectors else _eigvals(x)
