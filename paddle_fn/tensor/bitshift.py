"""Paddle 3's bit shifts of integer Tensors: `bitwise_left_shift` and `bitwise_right_shift` (arithmetic, keeping
the sign, or logical, filling with zeros), over the shift primitives, with Paddle's broadcasting and promotion.
"""
from __future__ import annotations

from paddle_fn.core.errors import DTypeError
from paddle_fn.core.trace import get_aval
from paddle_fn.prims import bitwise as bw
from paddle_fn.tensor._util import write_out
from paddle_fn.tensor.promotion import binary_operands

__all__ = ["bitwise_left_shift", "bitwise_right_shift"]


def _integers(op, x, y):
    x, y = binary_operands(op, x, y)
    if get_aval(x).dtype.kind not in "iu":
        raise DTypeError(f"{op}: expected integer Tensors, got {get_aval(x).dtype.name}")
    return x, y


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise ``x << y`` (arithmetic and logical left shifts are the same); `out` (a Tensor) is made to hold
    the result.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.bitwise_left_shift(paddle.to_tensor([1, -8]), paddle.to_tensor([2, 1])).tolist()
        [4, -16]
    """
    return write_out(bw.shift_left(*_integers("bitwise_left_shift", x, y)), out)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise ``x >> y``: arithmetic (the sign bit is copied in) unless ``is_arithmetic=False``, which fills
    with zeros (so a negative number becomes a large positive one); `out` (a Tensor) is made to hold the result.

    Example:
        >>> import paddle_fn as paddle
        >>> x, y = paddle.to_tensor([-8, 8], dtype='int32'), paddle.to_tensor([1, 1], dtype='int32')
        >>> paddle.bitwise_right_shift(x, y).tolist(), paddle.bitwise_right_shift(x, y, is_arithmetic=False).tolist()
        ([-4, 4], [2147483644, 4])
    """
    x, y = _integers("bitwise_right_shift", x, y)
    return write_out((bw.shift_right_arithmetic if is_arithmetic else bw.shift_right_logical)(x, y), out)
