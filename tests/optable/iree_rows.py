"""The op-table rows as one IREE module: a function per lowered row, run on the row's arguments and compared with
the eager (numpy) result. tests/test_lowering.py runs it on the CPU, tests/test_gpu.py on an NVIDIA GPU."""
from __future__ import annotations

import numpy as np

from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import lower_program

from optable import all_rows


def as_list(o):
    return list(o) if isinstance(o, (list, tuple)) else [o]


def rows_with_programs() -> list:
    """(row, program, arguments) for every lowered row, once in its own dtypes and once per `lower_dtypes`."""
    out = []
    for row in all_rows():
        if not row.lower:
            continue
        for dtype in (None,) + tuple(row.lower_dtypes):
            rng = np.random.default_rng(0)
            args = [a.sample(rng, dtype if a.is_float else None) for a in row.args]
            prog, consts = trace_to_program(lambda *xs, row=row: as_list(row.fun(*xs)),
                                            [get_aval(Tensor(a)) for a in args])
            out.append((row, prog, [np.asarray(c.concrete_value()) for c in consts] + args))
    return out


def rows_module(cases, target=None) -> str:
    """One StableHLO module holding function ``row<i>`` for each case, lowered for `target` (an emitter Target;
    None: the default, llvm-cpu)."""
    options = {} if target is None else {"target": target}
    funcs = []
    for i, (row, prog, _) in enumerate(cases):
        text = lower_program(prog, name=f"row{i}", **options)
        funcs.append(text[text.index("func.func"):text.rindex("}")].rstrip())
    return "module @paddle_fn_rows {\n  " + "\n  ".join(funcs) + "\n}\n"


def mismatches(cases, call) -> list:
    """The cases whose `call(i, arguments)` (the results of function ``row<i>``) fail or differ from eager."""
    failures = []
    for i, (row, prog, args) in enumerate(cases):
        try:
            got = as_list(call(i, args))
        except Exception as error:  # noqa: BLE001 - report every failing row, not just the first
            failures.append(f"{row.name}: IREE failed: {str(error).splitlines()[0][:200]}")
            continue
        want = as_list(row.fun(*[Tensor(a) for a in args[len(args) - len(row.args):]]))
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w.concrete_value())
            if w.dtype.kind in "fc":
                tol = 2e-3 if w.dtype.itemsize < 4 else 1e-5
                ok = g.shape == w.shape and np.allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
            else:
                ok = g.shape == w.shape and np.array_equal(g, w)
            if not ok:
                failures.append(f"{row.name}: IREE {g.ravel()[:6]} vs eager {w.ravel()[:6]}")
    return failures
