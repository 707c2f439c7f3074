"""The scatters IREE compiles: every scatter rewritten into the one simple form IREE 3.13 accepts.

The simple form: indices [N, k] naming operand axes 0..k-1, each written as one element; updates
[N, *operand.shape[k:]]. Every StableHLO scatter can be put in this form, and IREE compiles only (roughly) this
one: it rejects windows that are indexed, partial or leading, and some batching layouts. Indexed and partial
window axes become scatter axes (start + iota), batching axes become index components (iota), and the operand is
transposed so that the indexed axes lead. The rewrite is staged with the primitives (the scatter itself in the
simple form, which this rule then leaves to the primitive's own lowering) and inlined. Large computed indices and
updates are put behind an optimization barrier (MATERIALIZED_ROWS).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.emitter import GPU_TARGETS
from paddle_fn.lowering.staged import (bind, broadcast, filled, generic_rule, inline, materialized, reshape, shape_of,
                                       slice_, stage, transpose)


def is_simple(operand, indices, updates, dn) -> bool:
    """Whether the scatter of these types (avals) and dimension numbers `dn` is in the simple form."""
    k = len(dn.scatter_dims_to_operand_dims)
    return (indices.ndim == 2 and not dn.operand_batching_dims and dn.scatter_dims_to_operand_dims == tuple(range(k))
            and dn.inserted_window_dims == tuple(range(k)) and dn.update_window_dims == tuple(range(1, updates.ndim))
            and updates.shape[1:] == operand.shape[k:])


# From this many index rows on, computed indices and updates are materialized before the scatter: IREE fuses their
# producers into the scatter's dispatch and keeps them on its stack, whose limit is 32 KiB on llvm-cpu (histogram's
# scatter_add of 2^20 counts failed to compile, "exceeded stack allocation limit ... Got 8388608 bytes"). On IREE's
# GPU backends they always are: there a scatter_add whose updates are computed from its indices in its dispatch
# failed to compile at any size ("failed to apply fusion + hoisting patterns", the gradient of a gather with
# mode="fill", IREE 3.13, cuda and rocm; tests/test_gpu_lowering.py)
MATERIALIZED_ROWS = 1024


def lower_scatter(name: str):
    """The lowering rule for IREE of the scatter primitive `name` (scatter or scatter_add)."""
    def lower(ctx, operand, indices, updates, *, dimension_numbers):
        if is_simple(*ctx.avals_in, dimension_numbers):
            if ctx.avals_in[1].shape[0] >= MATERIALIZED_ROWS or ctx.target.backend in GPU_TARGETS:
                indices, updates = [materialized(ctx, x, aval) for x, aval in zip((indices, updates), ctx.avals_in[1:])]
            return generic_rule(name)(ctx, operand, indices, updates, dimension_numbers=dimension_numbers)
        prog, consts = stage(lambda o, i, u: [simple_form(name, o, i, u, dimension_numbers)], ctx.avals_in)
        return inline(ctx, prog, consts, [operand, indices, updates])[0]
    return lower


def simple_form(name, operand, indices, updates, dn):
    """The scatter `name` of `updates` into `operand` at `indices` (dimension numbers `dn`) in the simple form."""
    o_shape, i_aval, u_shape = shape_of(operand), get_aval(indices), shape_of(updates)
    index_dtype, index_map = i_aval.dtype, dn.scatter_dims_to_operand_dims
    window = dn.window_sizes(o_shape, u_shape)
    window_dims = dn.window_dims(len(o_shape))
    window_axis = dict(zip(window_dims, dn.update_window_dims))
    # Clamp the starts first, so the offsets added below stay inside the operand.
    upper = np.array([o_shape[d] - window[d] for d in index_map], index_dtype.np)
    indices = bind("clamp", filled(0, i_aval.shape, index_dtype), indices,
                   broadcast(Tensor(upper), i_aval.shape, (i_aval.ndim - 1,)))
    expanded = [d for d in window_dims if d in index_map or window[d] < o_shape[d]]
    whole = [d for d in window_dims if d not in expanded]
    batch_axes = [p for p in range(len(u_shape)) if p not in dn.update_window_dims]
    scatter_axes = sorted(batch_axes + [window_axis[d] for d in expanded])
    scatter_shape = tuple(u_shape[p] for p in scatter_axes)
    batch_at = tuple(scatter_axes.index(p) for p in batch_axes)

    def counter(axis):
        return bind("iota", dtype=index_dtype, shape=scatter_shape, dimension=scatter_axes.index(axis))

    components = {}
    for j, d in enumerate(index_map):
        start = slice_(indices, (0,) * (i_aval.ndim - 1) + (j,), i_aval.shape[:-1] + (j + 1,))
        components[d] = broadcast(reshape(start, i_aval.shape[:-1]), scatter_shape, batch_at)
    for d in expanded:
        components[d] = bind("add", components[d], counter(window_axis[d])) if d in components else \
            counter(window_axis[d])
    for d, i in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
        components[d] = counter(batch_axes[i])
    for d in dn.inserted_window_dims:
        components.setdefault(d, filled(0, scatter_shape, index_dtype))
    n = int(np.prod(scatter_shape, dtype=np.int64))
    new_map = tuple(components)
    columns = [reshape(c, (n, 1)) for c in components.values()]
    new_indices = bind("concatenate", *columns, dimension=1) if len(columns) > 1 else columns[0]
    perm = new_map + tuple(whole)
    new_updates = reshape(transpose(updates, tuple(scatter_axes) + tuple(window_axis[d] for d in whole)),
                          (n,) + tuple(o_shape[d] for d in whole))
    k = len(new_map)
    simple = dataclasses.replace(dn, update_window_dims=tuple(range(1, 1 + len(whole))),
                                 inserted_window_dims=tuple(range(k)), scatter_dims_to_operand_dims=tuple(range(k)),
                                 operand_batching_dims=(), scatter_indices_batching_dims=())
    out = bind(name, transpose(operand, perm), new_indices, new_updates, dimension_numbers=simple)
    return transpose(out, tuple(int(i) for i in np.argsort(perm)))
