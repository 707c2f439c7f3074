"""``paddle.utils``: the helpers Paddle's own model files and scripts import at their top.

`try_import`, `deprecated`, `require_version` and `run_check` are here; `paddle.utils.download` fetches pretrained
weights and data files (`get_weights_path_from_url`), `paddle.utils.unique_name` names parameters.
`install_paddle_alias` (paddle_fn's own, `paddle_fn.utils.paddle_alias`) makes ``import paddle`` import paddle_fn,
for files copied from Paddle unchanged.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import re
import warnings

import numpy as np

import paddle_fn
from paddle_fn.utils import dlpack, download, unique_name  # noqa: F401 - Paddle's submodules of paddle.utils
from paddle_fn.utils.paddle_alias import install_paddle_alias, uninstall_paddle_alias  # noqa: F401

__all__ = ["deprecated", "run_check", "require_version", "try_import"]

# the Paddle release whose API paddle_fn follows: what `require_version` compares against
PADDLE_API_VERSION = "3.3.0"


def try_import(module_name: str, err_msg: str | None = None):
    """Import and return the module `module_name`, or raise ImportError saying how to install it.

    Args:
        module_name (str): the module to import, e.g. ``"scipy.special"``.
        err_msg (str, optional): the message of the ImportError raised when it is missing.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.utils.try_import("json").dumps([1, 2])
        '[1, 2]'
        >>> paddle.utils.try_import("no_such_module")
        Traceback (most recent call last):
        ...
        ImportError: Failed importing no_such_module. This likely means that some paddle modules require additional dependencies that have to be manually installed (usually with `pip install no_such_module`).
    """
    try:
        return importlib.import_module(module_name)
    except ImportError:
        package = module_name.split(".")[0]
        raise ImportError(err_msg or f"Failed importing {module_name}. This likely means that some paddle modules "
                                     f"require additional dependencies that have to be manually installed (usually "
                                     f"with `pip install {package}`).") from None


def deprecated(update_to: str = "", since: str = "", reason: str = "", level: int = 0):
    """A decorator marking a function or class as deprecated: calling it warns (``level`` 0 or 1, a
    DeprecationWarning once per call site) or raises RuntimeError (``level`` 2), naming what to use instead.

    Args:
        update_to (str): the API to use instead, e.g. ``"paddle.nn.functional.relu"``.
        since (str): the version that deprecated it.
        reason (str): why.
        level (int): 0 or 1 warn, 2 raises.

    Example:
        >>> import warnings
        >>> import paddle_fn as paddle
        >>> @paddle.utils.deprecated(update_to="paddle.add", since="2.0", reason="use the functional form")
        ... def old_add(x, y):
        ...     return x + y
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     result = old_add(1, 2)
        >>> result, caught[0].category.__name__
        (3, 'DeprecationWarning')
        >>> print(caught[0].message)
        API "old_add" is deprecated since 2.0, and will be removed in future versions. Please use "paddle.add" instead.
            Reason: use the functional form
    """
    if level not in (0, 1, 2):
        raise ValueError(f"deprecated: level must be 0, 1 or 2, got {level!r}")

    def decorate(func):
        name = getattr(func, "__name__", repr(func))
        message = f'API "{name}" is deprecated'
        message += f" since {since}" if since else ""
        message += ", and will be removed in future versions."
        message += f' Please use "{update_to}" instead.' if update_to else ""
        message += f"\n    Reason: {reason}" if reason else ""
        func.__doc__ = f"Warning: {message}\n\n{func.__doc__ or ''}"

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(message)
            warnings.warn(message, DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        if inspect.isclass(func):  # keep the class a class: warn when it is instantiated
            original_init = func.__init__

            @functools.wraps(original_init)
            def init(self, *args, **kwargs):
                if level == 2:
                    raise RuntimeError(message)
                warnings.warn(message, DeprecationWarning, stacklevel=2)
                original_init(self, *args, **kwargs)
            func.__init__ = init
            return func
        return wrapper
    return decorate


def _version_tuple(text: str, what: str) -> tuple:
    if not isinstance(text, str) or not re.fullmatch(r"\d+(\.\d+){0,3}", text):
        raise ValueError(f"require_version: {what} must be a version string like '2.4' or '2.4.1', got {text!r}")
    return tuple(int(part) for part in text.split(".")) + (0,) * (4 - text.count(".") - 1)


def require_version(min_version: str, max_version: str | None = None):
    """Check that the Paddle API in use is at least `min_version` (and at most `max_version`); raise an Exception
    otherwise. paddle_fn follows Paddle's API at version `PADDLE_API_VERSION` (3.3.0), which is what is compared.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.utils.require_version("2.0", "3.9")
        >>> paddle.utils.require_version("4.0")
        Traceback (most recent call last):
        ...
        Exception: VersionError: PaddlePaddle version 4.0 or higher is required, but 3.3.0 installed (the Paddle API that paddle_fn follows), please upgrade your PaddlePaddle to 4.0 or other higher version.
    """
    have = _version_tuple(PADDLE_API_VERSION, "the API version")
    low = _version_tuple(min_version, "min_version")
    high = None if max_version is None else _version_tuple(max_version, "max_version")
    installed = f"{PADDLE_API_VERSION} installed (the Paddle API that paddle_fn follows)"
    if have < low:
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is required, but {installed}, "
                        f"please upgrade your PaddlePaddle to {min_version} or other higher version.")
    if high is not None and have > high:
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but "
                        f"{installed}.")


def run_check():
    """Check that paddle_fn works here: an eager gradient, and the same step compiled on each device, against
    numpy; prints what ran, as Paddle's install check does.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.utils.run_check()  # doctest: +ELLIPSIS
        Running verify paddle_fn program ...
        paddle_fn works well on 1 CPU.
        paddle_fn is installed successfully! Let's start deep learning with paddle_fn now.
    """
    print("Running verify paddle_fn program ...")
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(8, 4)).astype(np.float32)

    def loss(w, x):
        return paddle_fn.tanh(paddle_fn.matmul(x, w)).sum()

    t = np.tanh(x @ w)
    want = x.T @ (1 - t * t)
    eager = paddle_fn.grad(loss)(paddle_fn.to_tensor(w), paddle_fn.to_tensor(x)).numpy()
    devices = paddle_fn.devices()
    for device in devices:
        compiled = paddle_fn.jit(paddle_fn.grad(loss), device=device)(paddle_fn.to_tensor(w), paddle_fn.to_tensor(x))
        for got, how in ((eager, "eagerly"), (compiled.numpy(), f"compiled on {device}")):
            if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                raise RuntimeError(f"run_check: the gradient computed {how} is wrong: {got.ravel()[:4]} against "
                                   f"numpy's {want.ravel()[:4]}; please report this with `pip freeze`")
    counts = {}
    for device in devices:
        counts[device.platform] = counts.get(device.platform, 0) + 1
    print("paddle_fn works well on " + " and ".join(f"{n} {p.upper()}" for p, n in counts.items()) + ".")
    print("paddle_fn is installed successfully! Let's start deep learning with paddle_fn now.")
