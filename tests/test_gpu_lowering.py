"""The GPU rows of lowering/targets.py (lowering/iree_gpu.py and the forms it borrows), without a GPU: the programs
they lower cross-compile for cuda and rocm, the generic forms they replace still fail there (so an IREE upgrade that
lifts a limit shows which row may go), and the same text, compiled for llvm-cpu, gives eager's numbers."""
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import paddle_fn as paddle
from paddle_fn import runtime
from paddle_fn.core.errors import TransformError, UnsupportedError
from paddle_fn.core.staging import trace_to_program
from paddle_fn.core.trace import Tensor, get_aval
from paddle_fn.lowering import lower_program
from paddle_fn.lowering.emitter import Target
from paddle_fn.lowering.simplify import simplify
from paddle_fn.lowering.targets import GPU_TARGETS, OVERRIDES
from paddle_fn.prims import slicing

from optable import all_rows
from optable.iree_rows import as_list, compile_and_run_on_cpu, rows_module, rows_with_programs

pytest.importorskip("iree.compiler")

# the primitives whose GPU rows mend op-table rows (reduce_sum's mends sums of negations, which the rows hardly hold)
ROW_PRIMITIVES = ("fft", "pad", "polygamma", "lu", "triangular_solve")


def _compile(text, target):
    return runtime.compile_stablehlo(text, target=target, use_disk_cache=False)


def test_every_gpu_target_has_the_same_rows():
    rows = {target: sorted(name for name, t in OVERRIDES if t == target) for target in GPU_TARGETS}
    assert rows["cuda"] == sorted(ROW_PRIMITIVES + ("reduce_sum", "rev", "sort", "threefry2x32"))
    assert all(names == rows["cuda"] for names in rows.values()), rows


def _case(name, f, *args):
    """An op-table-like case (row, program, arguments) of `f`, for optable.iree_rows; the program simplified as
    jit simplifies it (small constants folded into literals)."""
    prog, consts = trace_to_program(lambda *xs: [f(*xs)], [get_aval(Tensor(a)) for a in args])
    return (SimpleNamespace(name=name, fun=f, args=args), simplify(prog),
            [np.asarray(c.concrete_value()) for c in consts] + list(args))


def _layer_norm_step(x, g):
    """The gradient of a layer norm's mean square: its backward pass sums the negated cotangent of x - mean."""
    def loss(x):
        centred = x - paddle.mean(x, axis=-1, keepdim=True)
        normed = centred / paddle.sqrt(paddle.mean(centred * centred, axis=-1, keepdim=True) + 1e-5)
        return paddle.mean((normed * g) ** 2)
    return paddle.grad(loss)(x)


def _sum_cases(rng):
    """(case, IREE's diagnostic for its generic form on cuda, None where it compiles) for each kind of sum the GPU
    row of reduce_sum rewrites (an integer sum of a negation compiles as it is, but is rewritten all the same)."""
    x, g = rng.standard_normal((2, 8, 64)).astype("float32"), np.linspace(0.5, 2, 64, dtype="float32")
    neutral, distribute = "failed to get neutral element for reduction", "failed to distribute"
    return [(_case("sum(-x)", lambda v: paddle.sum(-v, axis=1), x[0]), neutral),
            (_case("integer sum(-x)", lambda v: paddle.sum(-v, axis=1), (x[0] * 10).astype("int64")), None),
            (_case("layer norm step", _layer_norm_step, x, g), neutral),
            (_case("sum(x * 2)", lambda v: paddle.sum(v * 2.0, axis=1), x[0]), distribute),
            (_case("sum(0.5 * x ** 2)", lambda v: 0.5 * paddle.sum(0.5 * v ** 2), x), distribute),
            (_case("sum(x * c), c [n, 1]", lambda v, c: paddle.sum(c * v, axis=1), x[0], x[1, :, :1]), distribute),
            (_case("int32 sum", lambda v: paddle.sum(v, axis=1), (x[0] * 10).astype("int32")), distribute),
            (_case("count", lambda v: paddle.sum((v > 0).astype("int64"), axis=1), x[0]), distribute),
            (_case("float64 sum of float32 * 2", lambda v: paddle.sum(v.astype("float64") * 2.0, axis=1), x[0]),
             distribute)]


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_the_sums_of_the_gpu_row_compile_for_the_gpus(target):
    """IREE 3.13 fails on a sum of a negation (folded into the combiner), of a product by a factor constant along
    the summed axes (a contraction with a broadcast operand) or of values widened to 64 bits in its dispatch; the
    GPU row (iree_gpu.lower_sum) takes the first two out of the sum and computes the last apart. The generic forms failing for cuda are the probe: when one compiles, that part of the row may go (on
    rocm, whose subgroups are 64 lanes wide, some of the products compile)."""
    for (_, prog, _), diagnostic in _sum_cases(np.random.default_rng(0)):
        if target == "cuda" and diagnostic is not None:
            with pytest.raises(runtime.CompileError, match=diagnostic):
                _compile(lower_program(prog, use_overrides=False), target)
        assert _compile(lower_program(prog, target=Target(target)), target).vmfb


