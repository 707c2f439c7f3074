"""argmax and argmin on IREE's llvm-cpu backend: the extremum first, then the first position holding it.

The generic rule is one `stablehlo.reduce` over (value, position) pairs, which IREE 3.13's CPU backend runs as a
scalar loop: argmax of 2^20 float32 took 13 ms where the max alone took 0.5 ms. Two plain reductions give the same
index and both vectorize: the extremum (a NaN, if any, since the maximum and minimum propagate it), then the least
position whose value equals it (or is a NaN when the extremum is), so ties go to the first occurrence as numpy's.
An operand computed in the program is materialized first (an optimization barrier), so that both reductions read
the same bits. Only large reductions take this form (MIN_ELEMENTS, where the scalar loop costs milliseconds): in
the compiled complex pseudo-inverse program (tests/test_linalg_complex_jit.py, svd_functions), the column-sign
argmax of a 2x4x3 array gave positions whose entry was zero, and the results were NaN, although the same argmax
compiled alone is right at every shape tried; the cause in IREE is not known. Floats and signed integers take
this form; bools and unsigned integers keep the generic rule.
"""
from __future__ import annotations

from paddle_fn.lowering.staged import bind, broadcast, filled, generic_rule, inline, materialized, stage


# the operand size from which the two reductions are used (2^16 elements: 0.8 ms in the scalar loop)
MIN_ELEMENTS = 1 << 16


def lower_arg_reduce(name: str, extremum: str):
    """The rule of `name` (argmax or argmin) by way of the reduction `extremum` (reduce_max or reduce_min)."""
    def lower(ctx, x, *, axis, index_dtype):
        if ctx.avals_in[0].dtype.kind not in "fi" or ctx.avals_in[0].size < MIN_ELEMENTS:
            return generic_rule(name)(ctx, x, axis=axis, index_dtype=index_dtype)
        x = materialized(ctx, x, ctx.avals_in[0])  # both reductions read the same bits
        prog, consts = stage(lambda v: [first_position_of_extremum(v, extremum, axis, index_dtype)], ctx.avals_in)
        return inline(ctx, prog, consts, [x])[0]
    return lower


def first_position_of_extremum(x, extremum, axis, index_dtype):
    """The first position along `axis` of x's `extremum` (a NaN's where x holds one), as `index_dtype`."""
    shape = x.shape
    kept = tuple(d for d in range(len(shape)) if d != axis)
    best = broadcast(bind(extremum, x, axes=(axis,)), shape, kept)
    hit = bind("eq", x, best)
    if x.dtype.kind == "f":
        hit = bind("or", hit, bind("and", bind("ne", x, x), bind("ne", best, best)))
    positions = bind("iota", dtype=index_dtype, shape=shape, dimension=axis)
    return bind("reduce_min", bind("select", hit, positions, filled(shape[axis], shape, index_dtype)), axes=(axis,))
