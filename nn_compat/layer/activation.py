"""Activation layers (`paddle.nn.layer.activation`): stateless wrappers over `paddle.nn.functional`'s activations,
with Paddle's argument names, defaults and reprs. `PReLU` is the one with a parameter (its slopes)."""
from __future__ import annotations

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.initializer import Constant
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU",
           "LogSigmoid", "LogSoftmax", "Maxout", "Mish", "PReLU", "RReLU", "ReLU", "ReLU6", "SELU", "Sigmoid", "SiLU",
           "Silu", "Softmax", "Softmax2D", "Softplus", "Softshrink", "Softsign", "Swish", "Tanh", "Tanhshrink",
           "ThresholdedReLU"]


class _Elementwise(Layer):
    """An activation without parameters: ``forward(x) = F.<fn>(x, **options)``; the repr lists the options."""
    _fn = None

    def __init__(self, name=None, **options):
        super().__init__()
        self._options = options
        self._name = name

    def forward(self, x):
        return type(self)._fn(x, **self._options)

    def extra_repr(self):
        text = ", ".join(f"{k}={v}" for k, v in self._options.items())
        return text + (f", name={self._name}" if self._name else "") if text else (
            f"name={self._name}" if self._name else "")


class ReLU(_Elementwise):
    """``max(x, 0)`` (`paddle.nn.functional.relu`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.ReLU()(paddle.to_tensor([-2.0, 0.0, 1.0])).numpy()
        array([0., 0., 1.], dtype=float32)
    """
    _fn = staticmethod(F.relu)

    def __init__(self, name=None):
        super().__init__(name)


class ReLU6(_Elementwise):
    """``min(max(x, 0), 6)`` (`paddle.nn.functional.relu6`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.ReLU6()(paddle.to_tensor([-1.0, 3.0, 8.0])).numpy()
        array([0., 3., 6.], dtype=float32)
    """
    _fn = staticmethod(F.relu6)

    def __init__(self, name=None):
        super().__init__(name)


class LeakyReLU(_Elementwise):
    """``x if x >= 0 else negative_slope * x`` (`paddle.nn.functional.leaky_relu`).

    Args:
        negative_slope (float, optional): the slope for negative inputs. Default: 0.01.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.LeakyReLU(0.1)
        >>> m
        LeakyReLU(negative_slope=0.1)
        >>> m(paddle.to_tensor([-2.0, 1.0])).numpy()
        array([-0.2,  1. ], dtype=float32)
    """
    _fn = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name, negative_slope=negative_slope)


class RReLU(Layer):
    """Randomized leaky ReLU (`paddle.nn.functional.rrelu`): a random slope in [lower, upper) per element in
    training, their mean in eval mode.

    Args:
        lower (float, optional): the smallest slope. Default: 1/8.
        upper (float, optional): the largest slope. Default: 1/3.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.RReLU()
        >>> _ = m.eval()
        >>> m(paddle.to_tensor([-1.0, 2.0])).numpy()
        array([-0.22916667,  2.        ], dtype=float32)
    """

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self.lower, self.upper, self.name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self.lower, self.upper, training=self.training)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}, training={self.training}"


