"""Dimension numbers of gathers: which axes of the operand, the indices and the result play which part. Plain data,
kept in the core so that the lowering layer, which sits below the primitives, can build a gather too (the
llvm-cpu convolution forms do)."""
from __future__ import annotations

from dataclasses import dataclass, fields


def freeze_as_int_tuples(numbers):
    """Store every field of a frozen dimension-numbers dataclass as a tuple of Python ints (hashable params)."""
    for f in fields(numbers):
        object.__setattr__(numbers, f.name, tuple(int(d) for d in getattr(numbers, f.name)))


@dataclass(frozen=True)
class GatherDimensionNumbers:
    """How a gather reads its windows (XLA's GatherDimensionNumbers; index_vector_dim is the last axis of indices).

    offset_dims: axes of the output that hold the window axes (the operand axes neither collapsed nor batching).
    collapsed_slice_dims: operand axes with window size 1 that are dropped from the output.
    start_index_map: the operand axis each component of an index vector starts.
    operand_batching_dims / start_indices_batching_dims: operand axes paired with batch axes of indices (the
    operand axis is indexed by the position along the indices axis, as in take_along_axis).
    """
    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()

    def __post_init__(self):
        freeze_as_int_tuples(self)