def test_the_sums_of_the_gpu_row_give_eager_numbers_on_the_cpu():
    cases = [case for case, _ in _sum_cases(np.random.default_rng(1))]
    # the GPU row changed the text: a backend without rows of its own gets the generic sums
    assert all(lower_program(prog, target=Target("cuda")) != lower_program(prog, target=Target("vulkan-spirv"))
               for _, prog, _ in cases)
    failures = compile_and_run_on_cpu(cases, Target("cuda"))
    assert not failures, "\n".join(failures)


def _sort_cases(rng):
    x = rng.standard_normal((4, 64)).astype("float32")
    x[0, :8] = x[0, 8:16]  # ties, kept in order
    x[1, 3] = np.nan
    return [_case("sort", lambda v: paddle.sort(v, axis=1), x), _case("argsort", lambda v: paddle.argsort(v, axis=1), x),
            _case("top 3", lambda v: paddle.topk(v, 3, axis=1)[1], x),
            _case("descending argsort", lambda v: paddle.argsort(v, axis=0, descending=True), x)]


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_sorts_compile_for_the_gpus(target):
    """A sort of 32 or more elements with a result nobody reads fails for cuda in the form for every target (the
    probe: lowered for a backend without rows of its own); the GPU row keeps every result (iree_gpu.lower_sort)."""
    for _, prog, _ in _sort_cases(np.random.default_rng(0))[:2]:
        if target == "cuda":
            with pytest.raises(runtime.CompileError, match="failed to bufferize op"):
                _compile(lower_program(prog, target=Target("vulkan-spirv")), target)
        assert _compile(lower_program(prog, target=Target(target)), target).vmfb


def test_the_sorts_of_the_gpu_row_give_eager_numbers_on_the_cpu():
    failures = compile_and_run_on_cpu(_sort_cases(np.random.default_rng(1)), Target("cuda"))
    assert not failures, "\n".join(failures)


def _fill_gather_gradient(rng):
    """The gradient of a gather with mode="fill": a scatter_add whose updates are computed from its indices (the
    ones of the in-range rows)."""
    x, i = rng.standard_normal((5, 2)), np.array([0, 4, -2, 7, 1, 4], "int32")

    def gradient(x, i):
        def gathered(x):
            dn = slicing.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
            return paddle.sum(slicing.gather(x, i[:, None], slice_sizes=(1, 2), mode="fill", dimension_numbers=dn))
        return paddle.grad(gathered)(x)
    return _case("gradient of a fill gather", gradient, x, i)


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_scatters_of_computed_updates_compile_for_the_gpus(target):
    """Such a scatter fails for cuda and rocm when its updates are computed in its dispatch (the probe: the form the
    CPU compiles, with its operands unmaterialized below MATERIALIZED_ROWS index rows); on the GPU backends
    iree_scatter always materializes them."""
    _, prog, _ = _fill_gather_gradient(np.random.default_rng(0))
    with pytest.raises(runtime.CompileError, match="failed to apply fusion"):
        _compile(lower_program(prog, target=Target("llvm-cpu")), target)
    assert _compile(lower_program(prog, target=Target(target)), target).vmfb
    failures = compile_and_run_on_cpu([_fill_gather_gradient(np.random.default_rng(1))], Target(target))
    assert not failures, "\n".join(failures)


