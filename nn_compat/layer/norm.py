"""Normalization layers (`paddle.nn.layer.norm`): BatchNorm1D/2D/3D and the older `BatchNorm`, LayerNorm,
GroupNorm, InstanceNorm1D/2D/3D and LocalResponseNorm, over `paddle.nn.functional`'s normalizations.

The batch norms keep their running statistics in the persistable buffers ``_mean`` and ``_variance`` (Paddle's
state_dict names). In training mode they are updated after every forward with Paddle's convention,
``running = momentum * running + (1 - momentum) * batch`` (the biased batch variance), and used instead of the
batch statistics in eval mode. Under ``paddle.nn.functional_call`` the updated values come back with
``return_buffers=True``.
"""
from __future__ import annotations

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.initializer import Constant
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "GroupNorm", "InstanceNorm1D",
           "InstanceNorm2D", "InstanceNorm3D", "LayerNorm", "LocalResponseNorm"]


def _affine(layer, shape, weight_attr, bias_attr, dtype, weight_name="weight", device=None):
    """Create the scale (ones) and shift (zeros) parameters; an attr of False leaves that parameter out."""
    weight = None if weight_attr is False else layer.create_parameter(
        shape, attr=weight_attr, dtype=dtype, is_bias=False, default_initializer=Constant(1.0), device=device)
    bias = None if bias_attr is False else layer.create_parameter(shape, attr=bias_attr, dtype=dtype, is_bias=True,
                                                                  device=device)
    setattr(layer, weight_name, weight)
    layer.bias = bias


