"""Common layers (`paddle.nn.layer.common`): Linear, Bilinear, Embedding, the dropouts, Flatten, Unflatten, Identity,
the PadND layers, the upsampling layers, CosineSimilarity and Unfold, over `paddle.nn.functional`."""
from __future__ import annotations

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["AlphaDropout", "FeatureAlphaDropout", "Fold", "Bilinear", "CosineSimilarity", "Dropout", "Dropout2D", "Dropout3D", "Embedding",
           "Flatten", "Identity", "Linear", "Pad1D", "Pad2D", "Pad3D", "Unflatten", "Unfold", "Upsample",
           "UpsamplingBilinear2D", "UpsamplingNearest2D", "ZeroPad2D"]


class Linear(Layer):
    """A fully connected layer, ``out = x @ weight + bias``, with Paddle's weight layout ``[in_features,
    out_features]``. The input has shape ``[batch_size, *, in_features]``, the output
    ``[batch_size, *, out_features]``.

    The weight is initialized with XavierUniform and the bias with zeros unless `weight_attr` / `bias_attr`
    say otherwise (or `paddle.nn.initializer.set_global_initializer` was called). The dtype is the default
    dtype (``paddle.set_default_dtype``).

    Args:
        in_features (int): the number of input units.
        out_features (int): the number of output units.
        weight_attr (ParamAttr, optional): the weight's attributes (name, initializer, learning rate, ...).
        bias_attr (ParamAttr|bool, optional): the bias's attributes; False: no bias.
        name (str, optional): accepted for compatibility (shown in the repr).

    Attributes: ``weight`` (Parameter ``[in_features, out_features]``), ``bias`` (Parameter ``[out_features]``
    or None).

    Example:
        >>> import paddle_fn as paddle
        >>> fc = paddle.nn.Linear(2, 4, weight_attr=paddle.nn.initializer.Constant(0.5),
        ...                       bias_attr=paddle.nn.ParamAttr(initializer=paddle.nn.initializer.Constant(1.0)))
        >>> fc(paddle.to_tensor([[1.0, 2.0]])).numpy()
        array([[2.5, 2.5, 2.5, 2.5]], dtype=float32)
        >>> fc
        Linear(in_features=2, out_features=4, dtype=float32)
        >>> paddle.nn.Linear(2, 4, bias_attr=False).bias is None
        True
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        for what, n in (("in_features", in_features), ("out_features", out_features)):
            if isinstance(n, bool) or not isinstance(n, int):
                raise TypeError(f"Linear: {what} must be an int, got {type(n).__name__} {n!r}")
            if n < 0:
                raise ValueError(f"Linear: {what} must be >= 0, got {n}")
        self._dtype = paddle_fn.get_default_dtype()
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr, dtype=self._dtype,
                                            is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, dtype={self._dtype}{name}"


def _name_suffix(name):
    return f", name={name}" if name else ""


class Identity(Layer):
    """Returns its input unchanged (a placeholder layer); any constructor arguments are accepted and unused, as in
    Paddle.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Identity(54, unused="x")(paddle.to_tensor([1.0, 2.0])).numpy()
        array([1., 2.], dtype=float32)
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return input


class Flatten(Layer):
    """Flatten the axes ``start_axis..stop_axis`` into one (`paddle.flatten`).

    Args:
        start_axis (int, optional): Default: 1.
        stop_axis (int, optional): Default: -1.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Flatten()(paddle.ones([2, 3, 4])).shape
        paddle.Size([2, 12])
    """

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return paddle_fn.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Unflatten(Layer):
    """Split the axis `axis` into the axes `shape` (`paddle.unflatten`), the inverse of `Flatten`.

    Args:
        axis (int): the axis to split (negative counts from the end).
        shape (list|tuple|Tensor): the sizes it splits into; their product is the axis's size, and one of them
            may be -1 (inferred).
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Unflatten(1, [2, -1])
        >>> m
        Unflatten(axis=1, shape=[2, -1])
        >>> m(paddle.ones([4, 6, 8])).shape
        paddle.Size([4, 2, 3, 8])
    """

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return paddle_fn.unflatten(input, axis=self.axis, shape=self.shape)

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}{_name_suffix(self.name)}"


