"""``paddle.nn.utils``: a Layer's gradients clipped in place after ``backward()`` (`clip_grad_norm_`,
`clip_grad_value_`), and its parameters as one vector and back (`parameters_to_vector`, `vector_to_parameters`).

The clipping functions change each parameter's ``.grad`` in place, as Paddle's do, so they belong between
``loss.backward()`` and ``opt.step()``; inside a jitted pure function, clip a gradient pytree with
``paddle.nn.ClipGradByGlobalNorm(...).clip(grads)`` instead.
"""
from __future__ import annotations

import math

import paddle_fn as paddle

Tensor = paddle.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]

_NORM_TYPES = (math.inf, 0.0, 1.0, 2.0)


def _tensors(what, parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    tensors = list(parameters)
    bad = [type(p).__name__ for p in tensors if not isinstance(p, Tensor)]
    if bad:
        raise TypeError(f"{what}: parameters must be a Tensor or an iterable of Tensors (a Layer's parameters()), "
                        f"got {bad[0]} among them")
    return tensors


def _norm(x, norm_type):
    """The `norm_type` norm of `x` taken as one vector: the largest magnitude, the count of nonzeros, the sum of
    magnitudes or the Euclidean length."""
    if norm_type == math.inf:
        return paddle.max(paddle.abs(x))
    if norm_type == 0:
        return paddle.sum((x != 0).astype(x.dtype))
    if norm_type == 1:
        return paddle.sum(paddle.abs(x))
    return paddle.sqrt(paddle.sum(x * x))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients of `parameters` in place so that their norm, taken over all of them as one vector, is at
    most `max_norm`; returns that norm before clipping (a 0-D Tensor).

    As Paddle: the gradients are multiplied by ``min(max_norm / (total_norm + 1e-6), 1)``; the total is the
    `norm_type` norm of the gradients' own norms (``inf``: the largest magnitude; ``0``, ``1``, ``2``);
    parameters without a gradient are skipped, and with none at all the result is 0.

    Args:
        parameters (Tensor|Iterable[Tensor]): the parameters whose ``.grad`` is clipped.
        max_norm (float|int): the largest norm allowed.
        norm_type (float|int, optional): ``inf``, 0, 1 or 2. Default: 2.
        error_if_nonfinite (bool, optional): raise a RuntimeError when the total norm is nan or inf.
            Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(3, 2)
        >>> linear(paddle.ones([4, 3])).sum().backward()
        >>> paddle.nn.utils.clip_grad_norm_(linear.parameters(), max_norm=1.0)
        Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=True,
               11.31370831)
        >>> float(paddle.linalg.norm(paddle.concat([p.grad.flatten() for p in linear.parameters()])))
        0.9999998807907104
    """
    tensors = _tensors("clip_grad_norm_", parameters)
    norm_type = float(norm_type)
    if norm_type not in _NORM_TYPES:
        raise ValueError(f"clip_grad_norm_: norm_type must be inf, 0, 1 or 2 (as Paddle), got {norm_type}")
    grads = [p.grad for p in tensors if p.grad is not None]
    if not grads:
        return paddle.to_tensor(0.0)
    with paddle.no_grad():
        norms = [_norm(g.detach(), norm_type) for g in grads]
        total = norms[0] if norm_type == math.inf and len(norms) == 1 else _norm(paddle.stack(norms), norm_type)
        if error_if_nonfinite and not bool(paddle.isfinite(total)):
            raise RuntimeError(f"clip_grad_norm_: the total {norm_type:g}-norm of the gradients is {float(total)}, "
                               "so they cannot be clipped; pass error_if_nonfinite=False to scale them anyway")
        scale = paddle.clip(max_norm / (total + 1e-6), max=1.0)
        for p in tensors:
            if p.grad is not None:
                p.grad.multiply_(scale.astype(p.grad.dtype))
    return total


def clip_grad_value_(parameters, clip_value):
    """Clamp the gradients of `parameters` in place to ``[-clip_value, clip_value]``; parameters without a gradient
    are skipped.

    Args:
        parameters (Tensor|Iterable[Tensor]): the parameters whose ``.grad`` is clipped.
        clip_value (float|int): the largest magnitude allowed.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(3, 2)
        >>> linear(paddle.ones([4, 3])).sum().backward()
        >>> paddle.nn.utils.clip_grad_value_(linear.parameters(), 0.5)
        >>> linear.bias.grad.numpy()
        array([0.5, 0.5], dtype=float32)
    """
    clip_value = float(clip_value)
    with paddle.no_grad():
        for p in _tensors("clip_grad_value_", parameters):
            if p.grad is not None:
                p.grad.clip_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters, name=None):
    """The parameters flattened and joined into one 1-D Tensor, in order.

    Args:
        parameters (Iterable[Tensor]): a Layer's parameters, say.
        name (str, optional): unused, for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(10, 15)
        >>> paddle.nn.utils.parameters_to_vector(linear.parameters()).shape
        paddle.Size([165])
    """
    return paddle.concat([paddle.reshape(p, [-1]) for p in _tensors("parameters_to_vector", parameters)])


def vector_to_parameters(vec, parameters, name=None):
    """Set the parameters, in order, from consecutive slices of the 1-D Tensor `vec` (the inverse of
    `parameters_to_vector`); as Paddle, elements of `vec` past the parameters' total are left unused.

    Args:
        vec (Tensor): a 1-D Tensor with at least as many elements as the parameters hold.
        parameters (Iterable[Tensor]): the parameters to set, in place.
        name (str, optional): unused, for Paddle compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.Linear(2, 1)
        >>> paddle.nn.utils.vector_to_parameters(paddle.to_tensor([1.0, 2.0, 3.0]), linear.parameters())
        >>> linear.weight.numpy(), linear.bias.numpy()
        (array([[1.],
               [2.]], dtype=float32), array([3.], dtype=float32))
    """
    tensors = _tensors("vector_to_parameters", parameters)
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise ValueError(f"vector_to_parameters: vec must be a 1-D Tensor, got "
                         f"{list(vec.shape) if isinstance(vec, Tensor) else type(vec).__name__}")
    total = sum(math.prod(p.shape) for p in tensors)
    if total > vec.shape[0]:
        raise ValueError(f"vector_to_parameters: vec has {vec.shape[0]} elements but the parameters hold {total}")
    start = 0
    with paddle.no_grad():
        for p in tensors:
            size = math.prod(p.shape)
            p.set_value(paddle.reshape(vec[start:start + size], p.shape).astype(p.dtype))
            start += size
