"""Weight-decay regularizers: ``paddle.regularizer.L1Decay`` and ``L2Decay``.

A regularizer adds a decay term to a parameter's gradient before the optimizer's update, as Paddle's
``append_regularization_ops`` does:

- ``L2Decay(coeff)``: ``grad + coeff * param``
- ``L1Decay(coeff)``: ``grad + coeff * sign(param)``

They are plain, immutable Python objects (their coefficient is a compile-time constant under ``paddle.jit``), usable
as an optimizer's ``weight_decay`` or as a ``ParamAttr(regularizer=...)``; a parameter's own regularizer wins over the
optimizer's. ``AdamW`` and ``Lamb`` decay weights in their own (decoupled) way instead.
"""
from __future__ import annotations

import numbers

import paddle_fn as paddle

__all__ = ["WeightDecayRegularizer", "L1Decay", "L2Decay", "regularization_term", "append_regularization"]


class WeightDecayRegularizer:
    """Base class of the weight-decay regularizers (Paddle's ``paddle.regularizer.WeightDecayRegularizer``).

    Subclasses define ``decay(param)``, the term added to the gradient. Calling the object as Paddle does,
    ``reg(param, grad)``, returns that term; ``reg.apply(param, grad)`` returns the regularized gradient.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.regularizer import L2Decay, WeightDecayRegularizer
    >>> isinstance(L2Decay(0.1), WeightDecayRegularizer)
    True
    """

    __slots__ = ("_regularization_coeff",)

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, numbers.Real):
            raise TypeError(f"{type(self).__name__}: coeff must be a float, got {type(coeff).__name__}")
        object.__setattr__(self, "_regularization_coeff", float(coeff))

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable; create a new one")

    @property
    def coeff(self) -> float:
        """The regularization coefficient (Paddle keeps it in ``_regularization_coeff``)."""
        return self._regularization_coeff

    def decay(self, param):
        raise NotImplementedError

    def __call__(self, param, grad=None, block=None):
        """The decay term for ``param`` (Paddle's ``regularizer(param, grad, block)``); ``grad`` is not used."""
        return self.decay(param)

    def apply(self, param, grad):
        """``grad`` plus the decay term, in ``grad``'s dtype."""
        return grad + self.decay(param).astype(grad.dtype)

    def __eq__(self, other):
        return type(self) is type(other) and self.coeff == other.coeff

    def __hash__(self):
        return hash((type(self).__name__, self.coeff))

    def __repr__(self):
        return f"{type(self).__name__}(coeff={self.coeff!r})"


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay (Paddle's ``paddle.regularizer.L1Decay(coeff=0.0)``): adds ``coeff * sign(param)`` to the
    gradient, which pushes weights towards exactly zero (sparse weights).

    Args:
        coeff (float): the regularization coefficient. Default 0.0.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.regularizer import L1Decay
    >>> reg = L1Decay(coeff=0.5)
    >>> reg
    L1Decay(coeff=0.5)
    >>> w, g = paddle.to_tensor([2.0, -3.0, 0.0]), paddle.to_tensor([1.0, 1.0, 1.0])
    >>> reg(w, g).numpy()
    array([ 0.5, -0.5,  0. ], dtype=float32)
    >>> reg.apply(w, g).numpy()
    array([1.5, 0.5, 1. ], dtype=float32)
    """

    __slots__ = ()

    def decay(self, param):
        return paddle.sign(param) * self.coeff

    def __str__(self):
        return f"L1Decay, coeff={self.coeff:f}"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay (Paddle's ``paddle.regularizer.L2Decay(coeff=0.0)``): adds ``coeff * param`` to the gradient,
    the gradient of ``coeff / 2 * ||param||^2``. An optimizer's ``weight_decay=0.01`` (a float) means
    ``L2Decay(0.01)``.

    Args:
        coeff (float): the regularization coefficient. Default 0.0.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.regularizer import L2Decay
    >>> reg = L2Decay(coeff=0.1)
    >>> w, g = paddle.to_tensor([2.0, -3.0]), paddle.to_tensor([1.0, 1.0])
    >>> reg.apply(w, g).numpy()
    array([1.2, 0.7], dtype=float32)
    >>> str(reg)
    'L2Decay, coeff=0.100000'
    """

    __slots__ = ()

    def decay(self, param):
        return param * self.coeff

    def __str__(self):
        return f"L2Decay, coeff={self.coeff:f}"


def as_regularizer(weight_decay, what="weight_decay"):
    """Paddle's reading of an optimizer's ``weight_decay``: ``None`` (no decay), a float (``L2Decay(float)``) or a
    regularizer object."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, numbers.Real) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    raise TypeError(f"{what} must be None, a float, paddle.regularizer.L1Decay or L2Decay; got "
                    f"{type(weight_decay).__name__}")


def regularization_term(param, regularization=None, param_regularizer=None):
    """The decay term Paddle adds to ``param``'s gradient, or None: the parameter's own regularizer (its
    ``ParamAttr(regularizer=...)``) wins over the optimizer's ``regularization``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.regularizer import regularization_term, L1Decay
    >>> w = paddle.to_tensor([2.0, -3.0])
    >>> regularization_term(w, 0.1, L1Decay(1.0)).numpy()
    array([ 1., -1.], dtype=float32)
    >>> regularization_term(w, None) is None
    True
    """
    reg = as_regularizer(param_regularizer, "regularizer") or as_regularizer(regularization)
    return None if reg is None else reg.decay(param)


def append_regularization(params, grads, regularization=None, param_regularizers=None):
    """Regularized gradients for a pytree of parameters (Paddle's ``append_regularization_ops``).

    Args:
        params: a pytree of parameter Tensors.
        grads: their gradients, with the same structure; a ``None`` gradient stays ``None``.
        regularization: the optimizer's ``weight_decay``: None, a float (L2) or an ``L1Decay`` / ``L2Decay``.
        param_regularizers: optional per-parameter regularizers (each parameter's ``ParamAttr.regularizer``),
            a pytree with the structure of ``params`` whose entries are None or regularizers; an entry that is not
            None replaces ``regularization`` for that parameter.

    Returns:
        The gradients, with the structure of ``grads``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.regularizer import append_regularization, L1Decay
    >>> params = {"w": paddle.to_tensor([1.0, -2.0]), "b": paddle.to_tensor([3.0])}
    >>> grads = {"w": paddle.to_tensor([0.5, 0.5]), "b": paddle.to_tensor([0.5])}
    >>> out = append_regularization(params, grads, 0.1, {"w": L1Decay(1.0), "b": None})
    >>> out["w"].numpy(), out["b"].numpy()
    (array([ 1.5, -0.5], dtype=float32), array([0.8], dtype=float32))
    """
    p_leaves, treedef = paddle.tree_flatten(params)
    g_leaves, g_def = paddle.tree_flatten(grads, is_leaf=lambda x: x is None)
    if g_def != treedef:
        raise ValueError(f"append_regularization: grads have structure {g_def}, params have {treedef}")
    if param_regularizers is None or _is_reg_leaf(param_regularizers):
        regs = [param_regularizers] * len(p_leaves)
    else:
        regs, r_def = paddle.tree_flatten(param_regularizers, is_leaf=_is_reg_leaf)
        if r_def != treedef:
            raise ValueError(f"append_regularization: param_regularizers have structure {r_def}, params have "
                             f"{treedef}")
    out = []
    for p, g, r in zip(p_leaves, g_leaves, regs):
        if g is None:
            out.append(None)
            continue
        term = regularization_term(p, regularization, r)
        out.append(g if term is None else g + term.astype(g.dtype))
    return paddle.tree_unflatten(treedef, out)


def _is_reg_leaf(x):
    return x is None or isinstance(x, (WeightDecayRegularizer, numbers.Number))
