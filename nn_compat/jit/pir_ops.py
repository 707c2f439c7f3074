"""The operators of PaddlePaddle 3's PIR programs that paddle_fn runs, each translated into public paddle_fn
operations: ``OPS`` maps Paddle's printed name (``pd_op.conv2d``) to a function ``(op, *inputs)`` returning the
op's outputs (a value or a tuple; outputs it does not compute, such as a dropout mask, are left out at the end or
given as None, and an op that uses one gets a clear error).

Values are Tensors, numpy arrays for the constants the program builds with ``full`` / ``full_int_array`` (shapes,
axes, kernel sizes, which paddle_fn takes as Python values, so a translated program also traces under
``paddle_fn.jit``), and lists for ``builtin.combine``'s vectors.
"""
from __future__ import annotations

import numpy as np

import paddle_fn
from paddle_fn import Tensor
import paddle_fn.nn.functional as F

__all__ = ["OPS", "OpError"]

_DTYPE_NAMES = {"bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128"}


class OpError(ValueError):
    """An op the translation cannot run as written (a run-time shape, an attribute value paddle_fn lacks)."""


def _tensor(value):
    """A Tensor from an op input: constants the program built with ``full`` become Tensors of their dtype."""
    return paddle_fn.to_tensor(value) if isinstance(value, np.ndarray) else value


def _static(value, op, what):
    """The Python value of an input that paddle_fn needs at trace time (a shape, an axis, a kernel size)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, list):  # a vector of scalars (builtin.combine), such as a shape built from x.shape
        return [v for item in value for v in np.asarray(_static(item, op, what)).reshape(-1).tolist()]
    if isinstance(value, Tensor) and not isinstance(value, paddle_fn.Tracer):
        return value.numpy().tolist()
    raise OpError(f"{op.name}: its {what} is computed from the inputs at run time; paddle_fn needs it as a "
                  "constant of the program")


def _scalar(value, op, what):
    found = np.asarray(_static(value, op, what)).reshape(-1)
    if found.size != 1:
        raise OpError(f"{op.name}: its {what} has {found.size} values; expected one")
    return float(found[0])


def _ints(value, op, what):
    found = _static(value, op, what)
    return [int(v) for v in (found if isinstance(found, list) else [found])]


def _layout(op):
    layout = op.attrs.get("data_format", "NCHW")
    return "NCHW" if layout == "AnyLayout" else layout


def _padding(op):
    algorithm = op.attrs.get("padding_algorithm", "EXPLICIT")
    return algorithm if algorithm in ("SAME", "VALID") else op.attrs["paddings"]


# ----------------------------------------------------------------------------------------------- constants

def full(op):
    dtype = op.attrs["dtype"]
    value = op.attrs["value"]
    return np.full(op.attrs["shape"], value, dtype=paddle_fn.bfloat16.np if dtype == "bfloat16" else dtype)


def full_int_array(op):
    return np.asarray(op.attrs["value"], dtype=op.attrs["dtype"])


def combine(op, *items):
    return list(items)


def split_vector(op, vector):
    return tuple(vector)


# ----------------------------------------------------------------------------------------------- convolution

def conv2d(op, x, weight):
    return F.conv2d(x, weight, stride=op.attrs["strides"], padding=_padding(op), dilation=op.attrs["dilations"],
                    groups=op.attrs["groups"], data_format=_layout(op))


def pool2d(op, x, kernel_size):
    kernel = _ints(kernel_size, op, "kernel size")
    layout = _layout(op)
    pooling = op.attrs["pooling_type"]
    if pooling not in ("max", "avg"):
        raise OpError(f"{op.name}: pooling_type {pooling!r}; paddle_fn runs 'max' and 'avg'")
    if op.attrs.get("global_pooling", False):
        kernel, adaptive = [1, 1], True
    else:
        adaptive = op.attrs.get("adaptive", False)
    if adaptive:
        if pooling == "avg":
            return F.adaptive_avg_pool2d(x, output_size=kernel, data_format=layout)
        if layout != "NCHW":
            raise OpError(f"{op.name}: adaptive max pooling in {layout}; paddle_fn runs it in NCHW")
        return F.adaptive_max_pool2d(x, output_size=kernel)
    common = {"kernel_size": kernel, "stride": op.attrs["strides"], "padding": _padding(op),
              "ceil_mode": op.attrs.get("ceil_mode", False), "data_format": layout}
    if pooling == "max":
        return F.max_pool2d(x, **common)
    return F.avg_pool2d(x, exclusive=op.attrs.get("exclusive", True), **common)


def conv2d_transpose(op, x, weight, output_size=None):
    size = _ints(output_size, op, "output size") if output_size is not None else []
    return F.conv2d_transpose(x, weight, stride=op.attrs["strides"], padding=_padding(op),
                              output_padding=op.attrs.get("output_padding") or 0, dilation=op.attrs["dilations"],
                              groups=op.attrs["groups"], output_size=size or None, data_format=_layout(op))


def pad3d(op, x, paddings):
    return F.pad(x, pad=_ints(paddings, op, "paddings"), mode=op.attrs.get("mode", "constant"),
                 value=op.attrs.get("pad_value", 0.0), data_format=op.attrs.get("data_format", "NCDHW"))


def _channel_layout(op, rank):
    """The layout name F.interpolate takes for this rank; Paddle's kernels write NCHW / NHWC for every rank."""
    last = op.attrs.get("data_format", "NCHW") in ("NHWC", "NDHWC", "NLC", "NWC")
    layouts = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}.get(rank)
    if layouts is None:
        raise OpError(f"{op.name}: the input has rank {rank}; interpolation takes rank 3, 4 or 5")
    return layouts[last]


