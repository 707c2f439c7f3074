"""Global settings, from environment variables or set at run time (``paddle_fn.config.update(name, value)``).

    disk_cache            PADDLE_FN_DISK_CACHE=0 turns the persistent compiled-program cache off (default on)
    log_compiles          PADDLE_FN_LOG_COMPILES=1 logs every compilation with its reason
    explain_cache_misses  PADDLE_FN_EXPLAIN_CACHE_MISSES=1 says which argument's shape/dtype/static value changed
    default_device        the device jit and device_put use when none is given (paddle_fn.set_device)
    matmul_precision      PADDLE_FN_MATMUL_PRECISION: float32 products in compiled programs: "float32" (exact, the
                          default), "bf16x3" (three bfloat16 products, near float32) or "bfloat16" (one product);
                          see `default_matmul_precision` and ``jit(..., matmul_precision=...)``
    jit_background_compile  PADDLE_FN_BACKGROUND_COMPILE=0 makes a jitted function's first call wait for its
                          compile; by default (on) it runs the traced program op by op while IREE compiles it in a
                          background thread (see paddle_fn.transforms.background_compile)
    jit_host_kernels      PADDLE_FN_HOST_KERNELS=0 keeps compiled CPU programs from calling host kernels: by default
                          (on) a large FFT or dense decomposition in a jit program on the CPU calls the same library
                          routine (ducc's FFT, LAPACK) as eager code; off, it runs IREE code built from other
                          operations (see paddle_fn.lowering.host_calls); read when a program compiles, so a
                          function already compiled for a signature keeps its executable
    pmap_strategy         PADDLE_FN_PMAP_STRATEGY: how pmap runs in one process: "auto" (default), "module" (one
                          multi-device IREE module per step) or "segments" (per-device segments, host collectives)
    debug_loop_capacity   PADDLE_FN_DEBUG_LOOP_CAPACITY: how many iterations of a while_loop (or a fori_loop with
                          traced bounds) whose body calls ``paddle_fn.debug.print``/``callback`` are recorded for
                          the callbacks (default 1000; a scan records every iteration); see paddle_fn.prims.host_callback
    checks                PADDLE_FN_CHECKS: the runtime checks compiled into every ``jit`` program: none (the
                          default), "all", or kinds among "index", "div", "linalg", "nan" (comma-separated in the
                          variable); with "nan", eager ops check their results too. See docs/jit.md, "Checked mode"
"""
from __future__ import annotations

import contextlib
import os
import threading

from paddle_fn.core.paddle_flags import PADDLE_FLAGS


def _env_flag(name: str, default: bool) -> bool:
    v = os.environ.get(name)
    if v is None:
        return default
    return v.strip().lower() not in ("0", "false", "no", "off", "")


# ----------------------------------------------------------------------------------------------- matmul precision

PRECISIONS = ("float32", "bf16x3", "bfloat16")
_PRECISION_ALIASES = {"highest": "float32", "high": "bf16x3", "default": "bfloat16", "fastest": "bfloat16"}


def canonical_precision(value) -> str:
    """The matmul precision `value` names, as one of PRECISIONS (JAX's names are aliases); a clear error else.

    Example:
        >>> from paddle_fn.core.config import canonical_precision
        >>> canonical_precision("high"), canonical_precision("float32")
        ('bf16x3', 'float32')
    """
    if isinstance(value, str) and value in PRECISIONS:
        return value
    if isinstance(value, str) and value in _PRECISION_ALIASES:
        return _PRECISION_ALIASES[value]
    raise ValueError(f"matmul precision {value!r} is not one of {', '.join(PRECISIONS)} (or the aliases "
                     f"{', '.join(_PRECISION_ALIASES)})")


# The kinds of runtime checks a checked jit compiles in (JAX checkify's error sets, Paddle's FLAGS_check_nan_inf):
# start indices in range (gather, scatter, dynamic slices), integer divisors not zero, decompositions that did not
# fail (cholesky, lu, triangular_solve, qr, eigh, svd), and no op making NaN or Inf out of finite inputs.
CHECK_KINDS = ("index", "div", "linalg", "nan")


def canonical_checks(value) -> tuple:
    """The check kinds `value` names, as a sorted tuple of CHECK_KINDS: None, False, "none" or "" for none; True or
    "all" for all; a kind, a comma-separated string of kinds, or an iterable of kinds.

    Example:
        >>> from paddle_fn.core.config import canonical_checks
        >>> canonical_checks("nan,index"), canonical_checks(True), canonical_checks(None)
        (('index', 'nan'), ('div', 'index', 'linalg', 'nan'), ())
    """
    if value is None or value is False or value in ("none", ""):
        return ()
    if value is True or value == "all":
        return tuple(sorted(CHECK_KINDS))
    kinds = value.split(",") if isinstance(value, str) else list(value)
    kinds = [k.strip() if isinstance(k, str) else k for k in kinds]
    unknown = [k for k in kinds if k not in CHECK_KINDS]
    if unknown:
        raise ValueError(f"unknown runtime check {unknown[0]!r}; the checks are {', '.join(CHECK_KINDS)} (or 'all', "
                         "or None for none)")
    return tuple(sorted(set(kinds)))


