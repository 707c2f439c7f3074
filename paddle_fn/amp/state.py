"""Thread-local AMP state, consulted by the Tensor-API wrappers of the white/black-listed ops.

The non-AMP path costs one thread-local attribute read in ``maybe_cast``.
"""
import threading

import paddle_fn as paddle

WHITE_LIST = frozenset({"matmul", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
                        "conv3d_transpose", "bmm", "einsum", "mm"})
BLACK_LIST = frozenset({"softmax", "log_softmax", "cross_entropy", "softmax_with_cross_entropy", "mean", "sum",
                        "exp", "log", "layer_norm", "batch_norm", "group_norm", "instance_norm", "pow",
                        "square", "mse_loss", "reduce_sum", "reduce_mean"})

_local = threading.local()


def current():
    """The active ``(level, dtype, white, black)`` tuple, or None outside an enabled ``auto_cast``."""
    return getattr(_local, "amp", None)


def _set(value):
    prev = getattr(_local, "amp", None)
    _local.amp = value
    return prev


def maybe_cast(op_name, *tensors):
    """Cast ``tensors`` for ``op_name`` under the active auto_cast (low dtype for white-list ops, and in O2 for
    everything but the black list; float32 for black-list ops); returns them unchanged outside auto_cast.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.amp.state import maybe_cast
        >>> x, = maybe_cast("matmul", paddle.ones([2]))
        >>> x.dtype
        paddle.float32
    """
    amp = getattr(_local, "amp", None)
    if amp is None:
        return tensors
    level, dtype, white, black = amp
    if op_name in black:
        target = "float32"
    elif op_name in white or level == "O2":
        target = dtype
    else:
        return tensors
    return tuple(t.astype(target) if isinstance(t, paddle.Tensor) and t.dtype != target and
                 str(t.dtype).split(".")[-1] in ("float16", "bfloat16", "float32") else t for t in tensors)
