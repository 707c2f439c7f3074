"""``paddle.autograd``: the eager tape's entry points (`backward`, `PyLayer`, `no_grad`, ...) and Paddle's
``jacobian`` / ``hessian`` (over Tensors already computed, or over a function)."""
from paddle_fn.autograd.autograd import hessian, jacobian
from paddle_fn.autograd.backward_mode import backward
from paddle_fn.autograd.py_layer import PyLayer, PyLayerContext
from paddle_fn.autograd.saved_hooks import saved_tensors_hooks
from paddle_fn.core.tape import enable_grad, is_grad_enabled, no_grad, set_grad_enabled

__all__ = ["PyLayer", "PyLayerContext", "backward", "enable_grad", "hessian", "is_grad_enabled", "jacobian",
           "no_grad", "saved_tensors_hooks", "set_grad_enabled"]