PMAP_STRATEGIES = ("auto", "module", "segments")


def _pmap_strategy(value) -> str:
    if value not in PMAP_STRATEGIES:
        raise ValueError(f"pmap_strategy is {value!r}; expected one of {', '.join(PMAP_STRATEGIES)}")
    return value


# Paddle's global flags (Paddle's set_flags / get_flags), with Paddle 3.3.1's defaults. Two change behaviour here:
# FLAGS_set_to_1d, Paddle 2.5's migration switch: Tensor.numpy() of a 0-D Tensor returns shape (1,), for code
# written against Paddle 2.3's shape-[1] scalars (``loss.numpy()[0]``); FLAGS_check_nan_inf, Paddle's numerics
# check: every check kind compiled into jit programs, and eager ops raise on a NaN or Inf result (as Paddle's
# dygraph does; ``config.checks`` chooses kinds one by one). The others are kept and read back only.
_FLAGS = dict(PADDLE_FLAGS)


class _GlobalChecks:
    """The check kinds in effect now, ``config.checks`` joined with all of them under FLAGS_check_nan_inf; kept
    up to date by both setters, because eager ops read `eager_nan` on every call."""
    kinds: tuple = ()
    eager_nan = False


global_checks = _GlobalChecks()


def _refresh_checks(configured) -> None:
    kinds = canonical_checks(True) if _FLAGS["FLAGS_check_nan_inf"] else configured
    global_checks.kinds, global_checks.eager_nan = kinds, "nan" in kinds


class Config:
    """paddle_fn's settings; read them as attributes, change them with `update` or by assignment."""

    _NAMES = ("disk_cache", "log_compiles", "explain_cache_misses", "default_device", "matmul_precision",
              "pmap_strategy", "jit_background_compile", "jit_host_kernels", "checks", "debug_loop_capacity")
    # settings whose value is checked (and put in canonical form) however it is set
    _CHECKS = {"matmul_precision": canonical_precision, "pmap_strategy": _pmap_strategy, "checks": canonical_checks}

    def __init__(self):
        self.disk_cache = _env_flag("PADDLE_FN_DISK_CACHE", True)
        self.log_compiles = _env_flag("PADDLE_FN_LOG_COMPILES", False)
        self.explain_cache_misses = _env_flag("PADDLE_FN_EXPLAIN_CACHE_MISSES", False)
        self.default_device = None
        self.matmul_precision = os.environ.get("PADDLE_FN_MATMUL_PRECISION", "float32")
        self.pmap_strategy = os.environ.get("PADDLE_FN_PMAP_STRATEGY", "auto")
        self.jit_background_compile = _env_flag("PADDLE_FN_BACKGROUND_COMPILE", True)
        self.jit_host_kernels = _env_flag("PADDLE_FN_HOST_KERNELS", True)
        self.checks = os.environ.get("PADDLE_FN_CHECKS", "")
        self.debug_loop_capacity = int(os.environ.get("PADDLE_FN_DEBUG_LOOP_CAPACITY", "1000"))

    def update(self, name: str, value) -> None:
        """Set one setting, e.g. ``paddle_fn.config.update("log_compiles", True)``."""
        if name not in self._NAMES:
            raise AttributeError(f"unknown paddle_fn setting {name!r}; the settings are {', '.join(self._NAMES)}")
        setattr(self, name, value)

    def __setattr__(self, name, value):
        check = self._CHECKS.get(name)
        super().__setattr__(name, value if check is None else check(value))
        if name == "checks":
            _refresh_checks(self.checks)

    def __repr__(self):
        return "Config(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self._NAMES) + ")"


config = Config()


class _ScopedPrecision(threading.local):
    """The innermost `default_matmul_precision` of this thread; a class default, so that reading it when none is
    set (every jit call does) is a plain attribute read rather than a failed lookup."""
    precision = None


_scoped = _ScopedPrecision()


