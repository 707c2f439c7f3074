"""Paddle's unique names (``paddle.utils.unique_name``): ``linear_0``, ``linear_0.w_0``, ``linear_1``, ...

Layers take their `full_name()` from here and parameters their ``name`` (``<layer full name>.w_<n>`` for
weights, ``.b_<n>`` for biases). `guard` starts a fresh numbering, e.g. to build two models whose parameters get
the same names.

Example:
    >>> from paddle_fn.nn_compat import unique_name
    >>> with unique_name.guard():
    ...     print(unique_name.generate("fc"), unique_name.generate("fc"), unique_name.generate("conv"))
    fc_0 fc_1 conv_0
"""
from __future__ import annotations

import contextlib
import threading
from collections import defaultdict

__all__ = ["UniqueNameGenerator", "generate", "guard", "switch"]


class UniqueNameGenerator:
    """Counts the names generated per key: ``generate("fc")`` gives ``fc_0``, then ``fc_1``, ...

    Args:
        prefix (str, optional): prepended to every generated name. Default: ''.

    Example:
        >>> from paddle_fn.nn_compat.unique_name import UniqueNameGenerator
        >>> g = UniqueNameGenerator("tmp_")
        >>> g("x"), g("x")
        ('tmp_x_0', 'tmp_x_1')
    """

    def __init__(self, prefix: str | None = None):
        self.prefix = prefix or ""
        self.ids: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()

    def __call__(self, key: str) -> str:
        with self._lock:
            n = self.ids[key]
            self.ids[key] = n + 1
        return f"{self.prefix}{key}_{n}"


_generator = UniqueNameGenerator()


def generate(key: str) -> str:
    """A new unique name ``<key>_<n>`` from the current generator.

    Args:
        key (str): the name's stem, e.g. ``"linear"``.

    Example:
        >>> from paddle_fn.nn_compat import unique_name
        >>> with unique_name.guard():
        ...     unique_name.generate("w")
        'w_0'
    """
    return _generator(key)


def switch(new_generator=None):
    """Make `new_generator` (a `UniqueNameGenerator`, or None for a fresh one) current; return the previous one.

    Example:
        >>> from paddle_fn.nn_compat import unique_name
        >>> old = unique_name.switch()
        >>> unique_name.generate("a")
        'a_0'
        >>> _ = unique_name.switch(old)
    """
    global _generator
    old = _generator
    _generator = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    """Within the block, names come from a fresh generator (or `new_generator`: a generator, or a str prefix).

    Example:
        >>> from paddle_fn.nn_compat import unique_name
        >>> with unique_name.guard("A_"):
        ...     unique_name.generate("fc")
        'A_fc_0'
    """
    if isinstance(new_generator, (str, bytes)):
        new_generator = UniqueNameGenerator(new_generator.decode() if isinstance(new_generator, bytes)
                                            else new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
