"""Recurrent layers, attention / Transformer layers and the CTC loss: against numpy reference loops, against
numbers recorded from Paddle 3.3.1 with identical weights, tape gradients against functional gradients, jit,
sequence_length masking, attention masks, incremental decoding, and CTC against a brute-force enumeration of
alignments and finite differences."""
import itertools
import warnings

import numpy as np
import pytest

import paddle_fn as paddle
import paddle_fn.nn.functional as F

# The _PADDLE_* numbers below were printed by Paddle 3.3.1 (CPU) running this script (the same weights are set in
# the tests with _fill):
#
#   import numpy as np, paddle
#   def fill(m):
#       rs = np.random.RandomState(0)
#       m.set_state_dict({n: rs.uniform(-0.6, 0.6, p.shape).astype('float32') for n, p in m.named_parameters()})
#       return m
#   x = np.random.RandomState(1).randn(2, 4, 3).astype('float32')
#   for cls in (paddle.nn.SimpleRNN, paddle.nn.GRU, paddle.nn.LSTM):
#       m = fill(cls(3, 2, num_layers=2, direction='bidirect'))
#       y, s = m(paddle.to_tensor(x), sequence_length=paddle.to_tensor([4, 2]))
#       h = s[0] if isinstance(s, tuple) else s
#       print(cls.__name__, np.round(y.numpy().astype(float), 5).tolist(),
#             np.round(h.numpy().astype(float), 5).tolist())
#   # attention / Transformer (fill with uniform(-0.5, 0.5) instead of (-0.6, 0.6)):
#   rs = np.random.RandomState(1)
#   src = paddle.to_tensor(rs.randn(2, 3, 4).astype('float32'))
#   tgt = paddle.to_tensor(rs.randn(2, 2, 4).astype('float32'))
#   bmask = paddle.to_tensor(np.array([[True, True, False]] * 3))
#   out, w = fill(paddle.nn.MultiHeadAttention(4, 2, need_weights=True))(src, attn_mask=bmask)
#   print(out, w[0, 1])
#   for nb in (False, True):
#       model = fill(paddle.nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, normalize_before=nb, activation='gelu'))
#       print(model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(2)))
#   # CTC: F.ctc_loss(lp, labels, il, ll, reduction='none'[, norm_by_times=True]) with the inputs of test_ctc_*.

_PADDLE_RNN = {'GRU': ([[[-0.11428, 0.00857, -0.51709, -0.49102], [-0.16002, -0.07348, -0.39186, -0.53252],
           [-0.24614, -0.04679, -0.33293, -0.43688], [-0.15423, -0.09325, -0.07545, -0.25692]],
          [[-0.10287, 0.07212, -0.15296, -0.45813], [-0.11513, 0.13559, 0.02209, -0.22573],
           [-0.0, 0.0, -0.0, -0.0], [-0.0, 0.0, -0.0, -0.0]]],
         [[[0.28553, -0.45054], [-0.25078, 0.33195]], [[-0.74339, -0.59734], [-0.13865, -0.43735]],
          [[-0.15423, -0.09325], [-0.11513, 0.13559]], [[-0.51709, -0.49102], [-0.15296, -0.45813]]]),
 'LSTM': ([[[0.07763, -0.02275, 0.07235, 0.07393], [0.08723, -0.04071, 0.06165, 0.07465],
            [0.1297, -0.05145, 0.05229, 0.0555], [0.11034, -0.06392, 0.03025, 0.05167]],
           [[0.05119, -0.02413, 0.08339, 0.06701], [0.07054, -0.04304, 0.04548, 0.05886], [0.0, -0.0, 0.0, 0.0],
            [0.0, -0.0, 0.0, 0.0]]],
          [[[0.10971, -0.06562], [0.04421, 0.0195]], [[0.15194, 0.02019], [0.03883, 0.06505]],
           [[0.11034, -0.06392], [0.07054, -0.04304]], [[0.07235, 0.07393], [0.08339, 0.06701]]]),
 'SimpleRNN': ([[[0.43126, -0.04451, 0.74507, -0.71004], [-0.00891, -0.54256, 0.72194, -0.57717],
                 [0.44146, -0.01898, 0.67512, -0.65963], [0.26228, -0.20502, 0.3222, -0.67367]],
                [[0.43921, -0.01213, 0.66665, -0.64805], [-0.04402, -0.49047, 0.3064, -0.63007],
                 [-0.0, -0.0, 0.0, -0.0], [-0.0, -0.0, 0.0, -0.0]]],
               [[[0.70446, 0.13244], [0.44989, 0.458]], [[-0.74885, 0.69377], [-0.79914, 0.70354]],
                [[0.26228, -0.20502], [-0.04402, -0.49047]], [[0.74507, -0.71004], [0.66665, -0.64805]]])}
