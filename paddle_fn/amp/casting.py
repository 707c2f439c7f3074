"""``paddle.amp.auto_cast`` and ``paddle.amp.decorate`` (a module name apart from the function, so `paddle_fn.amp.auto_cast` is the function).

Paddle 3.3.1 on CPU warns "amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace ... so it makes
no effect" and computes in float32, for float16 and bfloat16 alike; paddle_fn does the same on CPU. On a GPU the
thread-local state in ``paddle_fn.amp.state`` makes the listed ops compute in the low dtype.
"""
import contextlib
import warnings

import paddle_fn as paddle
from paddle_fn.amp import state

_LEVELS = ("O0", "OD", "O1", "O2")
_DTYPES = ("float16", "bfloat16")


def _on_accelerator(device=None):
    """Whether `device` (None: the current device) is not the CPU."""
    return not str(paddle.get_device() if device is None else device).lower().startswith(("cpu", "place(cpu)"))


def is_float16_supported(device=None):
    """Whether `device` (None: the current one) can run AMP in float16 (False on CPU, as in Paddle).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.is_float16_supported()
        False
    """
    return _on_accelerator(device)


def is_bfloat16_supported(device=None):
    """Whether `device` (None: the current one) can run AMP in bfloat16 (False on CPU, as in Paddle).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.is_bfloat16_supported()
        False
    """
    return _on_accelerator(device)


class auto_cast(contextlib.ContextDecorator):
    """Context manager / decorator for automatic mixed precision.

    Parameters: enable, custom_white_list, custom_black_list, level ('O0', 'OD', 'O1', 'O2'), dtype
    ('float16' or 'bfloat16'), use_promote. On CPU it warns and has no effect, as Paddle 3.3.1.

    Example:
        >>> import warnings
        >>> import paddle_fn as paddle
        >>> x = paddle.ones([2, 2])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with paddle.amp.auto_cast():
        ...         y = paddle.matmul(x, x)
        >>> y.dtype
        paddle.float32
    """

    def __init__(self, enable=True, custom_white_list=None, custom_black_list=None, level="O1",
                 dtype="float16", use_promote=True):
        if level not in _LEVELS:
            raise ValueError(f"auto_cast: level should be one of {_LEVELS}, got {level!r}")
        if dtype not in _DTYPES:
            raise ValueError(f"auto_cast: dtype should be 'float16' or 'bfloat16', got {dtype!r}")
        white, black = set(custom_white_list or ()), set(custom_black_list or ())
        both = white & black
        if both:
            raise ValueError(f"auto_cast: custom_white_list and custom_black_list overlap: {sorted(both)}")
        self._enable = bool(enable) and level != "O0"
        self._value = (level, dtype, (state.WHITE_LIST | white) - black, (state.BLACK_LIST | black) - white)
        self._prev = []

    def __enter__(self):
        value = None
        if self._enable:
            if _on_accelerator():
                value = self._value
            else:
                warnings.warn("amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, current "
                              f"place is Place({paddle.get_device()}), so it makes no effect.")
        self._prev.append(state._set(value))
        return self

    def __exit__(self, *exc):
        state._set(self._prev.pop())
        return False


amp_guard = auto_cast


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
             master_grad=False, excluded_layers=None):
    """Prepare models (and optimizers) for AMP. O1 returns them unchanged; O2 is not supported yet. As in Paddle,
    `master_weight`, `master_grad` and `excluded_layers` configure O2's parameter casting and have no effect at
    O1.

    Example:
        >>> import paddle_fn as paddle
        >>> model = paddle.nn.Linear(2, 2)
        >>> m = paddle.amp.decorate(model, level='O1')
        >>> m.weight.dtype
        paddle.float32
    """
    if level not in ("O1", "O2"):
        raise ValueError(f"decorate: level should be 'O1' or 'O2', got {level!r}")
    if dtype not in _DTYPES:
        raise ValueError(f"decorate: dtype should be 'float16' or 'bfloat16', got {dtype!r}")
    if save_dtype is not None:
        raise NotImplementedError("paddle.amp.decorate: save_dtype is not supported yet")
    if level == "O2":
        raise NotImplementedError("paddle.amp.decorate: level='O2' (casting parameters) is not supported yet")
    if optimizers is None:
        return models
    return models, optimizers



def is_autocast_enabled(device_type=None):
    """Whether an enabled ``auto_cast`` is in effect here (this thread). On the CPU, where ``auto_cast`` has no
    effect (as in Paddle 3.3.1), it is False. `device_type` is accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.is_autocast_enabled()
        False
    """
    return state.current() is not None


def get_autocast_dtype(device_type=None):
    """The low-precision dtype of the ``auto_cast`` in effect, as a string; 'float16' (Paddle's default) outside one.
    `device_type` is accepted for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.get_autocast_dtype()
        'float16'
    """
    current = state.current()
    return "float16" if current is None else str(current[1]).split(".")[-1]


def get_autocast_cpu_dtype(device_type=None):
    """The same as `get_autocast_dtype` (one setting serves every device here).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.get_autocast_cpu_dtype()
        'float16'
    """
    return get_autocast_dtype(device_type)


def get_autocast_gpu_dtype(device_type=None):
    """The same as `get_autocast_dtype` (one setting serves every device here).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.amp.get_autocast_gpu_dtype()
        'float16'
    """
    return get_autocast_dtype(device_type)