def interpolate(op, x, out_size=None, size_tensor=None, scale_tensor=None):
    """``*_interp``: the output size from `out_size`, the `size_tensor` list, the ``out_d/h/w`` attributes, or
    else the scale (`scale_tensor` or the ``scale`` attribute), in that order, as Paddle's kernels take them."""
    spatial = x.ndim - 2
    if out_size is not None:
        size = _ints(out_size, op, "output size")
    elif size_tensor is not None:
        size = _ints(size_tensor, op, "output size")
    else:
        size = [op.attrs.get(k, -1) for k in ("out_d", "out_h", "out_w")][3 - spatial:]
    scale = None
    if not size or min(size) <= 0:
        size = None
        scale = (_static(scale_tensor, op, "scale") if scale_tensor is not None else op.attrs.get("scale"))
        scale = [float(v) for v in (scale if isinstance(scale, list) else [scale])]
    return F.interpolate(x, size=size, scale_factor=scale, mode=op.attrs["interp_method"],
                         align_corners=op.attrs.get("align_corners", False), align_mode=op.attrs.get("align_mode", 0),
                         data_format=_channel_layout(op, x.ndim))


def max_pool2d_with_index(op, x):
    """Outputs: out, and the argmax indices (not computed: no exported inference program reads them)."""
    if op.attrs.get("global_pooling", False) or op.attrs.get("adaptive", False):
        size = [1, 1] if op.attrs.get("global_pooling", False) else op.attrs["kernel_size"]
        return F.adaptive_max_pool2d(x, output_size=size)
    return F.max_pool2d(x, kernel_size=op.attrs["kernel_size"], stride=op.attrs["strides"],
                        padding=op.attrs["paddings"], ceil_mode=op.attrs.get("ceil_mode", False))


# ----------------------------------------------------------------------------------------------- normalization

