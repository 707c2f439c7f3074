"""``paddle.nn.utils``: a Layer's gradients clipped in place after ``backward()`` (`clip_grad_norm_`,
`clip_grad_value_`), its parameters as one vector and back (`parameters_to_vector`, `vector_to_parameters`), and
weight and spectral normalization of a Layer's parameter by a forward pre-hook (`weight_norm`, `remove_weight_norm`,
`spectral_norm`), with Paddle's parameter and buffer names.

The clipping functions change each parameter's ``.grad`` in place, as Paddle's do, so they belong between
``loss.backward()`` and ``opt.step()``; inside a jitted pure function, clip a gradient pytree with
``paddle.nn.ClipGradByGlobalNorm(...).clip(grads)`` instead.
"""
from __future__ import annotations

import math

import paddle_fn as paddle

Tensor = paddle.Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters", "weight_norm",
           "remove_weight_norm", "spectral_norm"]

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
    """The `norm_type` norm of `x` taken as one vector (0: the count of nonzeros, inf: the largest magnitude)."""
    return paddle.linalg.norm(paddle.reshape(x, [-1]), norm_type)


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
        total = _norm(paddle.stack(norms), norm_type)
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


def _hook_on(layer, kind, name):
    """(key, hook) of `layer`'s forward pre-hook of class `kind` for the parameter `name`, or None."""
    return next(((key, hook) for key, hook in layer._forward_pre_hooks.items()
                 if isinstance(hook, kind) and hook.name == name), None)


def _parameter_to_hook(what, layer, name, kind, done):
    """`layer`'s parameter `name`, which `what` is about to reparametrize by a hook of class `kind` (`done` says
    what such a hook made of it, for the error when it has one already)."""
    if _hook_on(layer, kind, name) is not None:
        raise RuntimeError(f"{what}: the parameter {name!r} of {type(layer).__name__} is already {done}")
    weight = layer._parameters.get(name)
    if weight is None:
        raise ValueError(f"{what}: {type(layer).__name__} has no parameter {name!r}")
    return weight


def _slice_squares(x, dim):
    """The sums of squares of `x`'s slices along `dim` (every axis but `dim` summed; -1: one sum of everything)."""
    return paddle.sum(x * x) if dim == -1 else paddle.sum(_rows_first(x * x, dim), axis=1)


def _rows_first(x, dim):
    """`x` as a matrix whose rows run along axis `dim`: [x.shape[dim], the product of the other axes]."""
    if dim != 0:
        x = paddle.transpose(x, [dim] + [d for d in range(x.ndim) if d != dim])
    return paddle.reshape(x, [x.shape[0], -1])


