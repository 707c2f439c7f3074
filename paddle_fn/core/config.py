"""Global settings, from environment variables or set at run time (``paddle_fn.config.update(name, value)``).

    disk_cache            PADDLE_FN_DISK_CACHE=0 turns the persistent compiled-program cache off (default on)
    log_compiles          PADDLE_FN_LOG_COMPILES=1 logs every compilation with its reason
    explain_cache_misses  PADDLE_FN_EXPLAIN_CACHE_MISSES=1 says which argument's shape/dtype/static value changed
    default_device        the device jit and device_put use when none is given (paddle_fn.set_device)
    pmap_strategy         PADDLE_FN_PMAP_STRATEGY: how pmap runs in one process: "auto" (default), "module" (one
                          multi-device IREE module per step) or "segments" (per-device segments, host collectives)
"""
from __future__ import annotations

import logging
import os

logger = logging.getLogger("paddle_fn")


def _env_flag(name: str, default: bool) -> bool:
    v = os.environ.get(name)
    if v is None:
        return default
    return v.strip().lower() not in ("0", "false", "no", "off", "")


class Config:
    """paddle_fn's settings; read them as attributes, change them with `update` or by assignment."""

    _NAMES = ("disk_cache", "log_compiles", "explain_cache_misses", "default_device", "pmap_strategy")

    def __init__(self):
        self.disk_cache = _env_flag("PADDLE_FN_DISK_CACHE", True)
        self.log_compiles = _env_flag("PADDLE_FN_LOG_COMPILES", False)
        self.explain_cache_misses = _env_flag("PADDLE_FN_EXPLAIN_CACHE_MISSES", False)
        self.default_device = None
        self.pmap_strategy = os.environ.get("PADDLE_FN_PMAP_STRATEGY", "auto")

    def update(self, name: str, value) -> None:
        """Set one setting, e.g. ``paddle_fn.config.update("log_compiles", True)``."""
        if name not in self._NAMES:
            raise AttributeError(f"unknown paddle_fn setting {name!r}; the settings are {', '.join(self._NAMES)}")
        setattr(self, name, value)

    def __repr__(self):
        return "Config(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._NAMES) + ")"


config = Config()


# Paddle's global flags that change behaviour here, with their defaults (Paddle's set_flags / get_flags).
_FLAGS = {
    # Paddle 2.5's migration switch: Tensor.numpy() of a 0-D Tensor returns shape (1,), for code written
    # against Paddle 2.3's shape-[1] scalars (``loss.numpy()[0]``)
    "FLAGS_set_to_1d": False,
}


def _known_flag(name) -> str:
    if not isinstance(name, str) or name not in _FLAGS:
        raise ValueError(f"Flag {name!r} is not a paddle_fn flag; the flags that exist here are "
                         f"{', '.join(sorted(_FLAGS))}")
    return name


def set_flags(flags: dict) -> None:
    """Set global flags from a dict of ``{name: value}``, as ``paddle.set_flags`` does.

    Unknown names raise ValueError (nothing is set then). ``FLAGS_set_to_1d=True`` makes ``Tensor.numpy()`` of a
    0-D Tensor return shape ``(1,)``, Paddle's switch for code that indexes ``loss.numpy()[0]``.

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.mean(paddle.to_tensor([1.0, 2.0]))
        >>> loss.numpy().shape
        ()
        >>> paddle.set_flags({'FLAGS_set_to_1d': True})
        >>> loss.numpy()[0]
        np.float32(1.5)
        >>> paddle.set_flags({'FLAGS_set_to_1d': False})
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags takes a dict of {{flag name: value}}, got {type(flags).__name__}")
    checked = {}
    for name, value in flags.items():
        _known_flag(name)
        if not isinstance(value, (bool, int)) or isinstance(value, int) and value not in (0, 1):
            raise TypeError(f"{name} is a bool flag; got {value!r}")
        checked[name] = bool(value)
    _FLAGS.update(checked)


def get_flags(flags) -> dict:
    """The values of one flag name or a list of names, as a dict (``paddle.get_flags``).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.get_flags('FLAGS_set_to_1d')
        {'FLAGS_set_to_1d': False}
    """
    names = [flags] if isinstance(flags, str) else list(flags)
    return {_known_flag(name): _FLAGS[name] for name in names}


def flag(name: str):
    """The current value of a flag, for the library's own checks."""
    return _FLAGS[name]


def log(message: str) -> None:
    """Emit a paddle_fn diagnostic (compilations, cache misses) on the 'paddle_fn' logger, shown by default."""
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("paddle_fn: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.warning(message)
