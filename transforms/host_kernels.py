"""The host kernels compiled CPU programs call (lowering/host_calls.py): each is a primitive's own eager
implementation, named with its parameters by the spec in the called function's name. `install`ed into the runtime
when jit is imported, so every program that jit loads, from a fresh compile or the disk cache, finds them.

Only the primitives an override lowers to host calls run here (a program from a tampered cache could name
another); each result is checked against the shape and dtype the primitive's shape rule gives, so a kernel never
hands IREE a buffer of another layout than the program declared (IREE checks it too, with a less
helpful message).
"""
from __future__ import annotations

import functools

import numpy as np

from paddle_fn.core.dtypes import as_dtype
from paddle_fn.core.errors import ShapeError
from paddle_fn.core.ir import ShapedArray
from paddle_fn.core.primitive import get_primitive
from paddle_fn.lowering import host_calls
from paddle_fn.runtime import host_kernels as runtime_host_kernels


@functools.lru_cache(maxsize=1024)
def _kernel(spec: str) -> tuple:
    """(primitive, params) that `spec` names, decoded once per spec (a program calls its kernels again and again)."""
    name, params = host_calls.decode_spec(spec)
    if name not in host_calls.MIN_WORK:
        raise ValueError(f"a compiled program called host kernel {name!r}, which is not one of "
                         f"{sorted(host_calls.MIN_WORK)}")
    return get_primitive(name), params


def run_kernel(spec: str, operands: list) -> list:
    """The results of the primitive `spec` names on the numpy arrays `operands`, as a list.

    Example:
        >>> import numpy as np
        >>> from paddle_fn.lowering.host_calls import encode_spec
        >>> spec = encode_spec("fft", {"fft_type": "FFT", "fft_length": (4,)})
        >>> run_kernel(spec, [np.array([1, 0, 0, 0], np.complex64)])[0]
        array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    prim, params = _kernel(spec)
    results = prim.impl(*operands, **params)
    results = list(results) if prim.multiple_results else [results]
    expected = _result_types(spec, tuple((x.shape, x.dtype) for x in operands))
    for result, aval in zip(results, expected):
        if result.shape != aval.shape or np.dtype(result.dtype) != aval.dtype.np:
            raise ShapeError(f"host kernel {prim.name}: its implementation gave {result.dtype}{list(result.shape)} "
                             f"where the program expects {aval.dtype.name}{list(aval.shape)}")
    return results


@functools.lru_cache(maxsize=1024)
def _result_types(spec: str, operand_types: tuple) -> list:
    """The avals the primitive `spec` names gives for operands of these (shape, numpy dtype), by its shape rule,
    once per program's call."""
    prim, params = _kernel(spec)
    expected = prim.shape_rule(*(ShapedArray(shape, as_dtype(dtype)) for shape, dtype in operand_types), **params)
    return list(expected) if prim.multiple_results else [expected]


def install():
    """Serve the kernels to the programs the runtime loads from now on (jit does it when it is imported)."""
    runtime_host_kernels.install(host_calls.MODULE, host_calls.FUNCTION_PATTERN, run_kernel)