def _input_gradient(rng, channels):
    """The input gradient of a 3x3 convolution of `channels` features: a convolution with the reversed kernel."""
    x = rng.standard_normal((1, channels, 2, 2)).astype("float32")
    w = (rng.standard_normal((channels, channels, 3, 3)) / channels).astype("float32")
    return _case(f"input gradient, {channels} channels", lambda x, w: paddle.grad(
        lambda x: paddle.sum(paddle.nn.functional.conv2d(x, w, padding=1) ** 2))(x), x, w)


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_reversed_kernels_compile_for_the_gpus(target):
    """IREE fuses the kernel's reversal with its own layout change into a gather NVPTX cannot select for 256 or
    more channels (the probe: the generic form, lowered for a backend without rows of its own, still fails for
    cuda); the GPU row computes the reversal apart (iree_gpu.lower_rev)."""
    _, prog, _ = _input_gradient(np.random.default_rng(0), 256)
    if target == "cuda":
        with pytest.raises(runtime.CompileError, match="Cannot select"):
            _compile(lower_program(prog, target=Target("vulkan-spirv")), target)
    assert _compile(lower_program(prog, target=Target(target)), target).vmfb


def test_the_reversals_of_the_gpu_row_give_eager_numbers_on_the_cpu():
    failures = compile_and_run_on_cpu([_input_gradient(np.random.default_rng(1), 8)], Target("cuda"))
    assert not failures, "\n".join(failures)


def _masked_layer_step():
    """(the training step of Linear(1024, 4096), ReLU and dropout under to_static, lowered for its last call): its
    dropout mask's random bits sit beside the product whose result they mask."""
    paddle.seed(0)
    layers = paddle.nn.Sequential(paddle.nn.Linear(1024, 4096), paddle.nn.ReLU(), paddle.nn.Dropout())
    opt = paddle.optimizer.AdamW(learning_rate=1e-3, parameters=layers.parameters())

    @paddle.jit.to_static
    def step(x):
        loss = (layers(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    step(paddle.ones([2, 1024]))
    args, static = step._last_call
    return step._jitted.lower(*args, static)


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_random_bits_beside_a_product_compile_for_the_gpus(target):
    """Fused into the product's dispatch, the mask's random bits fail to distribute for cuda (the probe: the form
    for a backend without rows of its own); the GPU row computes them apart (iree_gpu.lower_threefry)."""
    lowered = _masked_layer_step()
    if target == "cuda":
        with pytest.raises(runtime.CompileError, match="failed to distribute"):
            _compile(lowered.as_text("vulkan-spirv"), target)
    assert _compile(lowered.as_text(target), target).vmfb


def test_the_random_bits_of_the_gpu_row_give_eager_numbers_on_the_cpu():
    case = _case("uniform", lambda key: paddle.random.uniform(key, [64, 8]), paddle.random.key(3).numpy())
    failures = compile_and_run_on_cpu([case], Target("cuda"))
    assert not failures, "\n".join(failures)


PROBE_UNREAD_PADDING = """func.func @main(%x: tensor<2x8x2x2xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<2x8x1x1xf32> {
  %y = "stablehlo.convolution"(%x, %w) {batch_group_count = 1 : i64,
    dimension_numbers = #stablehlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64,
    lhs_dilation = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>,
    rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 2, 2>}
    : (tensor<2x8x2x2xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x1x1xf32>
  return %y : tensor<2x8x1x1xf32>
}"""


def test_convolutions_leave_no_padding_unread():
    """A 3x3 window at stride 2 over 2x2 padded by 1 reads one row and column of padding less than it is given; with
    that padding IREE fails for cuda (the probe); the lowering gives only the padding the windows read, for every
    target, and the convolution and its gradients keep eager's numbers."""
    with pytest.raises(runtime.CompileError, match="inferred input/output operand"):
        _compile(PROBE_UNREAD_PADDING, "cuda")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 8, 2, 2)).astype("float32"), rng.standard_normal((8, 8, 3, 3)).astype("float32")

    def conv(x, w):
        return paddle.nn.functional.conv2d(x, w, stride=2, padding=1)
    def conv_and_gradients(x, w):
        gradients = paddle.grad(lambda x, w: paddle.sum(conv(x, w) ** 2), argnums=(0, 1))(x, w)
        return paddle.concat([t.flatten() for t in (conv(x, w), *gradients)])
    case = _case("strided convolution and its gradients", conv_and_gradients, x, w)
    text = lower_program(case[1], target=Target("cuda"))
    assert "padding = dense<[[1, 0], [1, 0]]>" in text
    for target in GPU_TARGETS:
        assert _compile(text if target == "cuda" else lower_program(case[1], target=Target(target)), target).vmfb
    for target in ("cuda", None):
        failures = compile_and_run_on_cpu([case], target and Target(target))
        assert not failures, "\n".join(failures)


