"""Global settings, from environment variables or set at run time (``paddle_fn.config.update(name, value)``).

    disk_cache            PADDLE_FN_DISK_CACHE=0 turns the persistent compiled-program cache off (default on)
    log_compiles          PADDLE_FN_LOG_COMPILES=1 logs every compilation with its reason
    explain_cache_misses  PADDLE_FN_EXPLAIN_CACHE_MISSES=1 says which argument's shape/dtype/static value changed
    default_device        the device jit and device_put use when none is given (paddle_fn.set_device)
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

    _NAMES = ("disk_cache", "log_compiles", "explain_cache_misses", "default_device")

    def __init__(self):
        self.disk_cache = _env_flag("PADDLE_FN_DISK_CACHE", True)
        self.log_compiles = _env_flag("PADDLE_FN_LOG_COMPILES", False)
        self.explain_cache_misses = _env_flag("PADDLE_FN_EXPLAIN_CACHE_MISSES", False)
        self.default_device = None

    def update(self, name: str, value) -> None:
        """Set one setting, e.g. ``paddle_fn.config.update("log_compiles", True)``."""
        if name not in self._NAMES:
            raise AttributeError(f"unknown paddle_fn setting {name!r}; the settings are {', '.join(self._NAMES)}")
        setattr(self, name, value)

    def __repr__(self):
        return "Config(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._NAMES) + ")"


config = Config()


def log(message: str) -> None:
    """Emit a paddle_fn diagnostic (compilations, cache misses) on the 'paddle_fn' logger, shown by default."""
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("paddle_fn: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.warning(message)