_PADDLE_MHA_OUT = [[[0.43569, -0.41211, 0.02784, -0.01151], [0.49744, -0.38247, 0.00487, 0.03067],
  [0.46809, -0.37203, -0.02592, 0.06198]],
 [[0.10496, -0.36078, -0.16254, -0.28848], [0.06783, -0.35215, -0.19437, -0.26883],
  [0.08126, -0.35857, -0.18226, -0.27758]]]
_PADDLE_MHA_WEIGHTS_0_1 = [[0.54129, 0.45871, 0.0], [0.50579, 0.49421, 0.0], [0.57822, 0.42178, 0.0]]
_PADDLE_TRANSFORMER = {False: [[[-0.26501, -0.52608, 0.98894, 0.68034], [-0.25868, -0.54983, 0.97916, 0.61647]],
         [[-0.19575, -0.46434, 1.02444, 0.5781], [-0.18517, -0.45136, 1.02484, 0.562]]],
 True: [[[-0.42274, -0.26578, 0.61219, 1.15094], [-0.19953, 0.36667, 0.33178, 0.99834]],
        [[-0.0823, -0.3285, 0.84841, 0.20835], [-0.07611, -0.151, 0.93256, 0.52327]]]}


def _fill(layer, low=-0.6):
    rs = np.random.RandomState(0)
    with warnings.catch_warnings():
        # set by their flat names (weight_ih_l0, ...): the cells' own names for them are reported as not given
        warnings.simplefilter("ignore", UserWarning)
        layer.set_state_dict({n: rs.uniform(low, -low, p.shape).astype("float32")
                              for n, p in layer.named_parameters()})
    return layer


def _sig(z):
    return 1 / (1 + np.exp(-z))


def _np_cell(kind, x, state, p):
    """One step of a cell in numpy; p = (weight_ih, weight_hh, bias_ih, bias_hh)."""
    w_ih, w_hh, b_ih, b_hh = p
    if kind == "LSTM":
        h, c = state
        i, f, g, o = np.split(x @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 4, axis=-1)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        return h, (h, c)
    xg, hg = x @ w_ih.T + b_ih, state @ w_hh.T + b_hh
    if kind == "GRU":
        xr, xz, xc = np.split(xg, 3, axis=-1)
        hr, hz, hc = np.split(hg, 3, axis=-1)
        r, z = _sig(xr + hr), _sig(xz + hz)
        c = np.tanh(xc + r * hc)
        h = (state - c) * z + c
        return h, h
    h = np.tanh(xg + hg)
    return h, h


def _np_run(kind, x, p, state, lengths=None, reverse=False, zero_padding=False):
    """A batch-major numpy time loop with Paddle's padding rules."""
    steps = x.shape[1]
    lengths = np.full(x.shape[0], steps) if lengths is None else np.asarray(lengths)
    outs = [None] * steps
    for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
        out, new = _np_cell(kind, x[:, t], state, p)
        m = (t < lengths)[:, None]
        state = tuple(np.where(m, a, b) for a, b in zip(new, state)) if kind == "LSTM" else np.where(m, new, state)
        outs[t] = np.where(m, out, 0.0) if zero_padding else out
    return np.stack(outs, 1), state


def _np_params(cell):
    return tuple(getattr(cell, n).numpy().astype(np.float64) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))


_CELLS = {"SimpleRNN": paddle.nn.SimpleRNNCell, "GRU": paddle.nn.GRUCell, "LSTM": paddle.nn.LSTMCell}
_NETS = {"SimpleRNN": paddle.nn.SimpleRNN, "GRU": paddle.nn.GRU, "LSTM": paddle.nn.LSTM}


def _zeros_state(kind, batch, hidden):
    z = np.zeros((batch, hidden))
    return (z, z) if kind == "LSTM" else z


