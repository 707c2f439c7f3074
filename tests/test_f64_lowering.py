"""float64 expansions of lowering/f64_math.py: the text parses, and compiled with IREE it matches numpy.

IREE's CPU executables flush subnormals to zero (inputs and outputs, every op), so the numpy reference is
computed on flushed inputs and flushed in turn; "normal arguments" below means that.
"""
import functools
import math
import os

import numpy as np
import pytest
import scipy.special as sps

from paddle_fn.core.ir import ShapedArray
from paddle_fn.lowering import f64_math
from paddle_fn.lowering.emitter import FuncLowering, tensor_type
from paddle_fn.lowering.f64_math import F64_EXPANSIONS

BINARY = {"atan2", "rem"}
def _digamma(x):
    """scipy's digamma, with mpmath (if there) at negative x: scipy is off there by ~ulp(x)/distance-to-pole."""
    out = sps.digamma(x)
    try:
        import mpmath
    except ImportError:
        return out
    negative = np.isfinite(x) & (x < 0) & (x != np.floor(x))
    out[negative] = [float(mpmath.digamma(v)) for v in x[negative]]
    return out


NUMPY = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "expm1": np.expm1, "log1p": np.log1p,
         "sinh": np.sinh, "cosh": np.cosh, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos,
         "atan2": np.arctan2, "rem": np.fmod, "digamma": _digamma,
         "lgamma": lambda x: np.where(x == -np.inf, np.inf, sps.gammaln(x)),  # math.lgamma(-inf); scipy says -inf
         "polygamma": functools.partial(sps.polygamma, 1)}
MAX_ULP = {"sin": 2, "cos": 2, "tan": 3, "tanh": 2, "expm1": 2, "log1p": 2, "sinh": 2, "cosh": 2, "atan": 2,
           "asin": 2, "acos": 2, "atan2": 2, "rem": 0}
# lgamma/digamma are accurate in absolute terms (relative error grows near their roots); polygamma goes through
# chlo.zeta.
GAMMA_TOLERANCE = {"lgamma": (1e-14, 3e-14), "digamma": (1e-14, 3e-15), "polygamma": (1e-14, 0.0)}  # (rtol, atol)
TINY = np.finfo(np.float64).tiny


def _function(name, aval):
    ctx = FuncLowering()
    args = [f"%arg{i}" for i in range(2 if name in BINARY else 1)]
    emit = functools.partial(F64_EXPANSIONS[name], m=1) if name == "polygamma" else F64_EXPANSIONS[name]
    out = emit(ctx, *args, aval)
    t = tensor_type(aval)
    sig = ", ".join(f"{a}: {t}" for a in args)
    body = "\n".join(ctx.lines)
    return f"  func.func @{name}({sig}) -> {t} {{\n{body}\n    return {out} : {t}\n  }}"


def _module(names, aval):
    return "module {\n" + "\n".join(_function(n, aval) for n in names) + "\n}\n"


def test_every_primitive_name_has_a_numpy_reference():
    assert set(F64_EXPANSIONS) == set(NUMPY)


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_expansions_parse_and_verify(iree_parse, shape):
    pytest.importorskip("iree.compiler")
    iree_parse(_module(sorted(F64_EXPANSIONS), ShapedArray(shape, "float64")))


def test_tanh_polynomial_rederives():
    """TANH_P is the degree-16 interpolant of (tanh(x) - x) / x^3 in z = x^2 at the Chebyshev nodes of [0, 1]."""
    mp = pytest.importorskip("mpmath")
    mp.mp.prec = 200
    degree = len(f64_math.TANH_P) - 1

    def f(z):
        x = mp.sqrt(z)
        return (mp.tanh(x) - x) / (x * z)

    nodes = [(1 + mp.cos(mp.pi * (2 * k + 1) / (2 * (degree + 1)))) / 2 for k in range(degree + 1)]
    coeffs = mp.lu_solve(mp.matrix([[z ** j for j in range(degree + 1)] for z in nodes]),
                         mp.matrix([f(z) for z in nodes]))
    assert [float(c) for c in coeffs] == f64_math.TANH_P
    grid = [mp.mpf(i) / 256 + mp.mpf(2) ** -40 for i in range(256)]
    assert max(abs(sum(c * z ** j for j, c in enumerate(coeffs)) - f(z)) for z in grid) < 1e-18


