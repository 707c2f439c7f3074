"""Checks generated from the op table (tests/optable): every row of every primitive gets each of them."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_fn  # noqa: F401  (registers every primitive)
from paddle_fn.core.autodiff import instantiate, jvp_flat, linearize_flat
from paddle_fn.core.batching import vmap_flat
from paddle_fn.core.ir import typecheck_program
from paddle_fn.core.primitive import all_primitives
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import lower_program

from optable import all_rows

ROWS = all_rows()
ids = [r.name for r in ROWS]


def _args(row, seed=0):
    rng = np.random.default_rng(seed)
    return [a.sample(rng) for a in row.args]


def _outputs(row, xs):
    """row.fun applied to Tensors (or tracers), its results as a list."""
    out = row.fun(*xs)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _call(row, *arrays):
    return _outputs(row, [Tensor(a) for a in arrays])


def _np(x):
    return np.asarray(x.concrete_value() if isinstance(x, Tensor) else x)


def _assert_close(got, want, row, what, *, rtol, atol):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{row.name}: {what}: shape {got.shape} != {want.shape}"
    if got.dtype.kind in "biu" and want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=f"{row.name}: {what}")
    else:
        wide = np.complex128 if "c" in (got.dtype.kind, want.dtype.kind) else np.float64
        np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=atol,
                                   err_msg=f"{row.name}: {what}", equal_nan=True)


def test_every_primitive_has_a_row():
    covered = {r.prim.name for r in ROWS}
    missing = sorted(set(all_primitives()) - covered)
    assert not missing, f"primitives without an op-table row: {missing}"


@pytest.mark.parametrize("row", ROWS, ids=ids)
def test_shape_rule_matches_impl(row):
    args = _args(row)
    outs = _call(row, *args)
    prog, consts = trace_to_program(lambda *xs: _outputs(row, xs), [get_aval(Tensor(a)) for a in args], check=True)
    typecheck_program(prog)
    assert [get_aval(o) for o in outs] == prog.out_avals, f"{row.name}: eager {[get_aval(o) for o in outs]} vs " \
                                                          f"traced {prog.out_avals}"


@pytest.mark.parametrize("row", [r for r in ROWS if r.ref is not None], ids=[r.name for r in ROWS if r.ref])
def test_impl_matches_reference(row):
    for seed in (0, 1):
        args = _args(row, seed)
        outs = _call(row, *args)
        want = row.ref(*args)
        want = list(want) if isinstance(want, (list, tuple)) else [want]
        for g, w in zip(outs, want):
            _assert_close(_np(g), w, row, "impl vs reference", rtol=row.rtol, atol=row.atol)


DIFF_ROWS = [r for r in ROWS if r.diff_args]


def _rand_like(rng, x):
    dt = np.asarray(x).dtype
    if dt.kind == "c":
        return (rng.normal(size=np.shape(x)) + 1j * rng.normal(size=np.shape(x))).astype(dt)
    return rng.normal(size=np.shape(x)).astype(dt)


def _pairing(a, b) -> float:
    """Re(sum(a * b)): the real bilinear pairing under which JAX-convention transposes (never conjugating) are
    adjoint; for real arrays the plain dot product."""
    return float(np.real(np.sum(np.asarray(a) * np.asarray(b))))


def _fun_of_diff(row, args):
    """f(*diff_args) with the other arguments fixed, returning the float outputs."""
    d = row.diff_args

    def f(*dxs):
        full = list(map(Tensor, args))
        for i, x in zip(d, dxs):
            full[i] = x
        outs = row.fun(*full)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        return [o for o in outs if get_aval(o).dtype.kind in "fc"]
    return f


@pytest.mark.parametrize("row", DIFF_ROWS, ids=[r.name for r in DIFF_ROWS])
def test_jvp_matches_finite_differences(row):
    rng = np.random.default_rng(1)
    args = _args(row)
    f = _fun_of_diff(row, args)
    primals = [args[i] for i in row.diff_args]
    tangents = [_rand_like(rng, p) for p in primals]
    _, t_out = jvp_flat(f, [Tensor(p) for p in primals], [Tensor(t) for t in tangents])
    eps = row.fd_eps
    plus = f(*[Tensor(p + eps * t) for p, t in zip(primals, tangents)])
    minus = f(*[Tensor(p - eps * t) for p, t in zip(primals, tangents)])
    for tt, a, b in zip(t_out, plus, minus):
        fd = (_np(a) - _np(b)) / (2 * eps)
        _assert_close(_np(tt), fd, row, "jvp vs central differences", rtol=row.fd_rtol, atol=row.fd_atol)


@pytest.mark.parametrize("row", DIFF_ROWS, ids=[r.name for r in DIFF_ROWS])
def test_transpose_dot_product_identity(row):
    """<ct, J t> == <J^T ct, t> for the linearized function."""
    rng = np.random.default_rng(2)
    args = _args(row)
    f = _fun_of_diff(row, args)
    primals = [Tensor(args[i]) for i in row.diff_args]
    outs, lin = linearize_flat(f, primals)
    tangents = [Tensor(_rand_like(rng, _np(p))) for p in primals]
    cts = [Tensor(_rand_like(rng, _np(o))) for o in outs]
    jt = lin(*tangents)
    lhs = sum(_pairing(_np(c), _np(y)) for c, y in zip(cts, jt))
    rhs = sum(_pairing(_np(instantiate(x)), _np(t)) for x, t in zip(lin.transpose(cts), tangents))
    _assert_close(lhs, rhs, row, "transpose identity", rtol=row.linear_tol, atol=row.linear_tol)
    # and linearize agrees with jvp
    _, t_out = jvp_flat(f, primals, tangents)
    for a, b in zip(jt, t_out):
        _assert_close(_np(a), _np(b), row, "linearize vs jvp", rtol=row.linear_tol, atol=row.linear_tol)


SECOND = [r for r in DIFF_ROWS if r.second_order]


@pytest.mark.parametrize("row", SECOND, ids=[r.name for r in SECOND])
def test_second_order(row):
    """The VJP is itself differentiable: its JVP matches central differences of the VJP."""
    rng = np.random.default_rng(3)
    args = _args(row)
    f = _fun_of_diff(row, args)
    primals = [args[i] for i in row.diff_args]
    outs = f(*map(Tensor, primals))
    cts = [Tensor(_rand_like(rng, _np(o))) for o in outs]

    def vjp_of(*xs):
        _, lin = linearize_flat(f, list(xs))
        return [instantiate(c) for c in lin.transpose(cts)]

    tangents = [_rand_like(rng, p) for p in primals]
    _, t_out = jvp_flat(vjp_of, [Tensor(p) for p in primals], [Tensor(t) for t in tangents])
    eps = row.second_order_eps
    plus = vjp_of(*[Tensor(p + eps * t) for p, t in zip(primals, tangents)])
    minus = vjp_of(*[Tensor(p - eps * t) for p, t in zip(primals, tangents)])
    for tt, a, b in zip(t_out, plus, minus):
        fd = (_np(a) - _np(b)) / (2 * eps)
        _assert_close(_np(tt), fd, row, "second order (jvp of vjp) vs finite differences",
                      rtol=row.second_order_rtol, atol=row.second_order_atol)


BATCH_ROWS = [r for r in ROWS if r.batch]


def _placements(row):
    """Batch-axis placements: every axis position of each argument (the others at 0), all at the last axis,
    and each argument alone unbatched (None)."""
    n = len(row.args)
    out = {tuple([0] * n), tuple(["last"] * n)}
    for i, a in enumerate(row.args):
        for ax in range(len(a.shape) + 1):
            out.add(tuple(ax if j == i else 0 for j in range(n)))
    if n > 1:
        for i in range(n):
            out.add(tuple(None if j == i else 0 for j in range(n)))
    return sorted(out, key=repr)


def _stack_at(examples, i, spec):
    stacked = np.stack([ex[i] for ex in examples])
    axis = stacked.ndim - 1 if spec == "last" else spec
    return np.moveaxis(stacked, 0, axis), axis


@pytest.mark.parametrize("row", BATCH_ROWS, ids=[r.name for r in BATCH_ROWS])
def test_vmap_matches_loop(row):
    B = 3
    per_example = [_args(row, seed) for seed in range(B)]
    n_out = len(_call(row, *per_example[0]))
    for placement in _placements(row):
        batched, in_dims = [], []
        for i, spec in enumerate(placement):
            if spec is None:
                batched.append(per_example[0][i])
                in_dims.append(None)
            else:
                b, ax = _stack_at(per_example, i, spec)
                batched.append(b)
                in_dims.append(ax)
        outs = vmap_flat(lambda *xs: _outputs(row, xs), [Tensor(b) for b in batched], in_dims, B, [0] * n_out)
        for b in range(B):
            ex = [per_example[0][i] if d is None else per_example[b][i] for i, d in enumerate(in_dims)]
            for o, w in zip(outs, _call(row, *ex)):
                _assert_close(_np(o)[b], _np(w), row, f"vmap {placement} vs loop", rtol=row.vmap_tol,
                              atol=row.vmap_tol)


@pytest.mark.parametrize("row", BATCH_ROWS, ids=[r.name for r in BATCH_ROWS])
def test_nested_vmap_matches_double_loop(row):
    """vmap(vmap(f)) with the outer batch at the last axis and the inner one at 0."""
    B1, B2 = 2, 3
    ex = [[_args(row, 10 * i + j) for j in range(B2)] for i in range(B1)]
    stacked = []
    for k in range(len(row.args)):
        inner = np.stack([np.stack([ex[i][j][k] for j in range(B2)]) for i in range(B1)])  # (B1, B2, ...)
        stacked.append(np.moveaxis(inner, 0, -1))  # outer batch last
    n_out = len(_call(row, *ex[0][0]))

    def inner_fn(*xs):
        return vmap_flat(lambda *ys: _outputs(row, ys), list(xs), [0] * len(xs), B2, [0] * n_out)

    outs = vmap_flat(inner_fn, [Tensor(s) for s in stacked], [a.ndim - 1 for a in stacked], B1, [0] * n_out)
    for i in range(B1):
        for j in range(B2):
            for o, w in zip(outs, _call(row, *ex[i][j])):
                _assert_close(_np(o)[i, j], _np(w), row, "nested vmap vs double loop", rtol=row.vmap_tol,
                              atol=row.vmap_tol)


LOWER_ROWS = [r for r in ROWS if r.lower]


@pytest.mark.parametrize("row", LOWER_ROWS, ids=[r.name for r in LOWER_ROWS])
def test_lowering_is_valid_stablehlo(row, iree_parse):
    args = _args(row)
    prog, consts = trace_to_program(lambda *xs: _outputs(row, xs), [get_aval(Tensor(a)) for a in args])
    text = lower_program(prog)
    assert "stablehlo" in text or "chlo" in text or not prog.eqns
    iree_parse(text)


def test_op_table_rows_are_deterministic():
    for row in ROWS[:5]:
        a, b = _args(row, 0), _args(row, 0)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("row", DIFF_ROWS, ids=[r.name for r in DIFF_ROWS])
def test_eager_tape_matches_transpose(row):
    """The eager tape (Tensor.backward / paddle.grad) gives the VJP of the linearized function."""
    rng = np.random.default_rng(3)
    args = _args(row)
    f = _fun_of_diff(row, args)
    primals = [Tensor(args[i], stop_gradient=False) for i in row.diff_args]
    full = list(map(Tensor, args))
    for i, x in zip(row.diff_args, primals):
        full[i] = x
    every = _outputs(row, full)
    for o in every:  # float and complex results carry the graph; integer and bool ones never need a gradient
        assert o.stop_gradient == (get_aval(o).dtype.kind not in "fc"), f"{row.name}: stop_gradient of {get_aval(o)}"
    outs = f(*primals)
    if not outs:
        return
    cts = [Tensor(_rand_like(rng, _np(o))) for o in outs]
    got = paddle_fn.grad(outs, primals, grad_outputs=cts, allow_unused=True)
    _, lin = linearize_flat(f, [Tensor(args[i]) for i in row.diff_args])
    # Paddle's complex convention: the conjugate of JAX's cotangent of the conjugated output cotangent
    want = [np.conj(_np(instantiate(x))) for x in lin.transpose([Tensor(np.conj(_np(c))) for c in cts])]
    for g, w, p in zip(got, want, primals):
        _assert_close(np.zeros(p.shape) if g is None else _np(g), _np(w), row, "tape vs transpose",
                      rtol=row.linear_tol, atol=row.linear_tol)
