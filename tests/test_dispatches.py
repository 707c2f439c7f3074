"""`Lowered.dispatches`: the dispatches IREE makes of a program (runtime/dispatches.py), for the device's target and
cross-compiled for CUDA without a GPU; and what the lowering gives the cuda target (no CPU form reaches it)."""
import re

import pytest

import paddle_fn as paddle
from paddle_fn import runtime
from paddle_fn.core.primitive import all_primitives
from paddle_fn.lowering.targets import lowering_rule

F = paddle.nn.functional


def chain(x):
    return paddle.tanh(paddle.exp(x) * 2.0 + 1.0)


def mlp_step(w1, w2, x, y):
    def loss(w1, w2):
        return paddle.mean((paddle.matmul(F.relu(paddle.matmul(x, w1)), w2) - y) ** 2)
    grads = paddle.grad(loss, argnums=(0, 1))(w1, w2)
    return w1 - 0.1 * grads[0], w2 - 0.1 * grads[1]


MLP_ARGS = [paddle.ones(shape) for shape in ([784, 256], [256, 10], [32, 784], [32, 10])]


def kinds(found) -> list:
    """The root operation of each dispatch: IREE's name without the ordinal, the shapes and the types."""
    return [re.sub(r"^main_dispatch_\d+_|_[\dx]+_[a-z\dx]+$", "", name) for name in found.names]


def test_an_elementwise_chain_is_one_dispatch_on_the_cpu():
    found = paddle.jit(chain).lower(paddle.ones([64, 64])).dispatches()
    assert (len(found), found.executables, found.target) == (1, 1, "llvm-cpu")
    assert found.names == ("main_dispatch_0_elementwise_4096_f32",)
    assert str(found).splitlines() == ["1 dispatch of 1 executable for llvm-cpu",
                                       "  main_dispatch_0_elementwise_4096_f32  DoubleTilingExpert"]
    assert repr(found) == "Dispatches(1 dispatch of 1 executable for llvm-cpu)"


def test_an_mlp_step_is_its_five_products_and_a_few_elementwise_dispatches():
    lowered = paddle.jit(mlp_step).lower(*MLP_ARGS)
    for target in ("llvm-cpu", "cuda"):
        found = lowered.dispatches(target)
        products = [name for name in found.names if "matmul" in name]
        # two forward products; backward: both weight gradients and the hidden layer's input gradient
        assert len(products) == 5, found
        assert len(found.names) - len(products) - sum("encode" in n for n in found.names) <= 6, found
    cpu = lowered.dispatches()
    # the products run on the CPU's data-tiled kernels, their operands packed by encoding dispatches
    assert {d.pipeline for d in cpu if "matmul" in d.name} == {"Mmt4dTilingExpert"}
    assert all(d.pipeline == "DataTiling" for d in cpu if d.name.startswith("_encoding_"))


def test_a_convolution_step_cross_compiles_for_cuda_as_one_dispatch_per_convolution():
    def step(w, x):
        return w - 0.1 * paddle.grad(lambda w: paddle.mean(F.relu(F.conv2d(x, w, padding=1)) ** 2))(w)
    found = paddle.jit(step).lower(paddle.ones([16, 16, 3, 3]), paddle.ones([8, 16, 16, 16])).dispatches("cuda")
    assert found.target == "cuda" and "--iree-cuda-target=sm_80" in found.flags
    assert sum(kind == "conv" for kind in kinds(found)) == 2, found  # the forward and the weight gradient
    assert {d.pipeline for d in found} <= {"TileAndFuse", "VectorDistribute", "BaseLowering", "Distribute"}, found


def test_attention_on_cuda_is_two_batch_products_around_an_unfused_softmax():
    """IREE 3.13 forms no attention dispatch from StableHLO: softmax(QK^T)V keeps the scores in memory between a
    product, the softmax's reductions and elementwise pass, and a second product."""
    def attention(q, k, v):
        return paddle.matmul(F.softmax(paddle.matmul(q, k, transpose_y=True) * 0.125, axis=-1), v)
    qkv = [paddle.ones([4, 64, 16]) for _ in range(3)]
    found = paddle.jit(attention).lower(*qkv).dispatches("cuda")
    assert kinds(found).count("batch_matmul") == 2 and not any("attention" in name for name in found.names), found
    assert any(kind.startswith("reduction") for kind in kinds(found)), found


