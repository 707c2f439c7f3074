"""The sort IREE compiles: only distinct keys enter stablehlo.sort, with the original positions as the last key,
and the other operands are gathered by the permutation that comes out.

IREE 3.13 sorts in place: it fails to compile a sort that holds one buffer twice (operands it finds equal, such as
`sort(x, x)`) or two operands computed inside the sort's dispatch (such as two iotas), and its CPU sort ignores
`is_stable`. Sorting the distinct keys alone, or with a uint32 position key that makes the order total (hence
stable), avoids all three; a payload operand is read once, by a gather.
"""
from __future__ import annotations

from paddle_fn.core import dtypes
from paddle_fn.lowering.emitter import tensor_type
from paddle_fn.lowering.staged import generic_rule


def lower_sort(ctx, *operands, dimension, is_stable, num_keys, sort=None):
    """sort's lowering rule for IREE (see the module docstring); `sort` emits the stablehlo.sort (a lowering rule;
    None: the primitive's own)."""
    sort = sort or generic_rule("sort")
    avals = dict(zip(operands, ctx.avals_in))
    keys = list(dict.fromkeys(operands[:num_keys]))
    key_avals = [avals[k] for k in keys]
    if all(name in keys for name in operands):
        outs = ctx.apply(sort, keys, key_avals, key_avals, dimension=dimension, is_stable=is_stable,
                         num_keys=len(keys))
        return [outs[keys.index(name)] for name in operands]
    # uint32, so that IREE does not merge the positions with a key that is an int32/int64 iota
    position = ctx.avals_in[0].update(dtype=dtypes.uint32)
    positions = ctx.fresh()
    ctx.line(f"{positions} = stablehlo.iota dim = {dimension} : {tensor_type(position)}")
    *outs, order = ctx.apply(sort, keys + [positions], key_avals + [position], key_avals + [position],
                             dimension=dimension, is_stable=False, num_keys=len(keys) + 1)
    ndim = position.ndim
    others = [d for d in range(ndim) if d != dimension]
    starts = ctx.op("stablehlo.reshape", [order], position.update(shape=position.shape + (1,)), in_avals=[position])
    batching = (f"operand_batching_dims = {others}, start_indices_batching_dims = {others}, " if others else "")
    dnums = (f"#stablehlo.gather<collapsed_slice_dims = [{dimension}], {batching}start_index_map = [{dimension}], "
             f"index_vector_dim = {ndim}>")
    gathered = {}
    for name in operands:
        if name not in keys and name not in gathered:
            gathered[name] = ctx.generic_op(
                "stablehlo.gather", [name, starts], avals[name],
                attrs=f"dimension_numbers = {dnums}, slice_sizes = array<i64: {', '.join(['1'] * ndim)}>, "
                      "indices_are_sorted = false",
                in_avals=[avals[name], position.update(shape=position.shape + (1,))])
    return [outs[keys.index(name)] if name in keys else gathered[name] for name in operands]