class _WeightNorm:
    """The forward pre-hook of `weight_norm`: ``name = name_g * name_v / |name_v|``, the norm taken over every axis
    but `dim` (-1: over all of them)."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def weight(self, layer):
        g, v = getattr(layer, self.name + "_g"), getattr(layer, self.name + "_v")
        norms = paddle.sqrt(_slice_squares(v, self.dim))
        if self.dim == -1:
            return v / (norms + 1e-12) * g
        shape = [1] * v.ndim
        shape[self.dim] = v.shape[self.dim]
        return v / paddle.reshape(paddle.clip(norms, min=1e-12), shape) * paddle.reshape(g, shape)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Reparametrize `layer`'s parameter `name` as a magnitude and a direction (Salimans and Kingma), as Paddle:
    the parameter is replaced by ``name_g`` (the norms of its slices along `dim`, or one norm for ``dim=None``) and
    ``name_v`` (its value), and a forward pre-hook sets ``layer.name = name_g * name_v / |name_v|`` before each
    call. The layer computes what it computed before; training moves magnitude and direction apart.

    Args:
        layer (Layer): the layer whose parameter is reparametrized.
        name (str, optional): the parameter's name. Default: 'weight'.
        dim (int|None, optional): the axis whose slices keep a norm each; None normalizes the whole parameter.
            Default: 0.

    Returns:
        Layer: `layer`.

    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.utils.weight_norm(paddle.nn.Conv2D(3, 5, 3))
        >>> conv.weight_g.shape, conv.weight_v.shape
        (paddle.Size([5]), paddle.Size([5, 3, 3, 3]))
    """
    weight = _parameter_to_hook("weight_norm", layer, name, _WeightNorm, "weight normalized (remove_weight_norm "
                                                                        "first)")
    rank = weight.ndim
    dim = -1 if dim is None else dim
    if not -rank <= dim < rank:
        raise ValueError(f"weight_norm: dim must lie in [-{rank}, {rank}) for the parameter {name!r} of shape "
                         f"{list(weight.shape)}, got {dim}")
    hook = _WeightNorm(name, dim if dim == -1 else dim % rank)
    with paddle.no_grad():
        norms = paddle.sqrt(_slice_squares(weight, hook.dim) + 1e-12)
    del layer._parameters[name]
    for suffix, value in (("_v", weight), ("_g", norms)):
        parameter = layer.create_parameter(list(value.shape), dtype=weight.dtype)
        layer.add_parameter(name + suffix, parameter)
        with paddle.no_grad():
            parameter.set_value(value)
    setattr(layer, name, hook.weight(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undo `weight_norm`: the parameter `name` again, holding ``name_g * name_v / |name_v|``, and no hook.

    Args:
        layer (Layer): a layer `weight_norm` reparametrized.
        name (str, optional): the parameter's name. Default: 'weight'.

    Returns:
        Layer: `layer`.

    Example:
        >>> import paddle_fn as paddle
        >>> linear = paddle.nn.utils.weight_norm(paddle.nn.Linear(3, 2))
        >>> [n for n, _ in paddle.nn.utils.remove_weight_norm(linear).named_parameters()]
        ['bias', 'weight']
    """
    found = _hook_on(layer, _WeightNorm, name)
    if found is None:
        raise ValueError(f"remove_weight_norm: weight_norm of {name!r} not found in {type(layer).__name__}")
    key, hook = found
    with paddle.no_grad():
        value = hook.weight(layer)
    delattr(layer, name)
    del layer._parameters[name + "_g"], layer._parameters[name + "_v"]
    parameter = layer.create_parameter(list(value.shape), dtype=value.dtype)
    layer.add_parameter(name, parameter)
    with paddle.no_grad():
        parameter.set_value(value)
    del layer._forward_pre_hooks[key]
    layer._forward_pre_hooks_with_kwargs_flag.pop(key, None)
    return layer


class _SpectralNorm:
    """The forward pre-hook of `spectral_norm`: ``name = name_orig / sigma``, sigma estimated from the buffers
    ``name_u`` and ``name_v``, which a training call first moves by `n_power_iterations` power iterations."""

    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def weight(self, layer, iterate):
        weight = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        matrix = _rows_first(weight, self.dim)
        if iterate:
            with paddle.no_grad():
                for _ in range(self.n_power_iterations):
                    v.set_value(paddle.nn.functional.normalize(paddle.matmul(matrix, u, transpose_x=True), axis=0,
                                                               epsilon=self.eps))
                    u.set_value(paddle.nn.functional.normalize(paddle.matmul(matrix, v), axis=0, epsilon=self.eps))
                u, v = u.clone(), v.clone()  # constants for the gradient, which flows through the weight only
        return weight / paddle.dot(u, paddle.mv(matrix, v))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.weight(layer, iterate=layer.training))


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide `layer`'s parameter `name` by its spectral norm before each call (Miyato et al.), as Paddle: the
    parameter becomes ``name_orig``; the buffers ``name_u`` [h] and ``name_v`` [w] (drawn from N(0, 1) and
    normalized) hold the power iteration's vectors for the parameter seen as a matrix [h, w] whose rows run along
    `dim`; each call in training mode first runs `n_power_iterations` iterations on them, and sets
    ``layer.name = name_orig / (u . (W v))``, the gradient flowing through the parameter only.

    Args:
        layer (Layer): the layer whose parameter is normalized.
        name (str, optional): the parameter's name. Default: 'weight'.
        n_power_iterations (int, optional): power iterations per training call, at least 1. Default: 1.
        eps (float, optional): added to the norms. Default: 1e-12.
        dim (int|None, optional): the axis of the matrix's rows; None: 1 for Linear and the transposed
            convolutions (their output features), else 0. Default: None.

    Returns:
        Layer: `layer`.

    Example:
        >>> import paddle_fn as paddle
        >>> conv = paddle.nn.utils.spectral_norm(paddle.nn.Conv2D(3, 4, 3))
        >>> [n for n, _ in conv.named_parameters()], conv.weight_u.shape, conv.weight_v.shape
        (['bias', 'weight_orig'], paddle.Size([4]), paddle.Size([27]))
    """
    if n_power_iterations <= 0:
        raise ValueError(f"spectral_norm: n_power_iterations must be positive, got {n_power_iterations}")
    weight = _parameter_to_hook("spectral_norm", layer, name, _SpectralNorm, "spectrally normalized")
    nn = paddle.nn
    if dim is None:
        dim = 1 if isinstance(layer, (nn.Conv1DTranspose, nn.Conv2DTranspose, nn.Conv3DTranspose, nn.Linear)) else 0
    hook = _SpectralNorm(name, n_power_iterations, dim, eps)
    h, w = _rows_first(weight, dim).shape
    with paddle.no_grad():
        u, v = (paddle.nn.functional.normalize(paddle.normal(0.0, 1.0, [size]).astype(weight.dtype), axis=0,
                                               epsilon=eps) for size in (h, w))
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", weight)
    setattr(layer, name, weight * 1.0)
    layer.register_buffer(name + "_u", u)
    layer.register_buffer(name + "_v", v)
    layer.register_forward_pre_hook(hook)
    return layer
