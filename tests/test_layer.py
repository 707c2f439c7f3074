"""paddle.nn.Layer, Parameter, ParamAttr and the containers: names, registration rules, state_dict, hooks, modes,
dtype conversion and copying, checked against what Paddle 3.3.1 does."""
import copy
import pickle
import warnings

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn_compat import unique_name
from paddle_fn.nn_compat.regularizer import L2Decay

nn = paddle.nn
Const = nn.initializer.Constant


class Net(nn.Layer):
    """A parameter, a bias, a sublayer, a persistable buffer and an attribute-assigned (non-persistable) buffer."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2, weight_attr=Const(1.0))
        self.w = self.create_parameter([2], default_initializer=Const(2.0))
        self.b = self.create_parameter([2], is_bias=True)
        self.register_buffer("buf", paddle.zeros([1]))
        self.t = paddle.ones([1])

    def forward(self, x):
        return self.fc(x) * self.w + self.b


# --------------------------------------------------------------------------------------------- names


def test_unique_names_follow_paddle():
    with unique_name.guard():
        a, b, net = nn.Linear(3, 2), nn.Linear(3, 2), Net()
    assert (a.full_name(), a.weight.name, a.bias.name) == ("linear_0", "linear_0.w_0", "linear_0.b_0")
    assert (b.full_name(), b.weight.name) == ("linear_1", "linear_1.w_0")
    assert (net.full_name(), net.w.name, net.b.name, net.fc.full_name()) == ("net_0", "net_0.w_0", "net_0.b_0",
                                                                            "linear_2")


def test_name_scope_and_camel_case():
    class MyLSTMCell(nn.Layer):
        pass

    with unique_name.guard():
        assert MyLSTMCell().full_name() == "my_lstm_cell_0"
        assert nn.Layer("block").full_name() == "block_0"
        # Paddle 3.3.1's names: a capital after a digit starts no word (their optimizer checkpoints key on these)
        names = [nn.Conv2D(1, 1, 1).weight.name, nn.BatchNorm2D(1).weight.name, nn.Conv1DTranspose(1, 1, 1).weight.name,
                 nn.AdaptiveAvgPool2D(1).full_name()]
        assert names == ["conv2d_0.w_0", "batch_norm2d_0.w_0", "conv1d_transpose_0.w_0", "adaptive_avg_pool2d_0"]


def test_param_attr_name_and_create_parameter_names():
    fc = nn.Linear(2, 2, weight_attr=nn.ParamAttr(name="fc_w"), bias_attr="fc_b")
    assert (fc.weight.name, fc.bias.name) == ("fc_w", "fc_b")
    with unique_name.guard():
        assert nn.create_parameter([2], "float32").name == "create_parameter_0.w_0"
        assert nn.create_parameter([2], "float32", name="given").name == "given"


# --------------------------------------------------------------------------------------------- registration


def test_state_dict_named_parameters_and_buffers_order():
    net = Net()
    assert list(net.state_dict()) == ["w", "b", "buf", "fc.weight", "fc.bias"]
    assert [k for k, _ in net.named_parameters()] == ["w", "b", "fc.weight", "fc.bias"]
    assert [k for k, _ in net.named_buffers()] == ["buf", "t"]
    assert list(net.to_static_state_dict()) == ["w", "b", "buf", "t", "fc.weight", "fc.bias"]
    assert net.state_dict()["w"] is net.w  # keep_vars: the handles themselves
    snap = net.state_dict(keep_vars=False)["w"]
    net.w.set_value([7.0, 8.0])
    assert snap.numpy().tolist() == [2.0, 2.0]


def test_parameter_attributes():
    net = Net()
    w = net.w
    assert isinstance(w, paddle.Tensor) and isinstance(w, nn.Parameter)
    assert (w.trainable, w.stop_gradient, w.persistable, w.is_leaf) == (True, False, True, True)
    assert (w.optimize_attr, w.regularizer, w.need_clip, w.do_model_average, w.is_distributed) == (
        {"learning_rate": 1.0}, None, True, True, False)
    w.trainable = False
    assert w.stop_gradient
    with pytest.raises(ValueError, match="trainable MUST be bool"):
        w.trainable = 1


def test_param_attr_fields_reach_the_parameter():
    reg = L2Decay(0.1)
    attr = nn.ParamAttr(name="p", initializer=Const(3.0), learning_rate=0.5, regularizer=reg, trainable=False,
                        do_model_average=False, need_clip=False)
    p = nn.Linear(2, 1, weight_attr=attr).weight
    assert (p.name, p.optimize_attr, p.regularizer, p.trainable, p.stop_gradient, p.need_clip,
            p.do_model_average) == ("p", {"learning_rate": 0.5}, reg, False, True, False, False)
    np.testing.assert_array_equal(p.numpy(), np.full([2, 1], 3.0, np.float32))
    assert attr.name == "p"  # the caller's ParamAttr is not modified
    with pytest.raises(TypeError, match="learning_rate"):
        nn.ParamAttr(learning_rate="fast")
    with pytest.raises(TypeError, match="cannot be cast to ParamAttr"):
        nn.Linear(2, 2, weight_attr=3)
    assert nn.Linear(2, 2, weight_attr=reg).weight.regularizer is reg  # a bare regularizer is a ParamAttr too


def test_parameter_repr_and_constructor():
    p = nn.Parameter(paddle.to_tensor([1.0, 2.0]), name="w")
    assert repr(p) == ("Parameter containing:\nTensor(shape=[2], dtype=float32, place=Place(cpu), "
                       "stop_gradient=False,\n       [1., 2.])")
    z = nn.Parameter([2, 3], "float64")
    assert (z.shape, z.dtype, float(z.sum())) == ([2, 3], paddle.float64, 0.0)
    with pytest.raises(ValueError, match=">= 0"):
        nn.Parameter([-1, 2], "float32")


def test_setattr_rules():
    net = Net()
    with pytest.raises(TypeError, match="assignment to parameter 'w' should be of type Parameter or None"):
        net.w = paddle.ones([2])
    with pytest.raises(TypeError, match="sublayer 'fc' should be of type Layer or None"):
        net.fc = 3
    with pytest.raises(TypeError, match="buffer 'buf' should be of type Tensor or None"):
        net.buf = 3
    net.t = None
    assert net._buffers["t"] is None and "t" not in dict(net.named_buffers())
    # reassigning a name moves it between the stores
    net.buf = nn.Linear(1, 1)
    assert "buf" in net._sub_layers and "buf" not in net._buffers
    net.w = None
    assert [k for k, _ in net.named_parameters()] == ["b", "fc.weight", "fc.bias", "buf.weight", "buf.bias"]
    del net.b
    assert not hasattr(net, "b")


def test_super_init_must_come_first():
    class NoInit(nn.Layer):
        def __init__(self):
            self.w = nn.create_parameter([1], "float32")

    with pytest.raises(ValueError, match=r"super\(\).__init__\(\) should be called first"):
        NoInit()


def test_add_parameter_register_buffer_add_sublayer_errors():
    net = Net()
    with pytest.raises(KeyError, match="already exists"):
        net.add_parameter("fc", nn.create_parameter([1], "float32"))
    with pytest.raises(TypeError, match="should be a Parameter, but received Tensor"):
        net.add_parameter("zz", paddle.ones([1]))
    with pytest.raises(KeyError, match="can not contain"):
        net.add_parameter("a.b", None)
    with pytest.raises(KeyError, match="already exists"):
        net.register_buffer("fc", paddle.ones([1]))
    with pytest.raises(TypeError, match="should be a Tensor, but received ndarray"):
        net.register_buffer("q", np.ones([1]))
    with pytest.raises(TypeError, match="must be a Layer"):
        net.add_sublayer("x", 3)
    assert net.add_parameter("extra", None) is None and "extra" in net._parameters


def test_register_buffer_persistable_switch():
    layer = nn.Layer()
    layer.register_buffer("a", paddle.zeros([1]), persistable=False)
    assert list(layer.state_dict()) == []
    layer.register_buffer("a", paddle.zeros([1]))
    assert list(layer.state_dict()) == ["a"]


def test_sublayers_children_and_named_sublayers():
    inner = nn.Sequential(nn.Linear(2, 2))
    model = nn.Sequential(nn.Linear(1, 2), inner)
    assert [n for n, _ in model.named_sublayers(prefix="m", include_self=True)] == ["m", "m.0", "m.1", "m.1.0"]
    assert model.sublayers()[1] is inner and len(model.sublayers(include_self=True)) == 4
    assert [n for n, _ in model.named_children()] == ["0", "1"]
    shared = nn.Linear(2, 2)
    tied = nn.Sequential(shared, shared)
    assert len(tied.parameters()) == 2 and len(list(tied.named_parameters(remove_duplicate=False))) == 4
    assert list(tied.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_repr_nested():
    model = nn.Sequential(nn.Linear(1, 2), nn.Sequential(nn.Linear(2, 2)))
    assert repr(model) == ("Sequential(\n  (0): Linear(in_features=1, out_features=2, dtype=float32)\n"
                           "  (1): Sequential(\n    (0): Linear(in_features=2, out_features=2, dtype=float32)\n  )\n)")
    assert repr(nn.Layer()) == "Layer()"
    assert repr(nn.Linear(2, 3, name="abc")) == "Linear(in_features=2, out_features=3, dtype=float32, name=abc)"


def test_linear_argument_errors():
    with pytest.raises(TypeError, match="in_features must be an int"):
        nn.Linear(2.5, 2)
    with pytest.raises(ValueError, match="out_features must be >= 0"):
        nn.Linear(2, -1)
    assert nn.Linear(0, 2).weight.shape == [0, 2]


def test_forward_matches_numpy():
    net = Net()
    x = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
    want = (x @ np.ones([2, 2], np.float32)) * 2.0
    np.testing.assert_allclose(net(paddle.to_tensor(x)).numpy(), want)
    with pytest.raises(NotImplementedError, match="no forward"):
        nn.Layer()(x)


# --------------------------------------------------------------------------------------------- hooks, modes


def test_forward_hooks_order_replace_and_remove():
    fc = nn.Linear(2, 1, weight_attr=Const(1.0))
    calls = []
    h1 = fc.register_forward_pre_hook(lambda layer, inputs: calls.append(("pre", layer is fc, len(inputs))))
    h2 = fc.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 10,))
    h3 = fc.register_forward_post_hook(lambda layer, inputs, out: out + float(inputs[0].sum()))
    out = fc(paddle.ones([1, 2]))
    assert calls == [("pre", True, 1)]
    assert out.numpy().tolist() == [[40.0]]  # 10 + 10, plus the post hook's sum of the replaced inputs (20)
    for h in (h1, h2, h3):
        h.remove()
    h3.remove()  # twice is harmless
    assert fc(paddle.ones([1, 2])).numpy().tolist() == [[2.0]]


def test_train_eval_apply():
    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2)))
    assert model.eval() is model
    assert [layer.training for layer in model.sublayers(include_self=True)] == [False] * 4
    model.train()
    assert all(layer.training for layer in model.sublayers(include_self=True))
    order = []
    model.apply(lambda layer: order.append(type(layer).__name__))
    assert order == ["Linear", "Linear", "Sequential", "Sequential"]


# --------------------------------------------------------------------------------------------- state_dict


def test_state_dict_round_trip_through_numpy_and_pickle(tmp_path):
    paddle.seed(3)
    a, b = Net(), Net()
    a.w.set_value([5.0, -1.0])
    blob = pickle.dumps({k: v.numpy() for k, v in a.state_dict().items()})
    assert b.set_state_dict(pickle.loads(blob)) == ([], [])
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    x = paddle.to_tensor([[0.5, 1.5]])
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    p = pickle.loads(pickle.dumps(a.w))
    assert isinstance(p, nn.Parameter) and p.name == a.w.name and p.numpy().tolist() == [5.0, -1.0]


def test_set_state_dict_missing_unexpected_and_shape_mismatch_warn():
    net = Net()
    sd = dict(net.state_dict())
    del sd["w"]
    sd["extra"] = paddle.ones([1])
    sd["fc.bias"] = paddle.ones([5])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        missing, unexpected = net.set_state_dict(sd)
    # as Paddle 3.3.1: a key skipped for its shape is both missing and unexpected
    assert (missing, unexpected) == (["w", "fc.bias"], ["fc.bias", "extra"])
    messages = [str(w.message) for w in caught]
    assert any("Skip loading for w. w is not found in the provided dict." in m for m in messages)
    assert any("fc.bias receives a shape [5], but the expected shape is [2]" in m for m in messages)


def test_set_state_dict_by_parameter_name_and_dtype_error():
    a, b = Net(), Net()
    a.w.set_value([4.0, 4.0])
    # keyed by b's parameter names (linear_3.w_0, ...), valued with a's values
    by_name = {getattr(pb, "name", k): pa for (k, pa), pb in zip(a.state_dict().items(), b.state_dict().values())}
    assert b.set_state_dict(by_name, use_structured_name=False) == ([], [])
    assert b.w.numpy().tolist() == [4.0, 4.0]
    bad = dict(b.state_dict())
    bad["w"] = paddle.ones([2], dtype="float64")
    with pytest.raises(paddle.DTypeError, match="Nothing was loaded"):
        b.set_state_dict(bad)
    assert b.w.numpy().tolist() == [4.0, 4.0]
    assert b.set_dict is not None and b.load_dict is not None


def test_state_dict_hook():
    net = nn.Linear(2, 2)
    net._register_state_dict_hook(lambda sd: {k.upper(): v for k, v in sd.items()})
    assert list(net.state_dict()) == ["WEIGHT", "BIAS"]
    assert list(net.state_dict(use_hook=False)) == ["weight", "bias"]


# --------------------------------------------------------------------------------------------- dtype, copies


def test_to_astype_float_double():
    net = Net()
    net.register_buffer("step", paddle.to_tensor([1]))
    net.float()  # only floating-point state is cast by float/double/float16/bfloat16
    assert net.step.dtype == paddle.int64
    net.to(dtype="float64")  # to() casts everything, as Paddle's
    assert (net.w.dtype, net.buf.dtype, net.step.dtype, net._dtype) == (paddle.float64, paddle.float64,
                                                                         paddle.float64, "float64")
    assert net.w.trainable  # a conversion keeps the parameter a trainable leaf
    net.float()
    assert (net.fc.weight.dtype, net.step.dtype) == (paddle.float32, paddle.float32)
    net.astype("int32")
    assert (net.fc.weight.dtype, net.t.dtype) == (paddle.int32, paddle.int32)
    with pytest.raises(ValueError, match="dtype value error"):
        net.astype("float128")
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    model.double(excluded_layers=[nn.Sequential])
    assert [p.dtype for p in model.parameters()] == [paddle.float64] * 4
    model.float(excluded_layers=model[0])
    assert [p.dtype for p in model.parameters()] == [paddle.float64] * 2 + [paddle.float32] * 2


def test_deepcopy_gives_independent_layer_with_renamed_parameters():
    net = Net()
    other = copy.deepcopy(net)
    assert other.w is not net.w and type(other.w) is nn.Parameter
    assert other.w.name.startswith(net.w.name + "_deepcopy_")
    assert list(other.state_dict()) == list(net.state_dict())
    other.w.set_value([9.0, 9.0])
    assert net.w.numpy().tolist() == [2.0, 2.0]
    x = paddle.ones([1, 2])
    np.testing.assert_array_equal(copy.deepcopy(net)(x).numpy(), net(x).numpy())


def test_create_variable_and_tensor():
    layer = nn.Layer("scope")
    t = layer.create_variable(name="tmp", persistable=True)
    assert repr(t) == "Tensor(Not initialized)" and t.name == "tmp" and t.persistable
    assert layer.create_tensor().name.startswith(layer.full_name() + "._generated_var_")


# --------------------------------------------------------------------------------------------- containers


def test_sequential_indexing_and_editing():
    l1, l2, l3 = nn.Linear(4, 3), nn.Linear(3, 2), nn.Linear(2, 1)
    seq = nn.Sequential(l1, l2)
    assert seq[0] is l1 and seq[-1] is l2 and len(seq) == 2 and list(seq) == [l1, l2]
    assert isinstance(seq[0:1], nn.Sequential) and list(seq[0:1]) == [l1]
    seq.append(l3)
    assert list(seq.state_dict())[-1] == "2.bias"
    del seq[0]
    assert list(seq._sub_layers) == ["0", "1"] and seq[0] is l2
    seq.insert(0, l1)
    x = np.ones([2, 4], np.float32)
    want = x
    for layer in (l1, l2, l3):
        want = want @ layer.weight.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(seq(paddle.to_tensor(x)).numpy(), want, rtol=1e-6)
    named = nn.Sequential(("a", l1), ("b", l2))
    assert named["b"] is l2 and list(named.state_dict())[:1] == ["a.weight"]
    with pytest.raises(IndexError, match="out of range"):
        seq[5]
    with pytest.raises(TypeError, match="only Layers"):
        seq[0] = 3


def test_layer_list_and_layer_dict():
    layers = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and list(layers.state_dict())[:2] == ["0.weight", "0.bias"]
    first = layers[0]
    layers.insert(1, nn.Linear(2, 5))
    assert layers[0] is first and layers[1].weight.shape == [2, 5] and len(layers) == 4
    del layers[1]
    assert [lay.weight.shape for lay in layers] == [[2, 2]] * 3
    assert isinstance(layers[1:], nn.LayerList) and len(layers[1:]) == 2
    layers.extend([nn.Linear(2, 2)])
    assert list(layers._sub_layers) == ["0", "1", "2", "3"]
    d = nn.LayerDict({"cls": nn.Linear(4, 3)})
    d["box"] = nn.Linear(4, 2)
    assert list(d) == ["cls", "box"] and "box" in d and d.pop("cls").weight.shape == [4, 3]
    d.update([("x", nn.Linear(1, 1))])
    assert list(d.keys()) == ["box", "x"]
    with pytest.raises(ValueError, match="element 0 should be a"):
        d.update([3])
    d.clear()
    assert len(d) == 0


def test_parameter_list():
    ps = nn.ParameterList([nn.create_parameter([2], "float32") for _ in range(2)])
    ps.append(nn.create_parameter([3], "float32"))
    assert len(ps) == 3 and list(ps.state_dict()) == ["0", "1", "2"] and ps[-1].shape == [3]
    with pytest.raises(TypeError, match="only Parameters"):
        ps[0] = paddle.ones([2])
    assert repr(nn.ParameterList()) == "ParameterList()"


# --------------------------------------------------------------------------------------------- Paddle 3 extras


def test_hook_prepend_with_kwargs_and_always_call():
    class Scale(nn.Layer):
        def forward(self, x, factor=1.0):
            if factor < 0:
                raise ValueError("negative factor")
            return x * factor

    layer, order = Scale(), []
    layer.register_forward_pre_hook(lambda lay, inputs: order.append("pre1"))
    layer.register_forward_pre_hook(lambda lay, inputs: order.append("pre0"), prepend=True)
    layer.register_forward_pre_hook(lambda lay, inputs, kwargs: (inputs, {"factor": kwargs["factor"] * 2}),
                                    with_kwargs=True)
    layer.register_forward_post_hook(lambda lay, inputs, kwargs, out: out + kwargs["factor"], with_kwargs=True)
    seen = []
    h = layer.register_forward_hook(lambda lay, inputs, out: seen.append(out), always_call=True)
    out = layer(paddle.to_tensor([1.0]), factor=3.0)
    assert order == ["pre0", "pre1"] and out.numpy().tolist() == [12.0] and len(seen) == 1
    with pytest.raises(ValueError, match="negative factor"):
        layer(paddle.to_tensor([1.0]), factor=-1.0)
    assert len(seen) == 2 and seen[1] is None  # always_call ran with no output
    h.remove()
    assert not layer._forward_post_hooks_always_called
    layer.register_forward_pre_hook(lambda lay, inputs, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="tuple of \\(new_args, new_kwargs\\)"):
        layer(paddle.to_tensor([1.0]), factor=1.0)


def test_path_access_and_aliases():
    model = nn.Sequential(nn.Sequential(nn.Linear(1, 2)), nn.Layer())
    model[1].register_buffer("mean", paddle.zeros([2]))
    assert model.get_sublayer("0.0") is model[0][0] and model.get_submodule("") is model
    assert model.get_parameter("0.0.bias") is model[0][0].bias
    assert model.get_buffer("1.mean") is model[1].mean
    with pytest.raises(AttributeError, match="has no attribute `9`"):
        model.get_sublayer("9")
    with pytest.raises(AttributeError, match="is not a buffer"):
        model.get_buffer("0.0.weight")
    new = nn.Linear(1, 7)
    model.set_sublayer("0.0", new)
    assert model[0][0] is new
    with pytest.raises(ValueError, match="is not an nn.Layer"):
        model.set_sublayer("0.0", 3)
    model.add_module("extra", nn.Linear(2, 2))
    model.register_parameter("p", nn.create_parameter([1], "float32"))
    assert [n for n, _ in model.named_modules()] == ["", "0", "0.0", "1", "extra"]
    assert len(list(model.modules())) == 5 and "p" in dict(model.named_parameters())
    with pytest.raises(ValueError, match="shouldn't implement backward"):
        model.backward()


def test_load_state_dict_strict_and_requires_grad():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    assert repr(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        b.load_state_dict({"weight": a.weight, "x": a.bias})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        keys = b.load_state_dict({"weight": a.weight, "x": a.bias}, strict=False)
    assert (keys.missing_keys, keys.unexpected_keys) == (["bias"], ["x"])
    assert [p.stop_gradient for p in b.requires_grad_(False).parameters()] == [True, True]
    assert b.requires_grad_().weight.trainable
    assert b.type("float64").weight.dtype == paddle.float64


def test_build_once_runs_before_the_first_forward():
    class Lazy(nn.Layer):
        def _build_once(self, x):
            self.w = self.create_parameter([x.shape[-1]], default_initializer=Const(1.0))

        def forward(self, x):
            return x * self.w

    layer = Lazy()
    assert layer(paddle.ones([2, 3])).shape == [2, 3] and layer.w.shape == [3]


def test_create_parameter_device_and_zero_size():
    layer = nn.Layer()
    p = layer.create_parameter([2], device="cpu")
    assert isinstance(p, nn.Parameter) and str(p.place) == "Place(cpu)" and p.trainable
    with pytest.raises(ValueError, match="the 0-th dim is -1"):
        layer.create_parameter([-1, 2])
    with pytest.raises(TypeError, match="shape must be a list of ints"):
        layer.create_parameter([2.5])