class Bilinear(Layer):
    """``out[:, k] = x1 @ weight[k] @ x2.T + bias[k]`` (`paddle.nn.functional.bilinear`).

    Args:
        in1_features (int): the size of `x1`'s last axis.
        in2_features (int): the size of `x2`'s last axis.
        out_features (int): the number of outputs.
        weight_attr (ParamAttr, optional): the weight's attributes (XavierUniform by default).
        bias_attr (ParamAttr|bool, optional): the bias's attributes; False: no bias.
        name (str, optional): shown in the repr.

    Attributes: ``weight`` (``[out_features, in1_features, in2_features]``), ``bias`` (``[1, out_features]``).

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Bilinear(2, 3, 4, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> m
        Bilinear(in1_features=2, in2_features=3, out_features=4, dtype=float32)
        >>> m(paddle.ones([1, 2]), paddle.ones([1, 3])).numpy()
        array([[6., 6., 6., 6.]], dtype=float32)
    """

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self._name = name
        self._dtype = paddle_fn.get_default_dtype()
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr,
                                            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}{_name_suffix(self._name)}")


class Embedding(Layer):
    """A lookup table: row ``x[i]`` of ``weight`` for each index (`paddle.nn.functional.embedding`).

    The weight is initialized with XavierUniform (unless `weight_attr` or `_weight` says otherwise); the row
    `padding_idx` is set to zeros and its output is always zeros (it gets no gradient).

    Args:
        num_embeddings (int): the number of rows.
        embedding_dim (int): the size of each row.
        padding_idx (int, optional): a row index (negative counts from the end) whose output is zeros.
        max_norm (float, optional): rescale each looked-up row whose norm exceeds it to that norm, updating the
            weight as Paddle does (`paddle.nn.functional.embedding`).
        norm_type (float, optional): the norm of `max_norm`. Default: 2.0.
        scale_grad_by_freq (bool, optional): divide each row's gradient by its id's count in the batch. Default:
            False.
        sparse (bool, optional): Paddle's sparse-gradient flag; gradients here are dense, with the same values.
            Default: False.
        _weight (Tensor, optional): use this ``[num_embeddings, embedding_dim]`` Tensor as the weight.
        _freeze (bool, optional): with `_weight` (or no `weight_attr`), make the weight not trainable.
        device (str, optional): only None or 'cpu'.
        dtype (str, optional): the weight's dtype. Default: the default dtype.
        weight_attr (ParamAttr, optional): the weight's attributes.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> emb = paddle.nn.Embedding(4, 2, padding_idx=0, weight_attr=paddle.nn.initializer.Constant(1.0))
        >>> emb
        Embedding(4, 2, padding_idx=0, sparse=False, scale_grad_by_freq=False)
        >>> emb(paddle.to_tensor([[0, 3]])).numpy()
        array([[[0., 0.],
                [1., 1.]]], dtype=float32)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, *,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None,
                 weight_attr=None, name=None):
        super().__init__()
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise ValueError(f"Embedding: num_embeddings and embedding_dim must be > 0, got {num_embeddings} and "
                             f"{embedding_dim}")
        if device not in (None, "cpu"):
            raise NotImplementedError(f"Embedding: device={device!r} is not supported; parameters live on the host")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, {num_embeddings}), got "
                             f"{padding_idx}")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        self._max_norm, self._norm_type = max_norm, norm_type
        self._sparse, self._scale_grad_by_freq, self._name = sparse, scale_grad_by_freq, name
        self._dtype = paddle_fn.get_default_dtype() if dtype is None else dtype
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(f"Embedding: _weight has shape {list(_weight.shape)}, expected "
                                 f"{[num_embeddings, embedding_dim]}")
            self.weight = _weight
            self.weight.stop_gradient = _freeze
        else:
            self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                                dtype=self._dtype, is_bias=False)
            if weight_attr is None:
                self.weight.stop_gradient = _freeze
        if self._padding_idx is not None:
            with paddle_fn.no_grad():
                self.weight[self._padding_idx] = 0.0

    @property
    def padding_idx(self):
        """The padding row (non-negative), or None."""
        return self._padding_idx

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, max_norm=self._max_norm,
                           norm_type=self._norm_type, sparse=self._sparse, scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self):
        pad = f", padding_idx={self._padding_idx}" if self._padding_idx is not None else ""
        name = f", name={self._name}" if self._name is not None else ""
        return (f"{self._num_embeddings}, {self._embedding_dim}{pad}, sparse={self._sparse}, "
                f"scale_grad_by_freq={self._scale_grad_by_freq}{name}")


class Dropout(Layer):
    """Zero elements with probability `p` while training (`paddle.nn.functional.dropout`); in eval mode
    (``layer.eval()``) the identity ('upscale_in_train') or a scaling by ``1 - p`` ('downscale_in_infer').

    The mask comes from Paddle's global generator (``paddle.seed``), so this works eagerly; inside
    ``paddle.jit`` / ``vmap`` call ``F.dropout(x, p, key=...)`` with an explicit key instead.

    Args:
        p (float, optional): the drop probability. Default: 0.5.
        inplace (bool, optional): only False is supported (Tensors are values here). Default: False.
        axis (int|list, optional): drop whole slices along these axes. Default: None (each element).
        mode (str, optional): 'upscale_in_train' (default) or 'downscale_in_infer'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Dropout(p=0.5)
        >>> m
        Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)
        >>> paddle.seed(1)
        >>> out = m(paddle.ones([8]))
        >>> sorted(set(out.numpy().tolist()))
        [0.0, 2.0]
        >>> _ = m.eval()
        >>> m(paddle.ones([3])).numpy()
        array([1., 1., 1.], dtype=float32)
    """

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if inplace:
            raise NotImplementedError("Dropout: inplace=True is not supported (Tensors are immutable values here)")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"Dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', got {mode!r}")
        self.p, self.inplace, self.axis, self.mode, self.name = p, inplace, axis, mode, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_suffix(self.name)}, inplace={self.inplace}"


class Dropout2D(Layer):
    """Zero whole channels of a 4-D input with probability `p` while training (`paddle.nn.functional.dropout2d`);
    the identity in eval mode. The mask comes from the global generator (``paddle.seed``).

    Args:
        p (float, optional): Default: 0.5.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Dropout2D(p=0.5)
        >>> paddle.seed(0)
        >>> out = m(paddle.ones([1, 8, 2, 2])).numpy()
        >>> bool(((out == 0).all(axis=(2, 3)) | (out == 2).all(axis=(2, 3))).all())
        True
    """

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}{_name_suffix(self.name)}"


class Dropout3D(Layer):
    """Zero whole channels of a 5-D input with probability `p` while training (`paddle.nn.functional.dropout3d`);
    the identity in eval mode.

    Args:
        p (float, optional): Default: 0.5.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Dropout3D(p=0.5)
        >>> _ = m.eval()
        >>> m(paddle.ones([1, 2, 1, 1, 1])).numpy().ravel()
        array([1., 1.], dtype=float32)
    """

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}{_name_suffix(self.name)}"


class AlphaDropout(Layer):
    """Dropout that keeps SELU's self-normalizing mean and variance (`paddle.nn.functional.alpha_dropout`);
    the identity in eval mode.

    Args:
        p (float, optional): Default: 0.5.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.AlphaDropout(p=0.2)
        >>> m
        AlphaDropout(p=0.2)
        >>> _ = m.eval()
        >>> m(paddle.to_tensor([-1.0, 1.0])).numpy()
        array([-1.,  1.], dtype=float32)
    """

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}{_name_suffix(self.name)}"


class FeatureAlphaDropout(AlphaDropout):
    """AlphaDropout of whole channels (`paddle.nn.functional.feature_alpha_dropout`); the identity in eval mode.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.FeatureAlphaDropout(p=0.2)
        >>> m
        FeatureAlphaDropout(p=0.2)
        >>> _ = m.eval()
        >>> m(paddle.ones([1, 2, 3])).shape
        paddle.Size([1, 2, 3])
    """

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)


def _npairs(what, padding, n):
    """Paddle's padding argument of the PadND layers: an int (every side) or 2n ints."""
    if isinstance(padding, int) and not isinstance(padding, bool):
        return [padding] * (2 * n)
    padding = list(padding.tolist() if isinstance(padding, paddle_fn.Tensor) else padding)
    if len(padding) != 2 * n:
        raise ValueError(f"{what}: padding needs 1 or {2 * n} ints, got {padding}")
    return padding


