"""paddle.jit.load of models PaddlePaddle 3.3.1's paddle.jit.save wrote (tests/data/pir_models, made by
make_fixtures.py there): the PIR program runs as paddle_fn operations, eagerly and compiled, and gives Paddle's
outputs (recorded in <name>.npz by PaddlePaddle 3.3.1 on the same inputs)."""
import os

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn.nn_compat.jit.pir_layer import PirTranslatedLayer
from paddle_fn.nn_compat.jit.pir_ops import OPS

DATA = os.path.join(os.path.dirname(__file__), "data", "pir_models")
MODELS = ["lenet", "tiny_cnn", "tiny_encoder", "tiny_transformer", "misc", "misc2", "misc3", "text", "segmenter"]


def _recorded(name):
    with np.load(os.path.join(DATA, name + ".npz")) as f:
        inputs = [f[f"in{i}"] for i in range(sum(k.startswith("in") for k in f.files))]
        outputs = [f[f"out{i}"] for i in range(sum(k.startswith("out") for k in f.files))]
    return inputs, outputs


def _close(got, want):
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype.name == w.dtype.name and list(g.shape) == list(w.shape)
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-5 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("name", MODELS)
def test_paddle_exported_models_give_paddles_outputs(name):
    inputs, outputs = _recorded(name)
    layer = paddle.jit.load(os.path.join(DATA, name))
    assert isinstance(layer, PirTranslatedLayer) and not layer.training
    _close(layer(*[paddle.to_tensor(x) for x in inputs]), outputs)


@pytest.mark.parametrize("name, primitive", [("tiny_cnn", "conv_general_dilated"), ("text", "gather"),
                                             ("tiny_transformer", "dot_general"), ("segmenter", "conv_general_dilated")])
def test_paddle_exported_models_trace_into_paddle_fn_programs(name, primitive):
    inputs, _ = _recorded(name)
    layer = paddle.jit.load(os.path.join(DATA, name))
    assert primitive in str(paddle.make_ir(lambda *xs: layer(*xs))(*inputs))


# segmenter reshapes to a size read from the input's shape at run time (pd_op.shape64, slice, stack)
@pytest.mark.parametrize("name", ["tiny_transformer", "segmenter"])
def test_paddle_exported_models_compile(name):
    inputs, outputs = _recorded(name)
    layer = paddle.jit.load(os.path.join(DATA, name))
    tensors = [paddle.to_tensor(x) for x in inputs]
    # compile() waits for IREE, so the executable runs rather than the program op by op
    compiled = paddle.jit(lambda *xs: layer(*xs)).lower(*tensors).compile()
    _close(compiled(*tensors), outputs)


def test_to_static_runs_a_paddle_exported_layer():
    (x,), (want,) = _recorded("tiny_cnn")
    static = paddle.jit.to_static(paddle.jit.load(os.path.join(DATA, "tiny_cnn")))
    _close(static(paddle.to_tensor(x)), [want])


def test_the_batch_size_is_free_where_paddle_saved_it_dynamic():
    (x,), (want,) = _recorded("lenet")
    layer = paddle.jit.load(os.path.join(DATA, "lenet"))
    _close(layer(paddle.to_tensor(x[:1])), [want[:1]])
    with pytest.raises(ValueError, match=r"input 'inputs' has shape \[2, 1, 27, 28\] and dtype float32, where the "
                                         r"program declares shape \[-1, 1, 28, 28\]"):
        layer(paddle.zeros([2, 1, 27, 28]))
    with pytest.raises(TypeError, match=r"takes 1 input\(s\) \(\['inputs'\]\), got 2"):
        layer(paddle.to_tensor(x), paddle.to_tensor(x))


def test_parameters_have_paddles_names_and_flags():
    layer = paddle.jit.load(os.path.join(DATA, "tiny_cnn"))
    state = layer.state_dict()
    # as Paddle's PirTranslatedLayer: param_<i> in the parameter file's (sorted) order, statistics not trainable
    assert list(state)[:3] == ["param_0", "param_1", "param_2"]
    params = dict(layer.named_parameters())
    names = [p.name for p in params.values()]
    assert names == sorted(names) and names[0] == "batch_norm2d_0.b_0"
    stats = [p for p in params.values() if p.name.endswith(".w_1") and p.name.startswith("batch_norm")]
    assert stats and all(p.stop_gradient for p in stats)
    assert not params["param_0"].stop_gradient


def test_train_mode_runs_the_inference_program_and_gradients_flow():
    (x,), (want,) = _recorded("tiny_cnn")
    layer = paddle.jit.load(os.path.join(DATA, "tiny_cnn"))
    layer.train()  # Paddle exports the eval program (is_test dropout and batch norm) in either mode
    out = layer(paddle.to_tensor(x))
    _close(out, [want])
    out.sum().backward()
    fc_weight, = [p for p in layer.parameters() if p.name.startswith("linear_") and p.name.endswith(".w_0")]
    assert fc_weight.grad is not None and float(paddle.abs(fc_weight.grad).sum()) > 0


def test_a_paddle_exported_model_saves_again_in_paddle_fns_format(tmp_path):
    (x,), (want,) = _recorded("tiny_cnn")
    layer = paddle.jit.load(os.path.join(DATA, "tiny_cnn"))
    paddle.jit.save(layer, str(tmp_path / "again"), input_spec=[paddle.static.InputSpec([None, 3, 20, 20])])
    again = paddle.jit.load(str(tmp_path / "again"))
    assert type(again).__name__ == "TranslatedLayer" and list(again.state_dict()) == list(layer.state_dict())
    _close(again(paddle.to_tensor(x)), [want])


def test_an_operator_paddle_fn_does_not_translate_is_named():
    # cumsum.json: paddle.jit.save of `paddle.cumsum(x, axis=1)` by PaddlePaddle 3.3.1
    with pytest.raises(ValueError, match=r"cumsum\.json uses the operator\(s\) pd_op\.cumsum, which paddle_fn "
                                         r"cannot translate"):
        paddle.jit.load(os.path.join(DATA, "cumsum"))


def test_the_docs_list_every_operator_translated():
    page = open(os.path.join(os.path.dirname(__file__), "..", "docs", "to_static.md"), encoding="utf-8").read()
    section = page[page.index("## Running models PaddlePaddle exported"):]
    # pd_op names by their op name (`conv2d`), builtin ones in full (`builtin.combine`)
    missing = [name for name in OPS if f"`{name.removeprefix('pd_op.')}`" not in section]
    assert not missing, f"docs/to_static.md does not list {missing}"
