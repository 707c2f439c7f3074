"""``paddle_fn.tree``: JAX's ``jax.tree`` functions over paddle_fn's pytrees (optree, with ``None`` an empty subtree
and classes registered with ``paddle_fn.register_pytree_node``).

Example:
    >>> import paddle_fn as paddle
    >>> params = {"w": paddle.ones([2]), "b": paddle.zeros([])}
    >>> paddle.tree.map(lambda p: p * 2.0, params)["w"].tolist()
    [2.0, 2.0]
"""
from __future__ import annotations

import builtins
import functools

from paddle_fn.core import pytree

__all__ = ["map", "flatten", "unflatten", "leaves", "structure", "reduce", "all"]


def map(f, tree, *rest, is_leaf=None):  # noqa: A001 - JAX's name
    """``f`` applied to the leaves of `tree` (and the corresponding leaves of each of `rest`), in a tree of the same
    structure.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)])
        [11, (22, 33)]
    """
    return pytree.tree_map(f, tree, *rest, is_leaf=is_leaf)


def flatten(tree, is_leaf=None):
    """``(leaves, treedef)``: the leaves in order and the structure that `unflatten` rebuilds from them.

    Example:
        >>> import paddle_fn as paddle
        >>> leaves, treedef = paddle.tree.flatten({"a": 1, "b": (2, None)})
        >>> leaves, treedef.num_leaves
        ([1, 2], 2)
    """
    return pytree.tree_flatten(tree, is_leaf=is_leaf)


def unflatten(treedef, leaves):
    """The tree of structure `treedef` (from `flatten` or `structure`) holding `leaves`.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.unflatten(paddle.tree.structure((0, [0])), [5, 6])
        (5, [6])
    """
    return pytree.tree_unflatten(treedef, list(leaves))


def leaves(tree, is_leaf=None) -> list:
    """The leaves of `tree`, in order.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.leaves({"b": [1, 2], "a": 0})
        [0, 1, 2]
    """
    return pytree.tree_leaves(tree, is_leaf=is_leaf)


def structure(tree, is_leaf=None):
    """The structure (treedef) of `tree`, without its leaves.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.structure([1, (2, 3)]).num_leaves
        3
    """
    return pytree.tree_structure(tree, is_leaf=is_leaf)


def reduce(function, tree, initializer=None, is_leaf=None):
    """``functools.reduce(function, leaves(tree))``, starting from `initializer` when it is given.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.reduce(lambda a, b: a + b, {"x": 1, "y": [2, 3]})
        6
    """
    items = leaves(tree, is_leaf=is_leaf)
    return functools.reduce(function, items) if initializer is None else functools.reduce(function, items, initializer)


def all(tree, is_leaf=None) -> bool:  # noqa: A001 - JAX's name
    """Whether every leaf of `tree` is truthy.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.tree.all([True, (1, 2)]), paddle.tree.all({"a": 0})
        (True, False)
    """
    return builtins.all(leaves(tree, is_leaf=is_leaf))
