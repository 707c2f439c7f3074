"""Checked mode: runtime checks compiled into a jit program, reported with the user's line after the call.

`add_checks` re-traces a program with, after each equation, the checks its primitive gives (`error_check`: start
indices in range, integer divisors not zero, decompositions that did not fail) and, for the "nan" kind, whether the
equation made NaN or Inf out of finite inputs. The first failing check (in program order) is found inside the
program: three int scalars are appended to its outputs (the check's number, its failure count and the value its
message quotes), and `raise_failed` turns them into a `CheckError` after the call. JAX's checkify works the same way;
Paddle's FLAGS_check_nan_inf turns every kind on. Without checks nothing is added: a program compiles as it was.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paddle_fn.core import dtypes
from paddle_fn.core.errors import CheckError, IndexCheckError
from paddle_fn.core.ir import Literal, Program, ShapedArray, Var, format_source
from paddle_fn.core.primitive import RuntimeCheck
from paddle_fn.core.program_transforms import closed_program
from paddle_fn.core.staging import attribute_to, restore_attribution
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.base import full
from paddle_fn.prims.control_flow import cond_p, scan_p, while_p
from paddle_fn.prims.custom_derivatives import custom_jvp_call_p, custom_vjp_call_p
from paddle_fn.prims.elementwise import add, convert_element_type, eq, ne, nonfinite_count, select

# the scalars a checked program appends to its outputs: check number (0: all passed), failures, detail
CHECK_AVALS = (ShapedArray((), dtypes.int32), ShapedArray((), dtypes.int32), ShapedArray((), dtypes.int64))


@dataclass(frozen=True)
class CheckSite:
    """What a failing check reports: its kind, the op, the user's line that staged the op, and the message."""
    kind: str
    op: str
    source: object
    message: str


class _CheckedEval:
    """Evaluates a program equation by equation (under the staging trace of `add_checks`), adding checks. A
    control-flow body is re-traced with its own checks, its first failure as extra results (a loop carries it)."""

    def __init__(self, call_prim):
        self.call_prim, self.sites = call_prim, []
        self.nonfinite: dict = {}   # id(value) -> its count of NaN/Inf elements, computed once per value
        self.keep: list = []        # the values `nonfinite` is keyed by, kept alive

    def run(self, prog, args, kinds, found):
        """`prog`'s outputs on `args`; each check made goes to `found` as (failed, number, failures, detail)."""
        env = dict(zip(prog.in_vars, args))

        def read(v):
            return Tensor(v.val) if isinstance(v, Literal) else env[v]

        for eqn in prog.eqns:
            previous = attribute_to(eqn.source)
            try:
                outs = self.equation(eqn, [read(v) for v in eqn.inputs], kinds, found)
            finally:
                restore_attribution(previous)
            env.update(zip(eqn.outputs, outs))
        return [read(v) for v in prog.out_vars]

    def equation(self, eqn, ins, kinds, found):
        prim, params = eqn.prim, eqn.params
        if prim is self.call_prim:  # a jit inside: inlined when lowered, so checked inside with its own kinds too
            return self.run(params["program"], ins, tuple(sorted(set(kinds) | set(params["checks"]))), found)
        if prim in (custom_jvp_call_p, custom_vjp_call_p):  # inlined when lowered; nothing differentiates it now
            return self.run(params["call"], ins, kinds, found)
        if prim is cond_p:
            branches = tuple(self.checked_body(b, kinds) for b in params["branches"])
            outs = cond_p.bind(*ins, **dict(params, branches=branches))
        elif prim is while_p:
            outs = self.loop_while(ins, params, kinds)
        elif prim is scan_p:
            outs = self.loop_scan(ins, params, kinds)
        else:
            outs = prim.bind(*ins, **params)
            outs = outs if prim.multiple_results else [outs]
            self.check(eqn, ins, outs, kinds, found)
            return outs
        outs, code, failures, detail = outs[:-_N], *outs[-_N:]
        found.append((ne(code, _zero(dtypes.int32)), code, failures, detail))
        return outs

    def checked_body(self, body, kinds, carried=False):
        """`body` re-traced with its checks: the first failure as _N extra results after its own, or, `carried`,
        as _N extra inputs too (after the leading ones, see `_insert`) holding the failure so far, kept if any."""
        def checked(*args):
            args = list(args)
            before = args[len(body.in_vars):] if carried else None
            found = []
            outs = self.run(body, args[:len(body.in_vars)], kinds, found)
            failure = _first_failure(found)
            if carried:
                kept = ne(before[0], _zero(dtypes.int32))
                failure = [select(kept, b, f) for b, f in zip(before, failure)]
            return outs + failure
        in_avals = body.in_avals + (list(CHECK_AVALS) if carried else [])
        return closed_program(checked, in_avals, transform="checks")

    def loop_while(self, ins, params, kinds):
        """A while loop carrying the first failure of its body (its condition runs unchecked)."""
        n_consts = params["cond_nconsts"] + params["body_nconsts"]
        body = _move_tail(self.checked_body(params["body_prog"], kinds, carried=True), params["body_nconsts"],
                          _N, len(params["body_prog"].out_vars))
        cond = params["cond_prog"]
        cond = Program(cond.in_vars + tuple(Var(a) for a in CHECK_AVALS), cond.eqns, cond.out_vars)
        cond = _move_tail(cond, params["cond_nconsts"], _N, None)
        outs = while_p.bind(*ins[:n_consts], *_no_failure(), *ins[n_consts:],
                            **dict(params, cond_prog=cond, body_prog=body))
        return outs[_N:] + outs[:_N]

    def loop_scan(self, ins, params, kinds):
        """A scan carrying the first failure of its body."""
        n_consts, n_carry = params["num_consts"], params["num_carry"]
        body = self.checked_body(params["body"], kinds, carried=True)
        body = _move_tail(body, n_consts, _N, n_carry)
        linear = params["linear"]
        outs = scan_p.bind(*ins[:n_consts], *_no_failure(), *ins[n_consts:],
                           **dict(params, body=body, num_carry=n_carry + _N,
                                  linear=linear[:n_consts] + (False,) * _N + linear[n_consts:]))
        return outs[_N:_N + n_carry] + outs[_N + n_carry:] + outs[:_N]

    def check(self, eqn, ins, outs, kinds, found):
        if eqn.prim.error_check is not None:
            for c in eqn.prim.error_check(ins, outs, **eqn.params):
                if c.kind in kinds:
                    self.add(c, eqn, found)
        if "nan" in kinds and any(get_aval(o).dtype.kind == "f" for o in outs):
            made = self.count(outs)
            shapes = ", ".join(fmt(get_aval(o)) for o in outs)
            inputs = [x for x in ins if get_aval(x).dtype.kind == "f"]
            zero = _zero(dtypes.int32)
            failures = made if not inputs else select(eq(self.count(inputs), zero), made, zero)
            self.add(RuntimeCheck("nan", failures, None, f"{eqn.prim.name} produced {{failures}} NaN or Inf values "
                                  f"in its result ({shapes}) from finite inputs"), eqn, found)

    def count(self, values):
        """The NaN/Inf count of `values` together, each value's own count computed once."""
        total = None
        for v in values:
            n = self.nonfinite.get(id(v))
            if n is None:
                n = self.nonfinite[id(v)] = nonfinite_count([v])
                self.keep.append(v)
            total = n if total is None else add(total, n)
        return total

    def add(self, check: RuntimeCheck, eqn, found):
        self.sites.append(CheckSite(check.kind, eqn.prim.name, eqn.source, check.message))
        failures = convert_element_type(check.failures, new_dtype=dtypes.int32)
        detail = _zero(dtypes.int64) if check.detail is None else convert_element_type(check.detail,
                                                                                       new_dtype=dtypes.int64)
        found.append((ne(failures, _zero(dtypes.int32)), full((), len(self.sites), dtypes.int32), failures, detail))


