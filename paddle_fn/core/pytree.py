"""Pytrees via optree: containers (tuple, list, dict, namedtuple, None, registered classes) with Tensor leaves.

`None` is an empty subtree (as in JAX). Registered classes use the "paddle_fn" namespace.
"""
from __future__ import annotations

import optree

NAMESPACE = "paddle_fn"


def tree_flatten(tree, is_leaf=None):
    return optree.tree_flatten(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_unflatten(treedef, leaves):
    return optree.tree_unflatten(treedef, leaves)


def tree_map(f, tree, *rest, is_leaf=None):
    return optree.tree_map(f, tree, *rest, is_leaf=is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_leaves(tree, is_leaf=None):
    return optree.tree_leaves(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def tree_structure(tree, is_leaf=None):
    return optree.tree_structure(tree, is_leaf=is_leaf, none_is_leaf=False, namespace=NAMESPACE)


def broadcast_prefix(prefix, full, is_leaf=None):
    """Expand a pytree prefix (e.g. vmap's in_axes, where None is a leaf) to one entry per leaf of `full`.

    Raises ValueError when `prefix` is not a prefix of `full`'s structure.
    """
    expanded = optree.broadcast_prefix(prefix, full, is_leaf=is_leaf, none_is_leaf=True, namespace=NAMESPACE)
    leaves = optree.tree_leaves(full, is_leaf=is_leaf, none_is_leaf=True, namespace=NAMESPACE)
    return [e for e, leaf in zip(expanded, leaves) if leaf is not None]


def register_pytree_node(cls, flatten, unflatten):
    """Register a container class: flatten(obj) -> (children, aux); unflatten(aux, children) -> obj."""
    optree.register_pytree_node(cls, lambda o: flatten(o), lambda aux, ch: unflatten(aux, ch), namespace=NAMESPACE)
    return cls
