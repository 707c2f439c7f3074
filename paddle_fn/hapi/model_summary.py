"""``paddle.summary``: Paddle's per-layer table (layer, input shape, output shape, parameter count) with the
totals and the size estimates, found by running the network once on random inputs with forward post-hooks on
every leaf layer.
"""
import numbers

import numpy as np

import paddle_fn as paddle

__all__ = ["summary"]

_MB = 1024.0 ** 2


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Number) or v is None for v in value)


def _normalize_sizes(input_size):
    """input_size as Paddle accepts it (an int, a shape, an InputSpec, a list of them) -> a shape or list."""
    if isinstance(input_size, paddle.static.InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, int):
        return (input_size,)
    if isinstance(input_size, list) and not _is_shape(input_size):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            if not isinstance(item, (tuple, list, paddle.static.InputSpec)):
                raise TypeError(f"paddle.summary: when input_size is a list, its items must be tuples or InputSpecs, "
                                f"got {type(item).__name__}")
            out.append(tuple(item.shape) if isinstance(item, paddle.static.InputSpec) else item)
        return out
    return input_size


def _check_shape(shape):
    """One unknown (None or -1) dimension, the batch, becomes 1; others must be positive."""
    if sum(1 for d in shape if d is None or d == -1) > 1:
        raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
    out = []
    for d in shape:
        if d is None or d == -1:
            d = 1
        elif d <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {d}")
        out.append(int(d))
    return tuple(out)


def _check_input(sizes):
    if _is_shape(sizes):
        return _check_shape(sizes)
    return [_check_input(s) for s in sizes]


def _shapes(value):
    if isinstance(value, paddle.Tensor):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shapes(v) for v in value]
    return []


def _layer_key(layer, count):
    """Paddle's row name: the class name and the layer's unique-name number plus one (``Linear-3``)."""
    try:
        idx = int(layer.full_name().split("_")[-1])
    except ValueError:
        idx = count
    return f"{type(layer).__name__}-{idx + 1}"


def _layer_params(layer):
    """(total, trainable) counts of one layer's own state. Running statistics (BatchNorm's ``_mean`` /
    ``_variance``), which Paddle stores as non-trainable parameters, are buffers here and count as
    non-trainable, so the totals equal Paddle's."""
    total = trainable = 0
    for p in layer._parameters.values():
        if p is None:
            continue
        n = int(np.prod(p.shape))
        total += n
        if p.trainable and not p.stop_gradient:
            trainable += n
    for name, b in layer._buffers.items():
        if b is not None and name not in layer._non_persistable_buffer_names_set:
            total += int(np.prod(b.shape))
    return total, trainable


def _build_input(sizes, dtypes):
    if _is_shape(sizes):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return paddle.cast(paddle.rand(list(sizes)), dtype)
    return [_build_input(s, d) for s, d in zip(sizes, dtypes)]


def _build_dtypes(sizes, dtype):
    if _is_shape(sizes):
        return [dtype or "float32"]
    return [_build_dtypes(s, dtype) for s in sizes]


def _input_mb(sizes):
    if _is_shape(sizes):
        return abs(float(np.prod(sizes)) * 4.0 / _MB)
    return sum(_input_mb(s) for s in sizes)


def _collect(net, sizes, dtypes, input):
    rows = {}
    hooks = []
    depth = len(net.sublayers())

    def hook(layer, inputs, output):
        key = _layer_key(layer, len(rows))
        total, trainable = _layer_params(layer)
        rows[key] = {"input_shape": _shapes(inputs), "output_shape": _shapes(output), "nb_params": total,
                     "trainable_params": trainable}

    def register(layer):
        containers = (paddle.nn.Sequential, paddle.nn.LayerList)
        if not isinstance(layer, containers) and (layer is not net or depth < 1):
            hooks.append(layer.register_forward_post_hook(hook))

    net.apply(register)
    try:
        with paddle.no_grad():
            if input is not None:
                net(input)
            else:
                net(*_build_input(sizes, dtypes))
    finally:
        for h in hooks:
            h.remove()
    return rows