@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_wrapper_equals_numpy_loop(kind, reverse):
    paddle.seed(1)
    cell = _CELLS[kind](3, 4)
    x = np.random.RandomState(2).randn(2, 5, 3).astype("float32")
    lengths = [5, 3]
    y, state = paddle.nn.RNN(cell, is_reverse=reverse)(paddle.to_tensor(x), sequence_length=paddle.to_tensor(lengths))
    ref_y, ref_state = _np_run(kind, x.astype(np.float64), _np_params(cell), _zeros_state(kind, 2, 4), lengths, reverse)
    np.testing.assert_allclose(y.numpy(), ref_y, rtol=1e-5, atol=1e-6)
    for got, want in zip(paddle.tree_flatten(state)[0], paddle.tree_flatten(ref_state)[0]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
    # The wrapper returns the cell's outputs past a sequence's end (Paddle's Python loop does not mask them).
    assert np.abs(y.numpy()[1, 3:]).sum() > 0
    # time_major gives the same numbers transposed.
    y_tm, _ = paddle.nn.RNN(cell, is_reverse=reverse, time_major=True)(
        paddle.to_tensor(x.transpose(1, 0, 2)), sequence_length=paddle.to_tensor(lengths))
    np.testing.assert_allclose(y_tm.numpy().transpose(1, 0, 2), y.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
def test_multilayer_bidirectional_equals_numpy(kind):
    paddle.seed(3)
    net = _NETS[kind](3, 4, num_layers=2, direction="bidirectional")
    rs = np.random.RandomState(4)
    x = rs.randn(3, 5, 3).astype("float32")
    h0 = rs.randn(4, 3, 4).astype("float32")
    c0 = rs.randn(4, 3, 4).astype("float32")
    lengths = [5, 2, 4]
    init = (paddle.to_tensor(h0), paddle.to_tensor(c0)) if kind == "LSTM" else paddle.to_tensor(h0)
    y, states = net(paddle.to_tensor(x), init, paddle.to_tensor(lengths))
    inputs, finals = x.astype(np.float64), []
    for layer in range(2):
        outs = []
        for d, cell in enumerate((net[layer].cell_fw, net[layer].cell_bw)):
            k = 2 * layer + d
            s0 = (h0[k], c0[k]) if kind == "LSTM" else h0[k]
            o, s = _np_run(kind, inputs, _np_params(cell), s0, lengths, reverse=d == 1, zero_padding=True)
            outs.append(o)
            finals.append(s)
        inputs = np.concatenate(outs, -1)
    np.testing.assert_allclose(y.numpy(), inputs, rtol=1e-5, atol=1e-6)
    assert np.all(y.numpy()[1, 2:] == 0)  # the networks zero the outputs past each sequence's end
    if kind == "LSTM":
        np.testing.assert_allclose(states[0].numpy(), np.stack([s[0] for s in finals]), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(states[1].numpy(), np.stack([s[1] for s in finals]), rtol=1e-5, atol=1e-6)
    else:
        assert states.shape == [4, 3, 4]
        np.testing.assert_allclose(states.numpy(), np.stack(finals), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["SimpleRNN", "GRU", "LSTM"])
def test_networks_match_paddle_numbers(kind):
    net = _fill(_NETS[kind](3, 2, num_layers=2, direction="bidirect"))
    x = np.random.RandomState(1).randn(2, 4, 3).astype("float32")
    y, states = net(paddle.to_tensor(x), sequence_length=paddle.to_tensor([4, 2]))
    h = states[0] if kind == "LSTM" else states
    want_y, want_h = _PADDLE_RNN[kind]
    np.testing.assert_allclose(y.numpy(), want_y, atol=2e-5)
    np.testing.assert_allclose(h.numpy(), want_h, atol=2e-5)


def test_parameter_names_shapes_and_reprs_as_paddle():
    lstm = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    names = [n for n, _ in lstm.named_parameters()]
    assert names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert names[4] == "weight_ih_l0_reverse" and len(names) == 16
    assert lstm.weight_ih_l1.shape == [16, 8] and lstm.weight_hh_l0.shape == [16, 4]
    # the state_dict lists each parameter under the flat name and under the cell's path, as Paddle's does
    keys = list(lstm.state_dict())
    assert len(keys) == 32 and keys[16] == "0.cell_fw.weight_ih"
    assert lstm.state_dict()["weight_ih_l0"] is lstm.state_dict()["0.cell_fw.weight_ih"]
    assert repr(paddle.nn.SimpleRNN(3, 4, activation="relu", dropout=0.1)) == (
        "SimpleRNN(3, 4, dropout=0.1\n  (0): RNN(\n    (cell): SimpleRNNCell(3, 4, activation=relu)\n  )\n)")
    assert repr(paddle.nn.GRU(3, 4, time_major=True)).startswith("GRU(3, 4, time_major=True\n")
    # default init: Uniform(-1/sqrt(hidden), 1/sqrt(hidden))
    w = paddle.nn.GRUCell(3, 16).weight_hh.numpy()
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2
    # an attr of False freezes a constant, as in Paddle
    cell = paddle.nn.SimpleRNNCell(3, 2, weight_ih_attr=False, bias_hh_attr=False)
    assert cell.weight_ih.stop_gradient and np.all(cell.weight_ih.numpy() == 1)
    assert cell.bias_hh.stop_gradient and np.all(cell.bias_hh.numpy() == 0)
    assert "bias_hh_l0" not in paddle.nn.SimpleRNN(3, 2, bias_hh_attr=False).state_dict()
    proj = paddle.nn.LSTM(3, 4, proj_size=2)
    y, (h, c) = proj(paddle.ones([2, 5, 3]))
    assert y.shape == [2, 5, 2] and h.shape == [1, 2, 2] and c.shape == [1, 2, 4]


def test_backward_equals_functional_grad_and_jit():
    paddle.seed(5)
    net = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirect")
    x = paddle.to_tensor(np.random.RandomState(6).randn(2, 5, 3).astype("float32"))
    lengths = paddle.to_tensor([5, 3])
    y, h = net(x, sequence_length=lengths)
    ((y ** 2).sum() + h.sum()).backward()
    params = dict(net.named_parameters())

    def loss(params):
        y, h = paddle.nn.functional_call(net, params, x, sequence_length=lengths)
        return (y ** 2).sum() + h.sum()

    grads = paddle.grad(loss)(params)
    for name, p in params.items():
        np.testing.assert_allclose(p.grad.numpy(), grads[name].numpy(), rtol=1e-5, atol=1e-6)
    assert float(params["weight_hh_l1_reverse"].grad.abs().sum()) > 0

    forward = paddle.jit(lambda params, x: paddle.nn.functional_call(net, params, x, sequence_length=lengths))
    y_jit, h_jit = forward(params, x)
    np.testing.assert_allclose(y_jit.numpy(), y.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h_jit.numpy(), h.numpy(), rtol=1e-5, atol=1e-6)


def test_rnn_errors():
    with pytest.raises(ValueError, match="direction should be forward or bidirect"):
        paddle.nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match="tanh or relu"):
        paddle.nn.SimpleRNNCell(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match=r"input_size=3"):
        paddle.nn.GRU(3, 4)(paddle.ones([2, 5, 6]))
    with pytest.raises(ValueError, match=r"\[1, 2, 4\]"):
        paddle.nn.GRU(3, 4)(paddle.ones([2, 5, 3]), paddle.zeros([2, 2, 4]))
    with pytest.raises(ValueError, match="2 Tensor"):
        paddle.nn.LSTM(3, 4)(paddle.ones([2, 5, 3]), paddle.zeros([1, 2, 4]))
    with pytest.raises(ValueError, match="does not equals"):
        paddle.nn.BiRNN(paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(2, 4))


# ------------------------------------------------------------------------------------------ attention

def _np_mha(mha, q, k, v, mask):
    def proj(lin, x):
        return x @ lin.weight.numpy() + lin.bias.numpy()

    def heads(x):
        return x.reshape(x.shape[0], x.shape[1], mha.num_heads, -1).transpose(0, 2, 1, 3)

    qh, kh, vh = heads(proj(mha.q_proj, q)), heads(proj(mha.k_proj, k)), heads(proj(mha.v_proj, v))
    scores = qh @ kh.transpose(0, 1, 3, 2) / np.sqrt(mha.head_dim) + mask
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = (w @ vh).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], -1)
    return proj(mha.out_proj, out), w