class ELU(_Elementwise):
    """``x if x > 0 else alpha * (exp(x) - 1)`` (`paddle.nn.functional.elu`).

    Args:
        alpha (float, optional): the scale of the negative part. Default: 1.0.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.ELU(0.5)(paddle.to_tensor([-1.0, 2.0])).numpy()
        array([-0.31606027,  2.        ], dtype=float32)
    """
    _fn = staticmethod(F.elu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class SELU(_Elementwise):
    """``scale * (x if x > 0 else alpha * (exp(x) - 1))`` (`paddle.nn.functional.selu`).

    Args:
        scale (float, optional): Default: 1.0507009873554805.
        alpha (float, optional): Default: 1.6732632423543772.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.SELU()
        SELU(scale=1.0507009873554805, alpha=1.6732632423543772)
        >>> paddle.nn.SELU()(paddle.to_tensor([1.0])).numpy()
        array([1.050701], dtype=float32)
    """
    _fn = staticmethod(F.selu)

    def __init__(self, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
        super().__init__(name, scale=scale, alpha=alpha)


class CELU(_Elementwise):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (`paddle.nn.functional.celu`).

    Args:
        alpha (float, optional): Default: 1.0.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.CELU(2.0)(paddle.to_tensor([-2.0, 1.0])).numpy()
        array([-1.2642411,  1.       ], dtype=float32)
    """
    _fn = staticmethod(F.celu)

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class GELU(_Elementwise):
    """The Gaussian error linear unit ``x * Phi(x)``, or its tanh approximation (`paddle.nn.functional.gelu`).

    Args:
        approximate (bool, optional): use the tanh approximation. Default: False.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.GELU()(paddle.to_tensor([-1.0, 1.0])).numpy()
        array([-0.15865526,  0.8413447 ], dtype=float32)
    """
    _fn = staticmethod(F.gelu)

    def __init__(self, approximate=False, name=None):
        super().__init__(name, approximate=approximate)


class Sigmoid(_Elementwise):
    """``1 / (1 + exp(-x))`` (`paddle.nn.functional.sigmoid`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Sigmoid()(paddle.to_tensor([0.0, 2.0])).numpy()
        array([0.5     , 0.880797], dtype=float32)
    """
    _fn = staticmethod(F.sigmoid)

    def __init__(self, name=None):
        super().__init__(name)


class Hardsigmoid(_Elementwise):
    """``clip(x / 6 + 0.5, 0, 1)`` (`paddle.nn.functional.hardsigmoid` with Paddle's layer defaults).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Hardsigmoid()(paddle.to_tensor([-4.0, 0.0, 4.0])).numpy()
        array([0. , 0.5, 1. ], dtype=float32)
    """
    _fn = staticmethod(F.hardsigmoid)

    def __init__(self, name=None):
        super().__init__(name)


class Hardswish(_Elementwise):
    """``x * relu6(x + 3) / 6`` (`paddle.nn.functional.hardswish`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Hardswish()(paddle.to_tensor([-4.0, 1.0, 4.0])).numpy()
        array([-0.       ,  0.6666667,  4.       ], dtype=float32)
    """
    _fn = staticmethod(F.hardswish)

    def __init__(self, name=None):
        super().__init__(name)


class Hardtanh(_Elementwise):
    """``clip(x, min, max)`` (`paddle.nn.functional.hardtanh`).

    Args:
        min (float, optional): Default: -1.0.
        max (float, optional): Default: 1.0.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Hardtanh()(paddle.to_tensor([-2.0, 0.5, 2.0])).numpy()
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    _fn = staticmethod(F.hardtanh)

    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002 - Paddle's names
        super().__init__(name, min=min, max=max)


class Hardshrink(_Elementwise):
    """``x if |x| > threshold else 0`` (`paddle.nn.functional.hardshrink`).

    Args:
        threshold (float, optional): Default: 0.5.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Hardshrink()(paddle.to_tensor([-1.0, 0.3, 0.8])).numpy()
        array([-1. ,  0. ,  0.8], dtype=float32)
    """
    _fn = staticmethod(F.hardshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softshrink(_Elementwise):
    """``x - threshold`` above `threshold`, ``x + threshold`` below ``-threshold``, else 0
    (`paddle.nn.functional.softshrink`).

    Args:
        threshold (float, optional): Default: 0.5.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Softshrink()(paddle.to_tensor([-1.0, 0.3, 0.75])).numpy()
        array([-0.5 ,  0.  ,  0.25], dtype=float32)
    """
    _fn = staticmethod(F.softshrink)

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Tanhshrink(_Elementwise):
    """``x - tanh(x)`` (`paddle.nn.functional.tanhshrink`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Tanhshrink()(paddle.to_tensor([1.0])).numpy()
        array([0.23840582], dtype=float32)
    """
    _fn = staticmethod(F.tanhshrink)

    def __init__(self, name=None):
        super().__init__(name)


class Tanh(_Elementwise):
    """``tanh(x)`` (`paddle.nn.functional.tanh`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Tanh()(paddle.to_tensor([0.0, 1.0])).numpy()
        array([0.       , 0.7615942], dtype=float32)
    """
    _fn = staticmethod(F.tanh)

    def __init__(self, name=None):
        super().__init__(name)


class Softmax(_Elementwise):
    """``exp(x) / sum(exp(x))`` along `axis` (`paddle.nn.functional.softmax`).

    Args:
        axis (int, optional): Default: -1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Softmax()(paddle.to_tensor([[0.0, 0.0], [0.0, 1.0]])).numpy()
        array([[0.5      , 0.5      ],
               [0.2689414, 0.7310586]], dtype=float32)
    """
    _fn = staticmethod(F.softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class Softmax2D(_Elementwise):
    """Softmax over the channel axis (axis -3) of a 3-D ``[C, H, W]`` or 4-D ``[N, C, H, W]`` input, so every
    pixel's channel values sum to 1 (`paddle.nn.functional.softmax` with ``axis=-3``).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Softmax2D()
        >>> m
        Softmax2D()
        >>> m(paddle.zeros([1, 4, 2, 3])).sum(axis=1).tolist()
        [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]]
    """

    def __init__(self, name=None):
        super().__init__(name)

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D: expects a 3-D [C, H, W] or 4-D [N, C, H, W] input, got shape {x.shape}; "
                             "for softmax along another axis use paddle.nn.Softmax(axis=...)")
        return F.softmax(x, axis=-3)


class LogSoftmax(_Elementwise):
    """``log(softmax(x))`` along `axis`, computed stably (`paddle.nn.functional.log_softmax`).

    Args:
        axis (int, optional): Default: -1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.LogSoftmax()(paddle.to_tensor([0.0, 0.0])).numpy()
        array([-0.6931472, -0.6931472], dtype=float32)
    """
    _fn = staticmethod(F.log_softmax)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class Softplus(_Elementwise):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold`` (`paddle.nn.functional.softplus`).

    Args:
        beta (float, optional): Default: 1.
        threshold (float, optional): Default: 20.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Softplus()(paddle.to_tensor([0.0, 30.0])).numpy()
        array([ 0.6931472, 30.       ], dtype=float32)
    """
    _fn = staticmethod(F.softplus)

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name, beta=beta, threshold=threshold)


class Softsign(_Elementwise):
    """``x / (1 + |x|)`` (`paddle.nn.functional.softsign`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Softsign()(paddle.to_tensor([-3.0, 1.0])).numpy()
        array([-0.75,  0.5 ], dtype=float32)
    """
    _fn = staticmethod(F.softsign)

    def __init__(self, name=None):
        super().__init__(name)


class Swish(_Elementwise):
    """``x * sigmoid(x)`` (`paddle.nn.functional.swish`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Swish()(paddle.to_tensor([0.0, 1.0])).numpy()
        array([0.       , 0.7310586], dtype=float32)
    """
    _fn = staticmethod(F.swish)

    def __init__(self, name=None):
        super().__init__(name)


class SiLU(_Elementwise):
    """``x * sigmoid(x)`` (`paddle.nn.functional.silu`).

    Args:
        inplace (bool, optional): also rebind the input Tensor to the result, as Paddle's in-place form updates
            it. Default: False.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.SiLU()(paddle.to_tensor([0.0, 1.0])).numpy()
        array([0.       , 0.7310586], dtype=float32)
    """
    _fn = staticmethod(F.silu)

    def __init__(self, inplace=False, name=None):
        super().__init__(name, **({"inplace": True} if inplace else {}))


Silu = SiLU  # Paddle 3.3's second name for the same class (paddle.nn.Silu is paddle.nn.SiLU)


class Mish(_Elementwise):
    """``x * tanh(softplus(x))`` (`paddle.nn.functional.mish`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Mish()(paddle.to_tensor([0.0, 1.0])).numpy()
        array([0.       , 0.8650984], dtype=float32)
    """
    _fn = staticmethod(F.mish)

    def __init__(self, name=None):
        super().__init__(name)


class LogSigmoid(_Elementwise):
    """``log(sigmoid(x))``, computed stably (`paddle.nn.functional.log_sigmoid`).

    Args:
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.LogSigmoid()(paddle.to_tensor([0.0])).numpy()
        array([-0.6931472], dtype=float32)
    """
    _fn = staticmethod(F.log_sigmoid)

    def __init__(self, name=None):
        super().__init__(name)


class ThresholdedReLU(Layer):
    """``x if x > threshold else value`` (`paddle.nn.functional.thresholded_relu`).

    Args:
        threshold (float, optional): Default: 1.0.
        value (float, optional): the output where ``x <= threshold``. Default: 0.0.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.ThresholdedReLU(value=-1.0)(paddle.to_tensor([0.5, 2.0])).numpy()
        array([-1.,  2.], dtype=float32)
    """

    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold, self._value, self._name = threshold, value, name

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value)

    def extra_repr(self):
        name = f", name={self._name}" if self._name else ""
        return f"threshold={self._threshold}, value={self._value}{name}"


class Maxout(_Elementwise):
    """The maximum over `groups` consecutive channels along `axis` (`paddle.nn.functional.maxout`).

    Args:
        groups (int): how many channels form one output channel; must divide the channel count.
        axis (int, optional): the channel axis, 1 or -1 (or 3 for a 4-D input). Default: 1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> x = paddle.to_tensor([[[[1.0]], [[4.0]], [[3.0]], [[2.0]]]])
        >>> paddle.nn.Maxout(groups=2)(x).numpy().ravel()
        array([4., 3.], dtype=float32)
    """
    _fn = staticmethod(F.maxout)

    def __init__(self, groups, axis=1, name=None):
        super().__init__(name, groups=groups, axis=axis)


class GLU(_Elementwise):
    """The gated linear unit: split `x` in halves ``a, b`` along `axis`, return ``a * sigmoid(b)``
    (`paddle.nn.functional.glu`).

    Args:
        axis (int, optional): Default: -1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.GLU()(paddle.to_tensor([[2.0, 0.0]])).numpy()
        array([[1.]], dtype=float32)
    """
    _fn = staticmethod(F.glu)

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class PReLU(Layer):
    """``x if x >= 0 else weight * x`` with learned slopes (`paddle.nn.functional.prelu`): one shared slope
    (``num_parameters=1``) or one per channel.

    Args:
        num_parameters (int, optional): 1 or the number of channels. Default: 1.
        init (float, optional): the initial slope. Default: 0.25.
        weight_attr (ParamAttr, optional): the slopes' attributes (its initializer overrides `init`).
        data_format (str, optional): where the channels are: 'NC', 'NCL', 'NCHW', 'NCDHW' (channel first) or
            'NLC', 'NHWC', 'NDHWC' (channel last). Default: 'NCHW'.
        name (str, optional): shown in the repr.

    Attributes: ``_weight`` (Parameter ``[num_parameters]``), as Paddle names it.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.PReLU(2, 0.5)
        >>> m
        PReLU(num_parameters=2, data_format=NCHW, init=0.5, dtype=float32)
        >>> m(paddle.to_tensor([[-2.0, -4.0]])).numpy()
        array([[-1., -2.]], dtype=float32)
    """

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive int, got {num_parameters!r}")
        formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
        if data_format not in formats:
            raise ValueError(f"PReLU: data_format must be one of {formats}, got {data_format!r}")
        self._num_parameters, self._init, self._data_format, self._name = num_parameters, init, data_format, name
        self._dtype = paddle_fn.get_default_dtype()
        self._weight = self.create_parameter([num_parameters], attr=weight_attr, dtype=self._dtype, is_bias=False,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        name = f", name={self._name}" if self._name else ""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, "
                f"dtype={self._dtype}{name}")
