"""The primitive set (lax level): every primitive with all its rules, one block each, grouped by family.

Layering (each module imports only those before it, at the top): base (broadcast_in_dim, reshape, transpose,
reduce_sum), complex_parts, bitwise, elementwise, structural, slicing, reduction, then the families built on them.
"""
from paddle_fn.core import hooks
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import (  # noqa: F401
    assertion, base, bitwise, collectives, complex_parts, control_flow, conv, custom_derivatives, elementwise, fft,
    linalg, linalg_eig, random_bits, reduction, remat, slicing, sparse, structural)


def _moveaxis(x, src, dst):
    nd = get_aval(x).ndim
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return base.transpose(x, permutation=tuple(perm))


def _broadcast_batch(x, size, axis):
    a = get_aval(x)
    shape = list(a.shape)
    shape.insert(axis, size)
    dims = tuple(i for i in range(len(shape)) if i != axis)
    return base.broadcast_in_dim(x, shape=tuple(shape), broadcast_dimensions=dims)


hooks.register(add=elementwise.add, zeros=lambda shape, dtype: base.full(shape, 0, dtype), moveaxis=_moveaxis,
               broadcast_batch=_broadcast_batch, stop_gradient=elementwise.stop_gradient, conj=complex_parts.conj)