def test_multi_head_attention_masks_equal_numpy():
    paddle.seed(7)
    mha = paddle.nn.MultiHeadAttention(6, 3, kdim=4, vdim=5, need_weights=True)
    rs = np.random.RandomState(8)
    q, k, v = rs.randn(2, 3, 6), rs.randn(2, 4, 4), rs.randn(2, 4, 5)
    keep = rs.rand(2, 1, 3, 4) > 0.3
    keep[..., 0] = True
    out, w = mha(*(paddle.to_tensor(a.astype("float32")) for a in (q, k, v)), attn_mask=paddle.to_tensor(keep))
    ref_out, ref_w = _np_mha(mha, q, k, v, (keep - 1.0) * 1e9)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.numpy(), ref_w, atol=1e-6)
    # masked weights: Paddle's softmax clips each score at 64 below the row's maximum, so they are at most
    # exp(-64) of the largest, not exactly 0 (paddle 3.3.1 gives about 1e-28 there too)
    assert np.all(w.numpy()[~np.broadcast_to(keep, w.shape)] < 2e-28)
    # an int mask means the same as a bool mask; a float mask is added as it is
    out_int, _ = mha(*(paddle.to_tensor(a.astype("float32")) for a in (q, k, v)),
                     attn_mask=paddle.to_tensor(keep.astype("int64")))
    np.testing.assert_allclose(out_int.numpy(), out.numpy(), rtol=1e-6)
    add = rs.randn(2, 3, 3, 4)
    out_f, _ = mha(*(paddle.to_tensor(a.astype("float32")) for a in (q, k, v)), attn_mask=paddle.to_tensor(add))
    np.testing.assert_allclose(out_f.numpy(), _np_mha(mha, q, k, v, add)[0], rtol=1e-4, atol=1e-5)


