"""``paddle.autograd.saved_tensors_hooks``: let the user store what backward keeps (offloaded, compressed, ...).

(The module is not named after the class: the API reference would take one for the other.)"""
from __future__ import annotations

from paddle_fn.core.tape import saved_tensors_hooks_now

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:  # noqa: N801 - Paddle's name
    """Inside the block, every Tensor input of an operation the tape records (and every Tensor a PyLayer saves with
    ``ctx.save_for_backward``) is passed to ``pack_hook``, and what it returns is kept instead; backward calls
    ``unpack_hook`` on it to get the Tensor back. Paddle packs only the inputs an operation's gradient reads;
    paddle_fn packs each Tensor input of the operation.

    Args:
        pack_hook (Callable): Tensor -> anything.
        unpack_hook (Callable): what ``pack_hook`` returned -> a Tensor of the same shape and dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
        >>> with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda v: paddle.to_tensor(v)):
        ...     y = paddle.multiply(a, b)
        >>> y.sum().backward()
        >>> a.grad.tolist(), b.grad.tolist()
        ([3.0, 4.0], [1.0, 2.0])
    """

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(pack_hook, unpack_hook): both hooks must be callable, got "
                            f"{type(pack_hook).__name__} and {type(unpack_hook).__name__}")
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        saved_tensors_hooks_now.hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        saved_tensors_hooks_now.hooks.pop()
