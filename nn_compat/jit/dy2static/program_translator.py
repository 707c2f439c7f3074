"""Converting one function (Paddle's ``program_translator`` / ``convert_call``): get its source, rewrite it with
`ast_transformer`, compile it with the function's globals and closure cells, cache the result by code object.

Only user code is converted: functions of paddle_fn, the standard library and installed packages
(site-packages: numpy, scipy, ...), `not_to_static` functions and modules given to `ignore_module` run as they
are. A function whose source cannot be read (defined in a REPL, a builtin, a lambda) is traced as it is, with a
debug log.
"""
from __future__ import annotations

import ast
import functools
import inspect
import logging
import os
import sys
import sysconfig
import textwrap
import types
import weakref

from paddle_fn.nn_compat.jit.dy2static import convert_operators
from paddle_fn.nn_compat.jit.dy2static.ast_transformer import JST, transform_function

__all__ = ["convert_function", "converted_source", "set_code_level", "set_verbosity"]

_log = logging.getLogger("paddle_fn.jit")
_NOT_TO_STATIC = "_paddle_fn_not_to_static"
_STDLIB = os.path.normcase(sysconfig.get_paths()["stdlib"])


class _Settings:
    """What set_code_level / set_verbosity chose: process-wide, as in Paddle."""

    def __init__(self):
        self.code_level = 0
        self.code_to_stdout = False
        self.verbosity = 0
        self.verbosity_to_stdout = False


_settings = _Settings()
_cache: dict = {}  # code object -> (converted code object, converted source) or None (not convertible)
_ignored_modules: set = set()
_by_function = weakref.WeakKeyDictionary()  # original function -> converted function