def _transformed_rows(transform):
    """(row, simplified program, None) for each op-table row with float arguments, under `transform`: "grad" (of the
    sum of its float outputs, by its float arguments) or "vmap" (over a batch of two)."""
    cases = []
    for row in all_rows():
        rng = np.random.default_rng(0)
        args = [a.sample(rng, None) for a in row.args]
        floats = tuple(i for i, a in enumerate(args) if np.asarray(a).dtype.kind == "f")
        if not row.lower or not floats:
            continue

        def loss(*xs, row=row):
            return sum(paddle.sum(o) for o in as_list(row.fun(*xs)) if o.dtype.name.startswith("float"))
        if transform == "grad":
            f, avals = (lambda *xs, loss=loss, floats=floats: list(paddle.grad(loss, argnums=floats)(*xs))), args
        else:
            f, avals = (lambda *xs, row=row: as_list(paddle.vmap(row.fun)(*xs))), [np.stack([a, a]) for a in args]
        try:
            prog, _ = trace_to_program(f, [get_aval(Tensor(a)) for a in avals])
        except (TransformError, UnsupportedError):  # no float output, or a derivative the row's op does not have
            continue
        cases.append((row, simplify(prog), None))
    return cases


@pytest.mark.heavy
@pytest.mark.parametrize("transform", ["grad", "vmap"])
def test_the_op_table_rows_under_grad_and_vmap_cross_compile_for_cuda(transform):
    """What a user on a GPU runs is mostly transformed programs: every row's gradient and vmap compile for CUDA (in
    modules of 40 rows; a module that fails is compiled again row by row to name the row). The reduced form (CI)
    compiles every sixth row's."""
    cases = _transformed_rows(transform)
    cases = cases if os.environ.get("PADDLE_FN_HEAVY") else cases[::6]
    failures = []
    for start in range(0, len(cases), 40):
        pending = [cases[start:start + 40]]
        while pending:
            chunk = pending.pop()
            try:
                _compile(rows_module(chunk, Target("cuda")), "cuda")
            except runtime.CompileError as error:
                if len(chunk) > 1:
                    pending += [[case] for case in chunk]
                else:
                    found = [line for line in error.diagnostics.splitlines() if "error" in line] or [str(error)]
                    failures.append(f"{chunk[0][0].name}: {found[0][:300]}")
    assert len(cases) > (100 if os.environ.get("PADDLE_FN_HEAVY") else 20)
    assert not failures, "\n".join(failures)


def _mended_rows():
    """The op-table cases (a row in one dtype) whose program holds a primitive of ROW_PRIMITIVES."""
    return [case for case in rows_with_programs() if any(e.prim.name in ROW_PRIMITIVES for e in case[1].eqns)]


# one case of each kind that failed for cuda and rocm with the generic forms (row name, its last argument's dtype)
FAILED_GENERIC = {("ifft_2d", "complex128"), ("rfft_3d", "float32"), ("fft_one_power_of_two", "complex128"),
                  ("pad_complex", "complex128"), ("polygamma", "float64"), ("lu_f32", "float32"),
                  ("triangular_solve_complex", "complex64")}