def test_split_constants_rederive():
    mp = pytest.importorskip("mpmath")
    mp.mp.prec = 300
    pio2 = mp.pi / 2
    assert abs(mp.mpf(f64_math.PIO2_1) + f64_math.PIO2_2 + f64_math.PIO2_3 - pio2) < mp.mpf(2) ** -120
    for part in (f64_math.PIO2_1, f64_math.PIO2_2):  # 33 significant bits: k * part exact for |k| < 2^20
        assert math.frexp(part)[0] * 2 ** 33 == int(math.frexp(part)[0] * 2 ** 33)
    assert abs(mp.mpf(f64_math.LN2_HI) + f64_math.LN2_LO - mp.log(2)) < mp.mpf(2) ** -100
    assert math.frexp(f64_math.LN2_HI)[0] * 2 ** 42 == int(math.frexp(f64_math.LN2_HI)[0] * 2 ** 42)
    for i, c in enumerate([0, mp.atan(0.5), mp.pi / 4, mp.atan(1.5), pio2]):
        assert abs(mp.mpf(f64_math.ATAN_HI[i]) + f64_math.ATAN_LO[i] - c) < mp.mpf(2) ** -104
        pi_minus = mp.mpf(f64_math.PI_MINUS_ATAN_HI[i]) + f64_math.PI_MINUS_ATAN_LO[i]
        assert abs(pi_minus - (mp.pi - c)) < mp.mpf(2) ** -104


def test_lead_hook_replaces_libm_ops(iree_parse):
    """The hook suggested for elementwise.py, tried by patching the (frozen) primitives: no f64 sine/fmod left."""
    pytest.importorskip("iree.compiler")
    import paddle_fn as pf
    from paddle_fn.core.staging import trace_to_program
    from paddle_fn.core.trace import Tensor, get_aval
    from paddle_fn.lowering import lower_program
    from paddle_fn.prims import elementwise as E

    originals = {prim: prim.lower for prim in (E.sin_p, E.rem_p)}

    def hooked(prim, original):
        def lower(ctx, *xs):
            if ctx.avals_in[0].dtype == "float64":
                return F64_EXPANSIONS[prim.name](ctx, *xs, ctx.avals_in[0])
            return original(ctx, *xs)
        return lower
    try:
        for prim, original in originals.items():
            object.__setattr__(prim, "lower", hooked(prim, original))
        x = Tensor(np.linspace(-3, 3, 4))
        prog, _ = trace_to_program(lambda a: [E.rem(E.sin(a), a), pf.sin(a.astype("float32"))], [get_aval(x)])
        text = lower_program(prog)
    finally:
        for prim, original in originals.items():
            object.__setattr__(prim, "lower", original)
    assert "stablehlo.sine" in text and "stablehlo.sine %arg0" not in text  # only the f32 sine stays
    assert "stablehlo.remainder" not in text and "stablehlo.while" in text
    iree_parse(text)


def test_other_targets_keep_the_native_float64_operations():
    """The expansions are llvm-cpu overrides (lowering/targets.py): a cuda lowering of float64 sin keeps the sine."""
    import paddle_fn as pf
    lowered = pf.jit(pf.sin).lower(pf.to_tensor(np.linspace(-3, 3, 4)))
    assert "stablehlo.sine" in lowered.as_text("cuda") and "stablehlo.sine" not in lowered.as_text("llvm-cpu")


# ----------------------------------------------------------------------------------------------- IREE vs numpy

def _flush(a):
    return np.where(np.abs(a) < TINY, np.copysign(0.0, a), a)


def _ulp_error(got, want):
    """|got - want| in ulps of want; nan vs nan and equal values (zeros with equal signs) are 0, mismatches inf."""
    got, want = _flush(got), _flush(want)
    with np.errstate(all="ignore"):
        err = np.abs(got - want) / np.spacing(np.abs(want))
    same = (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))
    err[same] = 0.0
    err[~same & ((got == want) | np.isnan(err))] = np.inf
    return err


def _tolerance_error(got, want, rtol, atol):
    """|got - want| / (rtol |want| + atol); equal values and nan vs nan are 0, other non-finite mismatches inf."""
    with np.errstate(all="ignore"):
        err = np.abs(got - want) / (rtol * np.abs(want) + atol)
    err[(np.isnan(got) & np.isnan(want)) | (got == want)] = 0.0
    err[np.isnan(err)] = np.inf
    return err