def test_attention_and_transformer_match_paddle_numbers():
    rs = np.random.RandomState(1)
    src = paddle.to_tensor(rs.randn(2, 3, 4).astype("float32"))
    tgt = paddle.to_tensor(rs.randn(2, 2, 4).astype("float32"))
    mha = _fill(paddle.nn.MultiHeadAttention(4, 2, need_weights=True), low=-0.5)
    out, w = mha(src, attn_mask=paddle.to_tensor(np.array([[True, True, False]] * 3)))
    np.testing.assert_allclose(out.numpy(), _PADDLE_MHA_OUT, atol=2e-5)
    np.testing.assert_allclose(w.numpy()[0, 1], _PADDLE_MHA_WEIGHTS_0_1, atol=2e-5)
    for normalize_before in (False, True):
        model = _fill(paddle.nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, normalize_before=normalize_before,
                                            activation="gelu"), low=-0.5)
        got = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(2))
        np.testing.assert_allclose(got.numpy(), _PADDLE_TRANSFORMER[normalize_before], atol=5e-5)


def test_incremental_decoding_equals_full_decoding():
    paddle.seed(9)
    decoder = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2)
    decoder.eval()
    rs = np.random.RandomState(10)
    tgt = paddle.to_tensor(rs.randn(2, 4, 8).astype("float32"))
    memory = paddle.to_tensor(rs.randn(2, 5, 8).astype("float32"))
    full = decoder(tgt, memory, tgt_mask=paddle.nn.Transformer(8, 2, 1, 1, 16).generate_square_subsequent_mask(4))
    cache = decoder.gen_cache(memory)
    steps = []
    for t in range(4):
        out, cache = decoder(tgt[:, t:t + 1], memory, cache=cache)
        steps.append(out)
    np.testing.assert_allclose(paddle.concat(steps, axis=1).numpy(), full.numpy(), rtol=1e-5, atol=1e-5)
    assert cache[0][0].k.shape == [2, 2, 4, 4] and isinstance(cache[0][1], paddle.nn.MultiHeadAttention.StaticCache)

    encoder = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                                             normalize_before=True), 2)
    causal = paddle.to_tensor(np.tril(np.ones((4, 4), bool)))
    full = encoder(tgt, causal)
    cache, steps = encoder.gen_cache(tgt), []
    for t in range(4):
        out, cache = encoder(tgt[:, t:t + 1], cache=cache)
        steps.append(out)
    np.testing.assert_allclose(paddle.concat(steps, axis=1).numpy(), full.numpy(), rtol=1e-5, atol=1e-5)


def test_static_cache_and_layer_structure():
    paddle.seed(11)
    mha = paddle.nn.MultiHeadAttention(8, 2)
    q, kv = paddle.rand([2, 3, 8]), paddle.rand([2, 5, 8])
    out, cache = mha(q, kv, kv, cache=mha.gen_cache(kv, kv, type=mha.StaticCache))
    np.testing.assert_allclose(out.numpy(), mha(q, kv, kv).numpy(), rtol=1e-6)
    assert isinstance(cache, mha.StaticCache)
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, weight_attr=[None, paddle.nn.initializer.Constant(0.1)],
                                              bias_attr=[False, None])
    assert layer.self_attn.q_proj.bias is None and np.all(layer.linear1.weight.numpy() == np.float32(0.1))
    enc = paddle.nn.TransformerEncoder(layer, 3)
    assert enc.layers[0] is layer and enc.layers[2].linear1.weight is not layer.linear1.weight
    assert np.all(enc.layers[2].linear1.weight.numpy() == np.float32(0.1))
    model = paddle.nn.Transformer(8, 2, 2, 1, 16)
    keys = list(model.state_dict())
    assert "encoder.layers.1.self_attn.q_proj.weight" in keys and "decoder.norm.weight" in keys
    assert "decoder.layers.0.cross_attn.out_proj.bias" in keys
    with pytest.raises(ValueError, match="divisible"):
        paddle.nn.MultiHeadAttention(6, 4)
    with pytest.raises(ValueError, match="length of bias_attr"):
        paddle.nn.Transformer(8, 2, 1, 1, 16, bias_attr=[None] * 4)


