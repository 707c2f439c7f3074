"""Recurrent layers (`paddle.nn.layer.rnn`): the cells (`SimpleRNNCell`, `LSTMCell`, `GRUCell` on
`RNNCellBase`), the wrappers that run a cell over a sequence (`RNN`, `BiRNN`) and the multi-layer networks
(`SimpleRNN`, `LSTM`, `GRU`).

The time loop is one `paddle.scan` over the (time-major) inputs, not a Python loop: under `paddle.jit` it
compiles to one loop whatever the sequence length, and reverse mode runs a scan backwards. Padding follows
Paddle: with `sequence_length`, a step past a sequence's end keeps the previous state (``new * m + old *
(1 - m)``); the multi-layer networks also zero the outputs there, as Paddle's fused `rnn` kernel does, while
`RNN`/`BiRNN` return the cell's outputs unmasked, as Paddle's Python loop does.
"""
from __future__ import annotations

import math

import paddle_fn
import paddle_fn.nn.functional as F
from paddle_fn.nn_compat.initializer import Constant, Uniform
from paddle_fn.nn_compat.layer.container import LayerList
from paddle_fn.nn_compat.layer.layers import Layer

__all__ = ["BiRNN", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCellBase", "SimpleRNN", "SimpleRNNCell"]

_BIDIRECTIONAL = ("bidirectional", "bidirect")


def _check_size(cls, what, n):
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"{cls}: {what} must be a positive int, got {n!r}")


def _cell_parameters(cell, gates, input_size, hidden_size, attrs, hh_cols=None):
    """weight_ih ``[gates*hidden, input]``, weight_hh ``[gates*hidden, hh_cols]``, bias_ih, bias_hh, all
    Uniform(-1/sqrt(hidden), 1/sqrt(hidden)) as in Paddle. An attr of False gives a frozen constant (weights
    1, biases 0) instead of no parameter, as Paddle does, so the parameter layout stays the same."""
    std = 1.0 / math.sqrt(hidden_size)
    rows = gates * hidden_size
    specs = (("weight_ih", [rows, input_size], False), ("weight_hh", [rows, hh_cols or hidden_size], False),
             ("bias_ih", [rows], True), ("bias_hh", [rows], True))
    for (name, shape, is_bias), attr in zip(specs, attrs):
        if attr is False:
            p = cell.create_parameter(shape, None, is_bias=is_bias,
                                      default_initializer=Constant(0.0 if is_bias else 1.0))
            p.stop_gradient = True
        else:
            p = cell.create_parameter(shape, attr, is_bias=is_bias, default_initializer=Uniform(-std, std))
        setattr(cell, name, p)


def _gates(cell, inputs, pre_hidden):
    """``inputs @ weight_ih.T + bias_ih`` and ``pre_hidden @ weight_hh.T + bias_hh``."""
    if inputs.ndim != 2 or inputs.shape[-1] != cell.input_size:
        raise ValueError(f"{type(cell).__name__}: inputs must have shape [batch_size, {cell.input_size}] "
                         f"(input_size), got {inputs.shape}")
    x = paddle_fn.matmul(inputs, cell.weight_ih, transpose_y=True) + cell.bias_ih
    h = paddle_fn.matmul(pre_hidden, cell.weight_hh, transpose_y=True) + cell.bias_hh
    return x, h