class _BatchNormBase(Layer):
    _formats = ("NCHW", "NHWC")
    _ranks = (4,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        op = type(self).__name__
        if data_format not in self._formats:
            raise ValueError(f"{op}: data_format must be one of {self._formats}, got {data_format!r}")
        self._num_features, self._momentum, self._epsilon = num_features, momentum, epsilon
        self._data_format, self._use_global_stats, self._name = data_format, use_global_stats, name
        self._dtype = paddle_fn.get_default_dtype()
        if weight_attr is False:  # Paddle keeps a fixed scale of ones
            self.weight = self.create_parameter([num_features], dtype=self._dtype,
                                                default_initializer=Constant(1.0))
            self.weight.stop_gradient = True
        else:
            self.weight = self.create_parameter([num_features], attr=weight_attr, dtype=self._dtype,
                                                default_initializer=Constant(1.0))
        if bias_attr is False:
            self.bias = self.create_parameter([num_features], dtype=self._dtype, is_bias=True)
            self.bias.stop_gradient = True
        else:
            self.bias = self.create_parameter([num_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.register_buffer("_mean", paddle_fn.zeros([num_features], self._dtype))
        self.register_buffer("_variance", paddle_fn.ones([num_features], self._dtype))

    def _check_input(self, x):
        if x.ndim not in self._ranks:
            wanted = " or ".join(f"{r}-D" for r in self._ranks)
            raise ValueError(f"{type(self).__name__}: expected a {wanted} input, got shape {x.shape}")

    def _normalize(self, x, batch_stats, use_global_stats):
        """Normalize with batch statistics (and update the running ones) or with the running ones."""
        out, mean, var = F.batch_norm_with_stats(
            x, self._mean, self._variance, self.weight, self.bias, training=batch_stats, momentum=self._momentum,
            epsilon=self._epsilon, data_format=self._data_format, use_global_stats=use_global_stats)
        if batch_stats and not use_global_stats:
            with paddle_fn.no_grad():
                self._mean.set_value(mean.detach())
                self._variance.set_value(var.detach())
        return out

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        self._check_input(input)
        return self._normalize(input, self.training, self._use_global_stats)

    def extra_repr(self):
        text = f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        return text + (f", name={self._name}" if self._name is not None else "")


class BatchNorm1D(_BatchNormBase):
    """Batch normalization of ``[N, C]`` or ``[N, C, L]`` inputs (`paddle.nn.functional.batch_norm`).

    Args:
        num_features (int): C.
        momentum (float, optional): the running statistics' decay. Default: 0.9.
        epsilon (float, optional): added to the variance. Default: 1e-5.
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False: a fixed scale of ones.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros); False: a fixed zero shift.
        data_format (str, optional): 'NC', 'NCL' (default) or 'NLC'.
        use_global_stats (bool, optional): always (True) or never (False) normalize with the running statistics;
            None (default): in eval mode only.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> bn = paddle.nn.BatchNorm1D(2)
        >>> bn
        BatchNorm1D(num_features=2, momentum=0.9, epsilon=1e-05, data_format=NCL)
        >>> bn(paddle.to_tensor([[1.0, 2.0], [3.0, 6.0]])).numpy()
        array([[-0.999995 , -0.9999988],
               [ 0.999995 ,  0.9999988]], dtype=float32)
        >>> bn._mean.numpy(), bn._variance.numpy()
        (array([0.20000005, 0.4000001 ], dtype=float32), array([1.       , 1.3000001], dtype=float32))
    """
    _formats = ("NC", "NCL", "NLC")
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization of ``[N, C, H, W]`` inputs (`paddle.nn.functional.batch_norm`).

    Args:
        num_features (int): C.
        momentum (float, optional): the running statistics' decay. Default: 0.9.
        epsilon (float, optional): added to the variance. Default: 1e-5.
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False: a fixed scale of ones.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros); False: a fixed zero shift.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        use_global_stats (bool, optional): always (True) or never (False) normalize with the running statistics;
            None (default): in eval mode only.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> bn = paddle.nn.BatchNorm2D(3)
        >>> [name for name, _ in bn.named_parameters()], [name for name, _ in bn.named_buffers()]
        (['weight', 'bias'], ['_mean', '_variance'])
        >>> _ = bn.eval()
        >>> bn(paddle.ones([1, 3, 2, 2])).numpy()[0, 0]
        array([[0.999995, 0.999995],
               [0.999995, 0.999995]], dtype=float32)
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm3D(_BatchNormBase):
    """Batch normalization of ``[N, C, D, H, W]`` inputs (`paddle.nn.functional.batch_norm`).

    Args:
        num_features (int): C.
        momentum (float, optional): the running statistics' decay. Default: 0.9.
        epsilon (float, optional): added to the variance. Default: 1e-5.
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False: a fixed scale of ones.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros); False: a fixed zero shift.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        use_global_stats (bool, optional): always (True) or never (False) normalize with the running statistics;
            None (default): in eval mode only.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.BatchNorm3D(2)(paddle.ones([2, 2, 1, 1, 1])).shape
        paddle.Size([2, 2, 1, 1, 1])
    """
    _formats = ("NCDHW", "NDHWC")
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm(_BatchNormBase):
    """Paddle's older batch-normalization layer (any rank >= 2), with an optional activation.

    Args:
        num_channels (int): C.
        act (str, optional): an activation of `paddle.nn.functional` applied to the output ('relu', ...).
        is_test (bool, optional): normalize with the running statistics (and do not update them). Default: False.
        momentum (float, optional): Default: 0.9.
        epsilon (float, optional): Default: 1e-5.
        param_attr (ParamAttr|bool, optional): the scale's attributes.
        bias_attr (ParamAttr|bool, optional): the shift's attributes.
        dtype (str, optional): the parameters' dtype. Default: 'float32'.
        data_layout (str, optional): 'NCHW' (default) or 'NHWC'.
        in_place (bool, optional): only False (Tensors are values here).
        moving_mean_name (str, optional): the name of the ``_mean`` buffer.
        moving_variance_name (str, optional): the name of the ``_variance`` buffer.
        do_model_average_for_mean_and_var (bool, optional): a static-graph option without effect in dynamic mode,
            as in Paddle.
        use_global_stats (bool, optional): always normalize with the running statistics. Default: False.
        trainable_statistics (bool, optional): use (and update) batch statistics in eval mode too. Default: False.

    Example:
        >>> import paddle_fn as paddle
        >>> bn = paddle.nn.BatchNorm(2, act="relu")
        >>> bn(paddle.to_tensor([[1.0, 2.0], [3.0, 6.0]])).numpy()
        array([[0.       , 0.       ],
               [0.999995 , 0.9999988]], dtype=float32)
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype="float32", data_layout="NCHW", in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        if in_place:
            raise NotImplementedError("BatchNorm: in_place=True is not supported (Tensors are values here)")
        if act is not None and not callable(getattr(F, act, None)):
            raise ValueError(f"BatchNorm: act must name an activation of paddle.nn.functional, got {act!r}")
        previous = paddle_fn.get_default_dtype()
        paddle_fn.set_default_dtype(dtype)
        try:
            super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout, None, None)
        finally:
            paddle_fn.set_default_dtype(previous)
        self._act, self._is_test, self._trainable_statistics = act, is_test, trainable_statistics
        self._use_global_stats = use_global_stats
        self._do_model_average_for_mean_and_var = do_model_average_for_mean_and_var
        if moving_mean_name:
            self._mean.name = moving_mean_name
        if moving_variance_name:
            self._variance.name = moving_variance_name

    def _check_input(self, x):
        if x.ndim < 2:
            raise ValueError(f"BatchNorm: expected an input of rank >= 2 [N, C, ...], got shape {x.shape}")

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        self._check_input(input)
        batch_stats = (self.training or self._trainable_statistics) and not self._is_test
        out = self._normalize(input, batch_stats, self._use_global_stats or self._is_test or None)
        return out if self._act is None else getattr(F, self._act)(out)

    def extra_repr(self):
        return ""


class LayerNorm(Layer):
    """Normalize over the trailing `normalized_shape` axes, then scale and shift
    (`paddle.nn.functional.layer_norm`).

    Args:
        normalized_shape (int|list): the trailing axes' sizes.
        epsilon (float, optional): added to the variance. Default: 1e-5.
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False: no scale.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros); False: no shift.
        name (str, optional): shown in the repr.
        elementwise_affine (bool, optional): keyword-only; False: neither scale nor shift (Paddle 3.3). Default:
            True.
        bias (bool, optional): keyword-only; False: no shift. Default: True.
        device (str|Place, optional): keyword-only; where the parameters live. Default: the default device.
        dtype (str, optional): keyword-only; the parameters' dtype. Default: the default dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> ln = paddle.nn.LayerNorm(2)
        >>> ln
        LayerNorm(normalized_shape=[2], epsilon=1e-05)
        >>> ln(paddle.to_tensor([[1.0, 3.0]])).numpy()
        array([[-0.999995,  0.999995]], dtype=float32)
    """

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None, *,
                 elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._normalized_shape, self._epsilon, self._name = shape, epsilon, name
        self._dtype = paddle_fn.get_default_dtype() if dtype is None else dtype
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        _affine(self, shape, weight_attr, bias_attr, self._dtype, device=device)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalize each group of ``num_channels / num_groups`` channels, then scale and shift per channel
    (`paddle.nn.functional.group_norm`).

    Args:
        num_groups (int): the number of groups; must divide `num_channels`.
        num_channels (int): C.
        epsilon (float, optional): Default: 1e-5.
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False: no scale.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros); False: no shift.
        data_format (str, optional): 'NCHW' (default; any channel-first rank) or 'NHWC'.
        name (str, optional): shown in the repr.
        affine (bool, optional): keyword-only; False: neither scale nor shift (Paddle 3.3). Default: True.
        device (str|Place, optional): keyword-only; where the parameters live. Default: the default device.
        dtype (str, optional): keyword-only; the parameters' dtype. Default: the default dtype.

    Example:
        >>> import paddle_fn as paddle
        >>> gn = paddle.nn.GroupNorm(num_groups=1, num_channels=2)
        >>> gn
        GroupNorm(num_groups=1, num_channels=2, epsilon=1e-05)
        >>> gn(paddle.to_tensor([[[1.0], [3.0]]])).numpy().ravel()
        array([-0.999995,  0.999995], dtype=float32)
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None, *, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self._num_groups, self._num_channels, self._epsilon = num_groups, num_channels, epsilon
        self._data_format, self._name = data_format, name
        if not affine:
            weight_attr = bias_attr = False
        _affine(self, [num_channels], weight_attr, bias_attr,
                paddle_fn.get_default_dtype() if dtype is None else dtype, device=device)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)

    def extra_repr(self):
        return f"num_groups={self._num_groups}, num_channels={self._num_channels}, epsilon={self._epsilon}"


class _InstanceNormBase(Layer):
    _default_format = "NCHW"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format=None, name=None):
        super().__init__()
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError(f"{type(self).__name__}: weight_attr and bias_attr must both be False or both not")
        self._num_features, self._epsilon, self._momentum = num_features, epsilon, momentum
        self._data_format = self._default_format if data_format is None else data_format
        self._name = name
        _affine(self, [num_features], weight_attr, bias_attr, paddle_fn.get_default_dtype(), weight_name="scale")

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self):
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Normalize each (example, channel) of a ``[N, C, L]`` input over L, then scale and shift per channel
    (`paddle.nn.functional.instance_norm`).

    Args:
        num_features (int): C.
        epsilon (float, optional): Default: 1e-5.
        momentum (float, optional): kept for Paddle compatibility (instance norm keeps no running statistics).
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False (with bias_attr): no affine.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros).
        data_format (str, optional): 'NCL' (default).
        name (str, optional): shown in the repr.

    Attributes: ``scale`` and ``bias`` (Parameters ``[num_features]``), as Paddle names them.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.InstanceNorm1D(1)
        >>> m
        InstanceNorm1D(num_features=1, epsilon=1e-05)
        >>> m(paddle.to_tensor([[[1.0, 3.0]]])).numpy()
        array([[[-0.999995,  0.999995]]], dtype=float32)
    """
    _default_format = "NCL"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCL", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Normalize each (example, channel) of a ``[N, C, H, W]`` input over H and W
    (`paddle.nn.functional.instance_norm`).

    Args:
        num_features (int): C.
        epsilon (float, optional): Default: 1e-5.
        momentum (float, optional): kept for Paddle compatibility (instance norm keeps no running statistics).
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False (with bias_attr): no affine.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros).
        data_format (str, optional): 'NCHW' (default).
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.InstanceNorm2D(2)(paddle.ones([1, 2, 2, 2])).shape
        paddle.Size([1, 2, 2, 2])
    """

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm3D(_InstanceNormBase):
    """Normalize each (example, channel) of a ``[N, C, D, H, W]`` input over D, H and W
    (`paddle.nn.functional.instance_norm`).

    Args:
        num_features (int): C.
        epsilon (float, optional): Default: 1e-5.
        momentum (float, optional): kept for Paddle compatibility (instance norm keeps no running statistics).
        weight_attr (ParamAttr|bool, optional): the scale's attributes (ones); False (with bias_attr): no affine.
        bias_attr (ParamAttr|bool, optional): the shift's attributes (zeros).
        data_format (str, optional): 'NCDHW' (default).
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.InstanceNorm3D(2)(paddle.ones([1, 2, 2, 2, 2])).shape
        paddle.Size([1, 2, 2, 2, 2])
    """
    _default_format = "NCDHW"

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format="NCDHW", name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    """Normalize each element by the squares of its `size` neighbouring channels
    (`paddle.nn.functional.local_response_norm`).

    Args:
        size (int): the number of channels summed over.
        alpha (float, optional): Default: 1e-4.
        beta (float, optional): Default: 0.75.
        k (float, optional): Default: 1.0.
        data_format (str, optional): 'NCHW' (default) or another layout F.local_response_norm accepts.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.LocalResponseNorm(3)
        >>> m
        LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0)
        >>> m(paddle.ones([1, 2, 1, 1])).shape
        paddle.Size([1, 2, 1, 1])
    """

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format, self.name = size, alpha, beta, k, data_format, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self):
        text = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            text += f", data_format={self.data_format}"
        return text + (f", name={self.name}" if self.name else "")