@contextlib.contextmanager
def default_matmul_precision(precision):
    """Compile the float32 matrix products (matmul, linear, conv, einsum...) of ``jit`` functions first called in
    this block (in this thread) at `precision`: "float32" (exact, the default), "bf16x3" (three bfloat16 products,
    relative error ~1e-5, fast on GPU tensor cores) or "bfloat16" (one product, ~1e-2). Eager operations and
    float64 stay exact; ``jit(f, matmul_precision=...)`` overrides it for one function.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.full([2, 2], 1.0 + 2.0 ** -10)   # 1.0009765625: bfloat16 keeps 8 bits, so 1.0
        >>> with paddle.default_matmul_precision("bfloat16"):
        ...     print(paddle.jit(lambda a: a @ a)(x).numpy()[0, 0])
        2.0
        >>> print(paddle.jit(lambda a: a @ a)(x).numpy()[0, 0])   # float32 outside the block
        2.0039082
    """
    precision = canonical_precision(precision)
    before = _scoped.precision
    _scoped.precision = precision
    try:
        yield
    finally:
        _scoped.precision = before


def matmul_precision_now() -> str:
    """The precision a compilation starting now uses: the innermost `default_matmul_precision`, else the global
    setting (``config.matmul_precision``)."""
    scoped = _scoped.precision
    return config.matmul_precision if scoped is None else scoped


def _known_flag(name) -> str:
    if not isinstance(name, str) or name not in _FLAGS:
        raise ValueError(f"Flag {name!r} is not one of Paddle 3.3's global flags (names start with 'FLAGS_', e.g. "
                         "FLAGS_check_nan_inf, FLAGS_set_to_1d); paddle.get_flags / set_flags take those names")
    return name


def _flag_value(name, value):
    """`value` checked against the type of the flag's default (bool flags take bools and 0/1; float flags ints)."""
    default = _FLAGS[name]
    if isinstance(default, bool):
        fits = isinstance(value, (bool, int)) and value in (0, 1)
    elif isinstance(default, (int, float)):
        fits = isinstance(value, (int, float)) and not isinstance(value, bool) and (
            isinstance(default, float) or float(value).is_integer())
    else:
        fits = isinstance(value, str)
    if not fits:
        raise TypeError(f"{name} is a {type(default).__name__} flag (default {default!r}); got {value!r}")
    return type(default)(value)


def set_flags(flags: dict) -> None:
    """Set global flags from a dict of ``{name: value}``, as ``paddle.set_flags`` does.

    Every Paddle 3.3 flag name is accepted, with a value of its default's type; other names raise ValueError
    (nothing is set then). Two change what paddle_fn does: ``FLAGS_set_to_1d=True`` makes ``Tensor.numpy()`` of
    a 0-D Tensor return shape ``(1,)``, Paddle's switch for code that indexes ``loss.numpy()[0]``, and
    ``FLAGS_check_nan_inf=True`` checks every result for NaN and Inf. The rest tune parts of Paddle that
    paddle_fn does not have (its allocator, CUDA kernels, static-graph executor): they are remembered only.

    Example:
        >>> import paddle_fn as paddle
        >>> loss = paddle.mean(paddle.to_tensor([1.0, 2.0]))
        >>> loss.numpy().shape
        ()
        >>> paddle.set_flags({'FLAGS_set_to_1d': True})
        >>> loss.numpy()[0]
        np.float32(1.5)
        >>> paddle.set_flags({'FLAGS_set_to_1d': False, 'FLAGS_eager_delete_tensor_gb': 1.0})
        >>> paddle.get_flags('FLAGS_eager_delete_tensor_gb')
        {'FLAGS_eager_delete_tensor_gb': 1.0}
        >>> paddle.set_flags({'FLAGS_eager_delete_tensor_gb': 0.0})
    """
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags takes a dict of {{flag name: value}}, got {type(flags).__name__}")
    checked = {_known_flag(name): _flag_value(name, value) for name, value in flags.items()}
    _FLAGS.update(checked)
    _refresh_checks(config.checks)


def get_flags(flags) -> dict:
    """The values of one flag name or a list of names, as a dict (``paddle.get_flags``); Paddle 3.3's defaults
    until `set_flags` changes them.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.get_flags(['FLAGS_eager_delete_tensor_gb', 'FLAGS_check_nan_inf'])
        {'FLAGS_eager_delete_tensor_gb': 0.0, 'FLAGS_check_nan_inf': False}
    """
    names = [flags] if isinstance(flags, str) else list(flags)
    return {_known_flag(name): _FLAGS[name] for name in names}


def flag(name: str):
    """The current value of a flag, for the library's own checks."""
    return _FLAGS[name]


def log(message: str) -> None:
    """Emit a paddle_fn diagnostic (compilations, cache misses) on the 'paddle_fn' logger, shown by default."""
    import logging  # only diagnostics need it: not loaded by `import paddle_fn`, which stays cheap

    logger = logging.getLogger("paddle_fn")
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("paddle_fn: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False
    logger.warning(message)
