"""Gradient clipping: ``paddle.nn.ClipGradByValue``, ``ClipGradByNorm``, ``ClipGradByGlobalNorm``.

Each class works two ways:

- as Paddle calls it, on a list of ``(param, grad)`` pairs: ``clip(params_grads)`` returns the clipped pairs, leaving
  out pairs whose gradient is None and leaving alone parameters whose ``need_clip`` attribute is False (or whose entry
  in the optional ``need_clip`` list is False);
- as a pure function of a gradient pytree: ``clip.clip(grads, need_clip=None)``, usable inside ``paddle.jit``,
  ``paddle.vmap`` and ``pmap`` (no Python branch depends on a Tensor's value).

The formulas are Paddle's:

- by value: ``clip(g, min, max)``;
- by norm (each gradient on its own): ``g * clip_norm / norm(g)`` when ``norm(g) > clip_norm``, else ``g``;
- by global norm: ``global_norm = sqrt(sum_i ||g_i||^2)`` over the clipped gradients, each scaled by
  ``clip_norm / max(global_norm, clip_norm)``.
"""
from __future__ import annotations

import numbers

import paddle_fn as paddle

__all__ = ["ClipGradBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm", "clip_by_norm",
           "clip_grad_by_value", "clip_grad_by_norm", "clip_grad_by_global_norm", "global_norm"]


def _is_flag_leaf(x):
    return x is None or isinstance(x, (bool, numbers.Number))


def _flatten_grads(grads):
    """Leaves of a gradient pytree, with None gradients kept as leaves."""
    return paddle.tree_flatten(grads, is_leaf=lambda x: x is None)


def _need_clip_list(need_clip, treedef, n, what):
    if need_clip is None:
        return [True] * n
    if isinstance(need_clip, bool):
        return [need_clip] * n
    flags, f_def = paddle.tree_flatten(need_clip, is_leaf=_is_flag_leaf)
    if f_def != treedef:
        raise ValueError(f"{what}: need_clip has structure {f_def}, the gradients have {treedef}; give one bool per "
                         "gradient (or a single bool)")
    return [True if f is None else bool(f) for f in flags]


def clip_by_norm(x, max_norm, name=None):
    """Scale ``x`` so that its L2 norm is at most ``max_norm`` (Paddle's ``paddle.nn.clip.clip_by_norm``):
    ``x * max_norm / norm(x)`` when ``norm(x) > max_norm``, else ``x``.

    Args:
        x (Tensor): the input.
        max_norm (float): the largest norm allowed.
        name (str, optional): unused, for Paddle compatibility.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import clip_by_norm
    >>> clip_by_norm(paddle.to_tensor([[2.0, 2.0], [2.0, 2.0]]), max_norm=1.0).numpy()
    array([[0.5, 0.5],
           [0.5, 0.5]], dtype=float32)
    """
    norm = paddle.sqrt(paddle.sum(x * x)).reshape([])
    # Paddle's kernel: scale = 1 if norm <= max_norm else max_norm / (norm + eps), eps = 1e-6 only when norm <= 1e-30
    eps = paddle.where(norm <= 1e-30, paddle.full([], 1e-6, dtype=x.dtype), paddle.zeros([], dtype=x.dtype))
    scale = paddle.where(norm <= max_norm, paddle.ones([], dtype=x.dtype), max_norm / (norm + eps))
    return x * scale


def global_norm(grads, need_clip=None):
    """The global L2 norm ``sqrt(sum_i ||g_i||^2)`` of a gradient pytree, over the gradients that are not None and
    whose ``need_clip`` entry is True, as a 0-D Tensor (float64 if any such gradient is float64, else float32);
    None when no gradient takes part.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import global_norm
    >>> float(global_norm([paddle.to_tensor([3.0]), paddle.to_tensor([4.0])]))
    5.0
    """
    leaves, treedef = _flatten_grads(grads)
    flags = _need_clip_list(need_clip, treedef, len(leaves), "global_norm")
    return _global_norm([g for g, f in zip(leaves, flags) if g is not None and f])


def _global_norm(grads):
    if not grads:
        return None
    # Paddle sums the squared norms per dtype group, then adds the groups in float64 if any gradient is float64,
    # else in float32 (float16 / bfloat16 groups are cast up).
    sum_dtype = "float64" if any(g.dtype == paddle.float64 for g in grads) else "float32"
    total = None
    for g in grads:
        sq = paddle.sum(g * g).reshape([])
        if g.dtype in (paddle.float16, paddle.bfloat16):
            sq = sq.astype("float32")
        sq = sq.astype(sum_dtype)
        total = sq if total is None else total + sq
    return paddle.sqrt(total)