class _PadND(Layer):
    _n_dim = 1
    _default_format = "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        self.padding = _npairs(type(self).__name__, padding, self._n_dim)
        self._mode, self.value, self._name = mode, value, name
        self._data_format = self._default_format if data_format is None else data_format

    def forward(self, x):
        return F.pad(x, pad=self.padding, mode=self._mode, value=self.value, data_format=self._data_format)

    def extra_repr(self):
        return (f"padding={self.padding}, mode={self._mode}, value={self.value}, "
                f"data_format={self._data_format}{_name_suffix(self._name)}")


class Pad1D(_PadND):
    """Pad the last axis of a 3-D input (`paddle.nn.functional.pad`): ``[left, right]``.

    Args:
        padding (int|list): one int for both sides or ``[left, right]``.
        mode (str, optional): 'constant' (default), 'reflect', 'replicate' or 'circular'.
        value (float, optional): the constant. Default: 0.0.
        data_format (str, optional): 'NCL' (default) or 'NLC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Pad1D([1, 2], mode="replicate")
        >>> m
        Pad1D(padding=[1, 2], mode=replicate, value=0.0, data_format=NCL)
        >>> m(paddle.to_tensor([[[1.0, 2.0]]])).numpy()
        array([[[1., 1., 2., 2., 2.]]], dtype=float32)
    """

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadND):
    """Pad the two spatial axes of a 4-D input (`paddle.nn.functional.pad`): ``[left, right, top, bottom]``.

    Args:
        padding (int|list): one int for every side or four ints.
        mode (str, optional): 'constant' (default), 'reflect', 'replicate' or 'circular'.
        value (float, optional): the constant. Default: 0.0.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Pad2D([1, 0, 0, 1])(paddle.ones([1, 1, 1, 1])).numpy()
        array([[[[0., 1.],
                 [0., 0.]]]], dtype=float32)
    """
    _n_dim = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadND):
    """Pad the three spatial axes of a 5-D input (`paddle.nn.functional.pad`):
    ``[left, right, top, bottom, front, back]``.

    Args:
        padding (int|list): one int for every side or six ints.
        mode (str, optional): 'constant' (default), 'reflect', 'replicate' or 'circular'.
        value (float, optional): the constant. Default: 0.0.
        data_format (str, optional): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.Pad3D(1)(paddle.ones([1, 1, 1, 1, 1])).shape
        paddle.Size([1, 1, 3, 3, 3])
    """
    _n_dim = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_PadND):
    """Pad the two spatial axes of a 4-D input with zeros: ``[left, right, top, bottom]``.

    Args:
        padding (int|list): one int for every side or four ints.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.ZeroPad2D(1)
        >>> m
        ZeroPad2D(padding=[1, 1, 1, 1], mode=constant, value=0.0, data_format=NCHW)
        >>> m(paddle.ones([1, 1, 1, 1])).shape
        paddle.Size([1, 1, 3, 3])
    """
    _n_dim = 2

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)