def _points(name, n, rng):
    def log_uniform(lo, hi, size, signed=True):
        v = np.exp(rng.uniform(np.log(lo), np.log(hi), size))
        return v * rng.choice([-1.0, 1.0], size) if signed else v

    edge = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 5e-324, 1e-300, -1e-300, 1.0, -1.0])
    if name in ("sin", "cos", "tan"):
        multiples = rng.integers(-60000, 60000, n // 16) * (np.pi / 2)  # the doubles nearest k pi/2, |x| < 1e5
        near_pio2 = np.concatenate([multiples, np.nextafter(multiples, np.inf), np.nextafter(multiples, -np.inf),
                                    multiples + rng.normal(0, 1e-10, multiples.size)])
        parts = [rng.uniform(-4, 4, n // 4), log_uniform(1e-12, 1e5, n // 4), near_pio2, rng.uniform(-1e5, 1e5, n // 8)]
    elif name in ("asin", "acos"):
        parts = [rng.uniform(-1, 1, n // 2), (1 - log_uniform(1e-16, 0.5, n // 4, False)) * rng.choice([-1, 1], n // 4),
                 log_uniform(1e-300, 1, n // 8), np.array([1.5, -2.0, np.nextafter(1, 2)])]
    elif name in ("lgamma", "digamma"):
        parts = [rng.uniform(-20, 20, n // 2), log_uniform(1e-300, 1e10, n // 4), rng.uniform(0.5, 3, n // 4),
                 np.arange(-5.0, 3.0)]
    elif name == "polygamma":  # scipy's polygamma does not return for some large negative arguments
        parts = [rng.uniform(-5, 20, n // 2), log_uniform(1e-5, 1e5, n // 2, False), np.arange(-3.0, 3.0)]
    elif name in BINARY:
        grid = np.array(np.meshgrid(edge, np.concatenate([edge, [3.0, -7.5, 1e300]]))).reshape(2, -1)
        y = np.concatenate([grid[0], log_uniform(1e-300, 1e300, n // 3), rng.normal(size=n // 3),
                            rng.uniform(-1e5, 1e5, n // 3)])
        x = np.concatenate([grid[1], log_uniform(1e-300, 1e300, n // 3), rng.normal(size=n // 3),
                            rng.uniform(-10, 10, n // 3)])
        return np.resize(y, n), np.resize(x, n)
    else:
        parts = [rng.uniform(-3, 3, n // 4), log_uniform(1e-300, 800, n // 2), rng.uniform(-40, 40, n // 8),
                 rng.uniform(700, 711, n // 16), -log_uniform(1e-8, 1, n // 16, False)]
    return (np.resize(np.concatenate([edge] + parts), n),)


@pytest.mark.heavy
def test_expansions_match_numpy_through_iree():
    """ONE compile holding every expansion; max ulp error per op reported on failure and asserted."""
    ic = pytest.importorskip("iree.compiler")
    import iree.runtime as rt

    n = 40000 if os.environ.get("PADDLE_FN_HEAVY") else 4096
    names = sorted(F64_EXPANSIONS)
    vmfb = ic.compile_str(_module(names, ShapedArray((n,), "float64")), target_backends=["llvm-cpu"],
                          input_type="stablehlo",
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-input-demote-f64-to-f32=false"])
    ctx = rt.SystemContext(config=rt.Config("local-sync"))
    ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
    rng = np.random.default_rng(0)
    report, failures = [], []
    for name in names:
        args = _points(name, n, rng)
        got = np.asarray(ctx.modules.module[name](*args))
        with np.errstate(all="ignore"):
            want = NUMPY[name](*[_flush(a) for a in args])
        if name in GAMMA_TOLERANCE:
            err, limit, unit = _tolerance_error(got, want, *GAMMA_TOLERANCE[name]), 1, "x tolerance"
        else:
            err, limit, unit = _ulp_error(got, want), MAX_ULP[name], "ulp"
        worst = int(np.argmax(err))
        report.append(f"{name}: max {err.max():g} {unit} at {[a[worst] for a in args]} (got {got[worst]!r}, "
                      f"numpy {want[worst]!r})")
        if err.max() > limit:
            failures.append(report[-1])
    print("\n".join(report))
    assert not failures, "\n".join(failures)
