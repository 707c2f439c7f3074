"""The decompositions IREE compiles: a primitive's expansion where IREE rejects its StableHLO operation, and every
decomposition over a batch of one on llvm-cpu, where IREE fails on the unbatched programs (on the GPU backends lu and
triangular_solve, whose unbatched expansions fail to compile there: "LLVM Translation failed for operation:
builtin.unrealized_conversion_cast", IREE 3.13, cuda and rocm).

IREE 3.13 compiles neither `stablehlo.cholesky` nor `stablehlo.triangular_solve` ("failed to legalize operation
... that was explicitly marked illegal"), before any backend; those primitives lower by their `expansion`
(paddle_fn/prims/linalg.py: loops over columns and rows written with other primitives). On llvm-cpu the loop
programs of one unbatched matrix fail in ways that depend on the shape: the Jacobi SVD of a 17x17 float32 matrix
fails when it runs ("indirect buffer reference slot 0 is out range"; with the parallel Jacobi ordering the wide
SVDs and the complex eigh that failed before run), the LU of a 16x16 float32 matrix fails to compile; the same
programs over a batch of one compile and run, as fast.
"""
from __future__ import annotations

from paddle_fn.core.primitive import get_primitive
from paddle_fn.lowering.staged import lower_by_expansion


def lower_by_own_expansion(name: str):
    """The lowering rule of the primitive `name` by its `expansion` field (looked up when it lowers)."""
    def lower(ctx, *operands, **params):
        prim = get_primitive(name)
        return lower_by_expansion(prim.expansion, multiple_results=prim.multiple_results)(ctx, *operands, **params)
    return lower


# the decompositions whose StableHLO operation IREE rejects on every target
EXPANDED = ("cholesky", "triangular_solve")
DECOMPOSITIONS = EXPANDED + ("lu", "qr", "eigh", "svd", "eig")


def lower_as_batch_of_one(name: str, rule):
    """`rule` (the decomposition `name`'s rule on every target) applied to its matrices with a leading batch
    dimension of one added (and removed from the results) when they have none."""
    def lower(ctx, *operands, **params):
        if ctx.avals_in[0].ndim > 2:
            return rule(ctx, *operands, **params)
        multiple = get_primitive(name).multiple_results
        batched_in = [a.update(shape=(1,) + a.shape) for a in ctx.avals_in]
        batched_out = [a.update(shape=(1,) + a.shape) for a in ctx.avals_out]
        ins = [ctx.op("stablehlo.reshape", [x], b, in_avals=[a]) for x, a, b in zip(operands, ctx.avals_in, batched_in)]
        outs = ctx.apply(rule, ins, batched_in, batched_out, **params)
        outs = [ctx.op("stablehlo.reshape", [y], a, in_avals=[b])
                for y, a, b in zip(outs if multiple else [outs], ctx.avals_out, batched_out)]
        return outs if multiple else outs[0]
    return lower