def batch_norm(op, x, mean, variance, scale=None, bias=None):
    """Outputs: out, mean_out, variance_out (the running statistics, unchanged in inference), and the saved
    statistics of the training kernel, which no inference program reads."""
    inference = op.attrs.get("is_test", False) or op.attrs.get("use_global_stats", False)
    out = F.batch_norm(x, mean, variance, weight=scale, bias=bias, training=not inference,
                       momentum=op.attrs.get("momentum", 0.9), epsilon=op.attrs.get("epsilon", 1e-5),
                       data_format=_layout(op))
    return (out, mean, variance) if inference else out


def layer_norm(op, x, scale=None, bias=None):
    axis = op.attrs["begin_norm_axis"]
    shape = list(x.shape[axis:])
    weight = None if scale is None else paddle_fn.reshape(scale, shape=shape)
    offset = None if bias is None else paddle_fn.reshape(bias, shape=shape)
    return F.layer_norm(x, normalized_shape=shape, weight=weight, bias=offset, epsilon=op.attrs.get("epsilon", 1e-5))


def group_norm(op, x, scale=None, bias=None):
    """Outputs: out, and the per-group mean and variance, which no inference program reads."""
    return F.group_norm(x, num_groups=op.attrs["groups"], weight=scale, bias=bias,
                        epsilon=op.attrs.get("epsilon", 1e-5), data_format=_layout(op))


def instance_norm(op, x, scale=None, bias=None):
    """Outputs: out, and the saved mean and variance, which no inference program reads."""
    return F.instance_norm(x, weight=scale, bias=bias, eps=op.attrs.get("epsilon", 1e-5))


def dropout(op, x, seed_tensor, p):
    rate = _scalar(p, op, "dropout probability")
    mode = op.attrs.get("mode", "upscale_in_train")
    if op.attrs.get("is_test", False):
        return x if mode == "upscale_in_train" else paddle_fn.scale(x, scale=1.0 - rate)
    return F.dropout(x, p=rate, training=True, mode=mode)


# ----------------------------------------------------------------------------------------------- math

def _binary(function, fold=None):
    """An element-wise op; `fold` computes it in numpy when both inputs are integer constants (shape arithmetic,
    such as ``x.shape[0] * 2``), which keeps the result a constant that a reshape can take."""
    def translate(op, x, y):
        if fold is not None and all(isinstance(v, np.ndarray) and v.dtype.kind in "iu" for v in (x, y)):
            return np.asarray(fold(x, y), dtype=np.result_type(x, y))
        return function(_tensor(x), _tensor(y))
    translate.__name__ = function.__name__
    return translate


def _unary(function):
    def translate(op, x):
        return function(_tensor(x))
    translate.__name__ = function.__name__
    return translate


def matmul(op, x, y):
    return paddle_fn.matmul(_tensor(x), _tensor(y), transpose_x=op.attrs.get("transpose_x", False),
                            transpose_y=op.attrs.get("transpose_y", False))


def scale(op, x, factor):
    x = _tensor(x)
    bias = op.attrs.get("bias", 0.0)
    after = op.attrs.get("bias_after_scale", True)
    if isinstance(factor, np.ndarray):
        return paddle_fn.scale(x, scale=_scalar(factor, op, "scale"), bias=bias, bias_after_scale=after)
    factor = paddle_fn.cast(factor, x.dtype)  # a factor computed by the program: a one-element Tensor
    return x * factor + bias if after else (x + bias) * factor


def hardsigmoid(op, x):
    return F.hardsigmoid(x, slope=op.attrs.get("slope", 1 / 6), offset=op.attrs.get("offset", 0.5))


def softmax(op, x):
    return F.softmax(x, axis=op.attrs.get("axis", -1))


def gelu(op, x):
    return F.gelu(x, approximate=op.attrs.get("approximate", False))


def leaky_relu(op, x):
    return F.leaky_relu(x, negative_slope=op.attrs.get("negative_slope", 0.02))


def log_softmax(op, x):
    return F.log_softmax(x, axis=op.attrs.get("axis", -1))


def prelu(op, x, alpha):
    # the mode ('all', 'channel', 'element') is the shape of alpha, as F.prelu reads it
    return F.prelu(x, weight=alpha, data_format=_layout(op))


