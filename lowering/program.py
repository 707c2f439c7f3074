"""Lower a whole `Program` to a StableHLO module text with one public function."""
from __future__ import annotations

from paddle_fn.core.ir import Program
from paddle_fn.lowering.emitter import DEFAULT_TARGET, FuncLowering, Target, tensor_type
from paddle_fn.lowering.targets import lowering_rule


def lower_program(prog: Program, name: str = "main", *, matmul_precision: str = "float32",
                  target: str | Target = DEFAULT_TARGET, use_overrides: bool = True) -> str:
    """Return ``module { func.func @name(...) -> (...) { ... } }`` for `prog` (its inputs become arguments), its
    float32 products at `matmul_precision` (see lowering/precision.py), for `target` (a Target, or an IREE backend
    name: that backend with no CPU named; its overrides in lowering/targets.py apply unless `use_overrides` is
    False)."""
    ctx = FuncLowering(matmul_precision, target=target, overrides=lowering_rule if use_overrides else None)
    args = [f"%arg{i}" for i in range(len(prog.in_vars))]
    outs = ctx.inline(prog, args)
    sig = ", ".join(f"{a}: {tensor_type(v.aval)}" for a, v in zip(args, prog.in_vars))
    rtypes = ", ".join(tensor_type(v.aval) for v in prog.out_vars)
    body = "\n".join(ctx.lines)
    ret = f"    return {', '.join(outs)} : {rtypes}" if outs else "    return"
    declarations = "".join(f"  {d}\n" for d in ctx.declarations)
    return (f"module @paddle_fn {{\n{declarations}  func.func public @{name}({sig}) -> ({rtypes}) {{\n{body}\n{ret}\n"
            "  }\n}\n")
