"""Scans for IREE's llvm-cpu backend: several steps per loop iteration.

IREE 3.13 does not update a while loop's carried buffers in place: every iteration allocates new ones and copies
each carried stack into them. A scan under reverse mode carries its per-step residuals as stacks, so an LSTM
training step over 64 steps copied ~24 MiB per iteration and spent 0.8 ms an iteration on it (65 ms for a step
whose work takes 13 ms; JAX's scan 26 ms). Running up to `UNROLL` steps per iteration divides those copies as
often: the loop runs over chunks of the xs, its body the scan's body inlined once per step of a chunk. A scan of
at most `UNROLL` steps is unrolled whole. A chunk's size is bounded by `CHUNK_EQUATIONS` (compile time grows with
it), so a large body is unrolled fewer times, or not at all. `benchmarks/bench_models.py` (the recurrence class)
measures it: 47 -> 15 ms for its LSTM step.
"""
from __future__ import annotations

import weakref

from paddle_fn.core.staging import eval_program
from paddle_fn.core.trace import get_aval
from paddle_fn.lowering.staged import bind, generic_rule, inline, stage

UNROLL = 8
CHUNK_EQUATIONS = 800

# the chunked loops' own bodies: lowered by the generic rule (chunking them again would multiply the unrolling)
_CHUNK_BODIES: "weakref.WeakSet" = weakref.WeakSet()


def _unroll_factor(body, length) -> int:
    """The steps per iteration: the largest divisor of `length` within the limits (a scan of at most that many
    steps is unrolled whole). Only divisors: IREE 3.13 miscompiled ("operand does not dominate this use") a loop
    over a static slice of the xs, which running the remainder apart needed."""
    bound = min(UNROLL, CHUNK_EQUATIONS // max(len(body.eqns), 1))
    if length <= bound:
        return length
    return max(d for d in range(1, bound + 1) if length % d == 0) if bound >= 1 else 0


def _row(x, i):
    """x[i] of a stacked operand."""
    shape = get_aval(x).shape
    row = bind("slice", x, start_indices=(i,) + (0,) * (len(shape) - 1), limit_indices=(i + 1,) + shape[1:],
               strides=(1,) * len(shape))
    return bind("reshape", row, new_sizes=shape[1:])


def _stack(rows):
    """The rows (same shape) stacked along a new leading axis."""
    shape = get_aval(rows[0]).shape
    rows = [bind("reshape", r, new_sizes=(1,) + shape) for r in rows]
    return bind("concatenate", *rows, dimension=0) if len(rows) > 1 else rows[0]


def _steps(body, consts, carry, xs, indices, num_carry):
    """Run the body for the step indices `indices` (in that order) on rows of xs; returns (carry, {index: ys})."""
    ys = {}
    for i in indices:
        outs = eval_program(body, [], list(consts) + list(carry) + [_row(x, i) for x in xs])
        carry, ys[i] = outs[:num_carry], outs[num_carry:]
    return carry, ys


def _chunk_body(body, *, num_consts, num_carry, reverse, unroll):
    """The loop body running `unroll` steps on a chunk of rows: (consts, carry, chunks of xs) -> (carry, chunks of
    ys)."""
    n_ys = len(body.out_avals) - num_carry

    def run(*args):
        consts, carry, xs = args[:num_consts], args[num_consts:num_consts + num_carry], args[num_consts + num_carry:]
        order = reversed(range(unroll)) if reverse else range(unroll)
        carry, ys = _steps(body, consts, carry, xs, order, num_carry)
        return list(carry) + [_stack([ys[i][j] for i in range(unroll)]) for j in range(n_ys)]
    return run


def _chunked_scan(operands, *, body, num_consts, num_carry, length, reverse, linear, unroll):
    consts = operands[:num_consts]
    carry = operands[num_consts:num_consts + num_carry]
    xs = operands[num_consts + num_carry:]
    n_ys = len(body.out_avals) - num_carry
    chunks = length // unroll
    if chunks == 1:  # a short scan: every step unrolled
        carry, ys = _steps(body, consts, carry, xs, reversed(range(length)) if reverse else range(length), num_carry)
        return list(carry) + [_stack([ys[i][j] for i in range(length)]) for j in range(n_ys)]
    x_chunks = [bind("reshape", x, new_sizes=(chunks, unroll) + get_aval(x).shape[1:]) for x in xs]
    chunk_avals = [get_aval(v) for v in list(consts) + list(carry)] + \
        [get_aval(x).update(shape=get_aval(x).shape[1:]) for x in x_chunks]
    chunk_prog, chunk_consts = stage(_chunk_body(body, num_consts=num_consts, num_carry=num_carry, reverse=reverse,
                                                 unroll=unroll), chunk_avals)
    _CHUNK_BODIES.add(chunk_prog)
    operands = [*chunk_consts, *consts, *carry, *x_chunks]
    outs = bind("scan", *operands, body=chunk_prog, num_consts=len(chunk_consts) + num_consts, num_carry=num_carry,
                length=chunks, reverse=reverse, linear=(False,) * len(operands))
    return list(outs[:num_carry]) + [bind("reshape", y, new_sizes=(length,) + get_aval(y).shape[2:])
                                     for y in outs[num_carry:]]


def lower_scan(ctx, *args, body, num_consts, num_carry, length, reverse, linear):
    """The llvm-cpu lowering of scan: chunks of steps per loop iteration (a short scan unrolled), or the generic
    rule for a chunk's own loop and for bodies too large to repeat."""
    params = dict(body=body, num_consts=num_consts, num_carry=num_carry, length=length, reverse=reverse,
                  linear=linear)
    unroll = _unroll_factor(body, length)
    if body in _CHUNK_BODIES or unroll < 2 or not ctx.avals_out:
        return generic_rule("scan")(ctx, *args, **params)
    prog, consts = stage(lambda *operands: _chunked_scan(operands, unroll=unroll, **params), ctx.avals_in)
    return inline(ctx, prog, consts, args)
