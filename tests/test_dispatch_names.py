"""named_scope names in IREE's dispatch names (runtime/dispatch_names.py): a program with scopes compiles in two
phases and each dispatch whose root operation was traced in a scope is named after it, which is what profiles show;
programs without scopes compile as before."""
import numpy as np

import paddle_fn as paddle
from paddle_fn.runtime import compiler
from paddle_fn.runtime.dispatch_names import has_scopes, scoped_dispatch_names

FLOW = '''flow.executable private @main_dispatch_0 {
  flow.executable.export public @main_dispatch_0_matmul_4x4x4_f32 workgroups() -> (index, index, index) {
    %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice() loc(callsite("block/attn" at "m":2:3))
  }
  func.func @main_dispatch_0_matmul_4x4x4_f32() loc(callsite("block/attn" at "m":2:3))
}
flow.executable private @main_dispatch_1 {
  flow.executable.export public @main_dispatch_1_elementwise_4_f32 workgroups() -> (index, index, index) {
    %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice() loc("m":5:3)
  }
}
flow.dispatch @main_dispatch_0::@main_dispatch_0_matmul_4x4x4_f32
flow.dispatch @main_dispatch_1::@main_dispatch_1_elementwise_4_f32
'''


def test_exports_in_a_scope_are_renamed_everywhere_and_the_rest_kept():
    out = scoped_dispatch_names(FLOW)
    assert out.count("@main_dispatch_0_block_attn_matmul_4x4x4_f32") == 3
    assert "matmul_4x4x4_f32\n" not in out.replace("block_attn_matmul", "")
    assert out.count("@main_dispatch_1_elementwise_4_f32") == 2
    assert scoped_dispatch_names("no dispatches") == "no dispatches"


def f(x, w):
    with paddle.named_scope("encoder"):
        y = paddle.tanh(x @ w)
    with paddle.named_scope("decoder"):
        return (y * 3.0).sum(axis=1)


def test_compiled_dispatches_carry_the_scope_names():
    x, w = paddle.ones([16, 16]), paddle.ones([16, 16]) * 0.1
    text = paddle.jit(f).lower(x, w).as_text()
    assert has_scopes(text)
    vmfb = compiler.compile_stablehlo(text, use_disk_cache=False).vmfb
    assert b"main_dispatch_0_encoder_matmul_16x16x16_f32" in vmfb
    assert b"main_dispatch_1_decoder_reduction_16x16_f32" in vmfb
    np.testing.assert_allclose(paddle.jit(f)(x, w).numpy(), np.full(16, 3 * 16 * np.tanh(1.6), np.float32),
                               rtol=1e-5)
    assert not has_scopes(paddle.jit(lambda a, b: (a @ b).sum(axis=0)).lower(x, w).as_text())


def test_backward_operations_carry_the_scope_of_their_forward_operation():
    # as JAX names them: the transpose of an operation traced in "encoder" is in "transpose(jvp(encoder))"
    x, w = paddle.ones([16, 16]), paddle.ones([16, 16]) * 0.1
    grad_f = paddle.grad(lambda x, w: f(x, w).sum(), argnums=1)
    ir = str(paddle.make_ir(grad_f)(x, w))
    transposed_matmul = [line for line in ir.splitlines() if "dot_general" in line and "transpose(" in line]
    assert transposed_matmul and transposed_matmul[0].endswith("# transpose(jvp(encoder))")
    assert "# transpose(jvp(decoder))" in ir
    with_outer = str(paddle.make_ir(lambda x, w: _in_scope("outer", grad_f, x, w))(x, w))
    assert "# outer/transpose(jvp(encoder))" in with_outer and "# outer/encoder" in with_outer
    vmfb = compiler.compile_stablehlo(paddle.jit(grad_f).lower(x, w).as_text(), use_disk_cache=False).vmfb
    assert b"_transpose_jvp_encoder_matmul_16x16x16_f32" in vmfb
    np.testing.assert_allclose(paddle.jit(grad_f)(x, w).numpy(), grad_f(x, w).numpy(), rtol=1e-6)


def _in_scope(name, fn, *args):
    with paddle.named_scope(name):
        return fn(*args)