class RNNCellBase(Layer):
    """Base class of the recurrent cells: a cell maps ``(inputs, states)`` to ``(outputs, new_states)`` for one
    time step. Subclasses define `forward` and the `state_shape` property (a shape, or a nested structure of
    shapes, without the batch axis); `get_initial_states` builds filled states from them.

    Example:
        >>> import paddle_fn as paddle
        >>> class Accumulate(paddle.nn.RNNCellBase):
        ...     def forward(self, inputs, states):
        ...         new = states + inputs
        ...         return new, new
        ...     @property
        ...     def state_shape(self):
        ...         return (2,)
        >>> cell = Accumulate()
        >>> cell.get_initial_states(paddle.ones([3, 2])).shape
        paddle.Size([3, 2])
        >>> outputs, final = paddle.nn.RNN(cell)(paddle.ones([1, 4, 2]))
        >>> final.numpy()
        array([[4., 4.]], dtype=float32)
    """

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with `init_value`, shaped ``[batch_size] + shape`` for each shape in `shape`.

        Args:
            batch_ref (Tensor): its axis `batch_dim_idx` gives the batch size (the first leaf of a structure).
            shape (list|tuple, optional): a shape or a nested structure of shapes; a leading -1 stands for the
                batch axis and is added when missing. Default: `state_shape`.
            dtype (str|list, optional): a dtype or a structure of dtypes like `shape`. Default: `state_dtype`,
                else the default dtype.
            init_value (float, optional): the fill value. Default: 0.0.
            batch_dim_idx (int, optional): which axis of `batch_ref` is the batch. Default: 0.

        Example:
            >>> import paddle_fn as paddle
            >>> h, c = paddle.nn.LSTMCell(3, 5).get_initial_states(paddle.ones([2, 3]), init_value=1.0)
            >>> h.shape, float(c.sum())
            (paddle.Size([2, 5]), 10.0)
        """
        batch = paddle_fn.tree_flatten(batch_ref)[0][0].shape[batch_dim_idx]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = paddle_fn.get_default_dtype()

        def is_shape(s):
            return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)

        def build(s, dt):
            if is_shape(s):
                dims = list(s) if s and s[0] == -1 else [-1, *s]
                return paddle_fn.full([batch, *dims[1:]], init_value, dtype=dt)
            per = dt if isinstance(dt, (list, tuple)) else [dt] * len(s)
            return type(s)(build(si, di) for si, di in zip(s, per))

        return build(shapes, dtype)

    @property
    def state_shape(self):
        """The state's shape without the batch axis (a nested structure for several states)."""
        raise NotImplementedError(f"{type(self).__name__}: define the state_shape property (the state's shape "
                                  "without the batch axis), or pass shape= to get_initial_states")

    @property
    def state_dtype(self):
        """The state's dtype (a structure like `state_shape`); the default dtype when not defined."""
        raise NotImplementedError(f"{type(self).__name__}: define the state_dtype property, or pass dtype= to "
                                  "get_initial_states")


