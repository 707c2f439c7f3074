"""Calls from compiled CPU programs to host kernels: a primitive's own eager implementation (ducc's FFT, numpy's
sort, LAPACK through numpy and scipy) run by paddle_fn's runtime in the calling process, as XLA's CPU backend calls
ducc's FFT and LAPACK.

Where IREE has no kernel of its own for an operation (it has no FFT but a radix-2 one, no eigen- or singular value
decomposition), the forms paddle_fn builds from other operations (DFT products, Jacobi sweeps, shifted QR
iterations) run 10-300x slower than the library routine, which the eager path already calls. On a target whose
programs run in this process (`Target.host_kernels`: jit on one CPU device) an override lowers such a primitive to
a call of its implementation when the work is large enough to pay for the call (about 30-60 us: IREE waits for
the operands, the kernel runs, its results are copied into a new buffer); smaller ones, and every other target,
keep the compiled form. Compiled and eager results are then the same numbers.

The call names function `call_<operands>_<results>_<site>_<spec>` of module MODULE: one declaration per call site,
since each has its own tensor types, and the spec, the hexadecimal JSON of the primitive's name and parameters
(`encode_spec`), which the handler (transforms/host_kernels.py) decodes; the runtime (runtime/host_kernels.py) reads
the names back from the compiled module and serves them. (In the name, not a constant operand: a constant is
copied into a buffer of its own on every call, one more submission to IREE's worker threads, 13-50 us.)
"""
from __future__ import annotations

import json
import math

from paddle_fn.core.primitive import get_primitive
from paddle_fn.lowering.emitter import tensor_type

MODULE = "paddle_fn_host"
# primitive -> the work from which a host call is made, for the primitives an override lowers to host calls (the
# only ones the handler runs); set by `lower_on_host`, read when a rule lowers
MIN_WORK: dict = {}
# The pattern of the names a program imports (read back from its compiled module by the runtime): the operand count,
# the result count and the spec
FUNCTION_PATTERN = rb"call_(\d+)_(\d+)_\d+_([0-9a-f]+)"


def encode_spec(name: str, params: dict) -> str:
    """The spec naming primitive `name` applied with `params`: its JSON (tuples become lists), in hexadecimal digits,
    which a function name can hold.

    Example:
        >>> spec = encode_spec("fft", {"fft_type": "RFFT", "fft_length": (8,)})
        >>> bytes.fromhex(spec)
        b'{"params":{"fft_length":[8],"fft_type":"RFFT"},"primitive":"fft"}'
        >>> decode_spec(spec)
        ('fft', {'fft_length': (8,), 'fft_type': 'RFFT'})
    """
    return json.dumps({"primitive": name, "params": params}, sort_keys=True, separators=(",", ":")).encode().hex()


def decode_spec(spec: str) -> tuple:
    """(primitive name, params) of `encode_spec`'s spec, lists back to tuples (the primitives' parameters are
    tuples, and hashable)."""
    def tuples(value):
        return tuple(tuples(v) for v in value) if isinstance(value, list) else value
    spec = json.loads(bytes.fromhex(spec).decode())
    return spec["primitive"], {key: tuples(value) for key, value in spec["params"].items()}


def matrix_work(avals_in, avals_out, **params) -> float:
    """About n^3 operations for each matrix of the first operand (n its larger side), whatever their number: the
    work of one dense decomposition or solve. Per matrix, since the libraries pay a fixed cost per matrix (10-60 us)
    that IREE's code, vectorized over a batch, does not: 1,000 LUs of 16 x 16 ran 1.8x faster compiled, one 1.9x
    faster on the host."""
    return max(avals_in[0].shape[-2:]) ** 3


def sort_work(avals_in, avals_out, *, dimension, **params) -> float:
    """About n log2 n comparisons per sorted line of n elements, for sort (which has no `cost` of its own)."""
    n = avals_in[0].shape[dimension]
    return avals_in[0].size * max(math.log2(max(n, 1)), 1)


def host_call(ctx, name: str, operands, **params):
    """Emit the call of primitive `name`'s implementation on `operands` (ctx.avals_in -> ctx.avals_out); return its
    result name(s)."""
    avals_in, avals_out = list(ctx.avals_in), list(ctx.avals_out)
    function = (f"{MODULE}.call_{len(avals_in)}_{len(avals_out)}_{len(ctx.declarations)}_"
                f"{encode_spec(name, params)}")
    ins = ", ".join(tensor_type(a) for a in avals_in)
    outs = ", ".join(tensor_type(a) for a in avals_out)
    ctx.declarations.append(f"func.func private @{function}({ins}) -> ({outs})")
    result = ctx.fresh()
    count = f":{len(avals_out)}" if len(avals_out) > 1 else ""
    ctx.line(f"{result}{count} = func.call @{function}({', '.join(operands)}) : ({ins}) -> ({outs})")
    if not get_primitive(name).multiple_results:
        return result
    return [f"{result}#{i}" for i in range(len(avals_out))] if len(avals_out) > 1 else [result]


def lower_on_host(name: str, compiled_rule, *, min_work: float, work=None):
    """The rule lowering primitive `name` as a host call where the target allows it and its work (`work(avals_in,
    avals_out, **params)`, by default the primitive's `cost`) is at least `min_work` (MIN_WORK[name] when it
    lowers); by `compiled_rule` else."""
    MIN_WORK[name] = min_work

    def lower(ctx, *operands, **params):
        estimate = work or get_primitive(name).cost
        if ctx.target.host_kernels and estimate(ctx.avals_in, ctx.avals_out, **params) >= MIN_WORK[name]:
            return host_call(ctx, name, operands, **params)
        return compiled_rule(ctx, *operands, **params)
    return lower
