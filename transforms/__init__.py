"""paddle_fn.transforms: the user-facing transforms (jvp, vjp, grad, vmap, Jacobians, make_ir, jit, pmap) and the
collectives over a named mapped axis."""
if __name__ != "paddle_fn.transforms":
    raise ImportError("import this package as paddle_fn.transforms, not as a top-level module")

from paddle_fn.prims.collectives import (  # noqa: E402,F401
    all_gather, all_to_all, axis_index, pmax, pmean, pmin, ppermute, psum, psum_scatter)
from paddle_fn.transforms.autodiff import grad, jvp, linearize, value_and_grad, vjp  # noqa: E402,F401
from paddle_fn.transforms.jacobians import hessian, jacfwd, jacobian, jacrev  # noqa: E402,F401
from paddle_fn.transforms.jit import jit  # noqa: E402,F401
from paddle_fn.transforms.make_ir import make_ir  # noqa: E402,F401
from paddle_fn.transforms.pmap import pmap  # noqa: E402,F401
from paddle_fn.transforms.vmap import vmap  # noqa: E402,F401