# ------------------------------------------------------------------------------------------ CTC

def _ctc_brute_force(logits, label, frames):
    """-log of the summed probability of every frame labelling that collapses to `label`."""
    logp = logits[:frames] - np.log(np.exp(logits[:frames]).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(logits.shape[-1]), repeat=frames):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or c != path[i - 1])]
        if collapsed == list(label):
            total += np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    return -np.log(total) if total > 0 else 0.0


def _ctc_inputs():
    rs = np.random.RandomState(1)
    logits = rs.randn(5, 3, 3)
    labels = np.array([[1, 1, 0], [2, 1, 2], [2, 0, 0]], "int32")
    return logits, labels, np.array([5, 5, 3], "int64"), np.array([2, 3, 1], "int64")


def test_ctc_loss_equals_brute_force_enumeration():
    logits, labels, il, ll = _ctc_inputs()
    got = F.ctc_loss(paddle.to_tensor(logits), paddle.to_tensor(labels), paddle.to_tensor(il), paddle.to_tensor(ll),
                     reduction="none")
    want = [_ctc_brute_force(logits[:, b], labels[b, :ll[b]], il[b]) for b in range(3)]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    mean = F.ctc_loss(paddle.to_tensor(logits), paddle.to_tensor(labels), paddle.to_tensor(il), paddle.to_tensor(ll))
    np.testing.assert_allclose(float(mean), np.mean(np.array(want) / ll), rtol=1e-10)
    layer = paddle.nn.CTCLoss(reduction="sum")
    np.testing.assert_allclose(float(layer(paddle.to_tensor(logits), paddle.to_tensor(labels), paddle.to_tensor(il),
                                           paddle.to_tensor(ll))), np.sum(want), rtol=1e-10)
    # labels that need more frames than there are ([1, 1] needs 3) give 0, as warp-ctc does
    short = F.ctc_loss(paddle.to_tensor(logits[:2, :1]), paddle.to_tensor(labels[:1]), paddle.to_tensor([2]),
                       paddle.to_tensor([2]), reduction="none")
    assert float(short[0]) == 0.0


def test_ctc_gradient_equals_finite_differences():
    logits, labels, il, ll = _ctc_inputs()

    def loss(x):
        return F.ctc_loss(x, paddle.to_tensor(labels), paddle.to_tensor(il), paddle.to_tensor(ll))

    grad = paddle.grad(loss)(paddle.to_tensor(logits)).numpy()
    eps, fd = 1e-6, np.zeros_like(logits)
    for idx in np.ndindex(*logits.shape):
        plus, minus = logits.copy(), logits.copy()
        plus[idx] += eps
        minus[idx] -= eps
        fd[idx] = (float(loss(paddle.to_tensor(plus))) - float(loss(paddle.to_tensor(minus)))) / (2 * eps)
    np.testing.assert_allclose(grad, fd, atol=1e-7)
    assert np.all(grad[3:, 2] == 0)  # frames past input_lengths get no gradient


def test_ctc_matches_paddle_numbers_and_jit():
    rs = np.random.RandomState(1)
    lp = rs.randn(5, 2, 4)
    labels = paddle.to_tensor(np.array([[1, 2], [3, 0]], "int32"))
    il, ll = paddle.to_tensor([5, 3]), paddle.to_tensor([2, 1])
    for norm_by_times, scale in ((False, 1.0), (True, 3.0)):
        x = paddle.to_tensor(lp, stop_gradient=False)
        loss = F.ctc_loss(x, labels, il, ll, reduction="none", norm_by_times=norm_by_times)
        loss.sum().backward()
        np.testing.assert_allclose(loss.numpy(), [3.78850393, 4.18844157], rtol=1e-8)
        np.testing.assert_allclose(x.grad.numpy()[:3, 1] * scale, [[-0.63878193, 0.01154876, 0.66045458, -0.03322141],
                                                                    [-0.46196139, 0.14055515, 0.64125277, -0.31984653],
                                                                    [-0.04454721, 0.41387702, 0.3245488, -0.69387861]],
                                   rtol=1e-6)
    np.testing.assert_allclose(float(F.ctc_loss(paddle.to_tensor(lp), labels, il, ll)), 3.0413467690572555, rtol=1e-10)
    jitted = paddle.jit(lambda x: F.ctc_loss(x, labels, il, ll))
    np.testing.assert_allclose(float(jitted(paddle.to_tensor(lp))), 3.0413467690572555, rtol=1e-10)