class SimpleRNNCell(RNNCellBase):
    """An Elman RNN cell: ``h = act(x @ weight_ih.T + bias_ih + h_prev @ weight_hh.T + bias_hh)``; the output is
    the new state.

    Args:
        input_size (int): the input size.
        hidden_size (int): the hidden size.
        activation (str, optional): 'tanh' or 'relu'. Default: 'tanh'.
        weight_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden weight.
        weight_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden weight.
        bias_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden bias.
        bias_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden bias. The four
            parameters: ``weight_ih`` ``[hidden_size, input_size]``, ``weight_hh`` ``[hidden_size, hidden_size]``,
            ``bias_ih``, ``bias_hh`` ``[hidden_size]``; all Uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
            by default; False freezes the parameter at a constant (weights 1, biases 0).
        name (str, optional): unused, for compatibility.

    Forward: ``cell(inputs, states=None)`` with inputs ``[batch_size, input_size]`` and states
    ``[batch_size, hidden_size]`` (zeros when None) returns ``(outputs, new_states)``.

    Example:
        >>> import paddle_fn as paddle
        >>> cell = paddle.nn.SimpleRNNCell(2, 3, weight_ih_attr=paddle.nn.initializer.Constant(0.5),
        ...                                weight_hh_attr=paddle.nn.initializer.Constant(0.0),
        ...                                bias_ih_attr=False, bias_hh_attr=False)
        >>> y, h = cell(paddle.to_tensor([[1.0, 1.0]]))
        >>> h.numpy()
        array([[0.7615942, 0.7615942, 0.7615942]], dtype=float32)
        >>> cell
        SimpleRNNCell(2, 3)
    """

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        _check_size("SimpleRNNCell", "hidden_size", hidden_size)
        _check_size("SimpleRNNCell", "input_size", input_size)
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get {activation}")
        _cell_parameters(self, 1, input_size, hidden_size, (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.input_size, self.hidden_size, self.activation = input_size, hidden_size, activation
        self._activation_fn = paddle_fn.tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        x, h = _gates(self, inputs, states)
        h = self._activation_fn(x + h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        act = f", activation={self.activation}" if self.activation != "tanh" else ""
        return f"{self.input_size}, {self.hidden_size}{act}"


class LSTMCell(RNNCellBase):
    """A long short-term memory cell. The gates are ``x @ weight_ih.T + bias_ih + h_prev @ weight_hh.T +
    bias_hh`` split into i, f, g, o (in that order); ``c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g)``,
    ``h = sigmoid(o) * tanh(c)`` (then ``h @ weight_ho`` when `proj_size` > 0). The output is h; the states are
    ``(h, c)``.

    Args:
        input_size (int): the input size.
        hidden_size (int): the hidden size.
        weight_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden weight.
        weight_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden weight.
        bias_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden bias.
        bias_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden bias. The four
            parameters: ``weight_ih`` ``[4*hidden_size, input_size]``, ``weight_hh`` ``[4*hidden_size, proj_size or
            hidden_size]``, ``bias_ih``, ``bias_hh`` ``[4*hidden_size]`` (Uniform(-1/sqrt(hidden_size),
            1/sqrt(hidden_size)); False freezes a constant).
        proj_size (int, optional): when > 0, h is projected to this size by ``weight_ho``
            ``[hidden_size, proj_size]``. Default: 0.
        name (str, optional): unused, for compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> cell = paddle.nn.LSTMCell(2, 3)
        >>> y, (h, c) = cell(paddle.ones([4, 2]))
        >>> y.shape, h.shape, c.shape
        (paddle.Size([4, 3]), paddle.Size([4, 3]), paddle.Size([4, 3]))
        >>> [p.shape for p in cell.parameters()]
        [paddle.Size([12, 2]), paddle.Size([12, 3]), paddle.Size([12]), paddle.Size([12])]
    """

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        _check_size("LSTMCell", "hidden_size", hidden_size)
        _check_size("LSTMCell", "input_size", input_size)
        if isinstance(proj_size, bool) or not isinstance(proj_size, int) or not 0 <= proj_size < hidden_size:
            raise ValueError(f"LSTMCell: proj_size must be an int in [0, hidden_size={hidden_size}), got "
                             f"{proj_size!r}")
        _cell_parameters(self, 4, input_size, hidden_size,
                         (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr), hh_cols=proj_size)
        self.proj_size = proj_size
        if proj_size > 0:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))
        self.input_size, self.hidden_size = input_size, hidden_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden, pre_cell = states
        x, h = _gates(self, inputs, pre_hidden)
        i, f, g, o = paddle_fn.split(x + h, num_or_sections=4, axis=-1)
        c = F.sigmoid(f) * pre_cell + F.sigmoid(i) * paddle_fn.tanh(g)
        h = F.sigmoid(o) * paddle_fn.tanh(c)
        if self.proj_size > 0:
            h = paddle_fn.matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        """``((proj_size or hidden_size,), (hidden_size,))``: the shapes of h and c."""
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell. With ``xr, xz, xc`` the thirds of ``x @ weight_ih.T + bias_ih`` and
    ``hr, hz, hc`` those of ``h_prev @ weight_hh.T + bias_hh``: ``r = sigmoid(xr + hr)``,
    ``z = sigmoid(xz + hz)``, ``c = tanh(xc + r * hc)``, ``h = (h_prev - c) * z + c``. The output is h.

    Args:
        input_size (int): the input size.
        hidden_size (int): the hidden size.
        weight_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden weight.
        weight_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden weight.
        bias_ih_attr (ParamAttr|bool, optional): the attributes of the input-to-hidden bias.
        bias_hh_attr (ParamAttr|bool, optional): the attributes of the hidden-to-hidden bias. The four
            parameters: ``weight_ih`` ``[3*hidden_size, input_size]``, ``weight_hh`` ``[3*hidden_size, hidden_size]``,
            ``bias_ih``, ``bias_hh`` ``[3*hidden_size]`` (Uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size));
            False freezes a constant).
        name (str, optional): unused, for compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> cell = paddle.nn.GRUCell(2, 3, weight_ih_attr=False, weight_hh_attr=False, bias_ih_attr=False,
        ...                          bias_hh_attr=False)
        >>> y, h = cell(paddle.zeros([1, 2]), paddle.ones([1, 3]))
        >>> y.numpy()
        array([[0.9996885, 0.9996885, 0.9996885]], dtype=float32)
    """

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        _check_size("GRUCell", "hidden_size", hidden_size)
        _check_size("GRUCell", "input_size", input_size)
        _cell_parameters(self, 3, input_size, hidden_size, (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.input_size, self.hidden_size = input_size, hidden_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        x, h = _gates(self, inputs, states)
        x_r, x_z, x_c = paddle_fn.split(x, num_or_sections=3, axis=1)
        h_r, h_z, h_c = paddle_fn.split(h, num_or_sections=3, axis=1)
        r = F.sigmoid(x_r + h_r)
        z = F.sigmoid(x_z + h_z)
        c = paddle_fn.tanh(x_c + r * h_c)
        h = (states - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


def _batch_time_swap(x):
    return paddle_fn.transpose(x, [1, 0, *range(2, x.ndim)])


def _rnn(cell, inputs, initial_states, sequence_length, time_major, is_reverse, zero_padding=False, **kwargs):
    """Run `cell` over the time axis of `inputs` with one scan; returns (outputs, final_states)."""
    leaves = paddle_fn.tree_flatten(inputs)[0]
    if not leaves or any(x.ndim < 2 for x in leaves):
        raise ValueError(f"{type(cell).__name__} over a sequence: inputs must be [batch_size, time_steps, ...] "
                         f"(or [time_steps, batch_size, ...] with time_major=True), got "
                         f"{[x.shape for x in leaves]}")
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    xs = inputs if time_major else paddle_fn.tree_map(_batch_time_swap, inputs)
    steps = leaves[0].shape[0 if time_major else 1]
    init_leaves, state_tree = paddle_fn.tree_flatten(initial_states)
    masked = sequence_length is not None
    if masked:
        lengths = paddle_fn.to_tensor(sequence_length)
        mask = (paddle_fn.arange(steps, dtype=lengths.dtype).unsqueeze(1) < lengths.unsqueeze(0))
        xs = (xs, mask.astype(leaves[0].dtype))

    def step(states, x):
        x_t, m_t = x if masked else (x, None)
        out, new_states = cell(x_t, states, **kwargs)
        new_states = paddle_fn.tree_unflatten(state_tree, paddle_fn.tree_flatten(new_states)[0])
        if masked:
            def keep(new, old):
                m = m_t.reshape([-1] + [1] * (new.ndim - 1))
                return new * m + old * (1 - m)
            new_states = paddle_fn.tree_map(keep, new_states, states)
            if zero_padding:
                out = paddle_fn.tree_map(lambda o: o * m_t.reshape([-1] + [1] * (o.ndim - 1)), out)
        return new_states, out

    final_states, outputs = paddle_fn.scan(step, paddle_fn.tree_unflatten(state_tree, init_leaves), xs,
                                           reverse=is_reverse)
    if not time_major:
        outputs = paddle_fn.tree_map(_batch_time_swap, outputs)
    return outputs, final_states


def _birnn(cell_fw, cell_bw, inputs, initial_states, sequence_length, time_major, zero_padding=False, **kwargs):
    if initial_states is None:
        states_fw = cell_fw.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
        states_bw = cell_bw.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    else:
        states_fw, states_bw = initial_states
    out_fw, states_fw = _rnn(cell_fw, inputs, states_fw, sequence_length, time_major, False, zero_padding, **kwargs)
    out_bw, states_bw = _rnn(cell_bw, inputs, states_bw, sequence_length, time_major, True, zero_padding, **kwargs)
    outputs = paddle_fn.tree_map(lambda a, b: paddle_fn.concat([a, b], -1), out_fw, out_bw)
    return outputs, (states_fw, states_bw)


class RNN(Layer):
    """Run a cell over a sequence: `cell.forward` once per time step, in one `paddle.scan`.

    Args:
        cell (RNNCellBase): the cell.
        is_reverse (bool, optional): run from the last step to the first. Default: False.
        time_major (bool, optional): inputs are ``[time_steps, batch_size, ...]`` instead of ``[batch_size,
            time_steps, ...]``. Default: False.

    Forward: ``rnn(inputs, initial_states=None, sequence_length=None, **kwargs)`` returns ``(outputs,
    final_states)``; `initial_states` default to `cell.get_initial_states`; `sequence_length` ``[batch_size]``
    (int) keeps each sequence's state fixed past its end (the outputs there are the cell's, unmasked, as in
    Paddle); kwargs go to the cell.

    Example:
        >>> import paddle_fn as paddle
        >>> rnn = paddle.nn.RNN(paddle.nn.SimpleRNNCell(16, 32))
        >>> outputs, final_states = rnn(paddle.rand([4, 23, 16]), paddle.zeros([4, 32]))
        >>> outputs.shape, final_states.shape
        (paddle.Size([4, 23, 32]), paddle.Size([4, 32]))
        >>> rnn
        RNN(
          (cell): SimpleRNNCell(16, 32)
        )
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _rnn(self.cell, inputs, initial_states, sequence_length, self.time_major, self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A bidirectional RNN: `cell_fw` runs forwards and `cell_bw` backwards over the sequence; the outputs are
    concatenated along the last axis and the final states are ``(states_fw, states_bw)``.

    Args:
        cell_fw (RNNCellBase): the forward cell.
        cell_bw (RNNCellBase): the backward cell (same input_size).
        time_major (bool, optional): inputs are time-major. Default: False.

    Forward: ``birnn(inputs, initial_states=None, sequence_length=None, **kwargs)``; `initial_states` is a pair
    (forward, backward). With `sequence_length`, the backward cell starts at each sequence's last valid step.

    Example:
        >>> import paddle_fn as paddle
        >>> rnn = paddle.nn.BiRNN(paddle.nn.LSTMCell(16, 32), paddle.nn.LSTMCell(16, 32))
        >>> outputs, final_states = rnn(paddle.rand([2, 23, 16]))
        >>> outputs.shape, final_states[0][0].shape, len(final_states), len(final_states[0])
        (paddle.Size([2, 23, 64]), paddle.Size([2, 32]), 2, 2)
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not equals that of backward "
                             f"cell({cell_bw.input_size})")
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)) and len(initial_states) != 2:
            raise ValueError(f"BiRNN: initial_states must be a pair (forward states, backward states), got "
                             f"{len(initial_states)} entries")
        return _birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length, self.time_major, **kwargs)


