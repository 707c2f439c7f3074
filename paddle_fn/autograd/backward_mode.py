"""``paddle.autograd.backward``: accumulate the gradients of several Tensors at once (the eager tape's entry)."""
from paddle_fn.core.tape import backward

__all__ = ["backward"]