def test_ctc_errors():
    x = paddle.zeros([4, 2, 3])
    lengths = paddle.to_tensor([4, 4]), paddle.to_tensor([1, 1])
    with pytest.raises(ValueError, match="reduction"):
        paddle.nn.CTCLoss(reduction="avg")
    with pytest.raises(Exception, match=r"labels must be \[batch_size=2"):
        F.ctc_loss(x, paddle.to_tensor([[1, 2]], dtype="int32"), *lengths)
    with pytest.raises(Exception, match="labels must be int32 or int64"):
        F.ctc_loss(x, paddle.to_tensor([[1.0], [2.0]]), *lengths)
    with pytest.raises(ValueError, match="blank must be in"):
        F.ctc_loss(x, paddle.to_tensor([[1], [2]], dtype="int32"), *lengths, blank=3)


# ------------------------------------------------------------------------------- scaled_dot_product_attention

# Printed by Paddle 3.3.1 (CPU):
#   rs = np.random.RandomState(3)
#   q = paddle.to_tensor(rs.randn(2, 3, 4, 2).astype('float32'))
#   k = paddle.to_tensor(rs.randn(2, 5, 2, 2).astype('float32'))     # 2 key/value heads for 4 query heads (GQA)
#   v = paddle.to_tensor(rs.randn(2, 5, 2, 3).astype('float32'))
#   bmask = paddle.to_tensor(rs.rand(2, 1, 3, 5) > 0.3)
#   fmask = paddle.to_tensor(rs.randn(3, 5).astype('float32'))
#   for kw in ({}, {'attn_mask': bmask}, {'attn_mask': fmask}, {'scale': 0.3}):
#       print(np.round(F.scaled_dot_product_attention(q, k, v, **kw).numpy().astype(float), 5).ravel()[:8].tolist())
#   qs = q[:, :, :2]
#   print(... F.scaled_dot_product_attention(qs, qs, qs, is_causal=True) ...)
#   print(... F.scaled_dot_product_attention(qs[0], qs[0], qs[0]) ...)       # unbatched
_PADDLE_SDPA = [[-0.3849, -0.48894, 0.52292, 0.44989, -1.13276, -0.1327, 0.12294, 0.37883],
                [-0.58349, -0.05719, 0.57022, -1.78933, -0.28698, -0.48623, -0.19575, 0.05036],
                [-0.23244, -0.49258, 0.45602, 0.57786, -1.21816, -0.11379, 0.13134, 0.52555],
                [-0.36973, -0.48568, 0.31364, -0.26799, -0.77111, -0.13589, 0.04815, 0.19566],
                [1.78863, 0.43651, 0.0965, -1.86349, 0.70698, -0.10284, -1.24882, 0.75788],
                [1.60519, 0.324, 0.31608, -1.6064, 0.12794, -0.77033, -1.17832, 0.69914]]


def test_scaled_dot_product_attention_matches_paddle_and_numpy():
    rs = np.random.RandomState(3)
    q_np, k_np, v_np = rs.randn(2, 3, 4, 2), rs.randn(2, 5, 2, 2), rs.randn(2, 5, 2, 3)
    q, k, v = (paddle.to_tensor(a.astype("float32")) for a in (q_np, k_np, v_np))
    bmask = rs.rand(2, 1, 3, 5) > 0.3
    fmask = rs.randn(3, 5).astype("float32")
    got = [F.scaled_dot_product_attention(q, k, v, **kw) for kw in
           ({}, {"attn_mask": paddle.to_tensor(bmask)}, {"attn_mask": paddle.to_tensor(fmask)}, {"scale": 0.3})]
    qs = q[:, :, :2]
    got.append(F.scaled_dot_product_attention(qs, qs, qs, is_causal=True))
    got.append(F.scaled_dot_product_attention(qs[0], qs[0], qs[0]))  # unbatched
    for out, want in zip(got, _PADDLE_SDPA):
        np.testing.assert_allclose(out.numpy().ravel()[:8], want, atol=2e-5)
    # numpy: each key/value head serves two query heads
    k_rep, v_rep = np.repeat(k_np, 2, axis=2), np.repeat(v_np, 2, axis=2)
    scores = np.einsum("bqhd,bkhd->bhqk", q_np, k_rep) / np.sqrt(2) + np.where(bmask, 0.0, -np.inf)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    np.testing.assert_allclose(got[1].numpy(), np.einsum("bhqk,bkhd->bqhd", w, v_rep), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=paddle.to_tensor(fmask), is_causal=True)
    with pytest.raises(Exception, match="multiple"):
        F.scaled_dot_product_attention(q, k, v, enable_gqa=False)