class ClipGradBase:
    """Base class of the gradient-clipping strategies (Paddle's ``ClipGradBase``).

    Subclasses implement ``clip(grads, need_clip=None)`` on a gradient pytree; ``__call__(params_grads)`` adapts it
    to Paddle's list of ``(param, grad)`` pairs.
    """

    def clip(self, grads, need_clip=None):
        """Clip a pytree of gradients (None gradients pass through); ``need_clip`` is None (clip all), a bool, or a
        pytree of bools with the structure of ``grads``."""
        raise NotImplementedError

    def __call__(self, params_grads, need_clip=None):
        """Clip a list of ``(param, grad)`` pairs as Paddle's optimizers do before their update.

        Pairs whose gradient is None are left out of the result (as in Paddle). A parameter is clipped unless its
        ``need_clip`` attribute is False (``ParamAttr(need_clip=False)``); ``need_clip``, a list of bools parallel
        to ``params_grads``, overrides the attributes.
        """
        params_grads = list(params_grads)
        if need_clip is None:
            flags = [getattr(p, "need_clip", True) is not False for p, _ in params_grads]
        else:
            flags = [bool(f) for f in need_clip]
            if len(flags) != len(params_grads):
                raise ValueError(f"{type(self).__name__}: need_clip has {len(flags)} entries for "
                                 f"{len(params_grads)} (param, grad) pairs")
        grads = [g for _, g in params_grads]
        clipped = self.clip(grads, flags)
        return [(p, g) for (p, _), g in zip(params_grads, clipped) if g is not None]


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into ``[min, max]`` (Paddle's ``paddle.nn.ClipGradByValue(max, min=None)``).

    Args:
        max (float): the largest value.
        min (float, optional): the smallest value; default ``-max`` (then ``max`` must be positive).

    Pass it as an optimizer's ``grad_clip``; parameters created with ``ParamAttr(need_clip=False)`` are not clipped.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import ClipGradByValue
    >>> clip = ClipGradByValue(max=1.0)
    >>> clip.clip([paddle.to_tensor([-3.0, 0.5, 2.0])])[0].numpy()
    array([-1. ,  0.5,  1. ], dtype=float32)
    >>> w, b = paddle.ones([2]), paddle.ones([1])
    >>> [g.numpy() for _, g in clip([(w, paddle.to_tensor([5.0, -5.0])), (b, paddle.to_tensor([5.0]))],
    ...                             need_clip=[True, False])]
    [array([ 1., -1.], dtype=float32), array([5.], dtype=float32)]
    """

    def __init__(self, max, min=None):
        if min is None:
            if not max > 0.0:
                raise ValueError(f"ClipGradByValue: max must be positive when min is not given, got {max}")
            min = -max
        self.max = float(max)
        self.min = float(min)

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def __repr__(self):
        return f"ClipGradByValue(max={self.max!r}, min={self.min!r})"

    def clip(self, grads, need_clip=None):
        return clip_grad_by_value(grads, self.max, self.min, need_clip)


class ClipGradByNorm(ClipGradBase):
    """Limit the L2 norm of each gradient to ``clip_norm`` (Paddle's ``paddle.nn.ClipGradByNorm(clip_norm)``):
    ``g * clip_norm / norm(g)`` when ``norm(g) > clip_norm``, else ``g``.

    Args:
        clip_norm (float): the largest norm allowed for each gradient.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import ClipGradByNorm
    >>> grads = {"w": paddle.to_tensor([3.0, 4.0]), "b": paddle.to_tensor([0.5])}
    >>> out = ClipGradByNorm(clip_norm=1.0).clip(grads)
    >>> out["w"].numpy(), out["b"].numpy()
    (array([0.6, 0.8], dtype=float32), array([0.5], dtype=float32))
    """

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def __repr__(self):
        return f"ClipGradByNorm(clip_norm={self.clip_norm!r})"

    def clip(self, grads, need_clip=None):
        return clip_grad_by_norm(grads, self.clip_norm, need_clip)


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients together so that their global norm is at most ``clip_norm`` (Paddle's
    ``paddle.nn.ClipGradByGlobalNorm(clip_norm, group_name='default_group', auto_skip_clip=False)``).

    ``global_norm = sqrt(sum_i ||g_i||^2)`` over the gradients that are clipped; each of them is multiplied by
    ``clip_norm / max(global_norm, clip_norm)``. Gradients with ``need_clip`` False neither count nor change.

    Args:
        clip_norm (float): the largest global norm allowed.
        group_name (str, optional): the clip group's name (Paddle's static-graph grouping); kept for compatibility.
        auto_skip_clip (bool, optional): Paddle skips the multiplication when the norm is small enough; the result
            is the same, so here it only documents intent.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import ClipGradByGlobalNorm
    >>> clip = ClipGradByGlobalNorm(clip_norm=1.0)
    >>> out = clip.clip([paddle.to_tensor([3.0]), paddle.to_tensor([4.0])])
    >>> [g.numpy() for g in out]
    [array([0.6], dtype=float32), array([0.8], dtype=float32)]
    """

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        if not isinstance(auto_skip_clip, bool):
            raise TypeError("ClipGradByGlobalNorm: auto_skip_clip must be a bool")
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def __repr__(self):
        return f"ClipGradByGlobalNorm(clip_norm={self.clip_norm!r}, group_name={self.group_name!r})"

    def clip(self, grads, need_clip=None):
        return clip_grad_by_global_norm(grads, self.clip_norm, need_clip)


def clip_grad_by_value(grads, max, min=None, need_clip=None):
    """Pure form of ``ClipGradByValue(max, min)``: clip each gradient of the pytree ``grads`` into ``[min, max]``.

    ``need_clip``: None (clip all), a bool, or a pytree of bools with the structure of ``grads``. None gradients
    pass through.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import clip_grad_by_value
    >>> clip_grad_by_value({"w": paddle.to_tensor([-2.0, 3.0])}, max=1.0, min=-0.5)["w"].numpy()
    array([-0.5,  1. ], dtype=float32)
    """
    if min is None:
        min = -max
    leaves, treedef = _flatten_grads(grads)
    flags = _need_clip_list(need_clip, treedef, len(leaves), "clip_grad_by_value")
    out = [paddle.clip(g, min=float(min), max=float(max)) if g is not None and f else g
           for g, f in zip(leaves, flags)]
    return paddle.tree_unflatten(treedef, out)


def clip_grad_by_norm(grads, clip_norm, need_clip=None):
    """Pure form of ``ClipGradByNorm(clip_norm)``: limit the L2 norm of each gradient of the pytree ``grads``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import clip_grad_by_norm
    >>> out = clip_grad_by_norm([paddle.to_tensor([3.0, 4.0]), paddle.to_tensor([3.0, 4.0])], 1.0,
    ...                         need_clip=[True, False])
    >>> [g.numpy() for g in out]
    [array([0.6, 0.8], dtype=float32), array([3., 4.], dtype=float32)]
    """
    leaves, treedef = _flatten_grads(grads)
    flags = _need_clip_list(need_clip, treedef, len(leaves), "clip_grad_by_norm")
    out = [clip_by_norm(g, float(clip_norm)) if g is not None and f else g for g, f in zip(leaves, flags)]
    return paddle.tree_unflatten(treedef, out)


def clip_grad_by_global_norm(grads, clip_norm, need_clip=None):
    """Pure form of ``ClipGradByGlobalNorm(clip_norm)``: scale the gradients of the pytree ``grads`` that are
    clipped by ``clip_norm / max(global_norm, clip_norm)``.

    >>> import paddle_fn as paddle
    >>> from paddle_fn.nn_compat.clip import clip_grad_by_global_norm
    >>> grads = {"w": paddle.to_tensor([3.0]), "b": paddle.to_tensor([4.0]), "frozen": paddle.to_tensor([10.0])}
    >>> out = clip_grad_by_global_norm(grads, 1.0, need_clip={"w": True, "b": True, "frozen": False})
    >>> out["w"].numpy(), out["b"].numpy(), out["frozen"].numpy()
    (array([0.6], dtype=float32), array([0.8], dtype=float32), array([10.], dtype=float32))
    """
    leaves, treedef = _flatten_grads(grads)
    flags = _need_clip_list(need_clip, treedef, len(leaves), "clip_grad_by_global_norm")
    norm = _global_norm([g for g, f in zip(leaves, flags) if g is not None and f])
    if norm is None:
        return grads
    limit = paddle.full([], float(clip_norm), dtype=norm.dtype)
    scale = limit / paddle.maximum(norm, limit)
    out = [g * scale.astype(g.dtype) if g is not None and f else g for g, f in zip(leaves, flags)]
    return paddle.tree_unflatten(treedef, out)
