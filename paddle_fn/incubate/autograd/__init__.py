"""paddle_fn.incubate.autograd: Paddle's ``paddle.incubate.autograd`` (``vjp``, ``jvp``, the lazy ``Jacobian`` /
``Hessian``), with ``utils.as_tensors`` where Paddle keeps it."""
from paddle_fn.incubate.autograd import utils  # noqa: F401
from paddle_fn.incubate.autograd.functional import Hessian, Jacobian, jvp, vjp
from paddle_fn.incubate.autograd.primx import disable_prim, enable_prim, prim_enabled

__all__ = ["vjp", "jvp", "Jacobian", "Hessian", "enable_prim", "disable_prim", "prim_enabled"]
