"""The contributing guide's collective walkthrough, run: a new collective is one block in the style of
paddle_fn/prims/collectives.py, and named vmap, pmap's one-module path and pmap's segment path (host collectives)
take it with no other change (docs/contributing.md, "A collective", points here).

The collective is pprod, the product of a value over a mapped axis. It is removed from the registry afterwards,
so the op table's "every primitive has a row" check never sees it.
"""
import numpy as np
import pytest

import paddle_fn as pf
from paddle_fn.core.batching import not_mapped
from paddle_fn.core.config import config
from paddle_fn.core.primitive import NONLINEAR, Primitive, _REGISTRY
from paddle_fn.prims import collectives as C
from paddle_fn.prims.elementwise import div, mul
from paddle_fn.prims.reduction import reduce_prod

RULES_RUN = []


@pytest.fixture(scope="module")
def pprod():
    # ---- the collective's block: shape rule, impl, JVP, transpose, batching, lowerings, then the wrapper
    def jvp(primals, tangents, *, axis_name):
        (x,), (t,) = primals, tangents
        out = wrapper(x, axis_name)
        return out, mul(out, C.psum(div(t, x), axis_name))  # d prod = prod * sum(dx / x), for nonzero x

    def batch(vals, dims, *, axis_name):
        (x,), (d,) = vals, dims
        if C._named_here(axis_name, "pprod"):  # the vmap that binds the name: the product over its batch axis
            return reduce_prod(x, axes=(d,)), not_mapped
        return wrapper(x, axis_name), d           # another vmap: per example of it

    def lower_on_mesh(mesh, values, group):       # pmap as one multi-device module
        RULES_RUN.append("module")
        return mesh.reduction(values, group, "stablehlo.multiply")

    def run_on_host(backend, values, first, *, axis_name):  # pmap's segments: through the backend's all_gather
        RULES_RUN.append("segments")
        return [np.prod(g, axis=0) for g in backend.all_gather(values, 0, False)]

    pprod_p = Primitive("pprod_walkthrough", shape_rule=C._same_shape, impl=C._unbound_impl("pprod"), jvp=jvp,
                        transpose=NONLINEAR, batch=batch, lower=C._no_lowering("pprod"),
                        lower_on_mesh=lower_on_mesh, run_on_host=run_on_host)

    def wrapper(x, axis_name):
        return C._bind(pprod_p, x, "pprod", axis_name=axis_name)
    # ---- end of the block

    yield wrapper
    del _REGISTRY["pprod_walkthrough"]


X = np.array([[1.5, -2.0], [0.5, 3.0], [2.0, 1.0], [-1.0, 0.25]])


def test_a_new_collective_works_in_a_named_vmap_with_derivatives(pprod):
    x = pf.to_tensor(X)
    np.testing.assert_allclose(pf.vmap(lambda v: pprod(v, "i"), axis_name="i")(x).numpy(),
                               np.broadcast_to(X.prod(0), X.shape))
    # d/dx_k of sum_j prod_i x_ij is prod_i x_ij / x_kj
    grad = pf.grad(lambda v: pf.vmap(lambda r: pprod(r, "i"), axis_name="i")(v)[0].sum())(x)
    np.testing.assert_allclose(grad.numpy(), X.prod(0) / X, rtol=1e-12)
    with pytest.raises(NameError, match="unbound axis name 'j'"):
        pf.vmap(lambda v: pprod(v, "j"), axis_name="i")(x)


@pytest.mark.parametrize("strategy", ["module", "segments"])
def test_a_new_collective_works_under_pmap_on_both_paths(pprod, cpus, strategy):
    before = config.pmap_strategy
    config.update("pmap_strategy", strategy)
    RULES_RUN.clear()
    try:
        got = pf.pmap(lambda v: pprod(v * 2.0, "i"), axis_name="i", devices=cpus[:4])(pf.to_tensor(X))
    finally:
        config.update("pmap_strategy", before)
    np.testing.assert_allclose(got.numpy(), np.broadcast_to((2 * X).prod(0), X.shape), rtol=1e-12)
    assert set(RULES_RUN) == {strategy}, "each pmap path uses the collective's own rule for it"