def pow_(op, x):
    return paddle_fn.pow(_tensor(x), op.attrs.get("y", 1.0))


def p_norm(op, x):
    axis = None if op.attrs.get("asvector", False) else op.attrs.get("axis", -1)
    return paddle_fn.linalg.norm(x, p=op.attrs.get("porder", 2.0), axis=axis, keepdim=op.attrs.get("keepdim", False))


def topk(op, x, k):
    return paddle_fn.topk(x, k=int(_scalar(k, op, "k")), axis=op.attrs.get("axis", -1),
                          largest=op.attrs.get("largest", True), sorted=op.attrs.get("sorted", True))


def cast(op, x):
    return paddle_fn.cast(_tensor(x), dtype=op.attrs["dtype"])


def _reduction(function):
    def translate(op, x, axis):
        return function(_tensor(x), axis=_ints(axis, op, "axis") or None, keepdim=op.attrs.get("keepdim", False))
    translate.__name__ = function.__name__
    return translate


def sum_(op, x, axis):
    dtype = op.attrs.get("dtype")  # "Undefined(ALL_DTYPE)" when the sum keeps (or promotes) the input's dtype
    return paddle_fn.sum(_tensor(x), axis=_ints(axis, op, "axis") or None, dtype=dtype if dtype in _DTYPE_NAMES else None,
                         keepdim=op.attrs.get("keepdim", False))


# ----------------------------------------------------------------------------------------------- shapes

def reshape(op, x, shape):
    # Paddle's 0 keeps the input's size at that axis; paddle_fn's reshape takes the sizes as they are
    sizes = [x.shape[i] if s == 0 else s for i, s in enumerate(_ints(shape, op, "shape"))]
    return paddle_fn.reshape(_tensor(x), shape=sizes)


def flatten(op, x):
    return paddle_fn.flatten(_tensor(x), start_axis=op.attrs["start_axis"], stop_axis=op.attrs["stop_axis"])


def transpose(op, x):
    return paddle_fn.transpose(_tensor(x), perm=op.attrs["perm"])


def squeeze(op, x, axis):
    return paddle_fn.squeeze(_tensor(x), axis=_ints(axis, op, "axis") or None)


def unsqueeze(op, x, axis):
    return paddle_fn.unsqueeze(_tensor(x), axis=_ints(axis, op, "axis"))


def concat(op, items, axis):
    return paddle_fn.concat([_tensor(t) for t in items], axis=_ints(axis, op, "axis")[0])


def split(op, x, sections, axis):
    return paddle_fn.split(_tensor(x), num_or_sections=_ints(sections, op, "sections"), axis=_ints(axis, op, "axis")[0])


def split_with_num(op, x, axis):
    return paddle_fn.split(_tensor(x), num_or_sections=op.attrs["num"], axis=_ints(axis, op, "axis")[0])


def stack(op, items):
    if all(isinstance(t, np.ndarray) for t in items):  # a shape assembled from sizes: stays a constant
        return np.stack(items, axis=op.attrs.get("axis", 0))
    return paddle_fn.stack([_tensor(t) for t in items], axis=op.attrs.get("axis", 0))


def gather(op, x, index, axis):
    return paddle_fn.gather(_tensor(x), _tensor(index), axis=_ints(axis, op, "axis")[0])


def index_select(op, x, index):
    return paddle_fn.index_select(_tensor(x), _tensor(index), axis=op.attrs.get("axis", 0))


def expand(op, x, shape):
    return paddle_fn.expand(_tensor(x), shape=_ints(shape, op, "shape"))


def tile(op, x, repeat_times):
    return paddle_fn.tile(_tensor(x), repeat_times=_ints(repeat_times, op, "repeat times"))


def assign(op, x):
    return paddle_fn.assign(_tensor(x))


