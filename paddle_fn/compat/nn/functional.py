"""``paddle.compat.nn.functional``: PyTorch-signature forms of ``paddle.nn.functional``'s functions."""
from __future__ import annotations

from paddle_fn.nn.functional import softmax as _paddle_softmax

__all__ = ["softmax"]


def softmax(input, dim=None, dtype=None, *, out=None):  # noqa: A002 - PyTorch's parameter name
    """Softmax over `dim`, PyTorch's signature (``paddle.compat.nn.functional.softmax``): `input` is cast to
    `dtype` first when given; ``dim=None`` picks PyTorch's legacy default (0 for 0-, 1- and 3-D inputs, else 1);
    `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[2.0, 3.0, 4.0, 5.0]])
        >>> paddle.compat.nn.functional.softmax(x, -1, dtype='float64').numpy()
        array([[0.0320586 , 0.08714432, 0.23688282, 0.64391426]])
    """
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _paddle_softmax(input, axis=dim, dtype=dtype, out=out)