class Upsample(Layer):
    """Resize a batch of 1-D, 2-D or 3-D signals (`paddle.nn.functional.interpolate`).

    Args:
        size (list|int, optional): the output spatial size. Give `size` or `scale_factor`.
        scale_factor (float|list, optional): the multiplier of the spatial size.
        mode (str, optional): 'nearest' (default), 'linear', 'bilinear', 'trilinear', 'bicubic' or 'area' as
            `interpolate` supports them.
        align_corners (bool, optional): Default: False.
        align_mode (int, optional): 0 or 1 (the source-index rule of linear modes). Default: 0.
        data_format (str, optional): the input layout; Default: None ('NCL', 'NCHW' or 'NCDHW' by the input's rank).
        recompute_scale_factor (bool, optional): only None/False (the given scale is used as is).
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Upsample(scale_factor=2)
        >>> m
        Upsample(scale_factor=2, mode=nearest, align_corners=False, align_mode=0, data_format=None)
        >>> m(paddle.to_tensor([[[[1.0, 2.0]]]])).numpy()
        array([[[[1., 1., 2., 2.],
                 [1., 1., 2., 2.]]]], dtype=float32)
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        if recompute_scale_factor:
            raise NotImplementedError("Upsample: recompute_scale_factor=True is not supported")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format, self.name = align_corners, align_mode, data_format, name

    def forward(self, x):
        data_format = self.data_format
        if data_format is None:
            data_format = {3: "NCW", 4: "NCHW", 5: "NCDHW"}.get(x.ndim, "NCHW")
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode, data_format=data_format)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, align_mode={self.align_mode}, "
                f"data_format={self.data_format}{_name_suffix(self.name)}")


class UpsamplingNearest2D(Layer):
    """Nearest-neighbour resize of a 4-D input (`paddle.nn.functional.interpolate` with mode 'nearest').

    Args:
        size (list|int, optional): the output ``[H, W]``. Give `size` or `scale_factor`.
        scale_factor (float|list, optional): the multiplier of H and W.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.UpsamplingNearest2D(size=[2, 2])(paddle.to_tensor([[[[3.0]]]])).numpy()
        array([[[[3., 3.],
                 [3., 3.]]]], dtype=float32)
    """
    _mode = "nearest"

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.scale_factor, self.data_format, self.name = size, scale_factor, data_format, name

    def forward(self, x):
        # Paddle's UpsamplingBilinear2D uses align_corners=True; nearest ignores it
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self._mode,
                             align_corners=self._mode == "bilinear", align_mode=0, data_format=self.data_format)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return f"{main}, data_format={self.data_format}{_name_suffix(self.name)}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    """Bilinear resize of a 4-D input with ``align_corners=True`` (`paddle.nn.functional.interpolate`).

    Args:
        size (list|int, optional): the output ``[H, W]``. Give `size` or `scale_factor`.
        scale_factor (float|list, optional): the multiplier of H and W.
        data_format (str, optional): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> paddle.nn.UpsamplingBilinear2D(size=[1, 3])(paddle.to_tensor([[[[0.0, 2.0]]]])).numpy()
        array([[[[0., 1., 2.]]]], dtype=float32)
    """
    _mode = "bilinear"


class CosineSimilarity(Layer):
    """The cosine similarity of `x1` and `x2` along `axis` (`paddle.nn.functional.cosine_similarity`).

    Args:
        axis (int, optional): Default: 1.
        eps (float, optional): the lower bound of the norms' product. Default: 1e-8.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.CosineSimilarity(axis=0)
        >>> m
        CosineSimilarity(axis=0, eps=1e-08)
        >>> m(paddle.to_tensor([1.0, 0.0]), paddle.to_tensor([1.0, 1.0])).numpy()
        array(0.70710677, dtype=float32)
    """

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class Unfold(Layer):
    """im2col: the sliding ``kernel_sizes`` patches of a 4-D input as columns (`paddle.nn.functional.unfold`).

    Args:
        kernel_sizes (int|list): the patch size.
        dilations (int|list, optional): Default: 1.
        paddings (int|list, optional): Default: 0.
        strides (int|list, optional): Default: 1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Unfold(kernel_sizes=[2, 2])
        >>> m
        Unfold(kernel_size=[2, 2], dilation=1, padding=0, stride=1)
        >>> m(paddle.ones([1, 3, 4, 4])).shape
        paddle.Size([1, 12, 9])
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides, self.name = (
            kernel_sizes, dilations, paddings, strides, name)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.unfold(input, self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                        dilations=self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{_name_suffix(self.name)}")


class Fold(Layer):
    """col2im: columns of sliding patches summed back into an image (`paddle.nn.functional.fold`).

    Args:
        output_sizes (int|list): the image's spatial size.
        kernel_sizes (int|list): the patch size.
        dilations (int|list, optional): as for Unfold. Default: 1.
        paddings (int|list, optional): as for Unfold. Default: 0.
        strides (int|list, optional): as for Unfold. Default: 1.
        name (str, optional): shown in the repr.

    Example:
        >>> import paddle_fn as paddle
        >>> m = paddle.nn.Fold([4, 4], 2)
        >>> m(paddle.ones([1, 4, 9])).shape
        paddle.Size([1, 1, 4, 4])
    """

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes, self.dilations, self.paddings, self.strides, self.name = (
            output_sizes, kernel_sizes, dilations, paddings, strides, name)

    def forward(self, input):  # noqa: A002 - Paddle's argument name
        return F.fold(input, self.output_sizes, self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                      dilations=self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{_name_suffix(self.name)}")