def shape(op, x):
    """The input's shape, a constant: paddle_fn traces for concrete shapes, so sizes Paddle saved as -1 are known."""
    return np.asarray(x.shape, dtype=np.int64)


def slice_(op, x, starts, ends):
    axes = op.attrs["axes"]
    begin, end = _ints(starts, op, "starts"), _ints(ends, op, "ends")
    decrease = op.attrs.get("decrease_axis", [])
    if isinstance(x, np.ndarray):  # slicing a shape: numpy keeps it a constant
        index = [slice(None)] * x.ndim
        for axis, b, e in zip(axes, begin, end):
            index[axis] = slice(b, e)
        return np.squeeze(x[tuple(index)], axis=tuple(decrease))
    out = paddle_fn.slice(x, axes=axes, starts=begin, ends=end)
    return paddle_fn.squeeze(out, axis=decrease) if decrease else out


def arange(op, start, end, step):
    dtype = op.attrs.get("dtype", "int64")
    if all(isinstance(v, np.ndarray) for v in (start, end, step)):
        return np.arange(_scalar(start, op, "start"), _scalar(end, op, "end"), _scalar(step, op, "step"),
                         dtype=dtype)
    return paddle_fn.arange(_tensor(start), _tensor(end), _tensor(step), dtype=dtype)


def full_like(op, x, value):
    dtype = op.attrs.get("dtype")
    return paddle_fn.full_like(_tensor(x), fill_value=_scalar(value, op, "fill value"),
                               dtype=dtype if dtype in _DTYPE_NAMES else None)


def embedding(op, ids, weight):
    padding = op.attrs.get("padding_idx", -1)
    return F.embedding(_tensor(ids), weight, padding_idx=None if padding == -1 else padding)


def where(op, condition, x, y):
    return paddle_fn.where(_tensor(condition), _tensor(x), _tensor(y))


def clip(op, x, low, high):
    return paddle_fn.clip(_tensor(x), min=_scalar(low, op, "min"), max=_scalar(high, op, "max"))


def _arg_extreme(function):
    def translate(op, x, axis):
        axis = None if op.attrs.get("flatten", False) else _ints(axis, op, "axis")[0]
        return function(_tensor(x), axis=axis, keepdim=op.attrs.get("keepdims", False),
                        dtype=op.attrs.get("dtype", "int64"))
    translate.__name__ = function.__name__
    return translate