def test_named_scopes_name_the_dispatches():
    def scoped(x):
        with paddle.named_scope("encoder"):
            return chain(x)
    found = paddle.jit(scoped).lower(paddle.ones([8])).dispatches("cuda")
    assert found.names == ("main_dispatch_0_encoder_elementwise_8_f32",)


def test_the_report_is_computed_once_per_text_and_flags():
    lowered = paddle.jit(chain).lower(paddle.ones([32]))
    assert lowered.dispatches() is lowered.dispatches()
    assert lowered.dispatches() is not lowered.dispatches(extra_flags=("--iree-opt-const-eval=true",))


def test_an_unknown_target_is_a_clear_error():
    with pytest.raises(ValueError, match=r"dispatches: unknown IREE target 'tpu'; expected one of llvm-cpu, cuda"):
        paddle.jit(chain).lower(paddle.ones([4])).dispatches("tpu")
    with pytest.raises(ValueError, match="unknown IREE target 'tpu'"):
        runtime.dispatches("func.func @main() { return }", target="tpu")


def test_a_module_iree_rejects_is_a_compile_error():
    with pytest.raises(runtime.CompileError, match="IREE could not compile the StableHLO module for target 'cuda'"):
        runtime.dispatches("func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> { return %x : tensor<2xf32> }",
                           target="cuda")


def test_no_cpu_form_is_lowered_for_cuda():
    """The llvm-cpu rows of lowering/targets.py (lowering/llvm_cpu_*.py, host calls, float64 expansions, signed
    views) never serve another target: every primitive lowers for cuda by its own rule, an every-target row or a
    GPU row (lowering/iree_gpu.py, which borrows only the CPU's target-independent forms)."""
    for prim in all_primitives().values():
        rule = lowering_rule(prim, "cuda")
        where = f"{rule.__module__}.{rule.__qualname__}"
        assert "llvm_cpu" not in where and "host_calls" not in where and "signed" not in where, (prim.name, where)
    conv = paddle.jit(lambda x, w: F.conv2d(x, w, padding=1))
    text = conv.lower(paddle.ones([2, 8, 8, 8]), paddle.ones([8, 8, 3, 3])).as_text("cuda")
    assert text.count("stablehlo.convolution") == 1 and "optimization_barrier" not in text


ATTENTION_OP = """func.func @main(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>,
                 %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %scale = arith.constant 0.125 : f32
  %empty = tensor.empty() : tensor<2x16x8xf32>
  %0 = iree_linalg_ext.attention <{indexing_maps = [affine_map<(b, m, n, k1, k2) -> (b, m, k1)>,
      affine_map<(b, m, n, k1, k2) -> (b, k2, k1)>, affine_map<(b, m, n, k1, k2) -> (b, k2, n)>,
      affine_map<(b, m, n, k1, k2) -> ()>, affine_map<(b, m, n, k1, k2) -> (b, m, n)>]}>
      ins(%q, %k, %v, %scale : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, f32)
      outs(%empty : tensor<2x16x8xf32>) {
    ^bb0(%score: f32):
      iree_linalg_ext.yield %score : f32
  } -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}"""


def test_an_attention_operation_written_into_the_module_is_one_cuda_dispatch():
    """What a GPU lowering of softmax(QK^T)V could emit (docs/architecture.md, CUDA dispatches): IREE 3.13 takes
    its own attention operation in a StableHLO module and makes one fused dispatch of it."""
    found = runtime.dispatches(ATTENTION_OP, target="cuda")
    assert found.names == ("main_dispatch_0_attention_2x16x8x8x16",) and found.dispatches[0].pipeline, found