def set_code_level(level=100, also_to_stdout=False):
    """Print the converted source of each function `to_static` converts (to stderr, and also to stdout with
    `also_to_stdout`). Paddle numbers its transformer passes and prints the code after pass `level`; paddle_fn
    prints the final code for any ``level > 0``; ``level=0`` turns printing off.

    Args:
        level (int): 0 off; > 0 print converted code. Default: 100.
        also_to_stdout (bool): also write it to sys.stdout. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.jit.set_code_level(100, also_to_stdout=True)
        >>> @paddle.jit.to_static
        ... def half(x):
        ...     return x / 2.0
        >>> _ = half(paddle.ones([1]))  # doctest: +ELLIPSIS
        <BLANKLINE>
        paddle_fn.jit: converted code of half:
        def half(x):
            return x / 2.0
        >>> paddle.jit.set_code_level(0)
    """
    if not isinstance(level, int):
        raise TypeError(f"set_code_level: level must be an int, got {type(level).__name__}")
    _settings.code_level = level
    _settings.code_to_stdout = bool(also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    """Log the conversion steps of `to_static` (which functions are converted, which run as they are and why)
    to stderr (and to stdout with `also_to_stdout`), through the logger named ``'paddle_fn.jit'`` (at DEBUG
    level, for ``logging`` configuration). ``level=0`` turns it off.

    Args:
        level (int): 0 off; > 0 log. Default: 0.
        also_to_stdout (bool): also write to sys.stdout. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.jit.set_verbosity(1, also_to_stdout=True)
        >>> @paddle.jit.to_static
        ... def double(x):
        ...     return x * 2.0
        >>> _ = double(paddle.ones([1]))
        paddle_fn.jit: converting function double
        >>> paddle.jit.set_verbosity(0)
    """
    if not isinstance(level, int):
        raise TypeError(f"set_verbosity: level must be an int, got {type(level).__name__}")
    _settings.verbosity = level
    _settings.verbosity_to_stdout = bool(also_to_stdout)


def _say(message, to_stdout):
    print(message, file=sys.stderr)
    if to_stdout:
        print(message)


def log(message):
    """A conversion step: to the 'paddle_fn.jit' logger, and printed when `set_verbosity` is on.

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import program_translator
        >>> program_translator.log("a step")  # silent unless paddle.jit.set_verbosity(1)
    """
    _log.debug(message)
    if _settings.verbosity > 0:
        _say("paddle_fn.jit: " + message, _settings.verbosity_to_stdout)


def _is_user_function(func):
    module = getattr(func, "__module__", None) or ""
    filename = func.__code__.co_filename
    # code typed at a prompt or in a doctest ("<stdin>", "<doctest ...>") is the user's whatever its module
    if module.split(".")[0] in ("paddle_fn", "numpy", "builtins") and not filename.startswith("<"):
        return False
    if getattr(func, _NOT_TO_STATIC, False):
        return False
    if any(module == m.__name__ or module.startswith(m.__name__ + ".") for m in _ignored_modules):
        return False
    filename = os.path.normcase(filename)
    # installed packages (site-packages) and the standard library are library code, traced as written
    return not (filename.startswith(_STDLIB) or "site-packages" in filename or "dist-packages" in filename)


def _compile(func):
    """The converted code object and source of `func`, or None when its source cannot be converted."""
    code = func.__code__
    if code in _cache:
        return _cache[code]
    result = None
    try:
        lines, first = inspect.getsourcelines(func)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError) as e:
        log(f"the source of {func.__qualname__} cannot be read ({e}); it is traced as written")
        _cache[code] = None
        return None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != code.co_name:
        log(f"{func.__qualname__} is not a plain `def` (a lambda?); it is traced as written")
        _cache[code] = None
        return None
    fdef = transform_function(fdef)
    source = ast.unparse(fdef)
    freevars = list(code.co_freevars)
    factory = ast.FunctionDef(
        name="__jst_factory", body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=v) for v in freevars], vararg=None, kwonlyargs=[],
                           kw_defaults=[], kwarg=None, defaults=[]),
        decorator_list=[], returns=None, type_comment=None)
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    ast.increment_lineno(module, first - 1)
    namespace = {}
    exec(compile(module, code.co_filename, "exec"), {}, namespace)  # noqa: S102 - the user's own code, rewritten
    inner = next(c for c in namespace["__jst_factory"].__code__.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    result = (inner, source)
    _cache[code] = result
    if _settings.code_level > 0:
        _say(f"\npaddle_fn.jit: converted code of {func.__qualname__}:\n{source}", _settings.code_to_stdout)
    return result


def convert_function(func):
    """`func` converted for to_static when it is user code with readable source; `func` itself otherwise.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.nn_compat.jit.dy2static import convert_function
        >>> def clip_sum(x):
        ...     s = x.sum()
        ...     if s > 1.0:
        ...         s = s * 0.0 + 1.0
        ...     return s
        >>> paddle.jit(convert_function(clip_sum))(paddle.to_tensor([3.0, 4.0])).item()
        1.0
        >>> convert_function(paddle.sin) is paddle.sin
        True
    """
    if isinstance(func, types.MethodType):
        converted = convert_function(func.__func__)
        return func if converted is func.__func__ else types.MethodType(converted, func.__self__)
    if isinstance(func, functools.partial):
        converted = convert_function(func.func)
        return func if converted is func.func else functools.partial(converted, *func.args, **func.keywords)
    if not isinstance(func, types.FunctionType) or not _is_user_function(func):
        return func
    if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
        return func
    done = _by_function.get(func)
    if done is not None:
        return done
    log(f"converting function {func.__qualname__}")
    compiled = _compile(func)
    if compiled is None:
        return func
    inner, _ = compiled
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    globals_ = func.__globals__
    if globals_.get(JST) is not convert_operators:
        if JST in globals_:
            log(f"{func.__qualname__}: its module defines the name {JST!r}; it is traced as written")
            return func
        globals_[JST] = convert_operators  # what converted code calls, as Paddle injects `_jst`
    converted = types.FunctionType(inner, globals_, func.__name__, func.__defaults__,
                                   tuple(cells[v] for v in inner.co_freevars))
    converted.__kwdefaults__ = func.__kwdefaults__
    converted.__qualname__ = func.__qualname__
    converted.__doc__ = func.__doc__
    _by_function[func] = converted
    return converted


def converted_source(func):
    """The converted source of `func` (its own source when it is not converted).

    Example:
        >>> from paddle_fn.nn_compat.jit.dy2static import converted_source
        >>> def neg_if(x):
        ...     return -x if x < 0 else x
        >>> print(converted_source(neg_if))
        def neg_if(x):
            return _jst.convert_ifelse_expr(x < 0, lambda: -x, lambda: x)
    """
    target = func.__func__ if isinstance(func, types.MethodType) else func
    if convert_function(target) is target:
        try:
            return textwrap.dedent(inspect.getsource(target))
        except (OSError, TypeError) as e:
            raise ValueError(f"no source for {func!r}: {e}") from None
    return _cache[target.__code__][1]