OPS = {
    "builtin.combine": combine,
    "builtin.split": split_vector,
    "pd_op.full": full,
    "pd_op.full_int_array": full_int_array,
    "pd_op.conv2d": conv2d,
    "pd_op.depthwise_conv2d": conv2d,
    "pd_op.pool2d": pool2d,
    "pd_op.max_pool2d_with_index": max_pool2d_with_index,
    "pd_op.batch_norm": batch_norm,
    "pd_op.batch_norm_": batch_norm,
    "pd_op.layer_norm": layer_norm,
    "pd_op.group_norm": group_norm,
    "pd_op.instance_norm": instance_norm,
    "pd_op.dropout": dropout,
    "pd_op.matmul": matmul,
    "pd_op.add": _binary(paddle_fn.add, fold=np.add),
    "pd_op.subtract": _binary(paddle_fn.subtract, fold=np.subtract),
    "pd_op.multiply": _binary(paddle_fn.multiply, fold=np.multiply),
    "pd_op.divide": _binary(paddle_fn.divide),
    "pd_op.maximum": _binary(paddle_fn.maximum),
    "pd_op.minimum": _binary(paddle_fn.minimum),
    "pd_op.elementwise_pow": _binary(paddle_fn.pow),
    "pd_op.scale": scale,
    "pd_op.relu": _unary(F.relu),
    "pd_op.relu6": _unary(F.relu6),
    "pd_op.hardswish": _unary(F.hardswish),
    "pd_op.hardsigmoid": hardsigmoid,
    "pd_op.sigmoid": _unary(F.sigmoid),
    "pd_op.silu": _unary(F.silu),
    "pd_op.swish": _unary(F.swish),
    "pd_op.gelu": gelu,
    "pd_op.leaky_relu": leaky_relu,
    "pd_op.tanh": _unary(paddle_fn.tanh),
    "pd_op.exp": _unary(paddle_fn.exp),
    "pd_op.log": _unary(paddle_fn.log),
    "pd_op.sqrt": _unary(paddle_fn.sqrt),
    "pd_op.rsqrt": _unary(paddle_fn.rsqrt),
    "pd_op.abs": _unary(paddle_fn.abs),
    "pd_op.softmax": softmax,
    "pd_op.log_softmax": log_softmax,
    "pd_op.prelu": prelu,
    "pd_op.pow": pow_,
    "pd_op.square": _unary(paddle_fn.square),
    "pd_op.reciprocal": _unary(paddle_fn.reciprocal),
    "pd_op.erf": _unary(paddle_fn.erf),
    "pd_op.sin": _unary(paddle_fn.sin),
    "pd_op.cos": _unary(paddle_fn.cos),
    "pd_op.floor": _unary(paddle_fn.floor),
    "pd_op.sign": _unary(paddle_fn.sign),
    "pd_op.p_norm": p_norm,
    "pd_op.topk": topk,
    "pd_op.cast": cast,
    "pd_op.mean": _reduction(paddle_fn.mean),
    "pd_op.sum": sum_,
    "pd_op.max": _reduction(paddle_fn.max),
    "pd_op.reshape": reshape,
    "pd_op.flatten": flatten,
    "pd_op.transpose": transpose,
    "pd_op.squeeze": squeeze,
    "pd_op.unsqueeze": unsqueeze,
    "pd_op.concat": concat,
    "pd_op.split": split,
    "pd_op.split_with_num": split_with_num,
    "pd_op.stack": stack,
    "pd_op.gather": gather,
    "pd_op.index_select": index_select,
    "pd_op.expand": expand,
    "pd_op.tile": tile,
    "pd_op.assign": assign,
    "pd_op.shape": shape,
    "pd_op.shape64": shape,
    "pd_op.slice": slice_,
    "pd_op.arange": arange,
    "pd_op.full_like": full_like,
    "pd_op.embedding": embedding,
    "pd_op.where": where,
    "pd_op.clip": clip,
    "pd_op.argmax": _arg_extreme(paddle_fn.argmax),
    "pd_op.argmin": _arg_extreme(paddle_fn.argmin),
    "pd_op.equal": _binary(paddle_fn.equal),
    "pd_op.not_equal": _binary(paddle_fn.not_equal),
    "pd_op.less_than": _binary(paddle_fn.less_than),
    "pd_op.less_equal": _binary(paddle_fn.less_equal),
    "pd_op.greater_than": _binary(paddle_fn.greater_than),
    "pd_op.greater_equal": _binary(paddle_fn.greater_equal),
    "pd_op.bitwise_and": _binary(paddle_fn.bitwise_and),
    "pd_op.bitwise_or": _binary(paddle_fn.bitwise_or),
    "pd_op.bitwise_xor": _binary(paddle_fn.bitwise_xor),
    "pd_op.bitwise_not": _unary(paddle_fn.bitwise_not),
    "pd_op.logical_and": _binary(paddle_fn.logical_and),
    "pd_op.logical_or": _binary(paddle_fn.logical_or),
    "pd_op.logical_xor": _binary(paddle_fn.logical_xor),
    "pd_op.logical_not": _unary(paddle_fn.logical_not),
    "pd_op.conv2d_transpose": conv2d_transpose,
    "pd_op.pad3d": pad3d,
    "pd_op.nearest_interp": interpolate,
    "pd_op.bilinear_interp": interpolate,
    "pd_op.linear_interp": interpolate,
    "pd_op.trilinear_interp": interpolate,
}
