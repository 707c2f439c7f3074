"""Host callbacks (``paddle_fn.debug.print`` / ``callback``) through the transforms, loop bodies included.

`dispatch` takes a callback's values apart transform by transform: under grad/jvp the callback sees the primal;
under vmap it runs once per example, in order; under jit (a staging trace that collects callbacks) the traced values
become extra outputs of the program and the callback runs after each call, as a `Deferred`.

A loop body (scan, fori_loop, while_loop) is one program that runs many times, compiled as one region (IREE has no
call back to the host from inside a loop) or evaluated per step, so a callback cannot run when its iteration runs.
The loop carries the values out instead (`LoopCallbacks`): the body's callback values become extra outputs, stacked
per iteration (a scan's ys; a while loop writes them into buffers it carries), and right after the loop one
callback replays them, iteration by iteration in execution order and the body's callbacks in their order within
each iteration, once per iteration that ran. That replay is itself dispatched, so it runs eagerly at once, per
example under vmap, after the call under jit, and nested loops nest their replays. Callbacks inside a loop run when
the loop has finished, after any Python side effect of code traced later.
"""
from __future__ import annotations

import warnings

import numpy as np

from paddle_fn.core.autodiff import JVPTrace
from paddle_fn.core.batching import BatchTrace, not_mapped
from paddle_fn.core.errors import UnsupportedError
from paddle_fn.core.staging import StagingTrace
from paddle_fn.core.trace import Tensor, Tracer, current_dynamic_main, get_aval
from paddle_fn.prims import structural as st


class BodyCallbacks(list):
    """The (Deferred, values) pairs a loop body's callbacks staged. In a body every traced value a callback takes is
    raised into the body (closed-over values of enclosing traces become body constants), so the replay after the
    loop holds no tracer of a trace that has ended."""


class Deferred:
    """A callback staged into a program: called with its traced values' results after the program runs (maybe
    themselves traced by an outer transform, when the program is transformed again), so it dispatches them again."""

    def __init__(self, call_with, leaves, traced_at):
        self.call_with = call_with
        self.leaves = leaves
        self.traced_at = traced_at

    def __call__(self, values):
        leaves = list(self.leaves)
        for i, v in zip(self.traced_at, values):
            leaves[i] = v
        dispatch(self.call_with, leaves)


def dispatch(call_with, leaves):
    """Call ``call_with(values)`` with the concrete values of `leaves` (Tensors, tracers or other objects), now or,
    under a staging trace, after its program runs."""
    tracers = [x for x in leaves if isinstance(x, Tracer)]
    if not tracers:
        body = current_dynamic_main()
        if body.trace_type is StagingTrace and isinstance(body.global_data.callbacks, BodyCallbacks):
            body.global_data.callbacks.append((Deferred(call_with, list(leaves), []), []))  # once per iteration
            return
        call_with([np.asarray(x.concrete_value()) if isinstance(x, Tensor) else x for x in leaves])
        return
    main = max((t._trace.main for t in tracers), key=lambda m: m.level)

    def mine(x):
        return isinstance(x, Tracer) and x._trace.main is main
    if main.trace_type is JVPTrace:
        dispatch(call_with, [x.primal if mine(x) else x for x in leaves])
    elif main.trace_type is BatchTrace:
        for i in range(main.global_data["axis_size"]):
            dispatch(call_with, [_example(x, i) if mine(x) else x for x in leaves])
    elif main.trace_type is StagingTrace and main.global_data.callbacks is not None:
        if isinstance(main.global_data.callbacks, BodyCallbacks):
            trace = StagingTrace(main)
            leaves = [trace.full_raise(x) if isinstance(x, Tracer) else x for x in leaves]
        traced_at = [i for i, x in enumerate(leaves) if mine(x)]
        main.global_data.callbacks.append((Deferred(call_with, [None if mine(x) else x for x in leaves], traced_at),
                                           [leaves[i] for i in traced_at]))
    else:
        raise UnsupportedError(
            f"paddle_fn.debug: a callback on a value traced by {main.transform} cannot run: only jit's own body and "
            "the bodies of scan, fori_loop and while_loop can hand values to the host (a cond branch cannot). "
            "Return the value and print it outside, or print it before")


def _example(x, i):
    """Example i of a batched value: its slice along the batch axis (the whole value when it is not batched)."""
    val, bdim = x.val, x.batch_dim
    if bdim is not_mapped:
        return val
    shape = get_aval(val).shape
    start = tuple(i if d == bdim else 0 for d in range(len(shape)))
    limit = tuple(i + 1 if d == bdim else n for d, n in enumerate(shape))
    piece = st.slice(val, start_indices=start, limit_indices=limit)
    return st.reshape(piece, new_sizes=tuple(n for d, n in enumerate(shape) if d != bdim))


class LoopCallbacks:
    """The callbacks of one loop body: `staged` collects them while the body is traced (pass it as
    ``trace_to_program(..., callbacks=staged)``), `values()` lists the traced values they take (for the body to
    return as extra outputs), and `replay` runs them after the loop from those outputs stacked per iteration."""

    def __init__(self):
        self.staged = BodyCallbacks()

    def __bool__(self):
        return bool(self.staged)

    def values(self) -> list:
        return [v for _, values in self.staged for v in values]

    def replay(self, stacked, *, count=None, length=None, reverse=False, capacity=None):
        """Run the staged callbacks for each iteration. `stacked`: the loop's outputs for `values()`, each with a
        leading iteration axis. Either `length` (a static number of iterations) or `count` (a traced or concrete
        int scalar: how many ran, of which the first `capacity` were recorded)."""
        callbacks = [(cb, len(values)) for cb, values in self.staged]

        def call_with(vals):
            n, arrays = (length, vals) if count is None else (int(vals[0]), vals[1:])
            if capacity is not None and n > capacity:
                warnings.warn(f"paddle_fn.debug: a while_loop ran {n} iterations but its callbacks recorded the first "
                              f"{capacity} (paddle_fn.config.debug_loop_capacity); the rest are not shown",
                              stacklevel=2)
                n = capacity
            for i in (reversed(range(n)) if reverse else range(n)):
                pos = 0
                for cb, k in callbacks:
                    cb([np.asarray(a)[i] for a in arrays[pos:pos + k]])
                    pos += k
        dispatch(call_with, list(stacked) if count is None else [count, *stacked])
