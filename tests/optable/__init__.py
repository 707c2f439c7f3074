"""The op table: one or more rows per primitive, driving the generated checks in test_op_table.py.

A row names the primitive it exercises, a function of positional array arguments that applies it (with its
parameters fixed), argument specs, a numpy reference, and its own tolerances. Rows live in one module per
primitive family (`elementwise.py`, `structural.py`, ...); `ALL_ROWS` collects them.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np


@dataclass(frozen=True)
class Arg:
    """An argument spec: shape, dtype and value domain.

    domain: 'real' (normal), 'positive' (0.5..2), 'unit' (-0.9..0.9), 'nonzero' (|x| in 0.5..2), 'int' (-5..5),
            'index' (0..`high`-1), 'bool', 'uint' (0..2**32-1), or a callable rng -> np.ndarray. A complex dtype
            draws the real and imaginary parts each from a named domain; a callable one gives the complex values.
    """
    shape: tuple
    dtype: str = "float64"
    domain: object = "real"
    high: int = 3

    def sample(self, rng: np.random.Generator, dtype: Optional[str] = None) -> np.ndarray:
        from paddle_fn.core.dtypes import as_dtype
        dt = as_dtype(dtype or self.dtype).np
        if dt.kind == "c" and not callable(self.domain):  # real and imaginary parts drawn independently
            part = np.finfo(dt).dtype.name
            re = Arg(self.shape, part, self.domain, self.high).sample(rng)
            return (re + 1j * Arg(self.shape, part, self.domain, self.high).sample(rng)).astype(dt)
        if callable(self.domain):
            v = np.asarray(self.domain(rng))
            return v.astype(dt)
        d = self.domain
        shape = self.shape
        if d == "real":
            v = rng.normal(size=shape)
        elif d == "positive":
            v = rng.uniform(0.5, 2.0, size=shape)
        elif d == "unit":
            v = rng.uniform(-0.9, 0.9, size=shape)
        elif d == "nonzero":
            v = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1, 1], size=shape)
        elif d == "int":
            v = rng.integers(-5, 6, size=shape)
        elif d == "index":
            v = rng.integers(0, self.high, size=shape)
        elif d == "bool":
            v = rng.random(size=shape) < 0.5
        elif d == "uint":
            v = rng.integers(0, 2**32, size=shape, dtype=np.uint64)
        else:
            raise ValueError(d)
        return np.asarray(v).astype(dt)

    @property
    def is_float(self) -> bool:
        """Differentiable: a float or complex dtype."""
        return self.dtype in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


@dataclass(frozen=True)
class OpRow:
    """One op-table row.

    fun: applies the primitive (lax level) to positional Tensors.
    ref: numpy reference taking numpy arrays (None: only self-consistency checks).
    diff: indices of arguments to differentiate (default: all float arguments); () disables autodiff checks.
    batch: run the vmap-vs-loop check; lower: check the StableHLO lowering; second_order: check the
    derivative of the VJP too. lower_dtypes: more floating dtypes the IREE run checks the row in (its float
    arguments sampled in that dtype), so float32 kernels are exercised beside the float64 rows.
    Tolerances (for float64 unless the row is float32), one pair per kind of comparison:
    rtol/atol: impl vs the numpy reference. fd_rtol/fd_atol (step fd_eps): the JVP vs central differences.
    second_order_rtol/atol (step second_order_eps): the JVP of the VJP vs central differences of the VJP, a
    difference of differences, so looser. linear_tol: two evaluations of the same linear map that differ only by
    rounding (the transpose identity, linearize vs jvp, the eager tape vs transpose). vmap_tol: vmap vs a loop.
    """
    name: str
    prim: object
    fun: Callable
    args: tuple
    ref: Optional[Callable] = None
    diff: Optional[tuple] = None
    rtol: float = 1e-10
    atol: float = 1e-10
    fd_rtol: float = 1e-6
    fd_atol: float = 1e-7
    fd_eps: float = 1e-6
    second_order_rtol: float = 1e-4
    second_order_atol: float = 1e-5
    second_order_eps: float = 1e-5
    linear_tol: float = 1e-9
    vmap_tol: float = 1e-12
    batch: bool = True
    lower: bool = True
    second_order: bool = True
    lower_dtypes: tuple = ()
    tags: tuple = field(default_factory=tuple)

    @property
    def diff_args(self) -> tuple:
        if self.diff is not None:
            return self.diff
        return tuple(i for i, a in enumerate(self.args) if a.is_float)


FAMILIES = ("elementwise", "structural", "reduction", "control_flow", "random_bits", "custom", "remat", "jit", "conv",
            "linalg", "linalg_eig", "collectives", "assertion", "complex", "fft", "sparse")


def all_rows() -> list[OpRow]:
    rows = []
    for fam in FAMILIES:
        try:
            mod = importlib.import_module(f"optable.{fam}")
        except ModuleNotFoundError as e:
            if e.name == f"optable.{fam}":
                continue
            raise
        rows.extend(mod.ROWS)
    names = [r.name for r in rows]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, f"duplicate op-table row names: {dup}"
    return rows