class RNNBase(LayerList):
    """The multi-layer recurrent networks' common code: a LayerList of `RNN` (or `BiRNN`) layers whose
    parameters are also attributes named as Paddle names them (``weight_ih_l0``, ``bias_hh_l1_reverse``, ...),
    so the state_dict lists them under both names as Paddle's does.

    Forward: ``net(inputs, initial_states=None, sequence_length=None)`` returns ``(outputs, final_states)``;
    the states are ``[num_layers * num_directions, batch_size, hidden_size]`` (a pair (h, c) for LSTM); dropout
    is applied to the inputs of every layer but the first in training.
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 proj_size=0):
        super().__init__()
        if direction not in ("forward", *_BIDIRECTIONAL):
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), received direction = "
                             f"{direction}")
        _check_size(mode, "num_layers", num_layers)
        if not 0 <= dropout <= 1:
            raise ValueError(f"{mode}: dropout must be in [0, 1], got {dropout}")
        self.mode, self.input_size, self.hidden_size, self.dropout = mode, input_size, hidden_size, dropout
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.time_major, self.num_layers = time_major, num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        self.proj_size = proj_size
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr, "bias_ih_attr": bias_ih_attr,
                  "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            cell_cls, kwargs["proj_size"] = LSTMCell, proj_size
        elif mode == "GRU":
            cell_cls = GRUCell
        else:
            cell_cls, kwargs["activation"] = SimpleRNNCell, "relu" if mode == "RNN_RELU" else "tanh"
        in_size = proj_size or hidden_size
        for i in range(num_layers):
            size = input_size if i == 0 else in_size * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_cls(size, hidden_size, **kwargs), False, time_major))
            else:
                self.append(BiRNN(cell_cls(size, hidden_size, **kwargs), cell_cls(size, hidden_size, **kwargs),
                                  time_major))
        # Paddle's fused kernel serves the network when every cell has exactly its four parameters; it zeroes
        # the outputs past sequence_length, the Python loop (used otherwise, e.g. with proj_size) does not.
        self.could_use_cudnn = len(self.parameters()) == num_layers * 4 * self.num_directions
        # Paddle pairs these names with parameters() in order, dropping the bias names whose attr is False; the
        # pairing is kept as is so state_dict keys match checkpoints Paddle writes.
        names = []
        for layer in range(num_layers):
            for direction_index in range(self.num_directions):
                suffix = "_reverse" if direction_index == 1 else ""
                names += [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                names += [f"bias_ih_l{layer}{suffix}"] if bias_ih_attr is not False else []
                names += [f"bias_hh_l{layer}{suffix}"] if bias_hh_attr is not False else []
        for name, param in zip(names, self.parameters()):
            setattr(self, name, param)

    def _state_list(self, initial_states, inputs):
        batch = inputs.shape[1 if self.time_major else 0]
        n = self.num_layers * self.num_directions
        dims = (self.proj_size or self.hidden_size, self.hidden_size)
        if initial_states is None:
            return [paddle_fn.zeros([n, batch, dims[i]], dtype=inputs.dtype) for i in range(self.state_components)]
        states = [initial_states] if isinstance(initial_states, paddle_fn.Tensor) else list(initial_states)
        if len(states) != self.state_components:
            raise ValueError(f"{type(self).__name__}: initial_states must be {self.state_components} Tensor(s) "
                             f"{'(h, c)' if self.state_components == 2 else ''}, got {len(states)}")
        for i, s in enumerate(states):
            if list(s.shape) != [n, batch, dims[i]]:
                raise ValueError(f"{type(self).__name__}: initial state {i} must have shape [num_layers * "
                                 f"num_directions, batch_size, hidden_size] = {[n, batch, dims[i]]}, got {s.shape}")
        return states

    def forward(self, inputs, initial_states=None, sequence_length=None):
        if inputs.ndim != 3 or inputs.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: inputs must be [batch_size, time_steps, input_size="
                             f"{self.input_size}] ([time_steps, batch_size, input_size] with time_major=True), got "
                             f"{inputs.shape}")
        components = [paddle_fn.unstack(s) for s in self._state_list(initial_states, inputs)]
        per_cell = list(zip(*components)) if self.state_components == 2 else components[0]
        final = []
        for i, layer in enumerate(self):
            if i > 0:
                inputs = F.dropout(inputs, self.dropout, training=self.training, mode="upscale_in_train")
            if self.num_directions == 2:
                states = (per_cell[2 * i], per_cell[2 * i + 1])
                inputs, state = _birnn(layer.cell_fw, layer.cell_bw, inputs, states, sequence_length,
                                       self.time_major, self.could_use_cudnn)
                final += list(state)
            else:
                inputs, state = _rnn(layer.cell, inputs, per_cell[i], sequence_length, self.time_major, False,
                                     self.could_use_cudnn)
                final.append(state)
        if self.state_components == 2:
            return inputs, tuple(paddle_fn.stack([s[k] for s in final]) for k in range(2))
        return inputs, paddle_fn.stack(final)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """A multi-layer Elman network: each layer runs a `SimpleRNNCell` (``h = act(W_ih x + b_ih + W_hh h + b_hh)``)
    over the sequence.

    Args:
        input_size (int): the first layer's input size.
        hidden_size (int): every layer's hidden size.
        num_layers (int, optional): Default: 1.
        direction (str, optional): 'forward', or 'bidirect' / 'bidirectional' (outputs of both directions
            concatenated). Default: 'forward'.
        time_major (bool, optional): inputs are ``[time_steps, batch_size, input_size]``. Default: False.
        dropout (float, optional): dropout on the inputs of every layer but the first (training only).
            Default: 0.
        activation (str, optional): 'tanh' or 'relu'. Default: 'tanh'.
        weight_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden weight attributes (see `SimpleRNNCell`).
        weight_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden weight attributes (see `SimpleRNNCell`).
        bias_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden bias attributes (see `SimpleRNNCell`).
        bias_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden bias attributes (see `SimpleRNNCell`).
        name (str, optional): unused, for compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> rnn = paddle.nn.SimpleRNN(16, 32, 2)
        >>> y, h = rnn(paddle.randn([4, 23, 16]), paddle.randn([2, 4, 32]))
        >>> y.shape, h.shape
        (paddle.Size([4, 23, 32]), paddle.Size([2, 4, 32]))
        >>> list(rnn.state_dict())[:4]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}': SimpleRNN takes 'tanh' or 'relu'")
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         direction, time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation


class LSTM(RNNBase):
    """A multi-layer LSTM: each layer runs an `LSTMCell` over the sequence. The states are a pair ``(h, c)`` of
    ``[num_layers * num_directions, batch_size, hidden_size]`` Tensors (h has proj_size columns when
    `proj_size` > 0).

    Args:
        input_size (int): the first layer's input size.
        hidden_size (int): every layer's hidden size.
        num_layers (int, optional): Default: 1.
        direction (str, optional): 'forward', or 'bidirect' / 'bidirectional'. Default: 'forward'.
        time_major (bool, optional): inputs are time-major. Default: False.
        dropout (float, optional): dropout between layers (training only). Default: 0.
        weight_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden weight attributes (see `LSTMCell`).
        weight_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden weight attributes (see `LSTMCell`).
        bias_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden bias attributes (see `LSTMCell`).
        bias_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden bias attributes (see `LSTMCell`).
        proj_size (int, optional): project h to this size (``weight_ho``). Default: 0.
        name (str, optional): unused, for compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> lstm = paddle.nn.LSTM(16, 32, 2, direction='bidirect')
        >>> y, (h, c) = lstm(paddle.randn([4, 23, 16]))
        >>> y.shape, h.shape, c.shape
        (paddle.Size([4, 23, 64]), paddle.Size([4, 4, 32]), paddle.Size([4, 4, 32]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size)


class GRU(RNNBase):
    """A multi-layer GRU: each layer runs a `GRUCell` over the sequence.

    Args:
        input_size (int): the first layer's input size.
        hidden_size (int): every layer's hidden size.
        num_layers (int, optional): Default: 1.
        direction (str, optional): 'forward', or 'bidirect' / 'bidirectional'. Default: 'forward'.
        time_major (bool, optional): inputs are time-major. Default: False.
        dropout (float, optional): dropout between layers (training only). Default: 0.
        weight_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden weight attributes (see `GRUCell`).
        weight_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden weight attributes (see `GRUCell`).
        bias_ih_attr (ParamAttr|bool, optional): the cells' input-to-hidden bias attributes (see `GRUCell`).
        bias_hh_attr (ParamAttr|bool, optional): the cells' hidden-to-hidden bias attributes (see `GRUCell`).
        name (str, optional): unused, for compatibility.

    Example:
        >>> import paddle_fn as paddle
        >>> gru = paddle.nn.GRU(16, 32, 2)
        >>> y, h = gru(paddle.randn([4, 5, 16]), sequence_length=paddle.to_tensor([5, 3, 1, 2]))
        >>> y.shape, h.shape
        (paddle.Size([4, 5, 32]), paddle.Size([2, 4, 32]))
        >>> float(y[1, 3:].abs().sum())  # zero past the sequence's end
        0.0
        >>> gru
        GRU(16, 32, num_layers=2
          (0): RNN(
            (cell): GRUCell(16, 32)
          )
          (1): RNN(
            (cell): GRUCell(32, 32)
          )
        )
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
