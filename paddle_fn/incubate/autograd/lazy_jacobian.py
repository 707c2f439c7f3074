"""The lazy Jacobian engine shared by ``paddle.incubate.autograd`` and ``paddle.autograd.jacobian`` / ``hessian``.

A `RowEngine` holds one linearization of a function (or, for the tape form, a pullback through the eager tape) and
evaluates rows of the flattened matrix d(flattened outputs) / d(flattened inputs) on demand: one VJP for a single
row, one ``vmap`` of the VJP over the requested basis rows for several. Evaluated rows are cached. A `LazyBlock` is
an indexable view of a rectangle of that matrix, with Paddle's indexing rules (ints and slices, no Ellipsis).
Everything is ordinary traced code, so indexing works under ``paddle_fn.jit``, ``vmap`` and ``grad``.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

import paddle_fn as paddle
from paddle_fn.core.trace import Tracer
from paddle_fn.incubate.autograd.utils import as_tensors

__all__ = ["LazyBlock", "RowEngine", "check_inputs", "flatten_concat", "tuple_output"]


def check_inputs(func, xs, v=None):
    """TypeError unless `func` is callable and `xs` (and `v`, when given) are Tensors or sequences of Tensors."""
    if not callable(func):
        raise TypeError(f"Expected 'func' to be callable, but got {type(func).__name__}.")
    for what, value in (("xs", xs), ("v", v)):
        if value is None and what == "v" or isinstance(value, paddle.Tensor):
            continue
        if not isinstance(value, Sequence) or not all(isinstance(e, paddle.Tensor) for e in value):
            got = (f"a {type(value).__name__} of {sorted({type(e).__name__ for e in value})}"
                   if isinstance(value, Sequence) else type(value).__name__)
            raise TypeError(f"Expected '{what}' to be a Tensor or a sequence of Tensors, but got {got}. "
                            "Convert the values with paddle_fn.to_tensor.")


def tuple_output(func, store, who):
    """func with its output turned into a tuple of Tensors; store['single'] records whether it was one Tensor."""
    def tuple_func(*args):
        out = func(*args)
        store["single"] = isinstance(out, paddle.Tensor)
        store["container"] = type(out)
        outs = as_tensors(out) if isinstance(out, (paddle.Tensor, Sequence)) else None
        if not outs or not all(isinstance(o, paddle.Tensor) for o in outs):
            raise TypeError(f"{who}: 'func' must return a Tensor or a sequence of Tensors, but returned "
                            f"{type(out).__name__}.")
        return outs
    return tuple_func


# ----------------------------------------------------------------------------------------------- lazy rows

def flatten_concat(tensors, keep):
    """Flatten each Tensor after its first `keep` axes and concatenate them along the last axis."""
    flat = [paddle.reshape(t, t.shape[:keep] + [-1]) for t in tensors]
    return flat[0] if len(flat) == 1 else paddle.concat(flat, axis=-1)


class RowEngine:
    """Rows of d(flattened outputs) / d(flattened inputs), evaluated on demand from one linearization of func.

    A row k is the VJP with the k-th basis cotangent ([B, M] with column k set, when batched: the batch
    elements are independent, so one VJP gives row k of every batch element). Evaluated rows live in blocks
    of shape [r, (B,) N]; ``_where`` maps a row to (block, position) so a cached row is never recomputed.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.incubate.autograd.lazy_jacobian import LazyBlock, RowEngine
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> engine = RowEngine(lambda x: x * x, (x,), batched=False, who="example")
        >>> engine.rows([2]).numpy()
        array([[0., 0., 6.]], dtype=float32)
        >>> LazyBlock(engine, range(3), range(3))[0:2].numpy()
        array([[2., 0., 0.],
               [0., 4., 0.]], dtype=float32)
    """

    def __init__(self, func, xs, batched, who):
        self.store = {}
        outs, pullback = paddle.vjp(tuple_output(func, self.store, who), *xs)
        self._configure(outs, pullback, xs, batched, who)

    @classmethod
    def from_pullback(cls, outs, pullback, xs, batched, who):
        """An engine over outputs already computed, with `pullback(cotangents) -> input cotangents` (the tape's)."""
        engine = cls.__new__(cls)
        engine.store = {}
        engine._configure(outs, pullback, xs, batched, who)
        return engine

    def _configure(self, outs, pullback, xs, batched, who):
        self._pullback = pullback
        self.traced = any(isinstance(o, Tracer) for o in outs)
        self.batched = batched
        self.out_shapes = [o.shape for o in outs]
        self.out_dtypes = [o.dtype for o in outs]
        self.in_shapes = [x.shape for x in xs]
        self.in_dtype = xs[0].dtype
        if batched:
            self._check_batch(who)
        keep = int(batched)
        self.out_widths = [math.prod(s[keep:]) for s in self.out_shapes]
        self.in_widths = [math.prod(s[keep:]) for s in self.in_shapes]
        self.num_rows, self.num_cols = sum(self.out_widths), sum(self.in_widths)
        self.batch_size = self.in_shapes[0][0] if batched else None
        self.blocks = []
        self._where = {}

    def _check_batch(self, who):
        shapes = [("input", i, s) for i, s in enumerate(self.in_shapes)] + \
                 [("output", i, s) for i, s in enumerate(self.out_shapes)]
        for kind, i, s in shapes:
            if not s:
                raise ValueError(f"{who}: with is_batched=True every input and output needs a leading batch axis, "
                                 f"but {kind} {i} has shape []")
        sizes = {s[0] for _, _, s in shapes}
        if len(sizes) > 1:
            detail = ", ".join(f"{kind} {i}: {s}" for kind, i, s in shapes)
            raise ValueError(f"{who}: with is_batched=True all inputs and outputs must share the batch size "
                             f"(axis 0), got {detail}")

    def rows(self, wanted):
        """The rows `wanted` (global row numbers, in that order) as one Tensor [len(wanted), (B,) N]."""
        if not wanted:
            lead = [0] + ([self.batch_size] if self.batched else [])
            return paddle.zeros(lead + [self.num_cols], dtype=self.in_dtype)
        missing = [r for r in dict.fromkeys(wanted) if r not in self._where]
        blocks, where = self.blocks, self._where
        if missing:
            block = self._evaluate(missing)
            if isinstance(block, Tracer) and not self.traced:
                # rows computed inside a transform this Jacobian was not created in (e.g. indexed inside jit):
                # use them now, but do not cache traced values beyond that transform
                blocks, where = blocks + [block], dict(where)
                for position, r in enumerate(missing):
                    where[r] = (len(blocks) - 1, position)
            else:
                for position, r in enumerate(missing):
                    self._where[r] = (len(self.blocks), position)
                self.blocks.append(block)
        used = list(dict.fromkeys(where[r][0] for r in wanted))
        offsets, start = {}, 0
        for b in used:
            offsets[b] = start
            start += blocks[b].shape[0]
        base = blocks[used[0]] if len(used) == 1 else paddle.concat([blocks[b] for b in used], axis=0)
        positions = [offsets[where[r][0]] + where[r][1] for r in wanted]
        return _take_rows(base, positions)

    def _evaluate(self, rows):
        keep = int(self.batched)
        if len(rows) == 1:
            basis = self._basis(rows)
            cotangents = self._pullback(tuple(b[0] for b in basis))
            block = paddle.unsqueeze(flatten_concat(cotangents, keep), 0)
        else:
            cotangents = paddle.vmap(self._pullback)(self._basis(rows))
            block = flatten_concat(cotangents, keep + 1)
        return block

    def _basis(self, rows):
        """One [r, *out_shape] cotangent per output; together, slice i is basis vector rows[i] of the flat outputs."""
        eye = np.zeros((len(rows), self.num_rows))
        eye[np.arange(len(rows)), rows] = 1.0
        if self.batched:
            eye = np.broadcast_to(eye[:, None, :], (len(rows), self.batch_size, self.num_rows))
        parts, start = [], 0
        for shape, width, dtype in zip(self.out_shapes, self.out_widths, self.out_dtypes):
            part = eye[..., start:start + width].reshape([len(rows)] + shape)
            parts.append(paddle.to_tensor(part, dtype=dtype))
            start += width
        return tuple(parts)


def _take_rows(base, positions):
    if positions == list(range(base.shape[0])):
        return base
    if positions == list(range(positions[0], positions[0] + len(positions))):
        return base[positions[0]:positions[0] + len(positions)]
    return paddle.index_select(base, paddle.to_tensor(positions, dtype="int64"), axis=0)


def _normalize_index(indexes, shape):
    """Paddle's multi-index rules: ints and slices only, no Ellipsis, missing trailing axes mean ':'.

    Returns one (range, is_int) per axis of `shape`.
    """
    indexes = tuple(indexes) if isinstance(indexes, Sequence) else (indexes,)
    if any(i is Ellipsis for i in indexes):
        raise IndexError("Ellipsis index currently is not supported: spell every axis out, e.g. J[:, 0] "
                         "instead of J[..., 0].")
    if len(indexes) > len(shape):
        raise IndexError(f"too many indices: the Jacobian has shape {list(shape)} but {len(indexes)} indices "
                         "were given")
    indexes = indexes + (slice(None),) * (len(shape) - len(indexes))
    plan = []
    for axis, (index, n) in enumerate(zip(indexes, shape)):
        if isinstance(index, slice):
            plan.append((range(*index.indices(n)), False))
        elif isinstance(index, numbers.Integral) and not isinstance(index, bool):
            i = int(index) + n if index < 0 else int(index)
            if not 0 <= i < n:
                raise IndexError(f"index {int(index)} is out of range for axis {axis} of size {n}")
            plan.append((range(i, i + 1), True))
        else:
            raise TypeError(f"Not supported index type {type(index).__name__}: index a Jacobian with ints and "
                            "slices.")
    return plan


def _as_slice(r):
    if len(r) == 0:
        return slice(0, 0)
    return slice(r.start, r.stop if r.stop >= 0 else None, r.step)


class LazyBlock:
    """A lazily evaluated block of an engine's matrix: rows `rows`, columns `cols` (ranges of global numbers).

    Internal axes are ([B],) rows, cols; `keep_row` / `keep_col` False drop that axis from the visible shape
    (a 0-D output or input in paddle_fn.autograd). A fully int-indexed result is 0-D, as in Paddle 3.

    As Paddle's ``paddle.autograd`` Jacobian does, a block also stands for its whole value: Tensor attributes
    (``J.numpy()``, ``J.flatten()``, ``J.dtype``) and the arithmetic and comparison operators (``J + 1``,
    ``J @ J``, ``J < K``) evaluate every row first.
    """

    def __init__(self, engine, rows, cols, keep_row=True, keep_col=True):
        self._engine, self._rows, self._cols = engine, rows, cols
        self._keep = ([True] if engine.batched else []) + [keep_row, keep_col]

    @property
    def _internal_shape(self):
        return ([self._engine.batch_size] if self._engine.batched else []) + [len(self._rows), len(self._cols)]

    @property
    def shape(self):
        return tuple(n for n, keep in zip(self._internal_shape, self._keep) if keep)

    def __getitem__(self, indexes):
        visible = iter(_normalize_index(indexes, self.shape))
        plan = [next(visible) if keep else (range(1), True) for keep in self._keep]
        if self._engine.batched:
            (batch, _), (rows, _), (cols, _) = plan
        else:
            batch, (rows, _), (cols, _) = None, *plan
        part = self._engine.rows([self._rows[i] for i in rows])
        if self._engine.batched:
            part = paddle.transpose(part, [1, 0, 2])
        first = self._cols.start  # the block's columns are contiguous, so shifting the local range suffices
        global_cols = range(first + cols.start, first + cols.stop, cols.step) if len(cols) else range(0)
        selection = ((_as_slice(batch),) if batch is not None else ()) + (slice(None), _as_slice(global_cols))
        untouched = (batch is None or batch == range(part.shape[0])) and global_cols == range(part.shape[-1])
        if not untouched:
            part = part[selection]
        shape = [len(r) for (r, is_int), keep in zip(plan, self._keep) if keep and not is_int]
        return part if part.shape == shape else paddle.reshape(part, shape)

    def _whole(self):
        return self[()]

    def __getattr__(self, name):
        if name.startswith("_"):   # internal names (and copy/pickle probes) are never Tensor attributes
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self._whole(), name)


def _on_whole_blocks(name):
    def operator(self, other):
        return getattr(self._whole(), name)(other._whole() if isinstance(other, LazyBlock) else other)
    operator.__name__ = name
    return operator


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__floordiv__", "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__",
              "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(LazyBlock, _name, _on_whole_blocks(_name))