def _table(rows, input_sizes):
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        widths["layer"] = max(widths["layer"], len(key))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["nb_params"])))
    table_width = max(75, sum(widths.values()) + 5)

    def line(*cells):
        return " ".join(f"{c:^{w}}" for c, w in zip(cells, widths.values())) + "\n"

    text = "-" * table_width + "\n" + line("Layer (type)", "Input Shape", "Output Shape", "Param #")
    text += "=" * table_width + "\n"
    total = trainable = 0
    total_output = 0
    for key, row in rows.items():
        text += line(key, str(row["input_shape"]), str(row["output_shape"]), f"{row['nb_params']:,}")
        total += row["nb_params"]
        trainable += row["trainable_params"]
        out = row["output_shape"]
        # one output: its element count; several: the sum of theirs
        shapes = [out] if _is_shape(out) else out
        total_output += sum(int(np.prod(s)) for s in shapes if _is_shape(s))
    input_mb = _input_mb(input_sizes)
    output_mb = abs(2.0 * total_output * 4.0 / _MB)  # x2: the gradients
    params_mb = abs(total * 4.0 / _MB)
    text += "=" * table_width + "\n"
    text += f"Total params: {total:,}\n"
    text += f"Trainable params: {trainable:,}\n"
    text += f"Non-trainable params: {total - trainable:,}\n"
    text += "-" * table_width + "\n"
    text += f"Input size (MB): {input_mb:0.2f}\n"
    text += f"Forward/backward pass size (MB): {output_mb:0.2f}\n"
    text += f"Params size (MB): {params_mb:0.2f}\n"
    text += f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}\n"
    text += "-" * table_width + "\n"
    return text, {"total_params": total, "trainable_params": trainable}


def summary(net, input_size=None, dtypes=None, input=None):  # noqa: A002 - Paddle's parameter name
    """Print a table of the network's leaf layers with their input and output shapes and parameter counts, the
    totals and size estimates (in Paddle's exact format), and return the counts.

    The network runs once, in eval mode, on random inputs of ``input_size`` (or on ``input``). A ``None`` or -1
    dimension (the batch) becomes 1. Rows are named ``<Class>-<n>`` after each layer's unique name, so the numbers
    depend on how many layers of that class the process created before.

    Args:
        net (paddle.nn.Layer): the network.
        input_size (tuple|InputSpec|list, optional): the input shape, or a list of shapes for several inputs.
        dtypes (str|list, optional): the input dtype(s). Default: float32.
        input (Tensor|list, optional): real inputs instead of ``input_size``.

    Returns:
        dict: ``{'total_params': int, 'trainable_params': int}``.

    Example:
        >>> import paddle_fn as paddle
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(784, 512), paddle.nn.ReLU(), paddle.nn.Linear(512, 10))
        >>> info = paddle.summary(net, (1, 784))  # doctest: +ELLIPSIS
        ---------------------------------------------------------------------------
         Layer (type)       Input Shape          Output Shape         Param #
        ===========================================================================
           Linear-...        [[1, 784]]            [1, 512]           401,920
            ReLU-...         [[1, 512]]            [1, 512]              0
           Linear-...        [[1, 512]]            [1, 10]             5,130
        ===========================================================================
        Total params: 407,050
        Trainable params: 407,050
        Non-trainable params: 0
        ---------------------------------------------------------------------------
        Input size (MB): 0.00
        Forward/backward pass size (MB): 0.01
        Params size (MB): 1.55
        Estimated Total Size (MB): 1.56
        ---------------------------------------------------------------------------
        <BLANKLINE>
        >>> info
        {'total_params': 407050, 'trainable_params': 407050}
    """
    if not isinstance(net, paddle.nn.Layer):
        raise TypeError(f"paddle.summary: net must be a paddle.nn.Layer, got {type(net).__name__}")
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        if isinstance(input, paddle.Tensor):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(x.shape) for x in input.values()]
        else:
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine input_size, please "
                             "input input_size.")
    sizes = _check_input(_normalize_sizes(input_size))
    if isinstance(sizes, tuple):
        sizes = [sizes]
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(sizes, dtypes)
    was_training = net.training
    net.eval()
    try:
        rows = _collect(net, sizes, dtypes, input)
    finally:
        if was_training:
            net.train()
    text, info = _table(rows, sizes)
    print(text)
    return info