def _failed_generic():
    cases = [case for case in _mended_rows() if (case[0].name, str(case[2][-1].dtype)) in FAILED_GENERIC]
    assert len(cases) == len(FAILED_GENERIC)
    return cases


@pytest.mark.parametrize("target", GPU_TARGETS)
def test_the_op_table_rows_of_the_gpu_rows_cross_compile(target):
    """FFTs, complex pads, float64 polygamma, lu and complex triangular solves, which failed for cuda and rocm."""
    assert _compile(rows_module(_failed_generic(), Target(target)), target).vmfb


def test_without_the_gpu_rows_they_still_fail_for_cuda():
    """The probe: each case lowered as for a backend with no rows of its own (vulkan-spirv: the rows for every
    target only) fails to compile for cuda with IREE 3.13; when one compiles, its GPU row may go."""
    for case in _failed_generic():
        with pytest.raises(runtime.CompileError):
            _compile(rows_module([case], Target("vulkan-spirv")), "cuda")


def test_the_op_table_rows_lowered_for_cuda_give_eager_numbers_on_the_cpu():
    failures = compile_and_run_on_cpu(_mended_rows(), Target("cuda"))
    assert not failures, "\n".join(failures)


# Layer-based models a Paddle user trains, each one training step (AdamW, loss.backward(), under to_static) on the
# stand-in CUDA device, which compiles the step for CUDA; CI compiles the first, PADDLE_FN_HEAVY=1 all
MODEL_STEPS = """
import sys
import numpy as np
import paddle_fn as paddle
nn, F = paddle.nn, paddle.nn.functional
paddle.set_device("gpu:0")
rng = np.random.default_rng(0)
images = paddle.to_tensor(rng.standard_normal((2, 3, 32, 32)).astype("float32"))
labels = paddle.to_tensor(rng.integers(0, 10, (2,)).astype("int64"))
MODELS = {
    "LeNet": lambda: (paddle.vision.models.LeNet(num_classes=10), images[:, :1, 2:30, 2:30]),
    "a transformer decoder": lambda: (nn.TransformerDecoder(nn.TransformerDecoderLayer(32, 4, 64), 2),
                                      paddle.to_tensor(rng.standard_normal((2, 7, 32)).astype("float32"))),
    "ResNet-18": lambda: (paddle.vision.models.resnet18(num_classes=10), images),
    "ResNet-50": lambda: (paddle.vision.models.resnet50(num_classes=10), images),
    "VGG-11": lambda: (paddle.vision.models.vgg11(num_classes=10), images),
    "MobileNetV2": lambda: (paddle.vision.models.mobilenet_v2(num_classes=10), images),
}
for name in sys.argv[1:]:
    paddle.seed(0)
    model, x = MODELS[name]()
    opt = paddle.optimizer.AdamW(learning_rate=1e-3, parameters=model.parameters())

    @paddle.jit.to_static
    def step(x):
        out = model(x, x) if name == "a transformer decoder" else model(x)
        loss = (out ** 2).mean() if name == "a transformer decoder" else F.cross_entropy(out, labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    try:
        print(name, "compiled:", np.isfinite(float(step(x))))
    except paddle.runtime.CompileError as error:
        print(name, "failed:", " | ".join(line.strip() for line in str(error).splitlines() if "rror" in line)[:400])
"""
MODELS = ("LeNet", "a transformer decoder", "ResNet-18", "ResNet-50", "VGG-11", "MobileNetV2")


@pytest.mark.heavy
def test_paddle_models_training_steps_compile_for_cuda(tmp_path):
    """ResNet-18 (3x3 kernels of 512 channels: the reversal row), ResNet-50 and MobileNetV2 on 32x32 images (a
    stride-2 window leaving padding unread), VGG-11 (dropout beside a wide product: the random-bits row)."""
    models = MODELS if os.environ.get("PADDLE_FN_HEAVY") else MODELS[:1]
    env = {**os.environ, "PADDLE_FN_STAND_IN_GPU": "cuda", "PADDLE_FN_BACKGROUND_COMPILE": "0",
           "PADDLE_FN_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", MODEL_STEPS, *models], capture_output=True, text=True, env=env,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [f"{name} compiled: True" for name in models], done.stdout
