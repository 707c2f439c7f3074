"""paddle.incubate.autograd.utils: argument helpers of Paddle's autograd APIs."""
from collections.abc import Sequence

from paddle_fn.core.trace import Tensor, Tracer

__all__ = ["as_tensors"]


def as_tensors(xs):
    """One Tensor, or a sequence of them, as a tuple of Tensors (Paddle's ``as_tensors``).

    Args:
        xs (Tensor|Sequence[Tensor]): a Tensor becomes a 1-tuple, a list or tuple becomes a tuple; anything else
            is returned unchanged, as Paddle does.

    Returns:
        tuple: the Tensors of ``xs``.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.incubate.autograd.utils import as_tensors
        >>> x = paddle.ones([2])
        >>> len(as_tensors(x)), len(as_tensors([x, x]))
        (1, 2)
    """
    if isinstance(xs, Tensor):
        return (xs,)
    if isinstance(xs, Sequence):
        return tuple(xs)
    return xs


def as_result(t):
    """`t` as Paddle's functional autograd returns its results: computed there with ``create_graph=True``, they have
    ``stop_gradient=False`` (a new handle on the value, so a Tensor the user passed in keeps its flag). A traced
    value (or None) is returned as it is."""
    if t is None or isinstance(t, Tracer) or not t.stop_gradient:
        return t
    out = t.detach()
    out.stop_gradient = False
    return out