_N = len(CHECK_AVALS)


def _zero(dtype):
    return full((), 0, dtype)


def _no_failure():
    return [_zero(a.dtype) for a in CHECK_AVALS]


def _first_failure(found):
    """[number of the first failing check or 0, its failures, its detail], computed in the program."""
    result = _no_failure()
    for failed, *values in reversed(found):  # from the last, so that the first failing one is kept
        result = [select(failed, v, r) for v, r in zip(values, result)]
    return result


def _move_tail(prog, at, n, out_at):
    """`prog` with its last `n` inputs moved to position `at` (a loop's carry starts there) and, unless `out_at` is
    None, its last `n` outputs moved to the front (the carry's first)."""
    ins = prog.in_vars
    ins = ins[:at] + ins[-n:] + ins[at:-n]
    outs = prog.out_vars if out_at is None else prog.out_vars[-n:] + prog.out_vars[:-n]
    return Program(ins, prog.eqns, outs)


def add_checks(prog, kinds, call_prim):
    """(checked program, its CheckSites): `prog` with the checks of `kinds` (config.CHECK_KINDS) after its
    equations and the CHECK_AVALS scalars after its outputs; (`prog`, ()) when nothing in it is checked.
    Equations of `call_prim` (jit's call) are checked inside, with their own kinds added.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.transforms.checks import add_checks
        >>> from paddle_fn.transforms.jit import jit_call_p
        >>> program = paddle.make_ir(paddle.log)(paddle.ones([2])).program
        >>> checked, sites = add_checks(program, ("nan",), jit_call_p)
        >>> [site.op for site in sites], [a.str_short() for a in checked.out_avals]
        (['log'], ['f32[2]', 'i32[]', 'i32[]', 'i64[]'])
    """
    evaluator = _CheckedEval(call_prim)

    def checked(*args):
        found = []
        outs = evaluator.run(prog, list(args), kinds, found)
        return outs + _first_failure(found)

    checked_prog = closed_program(checked, prog.in_avals, transform="checks")
    if not evaluator.sites:
        return prog, ()
    return checked_prog, tuple(evaluator.sites)


def raise_failed(name, sites, code, failures, detail) -> None:
    """Raise the CheckError of the check numbered `code` (1-based in `sites`) if any failed."""
    code = int(np.asarray(code))
    if code == 0:
        return
    site = sites[code - 1]
    message = site.message.format(failures=int(np.asarray(failures)), detail=int(np.asarray(detail)))
    error = IndexCheckError if site.kind == "index" else CheckError
    raise error(f"jit({name}): {site.kind} check failed in {site.op} at {format_source(site.source)}: {message}. "
                f"(Checked mode is on: jit(..., checks=...), paddle_fn.config.checks or FLAGS_check_nan_inf.)")
