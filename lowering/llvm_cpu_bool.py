"""Bools converted to numbers on IREE's llvm-cpu backend: chosen by a select instead.

IREE 3.13 fuses a conversion into the product it feeds and, with data tiling (which paddle_fn's CPU code uses),
takes the converted operand for a narrow one to pack as i1, which it then fails to legalize ("failed to legalize
unresolved source materialization from tensor<...xi8>"). A one-hot or mask matrix times a matrix (`(y == k)
.astype('float32') @ w`, a permutation matrix in a linear solve) then compiled only on the retry without data
tiling, which also makes every other product of the program slower. `select(x, 1, 0)` gives the same numbers and
compiles with data tiling. Every other conversion keeps the generic rule.
"""
from __future__ import annotations

from paddle_fn.lowering.staged import bind, filled, generic_rule, inline, shape_of, stage


def lower_convert(ctx, x, *, new_dtype):
    if ctx.avals_in[0].dtype.kind != "b" or new_dtype.kind == "b":
        return generic_rule("convert_element_type")(ctx, x, new_dtype=new_dtype)
    prog, consts = stage(lambda b: [chosen(b, new_dtype)], ctx.avals_in)
    return inline(ctx, prog, consts, [x])[0]


def chosen(x, dtype):
    """The bools x as 1 and 0 of `dtype`, by a select."""
    return bind("select", x, filled(1, shape_of(x), dtype), filled(0, shape_of(x), dtype))
