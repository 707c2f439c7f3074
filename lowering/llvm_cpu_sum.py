"""Float sums for IREE's llvm-cpu backend, reduced in stages of at most `BLOCK` elements.

IREE 3.13 reduces a sum on the CPU with one vector accumulator per thread: each lane adds its elements one after
the other, so the rounding error grows with the count. A float32 mean over 2^18 elements was off by 4e-6 to 6e-5
relative and over 2^20 by 1e-5 to 5e-4, where numpy's pairwise summation keeps ~1e-8
(`tests/test_lowering.py::test_large_float32_sums_are_as_accurate_as_numpy`). Summing blocks of `BLOCK` elements
first, then the block sums (again in blocks, as needed) bounds each accumulator's count per stage, so the error
grows with log(n), as numpy's does: at most 1.5e-7 against numpy's 1.2e-7 over such means. The reduced axes are
split in place (a reshape, never a transpose): the innermost reduced axes form the first stage (whole axes of at
most `BLOCK` elements up to `GROUP` in all), and an axis larger than what is left of the block is split into
(outer, inner) with inner a divisor of it (zero padding when it has no useful divisor). The first stage reads the
input once, as the single reduction did; the later ones are small.

A float32 or float64 stage over leading axes with axes left over (a bias gradient's sum over the batch) is a
product with a vector of ones, which IREE's matrix-vector kernel runs 2-3x faster than its reduction along an
outer axis (a 64x4096 column sum: 0.65 against 0.23 ms), adding the same elements in the same order.
"""
from __future__ import annotations

import math

import numpy as np

from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering.staged import bind, generic_rule, inline, stage

# The most elements one stage sums per result along one axis: numpy's pairwise sum adds runs of 128 elements (in
# 8 lanes). 256 gave twice numpy's error on float32 means of 2^12..2^22 elements, 64 no better than 128.
BLOCK = 128
# Whole reduced axes of at most BLOCK elements each are summed in one stage up to this many elements (batch-norm
# statistics over 32x32 images: one stage per 1024): splitting an axis there made IREE fuse less, and the weight
# gradient of a depthwise convolution (nine such sums of products) 2.5x slower.
GROUP = 1024
# An axis is padded to a multiple of a block rather than split by a divisor smaller than this.
MIN_SPLIT = 16
_FLOATS = ("float16", "bfloat16", "float32")
_COLUMN_FLOATS = ("float32", "float64")


def _largest_divisor_at_most(n: int, bound: int) -> int:
    return max(d for d in range(1, min(n, bound) + 1) if n % d == 0)


def _first_stage(shape, axes):
    """(the input reshaped for the first stage: its shape, the axes that stage sums, the axes the second stage
    then sums, numbered in the first stage's result, the zero padding the split axis needs, and that axis)."""
    inner, count = [], 1
    for axis in sorted(axes, reverse=True):
        size = shape[axis]
        if size <= BLOCK and count * size <= GROUP:
            inner.append(axis)
            count *= size
            continue
        if count >= BLOCK:  # the stage is full: the rest is summed later
            first = tuple(sorted(inner))
            kept = [a for a in range(len(shape)) if a not in first]
            return shape, first, tuple(kept.index(a) for a in axes if a not in first), 0, None
        room = BLOCK // count
        split = _largest_divisor_at_most(size, room)
        padded = size
        if split < MIN_SPLIT and room >= MIN_SPLIT:
            split = room
            padded = -(-size // split) * split
        # axis becomes (padded // split, split): the inner part is summed now, the outer part later
        new_shape = shape[:axis] + (padded // split, split) + shape[axis + 1:]
        first = tuple(sorted(a + (a > axis) for a in inner)) + (axis + 1,)
        later = [a for a in axes if a < axis] + [axis]
        kept = [a for a in range(len(new_shape)) if a not in first]
        return new_shape, tuple(sorted(first)), tuple(kept.index(a) for a in later), padded - size, axis
    return shape, tuple(sorted(axes)), (), 0, None


def _staged_sum(x, axes):
    shape = get_aval(x).shape
    new_shape, first, later, padding, axis = _first_stage(shape, axes)
    if padding:
        config = tuple((0, padding if a == axis else 0, 0) for a in range(len(shape)))
        x = bind("pad", x, Tensor(np.zeros((), get_aval(x).dtype.np)), padding_config=config)
    x = bind("reshape", x, new_sizes=new_shape) if new_shape != get_aval(x).shape else x
    partial = bind("reduce_sum", x, axes=first)
    return bind("reduce_sum", partial, axes=later) if later else partial


def _column_sum(x, axes):
    """The sum over leading axes `axes` as a product with a vector of ones (summing the same elements in the same
    order: one accumulator per result)."""
    aval = get_aval(x)
    ones = Tensor(np.ones([aval.shape[a] for a in axes], aval.dtype.np))
    dims = tuple(range(len(axes)))
    return bind("dot_general", ones, x, dimension_numbers=((dims, dims), ((), ())), preferred_element_type=None)


def lower_sum(ctx, x, *, axes):
    """The llvm-cpu lowering of reduce_sum: in stages for float sums longer than one stage (an axis of more than
    BLOCK elements, or more than GROUP in all). One stage over leading axes of a float32 or float64 array with
    axes left over (a bias gradient's sum over the batch) is a product with ones: IREE reduces along an outer axis
    2-3x slower than its matrix-vector kernel does. Otherwise the generic rule, which ends the recursion: each
    stage is one stage's sum, or is split again."""
    aval = ctx.avals_in[0]
    sizes = [aval.shape[a] for a in axes]
    one_stage = max(sizes, default=1) <= BLOCK and math.prod(sizes) <= GROUP
    leading = 0 < len(axes) < aval.ndim and tuple(axes) == tuple(range(len(axes)))
    if aval.dtype.name in _FLOATS and not one_stage:
        form = _staged_sum
    elif aval.dtype.name in _COLUMN_FLOATS and leading:
        form = _column_sum
    else:
        return generic_rule("reduce_sum")(ctx, x, axes=axes)
    prog, consts = stage(lambda v: [form(v, axes)], [aval])
    return inline(ctx, prog, consts, [x])[0]
