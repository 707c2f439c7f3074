"""Paddle's switch for automatic differentiation through primitive operators (``enable_prim``, ``disable_prim``,
``prim_enabled``). Paddle lowers its composite operators to primitives only when the switch is on (in static
mode); paddle_fn always differentiates through its primitives, so the switch is accepted and remembered, and
changes nothing else: every derivative, of any order, is already the primitives' own.
"""
from __future__ import annotations

__all__ = ["enable_prim", "disable_prim", "prim_enabled"]

_state = {"enabled": False}


def enable_prim():
    """Turn Paddle's primitive-operator autodiff switch on (a no-op here; see the module docstring).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.incubate.autograd.enable_prim()
        >>> paddle.incubate.autograd.prim_enabled()
        True
        >>> paddle.incubate.autograd.disable_prim()
    """
    _state["enabled"] = True


def disable_prim():
    """Turn the switch off again (a no-op here; see the module docstring).

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.incubate.autograd.disable_prim()
        >>> paddle.incubate.autograd.prim_enabled()
        False
    """
    _state["enabled"] = False


def prim_enabled():
    """Whether ``enable_prim`` was called more recently than ``disable_prim`` (False at first, as in Paddle)."""
    return _state["enabled"]
