"""The batching trace behind vmap: each tracer carries a value with one extra (batch) axis, or none.

A primitive's batching rule receives the values and their batch axes (`None` = not batched) and returns the
output(s) and their batch axes. ELEMENTWISE primitives share one rule here: move every batch axis to the
front, broadcast the unbatched operands, apply the primitive once.
"""
from __future__ import annotations

import threading

from paddle_fn.core.errors import ConcretizationError, TransformError
from paddle_fn.core.hooks import OPS
from paddle_fn.core.primitive import ELEMENTWISE, unsupported
from paddle_fn.core.trace import Trace, Tracer, bind, get_aval, new_main
from paddle_fn.core.ir import ShapedArray

not_mapped = None


class _RunningRules(threading.local):
    """The batch traces whose batching rules are running, innermost last: a rule that must know which vmap it
    serves (a collective over a named axis) reads it here."""

    def __init__(self):
        self.traces: list = []


running_rules = _RunningRules()


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        super().__init__(trace)
        self.val = val
        self.batch_dim = batch_dim

    @property
    def _own_aval(self):
        a = get_aval(self.val)
        if self.batch_dim is not_mapped:
            return a
        shape = list(a.shape)
        del shape[self.batch_dim]
        return ShapedArray(shape, a.dtype)

    def full_lower(self):
        return self.val if self.batch_dim is not_mapped else self

    def _own_concrete_value(self):
        raise ConcretizationError(
            f"a value batched by {self._trace.main.transform or 'vmap'} ({self.aval.str_short()} per example) was "
            "converted to a Python scalar; inside vmap each example has its own value, so Python control flow on "
            "it is not possible. Use paddle_fn.where / paddle_fn.cond / paddle_fn.while_loop instead")


def moveaxis(x, src, dst):
    return OPS["moveaxis"](x, src, dst)


def bdim_at_front(x, bdim, size):
    """Return x with its batch axis at 0, materialising one of length `size` if x is unbatched."""
    if bdim is not_mapped:
        return OPS["broadcast_batch"](x, size, 0)
    return moveaxis(x, bdim, 0) if bdim != 0 else x


def batch_size(vals, dims):
    """The length of the batch axis, read from the first batched value (a batching rule has at least one)."""
    return next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not not_mapped)


def batch_elementwise(prim, vals, dims, params):
    size = batch_size(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    out = bind(prim, *vals, **params)
    return out, ([0] * len(out) if prim.multiple_results else 0)


class BatchTrace(Trace):
    @property
    def axis_size(self):
        return self.main.global_data["axis_size"]

    def pure(self, val):
        return BatchTracer(self, val, not_mapped)

    lift = pure

    def process_primitive(self, prim, tracers, params):
        vals = [t.val for t in tracers]
        dims = [t.batch_dim for t in tracers]
        if all(d is not_mapped for d in dims):
            out = bind(prim, *vals, **params)
            outs = out if prim.multiple_results else [out]
            return [BatchTracer(self, o, not_mapped) for o in outs]
        rule = prim.batch
        if isinstance(rule, unsupported):
            rule()
        if rule is ELEMENTWISE:
            out, out_dims = batch_elementwise(prim, vals, dims, params)
        else:
            running_rules.traces.append(self)
            try:
                out, out_dims = rule(vals, dims, **params)
            finally:
                running_rules.traces.pop()
        if not prim.multiple_results:
            out, out_dims = [out], [out_dims]
        return [BatchTracer(self, o, d) for o, d in zip(out, out_dims)]


def vmap_flat(fun, vals, in_dims, axis_size, out_dims, *, axis_name=None, transform="vmap"):
    """Apply `fun(*vals) -> list` to values batched along `in_dims` (int or None each).

    Outputs are moved to `out_dims` (a list of int, or None for outputs that must not depend on the batch; or an
    object with `resolve(i, ndim)` when the axes are known only after tracing).
    """
    with new_main(BatchTrace, {"axis_size": axis_size, "axis_name": axis_name}, transform=transform) as main:
        trace = BatchTrace(main)
        ins = [v if d is not_mapped else BatchTracer(trace, v, d) for v, d in zip(vals, in_dims)]
        outs = [trace.full_raise(o) for o in fun(*ins)]
        results = []
        for i, o in enumerate(outs):
            val, bd = o.val, o.batch_dim
            od = out_dims.resolve(i, o.aval.ndim) if hasattr(out_dims, "resolve") else out_dims[i]
            if od is not_mapped:
                if bd is not not_mapped:
                    raise TransformError(
                        f"[vmap] out_axes is None for output {i} ({o.aval.str_short()}), but that output depends on "
                        "the mapped inputs; give it an out axis (e.g. 0) or return a value that does not vary "
                        "over the batch")
                results.append(val)
            elif bd is not_mapped:
                results.append(moveaxis(OPS["broadcast_batch"](val, axis_size, 0), 0, od))
            else:
                results.append(moveaxis(val, bd, od) if bd != od else val)
    return results
