"""The op-table rows as one IREE module: a function per lowered row, run on the row's arguments and compared with
the eager (numpy) result. tests/test_lowering.py runs it on the CPU, tests/test_gpu.py on an NVIDIA GPU."""
from __future__ import annotations

import os

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


def compile_and_run_on_cpu(cases, target=None) -> list:
    """`mismatches` of the cases lowered for `target` (an emitter Target; None: llvm-cpu's) and compiled, as one
    module, for llvm-cpu and run there: a GPU target's forms are StableHLO like any other, so the CPU checks their
    numbers."""
    import iree.compiler as ic
    import iree.runtime as rt
    # the reduced form CI runs: IREE's -O0 pipeline (about 60% of the compile time of all ~200 rows);
    # PADDLE_FN_HEAVY=1 compiles them with the flags jit uses
    reduced = [] if os.environ.get("PADDLE_FN_HEAVY") else ["--iree-opt-level=O0", "--mlir-disable-threading"]
    vmfb = ic.compile_str(rows_module(cases, target), target_backends=["llvm-cpu"], input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"]
                          + reduced)
    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    mod = ctx.modules.paddle_fn_rows
    return mismatches(cases, lambda i, args: mod[f"row{i}"](*[np.asarray(a) for a in args]))
