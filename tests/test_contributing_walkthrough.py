"""The contributing guide's walkthrough, run: a new primitive with a direct reverse rule and a lowering override
for one target is one block plus one table row, and every transform, the eager tape and jit take it without any
other change (docs/contributing.md points here).

The primitive is softsign, x / (1 + |x|). It is removed from the registry (and the override table) afterwards, so
the op table's "every primitive has a row" check never sees it.
"""
import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn.core import tape
from paddle_fn.core.primitive import ELEMENTWISE, NONLINEAR, Primitive, _REGISTRY
from paddle_fn.lowering import lower_program, targets
from paddle_fn.lowering.staged import bind, inline, stage
from paddle_fn.prims import elementwise as E
from paddle_fn.prims._rules import require_kind
from paddle_fn.prims.base import full_like

REVERSE_CALLS = []


@pytest.fixture
def softsign():
    # ---- the primitive's block: every rule, the optional direct reverse rule, then the wrapper
    def shape_rule(x):
        require_kind("softsign", x, "f", "a floating-point")
        return x

    def impl(x):
        return (x / (1 + np.abs(x))).astype(x.dtype)

    def derivative(x):  # 1 / (1 + |x|)^2, written with public ops so it is differentiable and batchable itself
        one = full_like(x, 1.0)
        d = E.add(one, E.abs(x))
        return E.div(one, E.mul(d, d))

    def jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return softsign_p.bind(x), E.mul(t, derivative(x))

    def vjp(primals, ct):
        REVERSE_CALLS.append(1)
        return [E.mul(ct, derivative(primals[0]))]

    def lower(ctx, x):  # the generic StableHLO form, correct on every target
        one = ctx.constant(1.0, ctx.avals_in[0])
        return ctx.op("stablehlo.divide", [x, ctx.op("stablehlo.add", [one, ctx.op("stablehlo.abs", [x])],
                                                     in_avals=ctx.avals_in * 2)], in_avals=ctx.avals_in * 2)

    softsign_p = Primitive("softsign_walkthrough", shape_rule=shape_rule, impl=impl, jvp=jvp, vjp=vjp,
                           transpose=NONLINEAR, batch=ELEMENTWISE, lower=lower)

    # ---- one row of the override table: another form for one target, staged from other primitives:
    # sign(x) * (1 - 1 / (1 + |x|)), the same function
    def cpu_form(v):
        one = full_like(v, 1.0)
        return bind("mul", bind("sign", v), bind("sub", one, bind("div", one, bind("add", one, bind("abs", v)))))

    def lower_on_cpu(ctx, x):
        prog, consts = stage(lambda v: [cpu_form(v)], ctx.avals_in)
        return inline(ctx, prog, consts, [x])[0]

    key = ("softsign_walkthrough", "llvm-cpu")
    targets.OVERRIDES[key] = targets.Override(*key, lower_on_cpu, iree="3.13", evidence="this test",
                                              why="shows where a per-target form goes")
    yield softsign_p
    del targets.OVERRIDES[key]
    del _REGISTRY["softsign_walkthrough"]
    tape._REVERSE_KINDS.pop(softsign_p, None)


def test_a_new_primitive_works_under_every_transform(softsign):
    x = pf.to_tensor(np.array([-2.0, -0.5, 0.0, 0.7, 3.0]))

    def f(v):
        return softsign.bind(v).sum()

    want = 1 / (1 + np.abs(x.numpy())) ** 2
    np.testing.assert_allclose(pf.grad(f)(x).numpy(), want, rtol=1e-12)                       # reverse mode
    np.testing.assert_allclose(pf.jvp(lambda v: softsign.bind(v), (x,), (pf.ones_like(x),))[1].numpy(), want,
                               rtol=1e-12)                                                     # forward mode
    np.testing.assert_allclose(pf.vmap(softsign.bind)(x.reshape([5, 1])).numpy().ravel(),
                               x.numpy() / (1 + np.abs(x.numpy())), rtol=1e-12)                # batching
    np.testing.assert_allclose(pf.jit(pf.grad(f))(x).numpy(), want, rtol=1e-12)                # compiled

    REVERSE_CALLS.clear()
    leaf = pf.to_tensor(x.numpy(), stop_gradient=False)
    f(leaf).backward()                                                                         # eager tape
    np.testing.assert_allclose(leaf.grad.numpy(), want, rtol=1e-12)
    assert REVERSE_CALLS, "the tape uses the primitive's own reverse rule, with no linearization"


def test_the_override_is_used_for_its_target_only(softsign):
    lowered = pf.jit(softsign.bind).lower(pf.ones([3]))
    cpu, generic = lowered.as_text(), lower_program(lowered.program, use_overrides=False)
    assert "stablehlo.sign" in cpu and "stablehlo.sign" not in generic
    assert lowered.as_text("cuda") == lower_program(lowered.program, target="cuda")
    x = pf.to_tensor(np.array([-1.5, 0.25, 4.0], np.float32))
    np.testing.assert_allclose(pf.jit(softsign.bind)(x).numpy(), x.numpy() / (1 + np.abs(x.numpy())), rtol=1e-6)


def test_a_primitive_registered_after_the_first_jit_is_found_by_name(request):
    # Staged lowering rules apply primitives by name (the lowering sits below them). The llvm-cpu float sum is such
    # a rule: this jit stages its partial sums before the new primitive exists.
    x = pf.to_tensor(np.linspace(-3.0, 3.0, 300))
    np.testing.assert_allclose(pf.jit(lambda v: v.sum())(x).numpy(), x.numpy().sum(), atol=1e-12)
    softsign = request.getfixturevalue("softsign")
    prog, _ = stage(lambda v: [bind("softsign_walkthrough", v)], [x.aval])
    assert [e.prim for e in prog.eqns] == [softsign]
    assert "stablehlo.divide" in lower_program(prog, use_overrides=False)
    assert "stablehlo.sign" in lower_program(prog)
    np.testing.assert_allclose(pf.jit(lambda v: bind("softsign_walkthrough", v))(x).numpy(),
                               x.numpy() / (1 + np.abs(x.numpy())), rtol=1e-12)
