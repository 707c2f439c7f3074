"""The `check` primitive: a condition a composite states about traced values, which checked mode verifies.

A Paddle function checks its concrete arguments eagerly and raises (``one_hot`` of a label outside its classes).
Traced, it cannot; it states the condition instead, ``x = check(x, ok, kind=..., message=...)``: `x` passes
through unchanged, and a checked ``jit`` (transforms/checks.py) compiles the count of False elements of `ok` into
the program and raises with `message` after the call. Unchecked, the equation lowers to nothing and `ok` is dead
code that IREE removes. Evaluated on concrete values (under ``vmap`` or ``grad`` outside ``jit``), it raises at once.
"""
from __future__ import annotations

import numpy as np

from paddle_fn.core.errors import CheckError, DTypeError, IndexCheckError
from paddle_fn.core.primitive import NONLINEAR, Primitive, RuntimeCheck
from paddle_fn.prims._rules import fmt
from paddle_fn.prims.bitwise import not_
from paddle_fn.prims.elementwise import count_true


def _check_shape(x, ok, *, kind, message):
    if ok.dtype.kind != "b":
        raise DTypeError(f"check: the condition must be a bool Tensor, got {fmt(ok)}")
    return x


def _check_impl(x, ok, *, kind, message):
    failures = int(np.size(ok) - np.count_nonzero(ok))
    if failures:
        raise (IndexCheckError if kind == "index" else CheckError)(message.format(failures=failures, detail=0))
    return x


def _check_jvp(primals, tangents, *, kind, message):
    (x, ok), (t, _) = primals, tangents
    return check_p.bind(x, ok, kind=kind, message=message), t  # the tangent is the identity's: nothing to check


def _check_batch(vals, dims, *, kind, message):
    (x, ok), (x_dim, _) = vals, dims
    return check_p.bind(x, ok, kind=kind, message=message), x_dim  # every element of every example must hold


check_p = Primitive("check", shape_rule=_check_shape, impl=_check_impl, jvp=_check_jvp, transpose=NONLINEAR,
                    batch=_check_batch, lower=lambda ctx, x, ok, *, kind, message: x,
                    error_check=lambda inputs, outputs, *, kind, message: [
                        RuntimeCheck(kind, count_true(not_(inputs[1])), None, message)])


def check(x, ok, *, kind: str, message: str):
    """`x`, with the condition that every element of the bool Tensor `ok` holds: checked mode's `kind` ("index",
    "div", "linalg" or "nan") verifies it; `message` says what failed, with ``{failures}`` for the count of False
    elements.

    Example:
        >>> import paddle_fn as paddle
        >>> from paddle_fn.prims.assertion import check
        >>> labels = paddle.to_tensor([0, 5])
        >>> f = paddle.jit(lambda x: check(x, x < 3, kind="index", message="{failures} labels >= 3"), checks="index")
        >>> f(labels)
        Traceback (most recent call last):
            ...
        paddle_fn.core.errors.IndexCheckError: jit(<lambda>): index check failed in check at ...: 1 labels >= 3. ...
    """
    return check_p.bind(x, ok, kind=kind, message=message)