# ------------------------------------------------------------------------------- beam search and dynamic_decode

# Printed by Paddle 3.3.1 (CPU) for the decoder built in test_beam_search_matches_paddle, with
#   fill = set_state_dict({n: RandomState(seed).uniform(-1, 1, p.shape) for n, p in named_parameters()})
#   emb, cell, out = fill(Embedding(10, 4), 0), fill(GRUCell(4, 6), 1), fill(Linear(6, 10), 2)
#   decoder = paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3, embedding_fn=emb,
#                                         output_fn=out)
#   h0 = paddle.to_tensor(np.random.RandomState(3).randn(2, 6).astype('float32'))
#   ids, states, lengths = paddle.nn.dynamic_decode(decoder, h0, max_step_num=5, return_length=True)
_PADDLE_BEAM_IDS = [[[1, 8, 8], [1, 8, 8], [1, 1, 8], [1, 1, 8], [1, 1, 8], [1, 1, 8]],
                    [[1, 8, 8], [1, 8, 8], [1, 8, 8], [1, 8, 8], [1, 5, 8], [1, 8, 8]]]
_PADDLE_BEAM_LOG_PROBS = [[-2.1694, -3.468, -4.6021], [-2.6585, -6.1877, -6.3572]]
_PADDLE_BEAM_LENGTHS = [[1, 3, 6], [1, 6, 6]]


def _seeded(layer, seed):
    rs = np.random.RandomState(seed)
    layer.set_state_dict({n: rs.uniform(-1.0, 1.0, p.shape).astype("float32") for n, p in layer.named_parameters()})
    return layer


def test_beam_search_matches_paddle():
    emb, cell = _seeded(paddle.nn.Embedding(10, 4), 0), _seeded(paddle.nn.GRUCell(4, 6), 1)
    decoder = paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3, embedding_fn=emb,
                                          output_fn=_seeded(paddle.nn.Linear(6, 10), 2))
    h0 = paddle.to_tensor(np.random.RandomState(3).randn(2, 6).astype("float32"))
    ids, states, lengths = paddle.nn.dynamic_decode(decoder, h0, max_step_num=5, return_length=True)
    assert ids.numpy().tolist() == _PADDLE_BEAM_IDS
    np.testing.assert_allclose(states.log_probs.numpy(), _PADDLE_BEAM_LOG_PROBS, atol=2e-4)
    assert lengths.numpy().tolist() == _PADDLE_BEAM_LENGTHS
    assert states.cell_states.shape == [2, 3, 6]
    ids_tm, _ = paddle.nn.dynamic_decode(decoder, h0, max_step_num=5, output_time_major=True)
    assert ids_tm.numpy().transpose(1, 0, 2).tolist() == _PADDLE_BEAM_IDS


def test_gather_tree_and_custom_decoder():
    rs = np.random.RandomState(12)
    ids, parents = rs.randint(0, 9, (4, 2, 3)), rs.randint(0, 3, (4, 2, 3))
    want = np.zeros_like(ids)
    for b, k in itertools.product(range(2), range(3)):
        beam = k
        for t in range(3, -1, -1):
            want[t, b, k] = ids[t, b, beam]
            beam = parents[t, b, beam]
    got = F.gather_tree(paddle.to_tensor(ids), paddle.to_tensor(parents))
    np.testing.assert_array_equal(got.numpy(), want)

    class CountDown(paddle.nn.decode.Decoder):
        def initialize(self, inits):
            return inits, inits, inits <= 0

        def step(self, time, inputs, states, **kwargs):
            return states - 1, states - 1, states - 1, states - 1 <= 0

    out, final, lengths = paddle.nn.dynamic_decode(CountDown(), paddle.to_tensor([1, 3]), return_length=True)
    assert out.numpy().tolist() == [[0, -1, -2], [2, 1, 0]] and lengths.numpy().tolist() == [1, 3]
    _, final = paddle.nn.dynamic_decode(CountDown(), paddle.to_tensor([1, 3]), impute_finished=True)
    assert final.numpy().tolist() == [0, 0]  # the finished sequence's state is kept
    out, _ = paddle.nn.dynamic_decode(CountDown(), paddle.to_tensor([9]), max_step_num=2)
    assert out.shape == [1, 3]
